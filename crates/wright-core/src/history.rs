//! The HistoryManager (spec A2, A4, D1, D2): the conversation as history keeps it — every
//! message with its time, which of them are archived, the summaries that stand for the archive,
//! and the last reported usage — written through to the session file as it happens.

use chrono::{DateTime, Utc};
use wright_protocol::{
    ErrorCode, HistoryResult, Message, MessageMetadata, Role, TodoItem, ToolStatus, Usage,
};
use wright_store::{
    CheckpointRecord, CompactionRecord, Record, RoundStatus, SessionFile, StoreError, UsageKind,
};

use crate::compaction::CompactionPlan;
use crate::react::{Action, Reply, parse_reply};
use crate::rewind::round_states;
use crate::stored::rounds;

/// A message and when it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// When it was written.
    pub at: DateTime<Utc>,
    /// The message.
    pub message: Message,
}

/// A summary of archived rounds (spec A5); part of L3, never summarised again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryEntry {
    /// The filled-in A5 template.
    pub text: String,
    /// Time of the first archived message it covers.
    pub start_time: DateTime<Utc>,
    /// Time of the last archived message it covers.
    pub cutoff_time: DateTime<Utc>,
}

/// The conversation history of one session.
#[derive(Debug, Default)]
pub struct HistoryManager {
    /// Every message of the session, in order; archived ones included (nothing is deleted).
    messages: Vec<Stored>,
    /// Messages before this index are archived.
    archived_end: usize,
    summaries: Vec<SummaryEntry>,
    /// The usage of the last step (summary calls do not count: the trigger is about the
    /// conversation's size, spec A6).
    last_usage: Option<Usage>,
    calibration: Option<f64>,
    /// Every usage record of the session, of every kind, in order (for `/cost`).
    usage_records: Vec<Record>,
    /// Index of the running round's user message.
    round_start: Option<usize>,
    /// Rounds the session has opened, undone ones included: the running round's number.
    rounds_opened: u32,
    /// The `read_history_lines` setting when it keeps fewer lines of a Read than spec A3's
    /// 500; `None` keeps the compressor's form as it is.
    read_history_lines: Option<usize>,
    file: Option<SessionFile>,
}

impl HistoryManager {
    /// Keeps at most `lines` lines of each Read's content in the tool messages written from
    /// now on (the `read_history_lines` setting; spec A3's 500 and above change nothing).
    /// Messages already written keep the form they were written with.
    pub fn set_read_history_lines(&mut self, lines: usize) {
        self.read_history_lines = (lines < wright_tools::READ_MAX_LINES).then_some(lines);
    }

    /// An empty history, written through to `file` when there is one.
    pub fn new(file: Option<SessionFile>) -> Self {
        Self {
            file,
            ..Self::default()
        }
    }

    /// Rebuilds the history of a stored session from its records. Rounds that `wright undo`
    /// undid are left out (their usage still counts for cost).
    pub fn replay(records: &[Record], file: Option<SessionFile>) -> Self {
        let mut history = Self::new(file);
        for (round, state) in rounds(records).zip(round_states(records)) {
            for usage in &round.usage {
                history.note_usage(usage);
            }
            if state.number.is_some() {
                history.rounds_opened += 1;
            }
            if state.undone {
                continue;
            }
            // A round's compactions ran before any of its messages were written.
            for compaction in &round.compactions {
                history.adopt(compaction);
            }
            history
                .messages
                .extend(round.messages().map(|stored| Stored {
                    at: stored.at,
                    message: stored.message.clone(),
                }));
        }
        history
    }

    /// Closes a round that a crash or a kill left open: a tool call whose result was never
    /// written gets an `interrupted` result, so the model is never shown an action without its
    /// observation (spec A4: a tool call and its result stay together). Written through to the
    /// session file; call it on a replayed history before opening the next round.
    pub fn repair_interrupted_step(&mut self) -> Result<bool, StoreError> {
        let missing = self.unanswered_calls();
        if missing.is_empty() {
            return Ok(false);
        }
        let result = HistoryResult::error(
            ErrorCode::Interrupted,
            "wright stopped before this step finished; its effects, if any, are unknown",
        );
        for metadata in missing {
            let mut message = Message::new(Role::Tool, result.to_json());
            message.metadata = metadata;
            self.push(message)?;
        }
        self.write(&Record::RoundEnd {
            at: Utc::now(),
            status: RoundStatus::Interrupted,
        })?;
        Ok(true)
    }

