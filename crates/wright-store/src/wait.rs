//! Locking session files that other wright processes use: opening a named session for
//! appending when another process may be writing it (waiting, to a bound, for it to let go
//! of the file, then reading the session under the lock so that what the other wrote is part
//! of it), and checking that a locked file is still the one at its path.

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::record::SessionMeta;
use crate::store::{
    LoadedSession, NamedSession, SessionFile, SessionStore, StoreError, io_error, read_session,
};

/// How often a session file another process holds is tried again while waiting for it.
const RETRY_EVERY: Duration = Duration::from_millis(100);
/// How many times a name is looked up when the file found for it keeps being removed or
/// replaced before it can be locked (a listing removing an orphan, `wright sessions rm`).
const LOOKUPS: usize = 3;

/// A named session whose file another wright process holds, reported once when
/// [`SessionStore::open_named_for_append`] starts waiting for it. Its `Display` is the line
/// to show the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusySession {
    /// The session's name.
    pub name: String,
    /// The session's id.
    pub id: String,
    /// Its file.
    pub path: PathBuf,
    /// How long the wait lasts at most.
    pub limit: Duration,
}

impl fmt::Display for BusySession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "session {:?} ({}) is in use by another wright process; waiting up to {} for it to finish",
            self.name,
            self.id,
            describe_duration(self.limit)
        )
    }
}

/// `10 minutes`, `30 seconds`, `250 ms`.
fn describe_duration(duration: Duration) -> String {
    let secs = duration.as_secs();
    let plural = |n: u64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    if secs >= 60 && secs.is_multiple_of(60) {
        plural(secs / 60, "minute")
    } else if secs > 0 {
        plural(secs, "second")
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// A named session open for appending, from [`SessionStore::open_named_for_append`].
#[derive(Debug)]
pub enum NamedSessionFile {
    /// It was stored: its records, read once its file was locked, and the locked file.
    Stored(LoadedSession, SessionFile),
    /// It did not exist and was created, its meta line written and its file locked.
    Created(SessionMeta, SessionFile),
}

impl SessionStore {
    /// The newest session called `name`, locked for appending, or a new one of that name
    /// (see [`open_named`](Self::open_named), whose lock is not held while waiting here).
    ///
    /// While another wright process holds the session's file (it is running a round in
    /// it), this waits for it to finish, for at most `limit`: `on_busy` is told once when
    /// the wait starts, and past `limit` the session is [`StoreError::Locked`]. The records
    /// are read after the file is locked, so they hold everything the other process wrote.
    /// A file removed or replaced before it could be locked is looked up again.
    pub fn open_named_for_append(
        &self,
        name: &str,
        limit: Duration,
        on_busy: &mut dyn FnMut(&BusySession),
    ) -> Result<NamedSessionFile, StoreError> {
        // `None`: a limit too far away to be an `Instant`, so no limit.
        let deadline = Instant::now().checked_add(limit);
        let mut told = false;
        let mut replaced = None;
        for _ in 0..LOOKUPS {
            let found = match self.open_named(name)? {
                NamedSession::Created(meta, file) => {
                    return Ok(NamedSessionFile::Created(meta, file));
                }
                NamedSession::Stored(found) => found,
            };
            let mut busy = || {
                if !told {
                    told = true;
                    on_busy(&BusySession {
                        name: name.to_string(),
                        id: found.meta.id.clone(),
                        path: found.path.clone(),
                        limit,
                    });
                }
            };
            match lock_stored(&found.path, deadline, &mut busy) {
                Ok((loaded, file)) => return Ok(NamedSessionFile::Stored(loaded, file)),
                Err(StoreError::Replaced { path }) => replaced = Some(path),
                Err(other) => return Err(other),
            }
        }
        Err(StoreError::Replaced {
            path: replaced.unwrap_or_else(|| self.dir().to_path_buf()),
        })
    }
}

/// Opens the session file at `path` and locks it (see [`lock_opened`]); a file gone from
/// `path` is [`StoreError::Replaced`].
fn lock_stored(
    path: &Path,
    deadline: Option<Instant>,
    on_busy: &mut dyn FnMut(),
) -> Result<(LoadedSession, SessionFile), StoreError> {
    let file = match OpenOptions::new().append(true).read(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(StoreError::Replaced {
                path: path.to_path_buf(),
            });
        }
        Err(e) => return Err(io_error("cannot open", path)(e)),
    };
    lock_opened(file, path, deadline, on_busy)
}

/// Locks `file`, opened from `path`, waiting until `deadline` while another process holds
/// it; then, if `path` still names that file ([`StoreError::Replaced`] if not), reads the
/// session from it and readies it for appending.
fn lock_opened(
    file: File,
    path: &Path,
    deadline: Option<Instant>,
    on_busy: &mut dyn FnMut(),
) -> Result<(LoadedSession, SessionFile), StoreError> {
    wait_for_lock(&file, path, deadline, on_busy)?;
    let session = SessionFile::holding_lock(file, path.to_path_buf());
    // Checked before reading, so that a replaced file is never read as this session.
    session.check_still_named()?;
    let loaded = read_session(path, session.file())?;
    Ok((loaded, session.ready_for_append()?))
}

/// Takes the lock of `file` (the session file at `path`), trying again every
/// [`RETRY_EVERY`] while another process holds it, until `deadline`
/// ([`StoreError::Locked`] past it). `on_busy` is called once, when waiting starts.
fn wait_for_lock(
    file: &File,
    path: &Path,
    deadline: Option<Instant>,
    on_busy: &mut dyn FnMut(),
) -> Result<(), StoreError> {
    let mut waiting = false;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(io_error("cannot lock", path)(e)),
        }
        let now = Instant::now();
        let left = match deadline {
            Some(deadline) if now >= deadline => {
                return Err(StoreError::Locked {
                    path: path.to_path_buf(),
                });
            }
            Some(deadline) => deadline - now,
            None => RETRY_EVERY,
        };
        if !waiting {
            waiting = true;
            on_busy();
        }
        // std offers no lock with a timeout; a blocking lock could not be given up on.
        std::thread::sleep(RETRY_EVERY.min(left));
    }
}

