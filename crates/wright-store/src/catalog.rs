//! Looking sessions up: one-line summaries for listing, finding a session by id, id prefix or
//! name, the most recent one, and removing one.

use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use wright_protocol::Role;

use crate::record::{Record, SessionMeta};
use crate::store::{
    DamagedSession, LoadedSession, SessionFile, SessionStore, StoreError, check_name, damaged_in,
    load, read_meta, session_paths, try_lock_names,
};

/// How many levels of sub-agents' sessions removing a session follows (sub-agents nest at
/// most 4 deep).
const MAX_TASK_DEPTH: usize = 8;

/// The shortest id prefix that finds a session (git abbreviates commits the same way).
pub const MIN_ID_PREFIX: usize = 6;

/// What `wright sessions list` shows of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// Its identity.
    pub meta: SessionMeta,
    /// Its file.
    pub path: PathBuf,
    /// How many rounds it has (one per user message).
    pub rounds: usize,
    /// The time of its last record (its creation when it has none).
    pub last_activity: DateTime<Utc>,
    /// Tokens billed over the session: the sum of every reported `total_tokens`.
    pub tokens: u64,
}

impl SessionSummary {
    /// Summarises a loaded session.
    pub fn of(session: &LoadedSession) -> Self {
        let mut rounds = 0;
        let mut tokens = 0;
        let mut last_activity = session.meta.created_at;
        for record in &session.records {
            match record {
                Record::Message { message, .. } if message.role == Role::User => rounds += 1,
                Record::Usage { usage, .. } => tokens += usage.total_tokens,
                _ => {}
            }
            last_activity = last_activity.max(record_time(record));
        }
        Self {
            meta: session.meta.clone(),
            path: session.path.clone(),
            rounds,
            last_activity,
            tokens,
        }
    }
}

/// Whether `session` holds nothing but its meta line.
fn is_empty(session: &LoadedSession) -> bool {
    session
        .records
        .iter()
        .all(|record| matches!(record, Record::Meta(_)))
}

/// Deletes `session` and says so when it holds nothing but its meta line and no process
/// has it open: a wright killed before the first message left it behind, and there is
/// nothing in it to resume. A session in use (locked) is left alone. The caller holds the
/// names lock, so no process is looking the session up by its name meanwhile.
fn remove_if_orphan(session: &LoadedSession) -> bool {
    if !is_empty(session) {
        return false;
    }
    let Ok(file) = OpenOptions::new().append(true).open(&session.path) else {
        return false;
    };
    match SessionFile::locked(file, session.path.clone()) {
        // Held while the file is removed, so no process starts writing it in between.
        Ok(_lock) => std::fs::remove_file(&session.path).is_ok(),
        Err(_) => false,
    }
}

/// When a record was written.
fn record_time(record: &Record) -> DateTime<Utc> {
    match record {
        Record::Meta(meta) => meta.created_at,
        Record::Message { at, .. } | Record::Usage { at, .. } | Record::RoundEnd { at, .. } => *at,
        Record::Compaction(compaction) => compaction.at,
        Record::Checkpoint(checkpoint) => checkpoint.at,
        Record::Rewind(rewind) | Record::Redo(rewind) => rewind.at,
        Record::Commit(commit) => commit.at,
    }
}

/// Orders summaries by their last activity, newest first (like `ls -t`).
fn newest_first(a: &SessionSummary, b: &SessionSummary) -> std::cmp::Ordering {
    (b.last_activity, &b.meta.id).cmp(&(a.last_activity, &a.meta.id))
}

/// Summaries of the session files in `dir`, newest activity first; files that are not
/// sessions are skipped ([`damaged_in`] lists them), and so are orphans (see
/// [`remove_if_orphan`]). Orphans are removed only under the names lock, and left for a
/// later listing while another process holds it (it may be opening one of them by name).
fn summaries_in(dir: &Path) -> Result<Vec<SessionSummary>, StoreError> {
    let sessions: Vec<LoadedSession> = session_paths(dir)?
        .iter()
        .filter_map(|path| load(path).ok())
        .collect();
    let names_lock = if sessions.iter().any(is_empty) {
        try_lock_names(dir)
    } else {
        None
    };
    let mut summaries: Vec<SessionSummary> = sessions
        .iter()
        .filter(|session| names_lock.is_none() || !remove_if_orphan(session))
        .map(SessionSummary::of)
        .collect();
    summaries.sort_by(newest_first);
    Ok(summaries)
}

impl SessionStore {
    /// This project's sessions, the one with the newest activity first.
    pub fn summaries(&self) -> Result<Vec<SessionSummary>, StoreError> {
        summaries_in(self.dir())
    }

    /// This project's session files that cannot be loaded because their meta line cannot be
    /// read, oldest first.
    pub fn damaged(&self) -> Result<Vec<DamagedSession>, StoreError> {
        damaged_in(self.dir())
    }

    /// Every project's sessions under the state directory `home`, newest activity first.
    pub fn all_summaries(home: &Path) -> Result<Vec<SessionSummary>, StoreError> {
        let mut summaries = Vec::new();
        for dir in project_dirs(home)? {
            summaries.extend(summaries_in(&dir)?);
        }
        summaries.sort_by(newest_first);
        Ok(summaries)
    }

