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

/// Takes snapshots of the project's files. Calls block (they may run `git`); the agent makes
/// them off the async runtime.
pub trait Checkpoints: Send + Sync {
    /// Snapshots the project's files as they are now, with `label` to say why; returns the
    /// snapshot's id.
    fn snapshot(&self, label: &str) -> Result<String, CheckpointFailure>;

    /// The files (not directories) that differ from snapshot `from` to `to` (`None`: the files
    /// as they are now), relative to the project root. Used by the git workflow to tell the
    /// agent's files; a store that cannot compare says so.
    fn changed_files(
        &self,
        from: &str,
        to: Option<&str>,
    ) -> Result<Vec<std::path::PathBuf>, CheckpointFailure> {
        let _ = (from, to);
        Err("this checkpoint store cannot compare snapshots".into())
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
    fn edits_and_commands_are_checkpointed_reads_are_not() {
        assert!(changes_files(ToolKind::Edit));
        assert!(changes_files(ToolKind::Execute));
        assert!(!changes_files(ToolKind::Read));
    }
}
