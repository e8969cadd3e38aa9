//! `/undo`, `/redo`, `/rewind` and `/diff` in the interactive session (issue 13): the real
//! `wright` in a pseudo-terminal takes back a round's files and its messages, asks before
//! overwriting the user's own changes, and shows a round's diff.

use crate::common::{Project, messages, reply, serve};
use crate::interactive::pty::Session;

const FINISH: &str = "Thought: done\nAction: Finish[finished]";

/// A step that writes `path` with `content`.
fn write(path: &str, content: &str) -> wright_testkit::ScriptedResponse {
    reply(&format!(
        "Thought: write\nAction: Write[{{\"file_path\": \"{path}\", \"content\": \"{content}\"}}]"
    ))
}

/// The text of every message of request `index` the provider received.
fn sent(server: &wright_testkit::TestServer, index: usize) -> String {
    messages(&server.requests()[index])
        .into_iter()
        .map(|(_, content)| content)
        .collect()
}

/// Starts wright (approving everything) and runs one round that writes `a.txt`.
fn after_a_round_writing_a(project: &Project, server: &wright_testkit::TestServer) -> Session {
    let mut session = Session::start(project, server, &["--approval", "auto"]);
    session.expect("/help for commands");
    session.type_text("write the a file");
    session.enter();
    session.expect("finished");
    assert!(project.path().join("a.txt").exists());
    session
}

#[test]
fn undo_removes_the_rounds_file_and_the_next_request_lacks_the_round() {
    let project = Project::new();
    let server = serve(vec![
        write("a.txt", "alpha\\n"),
        reply(FINISH),
        reply("Thought: ok\nAction: Finish[the second answer]"),
    ]);
    let mut session = after_a_round_writing_a(&project, &server);
    session.type_text("/undo");
    session.enter();
    session.expect("Restored 1 path(s):");
    session.expect("-a.txt");
    session.expect("Rounds from 1 on are undone; /redo brings them back.");
    session.expect("/undo again undoes one more round.");
    assert!(!project.path().join("a.txt").exists());
    session.type_text("next thing");
    session.enter();
    session.expect("the second answer");
    let next = sent(&server, 2);
    assert!(next.contains("next thing"), "{next}");
    assert!(!next.contains("write the a file"), "{next}");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn redo_brings_back_the_file_and_the_round() {
    let project = Project::new();
    let server = serve(vec![
        write("a.txt", "alpha\\n"),
        reply(FINISH),
        reply("Thought: ok\nAction: Finish[the second answer]"),
    ]);
    let mut session = after_a_round_writing_a(&project, &server);
    session.type_text("/undo");
    session.enter();
    session.expect("/undo again undoes one more round.");
    session.type_text("/redo");
    session.enter();
    session.expect("Rounds from 1 on are back in the conversation.");
    assert_eq!(
        std::fs::read_to_string(project.path().join("a.txt")).unwrap(),
        "alpha\n"
    );
    session.type_text("next thing");
    session.enter();
    session.expect("the second answer");
    assert!(sent(&server, 2).contains("write the a file"));
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn undo_asks_before_overwriting_a_file_the_user_changed() {
    let project = Project::new();
    let server = serve(vec![write("a.txt", "alpha\\n"), reply(FINISH)]);
    let mut session = after_a_round_writing_a(&project, &server);
    project.write("a.txt", "mine\n");
    session.type_text("/undo");
    session.enter();
    session.expect("These files changed after the agent last touched them");
    session.expect("~a.txt");
    session.type_text("n");
    session.expect("Nothing was undone.");
    assert!(project.path().join("a.txt").exists());
    session.type_text("/undo");
    session.enter();
    // The question lives in the viewport, gone once answered.
    session.expect_that("the question a second time", |screen| {
        screen.matches("› /undo").count() >= 2 && screen.contains("Overwrite them?")
    });
    session.type_text("y");
    session.expect("Restored 1 path(s):");
    assert!(!project.path().join("a.txt").exists());
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn diff_shows_what_the_session_and_a_round_changed() {
    let project = Project::new();
    let server = serve(vec![write("a.txt", "alpha line\\n"), reply(FINISH)]);
    let mut session = after_a_round_writing_a(&project, &server);
    // The Write's own diff shows the line once.
    let shown = |times: usize| move |screen: &str| screen.matches("+alpha line").count() >= times;
    session.expect_that("the Write's diff", shown(1));
    session.type_text("/diff");
    session.enter();
    session.expect("This session: from before its first change to its end:");
    session.expect_that("the session's diff", shown(2));
    session.expect("new file mode");
    session.type_text("/diff 1");
    session.enter();
    session.expect("Round 1: from before its first change to its end:");
    session.expect_that("round 1's diff", shown(3));
    session.type_text("/diff 9");
    session.enter();
    session.expect("Round 9 is not in this session; /rewind lists the rounds.");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn rewind_picks_round_1_of_2_and_takes_back_both() {
    let project = Project::new();
    let server = serve(vec![
        write("a.txt", "alpha\\n"),
        reply(FINISH),
        write("b.txt", "beta\\n"),
        reply("Thought: done\nAction: Finish[second done]"),
        reply("Thought: ok\nAction: Finish[fresh start]"),
    ]);
    let mut session = after_a_round_writing_a(&project, &server);
    session.type_text("write the b file");
    session.enter();
    session.expect("second done");
    session.type_text("/rewind");
    session.enter();
    session.expect("Undo back to before which round?");
    session.expect("1  write the a file  (+1 ~0 -0)");
    session.expect("2  write the b file  (+1 ~0 -0)");
    session.send(b"\x1b[A");
    session.enter();
    session.expect("Undo rounds from 1 on: what?");
    session.expect("f files only");
    session.enter();
    session.expect("Rounds from 1 on are undone");
    assert!(!project.path().join("a.txt").exists());
    assert!(!project.path().join("b.txt").exists());
    session.type_text("start over");
    session.enter();
    session.expect("fresh start");
    let next = sent(&server, 4);
    assert!(!next.contains("write the a file"), "{next}");
    assert!(!next.contains("write the b file"), "{next}");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}
