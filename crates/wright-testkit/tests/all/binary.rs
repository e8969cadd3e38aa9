//! The `wright-testkit` binary.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

use pretty_assertions::assert_eq;

use crate::common;

const BIN: &str = env!("CARGO_BIN_EXE_wright-testkit");

/// Kills the server child process even when an assertion fails first.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn example_script() -> String {
    format!("{}/examples/hello.json", env!("CARGO_MANIFEST_DIR"))
}

#[tokio::test]
async fn serve_prints_its_url_and_replays_the_script() {
    let mut child = KillOnDrop(
        Command::new(BIN)
            .args(["serve", &example_script()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut url = String::new();
    stdout.read_line(&mut url).unwrap();
    let url = url.trim_end().to_string();

    let addr = url.strip_prefix("http://").unwrap().parse().unwrap();
    let first = common::post(addr, "/v1/chat/completions", r#"{"model":"m"}"#).await;
    let second = common::post(addr, "/v1/messages", r#"{"model":"m"}"#).await;
    let mut stderr = child.0.stderr.take().unwrap();
    drop(child);
    let mut log = String::new();
    stderr.read_to_string(&mut log).unwrap();

    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert_eq!(
        first.json()["choices"][0]["message"]["content"],
        "Thought: Let me see what is in the current directory.\nAction: Bash[{\"command\": \"ls\"}]"
    );
    assert_eq!(
        second.json()["content"][0]["text"],
        "Thought: done\nAction: Finish[Hello from the testkit]"
    );
    assert!(
        log.contains("POST /v1/chat/completions -> responses[0]"),
        "{log}"
    );
    assert!(log.contains("POST /v1/messages -> responses[1]"), "{log}");
}

#[test]
fn a_bad_script_names_the_file_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    std::fs::write(&path, r#"{"responses": [{"status": "not a number"}]}"#).unwrap();

    let output = Command::new(BIN)
        .args(["serve", path.to_str().unwrap()])
        .output()
        .unwrap();

    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("broken.json is not a valid script"),
        "{stderr}"
    );
    assert!(stderr.contains("invalid type"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_missing_script_names_the_file_and_exits_2() {
    let output = Command::new(BIN)
        .args(["serve", "/nonexistent/script.json"])
        .output()
        .unwrap();

    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("cannot read script /nonexistent/script.json"),
        "{stderr}"
    );
}

#[test]
fn help_prints_usage() {
    let output = Command::new(BIN).arg("--help").output().unwrap();

    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("wright-testkit serve SCRIPT.json [--port N]"),
        "{stdout}"
    );
}
