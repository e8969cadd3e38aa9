//! Memory that lasts across sessions (issue 17, items 4–5): notes the model (or the user)
//! saves with tags, in one JSON-lines file per scope.
//!
//! - **project** memory: `$WRIGHT_HOME/memory/projects/<project-key>.jsonl` (the key of
//!   [`project_key`], as sessions use), or `<memory_dir>/memory.jsonl` when
//!   the user's settings name a `memory_dir`;
//! - **global** memory, the user's across projects: `$WRIGHT_HOME/memory/global.jsonl`;
//! - **session** memory lives only in the process (`wright-core` keeps it), never here.
//!
//! A file is small and bounded ([`MAX_ENTRIES`], [`MAX_CONTENT_BYTES`], [`MAX_FILE_BYTES`]),
//! so each change re-reads it whole, changes it and writes it anew (a temporary file renamed
//! over it), under an exclusive lock on a lock file beside it: two wrights saving at once
//! both keep their entry, and a crash leaves the old file or the new one, never half of one.
//! A file that is too large, not a regular file, or has a line that is not an entry is
//! reported ([`MemoryError`]) and neither trusted nor overwritten.
//!
//! Searching ([`search`]) ranks entries by BM25 ([`bm25`]); [`index`] is the short list of
//! tags a session's system prompt ends with. What the model may save (secrets are refused)
//! is `wright-core`'s business.

pub mod bm25;
mod index;

pub use index::{INDEX_MAX_LINES, index};

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::project_key;

/// Longest content of one entry, in bytes: a note, not a document.
pub const MAX_CONTENT_BYTES: usize = 8 * 1024;
/// Most entries one scope keeps; a save past it is refused until some are cleared.
pub const MAX_ENTRIES: usize = 2_000;
/// Most tags on one entry.
pub const MAX_TAGS: usize = 10;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 40;
/// Largest memory file read: a full scope of the largest entries with room for their JSON.
/// A larger file was not written by wright and is not trusted.
pub const MAX_FILE_BYTES: u64 = (MAX_ENTRIES as u64) * (MAX_CONTENT_BYTES as u64 * 2 + 1024);
/// Most results of a search (issue 17: "top 10").
pub const SEARCH_LIMIT: usize = 10;

/// Where an entry lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryScope {
    /// This project's, kept across sessions.
    Project,
    /// The user's, seen from every project.
    Global,
    /// This session's, gone when it ends.
    Session,
}

impl MemoryScope {
    /// Every scope, in the order listings show them.
    pub const ALL: [MemoryScope; 3] = [
        MemoryScope::Project,
        MemoryScope::Global,
        MemoryScope::Session,
    ];

    /// The scope's name, as the tool and the command line write it.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryScope::Project => "project",
            MemoryScope::Global => "global",
            MemoryScope::Session => "session",
        }
    }
}

impl fmt::Display for MemoryScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryScope {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MemoryScope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == s)
            .ok_or_else(|| format!("unknown scope {s:?}: expected project, global or session"))
    }
}

/// One saved note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// A short id, unique within its scope (8 hex digits), for clearing it.
    pub id: String,
    /// Where it lives.
    pub scope: MemoryScope,
    /// Its tags, normalised ([`normalize_tags`]).
    pub tags: Vec<String>,
    /// The note.
    pub content: String,
    /// When it was saved.
    pub created_at: DateTime<Utc>,
}

impl MemoryEntry {
    /// A new entry in `scope`, with a fresh id not among `taken`.
    pub fn new(
        scope: MemoryScope,
        tags: Vec<String>,
        content: String,
        taken: &[MemoryEntry],
    ) -> Self {
        let id = loop {
            let simple = uuid::Uuid::now_v7().simple().to_string();
            // A v7 id ends with random bits; its start is the time.
            let id = simple[simple.len() - 8..].to_string();
            if !taken.iter().any(|entry| entry.id == id) {
                break id;
            }
        };
        Self {
            id,
            scope,
            tags,
            content,
            created_at: Utc::now(),
        }
    }
}

/// Why memory could not be read or changed, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The file system refused.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The file is larger than wright ever writes one.
    #[error(
        "memory file {} is larger than {} MB and is not trusted; move it away to start afresh",
        path.display(),
        MAX_FILE_BYTES / 1_000_000
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The file (or what stands at its path) is not a memory file.
    #[error(
        "memory file {} is damaged (line {line}: {problem}) and is not trusted; fix or move it \
         away to start afresh",
        path.display()
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The first line that is not an entry (1-based; 0 for the file itself).
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The scope holds [`MAX_ENTRIES`] already.
    #[error(
        "{scope} memory is full ({MAX_ENTRIES} entries); clear entries that are no longer true \
         before saving more"
    )]
    Full {
        /// The scope.
        scope: MemoryScope,
    },
}

fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> MemoryError + 'a {
    move |source| MemoryError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Where a project's memory and the user's global memory are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryPaths {
    project: PathBuf,
    global: PathBuf,
}

