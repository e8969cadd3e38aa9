//! Finding, creating, loading and appending to session files.

use std::fs::{File, OpenOptions};
use std::hash::Hasher;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::Utc;

use crate::lines::{BoundedLines, Line, MAX_RECORD_BYTES};
use crate::record::{Record, SessionMeta};

/// Longest session name accepted.
const MAX_NAME_LEN: usize = 64;
/// The extension of session files (DESIGN §7: `<session-id>.jsonl`).
pub(crate) const SESSION_EXTENSION: &str = "jsonl";
/// The extension of a session file being created, before its meta line is complete.
const PARTIAL_EXTENSION: &str = "jsonl.partial";
/// The file locked while a named session is looked up and created.
const NAMES_LOCK: &str = ".names.lock";
/// The directory under a project's session directory holding its sub-agents' sessions, one
/// directory per parent session.
const TASKS_DIR: &str = "tasks";

/// A storage failure, naming the file involved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file system refused.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done ("cannot create", "cannot write to", ...).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Another wright process is writing this session.
    #[error(
        "session file {} is in use by another wright process; wait for it to finish, or work in another session",
        path.display()
    )]
    Locked {
        /// The session file.
        path: PathBuf,
    },
    /// The session file was removed or replaced (by `wright sessions rm`, or by a listing
    /// that removed it as an orphan) between being found and being locked.
    #[error(
        "session file {} was removed or replaced by another wright process while it was being opened; try again",
        path.display()
    )]
    Replaced {
        /// The session file.
        path: PathBuf,
    },
    /// The file is not a session file.
    #[error("{} is not a wright session: {problem}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// An id prefix that more than one session's id starts with.
    #[error(
        "session id prefix {prefix:?} is ambiguous; it matches {}. Give more of the id",
        candidates.join(", ")
    )]
    Ambiguous {
        /// The prefix given.
        prefix: String,
        /// The sessions it matches, as `id (name)`.
        candidates: Vec<String>,
    },
    /// No session has this id, id prefix or name.
    #[error("no session with the id or name {query:?} in {}", dir.display())]
    NotFound {
        /// What was looked for.
        query: String,
        /// The directory searched.
        dir: PathBuf,
    },
    /// A new session was to be called `name`, but a session of that name exists.
    #[error(
        "a session named {name:?} already exists ({id}); continue it with `--session {name}` or choose another name"
    )]
    NameTaken {
        /// The name.
        name: String,
        /// The id of the session that has it.
        id: String,
    },
    /// A new session was to be called `name`, but a session file whose meta line cannot be
    /// read may be the session of that name; starting another could leave two of one name.
    #[error(
        "cannot start a session named {name:?}: {}. Its name cannot be read, so it may be the session {name:?}. Move the damaged file out of {} (or repair its first line), then try again",
        describe_damaged(damaged),
        dir.display()
    )]
    Damaged {
        /// The name asked for.
        name: String,
        /// The project's session directory.
        dir: PathBuf,
        /// The files that cannot be read.
        damaged: Vec<DamagedSession>,
    },
    /// A record too large to be a line of a session file: written, it would make the session
    /// too large to load, so it is not written at all.
    #[error(
        "cannot write to {}: a record of {bytes} bytes is larger than the {MAX_RECORD_BYTES} \
         bytes a session line may hold, so it was left out of the session",
        path.display()
    )]
    RecordTooLarge {
        /// The session file.
        path: PathBuf,
        /// The record's size, serialized.
        bytes: usize,
    },
    /// A session name that cannot be used.
    #[error(
        "invalid session name {name:?}: use 1 to {MAX_NAME_LEN} letters, digits, '.', '_' or '-'"
    )]
    BadName {
        /// The name given.
        name: String,
    },
}

