//! The event stream of a round, as `wright exec --json` prints it (one JSON object per line).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ToolError, ToolStatus, Usage};

/// Why a round ended without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCode {
    /// The provider refused the request or kept failing after every retry.
    Provider,
    /// The round used `max_steps` steps without finishing.
    MaxSteps,
    /// The model wrote too many malformed replies in a row.
    MalformedReplies,
    /// The next request would not fit the context window even with everything compressed.
    ContextOverflow,
    /// The user pressed Ctrl-C.
    Interrupted,
    /// Configuration is missing or invalid.
    Config,
    /// wright itself failed (a bug or an I/O error of its own).
    Internal,
}

/// What kind of action needs the user's approval before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// A shell command (Bash).
    Command,
    /// A change to a file (Write, Edit, MultiEdit).
    FileChange,
    /// A call of a tool from outside wright (an MCP server's, issue 15): it may do anything
    /// its server does. "Always" covers that one tool.
    External,
}

impl ActionKind {
    /// The kind as it appears in JSON, e.g. `file_change`.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Command => "command",
            ActionKind::FileChange => "file_change",
            ActionKind::External => "external",
        }
    }
}

impl std::fmt::Display for ActionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the user answered when asked to approve an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalVerdict {
    /// Run this action.
    Once,
    /// Run this action and every later one of its kind in this session without asking.
    Always,
    /// Do not run it.
    Denied,
}

/// One thing that happened during a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// wright is ready to talk to the model.
    SessionStarted {
        /// The session's identifier.
        session_id: String,
        /// `openai` or `anthropic`.
        provider: String,
        /// The model's name as sent to the provider.
        model: String,
        /// The project root tools work in.
        cwd: String,
    },
    /// A user message opened a round.
    RoundStarted {
        /// The user's message as typed.
        prompt: String,
    },
    /// A piece of the model's reply text as it streams (thought and action text).
    AssistantDelta {
        /// The new text.
        text: String,
    },
    /// A piece of the model's separate reasoning output (DeepSeek `reasoning_content`,
    /// Anthropic thinking); shown as thought, never parsed for actions.
    ReasoningDelta {
        /// The new text.
        text: String,
    },
    /// The model asked for a tool.
    ToolCall {
        /// 1-based step within the round.
        step: u32,
        /// The tool's name.
        tool: String,
        /// Its arguments.
        args: Value,
    },
    /// A tool finished.
    ToolResult {
        /// 1-based step within the round.
        step: u32,
        /// The tool's name.
        tool: String,
        /// Success or error.
        status: ToolStatus,
        /// One line saying what came of it.
        summary: String,
        /// The tool's structured result (its `data`), for renderers that show more than a
        /// line, e.g. the diff of an edit.
        #[serde(default)]
        data: Value,
        /// Why it failed, when it did: the stable code and the message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ToolError>,
    },
    /// A check from the `[checks]` settings started, because the step's tool edited a file it
    /// covers (issue 13). It runs after the step's `tool_result`, before the next model call.
    CheckStarted {
        /// 1-based step within the round.
        step: u32,
        /// The command as it runs (`{files}` filled in).
        command: String,
    },
    /// A check finished. A failed one's output is added to the step's observation.
    CheckFinished {
        /// 1-based step within the round.
        step: u32,
        /// The command as it ran.
        command: String,
        /// Whether it exited 0.
        passed: bool,
        /// Its exit code; `None` when it was killed, timed out or could not start.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// Whether it ran past its timeout and was stopped.
        #[serde(default)]
        timed_out: bool,
    },
    /// The action of a `tool_call` waits for the user's approval (the approval mode does not
    /// allow its kind). The tool runs only after `approval_decided` says `once` or `always`.
    ApprovalRequested {
        /// 1-based step within the round.
        step: u32,
        /// The tool's name.
        tool: String,
        /// Command or file change.
        kind: ActionKind,
        /// What would happen: the command for Bash, the unified diff for a file change.
        preview: String,
        /// Why the safety check flags this action, when it does (rule and reason): the user is
        /// asked about it whatever the approval mode allows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        concern: Option<String>,
    },
    /// The user answered an `approval_requested`.
    ApprovalDecided {
        /// 1-based step within the round.
        step: u32,
        /// Once, always (for this kind of action, this session) or denied.
        decision: ApprovalVerdict,
        /// Why it was denied, when the user said (given to the model with the denial).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The model's reply did not follow the Thought/Action format; it was told so.
    FormatError {
        /// 1-based step within the round.
        step: u32,
        /// What was wrong.
        message: String,
    },
    /// A model call failed in a way that may heal and is being re-sent.
    Retry {
        /// The attempt about to be made (2 for the first retry).
        attempt: u32,
        /// How many attempts may be made in all.
        max_attempts: u32,
        /// What went wrong with the previous attempt.
        reason: String,
        /// How long wright waits before re-sending.
        delay_ms: u64,
    },
    /// The model's output hit the token limit; wright asked it to continue where it stopped.
    Continuation {
        /// 1 for the first continuation.
        attempt: u32,
    },
    /// Tokens billed for one model call (continuations included).
    Usage {
        /// Tokens of the request.
        prompt_tokens: u64,
        /// Tokens the model wrote.
        completion_tokens: u64,
        /// Their sum.
        total_tokens: u64,
        /// Prompt tokens served from the provider's cache, where reported.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cached_prompt_tokens: Option<u64>,
        /// Prompt tokens written to the provider's cache, where reported (Anthropic).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_creation_tokens: Option<u64>,
        /// What the call was for: `step` (a ReAct step) or `summary` (compaction).
        #[serde(default)]
        call: UsageCall,
    },
    /// The history passed the compaction threshold; older rounds are being archived and
    /// summarised (spec A4–A6). The round waits until `compaction_finished`.
    CompactionStarted {
        /// `last_usage_total + chars(input) / 3`, the estimate that crossed the threshold.
        estimated_tokens: u64,
        /// `compact_threshold × context_window`.
        threshold: u64,
    },
    /// Compaction is done.
    CompactionFinished {
        /// Whole rounds moved into the archive.
        archived_rounds: u32,
        /// The summary that now stands for them, or `None` if it could not be made.
        summary: Option<String>,
        /// Whether the summary call timed out (spec E2).
        timed_out: bool,
        /// Why the summary could not be made, when it failed for another reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Local estimate of the system prompt plus history before compaction, in tokens.
        #[serde(default)]
        tokens_before: u64,
        /// The same after compaction.
        #[serde(default)]
        tokens_after: u64,
    },
    /// Something the user should know that does not stop the round (a skipped torn line in the
    /// session file, an oversized CODE_LAW.md, ...).
    Warning {
        /// What happened.
        message: String,
    },
    /// The round ended with an answer.
    RoundFinished {
        /// The final answer.
        answer: String,
        /// How many model calls the round took.
        steps: u32,
        /// Tokens billed over the whole round.
        usage: Usage,
    },
    /// The round ended without an answer.
    Error {
        /// Why, for programs.
        code: FailureCode,
        /// What happened and what to do, for people.
        message: String,
    },
    /// Something a sub-agent that a Task call runs did (issue 14): one of its own events
    /// (its tool calls and results, approvals, warnings, its end; not its streamed text), for
    /// front ends to show under the Task call. A sub-agent's own sub-agents' events come
    /// nested once more.
    Subagent {
        /// The step of the Task call that runs it.
        step: u32,
        /// The agent it runs as.
        agent: String,
        /// The task's short description.
        description: String,
        /// What it did.
        event: Box<Event>,
    },
}

