//! Background commands end to end (issue 14): real `bash` jobs started by Bash with
//! `run_in_background`, read by BashOutput, stopped by KillBash, through the builtin registry.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, JobStatus, ToolCall, ToolResult};
use wright_testkit::processes::{DEADLINE, wait_until_gone};
use wright_tools::{SandboxStatus, ToolContext, ToolRegistry};

use crate::common::{code, project, run};

/// Starts `command` in the background; the call must succeed at once with a job id.
async fn start(ctx: &ToolContext, command: &str) -> String {
    let started = Instant::now();
    let result = run(
        ctx,
        "Bash",
        json!({"command": command, "run_in_background": true}),
    )
    .await;
    assert_eq!(result.error, None, "{}", result.text);
    assert!(started.elapsed() < Duration::from_secs(5), "it waited");
    result.data["job_id"].as_str().unwrap().to_string()
}

async fn output(ctx: &ToolContext, id: &str) -> ToolResult {
    run(ctx, "BashOutput", json!({ "id": id })).await
}

/// Reads the job's output until `done` says so of the result, and returns everything read.
async fn read_until(ctx: &ToolContext, id: &str, done: impl Fn(&ToolResult) -> bool) -> String {
    let deadline = Instant::now() + DEADLINE;
    let mut read = String::new();
    loop {
        let result = output(ctx, id).await;
        assert_eq!(result.error, None, "{}", result.text);
        read.push_str(result.data["output"].as_str().unwrap());
        if done(&result) {
            return read;
        }
        assert!(
            Instant::now() < deadline,
            "never done; read so far: {read:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn status(result: &ToolResult) -> &str {
    result.data["status"].as_str().unwrap()
}

/// The pid in `file`, once the command has written it.
async fn pid_in(file: &Path) -> u32 {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Ok(pid) = std::fs::read_to_string(file)
            .unwrap_or_default()
            .trim()
            .parse()
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "{file:?} was never written");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn each_read_gives_the_output_since_the_last_and_then_how_it_ended() {
    let (dir, ctx) = project();
    let id = start(
        &ctx,
        "echo one; echo two; until [ -e go ]; do sleep 0.01; done; echo three; echo err >&2; exit 3",
    )
    .await;
    assert_eq!(id, "b1");
    let first = read_until(&ctx, &id, |result| {
        result.data["output"].as_str().unwrap().contains("two")
    })
    .await;
    assert!(first.ends_with("one\ntwo\n"), "{first:?}");
    let nothing_new = output(&ctx, &id).await;
    assert_eq!(nothing_new.data["output"], "");
    assert_eq!(status(&nothing_new), "running");
    assert!(
        nothing_new.text.contains("<output></output>"),
        "{}",
        nothing_new.text
    );

    std::fs::write(dir.path().join("go"), "").unwrap();
    let rest = read_until(&ctx, &id, |result| status(result) != "running").await;
    assert_eq!(rest, "three\nerr\n");
    let ended = output(&ctx, &id).await;
    assert_eq!(status(&ended), "exited");
    assert_eq!(ended.data["exit_code"], 3);
    assert!(
        ended
            .text
            .starts_with("Background job b1 has exited (exit code 3) after "),
        "{}",
        ended.text
    );
    // BashOutput told the model: nothing is left for a reminder.
    assert_eq!(ctx.jobs().take_ended(), Vec::new());
}

#[tokio::test]
async fn a_filter_shows_only_the_matching_new_lines_and_reads_the_rest() {
    let (_dir, ctx) = project();
    let id = start(&ctx, "printf 'ok 1\\nerror: a\\nok 2\\nerror: b\\n'").await;
    let mut shown = String::new();
    loop {
        let result = run(&ctx, "BashOutput", json!({"id": id, "filter": "^error"})).await;
        shown.push_str(result.data["output"].as_str().unwrap());
        if status(&result) != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(shown, "error: a\nerror: b\n");
    assert_eq!(
        output(&ctx, &id).await.data["output"],
        "",
        "the rest was read too"
    );

    let bad = run(&ctx, "BashOutput", json!({"id": id, "filter": "("})).await;
    assert_eq!(code(&bad), Some(ErrorCode::InvalidPattern));
}

#[tokio::test]
async fn kill_bash_stops_the_whole_group_with_sigterm_first() {
    let (dir, ctx) = project();
    let id = start(
        &ctx,
        "trap 'echo got-term; exit 0' TERM; sleep 300 & echo $! > child.pid; echo $$ > pid; \
         echo started; while :; do sleep 0.05; done",
    )
    .await;
    let pids = [
        pid_in(&dir.path().join("pid")).await,
        pid_in(&dir.path().join("child.pid")).await,
    ];
    let killed = run(&ctx, "KillBash", json!({ "id": id })).await;
    assert_eq!(killed.error, None, "{}", killed.text);
    assert_eq!(status(&killed), "killed");
    assert_eq!(killed.data["stopped_by"], "KillBash");
    // The job's own trap ran: it was asked with SIGTERM before anything was killed.
    let last = killed.data["output"].as_str().unwrap();
    assert!(
        last.contains("started") && last.ends_with("got-term"),
        "{last:?}"
    );
    assert!(
        killed.text.contains("was stopped by KillBash"),
        "{}",
        killed.text
    );
    assert_eq!(wait_until_gone(&pids), Vec::<u32>::new());

    let again = run(&ctx, "KillBash", json!({ "id": id })).await;
    assert!(
        again.text.contains("Nothing was stopped."),
        "{}",
        again.text
    );
}

#[tokio::test]
async fn an_unknown_id_is_an_error_that_lists_the_jobs() {
    let (_dir, ctx) = project();
    let none = output(&ctx, "b1").await;
    assert_eq!(code(&none), Some(ErrorCode::NotFound));
    start(&ctx, "sleep 300").await;
    let wrong = run(&ctx, "KillBash", json!({"id": "b7"})).await;
    assert_eq!(
        wrong.error.unwrap().message,
        "there is no background job `b7`; the jobs are: b1 (running) `sleep 300`"
    );
}

#[tokio::test]
async fn the_checker_judges_a_background_command_as_any_other() {
    let (_dir, ctx) = project();
    let registry = ToolRegistry::builtin();
    let refused = ToolCall {
        tool: "Bash".into(),
        args: json!({"command": "rm -rf ~", "run_in_background": true}),
    };
    let refusal = registry.prepare(&refused, &ctx).unwrap_err();
    assert_eq!(code(&refusal), Some(ErrorCode::Refused));
    let asked = ToolCall {
        tool: "Bash".into(),
        args: json!({"command": "sudo touch ran", "run_in_background": true}),
    };
    assert_eq!(
        registry
            .prepare(&asked, &ctx)
            .unwrap()
            .concern()
            .unwrap()
            .rule,
        "privilege"
    );
    // Where no one can be asked, it does not start.
    assert_eq!(
        code(&registry.run(&asked, &ctx).await),
        Some(ErrorCode::Refused)
    );
    assert_eq!(ctx.jobs().list(), Vec::new());
}

#[tokio::test]
async fn what_a_job_printed_is_masked() {
    let (_dir, ctx) = project();
    let id = start(&ctx, "echo key=sk-proj-Abc123def456ghi789jkl012mno; exit 0").await;
    let read = read_until(&ctx, &id, |result| status(result) != "running").await;
    assert!(read.contains("key=[REDACTED openai key]"), "{read}");
    assert!(!read.contains("sk-proj-Abc123"), "{read}");
}

#[tokio::test]
async fn a_timeout_given_stops_the_job() {
    let (_dir, ctx) = project();
    let result = run(
        &ctx,
        "Bash",
        json!({"command": "echo $$ > pid; exec sleep 300", "run_in_background": true, "timeout_ms": 300}),
    )
    .await;
    assert!(
        result.text.contains("stopped after 300 ms"),
        "{}",
        result.text
    );
    let id = result.data["job_id"].as_str().unwrap();
    read_until(&ctx, id, |result| status(result) != "running").await;
    let ended = output(&ctx, id).await;
    assert_eq!(status(&ended), "killed");
    assert_eq!(ended.data["stopped_by"], "timeout");
    assert_eq!(ended.data["exit_code"], 143);
}

#[tokio::test]
async fn jobs_are_stopped_when_the_sessions_last_context_goes() {
    let (dir, ctx) = project();
    let clone = ctx.clone();
    start(&clone, "echo $$ > pid; exec sleep 300").await;
    let pid = pid_in(&dir.path().join("pid")).await;
    drop(clone);
    assert_eq!(
        ctx.jobs().list()[0].status,
        JobStatus::Running,
        "a clone is left"
    );
    drop(ctx);
    // The job's task stops it on this runtime.
    let deadline = Instant::now() + DEADLINE;
    while wright_testkit::processes::is_running(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(wait_until_gone(&[pid]), Vec::<u32>::new());
}

#[tokio::test]
async fn a_sub_agents_jobs_are_its_own_and_end_with_it() {
    let (dir, parent) = project();
    start(&parent, "sleep 300").await;
    let child = parent.for_child();
    assert!(
        child.jobs().list().is_empty(),
        "the parent's job is not the child's"
    );
    let id = start(&child, "echo $$ > child-pid; exec sleep 300").await;
    assert_eq!(id, "b1", "the child counts its own jobs");
    let pid = pid_in(&dir.path().join("child-pid")).await;
    assert_eq!(parent.jobs().list().len(), 1);
    drop(child);
    let deadline = Instant::now() + DEADLINE;
    while wright_testkit::processes::is_running(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(wait_until_gone(&[pid]), Vec::<u32>::new());
    assert_eq!(parent.jobs().list()[0].status, JobStatus::Running);
}

#[tokio::test]
async fn a_job_that_ended_is_told_once_with_its_last_lines() {
    let (_dir, ctx) = project();
    start(&ctx, "seq 1 8; exit 2").await;
    let deadline = Instant::now() + DEADLINE;
    let ended = loop {
        let ended = ctx.jobs().take_ended();
        if !ended.is_empty() {
            break ended;
        }
        assert!(Instant::now() < deadline, "the job never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(ended.len(), 1);
    assert_eq!(
        (
            ended[0].status,
            ended[0].exit_code,
            ended[0].last_lines.as_str()
        ),
        (JobStatus::Exited, Some(2), "4\n5\n6\n7\n8")
    );
    assert_eq!(ctx.jobs().take_ended(), Vec::new());
}

#[tokio::test]
async fn the_history_form_of_each_call_is_short() {
    let (_dir, ctx) = project();
    let started = run(
        &ctx,
        "Bash",
        json!({"command": "seq 1 100", "run_in_background": true}),
    )
    .await;
    assert_eq!(
        wright_tools::compress("Bash", &started)["data"],
        json!({"command": "seq 1 100", "job_id": "b1"})
    );
    let read = loop {
        let read = output(&ctx, "b1").await;
        if status(&read) != "running" {
            break read;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let data: Value = wright_tools::compress("BashOutput", &read)["data"].clone();
    assert_eq!(data["output_tail"], "96\n97\n98\n99\n100");
    assert_eq!(data["status"], "exited");
    assert_eq!(data.get("command"), None);
}

/// Waits until job `id` has ended, reading its output, and returns everything it printed.
async fn wait_for_end(ctx: &ToolContext, id: &str) -> String {
    read_until(ctx, id, |result| status(result) != "running").await
}

#[tokio::test]
async fn a_background_command_is_confined_like_any_other() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".wright")).unwrap();
    std::fs::write(root.join(".wright/config.toml"), "model = \"m\"\n").unwrap();
    let ctx = ToolContext::new(&root).unwrap();
    if !matches!(ctx.sandbox_status(), SandboxStatus::Confined) {
        eprintln!("skipped: commands are not confined here");
        return;
    }
    let outside =
        wright_testkit::scratch::outside_temporary_dirs(Path::new(env!("CARGO_TARGET_TMPDIR")))
            .unwrap();
    let outside = tempfile::tempdir_in(outside).unwrap();
    let escaped = outside.path().join("escaped.txt");
    let command = format!(
        "echo leaked > {}; echo outside=$?; echo x >> .wright/config.toml; echo protected=$?",
        escaped.display()
    );
    // Asked about (a write outside the project): run as the user would allow it.
    let call = ToolCall {
        tool: "Bash".into(),
        args: json!({"command": command, "run_in_background": true}),
    };
    let registry = ToolRegistry::builtin();
    let started = registry.prepare(&call, &ctx).unwrap().run(&ctx).await;
    let id = started.data["job_id"].as_str().unwrap().to_string();
    let printed = wait_for_end(&ctx, &id).await;
    assert!(printed.contains("outside=1"), "{printed}");
    assert!(!printed.contains("protected=0"), "{printed}");
    assert!(!escaped.exists());
    assert_eq!(
        std::fs::read_to_string(root.join(".wright/config.toml")).unwrap(),
        "model = \"m\"\n"
    );
}

#[tokio::test]
async fn what_a_job_created_among_the_protected_paths_is_moved_aside_when_next_looked_at() {
    let dir = crate::protected::repository();
    let root = dir.path().canonicalize().unwrap();
    let ctx = ToolContext::new(&root).unwrap();
    let id = start(&ctx, "echo /tmp/evil > .git/commondir").await;
    let deadline = Instant::now() + DEADLINE;
    let noted = loop {
        let result = output(&ctx, &id).await;
        if result.text.contains("refused-by-wright") {
            break result;
        }
        assert!(Instant::now() < deadline, "never noted: {}", result.text);
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(!root.join(".git/commondir").exists());
    assert!(root.join(".git/commondir.refused-by-wright").exists());
    assert!(
        noted.text.contains("something it left running"),
        "{}",
        noted.text
    );
}