impl MemoryPaths {
    /// The memory of the project at `project_root` under the state directory `home`, or in
    /// `memory_dir` when the user's settings name one; global memory under `home`.
    pub fn new(home: &Path, project_root: &Path, memory_dir: Option<&Path>) -> Self {
        let memory = home.join("memory");
        let project = match memory_dir {
            Some(dir) => dir.join("memory.jsonl"),
            None => memory
                .join("projects")
                .join(format!("{}.jsonl", project_key(project_root))),
        };
        Self {
            project,
            global: memory.join("global.jsonl"),
        }
    }

    /// The file of `scope`; `None` for session memory, which has none.
    pub fn file(&self, scope: MemoryScope) -> Option<MemoryFile> {
        let path = match scope {
            MemoryScope::Project => &self.project,
            MemoryScope::Global => &self.global,
            MemoryScope::Session => return None,
        };
        Some(MemoryFile {
            path: path.clone(),
            scope,
        })
    }

    /// The files of the scopes kept on disk, project first.
    pub fn files(&self) -> [MemoryFile; 2] {
        [
            MemoryFile {
                path: self.project.clone(),
                scope: MemoryScope::Project,
            },
            MemoryFile {
                path: self.global.clone(),
                scope: MemoryScope::Global,
            },
        ]
    }
}

/// The file of one scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    path: PathBuf,
    scope: MemoryScope,
}

impl MemoryFile {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The scope it holds.
    pub fn scope(&self) -> MemoryScope {
        self.scope
    }

    /// Its entries, oldest first; none when there is no file yet.
    pub fn load(&self) -> Result<Vec<MemoryEntry>, MemoryError> {
        let text = match self.read()? {
            Some(text) => text,
            None => return Ok(Vec::new()),
        };
        parse(&self.path, self.scope, &text)
    }

    /// Saves a new entry with `tags` and `content` (checked by the caller), under the lock:
    /// the entries other wrights saved meanwhile are kept.
    pub fn add(&self, tags: Vec<String>, content: String) -> Result<MemoryEntry, MemoryError> {
        self.change(|entries| {
            if entries.len() >= MAX_ENTRIES {
                return Err(MemoryError::Full { scope: self.scope });
            }
            let entry = MemoryEntry::new(self.scope, tags, content, entries);
            entries.push(entry.clone());
            Ok(entry)
        })
    }

    /// Removes the entries `matches` picks, under the lock; the removed ones.
    pub fn remove(
        &self,
        matches: impl Fn(&MemoryEntry) -> bool,
    ) -> Result<Vec<MemoryEntry>, MemoryError> {
        self.change(|entries| {
            let (removed, kept) = std::mem::take(entries).into_iter().partition(&matches);
            *entries = kept;
            Ok(removed)
        })
    }

    /// Re-reads the entries under the lock, lets `change` change them, and writes them back
    /// (when there is something to write) before the lock is let go.
    fn change<T>(
        &self,
        change: impl FnOnce(&mut Vec<MemoryEntry>) -> Result<T, MemoryError>,
    ) -> Result<T, MemoryError> {
        let dir = self.dir();
        std::fs::create_dir_all(dir).map_err(io_error("cannot create", dir))?;
        let lock_path = dir.join(format!(".{}.lock", self.file_name()));
        // A link in its place is not followed out of the directory.
        if std::fs::symlink_metadata(&lock_path).is_ok_and(|meta| !meta.is_file()) {
            return Err(MemoryError::Corrupt {
                path: lock_path,
                line: 0,
                problem: "the lock file is not a regular file".into(),
            });
        }
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_error("cannot open", &lock_path))?;
        lock.lock().map_err(io_error("cannot lock", &lock_path))?;
        let mut entries = self.load()?;
        let before = entries.len();
        let result = change(&mut entries)?;
        if entries.len() != before {
            self.write(&entries)?;
        }
        drop(lock);
        Ok(result)
    }

    fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The file's text, bounded; `None` when there is no file. What stands at the path must be
    /// a regular file (a link is not followed out of the directory).
    fn read(&self) -> Result<Option<String>, MemoryError> {
        let meta = match std::fs::symlink_metadata(&self.path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error("cannot read", &self.path)(e)),
        };
        if !meta.is_file() {
            return Err(MemoryError::Corrupt {
                path: self.path.clone(),
                line: 0,
                problem: "not a regular file".into(),
            });
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(MemoryError::TooLarge {
                path: self.path.clone(),
            });
        }
        let file = File::open(&self.path).map_err(io_error("cannot read", &self.path))?;
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io_error("cannot read", &self.path))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(MemoryError::TooLarge {
                path: self.path.clone(),
            });
        }
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| MemoryError::Corrupt {
                path: self.path.clone(),
                line: 0,
                problem: "not UTF-8 text".into(),
            })
    }

    /// Writes `entries` to a new file beside this one and renames it over this one.
    fn write(&self, entries: &[MemoryEntry]) -> Result<(), MemoryError> {
        let mut text = String::new();
        for entry in entries {
            let line = serde_json::to_string(entry).map_err(|e| MemoryError::Io {
                action: "cannot encode an entry for",
                path: self.path.clone(),
                source: io::Error::other(e),
            })?;
            text.push_str(&line);
            text.push('\n');
        }
        let temp = self.dir().join(format!(".{}.tmp", self.file_name()));
        // Left by a wright that died mid-write (we hold the lock): never followed.
        match std::fs::remove_file(&temp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error("cannot remove", &temp)(e)),
        }
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options
            .open(&temp)
            .map_err(io_error("cannot create", &temp))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(io_error("cannot write to", &temp))?;
        std::fs::rename(&temp, &self.path).map_err(io_error("cannot replace", &self.path))
    }
}

