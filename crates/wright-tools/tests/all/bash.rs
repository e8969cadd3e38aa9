//! The Bash tool end to end: real `bash` processes in a temporary project.
#![cfg(unix)]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, ToolResult};
use wright_tools::CommandPolicy;
use wright_tools::ToolContext;

use crate::common::{code, project, run};

async fn bash(ctx: &ToolContext, args: Value) -> ToolResult {
    run(ctx, "Bash", args).await
}

/// Waits until nothing runs in the project any more, then checks that the background job
/// `(sleep 1; touch marker) &` was killed before it touched `marker`. Were the kill missed,
/// the job would touch it and end, or still be running when the wait gives up.
#[cfg(target_os = "linux")]
pub(crate) fn assert_the_background_job_was_killed(root: &std::path::Path) {
    let left = wright_testkit::processes::wait_until_none_run_in(root).unwrap();
    assert_eq!(left, Vec::<u32>::new(), "still running in the project");
    assert!(!root.join("marker").exists(), "the background job survived");
}

#[tokio::test]
async fn stdout_stderr_and_exit_code_are_reported_separately() {
    let (_dir, ctx) = project();
    let command = "echo out; echo err >&2; exit 3";
    let result = bash(&ctx, json!({"command": command})).await;
    assert!(result.is_success(), "a non-zero exit is still a success");
    assert_eq!(
        result.text,
        "Exit code: 3\n<stdout>\nout\n</stdout>\n<stderr>\nerr\n</stderr>"
    );
    assert_eq!(
        result.data,
        json!({
            "command": command,
            "exit_code": 3,
            "signal": null,
            "stdout": "out\n",
            "stderr": "err\n",
            "stdout_chars": 4,
            "stderr_chars": 4,
            "timed_out": false,
        })
    );
}

#[tokio::test]
async fn working_directory_is_the_project_root() {
    let (_dir, ctx) = project();
    let result = bash(&ctx, json!({"command": "pwd -P"})).await;
    assert_eq!(result.data["stdout"], format!("{}\n", ctx.root().display()));
}

#[tokio::test]
async fn stdin_is_closed() {
    let (_dir, ctx) = project();
    let result = bash(&ctx, json!({"command": "cat", "timeout_ms": 10_000})).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.data["exit_code"], 0);
    assert_eq!(
        result.text,
        "Exit code: 0\n<stdout></stdout>\n<stderr></stderr>"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn timeout_kills_the_whole_group_and_keeps_the_output_so_far() {
    let (_dir, ctx) = project();
    let command = "echo started; (sleep 1; touch marker) & sleep 30";
    let result = bash(&ctx, json!({"command": command, "timeout_ms": 300})).await;
    assert_eq!(code(&result), Some(ErrorCode::Timeout));
    assert!(
        result
            .text
            .starts_with("Error (timeout): the command did not finish within 300 ms")
    );
    assert!(
        result.text.contains("<stdout>\nstarted\n</stdout>"),
        "{}",
        result.text
    );
    assert_eq!(result.data["timed_out"], true);
    assert_the_background_job_was_killed(ctx.root());
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn background_jobs_are_stopped_when_the_command_ends() {
    let (_dir, ctx) = project();
    // The background job holds stdout open: without the group kill this call would wait.
    let result = bash(
        &ctx,
        json!({"command": "(sleep 1; touch marker) & echo done"}),
    )
    .await;
    assert!(result.is_success());
    assert_eq!(result.data["stdout"], "done\n");
    assert_the_background_job_was_killed(ctx.root());
}

/// `npm run dev &` and friends: a background process that holds the output pipe open does
/// not hold the call until its timeout, and is killed when the call ends.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_command_that_leaves_a_server_running_ends_when_its_shell_exits() {
    let (_dir, ctx) = project();
    let command = "sleep 300 & echo $! > job.pid; echo done";
    let result = bash(&ctx, json!({"command": command, "timeout_ms": 30_000})).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.data["timed_out"], false);
    assert_eq!(result.data["exit_code"], 0);
    assert_eq!(result.data["stdout"], "done\n");
    let job: u32 = std::fs::read_to_string(ctx.root().join("job.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        wright_testkit::processes::wait_until_gone(&[job]),
        Vec::<u32>::new()
    );
}

/// What a background process writes just after bash exits is kept: the group is killed only
/// once its pipes are closed or the grace has passed.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn output_written_just_after_the_shell_exits_is_kept() {
    let (_dir, ctx) = project();
    // Writes once bash is gone (and reaped), then ends.
    let command = "(while kill -0 $$ 2>/dev/null; do sleep 0.01; done; echo late) & echo done";
    let result = bash(&ctx, json!({"command": command, "timeout_ms": 30_000})).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.data["stdout"], "done\nlate\n");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn cancellation_stops_the_command_and_its_background_job() {
    let (_dir, ctx) = project();
    let token = CancellationToken::new();
    let ctx = ctx.with_cancellation(token.clone());
    let canceller = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(
        bash(
            &ctx,
            json!({"command": "echo started; (sleep 1; touch marker) & sleep 30"})
        ),
        canceller
    );
    assert_eq!(code(&result), Some(ErrorCode::Interrupted));
    assert!(
        result.text.contains("<stdout>\nstarted\n</stdout>"),
        "{}",
        result.text
    );
    assert_the_background_job_was_killed(ctx.root());
}

