//! Tool calls and tool results (spec A3, C1; DESIGN §5).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JobEnded;

/// A tool the model asked for: `Action: Read[{"file_path": "src/main.rs"}]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name, e.g. `Read`.
    pub tool: String,
    /// The JSON object between the brackets.
    pub args: Value,
}

/// Whether a tool did what it was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool did its job; `data` says what it found or changed.
    Success,
    /// The tool refused or failed; `error` says why.
    Error,
}

impl ToolStatus {
    /// The status as it appears in JSON: `success` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Success => "success",
            ToolStatus::Error => "error",
        }
    }
}

/// A stable, machine-readable reason for a tool error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The arguments are not what the tool takes (missing field, wrong type).
    InvalidArguments,
    /// The model named a tool that does not exist.
    UnknownTool,
    /// The file or directory does not exist.
    NotFound,
    /// A file was expected but the path is a directory.
    IsDirectory,
    /// The file is not text.
    BinaryFile,
    /// The path resolves outside the project root.
    PathOutsideProject,
    /// The tool ran out of time and was stopped.
    Timeout,
    /// The user interrupted the tool.
    Interrupted,
    /// The operating system refused (permissions, I/O failure).
    Io,
    /// An edit's `old_string` was not found in the file.
    NoMatch,
    /// An edit's `old_string` matches several places and `replace_all` was not set.
    AmbiguousMatch,
    /// An edit would change nothing (`old_string == new_string`).
    NoChange,
    /// The file changed on disk since the agent last read or wrote it.
    StaleFile,
    /// A regular expression or glob pattern could not be compiled.
    InvalidPattern,
    /// The user did not allow the action, so it was not run.
    Denied,
    /// The safety check refused to run the command: it could do damage that cannot be undone
    /// (`rm -rf ~`, `curl … | sh`, `git push --force` to main, …).
    Refused,
    /// A `pre_tool` hook (a command the user configured) exited non-zero, so the call did not
    /// run; the message is the hook's stderr.
    Blocked,
    /// The call would change a file wright protects from the model (its own settings).
    Protected,
    /// The model's question to the user (AskUser) got no answer: no one can answer
    /// (non-interactive), or the user declined to.
    Unanswered,
    /// A server outside wright whose tool was called (an MCP server) could not be reached:
    /// it did not start, went away during the call, or was stopped.
    ServerUnavailable,
    /// A server outside wright answered with an error: the request failed, or its tool
    /// reported that it failed (MCP `isError`).
    ServerError,
    /// Any code this build does not know (read from newer session files).
    #[serde(other)]
    Other,
}

impl ErrorCode {
    /// The code as it appears in JSON, e.g. `not_found`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::NotFound => "not_found",
            ErrorCode::IsDirectory => "is_directory",
            ErrorCode::BinaryFile => "binary_file",
            ErrorCode::PathOutsideProject => "path_outside_project",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Interrupted => "interrupted",
            ErrorCode::Io => "io",
            ErrorCode::NoMatch => "no_match",
            ErrorCode::AmbiguousMatch => "ambiguous_match",
            ErrorCode::NoChange => "no_change",
            ErrorCode::StaleFile => "stale_file",
            ErrorCode::InvalidPattern => "invalid_pattern",
            ErrorCode::Denied => "denied",
            ErrorCode::Refused => "refused",
            ErrorCode::Blocked => "blocked",
            ErrorCode::Protected => "protected",
            ErrorCode::Unanswered => "unanswered",
            ErrorCode::ServerUnavailable => "server_unavailable",
            ErrorCode::ServerError => "server_error",
            ErrorCode::Other => "other",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a tool failed: a stable code and a message written for the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolError {
    /// Stable reason, for programs.
    pub code: ErrorCode,
    /// What happened and what to do, for the model.
    pub message: String,
}

/// What a tool returns (DESIGN §5).
///
/// `text` is the full observation the model reads in the current round; `data` is the
/// structured result that the history compressor shrinks (spec C1); `stats` and `context` are
/// for people and logs, and are dropped from history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Success or error.
    pub status: ToolStatus,
    /// Structured result; `null` when there is none.
    #[serde(default)]
    pub data: Value,
    /// Present exactly when `status` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// The full observation text shown to the model this round.
    pub text: String,
    /// Measurements such as `duration_ms`.
    #[serde(default)]
    pub stats: Value,
    /// The arguments the tool was called with.
    #[serde(default)]
    pub context: Value,
    /// The `[checks]` that failed after the call edited files (issue 13); their output is in
    /// `text` too, as notes. Kept in history, shortened (the command, the exit code and the
    /// last lines of the output).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckFailure>,
    /// The background commands that ended before this step's observation and that the model
    /// had not heard of (issue 14); their note is in `text` too. Kept in history, shortened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs_ended: Vec<JobEnded>,
}

