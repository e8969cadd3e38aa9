//! What was typed at the prompt before, per project: Up and Down walk through it, and it
//! outlives the session in `$WRIGHT_HOME/history/<project-key>.jsonl`, one JSON string per line
//! (so an entry may span several lines).

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Entries kept; older ones are dropped when the file is read.
pub const MAX_ENTRIES: usize = 1000;

/// The prompt's history and where Up/Down currently are in it.
#[derive(Debug, Default)]
pub struct InputHistory {
    path: Option<PathBuf>,
    entries: Vec<String>,
    /// Index of the entry shown, while walking; `None` at the draft.
    position: Option<usize>,
    /// What was typed before walking started.
    draft: String,
}

impl InputHistory {
    /// The history of the project `project_key` under `home`. A missing or unreadable file
    /// is an empty history (a line that is not a JSON string is skipped).
    pub fn load(home: &Path, project_key: &str) -> Self {
        let path = home.join("history").join(format!("{project_key}.jsonl"));
        let text = fs::read_to_string(&path).unwrap_or_default();
        let mut entries: Vec<String> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<String>(line).ok())
            .collect();
        let excess = entries.len().saturating_sub(MAX_ENTRIES);
        entries.drain(..excess);
        Self {
            path: Some(path),
            entries,
            position: None,
            draft: String::new(),
        }
    }

    /// A history that is not saved (tests).
    pub fn in_memory(entries: Vec<String>) -> Self {
        Self {
            entries,
            ..Self::default()
        }
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Records a submitted entry (unless it repeats the last one) and appends it to the file;
    /// the walk starts over. A file that cannot be written costs only persistence.
    pub fn push(&mut self, entry: &str) {
        self.position = None;
        self.draft.clear();
        if entry.trim().is_empty() || self.entries.last().is_some_and(|last| last == entry) {
            return;
        }
        self.entries.push(entry.to_string());
        if let Some(path) = &self.path {
            let _ = append(path, entry);
        }
    }

    /// The entry before the one shown (Up), given what the prompt holds now; `None` at the
    /// oldest.
    pub fn earlier(&mut self, current: &str) -> Option<&str> {
        let index = match self.position {
            None => {
                self.draft = current.to_string();
                self.entries.len().checked_sub(1)?
            }
            Some(0) => return None,
            Some(i) => i - 1,
        };
        self.position = Some(index);
        self.entries.get(index).map(String::as_str)
    }

    /// The entry after the one shown (Down); past the newest, the draft. `None` when not
    /// walking.
    pub fn later(&mut self) -> Option<&str> {
        let index = self.position?;
        if index + 1 < self.entries.len() {
            self.position = Some(index + 1);
            self.entries.get(index + 1).map(String::as_str)
        } else {
            self.position = None;
            Some(&self.draft)
        }
    }
}

fn append(path: &Path, entry: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    writeln!(file, "{line}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn up_walks_back_and_down_returns_to_the_draft() {
        let mut history = InputHistory::in_memory(vec!["one".into(), "two".into()]);
        assert_eq!(history.earlier("draft"), Some("two"));
        assert_eq!(history.earlier("two"), Some("one"));
        assert_eq!(history.earlier("one"), None, "nothing before the oldest");
        assert_eq!(history.later(), Some("two"));
        assert_eq!(history.later(), Some("draft"));
        assert_eq!(history.later(), None, "not walking any more");
    }

    #[test]
    fn entries_survive_a_restart_with_their_newlines() {
        let home = tempfile::TempDir::new().unwrap();
        let mut history = InputHistory::load(home.path(), "proj");
        history.push("first");
        history.push("two\nlines");
        history.push("two\nlines");
        let reloaded = InputHistory::load(home.path(), "proj");
        assert_eq!(reloaded.entries(), ["first", "two\nlines"]);
    }

    #[test]
    fn blank_entries_are_not_kept() {
        let mut history = InputHistory::in_memory(Vec::new());
        history.push("  ");
        assert!(history.entries().is_empty());
    }
}
