//! `wright exec --plan`: one plan-mode round that changes nothing and prints the plan.

use crate::common::{Project, last_message, reply, serve};

const PLAN: &str = "1. Create notes.txt with the greeting.\n2. Check it with cat.";

#[test]
fn exec_plan_offers_no_file_changes_refuses_them_and_prints_the_plan() {
    let project = Project::new();
    let server = serve(vec![
        reply(
            "Thought: just write it\nAction: Write[{\"file_path\": \"notes.txt\", \"content\": \
             \"hello\"}]",
        ),
        reply(&format!("Thought: planned\nAction: Finish[{PLAN}]")),
    ]);
    let run = project.exec(&server, "openai", &["--plan"], "add a notes file");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.stdout, format!("{PLAN}\n"));
    assert!(!project.path().join("notes.txt").exists());

    let requests = server.requests();
    let body = requests[0].json().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    for offered in ["## Read\n", "## Grep\n", "## Bash\n", "## AskUser\n"] {
        assert!(system.contains(offered), "{offered} missing from\n{system}");
    }
    for withheld in ["## Write\n", "## Edit\n", "## MultiEdit\n"] {
        assert!(
            !system.contains(withheld),
            "{withheld} offered in\n{system}"
        );
    }
    assert!(system.contains("# Plan mode\n"), "{system}");
    let observation = last_message(&requests[1]);
    assert!(
        observation.contains("`Write` is not available in plan mode"),
        "{observation}"
    );
}

#[test]
fn without_plan_exec_offers_every_tool() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[ok]")]);
    let run = project.exec(&server, "openai", &[], "hi");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let body = server.requests()[0].json().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("## Write\n") && !system.contains("# Plan mode\n"));
}

#[test]
fn plan_before_a_subcommand_is_a_usage_error() {
    let project = Project::new();
    let server = serve(Vec::new());
    let output = project
        .command(&server, "openai")
        .args(["--plan", "exec", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("wright exec --plan"), "{stderr}");
}
