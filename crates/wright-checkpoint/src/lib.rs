//! wright's checkpoints (issue 13): snapshots of a project's files that can be compared,
//! diffed and restored exactly, kept outside the project and its own git repository.
//!
//! [`CheckpointStore::open`] takes a state directory (for wright,
//! `$WRIGHT_HOME/checkpoints/<project-key>/`) and a project root. [`CheckpointStore::snapshot`]
//! records the project's files as they are, [`CheckpointStore::changes`] and
//! [`CheckpointStore::diff`] say what changed between two snapshots (or since one), and
//! [`CheckpointStore::restore`] makes the files exactly as a snapshot had them — content byte
//! for byte, permission bits, symbolic links, created files removed, deleted ones back, new
//! directories removed and empty ones made — after snapshotting them first, so a restore can
//! itself be undone. [`CheckpointStore::prune`] and [`CheckpointStore::remove`] bound the store.
//!
//! # How: a shadow git repository, through the `git` binary
//!
//! The snapshots live in a bare repository of the state directory (`repo/`) with its own
//! index, whose work tree is the project. Git gives, proven and for free: a compressed,
//! deduplicated object store; `.gitignore` handling exactly as the user's tools see it (the
//! project's `.gitignore` files, and its `.git/info/exclude` copied into the shadow's); an
//! index that rehashes only the files it is told changed; and `git diff`. The alternatives
//! were weighed: `gix` builds slowly and its worktree-status and checkout APIs are still
//! moving; a store of our own would redo all of that, less well.
//!
//! The project's own `.git` is never read as a repository nor written: every command runs
//! with the shadow's `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE`, no system or global
//! configuration, `HOME` in the state directory, inherited `GIT_*` variables removed, and the
//! settings that could run a program (hooks, `core.fsmonitor`, filters, diff drivers) fixed on
//! the command line; the shadow's `info/attributes` turns off every content conversion. A
//! hostile repository's settings never run anything.
//!
//! What a git tree cannot hold goes in a small manifest stored beside it: every directory
//! with its mode (so empty ones survive and new ones can be removed), files' permission bits
//! beyond 644/755 (600, 700, ...), and the files left out. A snapshot is a commit whose tree
//! holds `files/` (the project) and `manifest`, so both stay reachable together; its parent
//! is the previous snapshot and the ref `refs/wright/checkpoints` keeps the chain from
//! `git gc`. A snapshot identical to the last returns the last one's id without writing
//! anything.
//!
//! # Speed: one pass over the files
//!
//! A snapshot walks the project once (the manifest walk, which applies the ignore rules and
//! the size cap) and keeps what it saw of every captured file — size, times to the nanosecond,
//! inode, mode — in memory and in the state directory (`stat-cache`), tied to the snapshot it
//! made. The next snapshot compares its walk with that one and hands git (`update-index`) only
//! the paths that differ; when none do and the manifest is the same, it runs no git command
//! at all and returns the last id. Files written within two seconds before a walk are handed
//! to git again next time, as their status could hide a second write in the same timestamp
//! tick. Without a kept walk (the first snapshot, or after a prune), `git add --all` stat-checks
//! everything and the index is then made exactly the walk's. On 10,000 files: ~20 ms
//! unchanged, ~50 ms with 10 files changed (`benches/snapshot.rs`).
//!
//! Not captured: files over [`CheckpointSettings::max_file_bytes`] (listed in
//! [`Snapshot::skipped`], never silently; a restore leaves them as they are), ignored files,
//! anything in a `.git`, and the content of nested repositories and submodules (git records
//! them as links to commits, which a restore leaves alone). Unix only: modes and links are
//! Unix ones.
//!
//! This crate does not decide when to snapshot, which snapshot belongs to which round, or how
//! to ask the user before overwriting their edits: that is the agent's (`wright-core`) and the
//! front ends' business. Operations on one store are serialised by a lock file, so two wright
//! processes in one project do not interleave.

#![cfg(unix)]

mod error;
mod git;
mod manifest;
mod prune;
mod restore;
mod stat_cache;
mod store;
mod tree;

pub use error::{CheckpointError, MAX_STDERR_BYTES};
pub use prune::Pruned;
pub use store::{CheckpointId, CheckpointSettings, CheckpointStore, Restore, Snapshot};
pub use tree::{ChangeKind, FileChange};
