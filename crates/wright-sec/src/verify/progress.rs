//! The progress log of a verification run, `.wright/sec/progress.jsonl`: one JSON object a
//! line, appended as the run goes — the scan, each cluster's start and end with its
//! verdicts, the end. `--resume` reads back the clusters that finished, and asks the model
//! nothing for them.

use std::collections::HashMap;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::verdict::Verdict;

/// Lines longer than this are not read back (the log is a file in the project: untrusted).
const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// Where a cluster is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClusterStatus {
    Running,
    Done,
    Failed,
}

/// What was done about changes an agent left in the tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restoration {
    /// Whether anything had changed and was put back.
    pub performed: bool,
    pub changed_files: usize,
    /// How: `checkpoint restore`, or why nothing could be done.
    pub action: String,
    /// The snapshot of the tree taken just before the restore: what it put back can be
    /// had again from it (`wright undo`'s store), should it have been the user's own edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// One line of the log about a cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterRecord {
    pub event: String,
    pub index: usize,
    pub file: String,
    /// The cluster's key (its candidates' signatures), see [`super::Cluster::key`].
    pub key: String,
    pub status: ClusterStatus,
    /// The cluster's gids when it ran, in its order: a resumed run's gids may differ (another
    /// file's findings, `--min-severity`), so its verdicts are mapped by position.
    #[serde(default)]
    pub gids: Vec<usize>,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<Restoration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The agent's session, to read what it did (`wright sessions show`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The run's session, whose child the agent's session is: `--resume` trusts a record
    /// only when the user's own store holds that child (the log is a file in the project,
    /// which a repository could ship with forged verdicts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub time: u64,
}

impl ClusterRecord {
    /// A record of `status` for the cluster `index` of `file` keyed `key`, stamped now.
    pub fn new(index: usize, file: &str, key: &str, status: ClusterStatus) -> Self {
        Self {
            event: "cluster".into(),
            index,
            file: file.into(),
            key: key.into(),
            status,
            gids: Vec::new(),
            attempts: 0,
            verdicts: Vec::new(),
            restored: None,
            error: None,
            session: None,
            parent: None,
            time: now(),
        }
    }
}

