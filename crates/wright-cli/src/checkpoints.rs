//! The project's checkpoint store as the binary uses it (issue 13): where it lives
//! (`$WRIGHT_HOME/checkpoints/<project key>/`), opened from the `[checkpoints]` settings, and
//! handed to the agent, which snapshots through it before each file-changing step.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use wright_checkpoint::{CheckpointError, CheckpointId, CheckpointStore};
use wright_core::checkpoint::{CheckpointFailure, Checkpoints};
use wright_store::project_key;

use crate::config::CheckpointConfig;

/// Snapshots older than `keep_days` are pruned at most this often (pruning runs `git gc`).
const PRUNE_EVERY: Duration = Duration::from_secs(24 * 60 * 60);
/// The file whose modification time says when the store was last pruned.
const PRUNED_MARKER: &str = "last-pruned";

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
            store: OnceLock::new(),
        }) as Arc<dyn Checkpoints>
    })
}

/// The project's store, opened on the first snapshot (so a session that changes nothing never
/// runs `git`), and pruned then when it was not pruned for a day.
struct ProjectCheckpoints {
    home: PathBuf,
    root: PathBuf,
    config: CheckpointConfig,
    store: OnceLock<Result<CheckpointStore, String>>,
}

impl ProjectCheckpoints {
    fn store(&self) -> Result<&CheckpointStore, String> {
        self.store
            .get_or_init(|| {
                let store =
                    open(&self.home, &self.root, &self.config).map_err(|e| e.to_string())?;
                self.prune_if_due(&store);
                Ok(store)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Prunes snapshots older than `keep_days`, once a day at most; a failure only means the
    /// store stays larger for now.
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
        if fs::write(&marker, b"").is_ok()
            && let Err(e) = store.prune(self.config.keep)
        {
            eprintln!("wright: warning: could not prune old checkpoints: {e}");
        }
    }
}

impl Checkpoints for ProjectCheckpoints {
    fn snapshot(&self, label: &str) -> Result<String, CheckpointFailure> {
        let store = self.store()?;
        Ok(store.snapshot(label)?.id.to_string())
    }

    fn changed_files(
        &self,
        from: &str,
        to: Option<&str>,
    ) -> Result<Vec<PathBuf>, CheckpointFailure> {
        let store = self.store()?;
        let to = to.map(CheckpointId::parse).transpose()?;
        Ok(store
            .changes(&CheckpointId::parse(from)?, to.as_ref())?
            .into_iter()
            .filter(|change| !change.directory)
            .map(|change| change.path)
            .collect())
    }

    fn blob_ids(
        &self,
        at: &str,
        paths: &[PathBuf],
    ) -> Result<Vec<Option<String>>, CheckpointFailure> {
        Ok(self.store()?.blob_ids(&CheckpointId::parse(at)?, paths)?)
    }
}