    /// Every project's damaged session files under the state directory `home` (see
    /// [`damaged`](Self::damaged)).
    pub fn all_damaged(home: &Path) -> Result<Vec<DamagedSession>, StoreError> {
        let mut damaged = Vec::new();
        for dir in project_dirs(home)? {
            damaged.extend(damaged_in(&dir)?);
        }
        Ok(damaged)
    }

    /// The session with the most recent activity, if the project has any.
    pub fn latest(&self) -> Result<Option<LoadedSession>, StoreError> {
        match self.summaries()?.first() {
            Some(summary) => load(&summary.path).map(Some),
            None => Ok(None),
        }
    }

    /// The session `query` names: its full id; else the newest session of that name; else the
    /// one whose id starts with `query` when it has at least [`MIN_ID_PREFIX`] characters.
    /// A prefix that several ids start with is an error listing them.
    pub fn find(&self, query: &str) -> Result<Option<LoadedSession>, StoreError> {
        let query = query.trim();
        let paths = session_paths(self.dir())?;
        let id_of = |path: &PathBuf| {
            path.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let wanted_id = query.to_ascii_lowercase();
        if let Some(path) = paths.iter().find(|path| id_of(path) == wanted_id) {
            return load(path).map(Some);
        }
        if check_name(query).is_ok()
            && let Some(session) = self.find_named(query)?
        {
            return Ok(Some(session));
        }
        // A sub-agent's session is found by its whole id (`sessions show` lists them), never
        // by a name or a prefix, which would make the parent's prefixes ambiguous.
        if let Some(path) = self
            .child_paths()?
            .iter()
            .find(|path| id_of(path) == wanted_id)
        {
            return load(path).map(Some);
        }
        if query.chars().count() < MIN_ID_PREFIX {
            return Ok(None);
        }
        let matching: Vec<&PathBuf> = paths
            .iter()
            .filter(|path| id_of(path).starts_with(&wanted_id))
            .collect();
        match matching.as_slice() {
            [] => Ok(None),
            [path] => load(path).map(Some),
            several => Err(StoreError::Ambiguous {
                prefix: query.to_string(),
                candidates: several
                    .iter()
                    .map(|path| describe(&id_of(path), path))
                    .collect(),
            }),
        }
    }

    /// Deletes the session `query` names (see [`find`](Self::find)) and returns what it was.
    /// Refuses a session another wright process is writing.
    pub fn remove(&self, query: &str) -> Result<SessionSummary, StoreError> {
        let session = self.find(query)?.ok_or_else(|| StoreError::NotFound {
            query: query.to_string(),
            dir: self.dir().to_path_buf(),
        })?;
        let path = &session.path;
        let io_error = |action: &'static str| {
            move |source| StoreError::Io {
                action,
                path: path.clone(),
                source,
            }
        };
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io_error("cannot open"))?;
        // Held until the file is gone, so no other process starts writing it in between.
        let _lock = SessionFile::locked(file, path.clone())?;
        std::fs::remove_file(path).map_err(io_error("cannot remove"))?;
        // The sessions of its sub-agents, and theirs, go with it (best effort: they are found
        // by nothing else). The id is the file's name, not what the file says.
        if let Some(id) = path.file_stem().and_then(|stem| stem.to_str()) {
            self.remove_tasks(id, MAX_TASK_DEPTH);
        }
        Ok(SessionSummary::of(&session))
    }

    /// Removes the sessions of the sub-agents the session `parent` ran, theirs first, at
    /// most `depth` levels down.
    fn remove_tasks(&self, parent: &str, depth: usize) {
        let Some(dir) = self.tasks_dir(parent) else {
            return;
        };
        if depth > 0 {
            for path in session_paths(&dir).unwrap_or_default() {
                if let Some(child) = path.file_stem().and_then(|stem| stem.to_str()) {
                    self.remove_tasks(child, depth - 1);
                }
            }
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    /// The sessions of the sub-agents the session `parent` ran, oldest first.
    pub fn children(&self, parent: &str) -> Result<Vec<SessionSummary>, StoreError> {
        let Some(dir) = self.tasks_dir(parent) else {
            return Ok(Vec::new());
        };
        Ok(session_paths(&dir)?
            .iter()
            .filter_map(|path| load(path).ok())
            .map(|session| SessionSummary::of(&session))
            .collect())
    }
}

/// The project directories under the state directory `home`, in name order.
fn project_dirs(home: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let sessions = home.join("sessions");
    let entries = match std::fs::read_dir(&sessions) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(StoreError::Io {
                action: "cannot read",
                path: sessions,
                source,
            });
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.path())
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// `id (name)`, or the id alone for an unnamed session.
fn describe(id: &str, path: &Path) -> String {
    match read_meta(path).ok().and_then(|meta| meta.name) {
        Some(name) => format!("{id} ({name})"),
        None => id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_orphan_is_kept_while_another_process_holds_the_names_lock() {
        let home = tempfile::tempdir().unwrap();
        let store = SessionStore::new(home.path(), Path::new("/work/app"));
        let (orphan, file) = store.create(None).unwrap();
        drop(file);
        // Another process is between finding a session by name and locking its file.
        let names = store.lock_names().unwrap();
        let ids: Vec<String> = store
            .summaries()
            .unwrap()
            .into_iter()
            .map(|s| s.meta.id)
            .collect();
        assert_eq!(ids, vec![orphan.id.clone()]);
        drop(names);
        assert_eq!(store.summaries().unwrap(), Vec::new());
    }
}
