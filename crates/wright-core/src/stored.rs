//! Rounds as a session file stores them: [`rounds`] groups a session's records into rounds —
//! the user's request, each step with its tool result, how the round ended, the usage of its
//! model calls — for replaying the history, showing a session and recapping it.
//!
//! Records are read in file order (spec A4, D1: a user message opens a round). A round's end
//! record closes it. What comes after one round's end and before the next request belongs to
//! the next round: in a file wright wrote, that is the compaction that ran before the round
//! opened, with its summary call's usage. A round that a crash left open ends where the next
//! request comes, or where a compaction does, since compaction only runs between rounds. An
//! end record with no request before it is a round that stopped before its request was stored
//! (its compaction was interrupted). Every message, usage and compaction record lands in
//! exactly one round, in order, so the history replayed from the rounds is the one written.
//!
//! The record types are `wright-store`'s, but what they mean for the conversation — rounds,
//! steps, answers — is this crate's: reading an answer takes the ReAct parser.

use chrono::{DateTime, Utc};
use wright_protocol::{Message, Role, ToolCall, Usage};
use wright_store::{CheckpointRecord, CompactionRecord, Record, RoundStatus, UsageKind};

use crate::react::{Action, Reply, parse_reply};

/// A stored message and when it was written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredMessage<'a> {
    /// When it was written.
    pub at: DateTime<Utc>,
    /// The message.
    pub message: &'a Message,
}

/// One step of a stored round: what the model wrote and the tool result written after it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredStep<'a> {
    /// The model's `Thought/Action` text or its answer (a summary message, in files written by
    /// hand); `None` for a tool result with no step before it.
    pub reply: Option<StoredMessage<'a>>,
    /// The compressed tool result; `None` for an answer, or for a step a crash cut off before
    /// its result was written.
    pub result: Option<StoredMessage<'a>>,
}

impl StoredStep<'_> {
    /// The tool call the step's reply makes, if it makes one: its action, or a native reply's
    /// first call (issue 19; its arguments `null` when they are not JSON).
    pub fn call(&self) -> Option<ToolCall> {
        let message = self.model_text()?;
        if let Some(native) = message.metadata.tool_calls.first() {
            return Some(ToolCall {
                tool: native.name.clone(),
                args: serde_json::from_str(&native.arguments).unwrap_or_default(),
            });
        }
        match parse_reply(&message.content) {
            Reply::Step {
                action: Action::Tool(call),
                ..
            } => Some(call),
            _ => None,
        }
    }

    /// The answer, if the step's reply is one: a `Finish` action's or a reply without an
    /// action (DESIGN §9.6) or native tool call.
    pub fn answer(&self) -> Option<String> {
        let message = self.model_text()?;
        if !message.metadata.tool_calls.is_empty() {
            return None;
        }
        match parse_reply(&message.content) {
            Reply::Step {
                action: Action::Finish(answer),
                ..
            }
            | Reply::Answer(answer) => Some(answer),
            _ => None,
        }
    }

    /// Whether a crash cut the step off: it called a tool and no result was written.
    pub fn is_cut_off(&self) -> bool {
        self.result.is_none() && self.call().is_some()
    }

    /// The reply, when the model wrote it.
    fn model_text(&self) -> Option<&Message> {
        self.reply
            .map(|reply| reply.message)
            .filter(|message| message.role == Role::Assistant)
    }
}

/// How a stored round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundEnd {
    /// When.
    pub at: DateTime<Utc>,
    /// How.
    pub status: RoundStatus,
}

/// One round as the session file holds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredRound<'a> {
    /// Compactions that ran before the round opened, oldest first.
    pub compactions: Vec<&'a CompactionRecord>,
    /// The user's message that opened the round; `None` for a round that stopped before it
    /// was stored, or for messages before the session's first request.
    pub request: Option<StoredMessage<'a>>,
    /// The steps, in order.
    pub steps: Vec<StoredStep<'a>>,
    /// How the round ended; `None` when no end was written (wright was killed, or the round
    /// is still running).
    pub end: Option<RoundEnd>,
    /// The round's usage records (each a [`Record::Usage`]), in order: its steps' and the
    /// summary call of a compaction before it.
    pub usage: Vec<&'a Record>,
    /// The snapshots of the project's files taken during the round, in order (issue 13).
    pub checkpoints: Vec<&'a CheckpointRecord>,
    /// Where the round's first record is in the records read.
    pub start: usize,
}