    /// The results a crash left unwritten, as the metadata of the tool messages that would
    /// hold them: the last message's text-protocol action, or the native calls of the last
    /// assistant message that no tool message after it answers (issue 19).
    fn unanswered_calls(&self) -> Vec<MessageMetadata> {
        let Some(at) = self
            .messages
            .iter()
            .rposition(|stored| stored.message.role != Role::Tool)
        else {
            return Vec::new();
        };
        let reply = &self.messages[at].message;
        if reply.role != Role::Assistant {
            return Vec::new();
        }
        if reply.metadata.tool_calls.is_empty() {
            let pending_call = at + 1 == self.messages.len()
                && matches!(
                    parse_reply(&reply.content),
                    Reply::Step {
                        action: Action::Tool(_),
                        ..
                    }
                );
            return if pending_call {
                vec![reply.metadata.clone()]
            } else {
                Vec::new()
            };
        }
        let answered: Vec<&str> = self.messages[at + 1..]
            .iter()
            .filter_map(|stored| stored.message.metadata.tool_call_id.as_deref())
            .collect();
        reply
            .metadata
            .tool_calls
            .iter()
            .filter(|call| !answered.contains(&call.id.as_str()))
            .map(|call| MessageMetadata {
                tool_name: Some(call.name.clone()),
                tool_call_id: Some(call.id.clone()),
                step: reply.metadata.step,
                ..MessageMetadata::default()
            })
            .collect()
    }

    fn adopt(&mut self, compaction: &CompactionRecord) {
        self.archived_end = compaction.archived_end.min(self.messages.len());
        if let Some(text) = &compaction.summary {
            self.summaries.push(SummaryEntry {
                text: text.clone(),
                start_time: compaction.start_time,
                cutoff_time: compaction.cutoff_time,
            });
        }
    }

    fn write(&mut self, record: &Record) -> Result<(), StoreError> {
        match &mut self.file {
            Some(file) => file.append(record),
            None => Ok(()),
        }
    }

    /// Records the session file could not take (0 without a file): the session on disk
    /// lacks them.
    pub fn unsaved_records(&self) -> usize {
        self.file.as_ref().map_or(0, SessionFile::unsaved_records)
    }

    /// The retained history before the running round (all of it between rounds): what L3
    /// renders after the summaries.
    pub fn retained(&self) -> &[Stored] {
        let end = self.round_start.unwrap_or(self.messages.len());
        &self.messages[self.archived_end.min(end)..end]
    }

    /// The summaries, oldest first.
    pub fn summaries(&self) -> &[SummaryEntry] {
        &self.summaries
    }

    /// Every message ever written, archived ones included.
    pub fn all_messages(&self) -> &[Stored] {
        &self.messages
    }

    /// The usage the provider reported for the last model call, if any.
    pub fn last_usage(&self) -> Option<&Usage> {
        self.last_usage.as_ref()
    }

    /// The todo list of the last successful TodoWrite call, archived rounds included, so a
    /// continued session gets its list back (the list itself lives in memory only). The tool
    /// message keeps the list beside the recap; sessions from before that keep it only in the
    /// step's action.
    pub fn last_todo_list(&self) -> Option<Vec<TodoItem>> {
        let succeeded = |message: &Message| {
            message.role == Role::Tool
                && message.metadata.tool_name.as_deref() == Some("TodoWrite")
                && serde_json::from_str::<HistoryResult>(&message.content)
                    .is_ok_and(|result| result.status == ToolStatus::Success)
        };
        let (index, tool) = self
            .messages
            .iter()
            .enumerate()
            .rev()
            .find(|(_, stored)| succeeded(&stored.message))?;
        if let Some(todos) = &tool.message.metadata.todos {
            return Some(todos.clone());
        }
        let step = self.messages[..index]
            .iter()
            .rev()
            .find(|stored| stored.message.role == Role::Assistant)?;
        match parse_reply(&step.message.content) {
            Reply::Step {
                action: Action::Tool(call),
                ..
            } if call.tool == "TodoWrite" => {
                serde_json::from_value(call.args.get("todos")?.clone()).ok()
            }
            _ => None,
        }
    }

