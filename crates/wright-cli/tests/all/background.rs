//! Background commands end to end (issue 14): the real `wright` whose scripted model starts a
//! command with `run_in_background`, reads it with BashOutput, stops it with KillBash, is told
//! when it ends — and whatever is still running when wright exits is stopped with it.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_testkit::processes::{DEADLINE, wait_until_gone};

use crate::common::{Project, interrupt_and_wait, last_message, messages, reply, serve};
use crate::interactive::pty::Session;

fn bash(args: Value) -> String {
    format!("Thought: next.\nAction: Bash[{args}]")
}

fn call(tool: &str, args: Value) -> String {
    format!("Thought: next.\nAction: {tool}[{args}]")
}

const FINISH: &str = "Thought: done.\nAction: Finish[done]";

/// The pids in `files` (in the project), each written by the job.
fn pids(project: &Project, files: &[&str]) -> Vec<u32> {
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(project.path().join(file)).unwrap();
            text.trim().parse().unwrap()
        })
        .collect()
}

/// A job that says when it was asked to stop (SIGTERM), with a child of its own; it writes
/// both pids.
const LONG_JOB: &str = "trap 'echo term > got-term; exit 0' TERM; sleep 300 & echo $! > \
                        child.pid; echo $$ > job.pid; wait";

/// A step that waits until the job has written its pids.
fn wait_for_pids() -> String {
    bash(json!({"command": "until [ -s job.pid ] && [ -s child.pid ]; do sleep 0.01; done"}))
}

#[test]
fn a_job_still_running_when_exec_finishes_is_stopped_with_sigterm_first() {
    let project = Project::new();
    let server = serve(vec![
        reply(&bash(
            json!({"command": LONG_JOB, "run_in_background": true}),
        )),
        reply(&wait_for_pids()),
        reply(FINISH),
    ]);
    let started = Instant::now();
    let run = project.exec(&server, "openai", &["--json"], "start a server");
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(
        wait_until_gone(&pids(&project, &["job.pid", "child.pid"])),
        Vec::<u32>::new()
    );
    assert_eq!(
        std::fs::read_to_string(project.path().join("got-term")).unwrap(),
        "term\n",
        "the job was asked to stop before it was killed"
    );
    let started_line = last_message(&server.requests()[1]);
    assert!(
        started_line.contains("Started background job b1"),
        "{started_line}"
    );
}

