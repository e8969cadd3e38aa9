//! What a git tree cannot hold, walked from the project and written as a small text blob:
//! every directory with its mode (so empty ones survive and new ones can be removed), files'
//! modes beyond git's 644/755, and the files left out for their size.
//!
//! The walk applies the rules git applies when it adds the files (`.gitignore` files, the
//! project's `.git/info/exclude`, never a `.git` entry), through the `ignore` crate, in parallel.
//! It is the only pass over the files' status a snapshot makes: what it sees of each captured
//! file is kept for the next snapshot to compare with (`stat_cache.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use crate::stat_cache::{FileStat, Stats};

/// The first line of a manifest, naming its format.
const HEADER: &str = "wright-manifest 1";

/// Permission bits a manifest records (and `chmod` restores): rwx for all three, plus
/// set-user-id, set-group-id and sticky.
pub(crate) const MODE_BITS: u32 = 0o7777;

/// A snapshot's facts beyond its git tree. Paths are relative to the project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// Every captured directory below the root, with its permission bits.
    pub(crate) dirs: BTreeMap<PathBuf, u32>,
    /// Regular files whose permission bits are not what git restores ([`git_mode_bits`]).
    pub(crate) modes: BTreeMap<PathBuf, u32>,
    /// Files left out of the snapshot: over the size cap, or not readable.
    pub(crate) skipped: BTreeSet<PathBuf>,
}

/// The permission bits git gives a file it stores as `100644` or `100755`: whether the owner
/// may execute it decides.
pub(crate) fn git_mode_bits(executable: bool) -> u32 {
    if executable { 0o755 } else { 0o644 }
}

/// Whether git stores a file with these permission bits as executable (`100755`).
pub(crate) fn git_executable(mode: u32) -> bool {
    mode & 0o100 != 0
}

impl Manifest {
    /// Walks `root` as git sees it: directories, file modes, and files over `max_file_bytes`
    /// or unreadable (skipped); and the status of every captured file, link and nested
    /// repository, for the next snapshot to compare with.
    pub(crate) fn walk(root: &Path, max_file_bytes: u64) -> (Manifest, Stats) {
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .parents(false)
            .ignore(false)
            .git_global(false)
            .git_ignore(true)
            .git_exclude(true)
            .require_git(false)
            .follow_links(false)
            .build_parallel();
        let (sender, receiver) = mpsc::channel::<Found>();
        walker.run(|| {
            let sender = sender.clone();
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return ignore::WalkState::Continue;
                };
                if entry.depth() > 0 && entry.file_name() == ".git" {
                    // Never captured; below the root, its directory is a nested repository.
                    if entry.depth() > 1
                        && let Some(repository) = entry
                            .path()
                            .parent()
                            .and_then(|parent| parent.strip_prefix(root).ok())
                    {
                        let _ = sender.send(Found {
                            path: repository.to_path_buf(),
                            kind: FoundKind::Repository,
                        });
                    }
                    return ignore::WalkState::Skip;
                }
                if let Some(found) = Found::of(root, &entry) {
                    let _ = sender.send(found);
                }
                ignore::WalkState::Continue
            })
        });
        drop(sender);
        let mut manifest = Manifest::default();
        let mut stats = Stats::new();
        let mut repositories = Vec::new();
        for found in receiver {
            match found.kind {
                FoundKind::Dir { mode } => {
                    manifest.dirs.insert(found.path, mode);
                }
                FoundKind::File { mode, stat } => {
                    if stat.size > max_file_bytes || mode & 0o400 == 0 {
                        manifest.skipped.insert(found.path);
                    } else {
                        if mode != git_mode_bits(git_executable(mode)) {
                            manifest.modes.insert(found.path.clone(), mode);
                        }
                        stats.insert(found.path, stat);
                    }
                }
                FoundKind::Link { stat } => {
                    stats.insert(found.path, stat);
                }
                FoundKind::Repository => {
                    repositories.push(found.path);
                }
            }
        }
        if !repositories.is_empty() {
            // Git stores a nested repository as one link to its commit, never its files.
            stats.retain(|path, _| {
                !repositories
                    .iter()
                    .any(|repository| path.starts_with(repository))
            });
            for repository in repositories {
                stats.insert(repository, FileStat::repository());
            }
        }
        (manifest, stats)
    }

    /// The permission bits a restore gives the file at `path`, stored by git as executable or
    /// not.
    pub(crate) fn file_mode(&self, path: &Path, executable: bool) -> u32 {
        self.modes
            .get(path)
            .copied()
            .unwrap_or_else(|| git_mode_bits(executable))
    }

    /// The manifest as stored: a header line, then `d MODE PATH`, `m MODE PATH` and `s PATH`
    /// lines, in path order, with `%`, control bytes and DEL in paths written as `%XX`.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 * (self.dirs.len() + self.modes.len() + 1));
        out.extend_from_slice(HEADER.as_bytes());
        out.push(b'\n');
        for (path, mode) in &self.dirs {
            out.extend_from_slice(format!("d {mode:04o} ").as_bytes());
            escape_into(&mut out, path.as_os_str());
            out.push(b'\n');
        }
        for (path, mode) in &self.modes {
            out.extend_from_slice(format!("m {mode:04o} ").as_bytes());
            escape_into(&mut out, path.as_os_str());
            out.push(b'\n');
        }
        for path in &self.skipped {
            out.extend_from_slice(b"s ");
            escape_into(&mut out, path.as_os_str());
            out.push(b'\n');
        }
        out
    }

    /// Reads a manifest written by [`Manifest::to_bytes`]; the error says which line is wrong.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Manifest, String> {
        let mut lines = bytes.split(|&b| b == b'\n');
        if lines.next() != Some(HEADER.as_bytes()) {
            return Err(format!("it does not start with `{HEADER}`"));
        }
        let mut manifest = Manifest::default();
        for (number, line) in lines.enumerate() {
            if line.is_empty() {
                continue;
            }
            let bad = || format!("line {} is not `d|m MODE PATH` or `s PATH`", number + 2);
            match line {
                [b's', b' ', path @ ..] => {
                    manifest.skipped.insert(unescape(path).ok_or_else(bad)?);
                }
                [kind @ (b'd' | b'm'), b' ', rest @ ..] => {
                    let space = rest.iter().position(|&b| b == b' ').ok_or_else(bad)?;
                    let mode = std::str::from_utf8(&rest[..space])
                        .ok()
                        .and_then(|mode| u32::from_str_radix(mode, 8).ok())
                        .filter(|mode| mode & !MODE_BITS == 0)
                        .ok_or_else(bad)?;
                    let path = unescape(&rest[space + 1..]).ok_or_else(bad)?;
                    let map = if *kind == b'd' {
                        &mut manifest.dirs
                    } else {
                        &mut manifest.modes
                    };
                    map.insert(path, mode);
                }
                _ => return Err(bad()),
            }
        }
        Ok(manifest)
    }
}

