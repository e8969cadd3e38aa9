//! The git workflow (issue 13, `[git]`): commit the files the agent changed — and only them —
//! to the project's repository, on the current branch, with a message a model call wrote.
//! `[git] auto_commit` does it after each round that changed files, `/commit` and `wright
//! commit` on demand; all go through [`Session::commit`](crate::session::Session::commit).
//!
//! Which files: the session's checkpoints tell. The rounds not yet committed (after the last
//! [`CommitRecord`], not undone) run from the first snapshot taken in them to the last one's
//! end snapshot; the files that differ between the two are the agent's. A file is left out,
//! with a note, when committing it would commit the user's work too or take it from them:
//! - the user staged a change to it (its index entry differs from HEAD's): committing the
//!   work-tree file would commit their staged hunks, and resetting its entry would unstage
//!   them;
//! - it differed from HEAD before the agent first touched it (the user's uncommitted edit,
//!   which the agent's change now sits on): the commit would carry the user's edit;
//! - it changed after the agent's last snapshot (the user edited it since): the work-tree
//!   file is no longer the agent's version.
//!
//! Skipping rather than committing the agent's version alone keeps the rule simple to trust:
//! whatever wright commits is byte for byte what is in the work tree, and what wright does not
//! commit stays exactly as the user left it, staged or not. A skipped file is still the user's
//! to commit.
//!
//! How the user's index is kept is [`git`]'s business (a temporary index, then the real
//! index's entries of exactly the committed paths set to the commit's).

mod git;
pub mod message;

use std::path::PathBuf;

use wright_store::{CheckpointKind, Record};

pub use git::{GitError, MAX_HOOK_OUTPUT_CHARS, Repository};

use crate::rewind::round_states;

/// The `[git]` settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitSettings {
    /// Whether the agent's changes are committed after each round that changed files.
    pub auto_commit: bool,
    /// Put before the subject of every commit message.
    pub commit_prefix: String,
    /// Put after the subject of every commit message.
    pub commit_suffix: String,
    /// The model that writes commit messages; default the summary model (itself the session's
    /// model unless set).
    pub commit_model: Option<String>,
}

/// The agent's changes not yet committed: the snapshots they run between and the requests that
/// made them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The first snapshot taken in the uncommitted rounds.
    pub from: String,
    /// The end snapshot of the last of them that took snapshots; `None` when that round did not
    /// end (the files now are compared).
    pub to: Option<String>,
    /// The last round (numbered from 1) the changes belong to.
    pub last_round: u32,
    /// The first lines of the rounds' requests, in order.
    pub requests: Vec<String>,
}

/// The uncommitted changes of a session's records: rounds after the last commit's, not undone,
/// that took snapshots. `None` when there are none.
pub fn pending(records: &[Record]) -> Option<Pending> {
    let committed = records
        .iter()
        .filter_map(|r| match r {
            Record::Commit(c) => Some(c.round),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let states = round_states(records);
    let open: Vec<_> = states
        .iter()
        .filter(|s| !s.undone && s.number.is_some_and(|n| n > committed))
        .filter(|s| {
            s.checkpoints
                .iter()
                .any(|c| c.kind == CheckpointKind::BeforeStep)
        })
        .collect();
    let first = open.first()?;
    let last = open.last()?;
    Some(Pending {
        from: first.first_checkpoint()?.id.clone(),
        to: last.end_checkpoint().map(|c| c.id.clone()),
        last_round: last.number?,
        requests: open
            .iter()
            .map(|s| s.request.clone())
            .filter(|r| !r.is_empty())
            .collect(),
    })
}

/// A file of the agent's left out of a commit, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedFile {
    /// The path, relative to the project root.
    pub path: PathBuf,
    /// Why, in a few words ("you staged changes to it").
    pub why: &'static str,
}

/// Why a file is left out: the user staged it.
pub const SKIP_STAGED: &str = "you have staged changes to it";
/// Why a file is left out: the user had changed it before the agent did.
pub const SKIP_CHANGED_BEFORE: &str = "it had uncommitted changes before the agent edited it";
/// Why a file is left out: the user changed it after the agent did.
pub const SKIP_CHANGED_AFTER: &str = "it changed after the agent's last edit";

/// What a commit of the agent's changes did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitOutcome {
    /// A commit was made.
    Committed {
        /// Its id.
        commit: String,
        /// Its branch.
        branch: String,
        /// Its subject line (prefix and suffix included).
        subject: String,
        /// The files it holds.
        files: Vec<PathBuf>,
        /// The agent's files left out.
        skipped: Vec<SkippedFile>,
        /// Why the model's subject was not used (the plain one was), if it was not.
        fallback: Option<String>,
    },
    /// The session has no uncommitted change of the agent's.
    NothingToCommit,
    /// Every file the agent changed was left out.
    AllSkipped(Vec<SkippedFile>),
    /// The repository cannot take a commit now (not one, detached HEAD, a merge going on).
    NotCommittable(GitError),
    /// The current branch is protected; nothing was committed. Asking the user, then calling
    /// again with leave to, is the front end's business.
    ProtectedBranch(String),
    /// The commit failed — a hook refused it, or git did: its output, cut.
    Failed(String),
}

