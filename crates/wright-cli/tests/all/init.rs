//! `wright init` (issue 17, item 3), end to end: the real binary, its read-only writer
//! talking to the scripted provider; the answer shown as a diff and written only with
//! `--yes` (or a yes on a terminal), `CODE_LAW.md` updated when the project has one.

use pretty_assertions::assert_eq;
use wright_testkit::TestServer;

use crate::common::{Project, Run, messages, reply, serve};

const NEW_TEXT: &str = "# Project\n\n## Build and test\n\n- `cargo build`\n- `cargo nextest run`\n";

fn init(project: &Project, server: &TestServer, extra: &[&str]) -> Run {
    Run::from(
        project
            .command(server, "openai")
            .arg("init")
            .args(extra)
            .output()
            .unwrap(),
    )
}

/// The system message (L1) of a recorded request.
fn system(request: &wright_testkit::RecordedRequest) -> String {
    let body = request.json().unwrap();
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

fn user_task(request: &wright_testkit::RecordedRequest) -> String {
    messages(request)
        .into_iter()
        .find(|(role, _)| role == "user")
        .unwrap()
        .1
}

#[test]
fn init_with_yes_writes_agents_md_from_an_agent_that_only_reads() {
    let project = Project::new();
    project.write("Cargo.toml", "[package]\nname = \"demo\"\n");
    let server = serve(vec![
        reply("Thought: look around.\nAction: LS[{\"path\": \".\"}]"),
        // A fence around the whole answer is taken off.
        reply(&format!("Action: Finish[```markdown\n{NEW_TEXT}```]")),
    ]);
    let run = init(&project, &server, &["--yes"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(project.path().join("AGENTS.md")).unwrap(),
        NEW_TEXT
    );
    assert!(
        run.stdout
            .starts_with("--- /dev/null\n+++ b/AGENTS.md\n@@ -0,0 +1,6 @@\n+# Project\n"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("AGENTS.md written"), "{}", run.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let l1 = system(&requests[0]);
    assert!(
        l1.contains("# Writing the project's instructions file"),
        "{l1}"
    );
    assert!(
        l1.contains("## Read\n") && l1.contains("## LS\n") && !l1.contains("## Write\n"),
        "{l1}"
    );
    for tool in ["## Edit\n", "## MultiEdit\n", "## Memory\n", "## Task\n"] {
        assert!(!l1.contains(tool), "{tool} in {l1}");
    }
    assert!(
        user_task(&requests[0]).contains("Write this project's first `AGENTS.md`"),
        "{}",
        user_task(&requests[0])
    );
}

#[test]
fn init_updates_code_law_md_when_the_project_has_one() {
    let project = Project::new();
    project.write("CODE_LAW.md", "# Rules\n\nUse tabs.\n");
    let server = serve(vec![reply(
        "Action: Finish[# Rules\n\nUse tabs.\n\n## Build\n\n`make`\n]",
    )]);
    let run = init(&project, &server, &["--yes"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(project.path().join("CODE_LAW.md")).unwrap(),
        "# Rules\n\nUse tabs.\n\n## Build\n\n`make`\n"
    );
    assert!(!project.path().join("AGENTS.md").exists());
    assert!(
        run.stdout
            .starts_with("--- a/CODE_LAW.md\n+++ b/CODE_LAW.md\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\n+## Build\n"), "{}", run.stdout);
    assert!(run.stderr.contains("CODE_LAW.md updated"), "{}", run.stderr);
    let task = user_task(&server.requests()[0]);
    assert!(
        task.contains("Update this project's `CODE_LAW.md`"),
        "{task}"
    );
}

#[test]
fn without_yes_and_without_a_terminal_init_prints_the_diff_and_writes_nothing() {
    let project = Project::new();
    let server = serve(vec![reply(&format!("Action: Finish[{NEW_TEXT}]"))]);
    let run = init(&project, &server, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!project.path().join("AGENTS.md").exists());
    assert!(run.stdout.contains("+++ b/AGENTS.md\n"), "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "AGENTS.md was not written (no terminal to ask); `wright init --yes` writes it"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn an_empty_answer_writes_nothing_and_fails() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[```\n```]")]);
    let run = init(&project, &server, &["--yes"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(!project.path().join("AGENTS.md").exists());
    assert!(run.stderr.contains("answer was empty"), "{}", run.stderr);
}
