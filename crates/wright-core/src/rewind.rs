//! What `wright undo`, `wright diff` and `sessions show` read from a session's records
//! (issue 13): which rounds are undone, which checkpoint an undo restores, which snapshots a
//! diff compares, and what the files should look like if nobody but the agent touched them.
//! Pure functions of the records; taking and restoring snapshots is the front end's business
//! (through `wright-checkpoint`).
//!
//! Rounds are numbered as `sessions show` numbers them: from 1, one per user request. A
//! [`Record::Rewind`] from round N undoes every round from N's on that came before it in the
//! file; a [`Record::Redo`] takes back the last rewind not taken back yet.

use wright_protocol::text::first_line;
use wright_store::{CheckpointKind, CheckpointRecord, Record, RewindRecord};

use crate::stored::{StoredRound, rounds};

/// Characters of a round's request shown in the list of rounds to choose from.
const REQUEST_PREVIEW_CHARS: usize = 60;

/// One round as undo and diff see it.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundState<'a> {
    /// Its number (from 1); `None` for a round that stopped before its request was stored.
    pub number: Option<u32>,
    /// The first line of its request, shortened.
    pub request: String,
    /// Whether a rewind undid it (and no redo brought it back).
    pub undone: bool,
    /// The snapshots taken during it, in order.
    pub checkpoints: Vec<&'a CheckpointRecord>,
    /// Where its first record is.
    start: usize,
}

impl RoundState<'_> {
    /// The snapshot taken before its first step that could change files.
    pub fn first_checkpoint(&self) -> Option<&CheckpointRecord> {
        self.checkpoints
            .iter()
            .copied()
            .find(|c| c.kind == CheckpointKind::BeforeStep)
    }

    /// The snapshot taken when it ended, if it changed files and ended.
    pub fn end_checkpoint(&self) -> Option<&CheckpointRecord> {
        self.checkpoints
            .iter()
            .copied()
            .rfind(|c| c.kind == CheckpointKind::EndOfRound)
    }
}

/// The rounds of a session with what undo needs to know of each, in file order.
pub fn round_states(records: &[Record]) -> Vec<RoundState<'_>> {
    let mut number = 0;
    let mut states: Vec<RoundState<'_>> = rounds(records)
        .map(|round: StoredRound<'_>| {
            let numbered = round.request.map(|request| {
                number += 1;
                (number, preview(&request.message.content))
            });
            RoundState {
                number: numbered.as_ref().map(|(n, _)| *n),
                request: numbered.map(|(_, text)| text).unwrap_or_default(),
                undone: false,
                checkpoints: round.checkpoints,
                start: round.start,
            }
        })
        .collect();
    for (first, before) in active_rewinds(records, &states) {
        for state in &mut states {
            if state.start >= first && state.start < before {
                state.undone = true;
            }
        }
    }
    states
}

/// The rewinds in force, each as (start of its first round, its place in the file).
fn active_rewinds(records: &[Record], states: &[RoundState<'_>]) -> Vec<(usize, usize)> {
    let mut active = Vec::new();
    for (place, record) in records.iter().enumerate() {
        match record {
            Record::Rewind(rewind) => {
                let first = states
                    .iter()
                    .find(|s| s.number == Some(rewind.from_round))
                    .map_or(place, |s| s.start);
                active.push((first, place));
            }
            Record::Redo(_) => {
                active.pop();
            }
            _ => {}
        }
    }
    active
}

fn preview(request: &str) -> String {
    let line = first_line(request.trim_start());
    if line.chars().count() > REQUEST_PREVIEW_CHARS {
        let cut: String = line.chars().take(REQUEST_PREVIEW_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// Why an undo or a redo cannot be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UndoError {
    /// The session has no round left to undo.
    #[error("the session has no round to undo")]
    NoRounds,
    /// The round asked for is not one of the session's, or is undone already.
    #[error("round {asked} {why}")]
    UnknownRound {
        /// The round asked for.
        asked: u32,
        /// "is not in this session" or "is undone already".
        why: &'static str,
        /// The rounds that can be undone: number and the first line of the request.
        choices: Vec<(u32, String)>,
    },
    /// No rewind to take back.
    #[error("nothing to redo: the session has no undo that was not taken back")]
    NothingToRedo,
    /// Rounds ran after the last undo, so bringing its rounds back would mix two histories.
    #[error(
        "cannot redo the undo of round {from_round}: {} ran after it",
        wright_protocol::text::plural(*rounds, "round")
    )]
    RoundsSince {
        /// The first round of the rewind.
        from_round: u32,
        /// How many rounds ran after it.
        rounds: usize,
    },
}

/// What an undo does: which rounds it undoes and which snapshot it restores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoPlan {
    /// The first round undone (every later round is undone too).
    pub from_round: u32,
    /// The snapshot to restore: the first taken before a file-changing step in the rounds
    /// undone; `None` when none of them changed files.
    pub to: Option<String>,
}

