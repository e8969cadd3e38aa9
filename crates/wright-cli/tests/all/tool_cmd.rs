//! `wright tool NAME 'JSON'`: one tool, run directly.

use std::io::Write as _;
use std::process::Stdio;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::{Project, Run};

fn tool(project: &Project, args: &[&str]) -> Run {
    Run::from(
        project
            .bare_command()
            .arg("tool")
            .args(args)
            .output()
            .unwrap(),
    )
}

#[test]
fn prints_the_observation_text() {
    let project = Project::new();
    project.write("a.txt", "one\ntwo\n");
    let run = tool(&project, &["Read", r#"{"file_path": "a.txt"}"#]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("     1\tone\n     2\ttwo"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_prints_the_whole_tool_result() {
    let project = Project::new();
    let run = tool(
        &project,
        &["--json", "Bash", r#"{"command": "echo hi; exit 3"}"#],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["status"], "success");
    assert_eq!(result["data"]["exit_code"], 3);
    assert_eq!(result["data"]["stdout"], "hi\n");
    assert_eq!(result["context"]["command"], "echo hi; exit 3");
}

#[test]
fn a_tool_error_exits_1_and_still_prints_the_result() {
    let project = Project::new();
    let run = tool(
        &project,
        &["--json", "Read", r#"{"file_path": "missing.txt"}"#],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["status"], "error");
    assert_eq!(result["error"]["code"], "not_found");

    let run = tool(&project, &["Read", r#"{"file_path": "missing.txt"}"#]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.contains("missing.txt"), "{}", run.stdout);
}

#[test]
fn a_writable_sandbox_path_that_does_not_exist_exits_2_naming_it_and_the_file() {
    let project = Project::new();
    let config = project.home.path().join(".config/wright/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[sandbox]\nwritable = [\"~/no-such-cache\"]\n").unwrap();
    let run = tool(&project, &["Read", r#"{"file_path": "a.txt"}"#]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "invalid `[sandbox] writable` in {}: \"~/no-such-cache\"",
            config.display()
        )),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn paths_outside_the_project_are_refused() {
    let project = Project::new();
    let run = tool(
        &project,
        &["--json", "Read", r#"{"file_path": "../../etc/passwd"}"#],
    );
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["error"]["code"], "path_outside_project");
}

/// Each `wright tool` run is a fresh process with no Read behind it, so the read-before-edit
/// rule is waived (the tool tests in wright-tools cover the edit itself).
#[test]
fn an_edit_needs_no_read_before_it() {
    let project = Project::new();
    project.write("src/lib.rs", "fn a() {\n    let x = 1;\n}\n");
    let args =
        json!({"file_path": "src/lib.rs", "old_string": "let x = 1;", "new_string": "let x = 2;"});
    let run = tool(&project, &["--json", "Edit", &args.to_string()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["replacements"], 1);
    assert_eq!(result["data"]["fallback"], Value::Null);
    assert_eq!(
        std::fs::read_to_string(project.path().join("src/lib.rs")).unwrap(),
        "fn a() {\n    let x = 2;\n}\n"
    );
}

#[test]
fn a_bash_command_does_not_read_wrights_stdin() {
    let project = Project::new();
    let args = json!({"command": "cat", "timeout_ms": 5000});
    let mut child = project
        .bare_command()
        .args(["tool", "--json", "Bash", &args.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wright's own stdin stays open with data in it: were it passed on, `cat` would print the
    // data and then wait for more until the timeout.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"leaked from the terminal\n").unwrap();
    let run = Run::from(child.wait_with_output().unwrap());
    drop(stdin);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["exit_code"], 0);
    assert_eq!(result["data"]["stdout"], "");
}

#[test]
fn a_dangerous_bash_command_is_refused_before_it_runs() {
    let project = Project::new();
    let run = tool(
        &project,
        &[
            "--json",
            "Bash",
            r#"{"command": "git push --force origin main"}"#,
        ],
    );
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["error"]["code"], "refused", "{result}");
}

#[test]
fn the_bash_deny_patterns_of_the_settings_apply() {
    let project = Project::new();
    project.write(".wright/config.toml", "[bash]\ndeny = [\"touch*\"]\n");
    let run = tool(
        &project,
        &["--json", "Bash", r#"{"command": "touch made.txt"}"#],
    );
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["error"]["code"], "refused", "{result}");
    assert!(!project.path().join("made.txt").exists());
}

#[test]
fn unknown_tool_and_bad_json_are_usage_errors() {
    let project = Project::new();
    let run = tool(&project, &["Nope", "{}"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("Read"), "{}", run.stderr);
    let run = tool(&project, &["Read", "{not json"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("not valid JSON"), "{}", run.stderr);
}

#[test]
fn dash_c_selects_the_project() {
    let project = Project::new();
    project.write("sub/inner.txt", "inside\n");
    let run = Run::from(
        project
            .bare_command()
            .args(["-C", "sub", "tool", "Read", r#"{"file_path": "inner.txt"}"#])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("inside"), "{}", run.stdout);
}

#[test]
fn version_and_help_work() {
    let project = Project::new();
    let run = Run::from(project.bare_command().arg("--version").output().unwrap());
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.starts_with("wright "), "{}", run.stdout);
    let run = Run::from(
        project
            .bare_command()
            .args(["exec", "--help"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.contains("Examples:"), "{}", run.stdout);
}
