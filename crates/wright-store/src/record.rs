//! The records a session file holds, one JSON object per line.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use wright_protocol::{Message, Usage};

/// Who and where a session is; always the first line of its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// Unique id (UUID v7, so ids sort by creation time); also the file's name.
    pub id: String,
    /// The name given with `--session NAME`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The project's root directory.
    pub project_root: String,
    /// When the session was created.
    pub created_at: DateTime<Utc>,
    /// The environment block that ends the session's system prompt, fixed when it started so
    /// that the prompt stays the same when the session is resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// The agents the Task tool's description listed when the session started (issue 14),
    /// kept like the environment block so that the prompt stays the same on resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<String>,
    /// The index of memory that ends the session's system prompt (issue 17), fixed when it
    /// started like the environment block; `None` for a session from before wrights kept
    /// memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// For a sub-agent's session (issue 14): the session whose Task call ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// For a sub-agent's session: the agent it ran as (`explore`, a named agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// For a sub-agent's session: the task's short description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

/// How a round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundStatus {
    /// The model answered.
    Finished,
    /// The round stopped without an answer.
    Failed,
    /// The user interrupted it.
    Interrupted,
}

/// What a model call was for, so its cost can be shown per kind (`/cost`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageKind {
    /// A ReAct step of a round.
    #[default]
    Step,
    /// The summary of archived rounds (compaction).
    Summary,
    /// The message of a commit of the agent's changes (issue 13, `[git]`).
    Commit,
    /// The calls of the sub-agents a Task call ran (issue 14), as their own sessions record
    /// them, so that a session's cost includes its sub-agents'.
    Subagent,
}

/// What one compaction archived (spec A4–A6, E2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionRecord {
    /// When the compaction ran.
    pub at: DateTime<Utc>,
    /// Every message before this index (counting the session's message records in file order)
    /// is archived; the ones from here on stay in the retained history.
    pub archived_end: usize,
    /// How many whole rounds were archived by this compaction.
    pub archived_rounds: usize,
    /// The summary of the archived messages (spec A5), or `None` when it could not be made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Whether the summary call timed out (spec E2).
    #[serde(default)]
    pub timed_out: bool,
    /// Why the summary could not be made, when it failed for another reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Time of the first archived message.
    pub start_time: DateTime<Utc>,
    /// Time of the last archived message.
    pub cutoff_time: DateTime<Utc>,
}

/// One line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The session's identity; the first line.
    Meta(SessionMeta),
    /// A message of the conversation (user, assistant step, compressed tool result).
    Message {
        /// When it was written.
        at: DateTime<Utc>,
        /// The message.
        message: Message,
    },
    /// Tokens the provider reported for one model call.
    Usage {
        /// When the call ended.
        at: DateTime<Utc>,
        /// The reported usage.
        usage: Usage,
        /// What the call was for; files written before this field existed hold only steps.
        #[serde(default)]
        kind: UsageKind,
        /// The model that was called, when recorded (older files: the session's model).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// wright's own estimate of the request's prompt tokens, so that a continued session
        /// can calibrate its estimates against the provider's count from the start.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        local_estimate: Option<u64>,
    },
    /// Older rounds were archived.
    Compaction(CompactionRecord),
    /// A round ended.
    RoundEnd {
        /// When it ended.
        at: DateTime<Utc>,
        /// How.
        status: RoundStatus,
    },
    /// A snapshot of the project's files, taken before a step that could change them or at
    /// the end of a round that did (issue 13). Older wrights skip this line with a warning.
    Checkpoint(CheckpointRecord),
    /// `wright undo`: rounds from `from_round` on are undone (still in the file, no longer
    /// part of the conversation), and the files were restored to `to`.
    Rewind(RewindRecord),
    /// `wright undo --redo`: the last rewind is taken back; the files were restored to the
    /// rewind's `restored` snapshot, and its rounds are part of the conversation again.
    Redo(RewindRecord),
    /// The agent's changes of the rounds up to `round` were committed to the project's git
    /// repository (issue 13, `[git] auto_commit`, `/commit`, `wright commit`).
    Commit(CommitRecord),
}