/// `file X is damaged (reason)`, for every damaged file.
fn describe_damaged(damaged: &[DamagedSession]) -> String {
    damaged
        .iter()
        .map(|d| {
            format!(
                "session file {} is damaged ({})",
                d.path.display(),
                d.problem
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A file in a project's session directory that is not a loadable session: its first line
/// (the session's meta record) is missing or cannot be read. It is listed, never skipped in
/// silence, and never replaced by a new session of the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DamagedSession {
    /// The file.
    pub path: PathBuf,
    /// Why it cannot be loaded, e.g. `line 1: expected value at line 1 column 1`.
    pub problem: String,
}

impl DamagedSession {
    /// The file's name without its extension: the session's id, if the file was one.
    pub fn id(&self) -> String {
        self.path
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// A named session, found or created by [`SessionStore::open_named`].
#[derive(Debug)]
pub enum NamedSession {
    /// It was stored already; open it with [`SessionStore::open_for_append`].
    Stored(LoadedSession),
    /// It did not exist and was created, its meta line written and its file locked.
    Created(SessionMeta, SessionFile),
}

pub(crate) fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> StoreError + 'a {
    move |source| StoreError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The default state directory: `$XDG_DATA_HOME/wright`, else `~/.local/share/wright`.
pub fn default_home(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let non_empty = |name: &str| env(name).filter(|v| !v.is_empty());
    non_empty("XDG_DATA_HOME")
        .map(|dir| PathBuf::from(dir).join("wright"))
        .or_else(|| non_empty("HOME").map(|home| PathBuf::from(home).join(".local/share/wright")))
}

/// Characters of the readable part of a [`project_key`] kept (its end, the telling part).
const READABLE_KEY_CHARS: usize = 100;

/// The directory name for a project's sessions: a readable part (the end of
/// [`legacy_project_key`]) and a hash of the whole path, so that two projects never share one:
/// `/x/a-b` and `/x/a/b` read alike but hash apart. FNV-1a is defined to the bit, so the key
/// stays the same across builds.
pub fn project_key(project_root: &Path) -> String {
    let readable = legacy_project_key(project_root);
    let skip = readable.chars().count().saturating_sub(READABLE_KEY_CHARS);
    let tail: String = readable.chars().skip(skip).collect();
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(project_root.as_os_str().as_encoded_bytes());
    format!("{tail}-{:016x}", hasher.finish())
}

/// The directory name wrights before issue 12 used: the absolute path with every character
/// that is not a letter, digit, `.` or `_` turned into `-`. Two projects could share it; their
/// sessions are moved apart by [`SessionStore::new`].
pub fn legacy_project_key(project_root: &Path) -> String {
    project_root
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The sessions of one project.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
    project_root: PathBuf,
    environment: Option<String>,
    agents: Option<String>,
    memory: Option<String>,
}

/// A session read from disk.
#[derive(Debug, Clone)]
pub struct LoadedSession {
    /// Its identity.
    pub meta: SessionMeta,
    /// Its file.
    pub path: PathBuf,
    /// Every record after the meta line, in file order.
    pub records: Vec<Record>,
    /// Lines that could not be read (e.g. a line torn by a crash), described for the user.
    pub warnings: Vec<String>,
}

impl SessionStore {
    /// The store for `project_root` under the state directory `home`. Touches no files, except
    /// once: the project's sessions in a directory of the [`legacy_project_key`] are moved into
    /// its own (those of another project that shared the directory stay where they are).
    pub fn new(home: &Path, project_root: &Path) -> Self {
        let sessions = home.join("sessions");
        let store = Self {
            dir: sessions.join(project_key(project_root)),
            project_root: project_root.to_path_buf(),
            environment: None,
            agents: None,
            memory: None,
        };
        let legacy = sessions.join(legacy_project_key(project_root));
        if legacy.is_dir() && !store.dir.exists() {
            store.adopt_legacy_sessions(&legacy);
        }
        store
    }

    /// Moves this project's session files out of `legacy`, the directory it may have shared
    /// with another project. Best effort: a file that cannot be read or moved stays.
    fn adopt_legacy_sessions(&self, legacy: &Path) {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let Ok(paths) = session_paths(legacy) else {
            return;
        };
        let root = self.project_root.display().to_string();
        for path in paths {
            let ours = read_meta(&path).is_ok_and(|meta| meta.project_root == root);
            if let (true, Some(name)) = (ours, path.file_name()) {
                let _ = std::fs::rename(&path, self.dir.join(name));
            }
        }
    }

    /// Sessions created from now on record `environment` in their meta line (the block that
    /// ends their system prompt; it is fixed when a session starts).
    pub fn with_environment(mut self, environment: String) -> Self {
        self.environment = Some(environment);
        self
    }

    /// Sessions created from now on record `agents`, the list of agents their Task tool
    /// describes (fixed when a session starts, like the environment block).
    pub fn with_agents(mut self, agents: String) -> Self {
        self.agents = Some(agents);
        self
    }

    /// Sessions created from now on record `index`, the index of memory their system prompt
    /// ends with (fixed when a session starts, like the environment block).
    pub fn with_memory_index(mut self, index: String) -> Self {
        self.memory = Some(index);
        self
    }

    /// The directory holding this project's session files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates a new session file (and the directories above it) and writes its meta line.
    /// A name must be free: a session of that name is [`StoreError::NameTaken`], and a
    /// damaged session file (which may be that session) is [`StoreError::Damaged`].
    pub fn create(&self, name: Option<&str>) -> Result<(SessionMeta, SessionFile), StoreError> {
        let Some(name) = name else {
            return self.create_file(None);
        };
        match self.open_named(name)? {
            NamedSession::Created(meta, file) => Ok((meta, file)),
            NamedSession::Stored(existing) => Err(StoreError::NameTaken {
                name: name.to_string(),
                id: existing.meta.id,
            }),
        }
    }

    /// The newest session called `name`, or a new one of that name when there is none.
    /// Looking and creating happen under one lock, so processes that open the same new name
    /// at once create it once: one creates it, the others find it.
    ///
    /// A session file whose meta line cannot be read might be the session `name`, so while
    /// the project has one, a new name is refused ([`StoreError::Damaged`]) rather than
    /// risking a second session of that name.
    pub fn open_named(&self, name: &str) -> Result<NamedSession, StoreError> {
        check_name(name)?;
        let _names = self.lock_names()?;
        if let Some(stored) = self.find_named(name)? {
            return Ok(NamedSession::Stored(stored));
        }
        let damaged = damaged_in(&self.dir)?;
        if !damaged.is_empty() {
            return Err(StoreError::Damaged {
                name: name.to_string(),
                dir: self.dir.clone(),
                damaged,
            });
        }
        let (meta, file) = self.create_file(Some(name))?;
        Ok(NamedSession::Created(meta, file))
    }

    /// Waits for, then holds, the lock that serialises creating named sessions in this
    /// project; released when the returned file is dropped. The lock file is hidden in the
    /// project's directory, and listing skips it as it skips partial files.
    pub(crate) fn lock_names(&self) -> Result<File, StoreError> {
        let (file, path) = open_names_lock(&self.dir)?;
        // Held only while the directory is read and a meta line written, so waiting is short.
        file.lock().map_err(io_error("cannot lock", &path))?;
        Ok(file)
    }

    /// Creates a session file without looking at the names already taken.
    fn create_file(&self, name: Option<&str>) -> Result<(SessionMeta, SessionFile), StoreError> {
        let meta = self.new_meta(name);
        create_in(&self.dir, meta)
    }

    /// The meta line of a session created now.
    fn new_meta(&self, name: Option<&str>) -> SessionMeta {
        SessionMeta {
            id: uuid::Uuid::now_v7().to_string(),
            name: name.map(str::to_string),
            project_root: self.project_root.display().to_string(),
            created_at: Utc::now(),
            environment: self.environment.clone(),
            agents: self.agents.clone(),
            memory: self.memory.clone(),
            parent: None,
            agent: None,
            task: None,
        }
    }

    /// The directory of the sessions of the sub-agents the session `parent` ran (issue 14):
    /// apart from the project's own sessions, so listing, `--continue` and names never see
    /// them.
    /// `None` for an id that is not one (an id read from a damaged or edited file could be
    /// empty or climb out with `..`).
    pub fn tasks_dir(&self, parent: &str) -> Option<PathBuf> {
        is_session_id(parent).then(|| self.dir.join(TASKS_DIR).join(parent))
    }

    /// Creates the session of a sub-agent that a Task call of the session `parent` runs as
    /// `agent` for `task` (its short description).
    pub fn create_child(
        &self,
        parent: &str,
        agent: &str,
        task: &str,
    ) -> Result<(SessionMeta, SessionFile), StoreError> {
        let meta = SessionMeta {
            parent: Some(parent.to_string()),
            agent: Some(agent.to_string()),
            task: Some(task.to_string()),
            ..self.new_meta(None)
        };
        let dir = self.tasks_dir(parent).ok_or_else(|| StoreError::BadName {
            name: parent.to_string(),
        })?;
        create_in(&dir, meta)
    }

    /// Every sub-agent's session file of the project, oldest first within each parent.
    pub(crate) fn child_paths(&self) -> Result<Vec<PathBuf>, StoreError> {
        let tasks = self.dir.join(TASKS_DIR);
        let entries = match std::fs::read_dir(&tasks) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error("cannot read", &tasks)(e)),
        };
        let mut parents: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
            .map(|entry| entry.path())
            .collect();
        parents.sort();
        let mut paths = Vec::new();
        for parent in parents {
            paths.extend(session_paths(&parent)?);
        }
        Ok(paths)
    }
}

/// Creates the session file of `meta` in `dir` (and the directories above it) and writes its
/// meta line.
fn create_in(dir: &Path, meta: SessionMeta) -> Result<(SessionMeta, SessionFile), StoreError> {
    {
        std::fs::create_dir_all(dir).map_err(io_error("cannot create", dir))?;
        // The file is written under a name listing ignores and renamed into place once its
        // meta line is complete, so a crash here never leaves a session that cannot be loaded.
        let path = dir.join(format!("{}.{SESSION_EXTENSION}", meta.id));
        let partial = dir.join(format!(".{}.{PARTIAL_EXTENSION}", meta.id));
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .read(true)
            .open(&partial)
            .map_err(io_error("cannot create", &partial))?;
        let mut session = SessionFile::locked(file, partial.clone())?;
        session.append(&Record::Meta(meta.clone()))?;
        std::fs::rename(&partial, &path).map_err(io_error("cannot create", &path))?;
        session.path = path;
        Ok((meta, session))
    }
}

impl SessionStore {
    /// Every session of the project, oldest first. Files that are not sessions are skipped
    /// ([`damaged`](Self::damaged) lists them).
    pub fn list(&self) -> Result<Vec<LoadedSession>, StoreError> {
        Ok(session_paths(&self.dir)?
            .iter()
            .filter_map(|path| load(path).ok())
            .collect())
    }

    /// The newest session called `name`, if there is one.
    pub fn find_named(&self, name: &str) -> Result<Option<LoadedSession>, StoreError> {
        check_name(name)?;
        for path in session_paths(&self.dir)?.iter().rev() {
            let named = read_meta(path).is_ok_and(|meta| meta.name.as_deref() == Some(name));
            if named {
                return load(path).map(Some);
            }
        }
        Ok(None)
    }

    /// Opens a loaded session for appending; fails if another process holds it
    /// ([`StoreError::Locked`]), or if its file was removed or replaced since it was loaded
    /// ([`StoreError::Replaced`]).
    pub fn open_for_append(&self, session: &LoadedSession) -> Result<SessionFile, StoreError> {
        let path = &session.path;
        let file = OpenOptions::new()
            .append(true)
            .read(true)
            .open(path)
            .map_err(io_error("cannot open", path))?;
        let session_file = SessionFile::locked(file, path.clone())?;
        session_file.ready_for_append()
    }
}

/// Opens (creating it if need be) the lock file that serialises creating named sessions in
/// the session directory `dir`.
fn open_names_lock(dir: &Path) -> Result<(File, PathBuf), StoreError> {
    std::fs::create_dir_all(dir).map_err(io_error("cannot create", dir))?;
    let path = dir.join(NAMES_LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io_error("cannot create", &path))?;
    Ok((file, path))
}

/// The lock of [`SessionStore::lock_names`] for the session directory `dir`, if it can be
/// had at once; `None` while another process is creating a named session there.
pub(crate) fn try_lock_names(dir: &Path) -> Option<File> {
    let (file, _) = open_names_lock(dir).ok()?;
    file.try_lock().ok()?;
    Some(file)
}

/// The session files in `dir`, oldest first (ids are UUID v7, so names sort by creation time);
/// none when the directory does not exist.
pub(crate) fn session_paths(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("cannot read", dir)(e)),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == SESSION_EXTENSION))
        .collect();
    paths.sort();
    Ok(paths)
}

