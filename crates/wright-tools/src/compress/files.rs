//! Spec A3 rules for the tools that read and change files: Read, Write, Edit and MultiEdit.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::{Limits, Lines, Nullable, fallback, nullable};
use crate::data::WriteAction;
use crate::data::{read_object, to_value};

/// The history form of a Read ([`crate::data::ReadData`] without `limit`): where the window
/// sits, its markers, and its first lines.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct ReadForm {
    #[serde(skip_serializing_if = "Option::is_none")]
    file_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines_shown: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_lines: Option<usize>,
    /// A number, kept as written.
    #[serde(deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    mtime: Nullable<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified_externally: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    invalid_utf8_bytes: Option<usize>,
    /// Kept only when some lines were cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    long_lines_cut: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
    /// History only: `content` is not the whole window.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_truncated: Option<bool>,
    /// History only: lines of the window left out of `content`.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_lines_dropped: Option<usize>,
}

/// Read: the window's position and markers, and its content cut to the first
/// [`Limits::read_lines`] lines (`content_truncated` and `content_lines_dropped` say so).
pub(super) fn read(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: ReadForm = read_object(data)?;
    form.long_lines_cut = form.long_lines_cut.filter(|&cut| cut > 0);
    // A result compressed before already lost some lines: they count too.
    let dropped_before = form.content_lines_dropped.take().unwrap_or(0);
    form.content_truncated = None;
    let mut dropped = dropped_before;
    if let Some(content) = form.content.take() {
        let lines = Lines::head(&content, limits.read_lines, limits.snippet_line_chars);
        dropped = dropped.saturating_add(lines.dropped);
        // No line kept of a window that had some: no content at all, rather than an empty
        // one that reads as an empty file.
        let none_kept = limits.read_lines == 0 && lines.total > 0;
        form.content = (!none_kept).then_some(lines.text);
    }
    if dropped > 0 {
        form.content_truncated = Some(true);
        form.content_lines_dropped = Some(dropped);
    }
    Some(to_value(&form))
}

/// The history form of a Write ([`crate::data::WriteData`] without the diff, which is for
/// the user's screen only).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct WriteForm {
    #[serde(skip_serializing_if = "Option::is_none")]
    file_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<WriteAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
}

/// Write: what was written where, and the head of the content: up to
/// [`Limits::created_head_lines`] lines of a new file, [`Limits::overwritten_head_lines`] of a
/// replaced one. `truncated` says the head is not the whole content.
pub(super) fn write(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: WriteForm = read_object(data)?;
    let mut truncated = form.truncated.unwrap_or(false);
    if let Some(head) = form.head.take() {
        let max = match form.action {
            Some(WriteAction::Created) => limits.created_head_lines,
            _ => limits.overwritten_head_lines,
        };
        let lines = Lines::head(&head, max, limits.snippet_line_chars);
        truncated |= lines.dropped > 0 || lines.cut > 0;
        form.head = Some(lines.text);
    }
    if truncated {
        form.truncated = Some(true);
    }
    Some(to_value(&form))
}

/// The history form of an Edit or MultiEdit ([`crate::data::EditData`] with the diff as a
/// key snippet).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct EditForm {
    #[serde(skip_serializing_if = "Option::is_none")]
    file_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replacements: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edits_applied: Option<usize>,
    #[serde(deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    fallback: Nullable<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    applied: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    added: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<usize>,
    /// The size of the whole diff, even when `diff` was cut before.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_lines: Option<usize>,
    /// Lists of any length, shrunk by the default rule (a `… N more` note stands for the
    /// ranges left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    changed_ranges: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edits: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    /// History only: `diff` is the first lines of a larger diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_truncated: Option<bool>,
    /// History only: what the whole diff was.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_summary: Option<String>,
}

/// Edit and MultiEdit: the file, the changed ranges, the counts and markers, and the diff as
/// a key snippet: whole up to [`Limits::diff_whole_lines`] lines, else its first
/// [`Limits::diff_head_lines`] lines and a `diff_summary`.
pub(super) fn edit(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: EditForm = read_object(data)?;
    form.changed_ranges = form
        .changed_ranges
        .map(|list| fallback::shrink(&list, limits));
    form.edits = form.edits.map(|list| fallback::shrink(&list, limits));
    form.diff_truncated = None;
    form.diff_summary = None;
    if let Some(diff) = form.diff.take() {
        let present = diff.lines().count();
        let total = form.diff_lines.unwrap_or(present).max(present);
        if total <= limits.diff_whole_lines {
            form.diff = Some(Lines::head(&diff, total, limits.snippet_line_chars).text);
        } else {
            let lines = Lines::head(&diff, limits.diff_head_lines, limits.snippet_line_chars);
            let kept = lines.total - lines.dropped;
            form.diff = Some(lines.text);
            form.diff_truncated = Some(true);
            form.diff_summary = Some(diff_summary(&form, total, kept));
        }
    }
    Some(to_value(&form))
}

/// `diff of 340 lines: +200 -140; first 20 lines kept`.
fn diff_summary(form: &EditForm, total: usize, kept: usize) -> String {
    let changes = match (form.added, form.removed) {
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
        let form = EditForm {
            added: Some(3),
            removed: Some(1),
            ..EditForm::default()
        };
        assert_eq!(
            diff_summary(&form, 60, 20),
            "diff of 60 lines: +3 -1; first 20 lines kept"
        );
        assert_eq!(
            diff_summary(&EditForm::default(), 60, 20),
            "diff of 60 lines; first 20 lines kept"
        );
    }
}
