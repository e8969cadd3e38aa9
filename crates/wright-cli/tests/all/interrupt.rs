//! Ctrl-C during a round stops the running tool at once and exits with 130.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use crate::common::{Project, interrupt_and_wait, reply, serve};

#[test]
fn ctrl_c_during_a_tool_exits_130_with_an_interrupted_event() {
    let project = Project::new();
    let server = serve(vec![
        reply("Action: Bash[{\"command\": \"sleep 30\"}]"),
        reply("Action: Finish[should not be reached]"),
    ]);
    let mut child = project
        .command(&server, "openai")
        .args(["exec", "--json", "wait"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().contains("\"type\":\"tool_call\"") {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let status = interrupt_and_wait(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(130));
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    let last: serde_json::Value = serde_json::from_str(rest.last().unwrap()).unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["code"], "interrupted");
    assert_eq!(server.requests().len(), 1);
}
