//! What the user does with memory by hand — `wright memory list|search|rm` and `/memory` —
//! as text for the terminal, the same from both.

use wright_store::memory::{self, MemoryEntry, MemoryScope, SEARCH_LIMIT};

use super::{Recalled, SessionMemory, entry_text, recall};
use wright_store::memory::MemoryPaths;

/// Longest first line of an entry's content a listing shows, in characters.
const LISTED_CHARS: usize = 72;

/// One command of the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryCommand {
    /// Every entry, one line each, per scope; only `scope`'s when given.
    List {
        /// The one scope to list.
        scope: Option<MemoryScope>,
    },
    /// The entries best matching `words` (any of `tags`, when given), in full.
    Search {
        /// The words to rank by.
        words: String,
        /// The tags to filter by (any of them).
        tags: Vec<String>,
    },
    /// Removes the entry `id`, or every entry with any of `tags`.
    Remove {
        /// The entry's id.
        id: Option<String>,
        /// The tags.
        tags: Vec<String>,
    },
}

/// What a command printed, and whether everything went as asked (a file that could not be
/// read or changed, or nothing to remove, is a failure after the rest was done).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// The text for standard output.
    pub text: String,
    /// Problems, one line each, for standard error.
    pub problems: Vec<String>,
    /// Whether it did what was asked.
    pub ok: bool,
}

/// Runs `command` over the memory at `paths` and, in a running session, its `session`
/// memory.
pub fn run(
    paths: &MemoryPaths,
    session: Option<&SessionMemory>,
    command: &MemoryCommand,
) -> CommandOutput {
    match command {
        MemoryCommand::List { scope } => list(paths, session, *scope),
        MemoryCommand::Search { words, tags } => search(paths, session, words, tags),
        MemoryCommand::Remove { id, tags } => remove(paths, session, id.as_deref(), tags),
    }
}

fn problems_of(recalled: &Recalled) -> Vec<String> {
    recalled
        .problems
        .iter()
        .map(|(_, e)| e.to_string())
        .collect()
}

fn list(
    paths: &MemoryPaths,
    session: Option<&SessionMemory>,
    only: Option<MemoryScope>,
) -> CommandOutput {
    let recalled = recall(paths, session);
    let problems = problems_of(&recalled);
    let mut text = String::new();
    for scope in MemoryScope::ALL {
        if only.is_some_and(|s| s != scope) {
            continue;
        }
        let place = match paths.file(scope) {
            Some(file) => file.path().display().to_string(),
            None if session.is_some() => "this session only".to_string(),
            None if only.is_some() => {
                text.push_str(
                    "session memory lives only in a running session; /memory there lists it\n",
                );
                continue;
            }
            None => continue,
        };
        if recalled.problems.iter().any(|(s, _)| *s == scope) {
            text.push_str(&format!("{scope} ({place}): cannot be read\n"));
            continue;
        }
        let entries: Vec<&MemoryEntry> = recalled
            .entries
            .iter()
            .filter(|e| e.scope == scope)
            .collect();
        text.push_str(&format!(
            "{scope} ({place}): {}\n",
            match entries.len() {
                0 => "no entries".to_string(),
                1 => "1 entry".to_string(),
                n => format!("{n} entries"),
            }
        ));
        for entry in entries {
            text.push_str(&format!("  {}\n", line_of(entry)));
        }
    }
    CommandOutput {
        ok: problems.is_empty(),
        text,
        problems,
    }
}

/// One entry in a listing: id, date, tags and the start of its content.
fn line_of(entry: &MemoryEntry) -> String {
    let first = entry.content.lines().next().unwrap_or_default();
    let mut shown: String = first.chars().take(LISTED_CHARS).collect();
    if shown.len() < entry.content.trim_end().len() {
        shown.push('…');
    }
    let tags = if entry.tags.is_empty() {
        "-".to_string()
    } else {
        entry.tags.join(",")
    };
    format!(
        "{}  {}  [{tags}]  {shown}",
        entry.id,
        entry.created_at.format("%Y-%m-%d")
    )
}

fn search(
    paths: &MemoryPaths,
    session: Option<&SessionMemory>,
    words: &str,
    tags: &[String],
) -> CommandOutput {
    let recalled = recall(paths, session);
    let problems = problems_of(&recalled);
    let tags = match memory::normalize_tags(tags) {
        Ok(tags) => tags,
        Err(problem) => {
            return CommandOutput {
                text: String::new(),
                problems: vec![problem],
                ok: false,
            };
        }
    };
    let found = memory::search(&recalled.entries, &tags, words, SEARCH_LIMIT);
    let text = if found.is_empty() {
        "no entry matches\n".to_string()
    } else {
        let shown: Vec<String> = found.iter().map(|e| entry_text(e)).collect();
        format!("{}\n", shown.join("\n\n"))
    };
    CommandOutput {
        ok: problems.is_empty(),
        text,
        problems,
    }
}

fn remove(
    paths: &MemoryPaths,
    session: Option<&SessionMemory>,
    id: Option<&str>,
    tags: &[String],
) -> CommandOutput {
    let tags = match memory::normalize_tags(tags) {
        Ok(tags) => tags,
        Err(problem) => {
            return CommandOutput {
                text: String::new(),
                problems: vec![problem],
                ok: false,
            };
        }
    };
    let matches = |entry: &MemoryEntry| match id {
        Some(id) => entry.id == id,
        None => entry.tags.iter().any(|t| tags.contains(t)),
    };
    if id.is_none() && tags.is_empty() {
        return CommandOutput {
            text: String::new(),
            problems: vec!["name the entry's id, or --tags".into()],
            ok: false,
        };
    }
    let mut removed: Vec<MemoryEntry> = Vec::new();
    let mut problems = Vec::new();
    for file in paths.files() {
        match file.remove(matches) {
            Ok(gone) => removed.extend(gone),
            Err(e) => problems.push(e.to_string()),
        }
    }
    if let Some(session) = session {
        removed.extend(session.remove(&matches));
    }
    if removed.is_empty() {
        problems.push("no entry matches; nothing was removed".into());
        return CommandOutput {
            text: String::new(),
            problems,
            ok: false,
        };
    }
    let text: String = removed
        .iter()
        .map(|e| format!("removed {} ({})\n", e.id, e.scope))
        .collect();
    CommandOutput {
        ok: problems.is_empty(),
        text,
        problems,
    }
}
