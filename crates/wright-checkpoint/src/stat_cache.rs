//! The manifest walk's record of every captured file's status (size, times, inode, mode),
//! kept from one snapshot to the next so that the walk is the only pass over the project: a
//! snapshot compares the new walk with the last one and hands git only the paths that differ,
//! and none at all (no git command) when nothing does.
//!
//! A status that compares equal must mean equal content. Four facts make that hold:
//! - everything `lstat` gives that a write, a replacement or a `chmod` changes is compared:
//!   size, modification and change times to the nanosecond, inode, device and the whole mode
//!   (file type included). The change time cannot be set by a program, so a file rewritten with
//!   its old size and modification time (`cp -p`, `touch -d`) still differs, and a file deleted
//!   and made again has a new inode;
//! - racy files ([`RACY_WINDOW`]): a file whose times were within the window before the walk
//!   could be written again within the same timestamp tick and keep its status exactly, so it
//!   is handed to git again at the next snapshot, whatever its status then (git compares its
//!   content, which is what git does with its own racy index entries);
//! - the record belongs to one snapshot (its commit): a store whose last snapshot is another
//!   (taken by another process, or none after a prune) ignores it;
//! - the record is forgotten before the shadow index is touched and kept again only after the
//!   snapshot is committed, so a failure or a crash in between leaves no record to trust.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::Metadata;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A file whose modification or change time is less than this before the walk that recorded
/// it is handed to git again at the next snapshot. Timestamps come in ticks: a few
/// milliseconds on ext4 or tmpfs (the kernel's coarse clock), a second on ext3, HFS+ and some
/// network file systems, two seconds on FAT; a file written again within the tick it was
/// walked in keeps its status exactly. Two seconds covers every one of them, and the cost is
/// only that a file written in the last two seconds before a snapshot is read by git once more.
pub(crate) const RACY_WINDOW: Duration = Duration::from_secs(2);

/// The first line of a stored record, naming its format.
const HEADER: &[u8] = b"wright-stat-cache 1\n";

/// What a captured path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatKind {
    /// A regular file or a symbolic link (the mode tells which).
    Entry,
    /// A nested repository, stored by git as a link to its checked-out commit: the walk cannot
    /// see a new commit in it, so it is always handed to git.
    Repository,
}

/// A point in time, in nanoseconds since the Unix epoch.
pub(crate) type Nanos = i64;

/// What the walk saw of one captured path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStat {
    pub(crate) kind: StatKind,
    /// The whole `st_mode`: file type and permission bits.
    pub(crate) mode: u32,
    pub(crate) size: u64,
    pub(crate) mtime: Nanos,
    pub(crate) ctime: Nanos,
    pub(crate) ino: u64,
    pub(crate) dev: u64,
}

impl FileStat {
    /// The status of a file or link from its `lstat`.
    pub(crate) fn of(metadata: &Metadata) -> FileStat {
        FileStat {
            kind: StatKind::Entry,
            mode: metadata.mode(),
            size: metadata.size(),
            mtime: nanos(metadata.mtime(), metadata.mtime_nsec()),
            ctime: nanos(metadata.ctime(), metadata.ctime_nsec()),
            ino: metadata.ino(),
            dev: metadata.dev(),
        }
    }

    /// A nested repository (its status is never compared).
    pub(crate) fn repository() -> FileStat {
        FileStat {
            kind: StatKind::Repository,
            mode: 0,
            size: 0,
            mtime: 0,
            ctime: 0,
            ino: 0,
            dev: 0,
        }
    }

    /// Whether a write after `walked_at` could have left this status as it is (see
    /// [`RACY_WINDOW`]).
    fn racy(&self, walked_at: Nanos) -> bool {
        let window = RACY_WINDOW.as_nanos() as Nanos;
        self.mtime.max(self.ctime) >= walked_at.saturating_sub(window)
    }
}

/// Every captured path of a walk (relative to the project) with its status.
pub(crate) type Stats = HashMap<PathBuf, FileStat>;

/// The current time, as file times are given.
pub(crate) fn now() -> Nanos {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Nanos::try_from(since.as_nanos()).unwrap_or(Nanos::MAX)
}

fn nanos(secs: i64, nsec: i64) -> Nanos {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// The walk of the last snapshot: the snapshot's commit, when the walk started, and what it saw.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct StatCache {
    pub(crate) commit: String,
    pub(crate) walked_at: Nanos,
    pub(crate) stats: Stats,
}

