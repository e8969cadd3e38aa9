//! Spec A3 rules for the tools that find things: Grep, Glob and LS.
//!
//! Each keeps its counts, its `truncated` marker and the first few items it found, rendered as
//! short strings (`src/main.rs:12: fn main() {`, `docs/`), with `more` counting the rest.
//! Items that are already strings (a result compressed before) are kept as they are.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wright_protocol::text;

use super::{Limits, cut_line};
use crate::data::{EntryKind, GrepCount, GrepMatch, LsEntry};
use crate::data::{read_object, to_value};

/// An item of a list as the tool returned it (`Full`) or as history shows it (`Shown`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum Item<T> {
    Shown(String),
    Full(T),
}

impl<T> Item<T> {
    /// The item as history shows it: `render` of a full one, a shown one as it is.
    fn shown(self, render: impl Fn(T) -> String) -> Self {
        match self {
            Item::Full(item) => Item::Shown(render(item)),
            shown @ Item::Shown(_) => shown,
        }
    }
}

/// The history form of a Grep ([`crate::data::GrepData`] with a summary for the pattern and
/// its items shown as strings).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct GrepForm {
    /// Read to make the summary; history keeps the summary instead.
    #[serde(skip_serializing)]
    pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_matches: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_files: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counts: Option<Vec<Item<GrepCount>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches: Option<Vec<Item<GrepMatch>>>,
    /// History only: items left out of the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    more: Option<usize>,
}

/// Grep: a `summary` line, the totals, and the first [`Limits::grep_lines`] matches (content
/// mode, as `file:line: text`), files (files mode) or counts (count mode, as `file:count`).
pub(super) fn grep(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: GrepForm = read_object(data)?;
    let mode = match form.mode.as_deref() {
        Some(mode) => mode.to_string(),
        None if form.matches.is_some() => "content".to_string(),
        None if form.counts.is_some() => "count".to_string(),
        None if form.files.is_some() => "files_with_matches".to_string(),
        None => return None,
    };
    form.summary = Some(grep_summary(&form, &mode, limits.short_line_chars));
    let (files, counts, matches) = (form.files.take(), form.counts.take(), form.matches.take());
    let max = limits.grep_lines;
    let more = match mode.as_str() {
        "content" => matches.map(|items| {
            let chars = limits.short_line_chars;
            let render = |item: Item<_>| item.shown(|found| render_match(&found, chars));
            let (kept, more) = keep_first(items, form.total_matches, form.more, max, render);
            form.matches = Some(kept);
            more
        }),
        "count" => counts.map(|items| {
            let render = |item: Item<_>| item.shown(|count: GrepCount| render_count(&count));
            let (kept, more) = keep_first(items, form.total_files, form.more, max, render);
            form.counts = Some(kept);
            more
        }),
        _ => files.map(|items| {
            let (kept, more) = keep_first(items, form.total_files, form.more, max, |file| file);
            form.files = Some(kept);
            more
        }),
    };
    form.more = more.flatten();
    Some(to_value(&form))
}

/// `12 matches in 4 files for `fn main``, `4 files match `fn main``, `no matches for …`.
/// Without the pattern (a result compressed before), the summary already made is kept.
fn grep_summary(form: &GrepForm, mode: &str, chars: usize) -> String {
    let counts = grep_counts(form, mode);
    let Some(pattern) = &form.pattern else {
        if let Some(summary) = &form.summary {
            return summary.clone();
        }
        return counts.map_or_else(|| "grep results".to_string(), |(counts, _)| counts);
    };
    let pattern = cut_line(pattern, chars);
    match counts {
        Some((counts, joiner)) => format!("{counts}{joiner}`{pattern}`"),
        None => format!("results for `{pattern}`"),
    }
}

/// `12 matches in 4 files`, `4 files match`, `no matches`, or `None` without totals, each
/// with what joins it to the pattern.
fn grep_counts(form: &GrepForm, mode: &str) -> Option<(String, &'static str)> {
    let (files, matches) = (form.total_files, form.total_matches);
    if files == Some(0) || matches == Some(0) {
        return Some(("no matches".to_string(), FOR));
    }
    match (mode, matches, files) {
        ("content" | "count", Some(matches), Some(files)) => Some((
            format!(
                "{} in {}",
                text::count(matches, "match", "matches"),
                text::count(files, "file", "files")
            ),
            FOR,
        )),
        (_, _, Some(1)) => Some(("1 file matches".to_string(), " ")),
        (_, _, Some(files)) => Some((format!("{files} files match"), " ")),
        (_, Some(matches), None) => Some((text::count(matches, "match", "matches"), FOR)),
        (_, None, None) => None,
    }
}

/// Joins counts to the pattern they are for.
const FOR: &str = " for ";

