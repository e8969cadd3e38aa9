//! Undo and redo of a session's rounds (issue 13), as `wright undo` and the interactive
//! session's `/undo`, `/redo` and `/rewind` carry them out: which rounds and which snapshot
//! ([`rewind`](crate::rewind)'s plans), whether restoring would overwrite files the user
//! changed, the restore itself through a [`Checkpoints`] store, and the record that says so.
//!
//! What to do about the user's changes is the front end's: `exec` refuses without `--force`,
//! the interactive session asks. Appending the record is the front end's too, through
//! whoever holds the session file.

use chrono::Utc;
use wright_store::{Record, RewindRecord};

use crate::checkpoint::{CheckpointFailure, Checkpoints, PathChange};
use crate::rewind::{KnownFiles, UndoError, known_files, plan_redo, plan_undo};

/// What to take back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoRequest {
    /// Undo from this round on (`None`: the last round not undone).
    Undo(Option<u32>),
    /// Take back the last undo.
    Redo,
}

/// What an undo touches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UndoScope {
    /// The files and the conversation.
    #[default]
    Both,
    /// The files only; the conversation keeps its rounds.
    FilesOnly,
    /// The conversation only; the files stay as they are.
    ConversationOnly,
}

impl UndoScope {
    fn files(self) -> bool {
        self != Self::ConversationOnly
    }

    fn conversation(self) -> bool {
        self != Self::FilesOnly
    }
}

/// An undo or a redo, planned from the session's records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoStep {
    /// Whether it is a redo.
    pub redo: bool,
    /// The first round undone, or back again.
    pub from_round: u32,
    /// What it touches.
    pub scope: UndoScope,
    /// The snapshot the files go back to; `None` when the files stay as they are (out of
    /// scope, or the rounds changed no files).
    pub target: Option<String>,
    /// The files as the agent (or the last undo or redo) left them, when known: then only
    /// the paths that differ between it and `target` are restored, and what the user changed
    /// elsewhere since stays. `None` (the last round was cut off): everything is restored.
    pub agent_state: Option<String>,
}

impl UndoStep {
    /// Plans `request` over `records`.
    pub fn plan(
        records: &[Record],
        request: UndoRequest,
        scope: UndoScope,
    ) -> Result<Self, UndoError> {
        let (redo, from_round, target) = match request {
            UndoRequest::Undo(round) => {
                let plan = plan_undo(records, round)?;
                (false, plan.from_round, plan.to)
            }
            UndoRequest::Redo => {
                let rewind = plan_redo(records)?;
                (true, rewind.from_round, rewind.restored)
            }
        };
        let agent_state = match known_files(records) {
            KnownFiles::Snapshot(id) => Some(id),
            KnownFiles::Never | KnownFiles::CutOff(_) => None,
        };
        Ok(Self {
            redo,
            from_round,
            scope,
            target: target.filter(|_| scope.files()),
            agent_state,
        })
    }

    /// Whether it restores files (and so needs the checkpoint store).
    pub fn restores_files(&self) -> bool {
        self.target.is_some()
    }
}

/// What restoring would overwrite that the agent did not write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overwrites {
    /// Nothing: the files are as the agent (or the last undo) left them.
    Nothing,
    /// Unknown: the session's last round did not end, so changes since its last step cannot
    /// be told apart from the agent's.
    Unknown,
    /// These paths changed after the agent last touched them.
    UserChanges(Vec<PathChange>),
}

/// What carrying out `step` would overwrite, going by the session's `records`: the paths
/// changed since the agent last touched the files among those the step restores (changes the
/// user made elsewhere stay as they are, see [`carry_out`]).
pub fn overwrites(
    store: &dyn Checkpoints,
    records: &[Record],
    step: &UndoStep,
) -> Result<Overwrites, CheckpointFailure> {
    match known_files(records) {
        KnownFiles::Never => Ok(Overwrites::Nothing),
        KnownFiles::CutOff(_) => Ok(Overwrites::Unknown),
        KnownFiles::Snapshot(known) => {
            let mut changed = store.changes(&known, None)?;
            if let Some(target) = &step.target {
                let restored: Vec<String> = store
                    .changes(target, Some(&known))?
                    .into_iter()
                    .map(|change| change.path)
                    .collect();
                changed.retain(|change| restored.iter().any(|path| overlap(&change.path, path)));
            }
            Ok(if changed.is_empty() {
                Overwrites::Nothing
            } else {
                Overwrites::UserChanges(changed)
            })
        }
    }
}

/// Whether one of two project-relative paths is the other or lies under it.
fn overlap(a: &str, b: &str) -> bool {
    let (a, b) = (std::path::Path::new(a), std::path::Path::new(b));
    a.starts_with(b) || b.starts_with(a)
}

/// What an undo or a redo did.
#[derive(Debug, Clone, PartialEq)]
pub struct UndoDone {
    /// The paths the restore changed; `None` when the files were left as they were.
    pub restored: Option<Vec<PathChange>>,
    /// The record for the session file; `None` when the conversation is out of scope.
    pub record: Option<Record>,
}