/// The entries of a memory file's `text`: every non-blank line must be an entry of `scope`.
fn parse(path: &Path, scope: MemoryScope, text: &str) -> Result<Vec<MemoryEntry>, MemoryError> {
    let corrupt = |line: usize, problem: String| MemoryError::Corrupt {
        path: path.to_path_buf(),
        line,
        problem,
    };
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: MemoryEntry =
            serde_json::from_str(line).map_err(|e| corrupt(n + 1, e.to_string()))?;
        if entry.scope != scope {
            return Err(corrupt(
                n + 1,
                format!("an entry of {} memory in the {scope} file", entry.scope),
            ));
        }
        if let Some(problem) = unlike_a_saved_entry(&entry) {
            return Err(corrupt(n + 1, problem.into()));
        }
        entries.push(entry);
    }
    if entries.len() > MAX_ENTRIES {
        return Err(corrupt(0, format!("more than {MAX_ENTRIES} entries")));
    }
    Ok(entries)
}

/// Longest id read back: ids are 8 hex digits; a little room for ones made otherwise.
const MAX_ID_CHARS: usize = 32;

/// What makes `entry` (read from a file) one wright would not have saved, if anything: its
/// tags end up in every session's system prompt, so they are held to what a save allows.
fn unlike_a_saved_entry(entry: &MemoryEntry) -> Option<&'static str> {
    let bad_text = |text: &str| text.chars().any(char::is_control);
    if entry.id.is_empty() || entry.id.chars().count() > MAX_ID_CHARS || bad_text(&entry.id) {
        return Some("an id wright does not make");
    }
    if entry.content.len() > MAX_CONTENT_BYTES {
        return Some("content larger than wright saves");
    }
    if entry.tags.len() > MAX_TAGS {
        return Some("more tags than wright saves");
    }
    let bad_tag = |tag: &String| {
        tag.is_empty()
            || tag.chars().count() > MAX_TAG_CHARS
            || bad_text(tag)
            || tag.contains(',')
            || tag.contains(char::is_whitespace)
    };
    if entry.tags.iter().any(bad_tag) {
        return Some("a tag wright does not save");
    }
    None
}

/// Tags as memory keeps them: trimmed, lower-case, inner spaces made `-`, empty ones and
/// repeats dropped; an error when there are too many or one is too long.
pub fn normalize_tags(tags: &[String]) -> Result<Vec<String>, String> {
    let mut normalized: Vec<String> = Vec::new();
    for tag in tags {
        let tag: String = tag
            .trim()
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("-");
        if tag.is_empty() {
            continue;
        }
        if tag.chars().count() > MAX_TAG_CHARS {
            return Err(format!(
                "tag {tag:?} is longer than {MAX_TAG_CHARS} characters; use a word or two"
            ));
        }
        if tag.chars().any(|c| c.is_control() || c == ',') {
            return Err(format!("tag {tag:?} holds a comma or a control character"));
        }
        if !normalized.contains(&tag) {
            normalized.push(tag);
        }
    }
    if normalized.len() > MAX_TAGS {
        return Err(format!(
            "{} tags; give at most {MAX_TAGS}",
            normalized.len()
        ));
    }
    Ok(normalized)
}

/// The entries of `entries` with any of `tags` (all when `tags` is empty), ranked by BM25
/// over `query`'s words when it has some (entries matching none of them left out), else
/// newest first; at most `limit`.
pub fn search<'a>(
    entries: &'a [MemoryEntry],
    tags: &[String],
    query: &str,
    limit: usize,
) -> Vec<&'a MemoryEntry> {
    let tagged: Vec<&MemoryEntry> = entries
        .iter()
        .filter(|entry| tags.is_empty() || entry.tags.iter().any(|tag| tags.contains(tag)))
        .collect();
    let words = bm25::tokens(query);
    let mut ranked: Vec<(f64, &MemoryEntry)> = if words.is_empty() {
        tagged.into_iter().map(|entry| (0.0, entry)).collect()
    } else {
        let documents: Vec<String> = tagged
            .iter()
            .map(|entry| format!("{} {}", entry.tags.join(" "), entry.content))
            .collect();
        let scores = bm25::scores(&documents, &words);
        tagged
            .into_iter()
            .zip(scores)
            .filter(|(_, score)| *score > 0.0)
            .map(|(entry, score)| (score, entry))
            .collect()
    };
    ranked.sort_by(|(a, x), (b, y)| b.total_cmp(a).then_with(|| y.created_at.cmp(&x.created_at)));
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, entry)| entry)
        .collect()
}

#[cfg(test)]
mod tests;
