//! `/init` and the offer to keep a compaction's insights (issue 17, items 3 and 6) in the
//! interactive session, end to end: the real `wright` in a pseudo-terminal against the
//! scripted provider.

use pretty_assertions::assert_eq;
use wright_core::summarize::{SECTIONS, TITLE};

use crate::common::{Project, Run, reply, serve};
use crate::interactive::pty::Session;

const NEW_TEXT: &str = "# Demo\n\n## Build and test\n\n- `cargo nextest run`\n";

/// The system message (L1) of a recorded request.
fn system(request: &wright_testkit::RecordedRequest) -> String {
    let body = request.json().unwrap();
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

fn memory_list(project: &Project) -> Run {
    Run::from(
        project
            .bare_command()
            .args(["memory", "list"])
            .output()
            .unwrap(),
    )
}

#[test]
fn slash_init_shows_the_diff_and_writes_agents_md_on_yes() {
    let project = Project::new();
    project.write("Cargo.toml", "[package]\nname = \"demo\"\n");
    let server = serve(vec![
        reply("Thought: look\nAction: Read[{\"file_path\": \"Cargo.toml\"}]"),
        reply(&format!("Action: Finish[{NEW_TEXT}]")),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("/init");
    session.enter();
    session.expect("+++ b/AGENTS.md");
    session.expect("Write AGENTS.md as shown above?");
    assert!(!project.path().join("AGENTS.md").exists());
    session.type_text("y");
    session.expect("AGENTS.md written");
    assert_eq!(
        std::fs::read_to_string(project.path().join("AGENTS.md")).unwrap(),
        NEW_TEXT
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let l1 = system(&requests[0]);
    assert!(
        l1.contains("# Writing the project's instructions file"),
        "{l1}"
    );
    assert!(
        l1.contains("## Read\n") && !l1.contains("## Write\n"),
        "{l1}"
    );
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn slash_init_answered_no_leaves_code_law_md_as_it_is() {
    let project = Project::new();
    project.write("CODE_LAW.md", "Use tabs.\n");
    let server = serve(vec![reply("Action: Finish[Use tabs.\n\nRun `make test`.]")]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("/init");
    session.enter();
    session.expect("+Run `make test`.");
    session.expect("Update CODE_LAW.md as shown above?");
    session.type_text("n");
    session.expect("CODE_LAW.md was left as it is.");
    assert_eq!(
        std::fs::read_to_string(project.path().join("CODE_LAW.md")).unwrap(),
        "Use tabs.\n"
    );
    assert!(!project.path().join("AGENTS.md").exists());
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

/// A summary whose "Key Insights & Decisions" section holds a decision and a preference.
fn summary_with_insights() -> String {
    let mut summary = format!("{TITLE}\nThe user asked twice; both were answered.");
    for (heading, key) in SECTIONS {
        let body = if key == "key insights" {
            "* **Decisions**: keep the parser hand-written\n* **Learnings**: None\n\
             * **User Preferences**: answers in French"
        } else {
            "* None"
        };
        summary.push_str(&format!("\n\n{heading}\n{body}"));
    }
    summary
}

/// Two rounds, then `/compact` (one round retained), up to the offer.
fn compact_to_the_offer(project: &Project, server: &wright_testkit::TestServer) -> Session {
    let mut session = Session::start_with(project, server, &[], &[("WRIGHT_RETAIN_ROUNDS", "1")]);
    session.expect("/help for commands");
    session.type_text("one");
    session.enter();
    session.expect("first answer");
    session.type_text("two");
    session.enter();
    session.expect("second answer");
    session.type_text("/compact");
    session.enter();
    session.expect("✓ Compacted: 1 round archived");
    session.expect("Keep it as project memory?");
    session.expect("answers in French");
    session
}

#[test]
fn after_compact_one_key_keeps_the_decisions_and_preferences_as_project_memory() {
    let project = Project::new();
    let server = serve(vec![
        reply("Action: Finish[first answer]"),
        reply("Action: Finish[second answer]"),
        reply(&summary_with_insights()),
    ]);
    let mut session = compact_to_the_offer(&project, &server);
    session.type_text("k");
    session.expect("Kept as project memory:");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
    let listed = memory_list(&project);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(
        listed.stdout.contains("keep the parser hand-written")
            && listed.stdout.contains("[decisions]"),
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("answers in French") && listed.stdout.contains("[preferences]"),
        "{}",
        listed.stdout
    );
    assert!(!listed.stdout.contains("Learnings"), "{}", listed.stdout);
}

#[test]
fn after_compact_not_now_keeps_nothing() {
    let project = Project::new();
    let server = serve(vec![
        reply("Action: Finish[first answer]"),
        reply("Action: Finish[second answer]"),
        reply(&summary_with_insights()),
    ]);
    let mut session = compact_to_the_offer(&project, &server);
    session.type_text("n");
    session.expect("Not kept.");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
    let listed = memory_list(&project);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(
        listed.stdout.starts_with("project (") && listed.stdout.contains("): no entries\n"),
        "{}",
        listed.stdout
    );
}

#[test]
fn after_an_automatic_compaction_the_offer_comes_when_the_round_ends() {
    let project = Project::new();
    let big = wright_testkit::ScriptedResponse {
        usage: Some(wright_testkit::ScriptedUsage {
            prompt_tokens: 17_000,
            completion_tokens: 10,
            ..wright_testkit::ScriptedUsage::default()
        }),
        ..reply("Action: Finish[second answer]")
    };
    let server = serve(vec![
        reply("Action: Finish[first answer]"),
        big,
        reply(&summary_with_insights()),
        reply("Action: Finish[third answer]"),
    ]);
    let mut session = Session::start_with(
        &project,
        &server,
        &[],
        &[
            ("WRIGHT_RETAIN_ROUNDS", "1"),
            ("WRIGHT_CONTEXT_WINDOW", "20000"),
        ],
    );
    session.expect("/help for commands");
    for (input, answer) in [("one", "first answer"), ("two", "second answer")] {
        session.type_text(input);
        session.enter();
        session.expect(answer);
    }
    session.type_text("three");
    session.enter();
    session.expect("third answer");
    session.expect("Keep it as project memory?");
    session.type_text("k");
    session.expect("Kept as project memory:");
    assert_eq!(server.requests().len(), 4);
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
    let listed = memory_list(&project);
    assert!(
        listed.stdout.contains("answers in French"),
        "{}",
        listed.stdout
    );
}
