use super::*;
use crate::render::to_plain;
use pretty_assertions::assert_eq;
use serde_json::json;
use wright_protocol::{ErrorCode, ToolError, Usage};

fn transcript() -> Transcript {
    Transcript::new(Theme::PLAIN)
}

/// The scrollback text `events` produce, all at one instant.
fn shown(transcript: &mut Transcript, events: &[Event]) -> String {
    let now = Instant::now();
    let mut out = Vec::new();
    for event in events {
        transcript.event(event, now, 80, &mut out);
    }
    to_plain(&out)
}

fn delta(text: &str) -> Event {
    Event::AssistantDelta { text: text.into() }
}

fn finished(answer: &str) -> Event {
    Event::RoundFinished {
        answer: answer.into(),
        steps: 1,
        usage: Usage::default(),
    }
}

fn tool_call(step: u32, tool: &str, args: serde_json::Value) -> Event {
    Event::ToolCall {
        step,
        tool: tool.into(),
        args,
    }
}

#[test]
fn thought_lines_are_shown_as_they_complete() {
    let mut t = transcript();
    assert_eq!(shown(&mut t, &[delta("Thought: first li")]), "");
    assert_eq!(t.live(Instant::now()).len(), 1, "the partial line is live");
    assert_eq!(
        shown(&mut t, &[delta("ne\nand more\n")]),
        "Thought: first line\nand more\n"
    );
}

#[test]
fn a_reply_without_thought_that_is_the_answer_is_shown_once_as_markdown() {
    let mut t = transcript();
    let text = shown(
        &mut t,
        &[
            delta("The answer is **4**.\n"),
            finished("The answer is **4**."),
        ],
    );
    assert_eq!(text, "\nThe answer is 4.\n");
}

#[test]
fn a_reply_without_thought_that_calls_a_tool_was_thought_after_all() {
    let mut t = transcript();
    let text = shown(
        &mut t,
        &[
            delta("Let me look.\n"),
            tool_call(1, "Read", json!({"file_path": "a.rs"})),
        ],
    );
    assert_eq!(text, "Let me look.\n");
}

#[test]
fn a_retry_drops_the_partial_reply() {
    let mut t = transcript();
    let text = shown(
        &mut t,
        &[
            delta("Thought: half"),
            Event::Retry {
                attempt: 2,
                max_attempts: 3,
                reason: "HTTP 503".into(),
                delay_ms: 500,
            },
        ],
    );
    assert_eq!(
        text, "⟳ HTTP 503; retrying in 0.5 s (attempt 2/3)\n",
        "the partial line is not shown"
    );
    assert!(t.live(Instant::now()).is_empty());
}

#[test]
fn a_running_tool_spins_in_the_live_area_until_its_result() {
    let mut t = transcript();
    shown(
        &mut t,
        &[tool_call(1, "Bash", json!({"command": "cargo test"}))],
    );
    let live = to_plain(&t.live(Instant::now()));
    assert!(live.contains("Bash cargo test …"), "{live}");
    let text = shown(
        &mut t,
        &[Event::ToolResult {
            step: 1,
            tool: "Bash".into(),
            status: ToolStatus::Success,
            summary: "exit 0".into(),
            data: json!({"exit_code": 0}),
            error: None,
        }],
    );
    assert!(text.starts_with("Bash cargo test — exit 0"), "{text}");
    assert!(t.live(Instant::now()).is_empty());
}

#[test]
fn a_failed_tool_shows_its_error_code_and_message() {
    let mut t = transcript();
    let text = shown(
        &mut t,
        &[
            tool_call(1, "Read", json!({"file_path": "nope.rs"})),
            Event::ToolResult {
                step: 1,
                tool: "Read".into(),
                status: ToolStatus::Error,
                summary: "whatever the summary says".into(),
                data: serde_json::Value::Null,
                error: Some(ToolError {
                    code: ErrorCode::NotFound,
                    message: "no such file".into(),
                }),
            },
        ],
    );
    assert_eq!(text, "Read nope.rs — not_found: no such file\n");
}

#[test]
fn an_older_event_without_its_error_falls_back_to_the_summary() {
    let mut t = transcript();
    let text = shown(
        &mut t,
        &[
            tool_call(1, "Read", json!({"file_path": "nope.rs"})),
            Event::ToolResult {
                step: 1,
                tool: "Read".into(),
                status: ToolStatus::Error,
                summary: "not_found: no such file".into(),
                data: serde_json::Value::Null,
                error: None,
            },
        ],
    );
    assert_eq!(text, "Read nope.rs — not_found: no such file\n");
}

#[test]
fn a_change_shown_for_approval_is_not_shown_again_after_it_ran() {
    let mut t = transcript();
    let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    let text = shown(
        &mut t,
        &[
            tool_call(1, "Write", json!({"file_path": "x"})),
            Event::ApprovalRequested {
                step: 1,
                tool: "Write".into(),
                kind: ActionKind::FileChange,
                preview: diff.into(),
                concern: None,
            },
            Event::ApprovalDecided {
                step: 1,
                decision: ApprovalVerdict::Once,
                reason: None,
            },
            Event::ToolResult {
                step: 1,
                tool: "Write".into(),
                status: ToolStatus::Success,
                summary: "updated".into(),
                data: json!({"diff": diff, "action": "updated", "lines": 1}),
                error: None,
            },
        ],
    );
    assert_eq!(text.matches("+b").count(), 1, "{text}");
    assert!(text.contains("? Write wants to change a file:"), "{text}");
    assert!(text.contains("✓ allowed once"), "{text}");
}

