//! Issue 11: nothing left running. A Bash command and what it started die with wright however
//! wright ends: SIGKILL (the group's watchdog and the kernel's parent-death signal), SIGTERM and
//! SIGHUP (wright kills the command's process group before it exits).
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use pretty_assertions::assert_eq;
use wright_testkit::TestServer;
use wright_testkit::processes::{DEADLINE, wait_until_gone};

use crate::common::{Project, reply, serve};

/// wright running a command, and the scripted provider it talks to.
struct Running {
    _server: TestServer,
    wright: Child,
    /// The pids the command wrote.
    pids: Vec<u32>,
}

/// Starts `wright exec` whose model runs `command` (which writes the pid files in `pid_files`),
/// and returns it once every pid file holds a pid.
fn wright_running(project: &Project, command: &str, pid_files: &[&str]) -> Running {
    let action = serde_json::json!({ "command": command });
    let server = serve(vec![
        reply(&format!("Action: Bash[{action}]")),
        reply("Action: Finish[should not be reached]"),
    ]);
    let wright = project
        .command(&server, "openai")
        .args(["exec", "--json", "run it"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pids = pid_files
        .iter()
        .map(|file| wait_for_pid(&project.path().join(file)))
        .collect();
    Running {
        _server: server,
        wright,
        pids,
    }
}

/// The pid in `file`, once the command has written it.
fn wait_for_pid(file: &Path) -> u32 {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let written = std::fs::read_to_string(file).unwrap_or_default();
        if let Ok(pid) = written.trim().parse() {
            return pid;
        }
        assert!(Instant::now() < deadline, "{file:?} was never written");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Sends `signal` (e.g. `-TERM`) to wright, waits for it to end and returns its exit code.
fn kill_wright(running: &mut Running, signal: &str) -> Option<i32> {
    let sent = Command::new("kill")
        .args([signal, &running.wright.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    running.wright.wait().unwrap().code()
}

/// The command and what it started in the background.
const WITH_BACKGROUND_JOB: &str = "sleep 300 & echo $! > job.pid; echo $$ > pid; wait";

#[test]
fn sigkill_kills_the_command_and_its_background_job() {
    let project = Project::new();
    let mut running = wright_running(&project, WITH_BACKGROUND_JOB, &["pid", "job.pid"]);
    kill_wright(&mut running, "-KILL");
    assert_eq!(wait_until_gone(&running.pids), Vec::<u32>::new());
}

#[test]
fn sigkill_kills_a_command_that_replaced_its_shell() {
    let project = Project::new();
    // `exec` keeps the pid: the command is one process, the one wright started (the one the
    // parent-death signal is set on).
    let mut running = wright_running(&project, "echo $$ > pid; exec sleep 300", &["pid"]);
    kill_wright(&mut running, "-KILL");
    assert_eq!(wait_until_gone(&running.pids), Vec::<u32>::new());
}

#[test]
fn sigterm_kills_the_command_and_its_background_job() {
    let project = Project::new();
    let mut running = wright_running(&project, WITH_BACKGROUND_JOB, &["pid", "job.pid"]);
    assert_eq!(kill_wright(&mut running, "-TERM"), Some(143));
    assert_eq!(wait_until_gone(&running.pids), Vec::<u32>::new());
}

#[test]
fn sighup_kills_the_command_and_its_background_job() {
    let project = Project::new();
    let mut running = wright_running(&project, WITH_BACKGROUND_JOB, &["pid", "job.pid"]);
    assert_eq!(kill_wright(&mut running, "-HUP"), Some(129));
    assert_eq!(wait_until_gone(&running.pids), Vec::<u32>::new());
}

/// `nohup wright exec …` keeps running when the terminal closes: a SIGHUP ignored when wright
/// started stays ignored, so the command runs to its end and the round finishes.
#[test]
fn under_nohup_sighup_is_still_ignored() {
    let project = Project::new();
    let command = "echo $$ > pid; until [ -e go ]; do sleep 0.01; done; echo went";
    let action = serde_json::json!({ "command": command });
    let server = serve(vec![
        reply(&format!("Action: Bash[{action}]")),
        reply("Action: Finish[finished]"),
    ]);
    let wright_command = project.command(&server, "openai");
    let mut wright = Command::new("nohup")
        .arg(wright_command.get_program())
        .args(["exec", "--json", "run it"])
        .env_clear()
        .envs(
            wright_command
                .get_envs()
                .filter_map(|(key, value)| value.map(|value| (key, value))),
        )
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_pid(&project.path().join("pid"));
    let sent = Command::new("kill")
        .args(["-HUP", &wright.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    std::fs::write(project.path().join("go"), "").unwrap();
    let output = std::io::read_to_string(wright.stdout.take().unwrap()).unwrap();
    assert_eq!(wright.wait().unwrap().code(), Some(0), "{output}");
    assert!(output.contains("\"round_finished\""), "{output}");
}

/// `wright exec -` blocked reading its prompt from a pipe that stays open still ends on
/// SIGTERM: the handler that kills commands is installed only once the prompt is read.
#[test]
fn sigterm_ends_wright_while_it_waits_for_its_prompt_on_a_pipe() {
    let project = Project::new();
    let server = serve(Vec::new());
    let mut wright = project
        .command(&server, "openai")
        .args(["exec", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _stdin_kept_open = wright.stdin.take();
    let wchan = format!("/proc/{}/wchan", wright.id());
    let start = Instant::now();
    while !std::fs::read_to_string(&wchan).is_ok_and(|w| w.contains("pipe_read")) {
        assert!(
            start.elapsed() < DEADLINE,
            "wright never waited on the pipe"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let sent = Command::new("kill")
        .args(["-TERM", &wright.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = wright.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < DEADLINE, "SIGTERM did not end wright");
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert!(!status.success());
    assert!(server.requests().is_empty());
}