/// The undo of `round` (default: the last round not undone yet).
pub fn plan_undo(records: &[Record], round: Option<u32>) -> Result<UndoPlan, UndoError> {
    let states = round_states(records);
    let live = || states.iter().filter(|s| !s.undone);
    let from_round = match round {
        Some(asked) => {
            let state = states.iter().find(|s| s.number == Some(asked));
            match state {
                Some(state) if !state.undone => asked,
                found => {
                    return Err(UndoError::UnknownRound {
                        asked,
                        why: if found.is_some() {
                            "is undone already"
                        } else {
                            "is not in this session"
                        },
                        choices: choices(&states),
                    });
                }
            }
        }
        None => live()
            .filter_map(|s| s.number)
            .next_back()
            .ok_or(UndoError::NoRounds)?,
    };
    let first = states
        .iter()
        .position(|s| s.number == Some(from_round))
        .unwrap_or(states.len());
    let to = states[first..]
        .iter()
        .filter(|s| !s.undone)
        .find_map(|s| s.first_checkpoint())
        .map(|c| c.id.clone());
    Ok(UndoPlan { from_round, to })
}

/// The rounds that can be undone, for an error that lists them.
pub fn choices(states: &[RoundState<'_>]) -> Vec<(u32, String)> {
    states
        .iter()
        .filter(|s| !s.undone)
        .filter_map(|s| Some((s.number?, s.request.clone())))
        .collect()
}

/// The rewind a redo takes back: the last one in force, if no round ran after it.
pub fn plan_redo(records: &[Record]) -> Result<RewindRecord, UndoError> {
    let states = round_states(records);
    let (_, place) = *active_rewinds(records, &states)
        .last()
        .ok_or(UndoError::NothingToRedo)?;
    let Some(Record::Rewind(rewind)) = records.get(place) else {
        return Err(UndoError::NothingToRedo);
    };
    let since = states
        .iter()
        .filter(|s| s.start >= place && s.number.is_some())
        .count();
    if since > 0 {
        return Err(UndoError::RoundsSince {
            from_round: rewind.from_round,
            rounds: since,
        });
    }
    Ok(rewind.clone())
}

/// What the project's files should be, as far as the session knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KnownFiles {
    /// The session never snapshotted the files.
    Never,
    /// As this snapshot had them: the last the agent took, or the last undo or redo restored.
    Snapshot(String),
    /// Unknown: the last round that changed files did not end (wright was killed during a
    /// step), so its last step's changes cannot be told apart from anyone else's.
    CutOff(String),
}

/// What the files should be if nobody but the agent (and `wright undo`) changed them.
pub fn known_files(records: &[Record]) -> KnownFiles {
    let mut known = KnownFiles::Never;
    for record in records {
        match record {
            Record::Checkpoint(c) if c.kind == CheckpointKind::EndOfRound => {
                known = KnownFiles::Snapshot(c.id.clone());
            }
            Record::Checkpoint(c) => known = KnownFiles::CutOff(c.id.clone()),
            Record::Rewind(RewindRecord { to: Some(to), .. })
            | Record::Redo(RewindRecord { to: Some(to), .. }) => {
                known = KnownFiles::Snapshot(to.clone());
            }
            _ => {}
        }
    }
    known
}

/// The snapshots a diff compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRange {
    /// The first snapshot of the session (or the round).
    pub from: String,
    /// Its end snapshot; `None` when it has none (the round did not end): the project now.
    pub to: Option<String>,
}