#[test]
fn a_second_change_of_the_same_step_shows_its_diff_after_the_first_was_previewed() {
    // Native tool calling: two calls of one reply share a step; only the first was asked.
    let mut t = transcript();
    let first = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+first\n";
    let second = "--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+second\n";
    let result = |diff: &str| Event::ToolResult {
        step: 1,
        tool: "Write".into(),
        status: ToolStatus::Success,
        summary: "updated".into(),
        data: json!({"file_path": "f", "action": "overwritten", "lines": 1, "bytes": 2,
            "head": "", "truncated": false, "diff": diff}),
        error: None,
    };
    let text = shown(
        &mut t,
        &[
            tool_call(1, "Write", json!({"file_path": "x"})),
            Event::ApprovalRequested {
                step: 1,
                tool: "Write".into(),
                kind: ActionKind::FileChange,
                preview: first.into(),
                concern: None,
            },
            Event::ApprovalDecided {
                step: 1,
                decision: ApprovalVerdict::Always,
                reason: None,
            },
            result(first),
            tool_call(1, "Write", json!({"file_path": "y"})),
            result(second),
        ],
    );
    assert_eq!(text.matches("+first").count(), 1, "{text}");
    assert_eq!(text.matches("+second").count(), 1, "{text}");
}

#[test]
fn a_tool_waiting_for_approval_does_not_spin() {
    let mut t = transcript();
    shown(
        &mut t,
        &[
            tool_call(1, "Bash", json!({"command": "ls"})),
            Event::ApprovalRequested {
                step: 1,
                tool: "Bash".into(),
                kind: ActionKind::Command,
                preview: "ls".into(),
                concern: None,
            },
        ],
    );
    assert!(t.live(Instant::now()).is_empty());
}

#[test]
fn compaction_shows_progress_then_the_sizes() {
    let mut t = transcript();
    shown(
        &mut t,
        &[Event::CompactionStarted {
            estimated_tokens: 170_000,
            threshold: 160_000,
        }],
    );
    let live = to_plain(&t.live(Instant::now()));
    assert!(
        live.contains("Compacting history (about 170k tokens, threshold 160k)"),
        "{live}"
    );
    let text = shown(
        &mut t,
        &[Event::CompactionFinished {
            archived_rounds: 3,
            summary: Some("summary".into()),
            timed_out: false,
            error: None,
            tokens_before: 150_000,
            tokens_after: 20_500,
        }],
    );
    assert_eq!(
        text,
        "✓ Compacted: 3 rounds archived; history about 150k → 20.5k tokens\n"
    );
}

#[test]
fn a_summary_timeout_says_exactly_what_the_spec_says() {
    let mut t = transcript();
    let text = shown(
        &mut t,
        &[Event::CompactionFinished {
            archived_rounds: 1,
            summary: None,
            timed_out: true,
            error: None,
            tokens_before: 10,
            tokens_after: 5,
        }],
    );
    assert!(text.contains(SUMMARY_TIMEOUT_MESSAGE), "{text}");
}

#[test]
fn an_interrupted_round_says_so_and_other_failures_show_their_message() {
    let mut t = transcript();
    let interrupted = shown(
        &mut t,
        &[Event::Error {
            code: FailureCode::Interrupted,
            message: "Interrupted.".into(),
        }],
    );
    assert_eq!(interrupted, "⏹ Interrupted.\n");
    let failed = shown(
        &mut t,
        &[Event::Error {
            code: FailureCode::Provider,
            message: "HTTP 401: bad key".into(),
        }],
    );
    assert_eq!(failed, "HTTP 401: bad key\n");
}

#[test]
fn control_characters_from_outside_never_reach_the_terminal() {
    let mut t = transcript();
    let text = shown(
        &mut t,
        &[Event::Warning {
            message: "bad \u{1b}[2J thing".into(),
        }],
    );
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

fn subagent(agent: &str, event: Event) -> Event {
    Event::Subagent {
        step: 1,
        agent: agent.into(),
        description: "look".into(),
        event: Box::new(event),
    }
}

#[test]
fn a_sub_agents_steps_are_shown_under_the_task_call_one_line_each() {
    let mut t = transcript();
    let read = Event::ToolResult {
        step: 1,
        tool: "Read".into(),
        status: ToolStatus::Success,
        summary: "40 of 40 lines".into(),
        data: json!(null),
        error: None,
    };
    let failed = Event::ToolResult {
        step: 2,
        tool: "Grep".into(),
        status: ToolStatus::Error,
        summary: "invalid_pattern: bad regex".into(),
        data: json!(null),
        error: None,
    };
    let text = shown(
        &mut t,
        &[
            tool_call(1, "Task", json!({"agent": "explore"})),
            subagent(
                "explore",
                tool_call(1, "Read", json!({"file_path": "a.rs"})),
            ),
            subagent("explore", read),
            subagent("explore", delta("Thought: hidden")),
            subagent("general", subagent("explore", failed)),
        ],
    );
    assert_eq!(
        text,
        "  ↳ explore (look): Read ✓ 40 of 40 lines\n  ↳ general (look) › explore (look): Grep ✗ \
         invalid_pattern: bad regex\n"
    );
}