impl<'a> StoredRound<'a> {
    /// The round's messages in the order they were written: the request, then each step's
    /// reply and result.
    pub fn messages(&self) -> impl Iterator<Item = StoredMessage<'a>> + '_ {
        self.request.into_iter().chain(
            self.steps
                .iter()
                .flat_map(|step| step.reply.into_iter().chain(step.result)),
        )
    }

    /// The model's answer: what the round's last model reply answers, if it is an answer.
    pub fn answer(&self) -> Option<String> {
        self.steps
            .iter()
            .rev()
            .find(|step| step.model_text().is_some())
            .and_then(StoredStep::answer)
    }

    /// Tokens the provider reported over the round's model calls.
    pub fn usage_total(&self) -> Usage {
        let mut total = Usage::default();
        for record in &self.usage {
            if let Record::Usage { usage, .. } = record {
                total.add(usage);
            }
        }
        total
    }

    /// Whether anything of the round was read.
    fn is_empty(&self) -> bool {
        self.compactions.is_empty()
            && self.request.is_none()
            && self.steps.is_empty()
            && self.end.is_none()
            && self.usage.is_empty()
            && self.checkpoints.is_empty()
    }

    /// Whether the round has begun: its request or a step was read. A compaction after that
    /// starts the next round.
    fn has_begun(&self) -> bool {
        self.request.is_some() || !self.steps.is_empty()
    }

    /// Adds a reply or a result: a result completes the last step if it has none.
    fn add_step_message(&mut self, stored: StoredMessage<'a>) {
        if stored.message.role == Role::Tool
            && let Some(step) = self.steps.last_mut()
            && step.result.is_none()
        {
            step.result = Some(stored);
            return;
        }
        let step = if stored.message.role == Role::Tool {
            StoredStep {
                reply: None,
                result: Some(stored),
            }
        } else {
            StoredStep {
                reply: Some(stored),
                result: None,
            }
        };
        self.steps.push(step);
    }
}

/// The rounds of a session, from its records in file order (see the [module](self) for how
/// records are grouped).
pub fn rounds(records: &[Record]) -> Rounds<'_> {
    Rounds { records, next: 0 }
}

/// The iterator [`rounds`] returns.
#[derive(Debug, Clone)]
pub struct Rounds<'a> {
    records: &'a [Record],
    next: usize,
}

impl<'a> Iterator for Rounds<'a> {
    type Item = StoredRound<'a>;

    fn next(&mut self) -> Option<StoredRound<'a>> {
        let mut round = StoredRound {
            start: self.next,
            ..StoredRound::default()
        };
        while let Some(record) = self.records.get(self.next) {
            match record {
                // What `wright undo` and commits did is read by `rewind` and `commit`, apart
                // from the rounds.
                Record::Meta(_) | Record::Rewind(_) | Record::Redo(_) | Record::Commit(_) => {}
                Record::Checkpoint(checkpoint) => round.checkpoints.push(checkpoint),
                Record::Message { at, message } => {
                    let stored = StoredMessage { at: *at, message };
                    match message.role {
                        Role::User if round.has_begun() => break,
                        Role::User => round.request = Some(stored),
                        _ => round.add_step_message(stored),
                    }
                }
                Record::Usage {
                    kind: UsageKind::Summary,
                    ..
                } if round.has_begun() => break,
                Record::Usage { .. } => round.usage.push(record),
                Record::Compaction(_) if round.has_begun() => break,
                Record::Compaction(compaction) => round.compactions.push(compaction),
                Record::RoundEnd { at, status } => {
                    round.end = Some(RoundEnd {
                        at: *at,
                        status: *status,
                    });
                    self.next += 1;
                    return Some(round);
                }
            }
            self.next += 1;
        }
        (!round.is_empty()).then_some(round)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use wright_protocol::MessageMetadata;

    #[test]
    fn a_native_reply_is_a_call_not_an_answer() {
        let mut reply = Message::assistant("Looking.");
        reply.metadata.tool_calls = vec![wright_protocol::NativeToolCall::new(
            "c1",
            "Read",
            r#"{"file_path": "a"}"#,
        )];
        let step = StoredStep {
            reply: Some(StoredMessage {
                at: at(1),
                message: &reply,
            }),
            result: None,
        };
        assert_eq!(step.answer(), None);
        assert_eq!(
            step.call(),
            Some(ToolCall {
                tool: "Read".into(),
                args: serde_json::json!({"file_path": "a"}),
            })
        );
        assert!(step.is_cut_off());
    }