/// One entry of the walk, relative to the root.
struct Found {
    path: PathBuf,
    kind: FoundKind,
}

enum FoundKind {
    Dir { mode: u32 },
    File { mode: u32, stat: FileStat },
    Link { stat: FileStat },
    Repository,
}

impl Found {
    /// The entry as the manifest needs it: directories, regular files and symbolic links below
    /// the root (sockets and pipes are not captured).
    fn of(root: &Path, entry: &ignore::DirEntry) -> Option<Found> {
        if entry.depth() == 0 {
            return None;
        }
        let file_type = entry.file_type()?;
        if !file_type.is_dir() && !file_type.is_file() && !file_type.is_symlink() {
            return None;
        }
        let metadata = entry.metadata().ok()?;
        let path = entry.path().strip_prefix(root).ok()?.to_path_buf();
        let mode = metadata.permissions().mode() & MODE_BITS;
        let kind = if file_type.is_dir() {
            FoundKind::Dir { mode }
        } else if file_type.is_symlink() {
            FoundKind::Link {
                stat: FileStat::of(&metadata),
            }
        } else {
            FoundKind::File {
                mode,
                stat: FileStat::of(&metadata),
            }
        };
        Some(Found { path, kind })
    }
}

fn escape_into(out: &mut Vec<u8>, path: &OsStr) {
    for &byte in path.as_bytes() {
        if byte == b'%' || byte < 0x20 || byte == 0x7f {
            out.extend_from_slice(format!("%{byte:02X}").as_bytes());
        } else {
            out.push(byte);
        }
    }
}

fn unescape(bytes: &[u8]) -> Option<PathBuf> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            out.push(byte);
            rest = tail;
        }
    }
    if out.is_empty() {
        return None;
    }
    Some(PathBuf::from(OsStr::from_bytes(&out)))
}

/// A gitignore pattern matching exactly the file `path` (relative to the root): anchored, with
/// the characters patterns give meaning to escaped. `None` for a path no pattern can name (one
/// with a line break).
pub(crate) fn exact_pattern(path: &Path) -> Option<Vec<u8>> {
    let bytes = path.as_os_str().as_bytes();
    if bytes.contains(&b'\n') || bytes.contains(&b'\r') {
        return None;
    }
    let mut pattern = vec![b'/'];
    for &byte in bytes {
        if matches!(byte, b'\\' | b'*' | b'?' | b'[' | b'!' | b'#' | b' ') {
            pattern.push(b'\\');
        }
        pattern.push(byte);
    }
    Some(pattern)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_manifest_reads_back_as_written_with_awkward_paths() {
        let manifest = Manifest {
            dirs: [
                (PathBuf::from("a dir/with%percent"), 0o700),
                (PathBuf::from("line\nbreak"), 0o755),
            ]
            .into(),
            modes: [(PathBuf::from("secret.txt"), 0o600)].into(),
            skipped: [PathBuf::from("big.bin")].into(),
        };

        let bytes = manifest.to_bytes();

        assert_eq!(
            String::from_utf8_lossy(&bytes),
            "wright-manifest 1\nd 0700 a dir/with%25percent\nd 0755 line%0Abreak\n\
             m 0600 secret.txt\ns big.bin\n"
        );
        assert_eq!(Manifest::parse(&bytes), Ok(manifest));
    }

    #[test]
    fn a_damaged_manifest_names_its_bad_line() {
        assert_eq!(
            Manifest::parse(b"wright-manifest 1\nd 0755 ok\nd rwx bad\n"),
            Err("line 3 is not `d|m MODE PATH` or `s PATH`".to_string())
        );
        assert_eq!(
            Manifest::parse(b"something else\n"),
            Err("it does not start with `wright-manifest 1`".to_string())
        );
    }

    #[test]
    fn an_exact_pattern_escapes_what_gitignore_would_read_as_a_pattern() {
        assert_eq!(
            exact_pattern(Path::new("data/*big [1]#.bin")),
            Some(b"/data/\\*big\\ \\[1]\\#.bin".to_vec())
        );
        assert_eq!(exact_pattern(Path::new("two\nlines")), None);
    }
}
