//! The interactive session end to end: the real `wright` in a pseudo-terminal against the
//! scripted provider — typing, streaming, approvals, Ctrl-C, slash commands.

pub mod pty;

use std::process::Stdio;

use pretty_assertions::assert_eq;
use wright_core::summarize::{SECTIONS, TITLE};

use crate::common::{self, Project, last_message, reply, serve};
use pty::Session;

const FINISH: &str = "Thought: done\nAction: Finish[finished]";

#[test]
fn a_request_shows_the_thought_the_answer_and_the_status() {
    let project = Project::new();
    let server = serve(vec![reply(
        "Thought: looking around\nAction: Finish[All **done** here.]",
    )]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("hello there");
    session.enter();
    session.expect("All done here.");
    session.expect("› hello there");
    session.expect("Thought: looking around");
    session.expect("test-model · context");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn y_approves_a_command_once_and_it_runs() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: make it\nAction: Bash[{\"command\": \"touch ran\"}]"),
        reply(FINISH),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("make a file");
    session.enter();
    session.expect("$ touch ran");
    session.expect("Allow Bash?");
    assert!(!project.path().join("ran").exists(), "asked before running");
    session.type_text("y");
    session.expect("✓ allowed once");
    session.expect("finished");
    assert!(project.path().join("ran").exists());
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn n_with_a_reason_leaves_the_file_unchanged_and_tells_the_model_why() {
    let project = Project::new();
    project.write("notes.txt", "old line\n");
    let server = serve(vec![
        reply("Thought: read first\nAction: Read[{\"file_path\": \"notes.txt\"}]"),
        reply(
            "Thought: change it\nAction: Edit[{\"file_path\": \"notes.txt\", \"old_string\": \"old line\", \"new_string\": \"new line\"}]",
        ),
        reply(FINISH),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("update the notes");
    session.enter();
    session.expect("Allow Edit?");
    session.expect("-old line");
    session.expect("+new line");
    session.type_text("n");
    session.expect("Tell the model why");
    session.type_text("keep the old wording");
    session.enter();
    session.expect("✗ denied: keep the old wording");
    session.expect("finished");
    assert_eq!(
        std::fs::read_to_string(project.path().join("notes.txt")).unwrap(),
        "old line\n"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let observation = last_message(&requests[2]);
    assert!(
        observation.contains("Reason: keep the old wording."),
        "{observation}"
    );
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn ctrl_c_stops_a_long_command_and_the_prompt_comes_back() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: wait\nAction: Bash[{\"command\": \"sleep 30\"}]"),
        reply("Action: Finish[back again]"),
    ]);
    let mut session = Session::start(&project, &server, &["--approval", "auto"]);
    session.expect("/help for commands");
    session.type_text("wait a while");
    session.enter();
    session.expect("Bash sleep 30 …");
    session.ctrl_c();
    session.expect("Interrupted.");
    session.expect_that("the agent idle again", |screen| {
        !screen.contains("Ctrl-C to stop")
    });
    session.type_text("are you there?");
    session.enter();
    session.expect("back again");
    assert_eq!(server.requests().len(), 2);
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn ctrl_c_twice_on_an_empty_prompt_exits() {
    let project = Project::new();
    let server = serve(Vec::new());
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.ctrl_c();
    session.expect("Press Ctrl-C again to exit");
    session.ctrl_c();
    assert_eq!(session.wait(), 0);
}

#[test]
fn compact_archives_the_older_rounds_and_reports_the_sizes() {
    let project = Project::new();
    let mut summary = format!("{TITLE}\nThe user asked twice; both were answered.");
    for (heading, _) in SECTIONS {
        summary.push_str(&format!("\n\n{heading}\n* None"));
    }
    let server = serve(vec![
        reply("Action: Finish[first answer]"),
        reply("Action: Finish[second answer]"),
        reply(&summary),
    ]);
    let mut session = Session::start_with(&project, &server, &[], &[("WRIGHT_RETAIN_ROUNDS", "1")]);
    session.expect("/help for commands");
    session.type_text("one");
    session.enter();
    session.expect("first answer");
    session.type_text("two");
    session.enter();
    session.expect("second answer");
    session.type_text("/compact");
    session.enter();
    session.expect("✓ Compacted: 1 round archived; history about");
    assert_eq!(server.requests().len(), 3, "one summary call");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn resume_switches_to_a_stored_session_and_continues_its_history() {
    let project = Project::new();
    let server = serve(vec![
        reply("Action: Finish[remembered]"),
        reply("Action: Finish[still here]"),
    ]);
    let run = project.exec(&server, "openai", &["--session", "feature"], "remember 42");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("new session");
    session.type_text("/resume feature");
    session.enter();
    session.expect("resumed session");
    session.expect("\"feature\" (1 round)");
    session.expect("› remember 42");
    session.expect("remembered");
    session.type_text("what was the number?");
    session.enter();
    session.expect("still here");
    let requests = server.requests();
    let sent: String = common::messages(&requests[1])
        .into_iter()
        .map(|(_, content)| content)
        .collect();
    assert!(sent.contains("remember 42"), "{sent}");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn continue_opens_the_latest_session_and_shows_where_it_stood() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: look\nAction: LS[{}]"),
        reply("Action: Finish[the earlier answer]"),
    ]);
    let run = project.exec(
        &server,
        "openai",
        &["--session", "earlier"],
        "the earlier question",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let mut session = Session::start(&project, &server, &["--continue"]);
    session.expect("\"earlier\" (1 round)");
    // The recap: the request, one line per tool call, the answer.
    session.expect("› the earlier question");
    session.expect("✓ LS");
    session.expect("the earlier answer");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn exec_without_a_prompt_on_a_terminal_is_a_usage_error_not_a_wait_for_input() {
    let project = Project::new();
    let server = serve(Vec::new());
    let mut session = Session::start(&project, &server, &["exec"]);
    session.expect("no prompt: give it as an argument");
    assert_eq!(session.wait(), 2);
    assert!(server.requests().is_empty());
}

#[test]
fn without_a_terminal_it_says_so_and_points_to_exec() {
    let project = Project::new();
    let server = serve(Vec::new());
    let output = project
        .command(&server, "openai")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("needs a terminal"), "{stderr}");
    assert!(stderr.contains("wright exec"), "{stderr}");
}

#[test]
fn a_bracketed_paste_is_one_multi_line_message() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[got both]")]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.paste("first line\nsecond line");
    session.expect("second line");
    assert!(
        server.requests().is_empty(),
        "a paste sends nothing by itself"
    );
    session.enter();
    session.expect("got both");
    let sent = last_message(&server.requests()[0]);
    assert!(sent.contains("first line\nsecond line"), "{sent}");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn up_recalls_what_was_typed_in_an_earlier_session() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[the first answer]")]);
    let mut first = Session::start(&project, &server, &[]);
    first.expect("/help for commands");
    first.type_text("remember this request");
    first.enter();
    first.expect("the first answer");
    first.ctrl_d();
    assert_eq!(first.wait(), 0);

    let mut second = Session::start(&project, &server, &[]);
    second.expect("/help for commands");
    second.send(b"\x1b[A");
    second.expect("› remember this request");
    second.ctrl_c();
    second.ctrl_c();
    second.ctrl_c();
    assert_eq!(second.wait(), 0);
}

#[test]
fn a_session_left_without_a_message_is_not_kept() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[ok]")]);
    let run = project.exec(&server, "openai", &["--session", "real"], "hi");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("new session");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
    let store = wright_store::SessionStore::new(
        &project.home.path().join("state"),
        &project.path().canonicalize().unwrap(),
    );
    let names: Vec<Option<String>> = store
        .summaries()
        .unwrap()
        .into_iter()
        .map(|s| s.meta.name)
        .collect();
    assert_eq!(names, [Some("real".to_string())]);
}

#[test]
fn a_approves_every_later_command_of_the_session() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: one\nAction: Bash[{\"command\": \"touch first\"}]"),
        reply("Thought: two\nAction: Bash[{\"command\": \"touch second\"}]"),
        reply(FINISH),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("make two files");
    session.enter();
    session.expect("Allow Bash?");
    session.type_text("a");
    // The second command runs without a question: the round finishes on its own.
    session.expect("finished");
    assert!(project.path().join("first").exists());
    assert!(project.path().join("second").exists());
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn alt_enter_and_a_trailing_backslash_start_new_lines() {
    let project = Project::new();
    let server = serve(vec![reply(FINISH)]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("first");
    session.send(b"\x1b\r");
    session.type_text("second\\");
    session.enter();
    session.type_text("third");
    assert!(server.requests().is_empty(), "nothing sent before Enter");
    session.enter();
    session.expect("finished");
    assert_eq!(last_message(&server.requests()[0]), "first\nsecond\nthird");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn tab_completes_a_slash_command() {
    let project = Project::new();
    let server = serve(Vec::new());
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("/hel");
    session.send(b"\t");
    session.expect("/help");
    session.enter();
    session.expect("list commands and keys");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn model_todo_and_cost_commands_answer_and_the_model_switch_takes_effect() {
    let project = Project::new();
    let server = serve(vec![
        reply(
            "Thought: plan\nAction: TodoWrite[{\"todos\": [{\"id\": \"1\", \"content\": \"write the parser\", \"status\": \"in_progress\"}]}]",
        ),
        reply(FINISH),
        reply("Action: Finish[from the other model]"),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("plan it");
    session.enter();
    session.expect("finished");
    session.type_text("/todo");
    session.enter();
    session.expect("write the parser");
    session.type_text("/cost");
    session.enter();
    session.expect("summaries:");
    session.type_text("/model other-model");
    session.enter();
    session.expect("The next rounds talk to other-model.");
    session.type_text("go on");
    session.enter();
    session.expect("from the other model");
    let models: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.json().unwrap()["model"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(models, ["test-model", "test-model", "other-model"]);
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn clear_starts_a_new_session_without_the_earlier_history() {
    let project = Project::new();
    let server = serve(vec![
        reply("Action: Finish[noted]"),
        reply("Action: Finish[fresh]"),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("remember the secret word");
    session.enter();
    session.expect("noted");
    session.type_text("/clear");
    session.enter();
    session.expect_that("a second session line", |screen| {
        screen.matches("new session").count() >= 2
    });
    session.type_text("what was it?");
    session.enter();
    session.expect("fresh");
    let sent: String = common::messages(&server.requests()[1])
        .into_iter()
        .map(|(_, content)| content)
        .collect();
    assert!(!sent.contains("secret word"), "{sent}");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn a_write_is_shown_as_its_diff_and_a_failed_tool_with_its_error() {
    let project = Project::new();
    let server = serve(vec![
        reply(
            "Thought: write\nAction: Write[{\"file_path\": \"notes.txt\", \"content\": \"alpha line\\nbeta line\\n\"}]",
        ),
        reply("Thought: read\nAction: Read[{\"file_path\": \"missing.txt\"}]"),
        reply(FINISH),
    ]);
    let mut session = Session::start(&project, &server, &["--approval", "auto"]);
    session.expect("/help for commands");
    session.type_text("write notes");
    session.enter();
    session.expect("finished");
    session.expect("+alpha line");
    session.expect("+beta line");
    session.expect("missing.txt");
    session.expect("not_found");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn colours_show_unless_no_color_is_set() {
    let script = || {
        vec![
            reply(
                "Thought: write\nAction: Write[{\"file_path\": \"a.txt\", \"content\": \"added\\n\"}]",
            ),
            reply(FINISH),
        ]
    };
    for (no_color, coloured) in [("1", false), ("", true)] {
        let project = Project::new();
        let server = serve(script());
        let mut session = Session::start_with(
            &project,
            &server,
            &["--approval", "auto"],
            &[("NO_COLOR", no_color)],
        );
        session.expect("/help for commands");
        session.type_text("write");
        session.enter();
        session.expect("finished");
        session.expect("+added");
        assert_eq!(
            session.coloured_cells() > 0,
            coloured,
            "NO_COLOR={no_color:?}:\n{}",
            session.screen()
        );
        session.ctrl_d();
        assert_eq!(session.wait(), 0);
    }
}

#[test]
fn tab_completes_an_at_path_fuzzily_and_skips_ignored_files() {
    let project = Project::new();
    project.write("src/parser/mod.rs", "// parser\n");
    project.write(".gitignore", "target/\n");
    project.write("target/debug/parser_mod.rs", "// built\n");
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(project.path())
        .status()
        .unwrap();
    let server = serve(vec![reply(FINISH)]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("explain @prsmod");
    session.send(b"\t");
    session.expect("@src/parser/mod.rs");
    session.enter();
    session.expect("finished");
    let sent = last_message(&server.requests()[0]);
    assert!(sent.contains("@src/parser/mod.rs"), "{sent}");
    assert!(!sent.contains("target/"), "{sent}");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

/// Issue 12: an answer carrying terminal escapes (a window title, a clipboard write) reaches
/// the terminal shown, not obeyed.
#[test]
fn escapes_in_an_exec_answer_are_shown_not_obeyed_on_a_terminal() {
    let project = Project::new();
    let server = serve(vec![reply(
        "Action: Finish[\u{1b}]0;EVIL-TITLE\u{7}\u{1b}]52;c;ZWNobw==\u{7}the answer]",
    )]);
    let mut session = Session::start(&project, &server, &["exec", "hi"]);
    session.expect("the answer");
    session.expect("\\x1b]0;EVIL-TITLE\\x07");
    session.expect("\\x1b]52;c;ZWNobw==");
    assert_eq!(session.wait(), 0);
}
