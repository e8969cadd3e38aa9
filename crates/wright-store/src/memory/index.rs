//! The short index of memory that ends a session's system prompt (issue 17, item 5): the
//! tags of each scope with their counts, so the model knows what it may retrieve.

use std::collections::BTreeMap;

use super::{MemoryEntry, MemoryScope};

/// Most lines of the [`index`] (issue 17: "at most ~40 lines").
pub const INDEX_MAX_LINES: usize = 40;
/// Width the index wraps its tag lists at.
const INDEX_LINE_CHARS: usize = 100;

/// The short index of memory a session's system prompt carries: per scope with entries, its
/// tags with their counts, most used first, at most [`INDEX_MAX_LINES`] lines; empty when
/// there is no memory. `problems` are scopes that could not be read, said in one line each.
pub fn index(scopes: &[(MemoryScope, &[MemoryEntry])], problems: &[MemoryScope]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for &(scope, entries) in scopes {
        if entries.is_empty() {
            continue;
        }
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let mut untagged = 0;
        for entry in entries {
            if entry.tags.is_empty() {
                untagged += 1;
            }
            for tag in &entry.tags {
                *counts.entry(tag).or_default() += 1;
            }
        }
        let mut counted: Vec<(&str, usize)> = counts.into_iter().collect();
        counted.sort_by(|(a, x), (b, y)| y.cmp(x).then_with(|| a.cmp(b)));
        let mut items: Vec<String> = counted
            .into_iter()
            .map(|(tag, n)| format!("{tag} ({n})"))
            .collect();
        if untagged > 0 {
            items.push(format!("untagged ({untagged})"));
        }
        let entries_word = if entries.len() == 1 {
            "entry"
        } else {
            "entries"
        };
        let mut line = format!("- {scope}, {} {entries_word}: ", entries.len());
        let indent = "  ";
        let mut first = true;
        for item in items {
            if !first && line.chars().count() + item.chars().count() + 2 > INDEX_LINE_CHARS {
                line.push(',');
                lines.push(std::mem::replace(&mut line, indent.to_string()));
            } else if !first {
                line.push_str(", ");
            }
            line.push_str(&item);
            first = false;
        }
        lines.push(line);
    }
    for scope in problems {
        lines.push(format!(
            "- {scope}: cannot be read (`wright memory list` says why)"
        ));
    }
    if lines.is_empty() {
        return String::new();
    }
    if lines.len() > INDEX_MAX_LINES {
        let left = lines.len() - (INDEX_MAX_LINES - 1);
        lines.truncate(INDEX_MAX_LINES - 1);
        lines.push(format!("  … and {left} more lines of tags"));
    }
    format!(
        "# Memory\n\nNotes saved in earlier sessions, by tag (retrieve them with the Memory \
         tool):\n{}",
        lines.join("\n")
    )
}