    fn at(second: u32) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(&format!("2026-11-22T08:00:{second:02}Z"))
            .unwrap()
            .with_timezone(&Utc)
    }

    fn message(second: u32, role: Role, content: &str) -> Record {
        Record::Message {
            at: at(second),
            message: Message {
                role,
                content: content.into(),
                metadata: MessageMetadata::default(),
            },
        }
    }

    fn usage(second: u32, kind: UsageKind, total: u64) -> Record {
        Record::Usage {
            at: at(second),
            usage: Usage {
                total_tokens: total,
                ..Usage::default()
            },
            kind,
            model: None,
            local_estimate: None,
        }
    }

    fn end(second: u32, status: RoundStatus) -> Record {
        Record::RoundEnd {
            at: at(second),
            status,
        }
    }

    fn compaction(second: u32) -> Record {
        Record::Compaction(CompactionRecord {
            at: at(second),
            archived_end: 2,
            archived_rounds: 1,
            summary: Some("gist".into()),
            timed_out: false,
            error: None,
            start_time: at(0),
            cutoff_time: at(1),
        })
    }

    const CALL: &str = "Thought: look\nAction: Read[{\"file_path\": \"a\"}]";
    const RESULT: &str = r#"{"status":"success","data":{}}"#;

    /// What a round is made of, for comparing whole rounds: the request, each step as
    /// (reply, result), the end, the usage total, the compactions before it.
    fn shape(round: &StoredRound<'_>) -> Shape {
        let content = |m: Option<StoredMessage<'_>>| m.map(|m| m.message.content.clone());
        Shape {
            compactions: round.compactions.len(),
            request: content(round.request),
            steps: round
                .steps
                .iter()
                .map(|s| (content(s.reply), content(s.result)))
                .collect(),
            end: round.end.map(|e| e.status),
            tokens: round.usage_total().total_tokens,
        }
    }

    #[derive(Debug, PartialEq)]
    struct Shape {
        compactions: usize,
        request: Option<String>,
        steps: Vec<(Option<String>, Option<String>)>,
        end: Option<RoundStatus>,
        tokens: u64,
    }

    fn step(reply: &str, result: Option<&str>) -> (Option<String>, Option<String>) {
        (Some(reply.into()), result.map(str::to_string))
    }

    #[test]
    fn a_round_is_its_request_its_steps_with_results_its_end_and_its_usage() {
        let records = vec![
            message(1, Role::User, "q"),
            usage(2, UsageKind::Step, 10),
            message(2, Role::Assistant, CALL),
            message(3, Role::Tool, RESULT),
            usage(4, UsageKind::Step, 5),
            message(4, Role::Assistant, "Thought: done\nAction: Finish[yes]"),
            end(5, RoundStatus::Finished),
        ];
        let rounds: Vec<StoredRound<'_>> = rounds(&records).collect();
        assert_eq!(rounds.len(), 1);
        assert_eq!(
            shape(&rounds[0]),
            Shape {
                compactions: 0,
                request: Some("q".into()),
                steps: vec![
                    step(CALL, Some(RESULT)),
                    step("Thought: done\nAction: Finish[yes]", None),
                ],
                end: Some(RoundStatus::Finished),
                tokens: 15,
            }
        );
        assert_eq!(rounds[0].answer().as_deref(), Some("yes"));
        assert_eq!(
            rounds[0].steps[0].call().map(|c| c.tool).as_deref(),
            Some("Read")
        );
        let written: Vec<&str> = rounds[0]
            .messages()
            .map(|m| m.message.content.as_str())
            .collect();
        assert_eq!(
            written,
            vec!["q", CALL, RESULT, "Thought: done\nAction: Finish[yes]"]
        );
    }

    #[test]
    fn an_interrupted_round_ends_with_its_status_and_no_answer() {
        let records = vec![
            message(1, Role::User, "q"),
            message(2, Role::Assistant, CALL),
            message(3, Role::Tool, RESULT),
            end(4, RoundStatus::Interrupted),
            message(5, Role::User, "next"),
        ];
        let shapes: Vec<Shape> = rounds(&records).map(|r| shape(&r)).collect();
        assert_eq!(
            shapes,
            vec![
                Shape {
                    compactions: 0,
                    request: Some("q".into()),
                    steps: vec![step(CALL, Some(RESULT))],
                    end: Some(RoundStatus::Interrupted),
                    tokens: 0,
                },
                Shape {
                    compactions: 0,
                    request: Some("next".into()),
                    steps: vec![],
                    end: None,
                    tokens: 0,
                },
            ]
        );
        assert_eq!(rounds(&records).next().and_then(|r| r.answer()), None);
    }

    #[test]
    fn a_step_a_crash_cut_off_keeps_its_call_and_gets_the_repaired_result() {
        let cut = vec![
            message(1, Role::User, "q"),
            message(2, Role::Assistant, CALL),
        ];
        let round = rounds(&cut).next().unwrap();
        assert!(round.steps[0].is_cut_off());
        assert_eq!(round.end, None, "no end was written");

        // The next run writes an interrupted result and an end before its own round.
        let interrupted = r#"{"status":"error","data":null,"error":{"code":"interrupted"}}"#;
        let mut repaired = cut.clone();
        repaired.extend([
            message(3, Role::Tool, interrupted),
            end(3, RoundStatus::Interrupted),
            message(4, Role::User, "again"),
        ]);
        let first = rounds(&repaired).next().unwrap();
        assert_eq!(
            shape(&first).steps,
            vec![step(CALL, Some(interrupted))],
            "the result joins its call"
        );
        assert!(!first.steps[0].is_cut_off());
        assert_eq!(rounds(&repaired).count(), 2);
    }

    #[test]
    fn a_compaction_and_its_summary_usage_open_the_next_round() {
        let records = vec![
            message(1, Role::User, "q1"),
            message(2, Role::Assistant, "Action: Finish[a]"),
            end(3, RoundStatus::Finished),
            usage(4, UsageKind::Summary, 7),
            compaction(5),
            message(6, Role::User, "q2"),
        ];
        let shapes: Vec<Shape> = rounds(&records).map(|r| shape(&r)).collect();
        assert_eq!(shapes[1].compactions, 1);
        assert_eq!(shapes[1].tokens, 7);
        assert_eq!(shapes[1].request.as_deref(), Some("q2"));
        assert_eq!(shapes.len(), 2);
    }

    #[test]
    fn a_compaction_after_a_round_left_open_ends_that_round() {
        let records = vec![
            message(1, Role::User, "q1"),
            message(2, Role::Assistant, CALL),
            message(3, Role::Tool, RESULT),
            usage(4, UsageKind::Summary, 7),
            compaction(5),
            message(6, Role::User, "q2"),
        ];
        let shapes: Vec<Shape> = rounds(&records).map(|r| shape(&r)).collect();
        assert_eq!(shapes.len(), 2);
        assert_eq!((shapes[0].end, shapes[0].tokens), (None, 0));
        assert_eq!((shapes[1].compactions, shapes[1].tokens), (1, 7));
    }

    #[test]
    fn an_end_without_a_request_is_a_round_of_its_own() {
        let records = vec![
            message(1, Role::User, "q1"),
            end(2, RoundStatus::Finished),
            end(3, RoundStatus::Interrupted),
        ];
        let shapes: Vec<Shape> = rounds(&records).map(|r| shape(&r)).collect();
        assert_eq!(shapes.len(), 2);
        assert_eq!(shapes[1].request, None);
        assert_eq!(shapes[1].end, Some(RoundStatus::Interrupted));
    }

    #[test]
    fn every_message_is_in_exactly_one_round_in_file_order() {
        let records = vec![
            message(0, Role::Tool, "orphan result"),
            message(1, Role::Assistant, "stray"),
            message(2, Role::User, "q1"),
            message(3, Role::Tool, "r0"),
            message(4, Role::Tool, "r1"),
            message(5, Role::Summary, "old summary"),
            end(6, RoundStatus::Failed),
            message(7, Role::Assistant, "late"),
            compaction(8),
            message(9, Role::User, "q2"),
        ];
        let written: Vec<String> = rounds(&records)
            .flat_map(|r| {
                r.messages()
                    .map(|m| m.message.content.clone())
                    .collect::<Vec<_>>()
            })
            .collect();
        let expected: Vec<String> = records
            .iter()
            .filter_map(|r| match r {
                Record::Message { message, .. } => Some(message.content.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(written, expected);
        assert_eq!(rounds(&[]).next(), None);
    }
}
