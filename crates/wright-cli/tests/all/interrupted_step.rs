//! Spec D3: a step is written to the session as soon as the model asks for it, so a Ctrl-C, a
//! kill or a crash while its tool runs leaves the action in history, and the next round sees
//! it with an `interrupted` result.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use wright_testkit::TestServer;

use crate::common::{Project, messages, reply, serve};

/// Starts `wright exec --session steps` on a step that touches `started` and then waits, and
/// returns once the command has started.
fn start_waiting_step(project: &Project, server: &TestServer) -> Child {
    let child = project
        .command(server, "openai")
        .args(["exec", "--session", "steps", "first question"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = project.path().join("started");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn waiting_step() -> wright_testkit::ScriptedResponse {
    reply("Thought: wait for it\nAction: Bash[{\"command\": \"touch started; sleep 20\"}]")
}

/// The messages of the next round's request, after the interrupted one.
fn next_round(project: &Project, server: &TestServer) -> Vec<(String, String)> {
    let run = project.exec(server, "openai", &["--session", "steps"], "second question");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    messages(&server.requests().pop().unwrap())
}

fn assert_sees_the_interrupted_step(sent: &[(String, String)]) {
    let step = sent
        .iter()
        .position(|(role, content)| role == "assistant" && content.contains("sleep 20"))
        .unwrap_or_else(|| panic!("the action is in history: {sent:?}"));
    let (role, result) = &sent[step + 1];
    assert_eq!(role, "user", "{sent:?}");
    assert!(result.contains("\"code\":\"interrupted\""), "{result}");
    assert_eq!(sent.last().unwrap().1, "second question");
}

fn signal(child: &Child, name: &str) {
    let sent = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

#[test]
fn a_step_interrupted_by_ctrl_c_is_in_the_next_rounds_history() {
    let project = Project::new();
    let server = serve(vec![waiting_step(), reply("Action: Finish[second answer]")]);
    let mut child = start_waiting_step(&project, &server);
    signal(&child, "-INT");
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert_sees_the_interrupted_step(&next_round(&project, &server));
}

#[test]
fn a_step_cut_by_a_kill_is_in_the_next_rounds_history() {
    let project = Project::new();
    let server = serve(vec![waiting_step(), reply("Action: Finish[second answer]")]);
    let mut child = start_waiting_step(&project, &server);
    signal(&child, "-KILL");
    child.wait().unwrap();
    assert_sees_the_interrupted_step(&next_round(&project, &server));
}
