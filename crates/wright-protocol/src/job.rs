//! Background commands (Bash `run_in_background`, issue 14): how one stands, and the note the
//! model gets once one has ended.

use serde::{Deserialize, Serialize};

/// Where a background command is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// It still runs.
    #[default]
    Running,
    /// It ended on its own (its exit code says how).
    Exited,
    /// It was stopped: by KillBash, its timeout, or wright leaving.
    Killed,
}

impl JobStatus {
    /// `running`, `exited` or `killed`.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Running => "running",
            JobStatus::Exited => "exited",
            JobStatus::Killed => "killed",
        }
    }
}

impl std::fmt::Display for JobStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A background command that ended before the model heard of it: the reminder the next
/// request carries (with the step's observation, or the next round's input). History keeps it
/// with the step it came with, so later requests repeat it as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobEnded {
    /// The job's id, e.g. `b1`.
    pub id: String,
    /// The command as it was started (cut in history).
    pub command: String,
    /// `exited` or `killed`.
    pub status: JobStatus,
    /// Its exit code (128 + the signal's number when a signal ended it); `None` when unknown.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The last lines it printed (stdout and stderr together), masked; empty when it printed
    /// nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub last_lines: String,
}