/// Short: a store's debug output should not list ten thousand files.
impl std::fmt::Debug for StatCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatCache")
            .field("commit", &self.commit)
            .field("walked_at", &self.walked_at)
            .field("files", &self.stats.len())
            .finish()
    }
}

/// The paths git must look at again: those to take out of the index whatever is on disk now
/// (gone, ignored, over the size cap, inside a nested repository), and those to add or update.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Changed {
    pub(crate) removed: Vec<PathBuf>,
    pub(crate) updated: Vec<PathBuf>,
}

impl Changed {
    pub(crate) fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.updated.is_empty()
    }
}

impl StatCache {
    /// What differs from this walk to `now`: paths gone from it, and paths new, different,
    /// racy in this walk, or nested repositories. Both lists in path order.
    pub(crate) fn changes(&self, now: &Stats) -> Changed {
        let mut changed = Changed::default();
        for (path, stat) in now {
            let same = match self.stats.get(path) {
                Some(old) => {
                    old == stat && stat.kind == StatKind::Entry && !old.racy(self.walked_at)
                }
                None => false,
            };
            if !same {
                changed.updated.push(path.clone());
            }
        }
        for path in self.stats.keys() {
            if !now.contains_key(path) {
                changed.removed.push(path.clone());
            }
        }
        changed.removed.sort_unstable();
        changed.updated.sort_unstable();
        changed
    }