/// What `wright diff` compares for the session's rounds not undone, or for round `round`.
/// `Ok(None)`: no file-changing step was checkpointed there.
pub fn diff_range(records: &[Record], round: Option<u32>) -> Result<Option<DiffRange>, UndoError> {
    let states = round_states(records);
    let chosen: Vec<&RoundState<'_>> = match round {
        Some(asked) => match states.iter().find(|s| s.number == Some(asked)) {
            Some(state) => vec![state],
            None => {
                return Err(UndoError::UnknownRound {
                    asked,
                    why: "is not in this session",
                    choices: choices(&states),
                });
            }
        },
        None => states.iter().filter(|s| !s.undone).collect(),
    };
    let Some(from) = chosen.iter().find_map(|s| s.first_checkpoint()) else {
        return Ok(None);
    };
    let last = chosen.iter().rev().find(|s| !s.checkpoints.is_empty());
    let to = last.and_then(|s| s.end_checkpoint()).map(|c| c.id.clone());
    Ok(Some(DiffRange {
        from: from.id.clone(),
        to,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use pretty_assertions::assert_eq;
    use wright_protocol::Message;
    use wright_store::RoundStatus;

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn request(text: &str) -> Record {
        Record::Message {
            at: at(),
            message: Message::user(text),
        }
    }

    fn end() -> Record {
        Record::RoundEnd {
            at: at(),
            status: RoundStatus::Finished,
        }
    }

    fn checkpoint(round: u32, id: &str, kind: CheckpointKind) -> Record {
        Record::Checkpoint(CheckpointRecord {
            at: at(),
            round,
            step: 1,
            id: id.into(),
            kind,
        })
    }

    fn rewind(from_round: u32, to: Option<&str>) -> Record {
        Record::Rewind(RewindRecord {
            at: at(),
            from_round,
            restored: Some("before-undo".into()),
            to: to.map(str::to_string),
        })
    }

    /// Round 1 reads only; round 2 changes files (a, then b, ending at c); round 3 asks only.
    fn session() -> Vec<Record> {
        vec![
            request("look around"),
            end(),
            request("fix it\nplease"),
            checkpoint(2, "a", CheckpointKind::BeforeStep),
            checkpoint(2, "b", CheckpointKind::BeforeStep),
            checkpoint(2, "c", CheckpointKind::EndOfRound),
            end(),
            request("thanks"),
            end(),
        ]
    }

    #[test]
    fn an_undo_restores_the_first_checkpoint_of_the_first_round_undone_that_has_one() {
        let records = session();
        assert_eq!(
            plan_undo(&records, Some(2)).unwrap(),
            UndoPlan {
                from_round: 2,
                to: Some("a".into())
            }
        );
        assert_eq!(
            plan_undo(&records, Some(1)).unwrap().to.as_deref(),
            Some("a"),
            "round 1 changed nothing, round 2 did"
        );
        assert_eq!(
            plan_undo(&records, None).unwrap(),
            UndoPlan {
                from_round: 3,
                to: None
            },
            "the last round changed no files"
        );
    }

    #[test]
    fn rewound_rounds_are_undone_until_a_redo_and_later_rounds_are_not() {
        let mut records = session();
        records.push(rewind(2, Some("a")));
        let undone = |records: &[Record]| -> Vec<bool> {
            round_states(records).iter().map(|s| s.undone).collect()
        };
        assert_eq!(undone(&records), vec![false, true, true]);
        assert_eq!(plan_undo(&records, None).unwrap().from_round, 1);
        let error = plan_undo(&records, Some(3)).unwrap_err();
        assert_eq!(
            error,
            UndoError::UnknownRound {
                asked: 3,
                why: "is undone already",
                choices: vec![(1, "look around".into())],
            }
        );
        assert_eq!(plan_redo(&records).unwrap().from_round, 2);
        assert_eq!(known_files(&records), KnownFiles::Snapshot("a".into()));

        let mut redone = records.clone();
        redone.push(Record::Redo(RewindRecord {
            at: at(),
            from_round: 2,
            restored: Some("x".into()),
            to: Some("before-undo".into()),
        }));
        assert_eq!(undone(&redone), vec![false, false, false]);
        assert_eq!(plan_redo(&redone), Err(UndoError::NothingToRedo));

        records.extend([request("new work"), end()]);
        assert_eq!(undone(&records), vec![false, true, true, false]);
        assert_eq!(
            plan_redo(&records),
            Err(UndoError::RoundsSince {
                from_round: 2,
                rounds: 1
            })
        );
    }

    #[test]
    fn an_unknown_round_lists_the_rounds_with_their_first_lines() {
        let error = plan_undo(&session(), Some(9)).unwrap_err();
        assert_eq!(
            error,
            UndoError::UnknownRound {
                asked: 9,
                why: "is not in this session",
                choices: vec![
                    (1, "look around".into()),
                    (2, "fix it".into()),
                    (3, "thanks".into())
                ],
            }
        );
    }

    #[test]
    fn a_round_killed_mid_step_leaves_the_files_unknown_and_diffs_to_now() {
        let records = vec![
            request("go"),
            checkpoint(1, "a", CheckpointKind::BeforeStep),
        ];
        assert_eq!(known_files(&records), KnownFiles::CutOff("a".into()));
        assert_eq!(
            diff_range(&records, None).unwrap(),
            Some(DiffRange {
                from: "a".into(),
                to: None
            })
        );
        assert_eq!(plan_undo(&records, None).unwrap().to.as_deref(), Some("a"));
    }

    #[test]
    fn a_diff_runs_from_the_first_checkpoint_to_the_last_end() {
        let records = session();
        let range = Some(DiffRange {
            from: "a".into(),
            to: Some("c".into()),
        });
        assert_eq!(diff_range(&records, None).unwrap(), range);
        assert_eq!(diff_range(&records, Some(2)).unwrap(), range);
        assert_eq!(diff_range(&records, Some(1)).unwrap(), None);
        assert_eq!(known_files(&records), KnownFiles::Snapshot("c".into()));
    }
}
