//! A snapshot as a list of entries (git's tree plus the manifest) and the changes between two.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::manifest::Manifest;

/// What happened to one path between two states of the project.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileChange {
    /// The path, relative to the project root.
    pub path: PathBuf,
    /// What changed.
    pub kind: ChangeKind,
    /// Whether the path is a directory. Directories are reported only where files cannot
    /// show them: an empty directory added or removed, or a directory's mode changed.
    pub directory: bool,
}

/// The kind of a [`FileChange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// There in the later state, not in the earlier one.
    Added,
    /// Different content, or a file that became a symbolic link or the other way round.
    Modified,
    /// There in the earlier state, not in the later one.
    Deleted,
    /// Same content, different permission bits.
    ModeChanged,
}

/// One file of a snapshot's git tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A regular file: its blob, and whether git stores it as executable.
    File { oid: String, executable: bool },
    /// A symbolic link: the blob holding its target.
    Symlink { oid: String },
}

impl Entry {
    pub(crate) fn oid(&self) -> &str {
        match self {
            Entry::File { oid, .. } | Entry::Symlink { oid } => oid,
        }
    }
}

/// A snapshot read back: its files and its manifest.
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    pub(crate) entries: BTreeMap<PathBuf, Entry>,
    pub(crate) manifest: Manifest,
}

impl State {
    /// This state narrowed to `paths` (and what lies under them): its entries, directories and
    /// modes there, plus the directories above them, which a restore of those paths needs.
    pub(crate) fn only(&self, paths: &BTreeSet<PathBuf>) -> State {
        // Lookups in sets, not a scan of `paths` per entry: a round may change thousands.
        let wanted = |path: &Path| path.ancestors().any(|a| paths.contains(a));
        let ancestors: BTreeSet<&Path> = paths.iter().flat_map(|p| p.ancestors().skip(1)).collect();
        let above = |dir: &Path| ancestors.contains(dir);
        let mut manifest = self.manifest.clone();
        manifest.dirs.retain(|dir, _| wanted(dir) || above(dir));
        manifest.modes.retain(|path, _| wanted(path));
        State {
            entries: self
                .entries
                .iter()
                .filter(|(path, _)| wanted(path))
                .map(|(path, entry)| (path.clone(), entry.clone()))
                .collect(),
            manifest,
        }
    }

    /// The effective permission bits of a regular file entry.
    fn file_mode(&self, path: &Path, entry: &Entry) -> Option<u32> {
        match entry {
            Entry::File { executable, .. } => Some(self.manifest.file_mode(path, *executable)),
            Entry::Symlink { .. } => None,
        }
    }

    /// Every directory that holds an entry, at any depth.
    fn dirs_with_entries(&self) -> BTreeSet<&Path> {
        let mut dirs = BTreeSet::new();
        for path in self.entries.keys() {
            let mut parent = path.parent();
            while let Some(dir) = parent.filter(|dir| !dir.as_os_str().is_empty()) {
                if !dirs.insert(dir) {
                    break;
                }
                parent = dir.parent();
            }
        }
        dirs
    }
}

/// Parses `git ls-tree -r -z` output into entries. Submodules and nested repositories
/// (gitlinks) are left out: their files are not captured.
pub(crate) fn parse_ls_tree(output: &[u8]) -> Result<BTreeMap<PathBuf, Entry>, String> {
    let mut entries = BTreeMap::new();
    for record in output.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let bad = || {
            format!(
                "an ls-tree line `{}` has no `MODE TYPE OID<TAB>PATH` shape",
                String::from_utf8_lossy(record)
            )
        };
        let tab = record.iter().position(|&b| b == b'\t').ok_or_else(bad)?;
        let head = std::str::from_utf8(&record[..tab]).map_err(|_| bad())?;
        let path = PathBuf::from(OsStr::from_bytes(&record[tab + 1..]));
        let mut fields = head.split(' ');
        let (Some(mode), Some(_kind), Some(oid)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(bad());
        };
        let oid = oid.to_string();
        let entry = match mode {
            "100644" => Entry::File {
                oid,
                executable: false,
            },
            "100755" => Entry::File {
                oid,
                executable: true,
            },
            "120000" => Entry::Symlink { oid },
            "160000" => continue,
            _ => return Err(bad()),
        };
        entries.insert(path, entry);
    }
    Ok(entries)
}