/// A match as `file:line: text`, the text cut to `chars` characters.
fn render_match(found: &GrepMatch, chars: usize) -> String {
    let text = cut_line(found.text.trim_end(), chars);
    format!("{}:{}: {text}", found.file, found.line)
}

/// A count as `file:count`, as `rg --count` prints it.
fn render_count(count: &GrepCount) -> String {
    format!("{}:{}", count.file, count.count)
}

/// The history form of a Glob ([`crate::data::GlobData`] with `more`).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct GlobForm {
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Vec<String>>,
    /// History only: files left out of the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    more: Option<usize>,
}

/// Glob: the pattern, the directory, the counts and the first [`Limits::list_entries`] paths.
pub(super) fn glob(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: GlobForm = read_object(data)?;
    if let Some(files) = form.files.take() {
        let (kept, more) = keep_first(files, form.total, form.more, limits.list_entries, |f| f);
        form.files = Some(kept);
        form.more = more;
    } else {
        form.more = None;
    }
    Some(to_value(&form))
}

/// The history form of an LS ([`crate::data::LsData`] with its entries shown as names and
/// `more`).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct LsForm {
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dirs: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<Vec<Item<LsEntry>>>,
    /// History only: entries left out of the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    more: Option<usize>,
}

/// LS: the directory, the counts and the first [`Limits::list_entries`] entries, as `name/`
/// for a directory, `name@` for a symlink and `name` for a file (sizes dropped).
pub(super) fn ls(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: LsForm = read_object(data)?;
    if let Some(entries) = form.entries.take() {
        let render = |entry: Item<_>| entry.shown(|entry: LsEntry| render_entry(&entry));
        let (kept, more) = keep_first(entries, form.total, form.more, limits.list_entries, render);
        form.entries = Some(kept);
        form.more = more;
    } else {
        form.more = None;
    }
    Some(to_value(&form))
}

/// An entry as `name/`, `name@` or `name`.
fn render_entry(entry: &LsEntry) -> String {
    let name = &entry.name;
    match entry.kind {
        EntryKind::Dir => format!("{name}/"),
        EntryKind::Symlink => format!("{name}@"),
        EntryKind::File => name.clone(),
    }
}

/// The first `max` of `items`, rendered, and how many of `total` (or, without it, of the items
/// and the `more_before` an earlier compression left out) are not shown, when any.
fn keep_first<T>(
    items: Vec<T>,
    total: Option<usize>,
    more_before: Option<usize>,
    max: usize,
    render: impl Fn(T) -> T,
) -> (Vec<T>, Option<usize>) {
    let known = total.unwrap_or_else(|| items.len().saturating_add(more_before.unwrap_or(0)));
    let kept: Vec<T> = items.into_iter().take(max).map(render).collect();
    let more = known.saturating_sub(kept.len());
    (kept, (more > 0).then_some(more))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn summary(data: Value, mode: &str) -> String {
        let form: GrepForm = read_object(&data).unwrap();
        grep_summary(&form, mode, 200)
    }

    #[test]
    fn summary_is_singular_and_plural() {
        let data = json!({"pattern": "x", "total_matches": 1, "total_files": 1});
        assert_eq!(summary(data, "content"), "1 match in 1 file for `x`");
        let data = json!({"pattern": "x", "total_files": 2});
        assert_eq!(summary(data, "files_with_matches"), "2 files match `x`");
    }

    #[test]
    fn summary_without_hits_says_so() {
        let data = json!({"pattern": "x", "total_matches": 0, "total_files": 0});
        assert_eq!(summary(data, "content"), "no matches for `x`");
    }

    #[test]
    fn entry_kinds_get_their_suffix() {
        let entry = |name: &str, kind| LsEntry {
            name: name.into(),
            kind,
            ..LsEntry::default()
        };
        assert_eq!(render_entry(&entry("src", EntryKind::Dir)), "src/");
        assert_eq!(render_entry(&entry("l", EntryKind::Symlink)), "l@");
        assert_eq!(render_entry(&entry("a.rs", EntryKind::File)), "a.rs");
    }

    #[test]
    fn items_already_shown_are_kept_as_they_are() {
        let form: GrepForm = read_object(&json!({"mode": "content", "matches": [
            "a.rs:1: x", {"file": "b.rs", "line": 2, "text": "y  "}
        ]}))
        .unwrap();
        let shown: Vec<Item<GrepMatch>> = form
            .matches
            .unwrap()
            .into_iter()
            .map(|item| item.shown(|found| render_match(&found, 200)))
            .collect();
        assert_eq!(
            serde_json::to_value(shown).unwrap(),
            json!(["a.rs:1: x", "b.rs:2: y"])
        );
    }
}