/// The session files in `dir` whose meta line cannot be read, oldest first.
pub(crate) fn damaged_in(dir: &Path) -> Result<Vec<DamagedSession>, StoreError> {
    Ok(session_paths(dir)?
        .into_iter()
        .filter_map(|path| {
            let problem = match read_meta(&path) {
                Ok(_) => return None,
                Err(StoreError::Invalid { problem, .. }) => problem,
                Err(StoreError::Io { source, .. }) => source.to_string(),
                Err(other) => other.to_string(),
            };
            Some(DamagedSession { path, problem })
        })
        .collect())
}

/// Whether `id` looks like a session id (a UUID: hex digits and dashes), and so can name a
/// directory.
pub(crate) fn is_session_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

pub(crate) fn check_name(name: &str) -> Result<(), StoreError> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if valid {
        Ok(())
    } else {
        Err(StoreError::BadName {
            name: name.to_string(),
        })
    }
}

/// Reads a session file. Lines that do not parse are skipped and reported in `warnings`; only
/// a file without a readable meta line is an error.
pub fn load(path: &Path) -> Result<LoadedSession, StoreError> {
    let file = File::open(path).map_err(io_error("cannot open", path))?;
    read_session(path, &file)
}

/// Reads the session file `path` from `file`, an open handle on it, from its start. Lines
/// longer than [`MAX_RECORD_BYTES`] are skipped with a warning, never held whole.
pub(crate) fn read_session(path: &Path, file: &File) -> Result<LoadedSession, StoreError> {
    let mut lines = BoundedLines::new(BufReader::new(file), MAX_RECORD_BYTES).enumerate();
    let first = lines.next().map(|(_, line)| {
        line.and_then(|line| match line {
            Line::Text(text) => Ok(text),
            Line::Unreadable(reason) => Err(io::Error::new(io::ErrorKind::InvalidData, reason)),
        })
    });
    let meta = parse_meta(path, first)?;
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for (index, line) in lines {
        let line = match line {
            Ok(Line::Text(line)) => line,
            Ok(Line::Unreadable(reason)) => {
                warnings.push(format!(
                    "{}: line {} is {reason}; skipped",
                    path.display(),
                    index + 1
                ));
                continue;
            }
            Err(e) => {
                warnings.push(format!(
                    "{}: line {}: {e}; skipped",
                    path.display(),
                    index + 1
                ));
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(&line) {
            Ok(record) => records.push(record),
            Err(e) => warnings.push(format!(
                "{}: line {} could not be read ({e}); skipped (a crash mid-write leaves such a line)",
                path.display(),
                index + 1
            )),
        }
    }
    Ok(LoadedSession {
        meta,
        path: path.to_path_buf(),
        records,
        warnings,
    })
}

/// Reads only the meta line of a session file.
pub(crate) fn read_meta(path: &Path) -> Result<SessionMeta, StoreError> {
    let file = File::open(path).map_err(io_error("cannot open", path))?;
    parse_meta(path, BufReader::new(file).lines().next())
}

/// The meta record from a file's first line (`None`: the file is empty).
fn parse_meta(path: &Path, first: Option<io::Result<String>>) -> Result<SessionMeta, StoreError> {
    let invalid = |problem: String| StoreError::Invalid {
        path: path.to_path_buf(),
        problem,
    };
    match first {
        Some(Ok(line)) => match serde_json::from_str::<Record>(&line) {
            Ok(Record::Meta(meta)) => Ok(meta),
            Ok(_) => Err(invalid(
                "the first line is not the session's meta record".into(),
            )),
            Err(e) => Err(invalid(format!("line 1: {e}"))),
        },
        Some(Err(e)) => Err(io_error("cannot read", path)(e)),
        None => Err(invalid("the file is empty".into())),
    }
}

/// A session file open for appending, locked against other wright processes.
#[derive(Debug)]
pub struct SessionFile {
    file: File,
    path: PathBuf,
    /// Records that could not be written.
    unsaved: usize,
}

impl SessionFile {
    /// Locks `file`, the session file at `path`; fails at once if another process holds it.
    pub(crate) fn locked(file: File, path: PathBuf) -> Result<Self, StoreError> {
        match file.try_lock() {
            Ok(()) => Ok(Self::holding_lock(file, path)),
            Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Locked { path }),
            Err(std::fs::TryLockError::Error(e)) => Err(io_error("cannot lock", &path)(e)),
        }
    }

    /// `file`, the session file at `path`, whose lock this process already holds.
    pub(crate) fn holding_lock(file: File, path: PathBuf) -> Self {
        Self {
            file,
            path,
            unsaved: 0,
        }
    }

    /// The open file itself.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Checks that the locked file is still the one at its path (the lock guards the file,
    /// not the name: the file may have been removed or replaced before it was locked), then
    /// ends a torn last line so that appending can start.
    pub(crate) fn ready_for_append(mut self) -> Result<Self, StoreError> {
        self.check_still_named()?;
        self.end_torn_line()?;
        Ok(self)
    }

    /// [`StoreError::Replaced`] unless the file's path still names the open file.
    pub(crate) fn check_still_named(&self) -> Result<(), StoreError> {
        if crate::wait::names_open_file(&self.path, &self.file)? {
            Ok(())
        } else {
            Err(StoreError::Replaced {
                path: self.path.clone(),
            })
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// If the file ends in the middle of a line (a crash mid-write), ends that line so the next
    /// record starts on a line of its own.
    fn end_torn_line(&mut self) -> Result<(), StoreError> {
        let len = self
            .file
            .metadata()
            .map_err(io_error("cannot read", &self.path))?
            .len();
        if len == 0 {
            return Ok(());
        }
        let mut last = [0u8; 1];
        self.file
            .seek(SeekFrom::End(-1))
            .and_then(|_| self.file.read_exact(&mut last))
            .map_err(io_error("cannot read", &self.path))?;
        if last[0] != b'\n' {
            self.file
                .write_all(b"\n")
                .map_err(io_error("cannot write to", &self.path))?;
        }
        Ok(())
    }

    /// How many records [`append`](Self::append) could not write: the session on disk
    /// lacks them.
    pub fn unsaved_records(&self) -> usize {
        self.unsaved
    }

    /// Appends one record as a line and flushes it to the operating system.
    pub fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        let written = self.write_line(record);
        if written.is_err() {
            self.unsaved += 1;
        }
        written
    }

    fn write_line(&mut self, record: &Record) -> Result<(), StoreError> {
        if self.unsaved > 0 {
            // A failed write may have left part of a line; the next record starts its own.
            self.end_torn_line()?;
        }
        let mut line = serde_json::to_vec(record).map_err(|e| StoreError::Invalid {
            path: self.path.clone(),
            problem: format!("a record could not be encoded: {e}"),
        })?;
        if line.len() > MAX_RECORD_BYTES {
            return Err(StoreError::RecordTooLarge {
                path: self.path.clone(),
                bytes: line.len(),
            });
        }
        line.push(b'\n');
        // One write call per record, so a crash tears at most this line.
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(io_error("cannot write to", &self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wright_protocol::Message;

    fn message(text: &str) -> Record {
        Record::Message {
            at: Utc::now(),
            message: Message::user(text),
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn records_that_cannot_be_written_are_counted() {
        // Every write to /dev/full fails with "no space left on device".
        let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let mut file = SessionFile::locked(full, PathBuf::from("/dev/full")).unwrap();
        assert_eq!(file.unsaved_records(), 0);
        let error = file.append(&message("lost")).unwrap_err();
        assert!(
            error.to_string().starts_with("cannot write to /dev/full: "),
            "{error}"
        );
        assert!(file.append(&message("lost too")).is_err());
        assert_eq!(file.unsaved_records(), 2);
    }

    #[test]
    fn a_record_too_large_for_a_line_is_refused_and_the_session_stays_loadable() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/project"));
        let (meta, mut file) = store.create(None).unwrap();
        let huge = message(&"x".repeat(MAX_RECORD_BYTES));
        let error = file.append(&huge).unwrap_err();
        assert!(
            matches!(error, StoreError::RecordTooLarge { bytes, .. } if bytes > MAX_RECORD_BYTES),
            "{error}"
        );
        assert_eq!(file.unsaved_records(), 1);
        file.append(&message("after")).unwrap();
        let loaded = load(file.path()).unwrap();
        assert_eq!(loaded.meta, meta);
        assert_eq!(loaded.records.len(), 1);
        assert_eq!(loaded.warnings, Vec::<String>::new());
    }

    #[test]
    fn a_line_too_long_to_be_a_record_is_skipped_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path(), Path::new("/project"));
        let (_, mut file) = store.create(None).unwrap();
        file.append(&message("before")).unwrap();
        let path = file.path().to_path_buf();
        drop(file);
        let mut raw = OpenOptions::new().append(true).open(&path).unwrap();
        raw.write_all(&vec![b'x'; MAX_RECORD_BYTES + 1]).unwrap();
        raw.write_all(b"\n").unwrap();
        let after = serde_json::to_string(&message("after")).unwrap();
        raw.write_all(format!("{after}\n").as_bytes()).unwrap();
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.records.len(), 2);
        assert_eq!(
            loaded.warnings,
            vec![format!(
                "{}: line 3 is longer than {MAX_RECORD_BYTES} bytes; skipped",
                path.display()
            )]
        );
    }

    #[test]
    fn after_a_failed_write_the_next_record_starts_its_own_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"type\":\"me").unwrap();
        let handle = OpenOptions::new()
            .append(true)
            .read(true)
            .open(&path)
            .unwrap();
        let mut file = SessionFile::locked(handle, path.clone()).unwrap();
        // As if the write that left the torn line above had failed.
        file.unsaved = 1;
        file.append(&message("next")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(
            serde_json::from_str::<Record>(lines[1]).ok().map(|_| ()),
            Some(())
        );
    }
}