impl Event {
    /// The usage event for one model call made for a ReAct step.
    pub fn usage(usage: &Usage) -> Self {
        Self::usage_of(usage, UsageCall::Step)
    }

    /// The usage event for one model call made for `call`.
    pub fn usage_of(usage: &Usage, call: UsageCall) -> Self {
        Event::Usage {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage.total_tokens,
            cached_prompt_tokens: usage.cached_prompt_tokens,
            cache_creation_tokens: usage.cache_creation_tokens,
            call,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn events_are_tagged_with_a_snake_case_type() {
        let event = Event::ToolCall {
            step: 1,
            tool: "Read".into(),
            args: json!({"file_path": "a.rs"}),
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            json!({"type": "tool_call", "step": 1, "tool": "Read", "args": {"file_path": "a.rs"}})
        );
    }

    #[test]
    fn approval_events_have_snake_case_kinds_and_decisions() {
        let requested = Event::ApprovalRequested {
            step: 2,
            tool: "Bash".into(),
            kind: ActionKind::Command,
            preview: "cargo test".into(),
            concern: None,
        };
        assert_eq!(
            serde_json::to_value(&requested).unwrap(),
            json!({"type": "approval_requested", "step": 2, "tool": "Bash", "kind": "command", "preview": "cargo test"})
        );
        let decided = Event::ApprovalDecided {
            step: 2,
            decision: ApprovalVerdict::Denied,
            reason: Some("not now".into()),
        };
        let line = serde_json::to_string(&decided).unwrap();
        assert_eq!(
            line,
            r#"{"type":"approval_decided","step":2,"decision":"denied","reason":"not now"}"#
        );
        assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), decided);
        assert_eq!(
            serde_json::to_value(ActionKind::FileChange).unwrap(),
            json!(ActionKind::FileChange.as_str())
        );
    }

    #[test]
    fn error_event_round_trips() {
        let event = Event::Error {
            code: FailureCode::MaxSteps,
            message: "stopped after 50 steps".into(),
        };
        let line = serde_json::to_string(&event).unwrap();
        assert_eq!(
            line,
            r#"{"type":"error","code":"max_steps","message":"stopped after 50 steps"}"#
        );
        assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), event);
    }

    #[test]
    fn usage_events_carry_cache_reads_and_writes_only_when_reported() {
        let mut usage = Usage {
            prompt_tokens: 130,
            completion_tokens: 12,
            total_tokens: 142,
            cached_prompt_tokens: None,
            cache_creation_tokens: None,
        };
        assert_eq!(
            serde_json::to_value(Event::usage(&usage)).unwrap(),
            json!({"type": "usage", "prompt_tokens": 130, "completion_tokens": 12,
                   "total_tokens": 142, "call": "step"})
        );
        usage.cached_prompt_tokens = Some(100);
        usage.cache_creation_tokens = Some(20);
        let event = Event::usage_of(&usage, UsageCall::Summary);
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            json!({"type": "usage", "prompt_tokens": 130, "completion_tokens": 12,
                   "total_tokens": 142, "cached_prompt_tokens": 100,
                   "cache_creation_tokens": 20, "call": "summary"})
        );
        let line = serde_json::to_string(&event).unwrap();
        assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), event);
    }
}

/// What a model call was made for, in a [`Event::Usage`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageCall {
    /// A ReAct step of a round.
    #[default]
    Step,
    /// A summary written by compaction.
    Summary,
    /// The message of a commit of the agent's changes (`[git] auto_commit`, `/commit`).
    Commit,
}
