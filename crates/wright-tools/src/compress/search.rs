//! Spec A3 rules for the tools that find things: Grep, Glob and LS.
//!
//! Each keeps its counts, its `truncated` marker and the first few items it found, rendered as
//! short strings (`src/main.rs:12: fn main() {`, `docs/`), with `more` counting the rest.
//! Items that are already strings (a result compressed before) are kept as they are.

use serde_json::{Map, Value, json};
use wright_protocol::text;

use super::{Limits, copy, count, cut_line};

/// Grep: a `summary` line, the totals, and the first [`Limits::grep_lines`] matches (content
/// mode, as `file:line: text`), files (files mode) or counts (count mode, as `file:count`).
pub(super) fn grep(data: &Value, limits: &Limits) -> Option<Value> {
    let data = data.as_object()?;
    let mode = data.get("mode").and_then(Value::as_str).or_else(|| {
        ["matches", "counts", "files"]
            .iter()
            .find_map(|key| data.contains_key(*key).then_some(mode_of_list(key)))
    })?;
    let mut out = Map::new();
    copy(
        &mut out,
        data,
        &["mode", "total_matches", "total_files", "truncated"],
    );
    out.insert(
        "summary".into(),
        json!(grep_summary(data, mode, limits.short_line_chars)),
    );
    let (list, total) = match mode {
        "content" => ("matches", count(data, "total_matches")),
        "count" => ("counts", count(data, "total_files")),
        _ => ("files", count(data, "total_files")),
    };
    if let Some(items) = data.get(list).and_then(Value::as_array) {
        let render = |item: &Value| match mode {
            "content" => render_match(item, limits.short_line_chars),
            "count" => render_count(item),
            _ => item.clone(),
        };
        keep_first(
            &mut out,
            data,
            list,
            items,
            total,
            limits.grep_lines,
            render,
        );
    }
    Some(Value::Object(out))
}

/// The output mode a Grep data list belongs to.
fn mode_of_list(key: &str) -> &'static str {
    match key {
        "matches" => "content",
        "counts" => "count",
        _ => "files_with_matches",
    }
}

/// `12 matches in 4 files for `fn main``, `4 files match `fn main``, `no matches for …`.
/// Without the pattern (a result compressed before), the summary already made is kept.
fn grep_summary(data: &Map<String, Value>, mode: &str, chars: usize) -> String {
    let Some(pattern) = data.get("pattern").and_then(Value::as_str) else {
        if let Some(summary) = data.get("summary").and_then(Value::as_str) {
            return summary.to_string();
        }
        return grep_counts(data, mode).map_or_else(|| "grep results".to_string(), |(c, _)| c);
    };
    let pattern = cut_line(pattern, chars);
    match grep_counts(data, mode) {
        Some((counts, joiner)) => format!("{counts}{joiner}`{pattern}`"),
        None => format!("results for `{pattern}`"),
    }
}

/// `12 matches in 4 files`, `4 files match`, `no matches`, or `None` without totals, each
/// with what joins it to the pattern.
fn grep_counts(data: &Map<String, Value>, mode: &str) -> Option<(String, &'static str)> {
    let files = count(data, "total_files");
    let matches = count(data, "total_matches");
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

/// `{file, line, text}` as `file:line: text`, the text cut to `chars` characters.
fn render_match(item: &Value, chars: usize) -> Value {
    let Some(object) = item.as_object() else {
        return item.clone();
    };
    let file = object.get("file").and_then(Value::as_str).unwrap_or("?");
    let text = object.get("text").and_then(Value::as_str).unwrap_or("");
    let text = cut_line(text.trim_end(), chars);
    match object.get("line").and_then(Value::as_u64) {
        Some(line) => json!(format!("{file}:{line}: {text}")),
        None => json!(format!("{file}: {text}")),
    }
}

/// `{file, count}` as `file:count`, as `rg --count` prints it.
fn render_count(item: &Value) -> Value {
    match (
        item.get("file").and_then(Value::as_str),
        item.get("count").and_then(Value::as_u64),
    ) {
        (Some(file), Some(count)) => json!(format!("{file}:{count}")),
        _ => item.clone(),
    }
}

/// Glob: the pattern, the directory, the counts and the first [`Limits::list_entries`] paths.
pub(super) fn glob(data: &Value, limits: &Limits) -> Option<Value> {
    let data = data.as_object()?;
    let mut out = Map::new();
    copy(&mut out, data, &["pattern", "path", "total", "truncated"]);
    if let Some(files) = data.get("files").and_then(Value::as_array) {
        let total = count(data, "total");
        keep_first(
            &mut out,
            data,
            "files",
            files,
            total,
            limits.list_entries,
            Clone::clone,
        );
    }
    Some(Value::Object(out))
}

/// LS: the directory, the counts and the first [`Limits::list_entries`] entries, as `name/`
/// for a directory, `name@` for a symlink and `name` for a file (sizes dropped).
pub(super) fn ls(data: &Value, limits: &Limits) -> Option<Value> {
    let data = data.as_object()?;
    let mut out = Map::new();
    copy(
        &mut out,
        data,
        &["path", "total", "dirs", "files", "truncated"],
    );
    if let Some(entries) = data.get("entries").and_then(Value::as_array) {
        let total = count(data, "total");
        keep_first(
            &mut out,
            data,
            "entries",
            entries,
            total,
            limits.list_entries,
            render_entry,
        );
    }
    Some(Value::Object(out))
}

/// `{name, kind}` as `name/`, `name@` or `name`.
fn render_entry(entry: &Value) -> Value {
    let Some(name) = entry.get("name").and_then(Value::as_str) else {
        return entry.clone();
    };
    match entry.get("kind").and_then(Value::as_str) {
        Some("dir") => json!(format!("{name}/")),
        Some("symlink") => json!(format!("{name}@")),
        _ => json!(name),
    }
}

/// Puts the first `max` of `items`, rendered, under `key`, and `more`: how many of `total`
/// (or, without it, of the items and those an earlier compression left out) are not shown.
fn keep_first(
    out: &mut Map<String, Value>,
    data: &Map<String, Value>,
    key: &str,
    items: &[Value],
    total: Option<usize>,
    max: usize,
    render: impl Fn(&Value) -> Value,
) {
    let kept: Vec<Value> = items.iter().take(max).map(render).collect();
    let known =
        total.unwrap_or_else(|| items.len().saturating_add(count(data, "more").unwrap_or(0)));
    let more = known.saturating_sub(kept.len());
    out.insert(key.into(), Value::Array(kept));
    if more > 0 {
        out.insert("more".into(), json!(more));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn summary(data: Value, mode: &str) -> String {
        grep_summary(data.as_object().unwrap(), mode, 200)
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
        assert_eq!(
            render_entry(&json!({"name": "src", "kind": "dir"})),
            json!("src/")
        );
        assert_eq!(
            render_entry(&json!({"name": "l", "kind": "symlink"})),
            json!("l@")
        );
        assert_eq!(
            render_entry(&json!({"name": "a.rs", "kind": "file"})),
            json!("a.rs")
        );
    }
}