/// The parent-death signal that kills a command when wright dies is sent when the *thread*
/// that forked it exits. A command whose call was first polled on a runtime thread that then
/// retired (as tokio's blocking threads do when idle) must still run to its end.
#[cfg(target_os = "linux")]
#[test]
fn a_command_outlives_the_thread_that_started_it() {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (_dir, ctx) = project();
    // Waits for the test's go-ahead, so it is still running when the thread is gone.
    let command = "until [ -e go ]; do sleep 0.01; done; echo alive";
    let mut call = Box::pin(bash(
        &ctx,
        json!({"command": command, "timeout_ms": 60_000}),
    ));
    let thread = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let _runtime = runtime.enter();
                let poll = call.as_mut().poll(&mut Context::from_waker(Waker::noop()));
                assert!(matches!(poll, Poll::Pending));
                std::fs::read_link("/proc/thread-self").unwrap()
            })
            .join()
            .unwrap()
    });
    // The thread is gone from /proc only after the kernel has sent its children's parent-death
    // signals, so from here on a command forked by it would be dead.
    let task = std::path::Path::new("/proc").join(&thread);
    let deadline = std::time::Instant::now() + wright_testkit::processes::DEADLINE;
    while task.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{task:?} is still there"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::write(ctx.root().join("go"), "").unwrap();
    let result = runtime.block_on(call);
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.data["exit_code"], 0, "{}", result.text);
    assert_eq!(result.data["stdout"], "alive\n");
}

#[tokio::test]
async fn long_output_is_cut_in_the_middle() {
    let (_dir, ctx) = project();
    let command = "printf 'a%.0s' $(seq 20000); printf 'b%.0s' $(seq 20000)";
    let result = bash(&ctx, json!({"command": command})).await;
    let stdout = result.data["stdout"].as_str().unwrap();
    let expected = format!(
        "{}\n… [10000 characters cut] …\n{}",
        "a".repeat(15_000),
        "b".repeat(15_000)
    );
    assert_eq!(stdout, expected);
    assert_eq!(result.data["stdout_chars"], 40_000);
}

#[tokio::test]
async fn signal_death_is_reported_as_an_exit_code() {
    let (_dir, ctx) = project();
    let result = bash(&ctx, json!({"command": "kill -9 $$"})).await;
    assert!(result.is_success());
    assert_eq!(result.data["exit_code"], 137);
    assert_eq!(result.data["signal"], "SIGKILL");
    assert!(
        result
            .text
            .starts_with("Exit code: 137 (killed by SIGKILL)")
    );
}

