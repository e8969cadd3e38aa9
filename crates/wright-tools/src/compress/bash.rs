//! Spec A3 rule for Bash: a summary of the run, the end of stdout and the end of stderr.

use serde_json::{Map, Value, json};

use super::{Limits, Lines, copy, count, cut_line};

/// Bash: the command (cut), how it ended, the stream sizes, the last
/// [`Limits::stdout_tail_lines`] lines of stdout and the last [`Limits::stderr_tail_lines`]
/// lines of stderr (spec A3: "stderr 末尾 20 行，stdout 仅摘要").
pub(super) fn bash(data: &Value, limits: &Limits) -> Option<Value> {
    let data = data.as_object()?;
    let mut out = Map::new();
    if let Some(command) = data.get("command").and_then(Value::as_str) {
        out.insert(
            "command".into(),
            json!(cut_line(command, limits.command_chars)),
        );
    }
    copy(
        &mut out,
        data,
        &[
            "exit_code",
            "signal",
            "timed_out",
            "stdout_chars",
            "stderr_chars",
        ],
    );
    tail(&mut out, data, "stdout", limits.stdout_tail_lines, limits);
    tail(&mut out, data, "stderr", limits.stderr_tail_lines, limits);
    Some(Value::Object(out))
}

/// Puts `<stream>_tail` (the last `max` lines, if any) and `<stream>_lines` (how many lines
/// the stream had) into `out`, from the stream itself or from a tail compressed before.
fn tail(
    out: &mut Map<String, Value>,
    data: &Map<String, Value>,
    stream: &str,
    max: usize,
    limits: &Limits,
) {
    let tail_key = format!("{stream}_tail");
    let lines_key = format!("{stream}_lines");
    let (text, total) = match data.get(stream).and_then(Value::as_str) {
        Some(text) => (text, None),
        None => match data.get(&tail_key).and_then(Value::as_str) {
            Some(text) => (text, count(data, &lines_key)),
            None => return,
        },
    };
    let lines = Lines::tail(text, max, limits.short_line_chars);
    out.insert(lines_key, json!(total.unwrap_or(lines.total)));
    if !lines.text.is_empty() {
        out.insert(tail_key, json!(lines.text));
    }
}