    /// The record as stored: a header line, then little-endian fields.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER.len() + 64 + self.stats.len() * 96);
        out.extend_from_slice(HEADER);
        put_bytes(&mut out, self.commit.as_bytes());
        out.extend_from_slice(&self.walked_at.to_le_bytes());
        out.extend_from_slice(&(self.stats.len() as u64).to_le_bytes());
        for (path, stat) in &self.stats {
            put_bytes(&mut out, path.as_os_str().as_bytes());
            out.push(match stat.kind {
                StatKind::Entry => 0,
                StatKind::Repository => 1,
            });
            out.extend_from_slice(&stat.mode.to_le_bytes());
            for field in [stat.size, stat.ino, stat.dev] {
                out.extend_from_slice(&field.to_le_bytes());
            }
            for time in [stat.mtime, stat.ctime] {
                out.extend_from_slice(&time.to_le_bytes());
            }
        }
        out
    }

    /// Reads a record written by [`StatCache::to_bytes`]; `None` when it is not one (the
    /// snapshot then asks git about every file).
    pub(crate) fn parse(bytes: &[u8]) -> Option<StatCache> {
        let mut reader = Reader(bytes.strip_prefix(HEADER)?);
        let commit = String::from_utf8(reader.bytes()?.to_vec()).ok()?;
        let walked_at = Nanos::from_le_bytes(reader.array()?);
        let count = usize::try_from(u64::from_le_bytes(reader.array()?)).ok()?;
        let mut stats = Stats::with_capacity(count.min(bytes.len() / 40));
        for _ in 0..count {
            let path = PathBuf::from(OsStr::from_bytes(reader.bytes()?));
            let kind = match reader.array::<1>()? {
                [0] => StatKind::Entry,
                [1] => StatKind::Repository,
                _ => return None,
            };
            let mode = u32::from_le_bytes(reader.array()?);
            let size = u64::from_le_bytes(reader.array()?);
            let ino = u64::from_le_bytes(reader.array()?);
            let dev = u64::from_le_bytes(reader.array()?);
            let mtime = Nanos::from_le_bytes(reader.array()?);
            let ctime = Nanos::from_le_bytes(reader.array()?);
            let stat = FileStat {
                kind,
                mode,
                size,
                mtime,
                ctime,
                ino,
                dev,
            };
            stats.insert(path, stat);
        }
        if !reader.0.is_empty() || stats.len() != count {
            return None;
        }
        Some(StatCache {
            commit,
            walked_at,
            stats,
        })
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Reads a stored record front to back; every read is checked against its length.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(u32::from_le_bytes(self.array()?)).ok()?;
        let (head, rest) = self.0.split_at_checked(len)?;
        self.0 = rest;
        Some(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const SECOND: Nanos = 1_000_000_000;
    /// When the last walk started, in the tests.
    const WALKED_AT: Nanos = 1_700_000_000 * SECOND;

    /// A file last written a minute before the walk.
    fn old_file() -> FileStat {
        FileStat {
            kind: StatKind::Entry,
            mode: 0o100644,
            size: 10,
            mtime: WALKED_AT - 60 * SECOND,
            ctime: WALKED_AT - 60 * SECOND,
            ino: 7,
            dev: 1,
        }
    }

    fn cache(stats: &[(&str, FileStat)]) -> StatCache {
        StatCache {
            commit: "c".repeat(40),
            walked_at: WALKED_AT,
            stats: stats.iter().map(|(p, s)| (PathBuf::from(p), *s)).collect(),
        }
    }

    fn stats(stats: &[(&str, FileStat)]) -> Stats {
        cache(stats).stats
    }

    fn updated(paths: &[&str]) -> Changed {
        Changed {
            removed: vec![],
            updated: paths.iter().map(PathBuf::from).collect(),
        }
    }

    #[test]
    fn an_old_file_with_the_same_status_is_unchanged() {
        let last = cache(&[("a", old_file())]);

        assert_eq!(
            last.changes(&stats(&[("a", old_file())])),
            Changed::default()
        );
    }

    #[test]
    fn each_field_of_the_status_tells_a_change() {
        let last = cache(&[("a", old_file())]);
        let variants = [
            FileStat {
                size: 11,
                ..old_file()
            },
            FileStat {
                mtime: old_file().mtime + 1,
                ..old_file()
            },
            FileStat {
                ctime: old_file().ctime + 1,
                ..old_file()
            },
            FileStat {
                ino: 8,
                ..old_file()
            },
            FileStat {
                dev: 2,
                ..old_file()
            },
            FileStat {
                mode: 0o100755,
                ..old_file()
            },
            FileStat {
                mode: 0o120777,
                ..old_file()
            },
        ];

        for now in variants {
            assert_eq!(
                last.changes(&stats(&[("a", now)])),
                updated(&["a"]),
                "{now:?}"
            );
        }
    }

    #[test]
    fn a_file_written_just_before_the_walk_is_handed_to_git_again() {
        let recent = FileStat {
            mtime: WALKED_AT - SECOND,
            ctime: WALKED_AT - SECOND,
            ..old_file()
        };
        let changed_only = FileStat {
            ctime: WALKED_AT - SECOND,
            ..old_file()
        };
        let after = FileStat {
            mtime: WALKED_AT + 5,
            ctime: WALKED_AT + 5,
            ..old_file()
        };

        for racy in [recent, changed_only, after] {
            let last = cache(&[("a", racy)]);
            assert_eq!(
                last.changes(&stats(&[("a", racy)])),
                updated(&["a"]),
                "{racy:?}"
            );
        }
    }

    #[test]
    fn new_and_gone_paths_are_listed_in_order() {
        let last = cache(&[
            ("gone", old_file()),
            ("kept", old_file()),
            ("a/gone", old_file()),
        ]);

        let changed = last.changes(&stats(&[("kept", old_file()), ("new", old_file())]));

        assert_eq!(
            changed,
            Changed {
                removed: vec![PathBuf::from("a/gone"), PathBuf::from("gone")],
                updated: vec![PathBuf::from("new")],
            }
        );
    }

    #[test]
    fn a_nested_repository_is_always_handed_to_git() {
        let last = cache(&[("sub", FileStat::repository())]);

        assert_eq!(
            last.changes(&stats(&[("sub", FileStat::repository())])),
            updated(&["sub"])
        );
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let last = cache(&[
            ("a", old_file()),
            (
                "dir/with\nbreak",
                FileStat {
                    mode: 0o120777,
                    ..old_file()
                },
            ),
            ("sub", FileStat::repository()),
        ]);

        assert_eq!(StatCache::parse(&last.to_bytes()), Some(last));
    }

    #[test]
    fn a_damaged_record_is_not_read() {
        let bytes = cache(&[("a", old_file()), ("b", old_file())]).to_bytes();

        assert_eq!(StatCache::parse(&bytes[..bytes.len() - 1]), None);
        assert_eq!(StatCache::parse(&[bytes.clone(), vec![0]].concat()), None);
        assert_eq!(StatCache::parse(b"something else"), None);
    }
}