/// When a [`CheckpointRecord`] was taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointKind {
    /// Before a step whose tool can change files: the files as they were before it ran.
    #[default]
    BeforeStep,
    /// When a round that took checkpoints ended: the files as the round left them.
    EndOfRound,
}

/// A snapshot of the project's files that the agent took (issue 13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointRecord {
    /// When it was taken.
    pub at: DateTime<Utc>,
    /// The round it belongs to, counting the session's rounds from 1 (informational: the
    /// record's place in the file is what ties it to its round).
    pub round: u32,
    /// The step about to run (before a step) or the round's last step (at its end).
    pub step: u32,
    /// The snapshot's id in the project's checkpoint store.
    pub id: String,
    /// When it was taken; files written before kinds existed hold only `before_step`.
    #[serde(default)]
    pub kind: CheckpointKind,
}

/// What `wright undo` (a [`Record::Rewind`]) or `wright undo --redo` (a [`Record::Redo`]) did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewindRecord {
    /// When.
    pub at: DateTime<Utc>,
    /// The first round undone (a rewind) or back again (a redo).
    pub from_round: u32,
    /// The snapshot of the files taken just before they were restored, so the restore can be
    /// taken back; `None` when the files were left as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<String>,
    /// The snapshot the files were restored to; `None` when they were left as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// A commit of the agent's changes (a [`Record::Commit`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitRecord {
    /// When it was made.
    pub at: DateTime<Utc>,
    /// The last round whose changes it holds, counting the session's rounds from 1.
    pub round: u32,
    /// The commit's id in the project's repository.
    pub commit: String,
    /// The files it holds, relative to the project root.
    pub files: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn records_are_tagged_by_type() {
        let at = DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let record = Record::RoundEnd {
            at,
            status: RoundStatus::Finished,
        };
        assert_eq!(
            serde_json::to_string(&record).unwrap(),
            r#"{"type":"round_end","at":"2026-11-22T08:00:00Z","status":"finished"}"#
        );
        let message = Record::Message {
            at,
            message: Message::user("hi"),
        };
        let line = serde_json::to_string(&message).unwrap();
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), message);
    }

    #[test]
    fn checkpoint_and_rewind_records_round_trip_and_default_to_before_step() {
        let line =
            r#"{"type":"checkpoint","at":"2026-11-22T08:00:00Z","round":2,"step":3,"id":"abc"}"#;
        let at = DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let checkpoint = Record::Checkpoint(CheckpointRecord {
            at,
            round: 2,
            step: 3,
            id: "abc".into(),
            kind: CheckpointKind::BeforeStep,
        });
        assert_eq!(serde_json::from_str::<Record>(line).unwrap(), checkpoint);
        let rewind = Record::Rewind(RewindRecord {
            at,
            from_round: 2,
            restored: Some("def".into()),
            to: None,
        });
        let line = serde_json::to_string(&rewind).unwrap();
        assert_eq!(
            line,
            r#"{"type":"rewind","at":"2026-11-22T08:00:00Z","from_round":2,"restored":"def"}"#
        );
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), rewind);
    }

    #[test]
    fn usage_records_carry_their_kind_and_model() {
        let at = DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let record = Record::Usage {
            at,
            usage: Usage {
                prompt_tokens: 10,
                completion_tokens: 2,
                total_tokens: 12,
                ..Usage::default()
            },
            kind: UsageKind::Summary,
            model: Some("small".into()),
            local_estimate: None,
        };
        let line = serde_json::to_string(&record).unwrap();
        assert_eq!(
            line,
            r#"{"type":"usage","at":"2026-11-22T08:00:00Z","usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12},"kind":"summary","model":"small"}"#
        );
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record);
    }

    #[test]
    fn usage_lines_written_before_kinds_existed_load_as_steps_of_no_named_model() {
        let line = r#"{"type":"usage","at":"2026-11-22T08:00:00Z","usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}"#;
        let at = DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            serde_json::from_str::<Record>(line).unwrap(),
            Record::Usage {
                at,
                usage: Usage {
                    prompt_tokens: 10,
                    completion_tokens: 2,
                    total_tokens: 12,
                    ..Usage::default()
                },
                kind: UsageKind::Step,
                local_estimate: None,
                model: None,
            }
        );
    }
}