#[test]
fn sigterm_to_wright_stops_its_background_jobs() {
    let project = Project::new();
    let server = serve(vec![
        reply(&bash(
            json!({"command": LONG_JOB, "run_in_background": true}),
        )),
        reply(&wait_for_pids()),
        reply(&bash(json!({"command": "touch waiting; sleep 300"}))),
        reply(FINISH),
    ]);
    let mut wright = project
        .command(&server, "openai")
        .args(["exec", "--json", "start a server"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + DEADLINE;
    while !project.path().join("waiting").exists() {
        assert!(Instant::now() < deadline, "the model never got to wait");
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-TERM", &wright.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    assert_eq!(wright.wait().unwrap().code(), Some(143));
    assert_eq!(
        wait_until_gone(&pids(&project, &["job.pid", "child.pid"])),
        Vec::<u32>::new()
    );
    assert!(project.path().join("got-term").exists());
    assert_eq!(server.requests().len(), 3, "the round went no further");
}

#[test]
fn bash_output_reads_what_is_new_and_kill_bash_stops_the_job() {
    let project = Project::new();
    let job = "for i in 1 2 3; do echo line-$i; done; touch printed; \
               until [ -e go ]; do sleep 0.01; done; echo line-4; touch printed-again; \
               echo $$ > job.pid; exec sleep 300";
    let server = serve(vec![
        reply(&bash(json!({"command": job, "run_in_background": true}))),
        reply(&bash(
            json!({"command": "until [ -e printed ]; do sleep 0.01; done; sleep 0.3"}),
        )),
        reply(&call("BashOutput", json!({"id": "b1"}))),
        reply(&bash(
            json!({"command": "touch go; until [ -e printed-again ]; do sleep 0.01; done; sleep 0.3"}),
        )),
        reply(&call("BashOutput", json!({"id": "b1"}))),
        reply(&call("KillBash", json!({"id": "b1"}))),
        reply(&bash(
            json!({"command": "kill -0 $(cat job.pid) 2>/dev/null && echo alive || echo gone"}),
        )),
        reply(&call("BashOutput", json!({"id": "b9"}))),
        reply(FINISH),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "run it");
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 9);
    let first = last_message(&requests[3]);
    assert!(
        first.contains("Background job b1 has been running for"),
        "{first}"
    );
    assert!(
        first.contains("<output>\nline-1\nline-2\nline-3\n</output>"),
        "{first}"
    );
    let second = last_message(&requests[5]);
    assert!(second.contains("<output>\nline-4\n</output>"), "{second}");
    assert!(!second.contains("line-1"), "{second}");
    let killed = last_message(&requests[6]);
    assert!(
        killed.contains("Background job b1 was stopped by KillBash (exit code 143, SIGTERM)"),
        "{killed}"
    );
    assert!(killed.contains("line-4"), "{killed}");
    assert!(last_message(&requests[7]).contains("gone"));
    let unknown = last_message(&requests[8]);
    assert!(
        unknown.contains("there is no background job `b9`; the jobs are: b1 (killed)"),
        "{unknown}"
    );
    // The model was told of the end by KillBash: no reminder follows.
    assert!(
        requests
            .iter()
            .all(|request| !last_message(request).contains("<background-jobs>"))
    );
    // BashOutput and KillBash are shown with their job and status.
    let events = run.events();
    let summaries: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .filter_map(|e| e["summary"].as_str())
        .collect();
    assert_eq!(summaries[0], "started b1 in the background");
    assert_eq!(summaries[2], "b1 running, 3 lines of output");
}

#[test]
fn a_job_that_ends_is_told_once_and_later_requests_keep_the_same_prefix() {
    let project = Project::new();
    let job = "until [ -e go ]; do sleep 0.01; done; echo all-done; touch ended; exit 5";
    let server = serve(vec![
        reply(&bash(json!({"command": job, "run_in_background": true}))),
        reply(&bash(
            json!({"command": "touch go; until [ -e ended ]; do sleep 0.01; done; sleep 0.5"}),
        )),
        reply(&bash(json!({"command": "true"}))),
        reply(FINISH),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "run it");
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let requests = server.requests();
    let reminder = format!(
        "<background-jobs>\nBackground job b1 has exited (exit code 5): `{job}`. Its last \
         lines:\nall-done\n</background-jobs>"
    );
    let told = |n: usize| {
        messages(&requests[n])
            .iter()
            .map(|(_, content)| content.matches("<background-jobs>").count())
            .sum::<usize>()
    };
    assert_eq!((told(1), told(2), told(3)), (0, 1, 1));
    assert!(last_message(&requests[2]).ends_with(&reminder));
    let (before, after) = (messages(&requests[2]), messages(&requests[3]));
    assert_eq!(&after[..before.len()], before.as_slice());
}

#[test]
fn jobs_lists_the_sessions_jobs_and_leaving_stops_them() {
    let project = Project::new();
    let server = serve(vec![
        reply(&bash(
            json!({"command": LONG_JOB, "run_in_background": true}),
        )),
        reply(&wait_for_pids()),
        reply(FINISH),
    ]);
    let mut session = Session::start(&project, &server, &["--approval", "auto"]);
    session.expect("/help for commands");
    session.type_text("start a server");
    session.enter();
    session.expect("done");
    session.type_text("/jobs");
    session.enter();
    session.expect("Background commands:");
    session.expect("b1   running");
    session.expect("trap 'echo term > got-term; exit 0' TERM");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
    assert_eq!(
        wait_until_gone(&pids(&project, &["job.pid", "child.pid"])),
        Vec::<u32>::new()
    );
    assert!(Path::new(&project.path().join("got-term")).exists());
}

#[test]
fn ctrl_c_ends_exec_and_its_background_jobs() {
    let project = Project::new();
    let server = serve(vec![
        reply(&bash(
            json!({"command": LONG_JOB, "run_in_background": true}),
        )),
        reply(&wait_for_pids()),
        reply(&bash(json!({"command": "touch waiting; sleep 300"}))),
        reply(FINISH),
    ]);
    let mut wright = project
        .command(&server, "openai")
        .args(["exec", "--json", "start a server"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + DEADLINE;
    while !project.path().join("waiting").exists() {
        assert!(Instant::now() < deadline, "the model never got to wait");
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = interrupt_and_wait(&mut wright, DEADLINE);
    assert_eq!(status.code(), Some(130));
    assert_eq!(
        wait_until_gone(&pids(&project, &["job.pid", "child.pid"])),
        Vec::<u32>::new()
    );
    assert!(project.path().join("got-term").exists(), "asked first");
}
