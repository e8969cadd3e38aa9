//! One step as the round keeps it (spec A2, C1; DESIGN §9.2): the text the model wrote and its
//! history form, the full observation for the scratchpad and its compressed form for history.

use wright_protocol::{ErrorCode, HistoryResult, NativeToolCall, TodoItem, ToolCall, ToolResult};
use wright_tools::data::ToolData;

/// One step: what the model wrote and what it observed, in both forms.
pub(super) struct StepRecord {
    /// The step as written (scratchpad).
    pub(super) text: String,
    /// The step as history stores it (DESIGN §9.2), when not stored yet: a tool step is
    /// stored as soon as the model asks for it (spec D3), before the tool runs.
    pub(super) stored_text: Option<String>,
    /// The full observation.
    pub(super) observation: String,
    /// Its history form (spec C1).
    pub(super) compressed: String,
    /// The tool that ran, if one did.
    pub(super) tool: Option<String>,
    /// Whether the reply counts as malformed.
    pub(super) malformed: bool,
    /// The list a TodoWrite set, which the session file keeps beside the recap.
    pub(super) todos: Option<Vec<TodoItem>>,
    /// The glob rules' `<system-reminder>`s sent with this observation (not stored).
    pub(super) reminder: Option<String>,
    /// Native protocol: the id of the call this step answers.
    pub(super) tool_call_id: Option<String>,
    /// Native protocol: the reply's calls, on the step of its first call.
    pub(super) tool_calls: Vec<NativeToolCall>,
}

impl StepRecord {
    /// A step, stored already, that called a tool and got `result`. A call the tool could not
    /// take counts as malformed and its observation restates the format, `format_reminder`.
    pub(super) fn tool_step(
        text: String,
        call: ToolCall,
        result: ToolResult,
        format_reminder: &str,
    ) -> Self {
        let malformed = is_malformed_call(&result);
        let todos = match ToolData::of(&call.tool, &result.data) {
            Some(ToolData::Todo(data)) if result.is_success() => Some(data.todos),
            _ => None,
        };
        Self {
            stored_text: None,
            compressed: wright_tools::compress_to_string(&call.tool, &result),
            observation: if malformed {
                format!("{}\n{format_reminder}", result.text)
            } else {
                result.text
            },
            text,
            tool: Some(call.tool),
            malformed,
            todos,
            reminder: None,
            tool_call_id: None,
            tool_calls: Vec::new(),
        }
    }

    /// This step with `reminder` sent after its observation.
    pub(super) fn with_reminder(self, reminder: Option<String>) -> Self {
        Self { reminder, ..self }
    }

    /// A reply that could not be read: the observation restates the format, `format_reminder`,
    /// and history keeps an error result.
    pub(super) fn format_error(text: String, problem: &str, format_reminder: &str) -> Self {
        let message = format!("your action could not be read: {problem}");
        let observation = format!("Error: {message}\n{format_reminder}");
        let compressed = HistoryResult::error(ErrorCode::InvalidArguments, message).to_json();
        Self {
            stored_text: Some(text.clone()),
            text,
            observation,
            compressed,
            tool: None,
            malformed: true,
            todos: None,
            reminder: None,
            tool_call_id: None,
            tool_calls: Vec::new(),
        }
    }

    /// This step as the answer to the native tool call `id`, carrying the reply's `calls` when
    /// it is the reply's first.
    pub(super) fn answering(self, id: &str, calls: Vec<NativeToolCall>) -> Self {
        Self {
            tool_call_id: Some(id.to_string()),
            tool_calls: calls,
            ..self
        }
    }
}

/// The history form of a call the user interrupted: what it returned before it was stopped
/// (Bash's output so far, a write that finished), or, for a call that never ran or was cut
/// off, that it was interrupted.
pub(super) fn interrupted_history_form(tool: &str, result: Option<&ToolResult>) -> String {
    match result {
        Some(result) => wright_tools::compress_to_string(tool, result),
        None => HistoryResult::error(
            ErrorCode::Interrupted,
            "the user interrupted this step; it may have run in part",
        )
        .to_json(),
    }
}

/// A call that names no tool or gives arguments the tool cannot take counts as a malformed reply.
fn is_malformed_call(result: &ToolResult) -> bool {
    matches!(
        result.error.as_ref().map(|e| e.code),
        Some(ErrorCode::UnknownTool | ErrorCode::InvalidArguments)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::react::FORMAT_REMINDER;
    use crate::tiers::tool_message;
    use wright_protocol::Role;

    #[test]
    fn format_errors_are_stored_as_error_tool_results() {
        let record = StepRecord::format_error("Action: Read{".into(), "bad json", FORMAT_REMINDER);
        assert!(record.malformed);
        assert!(record.observation.contains(FORMAT_REMINDER));
        let compressed = record.compressed;
        assert!(
            compressed.starts_with(
                r#"{"status":"error","data":null,"error":{"code":"invalid_arguments","#
            ),
            "spec E1 order: {compressed}"
        );
        assert_eq!(
            Role::Tool,
            tool_message(&compressed).role,
            "stored with the tool role"
        );
    }

    #[test]
    fn a_call_the_tool_cannot_take_is_malformed_and_restates_the_format() {
        let call = ToolCall {
            tool: "Nope".into(),
            args: serde_json::json!({}),
        };
        let result = ToolResult::error(ErrorCode::UnknownTool, "no tool Nope");
        let record =
            StepRecord::tool_step("Action: Nope[{}]".into(), call, result, FORMAT_REMINDER);
        assert!(record.malformed);
        assert!(record.observation.ends_with(FORMAT_REMINDER));
        assert_eq!(record.tool.as_deref(), Some("Nope"));
    }
}
