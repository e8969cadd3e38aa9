//! Checkpoints during rounds (issue 13): before each step whose tool can change files (an
//! edit or a command), after it was approved and before it runs, the agent snapshots the
//! project's files and records the snapshot's id in the session; a round that took one takes
//! another when it ends. The record is written before the tool runs, so after a kill the
//! checkpoint is on disk.
//!
//! How snapshots are taken is not this crate's business: the front end hands the agent a
//! [`Checkpoints`] (for wright, `wright-checkpoint`'s store under `$WRIGHT_HOME`). A snapshot
//! that fails does not stop the step: the user is warned once per session and the round
//! goes on.

use chrono::Utc;
use wright_protocol::Event;
use wright_store::{CheckpointKind, CheckpointRecord};
use wright_tools::ToolKind;

use std::sync::Arc;

use crate::history::HistoryManager;
use crate::round::EventSink;

/// Why a snapshot could not be taken, in the words of whoever tried.
pub type CheckpointFailure = Box<dyn std::error::Error + Send + Sync>;

/// Takes, compares and restores snapshots of the project's files. Calls block (they may run
/// `git`); the agent makes them off the async runtime.
pub trait Checkpoints: Send + Sync {
    /// Snapshots the project's files as they are now, with `label` to say why; returns the
    /// snapshot's id.
    fn snapshot(&self, label: &str) -> Result<String, CheckpointFailure>;

    /// What changed from snapshot `from` to snapshot `to` (`None`: the files as they are now).
    fn changes(&self, from: &str, to: Option<&str>) -> Result<Vec<PathChange>, CheckpointFailure>;

    /// The unified diff from snapshot `from` to `to` (`None`: the files as they are now).
    fn diff(&self, from: &str, to: Option<&str>) -> Result<String, CheckpointFailure>;

    /// Makes the files exactly as snapshot `to` had them, after snapshotting them as they are.
    fn restore(&self, to: &str) -> Result<Restored, CheckpointFailure>;

    /// Like [`restore`](Self::restore), for `paths` (relative to the project root) only:
    /// everything else stays as it is. A store that cannot narrow a restore restores it all.
    fn restore_only(&self, to: &str, paths: &[String]) -> Result<Restored, CheckpointFailure> {
        let _ = paths;
        self.restore(to)
    }

    /// The files (not directories) that differ from snapshot `from` to `to` (`None`: the files
    /// as they are now), relative to the project root. Used by the git workflow to tell the
    /// agent's files.
    fn changed_files(
        &self,
        from: &str,
        to: Option<&str>,
    ) -> Result<Vec<std::path::PathBuf>, CheckpointFailure> {
        Ok(self
            .changes(from, to)?
            .into_iter()
            .filter(|change| !change.directory)
            .map(|change| std::path::PathBuf::from(change.path))
            .collect())
    }

    /// The git blob id of each of `paths` in snapshot `at` (`None` where it holds no file).
    fn blob_ids(
        &self,
        at: &str,
        paths: &[std::path::PathBuf],
    ) -> Result<Vec<Option<String>>, CheckpointFailure> {
        let _ = (at, paths);
        Err("this checkpoint store cannot read snapshots".into())
    }
}

/// What [`Checkpoints::restore`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The snapshot of the files taken just before, so the restore can be taken back.
    pub previous: String,
    /// The paths the restore changed.
    pub changed: Vec<PathChange>,
}

/// How a path differs between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathChangeKind {
    /// It was not there before.
    Added,
    /// Its content changed.
    Modified,
    /// It is gone.
    Deleted,
    /// Only its mode changed.
    ModeChanged,
}

/// One path that differs between two snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathChange {
    /// How it differs.
    pub kind: PathChangeKind,
    /// Its path, relative to the project root.
    pub path: String,
    /// Whether it is a directory.
    pub directory: bool,
}