/// The changes that turn `from` into `to`, in path order.
pub(crate) fn compare(from: &State, to: &State) -> Vec<FileChange> {
    let mut changes = Vec::new();
    let file = |path: &Path, kind| FileChange {
        path: path.to_path_buf(),
        kind,
        directory: false,
    };
    for (path, before) in &from.entries {
        match to.entries.get(path) {
            None => changes.push(file(path, ChangeKind::Deleted)),
            Some(after) => {
                let same_kind = matches!(
                    (before, after),
                    (Entry::File { .. }, Entry::File { .. })
                        | (Entry::Symlink { .. }, Entry::Symlink { .. })
                );
                if !same_kind || before.oid() != after.oid() {
                    changes.push(file(path, ChangeKind::Modified));
                } else if from.file_mode(path, before) != to.file_mode(path, after) {
                    changes.push(file(path, ChangeKind::ModeChanged));
                }
            }
        }
    }
    for path in to.entries.keys() {
        if !from.entries.contains_key(path) {
            changes.push(file(path, ChangeKind::Added));
        }
    }

    let (from_full, to_full) = (from.dirs_with_entries(), to.dirs_with_entries());
    let dir = |path: &Path, kind| FileChange {
        path: path.to_path_buf(),
        kind,
        directory: true,
    };
    for (path, mode) in &from.manifest.dirs {
        match to.manifest.dirs.get(path) {
            None if !from_full.contains(path.as_path()) => {
                changes.push(dir(path, ChangeKind::Deleted));
            }
            Some(after) if after != mode => changes.push(dir(path, ChangeKind::ModeChanged)),
            _ => {}
        }
    }
    for path in to.manifest.dirs.keys() {
        if !from.manifest.dirs.contains_key(path) && !to_full.contains(path.as_path()) {
            changes.push(dir(path, ChangeKind::Added));
        }
    }
    changes.sort();
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ls_tree_output_becomes_entries_without_gitlinks() {
        let output = b"100644 blob aa\tsrc/lib.rs\x00100755 blob bb\trun.sh\x00\
                       120000 blob cc\tlink\x00160000 commit dd\tvendor/sub\x00";

        let entries = parse_ls_tree(output);

        assert_eq!(
            entries,
            Ok(BTreeMap::from([
                (PathBuf::from("link"), Entry::Symlink { oid: "cc".into() }),
                (
                    PathBuf::from("run.sh"),
                    Entry::File {
                        oid: "bb".into(),
                        executable: true
                    }
                ),
                (
                    PathBuf::from("src/lib.rs"),
                    Entry::File {
                        oid: "aa".into(),
                        executable: false
                    }
                ),
            ]))
        );
    }

    #[test]
    fn directories_are_reported_only_when_files_do_not_show_them() {
        let file = |oid: &str| Entry::File {
            oid: oid.into(),
            executable: false,
        };
        let from = State {
            entries: BTreeMap::from([(PathBuf::from("keep/a"), file("1"))]),
            manifest: Manifest {
                dirs: [
                    (PathBuf::from("keep"), 0o755),
                    (PathBuf::from("empty"), 0o755),
                ]
                .into(),
                ..Manifest::default()
            },
        };
        let to = State {
            entries: BTreeMap::from([
                (PathBuf::from("keep/a"), file("1")),
                (PathBuf::from("new/b"), file("2")),
            ]),
            manifest: Manifest {
                dirs: [
                    (PathBuf::from("keep"), 0o700),
                    (PathBuf::from("new"), 0o755),
                    (PathBuf::from("new/void"), 0o755),
                ]
                .into(),
                modes: [(PathBuf::from("keep/a"), 0o600)].into(),
                ..Manifest::default()
            },
        };

        let changes = compare(&from, &to);

        let change = |path: &str, kind, directory| FileChange {
            path: path.into(),
            kind,
            directory,
        };
        assert_eq!(
            changes,
            vec![
                change("empty", ChangeKind::Deleted, true),
                change("keep", ChangeKind::ModeChanged, true),
                change("keep/a", ChangeKind::ModeChanged, false),
                change("new/b", ChangeKind::Added, false),
                change("new/void", ChangeKind::Added, true),
            ]
        );
    }
}