impl CommitOutcome {
    /// One line for the user (more for skipped files and failures), or `None` when there is
    /// nothing worth saying (no change to commit).
    pub fn report(&self) -> Option<String> {
        let skipped_lines = |skipped: &[SkippedFile]| -> String {
            skipped
                .iter()
                .map(|s| format!("\n  not committed: {} ({})", s.path.display(), s.why))
                .collect()
        };
        Some(match self {
            CommitOutcome::Committed {
                commit,
                branch,
                subject,
                files,
                skipped,
                fallback,
            } => {
                let short = commit.get(..10).unwrap_or(commit);
                let mut text = format!(
                    "committed {} on {branch} as {short}: {subject}",
                    wright_protocol::text::plural(files.len(), "file")
                );
                if let Some(why) = fallback {
                    text.push_str(&format!(
                        "\n  (the commit-message call failed: {why}; a plain message was used)"
                    ));
                }
                text.push_str(&skipped_lines(skipped));
                text
            }
            CommitOutcome::NothingToCommit => return None,
            CommitOutcome::AllSkipped(skipped) => format!(
                "nothing committed: every file the agent changed has your changes too{}",
                skipped_lines(skipped)
            ),
            CommitOutcome::NotCommittable(why) => format!("not committing: {why}"),
            CommitOutcome::ProtectedBranch(branch) => format!(
                "not committing on the protected branch {branch} (`[bash] protected_branches`); \
                 commit by hand or switch branches"
            ),
            CommitOutcome::Failed(output) => {
                format!(
                    "the commit was not made: `git commit` failed (a hook refused it?):\n{output}"
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use pretty_assertions::assert_eq;
    use wright_protocol::Message;
    use wright_store::{CheckpointRecord, CommitRecord, RoundStatus};

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn round(records: &mut Vec<Record>, number: u32, request: &str, snapshots: &[&str]) {
        records.push(Record::Message {
            at: at(),
            message: Message::user(request),
        });
        for (i, id) in snapshots.iter().enumerate() {
            let kind = if i + 1 == snapshots.len() && snapshots.len() > 1 {
                CheckpointKind::EndOfRound
            } else {
                CheckpointKind::BeforeStep
            };
            records.push(Record::Checkpoint(CheckpointRecord {
                at: at(),
                round: number,
                step: 1,
                id: (*id).into(),
                kind,
            }));
        }
        records.push(Record::RoundEnd {
            at: at(),
            status: RoundStatus::Finished,
        });
    }

    #[test]
    fn pending_runs_from_the_first_uncommitted_snapshot_to_the_last_end() {
        let mut records = Vec::new();
        round(&mut records, 1, "write a", &["a0", "a1"]);
        round(&mut records, 2, "just look", &[]);
        round(&mut records, 3, "write b", &["b0", "b1"]);
        assert_eq!(
            pending(&records),
            Some(Pending {
                from: "a0".into(),
                to: Some("b1".into()),
                last_round: 3,
                requests: vec!["write a".into(), "write b".into()],
            })
        );
    }

    #[test]
    fn committed_rounds_are_not_pending() {
        let mut records = Vec::new();
        round(&mut records, 1, "write a", &["a0", "a1"]);
        records.push(Record::Commit(CommitRecord {
            at: at(),
            round: 1,
            commit: "c".into(),
            files: vec!["a".into()],
        }));
        assert_eq!(pending(&records), None);
        round(&mut records, 2, "write b", &["b0", "b1"]);
        assert_eq!(pending(&records).unwrap().from, "b0");
    }

    #[test]
    fn a_skipped_file_is_named_with_its_reason() {
        let outcome = CommitOutcome::AllSkipped(vec![SkippedFile {
            path: "b.txt".into(),
            why: SKIP_STAGED,
        }]);
        assert_eq!(
            outcome.report().unwrap(),
            "nothing committed: every file the agent changed has your changes too\n  \
             not committed: b.txt (you have staged changes to it)"
        );
    }
}