impl std::fmt::Display for PathChange {
    /// `+added`, `~modified`, `-deleted`, `mmode-changed`; directories end in `/`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mark = match self.kind {
            PathChangeKind::Added => '+',
            PathChangeKind::Modified => '~',
            PathChangeKind::Deleted => '-',
            PathChangeKind::ModeChanged => 'm',
        };
        let slash = if self.directory { "/" } else { "" };
        write!(f, "{mark}{}{slash}", self.path)
    }
}

/// Counts of changed paths by kind, as a round's summary shows them: `+a ~b -c`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeCounts {
    /// Paths added.
    pub added: usize,
    /// Paths modified (content or mode).
    pub modified: usize,
    /// Paths deleted.
    pub deleted: usize,
}

impl ChangeCounts {
    /// The counts of `changes`.
    pub fn of(changes: &[PathChange]) -> Self {
        let mut counts = Self::default();
        for change in changes {
            match change.kind {
                PathChangeKind::Added => counts.added += 1,
                PathChangeKind::Modified | PathChangeKind::ModeChanged => counts.modified += 1,
                PathChangeKind::Deleted => counts.deleted += 1,
            }
        }
        counts
    }
}

impl std::fmt::Display for ChangeCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "+{} ~{} -{}", self.added, self.modified, self.deleted)
    }
}

/// Whether a step of this kind is checkpointed before it runs: tools that write files or run
/// commands (which may write anything).
pub fn changes_files(kind: ToolKind) -> bool {
    matches!(kind, ToolKind::Edit | ToolKind::Execute)
}

/// The agent's side of checkpoints: the store it snapshots through and whether a failure was
/// reported already.
#[derive(Default)]
pub(crate) struct Checkpointer {
    store: Option<Arc<dyn Checkpoints>>,
    /// A failed snapshot is reported once per session.
    warned: bool,
}

impl Checkpointer {
    pub(crate) fn new(store: Option<Arc<dyn Checkpoints>>) -> Self {
        Self {
            store,
            warned: false,
        }
    }

    /// Snapshots the files for `step` of the running round and records it in `history`;
    /// `false` when no snapshot was recorded (checkpoints off, or the snapshot failed: then
    /// the user is told once per session).
    pub(crate) async fn take(
        &mut self,
        history: &mut HistoryManager,
        step: u32,
        kind: CheckpointKind,
        sink: &mut EventSink<'_>,
    ) -> bool {
        let Some(store) = self.store.clone() else {
            return false;
        };
        let round = history.round_number();
        let label = match kind {
            CheckpointKind::BeforeStep => format!("round {round}, before step {step}"),
            CheckpointKind::EndOfRound => format!("end of round {round}"),
        };
        let taken = tokio::task::spawn_blocking(move || store.snapshot(&label)).await;
        let failure = match taken {
            Ok(Ok(id)) => {
                let written = history.record_checkpoint(CheckpointRecord {
                    at: Utc::now(),
                    round,
                    step,
                    id,
                    kind,
                });
                sink.warn_unsaved(written);
                return true;
            }
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        if !self.warned {
            self.warned = true;
            sink.emit(Event::Warning {
                message: format!(
                    "could not checkpoint the project's files ({failure}); \
                     `wright undo` cannot take back this session's changes from here"
                ),
            });
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_shows_its_kind_and_a_directory_its_slash() {
        let change = |kind, path: &str, directory| PathChange {
            kind,
            path: path.into(),
            directory,
        };
        let changes = [
            change(PathChangeKind::Added, "src/new.rs", false),
            change(PathChangeKind::Deleted, "old", true),
            change(PathChangeKind::ModeChanged, "run.sh", false),
            change(PathChangeKind::Modified, "a.txt", false),
        ];
        let lines: Vec<String> = changes.iter().map(ToString::to_string).collect();
        assert_eq!(lines, ["+src/new.rs", "-old/", "mrun.sh", "~a.txt"]);
        assert_eq!(ChangeCounts::of(&changes).to_string(), "+1 ~2 -1");
    }

    #[test]
    fn edits_and_commands_are_checkpointed_reads_are_not() {
        assert!(changes_files(ToolKind::Edit));
        assert!(changes_files(ToolKind::Execute));
        assert!(!changes_files(ToolKind::Read));
    }
}
