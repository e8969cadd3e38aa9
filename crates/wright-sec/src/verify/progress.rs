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
            attempts: 0,
            verdicts: Vec::new(),
            restored: None,
            error: None,
            session: None,
            time: now(),
        }
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
    /// The log at `path`, created with its directory if need be; a fresh run (`!resume`)
    /// empties it.
    pub fn open(path: &Path, resume: bool) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .truncate(false)
            .open(path)?;
        if !resume {
            file.set_len(0)?;
        }
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
        let log = ProgressLog::open(&path, false).unwrap();
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

        // Resuming appends; a fresh run starts the log anew.
        let log = ProgressLog::open(&path, true).unwrap();
        drop(log);
        assert_eq!(finished_clusters(&path).len(), 1);
        let log = ProgressLog::open(&path, false).unwrap();
        drop(log);
        assert!(finished_clusters(&path).is_empty());
    }
}