/// Carries out `step`: restores the files through `store` when the step restores any (call
/// [`overwrites`] first), and makes the record that rewinds (or brings back) the rounds.
pub fn carry_out(
    step: &UndoStep,
    store: Option<&dyn Checkpoints>,
) -> Result<UndoDone, CheckpointFailure> {
    let mut restored = None;
    let mut previous = None;
    if let Some(target) = &step.target {
        let store = store.ok_or("the project's checkpoints cannot be opened")?;
        // Only what the undone rounds (or the undo taken back) changed goes back.
        let done = match &step.agent_state {
            Some(agent) => {
                let paths: Vec<String> = store
                    .changes(target, Some(agent))?
                    .into_iter()
                    .map(|change| change.path)
                    .collect();
                store.restore_only(target, &paths)?
            }
            None => store.restore(target)?,
        };
        previous = Some(done.previous);
        restored = Some(done.changed);
    }
    let record = step.scope.conversation().then(|| {
        let rewind = RewindRecord {
            at: Utc::now(),
            from_round: step.from_round,
            to: previous.as_ref().and(step.target.clone()),
            restored: previous,
        };
        if step.redo {
            Record::Redo(rewind)
        } else {
            Record::Rewind(rewind)
        }
    });
    Ok(UndoDone { restored, record })
}

/// What the user is told after `step` did `done`; `redo_hint` says how to take an undo back
/// (`wright undo --redo`, `/redo`).
pub fn report(step: &UndoStep, done: &UndoDone, redo_hint: &str) -> String {
    let mut out = String::new();
    match &done.restored {
        Some(changed) => out.push_str(&restored_lines(changed)),
        None if !step.redo && step.scope.files() => out.push_str(&format!(
            "Round {} on changed no files (none were checkpointed).\n",
            step.from_round
        )),
        None => {}
    }
    if done.record.is_some() {
        if step.redo {
            out.push_str(&format!(
                "Rounds from {} on are back in the conversation.\n",
                step.from_round
            ));
        } else {
            out.push_str(&format!(
                "Rounds from {} on are undone; {redo_hint} brings them back.\n",
                step.from_round
            ));
        }
    }
    out
}

