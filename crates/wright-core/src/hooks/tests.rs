use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_protocol::{ErrorCode, ToolCall, ToolResult};

use super::*;

fn spec(tool: &str, command: &str) -> HookSpec {
    HookSpec {
        tool: tool.into(),
        command: command.into(),
        timeout: DEFAULT_HOOK_TIMEOUT,
    }
}

fn call(tool: &str) -> ToolCall {
    ToolCall {
        tool: tool.into(),
        args: json!({"command": "cargo test", "file_path": "src/lib.rs"}),
    }
}

#[tokio::test]
async fn a_pre_tool_hook_gets_the_call_as_json_and_passes_on_exit_zero() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(
        vec![spec(
            "Bash",
            "cat > seen.json; echo \"$WRIGHT_HOOK_EVENT $WRIGHT_TOOL\" > env.txt",
        )],
        vec![],
    )
    .unwrap();
    let outcome = hooks
        .pre_tool(&call("Bash"), dir.path(), &CancellationToken::new())
        .await;
    assert_eq!(outcome, HookOutcome::Passed);
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["event"], "pre_tool");
    assert_eq!(seen["tool"], "Bash");
    assert_eq!(seen["args"]["command"], "cargo test");
    assert_eq!(seen["project"], json!(dir.path()));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("env.txt")).unwrap(),
        "pre_tool Bash\n"
    );
}

#[tokio::test]
async fn a_failing_pre_tool_hook_blocks_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(
        vec![
            spec("*", "echo 'no network commands here' >&2; exit 3"),
            spec("*", "touch second-ran"),
        ],
        vec![],
    )
    .unwrap();
    let outcome = hooks
        .pre_tool(&call("Bash"), dir.path(), &CancellationToken::new())
        .await;
    let HookOutcome::Failed(message) = outcome else {
        panic!("expected a block, got {outcome:?}");
    };
    assert!(message.contains("exited with 3"), "{message}");
    assert!(message.contains("no network commands here"), "{message}");
    assert!(
        !dir.path().join("second-ran").exists(),
        "the first block ends the check"
    );
}

#[tokio::test]
async fn hooks_run_only_for_the_tools_their_pattern_names_whole() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(
        vec![
            spec("Write|Edit", "echo \"$WRIGHT_TOOL\" >> ran.txt"),
            spec("Ba", "echo partial >> ran.txt"),
        ],
        vec![],
    )
    .unwrap();
    for tool in ["Read", "Bash", "MultiEdit", "Edit", "Write"] {
        let outcome = hooks
            .pre_tool(&call(tool), dir.path(), &CancellationToken::new())
            .await;
        assert_eq!(outcome, HookOutcome::Passed);
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ran.txt")).unwrap(),
        "Edit\nWrite\n"
    );
}

/// Linux only: the test waits for the hook's processes to be gone by reading `/proc`.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_hook_past_its_timeout_is_killed_with_its_children_and_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let mut slow = spec("*", "(sleep 1; touch late) & sleep 1; touch late-too");
    slow.timeout = Duration::from_millis(200);
    let hooks = Hooks::new(vec![slow], vec![]).unwrap();
    let outcome = hooks
        .pre_tool(&call("Bash"), dir.path(), &CancellationToken::new())
        .await;
    let HookOutcome::Failed(message) = outcome else {
        panic!("expected a block, got {outcome:?}");
    };
    assert!(message.contains("did not finish within 0.2 s"), "{message}");
    // Left alone, the hook and its child would each touch a file after a second and end.
    let left = wright_testkit::processes::wait_until_none_run_in(dir.path()).unwrap();
    assert_eq!(left, Vec::<u32>::new(), "the hook is still running");
    assert!(!dir.path().join("late").exists());
    assert!(!dir.path().join("late-too").exists());
}

#[tokio::test]
async fn a_hook_that_ignores_its_stdin_does_not_stall() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(vec![], vec![spec("*", "exit 0")]).unwrap();
    let result = ToolResult::success("x".repeat(1 << 20), json!({}));
    let notes = tokio::time::timeout(
        Duration::from_secs(5),
        hooks.post_tool(
            &call("Read"),
            &result,
            dir.path(),
            &CancellationToken::new(),
        ),
    )
    .await
    .unwrap();
    assert_eq!(notes, Vec::<String>::new());
}

#[tokio::test]
async fn a_failing_post_tool_hook_gives_a_note_and_sees_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(
        vec![],
        vec![spec(
            "Edit",
            "cat > seen.json; echo 'rustfmt: src/lib.rs:3: expected `;`' >&2; exit 1",
        )],
    )
    .unwrap();
    let result = ToolResult::error(ErrorCode::NoMatch, "old_string not found");
    let notes = hooks
        .post_tool(
            &call("Edit"),
            &result,
            dir.path(),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("the post_tool hook `cat > seen.json"),
        "{}",
        notes[0]
    );
    assert!(
        notes[0].ends_with("rustfmt: src/lib.rs:3: expected `;`"),
        "{}",
        notes[0]
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["result"]["error"]["code"], "no_match");
    assert_eq!(seen["result"]["status"], "error");
}

#[tokio::test]
async fn cancelling_stops_a_running_hook_and_kills_it() {
    let dir = tempfile::tempdir().unwrap();
    // Longer than the wait below gives it, so a hook left running is seen.
    let hooks = Hooks::new(vec![spec("*", "sleep 30")], vec![]).unwrap();
    let cancel = CancellationToken::new();
    let canceller = {
        let cancel = cancel.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            cancel.cancel();
        }
    };
    let bash = call("Bash");
    let (outcome, ()) = tokio::join!(hooks.pre_tool(&bash, dir.path(), &cancel), canceller);
    assert_eq!(outcome, HookOutcome::Interrupted);
    #[cfg(target_os = "linux")]
    assert_eq!(
        wright_testkit::processes::wait_until_none_run_in(dir.path()).unwrap(),
        Vec::<u32>::new(),
        "the hook is still running"
    );
}

#[test]
fn a_bad_tool_pattern_is_named() {
    let error = Hooks::new(vec![spec("Bash(", "true")], vec![]).unwrap_err();
    assert!(error.to_string().contains("\"Bash(\""), "{error}");
    assert!(Hooks::default().is_empty());
}
