//! Spec A3 rule for Bash: a summary of the run, the end of stdout and the end of stderr.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Limits, Lines, Nullable, cut_line, nullable};
use crate::data::{read_object, to_value};

/// The history form of a Bash run ([`crate::data::BashData`] with the streams replaced by
/// their line counts and last lines).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct BashForm {
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    exit_code: Nullable<i32>,
    #[serde(deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    signal: Nullable<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timed_out: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout_chars: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr_chars: Option<usize>,
    /// Read to make the tail; history keeps the tail instead.
    #[serde(skip_serializing)]
    stdout: Option<String>,
    #[serde(skip_serializing)]
    stderr: Option<String>,
    /// History only: lines stdout had.
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout_lines: Option<usize>,
    /// History only: the last lines of stdout, when it had any.
    #[serde(skip_serializing_if = "Option::is_none")]
    stdout_tail: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr_lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr_tail: Option<String>,
    /// A command started in the background (issue 14): its job id, all history keeps besides
    /// the command.
    #[serde(skip_serializing_if = "Option::is_none")]
    job_id: Option<String>,
}

/// Bash: the command (cut), how it ended, the stream sizes, the last
/// [`Limits::stdout_tail_lines`] lines of stdout and the last [`Limits::stderr_tail_lines`]
/// lines of stderr (spec A3: "stderr 末尾 20 行，stdout 仅摘要").
pub(super) fn bash(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: BashForm = read_object(data)?;
    form.command = form
        .command
        .map(|command| cut_line(&command, limits.command_chars).into_owned());
    if form.job_id.is_some() {
        let started = BashForm {
            command: form.command,
            job_id: form.job_id,
            ..BashForm::default()
        };
        return Some(to_value(&started));
    }
    let stdout = Stream {
        text: form.stdout.take(),
        tail: form.stdout_tail.take(),
        lines: form.stdout_lines,
    };
    (form.stdout_lines, form.stdout_tail) = stdout.tail(limits.stdout_tail_lines, limits);
    let stderr = Stream {
        text: form.stderr.take(),
        tail: form.stderr_tail.take(),
        lines: form.stderr_lines,
    };
    (form.stderr_lines, form.stderr_tail) = stderr.tail(limits.stderr_tail_lines, limits);
    Some(to_value(&form))
}

/// One output stream as a result has it: whole from the tool, or as a tail from history.
pub(super) struct Stream {
    pub(super) text: Option<String>,
    pub(super) tail: Option<String>,
    pub(super) lines: Option<usize>,
}

impl Stream {
    /// How many lines the stream had, and its last `max` lines when it had any.
    pub(super) fn tail(self, max: usize, limits: &Limits) -> (Option<usize>, Option<String>) {
        let (text, total) = match (self.text, self.tail) {
            (Some(text), _) => (text, None),
            (None, Some(tail)) => (tail, self.lines),
            // An empty stream compressed before: its count is all there is.
            (None, None) => return (self.lines, None),
        };
        let lines = Lines::tail(&text, max, limits.short_line_chars);
        let total = total.unwrap_or(lines.total);
        (Some(total), (!lines.text.is_empty()).then_some(lines.text))
    }
}