/// The paths a restore changed, one a line.
pub fn restored_lines(changed: &[PathChange]) -> String {
    if changed.is_empty() {
        return "The files were already as they were; nothing to restore.\n".into();
    }
    let mut out = format!("Restored {} path(s):\n", changed.len());
    for change in changed {
        out.push_str(&format!("  {change}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::{PathChangeKind, Restored};
    use chrono::{DateTime, Utc};
    use pretty_assertions::assert_eq;
    use std::sync::Mutex;
    use wright_protocol::Message;
    use wright_store::{CheckpointKind, CheckpointRecord, RoundStatus};

    /// A store that restores to anything, changing `a.txt`, and remembers what it was asked.
    #[derive(Default)]
    struct Fake {
        restored: Mutex<Vec<String>>,
        user_changes: Vec<PathChange>,
    }

    fn added(path: &str) -> PathChange {
        PathChange {
            kind: PathChangeKind::Added,
            path: path.into(),
            directory: false,
        }
    }

    impl Checkpoints for Fake {
        fn snapshot(&self, _: &str) -> Result<String, CheckpointFailure> {
            Ok("now".into())
        }
        fn changes(&self, _: &str, _: Option<&str>) -> Result<Vec<PathChange>, CheckpointFailure> {
            Ok(self.user_changes.clone())
        }
        fn diff(&self, _: &str, _: Option<&str>) -> Result<String, CheckpointFailure> {
            Ok(String::new())
        }
        fn restore(&self, to: &str) -> Result<Restored, CheckpointFailure> {
            self.restored.lock().unwrap().push(to.into());
            Ok(Restored {
                previous: "before-undo".into(),
                changed: vec![added("a.txt")],
            })
        }
    }

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    /// One round that changed files between snapshots `a` and `b`.
    fn session() -> Vec<Record> {
        let checkpoint = |id: &str, kind| {
            Record::Checkpoint(CheckpointRecord {
                at: at(),
                round: 1,
                step: 1,
                id: id.into(),
                kind,
            })
        };
        vec![
            Record::Message {
                at: at(),
                message: Message::user("write a"),
            },
            checkpoint("a", CheckpointKind::BeforeStep),
            checkpoint("b", CheckpointKind::EndOfRound),
            Record::RoundEnd {
                at: at(),
                status: RoundStatus::Finished,
            },
        ]
    }

    #[test]
    fn an_undo_restores_the_rounds_first_snapshot_and_records_the_one_before() {
        let store = Fake::default();
        let step = UndoStep::plan(&session(), UndoRequest::Undo(None), UndoScope::Both).unwrap();
        let done = carry_out(&step, Some(&store)).unwrap();
        assert_eq!(*store.restored.lock().unwrap(), ["a"]);
        let Some(Record::Rewind(rewind)) = &done.record else {
            panic!("a rewind record: {:?}", done.record);
        };
        assert_eq!(
            (
                rewind.from_round,
                rewind.restored.as_deref(),
                rewind.to.as_deref()
            ),
            (1, Some("before-undo"), Some("a"))
        );
        assert_eq!(
            report(&step, &done, "/redo"),
            "Restored 1 path(s):\n  +a.txt\nRounds from 1 on are undone; /redo brings them back.\n"
        );
    }

    #[test]
    fn a_redo_restores_the_snapshot_the_undo_took_first() {
        let store = Fake::default();
        let mut records = session();
        let step = UndoStep::plan(&records, UndoRequest::Undo(None), UndoScope::Both).unwrap();
        records.extend(carry_out(&step, Some(&store)).unwrap().record);
        let redo = UndoStep::plan(&records, UndoRequest::Redo, UndoScope::Both).unwrap();
        assert_eq!(redo.target.as_deref(), Some("before-undo"));
        let done = carry_out(&redo, Some(&store)).unwrap();
        assert!(matches!(done.record, Some(Record::Redo(_))));
    }

    #[test]
    fn conversation_only_leaves_the_files_and_files_only_the_conversation() {
        let records = session();
        let step = UndoStep::plan(
            &records,
            UndoRequest::Undo(None),
            UndoScope::ConversationOnly,
        )
        .unwrap();
        assert!(!step.restores_files());
        let done = carry_out(&step, None).unwrap();
        assert_eq!(done.restored, None);
        assert!(done.record.is_some());

        let step = UndoStep::plan(&records, UndoRequest::Undo(None), UndoScope::FilesOnly).unwrap();
        let done = carry_out(&step, Some(&Fake::default())).unwrap();
        assert_eq!(done.record, None);
    }

    #[test]
    fn changes_after_the_agents_last_snapshot_are_the_users() {
        let store = Fake {
            user_changes: vec![added("mine.txt")],
            ..Fake::default()
        };
        let plan = |records: &[Record]| {
            UndoStep::plan(records, UndoRequest::Undo(None), UndoScope::Both).unwrap()
        };
        let session = session();
        assert_eq!(
            overwrites(&store, &session, &plan(&session)).unwrap(),
            Overwrites::UserChanges(vec![added("mine.txt")])
        );
        assert_eq!(
            overwrites(&Fake::default(), &session, &plan(&session)).unwrap(),
            Overwrites::Nothing
        );
        assert_eq!(
            overwrites(&store, &session[..2], &plan(&session[..2])).unwrap(),
            Overwrites::Unknown,
            "the round did not end"
        );
    }

    #[test]
    fn paths_overlap_when_one_is_the_other_or_lies_under_it() {
        assert!(overlap("src/a.rs", "src/a.rs"));
        assert!(overlap("newdir/sub/x", "newdir"));
        assert!(overlap("newdir", "newdir/sub/x"));
        assert!(!overlap("newdir2", "newdir"));
        assert!(!overlap("mine.md", "src/a.rs"));
    }

    /// A store that knows which paths the agent changed (from `a` to `b`) apart from which the
    /// user changed since (`b` to now), and records what a narrowed restore was given.
    #[derive(Default)]
    struct TwoSides {
        restored_only: Mutex<Vec<Vec<String>>>,
    }

    impl Checkpoints for TwoSides {
        fn snapshot(&self, _: &str) -> Result<String, CheckpointFailure> {
            Ok("now".into())
        }
        fn changes(
            &self,
            from: &str,
            to: Option<&str>,
        ) -> Result<Vec<PathChange>, CheckpointFailure> {
            Ok(match (from, to) {
                ("a", Some("b")) => vec![added("agent.txt")],
                ("b", None) => vec![added("agent.txt"), added("elsewhere.txt")],
                _ => vec![],
            })
        }
        fn diff(&self, _: &str, _: Option<&str>) -> Result<String, CheckpointFailure> {
            Ok(String::new())
        }
        fn restore(&self, _: &str) -> Result<Restored, CheckpointFailure> {
            Err("the whole tree must not be restored".into())
        }
        fn restore_only(&self, _: &str, paths: &[String]) -> Result<Restored, CheckpointFailure> {
            self.restored_only.lock().unwrap().push(paths.to_vec());
            Ok(Restored {
                previous: "before-undo".into(),
                changed: vec![],
            })
        }
    }

    #[test]
    fn an_undo_restores_and_asks_about_only_the_paths_the_agent_changed() {
        let store = TwoSides::default();
        let records = session();
        let step = UndoStep::plan(&records, UndoRequest::Undo(None), UndoScope::Both).unwrap();
        assert_eq!(
            overwrites(&store, &records, &step).unwrap(),
            Overwrites::UserChanges(vec![added("agent.txt")])
        );
        carry_out(&step, Some(&store)).unwrap();
        assert_eq!(
            *store.restored_only.lock().unwrap(),
            [vec!["agent.txt".to_string()]]
        );
    }
}