    /// Opens a round with the user's message (as sent, reminders included; DESIGN §9.1).
    /// The message is kept in memory even if writing it fails; the error is returned for the
    /// caller to report.
    pub fn open_round(&mut self, text: &str) -> Result<(), StoreError> {
        self.round_start = Some(self.messages.len());
        self.rounds_opened += 1;
        self.push(Message::user(text))
    }

    /// The number of the running round (or of the last one, between rounds), counting the
    /// session's rounds from 1 as `sessions show` does, undone ones included.
    pub fn round_number(&self) -> u32 {
        self.rounds_opened
    }

    /// Where the session is stored, if it is.
    pub fn file_path(&self) -> Option<&std::path::Path> {
        self.file.as_ref().map(SessionFile::path)
    }

    /// Records a commit of the agent's changes (issue 13, `[git]`).
    pub fn record_commit(&mut self, commit: wright_store::CommitRecord) -> Result<(), StoreError> {
        self.write(&Record::Commit(commit))
    }

    /// Records a snapshot of the project's files (issue 13).
    pub fn record_checkpoint(&mut self, checkpoint: CheckpointRecord) -> Result<(), StoreError> {
        self.write(&Record::Checkpoint(checkpoint))
    }

    /// Appends an assistant step or a compressed tool result (a Read's content cut to the
    /// `read_history_lines` setting, spec C1: the history module writes the history form).
    pub fn push(&mut self, mut message: Message) -> Result<(), StoreError> {
        if let Some(lines) = self.read_history_lines
            && message.role == Role::Tool
            && message.metadata.tool_name.as_deref() == Some("Read")
            && let Some(capped) = wright_tools::cap_read_content(&message.content, lines)
        {
            message.content = capped;
        }
        let stored = Stored {
            at: Utc::now(),
            message,
        };
        let record = Record::Message {
            at: stored.at,
            message: stored.message.clone(),
        };
        self.messages.push(stored);
        self.write(&record)
    }

    /// Notes the provider-reported usage of a call to `model`. Only a step's usage becomes the
    /// [`last_usage`](Self::last_usage) that the compaction trigger reads.
    pub fn record_usage(
        &mut self,
        usage: Usage,
        kind: UsageKind,
        model: &str,
    ) -> Result<(), StoreError> {
        self.record_usage_estimated(usage, kind, model, None)
    }

    /// [`record_usage`](Self::record_usage) with wright's own estimate of the request, which
    /// calibrates later estimates (see [`calibration`](Self::calibration)).
    pub fn record_usage_estimated(
        &mut self,
        usage: Usage,
        kind: UsageKind,
        model: &str,
        local_estimate: Option<u64>,
    ) -> Result<(), StoreError> {
        let record = Record::Usage {
            at: Utc::now(),
            usage,
            kind,
            model: Some(model.to_string()),
            local_estimate,
        };
        self.note_usage(&record);
        self.write(&record)
    }

    /// Takes in a usage record, live or replayed.
    fn note_usage(&mut self, record: &Record) {
        if let Record::Usage {
            usage,
            kind: UsageKind::Step,
            local_estimate,
            ..
        } = record
        {
            self.last_usage = Some(*usage);
            if let Some(estimate) = local_estimate.filter(|e| *e > 0)
                && usage.prompt_tokens > 0
            {
                self.calibration = Some(usage.prompt_tokens as f64 / estimate as f64);
            }
        }
        self.usage_records.push(record.clone());
    }