/// Whether `path` names `file` (the same device and inode), rather than nothing or another file.
pub(crate) fn names_open_file(path: &Path, file: &File) -> Result<bool, StoreError> {
    let open = file.metadata().map_err(io_error("cannot read", path))?;
    let named = match std::fs::metadata(path) {
        Ok(named) => named,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io_error("cannot read", path)(e)),
    };
    Ok(same_file(&open, &named))
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    // No cheap file identity here; trust the name.
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;
    use chrono::Utc;
    use pretty_assertions::assert_eq;
    use std::path::Path;
    use wright_protocol::Message;

    fn store(home: &tempfile::TempDir) -> SessionStore {
        SessionStore::new(home.path(), Path::new("/work/app"))
    }

    fn open(path: &Path) -> File {
        OpenOptions::new()
            .append(true)
            .read(true)
            .open(path)
            .unwrap()
    }

    #[test]
    fn a_file_replaced_between_open_and_lock_is_not_used() {
        let home = tempfile::tempdir().unwrap();
        let (_, file) = store(&home).create(Some("work")).unwrap();
        let path = file.path().to_path_buf();
        drop(file);
        let opened = open(&path);
        // Another process removes the file and puts another in its place.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "{}\n").unwrap();
        let result = lock_opened(opened, &path, None, &mut || {});
        assert!(
            matches!(&result, Err(StoreError::Replaced { path: p }) if *p == path),
            "{result:?}"
        );
    }

    #[test]
    fn a_file_removed_between_open_and_lock_is_not_used() {
        let home = tempfile::tempdir().unwrap();
        let (_, file) = store(&home).create(Some("work")).unwrap();
        let path = file.path().to_path_buf();
        drop(file);
        let opened = open(&path);
        std::fs::remove_file(&path).unwrap();
        let result = lock_opened(opened, &path, None, &mut || {});
        assert!(
            matches!(result, Err(StoreError::Replaced { .. })),
            "{result:?}"
        );
    }

    #[test]
    fn a_file_still_in_place_is_read_under_the_lock() {
        let home = tempfile::tempdir().unwrap();
        let (meta, mut file) = store(&home).create(Some("work")).unwrap();
        let record = Record::Message {
            at: Utc::now(),
            message: Message::user("hi"),
        };
        file.append(&record).unwrap();
        let path = file.path().to_path_buf();
        drop(file);
        let (loaded, _file) = lock_opened(open(&path), &path, None, &mut || {}).unwrap();
        assert_eq!((loaded.meta, loaded.records), (meta, vec![record]));
    }

    /// What [`SessionStore::open_for_append`] does, with the file replaced between its
    /// opening and its locking, as a remover racing it would.
    #[test]
    fn a_file_replaced_before_it_is_locked_is_not_appended_to() {
        let home = tempfile::tempdir().unwrap();
        let store = SessionStore::new(home.path(), Path::new("/work/app"));
        let (_, file) = store.create(Some("work")).unwrap();
        let path = file.path().to_path_buf();
        drop(file);
        let opened = OpenOptions::new()
            .append(true)
            .read(true)
            .open(&path)
            .unwrap();
        let text = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, &text).unwrap();
        let result =
            SessionFile::locked(opened, path.clone()).and_then(SessionFile::ready_for_append);
        assert!(
            matches!(&result, Err(StoreError::Replaced { path: p }) if *p == path),
            "{result:?}"
        );
        // Opened afresh, it is the file at the path.
        let loaded = crate::store::load(&path).unwrap();
        store.open_for_append(&loaded).unwrap();
    }

    #[test]
    fn the_wait_is_described_in_whole_units() {
        let busy = |limit| BusySession {
            name: "race".into(),
            id: "0190".into(),
            path: PathBuf::from("/s/0190.jsonl"),
            limit,
        };
        assert_eq!(
            busy(Duration::from_secs(600)).to_string(),
            "session \"race\" (0190) is in use by another wright process; waiting up to 10 minutes for it to finish"
        );
        assert!(
            busy(Duration::from_secs(1))
                .to_string()
                .contains("up to 1 second for"),
        );
        assert!(
            busy(Duration::from_millis(50))
                .to_string()
                .contains("up to 50 ms for"),
        );
    }
}