/// A check from the `[checks]` settings that failed after a step edited the files it covers
/// (issue 13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckFailure {
    /// The command as it ran (`{files}` filled in).
    pub command: String,
    /// Its exit code; `None` when it was killed by a signal, timed out or could not start.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// Whether it ran past its timeout and was stopped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// Its standard output then its standard error, in the observation capped to the last
    /// lines; in history only the last few.
    pub output: String,
    /// How many lines the output had in all, when `output` holds only the last of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_lines: Option<usize>,
}

/// What history keeps of a tool result (spec C1, E1): status, the compressed data and the
/// error, serialised in that order — the model reads whether a step worked before what it
/// found. Every tool message of history is written through [`HistoryResult::to_json`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryResult {
    /// Success or error.
    pub status: ToolStatus,
    /// The compressed structured result; `null` when there is none.
    #[serde(default)]
    pub data: Value,
    /// Present exactly when `status` is `error`, kept whole (C1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// The checks that failed after the step (issue 13), shortened; absent when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckFailure>,
    /// The background commands whose end came with the step (issue 14), shortened; absent
    /// when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs_ended: Vec<JobEnded>,
}

impl HistoryResult {
    /// An error with no data: a step that did not run or could not be read.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status: ToolStatus::Error,
            data: Value::Null,
            error: Some(ToolError {
                code,
                message: message.into(),
            }),
            checks: Vec::new(),
            jobs_ended: Vec::new(),
        }
    }

    /// Compact JSON, keys in the order `status`, `data`, `error`.
    pub fn to_json(&self) -> String {
        // A struct of strings, JSON values and enums always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl ToolResult {
    /// A successful result.
    pub fn success(text: impl Into<String>, data: Value) -> Self {
        Self {
            status: ToolStatus::Success,
            data,
            error: None,
            text: text.into(),
            stats: Value::Null,
            context: Value::Null,
            checks: Vec::new(),
            jobs_ended: Vec::new(),
        }
    }

    /// A failed result; the observation text is `Error (<code>): <message>`.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            status: ToolStatus::Error,
            data: Value::Null,
            text: format!("Error ({code}): {message}"),
            error: Some(ToolError { code, message }),
            stats: Value::Null,
            context: Value::Null,
            checks: Vec::new(),
            jobs_ended: Vec::new(),
        }
    }

    /// Whether the tool succeeded.
    pub fn is_success(&self) -> bool {
        self.status == ToolStatus::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_history_form_keeps_the_e1_key_order() {
        let stored = HistoryResult::error(ErrorCode::Interrupted, "stopped").to_json();
        assert_eq!(
            stored,
            r#"{"status":"error","data":null,"error":{"code":"interrupted","message":"stopped"}}"#
        );
        let ok = HistoryResult {
            status: ToolStatus::Success,
            data: json!({"b": 1, "a": 2}),
            error: None,
            checks: Vec::new(),
            jobs_ended: Vec::new(),
        };
        assert_eq!(ok.to_json(), r#"{"status":"success","data":{"a":2,"b":1}}"#);
    }

    #[test]
    fn error_result_serialises_code_in_snake_case() {
        let result = ToolResult::error(ErrorCode::PathOutsideProject, "../x is outside");
        let value = serde_json::to_value(&result).unwrap();
        assert_eq!(
            value,
            json!({
                "status": "error",
                "data": null,
                "error": {"code": "path_outside_project", "message": "../x is outside"},
                "text": "Error (path_outside_project): ../x is outside",
                "stats": null,
                "context": null,
            })
        );
    }

    #[test]
    fn every_error_code_as_str_matches_its_serde_name() {
        for code in [
            ErrorCode::InvalidArguments,
            ErrorCode::UnknownTool,
            ErrorCode::NotFound,
            ErrorCode::IsDirectory,
            ErrorCode::BinaryFile,
            ErrorCode::PathOutsideProject,
            ErrorCode::Timeout,
            ErrorCode::Interrupted,
            ErrorCode::Io,
            ErrorCode::NoMatch,
            ErrorCode::AmbiguousMatch,
            ErrorCode::NoChange,
            ErrorCode::StaleFile,
            ErrorCode::InvalidPattern,
            ErrorCode::Denied,
            ErrorCode::Refused,
            ErrorCode::Other,
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
        }
    }

    #[test]
    fn unknown_error_code_reads_as_other() {
        let code: ErrorCode = serde_json::from_str("\"from_the_future\"").unwrap();
        assert_eq!(code, ErrorCode::Other);
    }
}