    /// Provider tokens per locally estimated token, from the last step whose usage and
    /// estimate were both recorded.
    pub fn calibration(&self) -> Option<f64> {
        self.calibration
    }

    /// Every usage record of the session, replayed ones included, in order: what
    /// [`session_cost`](crate::cost::session_cost) reads.
    pub fn usage_records(&self) -> &[Record] {
        &self.usage_records
    }

    /// Records an undo or a redo (`record`, a [`Record::Rewind`] or [`Record::Redo`]) after
    /// the session's `stored` records, and rebuilds the history as [`replay`](Self::replay)
    /// would from both: the rounds it undid leave the conversation, or come back. Not during
    /// a round.
    pub fn apply_rewind(&mut self, stored: &[Record], record: Record) -> Result<(), StoreError> {
        self.write(&record)?;
        let mut records = stored.to_vec();
        records.push(record);
        let file = self.file.take();
        *self = Self::replay(&records, file);
        Ok(())
    }

    /// Closes the running round.
    pub fn end_round(&mut self, status: RoundStatus) -> Result<(), StoreError> {
        self.round_start = None;
        self.write(&Record::RoundEnd {
            at: Utc::now(),
            status,
        })
    }

    /// The messages a plan would archive (a prefix of [`retained`](Self::retained)).
    pub fn to_archive(&self, plan: &CompactionPlan) -> &[Stored] {
        let retained = self.retained();
        &retained[..plan.archive_len.min(retained.len())]
    }

