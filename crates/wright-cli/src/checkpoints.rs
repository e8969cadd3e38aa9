//! The project's checkpoint store as the binary uses it (issue 13): where it lives
//! (`$WRIGHT_HOME/checkpoints/<project key>/`), opened from the `[checkpoints]` settings, and
//! handed to the agent, which snapshots through it before each file-changing step, and to
//! `wright undo`, `wright diff` and the interactive `/undo` and `/diff`, which compare and
//! restore through it; removed with the project's last session.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use wright_checkpoint::{ChangeKind, CheckpointError, CheckpointId, CheckpointStore, FileChange};
use wright_core::checkpoint::{
    CheckpointFailure, Checkpoints, PathChange, PathChangeKind, Restored,
};
use wright_store::project_key;

use crate::config::CheckpointConfig;

/// Snapshots older than `keep_days` are pruned at most this often (pruning runs `git gc`).
const PRUNE_EVERY: Duration = Duration::from_secs(24 * 60 * 60);
/// The file whose modification time says when the store was last pruned.
const PRUNED_MARKER: &str = "last-pruned";
/// Bytes in a MiB, for the warning of a store over its size cap.
const MIB: u64 = 1024 * 1024;

/// The state directory of `project_root`'s checkpoints under the state directory `home`.
pub fn state_dir(home: &Path, project_root: &Path) -> PathBuf {
    home.join("checkpoints").join(project_key(project_root))
}

/// Opens the checkpoint store of `project_root`.
pub fn open(
    home: &Path,
    project_root: &Path,
    config: &CheckpointConfig,
) -> Result<CheckpointStore, CheckpointError> {
    CheckpointStore::open(
        &state_dir(home, project_root),
        project_root,
        config.store.clone(),
    )
}

/// Deletes `project_root`'s checkpoint store, if it has one (`Ok(false)`: it had none). For
/// when the project's last session is removed: no session is left to undo with it.
pub fn remove(
    home: &Path,
    project_root: &Path,
    config: &CheckpointConfig,
) -> Result<bool, CheckpointError> {
    if !state_dir(home, project_root).exists() {
        return Ok(false);
    }
    open(home, project_root, config)?.remove()?;
    Ok(true)
}

/// What the agent snapshots through, or `None` when `[checkpoints] enabled = false`.
pub fn for_agent(
    home: &Path,
    project_root: &Path,
    config: &CheckpointConfig,
) -> Option<Arc<dyn Checkpoints>> {
    config.enabled.then(|| {
        Arc::new(ProjectCheckpoints {
            home: home.to_path_buf(),
            root: project_root.to_path_buf(),
            config: config.clone(),
            prune: true,
            store: OnceLock::new(),
        }) as Arc<dyn Checkpoints>
    })
}

/// What undo and diff read and restore through (`wright undo`, `wright diff`, `/undo`,
/// `/diff`): the project's store whether or not `[checkpoints] enabled`, since the session may
/// have snapshots from when it was; never pruned from here.
pub fn for_undo(
    home: &Path,
    project_root: &Path,
    config: &CheckpointConfig,
) -> Arc<dyn Checkpoints> {
    Arc::new(ProjectCheckpoints {
        home: home.to_path_buf(),
        root: project_root.to_path_buf(),
        config: config.clone(),
        prune: false,
        store: OnceLock::new(),
    })
}

/// The project's store, opened on first use (so a session that changes nothing never runs
/// `git`), and then pruned when it was not pruned for a day, if `prune`.
struct ProjectCheckpoints {
    home: PathBuf,
    root: PathBuf,
    config: CheckpointConfig,
    prune: bool,
    store: OnceLock<Result<CheckpointStore, String>>,
}

/// A change as the agent's side sees it.
pub fn path_change(change: &FileChange) -> PathChange {
    PathChange {
        kind: match change.kind {
            ChangeKind::Added => PathChangeKind::Added,
            ChangeKind::Modified => PathChangeKind::Modified,
            ChangeKind::Deleted => PathChangeKind::Deleted,
            ChangeKind::ModeChanged => PathChangeKind::ModeChanged,
        },
        path: change.path.display().to_string(),
        directory: change.directory,
    }
}

fn id(text: &str) -> Result<CheckpointId, CheckpointFailure> {
    Ok(CheckpointId::parse(text)?)
}

impl ProjectCheckpoints {
    fn store(&self) -> Result<&CheckpointStore, String> {
        self.store
            .get_or_init(|| {
                let store =
                    open(&self.home, &self.root, &self.config).map_err(|e| e.to_string())?;
                if self.prune {
                    self.prune_if_due(&store);
                }
                Ok(store)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Prunes snapshots older than `keep_days`, then the oldest ones while the store is over
    /// `max_store_mb`, once a day at most; a failure only means the store stays larger for now.
    fn prune_if_due(&self, store: &CheckpointStore) {
        let marker = state_dir(&self.home, &self.root).join(PRUNED_MARKER);
        let due = fs::metadata(&marker)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|when| SystemTime::now().duration_since(when).ok())
            .is_none_or(|age| age >= PRUNE_EVERY);
        if !due {
            return;
        }
        // Written first: a prune that fails is not retried on every start.
        if fs::write(&marker, b"").is_err() {
            return;
        }
        match store.prune(self.config.keep, Some(self.config.max_store_bytes)) {
            Err(e) => eprintln!("wright: warning: could not prune old checkpoints: {e}"),
            Ok(pruned) if pruned.over_cap => eprintln!(
                "wright: warning: the checkpoint store ({} MiB) is over [checkpoints] \
                 max_store_mb ({} MiB) with only the latest chain of snapshots left; it is \
                 kept so this session can still be undone",
                pruned.store_bytes.unwrap_or_default() / MIB,
                self.config.max_store_bytes / MIB,
            ),
            Ok(_) => {}
        }
    }
}

impl Checkpoints for ProjectCheckpoints {
    fn snapshot(&self, label: &str) -> Result<String, CheckpointFailure> {
        let store = self.store()?;
        Ok(store.snapshot(label)?.id.to_string())
    }

    fn changes(&self, from: &str, to: Option<&str>) -> Result<Vec<PathChange>, CheckpointFailure> {
        let to = to.map(id).transpose()?;
        let changes = self.store()?.changes(&id(from)?, to.as_ref())?;
        Ok(changes.iter().map(path_change).collect())
    }

    fn diff(&self, from: &str, to: Option<&str>) -> Result<String, CheckpointFailure> {
        let to = to.map(id).transpose()?;
        Ok(self.store()?.diff(&id(from)?, to.as_ref())?)
    }

    fn restore(&self, to: &str) -> Result<Restored, CheckpointFailure> {
        let done = self.store()?.restore(&id(to)?)?;
        Ok(Restored {
            previous: done.previous.to_string(),
            changed: done.changed.iter().map(path_change).collect(),
        })
    }

    fn restore_only(&self, to: &str, paths: &[String]) -> Result<Restored, CheckpointFailure> {
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        let done = self.store()?.restore_only(&id(to)?, &paths)?;
        Ok(Restored {
            previous: done.previous.to_string(),
            changed: done.changed.iter().map(path_change).collect(),
        })
    }

    fn blob_ids(
        &self,
        at: &str,
        paths: &[PathBuf],
    ) -> Result<Vec<Option<String>>, CheckpointFailure> {
        Ok(self.store()?.blob_ids(&id(at)?, paths)?)
    }
}
