//! Finding, creating, loading and appending to session files.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::Utc;

use crate::record::{Record, SessionMeta};

/// Longest session name accepted.
const MAX_NAME_LEN: usize = 64;
/// The extension of session files (DESIGN §7: `<session-id>.jsonl`).
pub(crate) const SESSION_EXTENSION: &str = "jsonl";
/// The extension of a session file being created, before its meta line is complete.
const PARTIAL_EXTENSION: &str = "jsonl.partial";

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
    /// A session name that cannot be used.
    #[error(
        "invalid session name {name:?}: use 1 to {MAX_NAME_LEN} letters, digits, '.', '_' or '-'"
    )]
    BadName {
        /// The name given.
        name: String,
    },
}

fn io_error<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> StoreError + 'a {
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

/// The directory name for a project's sessions: its absolute path with every character that is
/// not a letter, digit, `.` or `_` turned into `-` (readable, like Claude Code's project keys).
pub fn project_key(project_root: &Path) -> String {
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
    /// The store for `project_root` under the state directory `home`. Touches no files.
    pub fn new(home: &Path, project_root: &Path) -> Self {
        Self {
            dir: home.join("sessions").join(project_key(project_root)),
            project_root: project_root.to_path_buf(),
        }
    }

    /// The directory holding this project's session files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates a new session file (and the directories above it) and writes its meta line.
    pub fn create(&self, name: Option<&str>) -> Result<(SessionMeta, SessionFile), StoreError> {
        if let Some(name) = name {
            check_name(name)?;
        }
        std::fs::create_dir_all(&self.dir).map_err(io_error("cannot create", &self.dir))?;
        let meta = SessionMeta {
            id: uuid::Uuid::now_v7().to_string(),
            name: name.map(str::to_string),
            project_root: self.project_root.display().to_string(),
            created_at: Utc::now(),
        };
        // The file is written under a name listing ignores and renamed into place once its
        // meta line is complete, so a crash here never leaves a session that cannot be loaded.
        let path = self.dir.join(format!("{}.{SESSION_EXTENSION}", meta.id));
        let partial = self.dir.join(format!(".{}.{PARTIAL_EXTENSION}", meta.id));
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

    /// Every session of the project, oldest first. Files that are not sessions are skipped.
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

    /// Opens a loaded session for appending; fails if another process holds it.
    pub fn open_for_append(&self, session: &LoadedSession) -> Result<SessionFile, StoreError> {
        let path = &session.path;
        let file = OpenOptions::new()
            .append(true)
            .read(true)
            .open(path)
            .map_err(io_error("cannot open", path))?;
        let mut session_file = SessionFile::locked(file, path.clone())?;
        session_file.end_torn_line()?;
        Ok(session_file)
    }
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
    let mut lines = BufReader::new(file).lines().enumerate();
    let meta = parse_meta(path, lines.next().map(|(_, line)| line))?;
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for (index, line) in lines {
        let line = match line {
            Ok(line) => line,
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
}

impl SessionFile {
    pub(crate) fn locked(file: File, path: PathBuf) -> Result<Self, StoreError> {
        match file.try_lock() {
            Ok(()) => Ok(Self { file, path }),
            Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Locked { path }),
            Err(std::fs::TryLockError::Error(e)) => Err(io_error("cannot lock", &path)(e)),
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

    /// Appends one record as a line and flushes it to the operating system.
    pub fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        let mut line = serde_json::to_vec(record).map_err(|e| StoreError::Invalid {
            path: self.path.clone(),
            problem: format!("a record could not be encoded: {e}"),
        })?;
        line.push(b'\n');
        // One write call per record, so a crash tears at most this line.
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(io_error("cannot write to", &self.path))
    }
}