    /// Archives what `plan` covers and appends its summary after the earlier ones; records the
    /// compaction in the session file. Returns the record written. A summary archives; so
    /// does a summary call that timed out (no summary, no `error`: spec E2), and one that
    /// failed (`error`) when history no longer fits the window.
    pub fn apply_compaction(
        &mut self,
        plan: &CompactionPlan,
        summary: Option<String>,
        error: Option<String>,
    ) -> Result<CompactionRecord, StoreError> {
        let timed_out = summary.is_none() && error.is_none();
        let archived = self.to_archive(plan);
        let now = Utc::now();
        let start_time = archived.first().map_or(now, |m| m.at);
        let cutoff_time = archived.last().map_or(now, |m| m.at);
        let record = CompactionRecord {
            at: now,
            archived_end: self.archived_end + archived.len(),
            archived_rounds: plan.archived_rounds,
            summary,
            timed_out,
            error,
            start_time,
            cutoff_time,
        };
        self.adopt(&record);
        self.write(&Record::Compaction(record.clone()))?;
        Ok(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan_compaction;
    use pretty_assertions::assert_eq;

    fn round(history: &mut HistoryManager, i: usize) {
        history.open_round(&format!("q{i}")).unwrap();
        history.push(Message::assistant(format!("a{i}"))).unwrap();
        history.end_round(RoundStatus::Finished).unwrap();
    }

    #[test]
    fn replay_leaves_out_undone_rounds_but_counts_them() {
        let at = Utc::now();
        let message = |role: Role, text: &str| Record::Message {
            at,
            message: Message::new(role, text),
        };
        let end = Record::RoundEnd {
            at,
            status: RoundStatus::Finished,
        };
        let records = vec![
            message(Role::User, "q1"),
            message(Role::Assistant, "a1"),
            end.clone(),
            message(Role::User, "q2"),
            message(Role::Assistant, "a2"),
            end.clone(),
            Record::Rewind(wright_store::RewindRecord {
                at,
                from_round: 2,
                restored: None,
                to: None,
            }),
            message(Role::User, "q3"),
            message(Role::Assistant, "a3"),
            end,
        ];
        let history = HistoryManager::replay(&records, None);
        assert_eq!(
            contents(history.retained()),
            vec!["q1", "a1", "q3", "a3"],
            "round 2 is undone"
        );
        assert_eq!(history.round_number(), 3);
    }

    fn contents(messages: &[Stored]) -> Vec<&str> {
        messages
            .iter()
            .map(|m| m.message.content.as_str())
            .collect()
    }

    #[test]
    fn the_running_round_is_not_part_of_the_retained_history() {
        let mut history = HistoryManager::new(None);
        round(&mut history, 1);
        history.open_round("q2").unwrap();
        history.push(Message::assistant("step")).unwrap();
        assert_eq!(contents(history.retained()), vec!["q1", "a1"]);
        history.end_round(RoundStatus::Finished).unwrap();
        assert_eq!(contents(history.retained()), vec!["q1", "a1", "q2", "step"]);
    }

    #[test]
    fn compaction_archives_a_prefix_and_keeps_every_message() {
        let mut history = HistoryManager::new(None);
        for i in 0..4 {
            round(&mut history, i);
        }
        let messages: Vec<Message> = history
            .retained()
            .iter()
            .map(|m| m.message.clone())
            .collect();
        let plan = plan_compaction(&messages, 2).unwrap();
        let record = history
            .apply_compaction(&plan, Some("summary one".into()), None)
            .unwrap();
        assert_eq!(record.archived_end, 4);
        assert_eq!(contents(history.retained()), vec!["q2", "a2", "q3", "a3"]);
        assert_eq!(history.summaries()[0].text, "summary one");
        assert_eq!(history.all_messages().len(), 8);
    }

    #[test]
    fn a_step_cut_off_by_a_crash_gets_an_interrupted_result() {
        let mut history = HistoryManager::new(None);
        history.open_round("go").unwrap();
        history
            .push(Message::assistant(
                "Thought: run\nAction: Bash[{\"command\": \"make\"}]",
            ))
            .unwrap();
        assert!(history.repair_interrupted_step().unwrap());
        let last = &history.all_messages().last().unwrap().message;
        assert_eq!(last.role, Role::Tool);
        assert!(last.content.contains("\"code\":\"interrupted\""));
        assert!(
            last.content
                .starts_with(r#"{"status":"error","data":null,"error":"#),
            "spec E1 order: {}",
            last.content
        );
        assert!(
            !history.repair_interrupted_step().unwrap(),
            "nothing left to repair"
        );
    }

    #[test]
    fn native_calls_a_crash_left_unanswered_get_interrupted_results() {
        let mut history = HistoryManager::new(None);
        history.open_round("go").unwrap();
        let mut reply = Message::assistant("");
        reply.metadata.tool_calls = vec![
            wright_protocol::NativeToolCall::new("a", "Read", "{}"),
            wright_protocol::NativeToolCall::new("b", "Grep", "{}"),
            wright_protocol::NativeToolCall::new("c", "Bash", "{}"),
        ];
        history.push(reply).unwrap();
        let mut first = Message::new(Role::Tool, r#"{"status":"success"}"#);
        first.metadata.tool_call_id = Some("a".into());
        history.push(first).unwrap();
        assert!(history.repair_interrupted_step().unwrap());
        let added: Vec<(Option<&str>, Option<&str>, bool)> = history.all_messages()[3..]
            .iter()
            .map(|stored| {
                let m = &stored.message;
                (
                    m.metadata.tool_call_id.as_deref(),
                    m.metadata.tool_name.as_deref(),
                    m.content.contains("\"code\":\"interrupted\""),
                )
            })
            .collect();
        assert_eq!(
            added,
            vec![
                (Some("b"), Some("Grep"), true),
                (Some("c"), Some("Bash"), true)
            ]
        );
        assert!(!history.repair_interrupted_step().unwrap());
    }

    #[test]
    fn read_results_are_written_with_the_read_history_lines_setting() {
        let content: Vec<String> = (1..=800).map(|n| format!("line {n}")).collect();
        let read = wright_protocol::ToolResult::success(
            "FULL",
            serde_json::json!({"file_path": "big.txt", "offset": 1, "lines_shown": 800,
                "total_lines": 800, "content": content.join("\n")}),
        );
        let tool = |name: &str| Message {
            role: Role::Tool,
            content: wright_tools::compress_to_string(name, &read),
            metadata: wright_protocol::MessageMetadata {
                tool_name: Some(name.into()),
                step: Some(1),
                ..wright_protocol::MessageMetadata::default()
            },
        };
        let mut history = HistoryManager::new(None);
        history.set_read_history_lines(2);
        history.open_round("read it").unwrap();
        history.push(tool("Read")).unwrap();
        history.push(tool("Other")).unwrap();
        let stored: Vec<serde_json::Value> = history.messages[1..]
            .iter()
            .map(|s| serde_json::from_str(&s.message.content).unwrap())
            .collect();
        assert_eq!(stored[0]["data"]["content"], "line 1\nline 2");
        assert_eq!(stored[0]["data"]["content_lines_dropped"], 798);
        assert_eq!(
            stored[1],
            serde_json::from_str::<serde_json::Value>(&tool("Other").content).unwrap(),
            "only Read results are cut"
        );
        let mut spec = HistoryManager::new(None);
        spec.set_read_history_lines(wright_tools::READ_MAX_LINES);
        spec.push(tool("Read")).unwrap();
        assert_eq!(
            spec.messages[0].message,
            tool("Read"),
            "500 is the spec's form"
        );
    }

    #[test]
    fn the_last_successful_todo_list_is_recovered() {
        let mut history = HistoryManager::new(None);
        history.open_round("plan").unwrap();
        let step = |todos: &str| {
            Message::assistant(format!(
                "Thought: plan\nAction: TodoWrite[{{\"todos\": {todos}}}]"
            ))
        };
        let result = |status: &str| Message {
            role: Role::Tool,
            content: format!("{{\"status\":\"{status}\"}}"),
            metadata: wright_protocol::MessageMetadata {
                tool_name: Some("TodoWrite".into()),
                step: Some(1),
                ..wright_protocol::MessageMetadata::default()
            },
        };
        history
            .push(step(
                r#"[{"id": "1", "content": "a", "status": "in_progress"}]"#,
            ))
            .unwrap();
        history.push(result("success")).unwrap();
        assert_eq!(history.last_todo_list().unwrap()[0].content, "a");
        history
            .push(step(r#"[{"id": "1", "content": "b", "status": "bogus"}]"#))
            .unwrap();
        history.push(result("error")).unwrap();
        assert_eq!(
            history.last_todo_list().unwrap()[0].content,
            "a",
            "a failed call leaves the list as it was"
        );
    }

    #[test]
    fn replay_restores_archive_summaries_and_usage() {
        let home = tempfile::TempDir::new().unwrap();
        let store = wright_store::SessionStore::new(home.path(), std::path::Path::new("/p"));
        let (_, file) = store.create(Some("s")).unwrap();
        let mut history = HistoryManager::new(Some(file));
        for i in 0..3 {
            round(&mut history, i);
        }
        history
            .record_usage(
                Usage {
                    total_tokens: 42,
                    ..Usage::default()
                },
                UsageKind::Step,
                "m",
            )
            .unwrap();
        history
            .record_usage(
                Usage {
                    total_tokens: 7,
                    ..Usage::default()
                },
                UsageKind::Summary,
                "small",
            )
            .unwrap();
        let messages: Vec<Message> = history
            .retained()
            .iter()
            .map(|m| m.message.clone())
            .collect();
        let plan = plan_compaction(&messages, 1).unwrap();
        history.apply_compaction(&plan, None, None).unwrap();
        round(&mut history, 3);
        let history_usage = history.usage_records().to_vec();
        assert_eq!(history_usage.len(), 2);
        assert_eq!(history.last_usage().unwrap().total_tokens, 42);
        drop(history);

        let loaded = store.find_named("s").unwrap().unwrap();
        let replayed = HistoryManager::replay(&loaded.records, None);
        assert_eq!(contents(replayed.retained()), vec!["q2", "a2", "q3", "a3"]);
        assert!(
            replayed.summaries().is_empty(),
            "a timed-out compaction has no summary"
        );
        assert_eq!(
            replayed.last_usage().unwrap().total_tokens,
            42,
            "the last usage is the last step's, not the summary's"
        );
        assert_eq!(replayed.usage_records(), history_usage.as_slice());
        assert_eq!(replayed.all_messages().len(), 8);
    }
}
