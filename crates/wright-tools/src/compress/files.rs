//! Spec A3 rules for the tools that read and change files: Read, Write, Edit and MultiEdit.

use serde_json::{Map, Value, json};

use super::{Limits, Lines, copy, count, fallback};

/// Read: the window's position and markers, and its content cut to the first
/// [`Limits::read_lines`] lines (`content_truncated` and `content_lines_dropped` say so).
pub(super) fn read(data: &Value, limits: &Limits) -> Option<Value> {
    let data = data.as_object()?;
    let mut out = Map::new();
    copy(
        &mut out,
        data,
        &[
            "file_path",
            "offset",
            "lines_shown",
            "total_lines",
            "mtime",
            "truncated",
            "modified_externally",
            "invalid_utf8_bytes",
        ],
    );
    if count(data, "long_lines_cut").is_some_and(|n| n > 0) {
        copy(&mut out, data, &["long_lines_cut"]);
    }
    if let Some(content) = data.get("content").and_then(Value::as_str) {
        let lines = Lines::head(content, limits.read_lines, limits.snippet_line_chars);
        // A result compressed before already lost some lines: they count too.
        let dropped = lines
            .dropped
            .saturating_add(count(data, "content_lines_dropped").unwrap_or(0));
        out.insert("content".into(), json!(lines.text));
        if dropped > 0 {
            out.insert("content_truncated".into(), json!(true));
            out.insert("content_lines_dropped".into(), json!(dropped));
        }
    }
    Some(Value::Object(out))
}

/// Write: what was written where, and the head of the content: up to
/// [`Limits::created_head_lines`] lines of a new file, [`Limits::overwritten_head_lines`] of a
/// replaced one. `truncated` says the head is not the whole content.
pub(super) fn write(data: &Value, limits: &Limits) -> Option<Value> {
    let data = data.as_object()?;
    let mut out = Map::new();
    copy(&mut out, data, &["file_path", "action", "lines", "bytes"]);
    let mut truncated = data
        .get("truncated")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(head) = data.get("head").and_then(Value::as_str) {
        let max = match data.get("action").and_then(Value::as_str) {
            Some("created") => limits.created_head_lines,
            _ => limits.overwritten_head_lines,
        };
        let lines = Lines::head(head, max, limits.snippet_line_chars);
        truncated |= lines.dropped > 0 || lines.cut > 0;
        out.insert("head".into(), json!(lines.text));
    }
    if truncated || data.contains_key("truncated") {
        out.insert("truncated".into(), json!(truncated));
    }
    Some(Value::Object(out))
}

/// Edit and MultiEdit: the file, the changed ranges, the counts and markers, and the diff as
/// a key snippet: whole up to [`Limits::diff_whole_lines`] lines, else its first
/// [`Limits::diff_head_lines`] lines and a `diff_summary`.
pub(super) fn edit(data: &Value, limits: &Limits) -> Option<Value> {
    let data = data.as_object()?;
    let mut out = Map::new();
    copy(
        &mut out,
        data,
        &[
            "file_path",
            "replacements",
            "edits_applied",
            "fallback",
            "applied",
            "added",
            "removed",
            "diff_lines",
        ],
    );
    for list in ["changed_ranges", "edits"] {
        if let Some(value) = data.get(list) {
            out.insert(list.into(), fallback::shrink(value, limits));
        }
    }
    if let Some(diff) = data.get("diff").and_then(Value::as_str) {
        // `diff_lines` is the size of the whole diff, even when `diff` was cut before.
        let present = diff.lines().count();
        let total = count(data, "diff_lines").unwrap_or(present).max(present);
        if total <= limits.diff_whole_lines {
            let lines = Lines::head(diff, total, limits.snippet_line_chars);
            out.insert("diff".into(), json!(lines.text));
        } else {
            let lines = Lines::head(diff, limits.diff_head_lines, limits.snippet_line_chars);
            let kept = lines.total - lines.dropped;
            out.insert("diff".into(), json!(lines.text));
            out.insert("diff_truncated".into(), json!(true));
            out.insert(
                "diff_summary".into(),
                json!(diff_summary(data, total, kept)),
            );
        }
    }
    Some(Value::Object(out))
}

/// `diff of 340 lines: +200 -140; first 20 lines kept`.
fn diff_summary(data: &Map<String, Value>, total: usize, kept: usize) -> String {
    let changes = match (count(data, "added"), count(data, "removed")) {
        (Some(added), Some(removed)) => format!(": +{added} -{removed}"),
        _ => String::new(),
    };
    format!("diff of {total} lines{changes}; first {kept} lines kept")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn diff_summary_leaves_out_unknown_counts() {
        let data = json!({"added": 3, "removed": 1});
        let data = data.as_object().unwrap();
        assert_eq!(
            diff_summary(data, 60, 20),
            "diff of 60 lines: +3 -1; first 20 lines kept"
        );
        assert_eq!(
            diff_summary(&Map::new(), 60, 20),
            "diff of 60 lines; first 20 lines kept"
        );
    }
}