impl ClusterRecord {
    /// The verdicts of this finished record for `cluster` (the same key, so the same
    /// candidates in the same order), each moved to the candidate's gid in this run and
    /// bounded as a fresh answer is; `None` when the record does not fit the cluster (no
    /// gids, another count, a verdict for a gid it did not have).
    pub fn verdicts_for(&self, cluster: &super::Cluster) -> Option<Vec<Verdict>> {
        if self.gids.len() != cluster.gids.len() {
            return None;
        }
        let bound =
            |text: &str| -> String { text.chars().take(super::verdict::MAX_FIELD_CHARS).collect() };
        self.verdicts
            .iter()
            .map(|verdict| {
                let at = self.gids.iter().position(|gid| *gid == verdict.gid)?;
                Some(Verdict {
                    gid: cluster.gids[at],
                    has_risk: verdict.has_risk,
                    preconditions: bound(&verdict.preconditions),
                    trigger_path: bound(&verdict.trigger_path),
                    consequences: bound(&verdict.consequences),
                    suggestions: bound(&verdict.suggestions),
                })
            })
            .collect()
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The log, appended to by the clusters' agents at once.
#[derive(Debug)]
pub struct ProgressLog {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl ProgressLog {
    /// The log at `path` (under `root`), created with its directories if need be; a fresh
    /// run (`!resume`) starts a new file. The log is in the project, which may be hostile:
    /// no part of the path below `root` may be a link (one could send the write, or a
    /// truncation, to any file the user can write), and a fresh log replaces the old file by
    /// a rename rather than emptying whatever it points at.
    pub fn open(root: &Path, path: &Path, resume: bool) -> std::io::Result<Self> {
        let refuse = |what: &Path| {
            std::io::Error::other(format!(
                "{} is a link; wright does not follow it for its progress log",
                what.display()
            ))
        };
        let below = path.strip_prefix(root).map_err(std::io::Error::other)?;
        let mut at = root.to_path_buf();
        for part in below.components() {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(meta) if meta.is_symlink() => return Err(refuse(&at)),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if at != path {
                        std::fs::create_dir(&at)?;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        if !resume || !path.exists() {
            let fresh = path.with_extension("jsonl.new");
            if std::fs::symlink_metadata(&fresh).is_ok() {
                std::fs::remove_file(&fresh)?;
            }
            std::fs::File::create_new(&fresh)?;
            std::fs::rename(&fresh, path)?;
        }
        let file = std::fs::OpenOptions::new().append(true).open(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `event` as one line, flushed at once (a run killed after this keeps it).
    pub fn append(&self, event: &impl Serialize) -> std::io::Result<()> {
        let mut line = serde_json::to_string(event).map_err(std::io::Error::other)?;
        line.push('\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(line.as_bytes())?;
        file.flush()
    }
}

/// The clusters the log at `path` says finished, by key (the last record of a key wins).
/// Lines that are not records — another event, a line cut by a kill, garbage — are skipped.
pub fn finished_clusters(path: &Path) -> HashMap<String, ClusterRecord> {
    let mut done = HashMap::new();
    let Ok(file) = std::fs::File::open(path) else {
        return done;
    };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader
            .by_ref()
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() > MAX_LINE_BYTES {
            // Skip the rest of an overlong line.
            let mut rest = Vec::new();
            if reader.read_until(b'\n', &mut rest).is_err() {
                break;
            }
            continue;
        }
        let Ok(record) = serde_json::from_slice::<ClusterRecord>(&line) else {
            continue;
        };
        if record.event != "cluster" {
            continue;
        }
        match record.status {
            ClusterStatus::Done => {
                done.insert(record.key.clone(), record);
            }
            // A later failure or restart of the same cluster supersedes an earlier end.
            ClusterStatus::Failed | ClusterStatus::Running => {
                done.remove(&record.key);
            }
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn finished_clusters_are_read_back_and_the_rest_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".wright/sec/progress.jsonl");
        let log = ProgressLog::open(dir.path(), &path, false).unwrap();
        log.append(&serde_json::json!({"event": "scan_start", "candidates": 3}))
            .unwrap();
        let mut done = ClusterRecord::new(1, "a.c", "c|a.c|1|strcpy", ClusterStatus::Done);
        done.verdicts = vec![Verdict {
            gid: 1,
            has_risk: true,
            preconditions: String::new(),
            trigger_path: "t".into(),
            consequences: String::new(),
            suggestions: String::new(),
        }];
        log.append(&ClusterRecord::new(
            1,
            "a.c",
            "c|a.c|1|strcpy",
            ClusterStatus::Running,
        ))
        .unwrap();
        log.append(&done).unwrap();
        log.append(&ClusterRecord::new(
            2,
            "b.c",
            "c|b.c|2|gets",
            ClusterStatus::Running,
        ))
        .unwrap();
        drop(log);
        // A kill mid-line.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"event\": \"cluster\", \"index\": 3, \"fi");
        std::fs::write(&path, text).unwrap();

        let finished = finished_clusters(&path);
        assert_eq!(finished.len(), 1);
        assert_eq!(finished["c|a.c|1|strcpy"].verdicts[0].trigger_path, "t");
        // Without the gids it ran with, a record fits no cluster.
        let cluster = super::super::Cluster {
            index: 1,
            file: "a.c".into(),
            gids: vec![4],
            key: "c|a.c|1|strcpy".into(),
        };
        assert_eq!(finished["c|a.c|1|strcpy"].verdicts_for(&cluster), None);
        let mut ran = finished["c|a.c|1|strcpy"].clone();
        ran.gids = vec![1];
        // The same candidate is gid 4 in this run.
        let moved = ran.verdicts_for(&cluster).unwrap();
        assert_eq!((moved[0].gid, moved[0].has_risk), (4, true));

        // Resuming appends; a fresh run starts the log anew.
        let log = ProgressLog::open(dir.path(), &path, true).unwrap();
        drop(log);
        assert_eq!(finished_clusters(&path).len(), 1);
        let log = ProgressLog::open(dir.path(), &path, false).unwrap();
        drop(log);
        assert!(finished_clusters(&path).is_empty());
    }
}