#[tokio::test]
async fn timeout_above_the_maximum_is_clamped_and_said() {
    let (_dir, ctx) = project();
    let result = bash(&ctx, json!({"command": "true", "timeout_ms": 900_000})).await;
    assert!(result.is_success());
    assert!(result.text.starts_with(
        "Note: timeout_ms 900000 is above the maximum of 600000; the command ran with 600000.\n"
    ));
}

#[tokio::test]
async fn missing_command_is_invalid_arguments() {
    let (_dir, ctx) = project();
    let result = bash(&ctx, json!({"cmd": "ls"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    let message = &result.error.unwrap().message;
    assert!(message.contains("missing field `command`"), "{message}");
}

#[tokio::test]
async fn mistyped_timeout_is_invalid_arguments_naming_the_field() {
    let (_dir, ctx) = project();
    let result = bash(&ctx, json!({"command": "ls", "timeout_ms": "5s"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(result.error.unwrap().message.contains("field `timeout_ms`"));
}

// The dangerous-command checker (issue 6). Every command below is harmless if it did run.

#[tokio::test]
async fn a_refused_command_never_runs_and_says_why_and_what_to_do() {
    let (_dir, ctx) = project();
    let result = bash(&ctx, json!({"command": "git push --force origin main"})).await;
    assert_eq!(code(&result), Some(ErrorCode::Refused));
    assert_eq!(result.data, Value::Null, "nothing ran");
    assert_eq!(
        result.text,
        "Error (refused): the safety check refused this command (rule `force-push`): \
         `git push --force origin main` force-pushes main, and the protected branches \
         (main, master) must not lose history. Instead, push your work to a branch of its own \
         (e.g. `git push --force-with-lease origin my-branch`) and let the user merge it. Only \
         the user can allow it, with an `allow` pattern under [bash] in .wright/config.toml."
    );
}

#[tokio::test]
async fn a_deny_pattern_of_the_policy_refuses_an_ordinary_command() {
    let (dir, ctx) = project();
    let policy = CommandPolicy::new(vec![], vec!["touch*".into()], vec![]);
    let ctx = ctx.with_command_policy(policy);
    let result = bash(&ctx, json!({"command": "echo hi && touch made.txt"})).await;
    assert_eq!(code(&result), Some(ErrorCode::Refused));
    assert!(result.text.contains("rule `denied`"), "{}", result.text);
    assert!(!dir.path().join("made.txt").exists());
}

#[tokio::test]
async fn an_allow_pattern_of_the_policy_lets_an_overridable_refusal_through() {
    let (_dir, ctx) = project();
    let policy = CommandPolicy::new(
        vec!["git push --force origin main*".into()],
        vec![],
        vec!["main".into()],
    );
    let ctx = ctx.with_command_policy(policy);
    let result = bash(
        &ctx,
        json!({"command": "git push --force origin main 2>/dev/null"}),
    )
    .await;
    assert!(result.is_success(), "{}", result.text);
    assert_ne!(
        result.data["exit_code"],
        json!(0),
        "not a repository: git fails"
    );
}

/// Issue 12: a command leads a session of its own, so it has no controlling terminal to type
/// into. Its session id and group id are its process id, and its terminal (`tty_nr`) is none.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_command_leads_its_own_session_without_a_terminal() {
    let (_dir, ctx) = project();
    // `/proc/PID/stat`: pid (comm) state ppid pgrp session tty_nr ...; bash's comm has no space.
    let command = "read -r pid _ _ _ pgrp session tty _ < /proc/$$/stat; \
                   echo \"$((pid == $$)) $((pgrp == $$)) $((session == $$)) $tty\"";
    let result = bash(&ctx, json!({"command": command})).await;
    assert_eq!(result.data["exit_code"], 0, "{}", result.text);
    assert_eq!(result.data["stdout"], "1 1 1 0\n", "{}", result.text);
}
