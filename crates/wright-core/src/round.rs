//! The round loop: from a user message to the model's final answer, one ReAct step at a time,
//! with the history written as it happens and compaction before the round when it is due.
//!
//! A [`Round`] holds what one round keeps while it runs (the step count, the usage, the
//! scratchpad, the malformed replies in a row) and the [`EventSink`] it reports to; its parts
//! are split by idea: fitting each request into the window (`request`), the model call
//! (`model_call`), the window the server says it has (`window`), the tool call (`tool_call`),
//! the step as history and the scratchpad keep it (`step`), and compaction before the round
//! (`compact`).

mod agent;
mod compact;
mod jobs;
mod model_call;
mod native;
mod request;
mod step;
mod tool_call;
mod window;

pub(crate) use agent::summary_client;
pub use agent::{Agent, AgentConfig, ToolProtocol, UnknownToolProtocol};
pub(crate) use native::{definitions_estimate, offered_tools};

use std::path::{Component, Path};

use wright_protocol::{
    Event, FailureCode, Message, MessageMetadata, ToolCall, ToolDefinition, ToolResult, Usage,
};
use wright_store::{CheckpointKind, RoundStatus, StoreError, UsageKind};

use crate::context::{ScratchStep, estimate_request};
use crate::error::RoundError;
use crate::instructions::Instructions;
use crate::mention;
use crate::react::{Action, FORMAT_REMINDER, Reply, parse_reply};
use crate::tiers::{HistoryView, tool_message};
use crate::trim::history_step_text;
use step::{StepRecord, interrupted_history_form};

/// Default cap on model calls in one round.
pub const DEFAULT_MAX_STEPS: u32 = 50;
/// Malformed replies in a row that end a round (DESIGN §2).
pub const MAX_MALFORMED_REPLIES: u32 = 3;

/// How a round ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundOutcome {
    /// The model answered.
    Finished {
        /// The answer.
        answer: String,
        /// Model calls made.
        steps: u32,
        /// Tokens billed over the round.
        usage: Usage,
    },
    /// The round stopped without an answer.
    Failed {
        /// Why, for programs.
        code: FailureCode,
        /// Why, for people.
        message: String,
    },
}

/// The tools whose `file_path` is a file they read or edit: glob rules follow them.
const FILE_TOOLS: [&str; 4] = ["Read", "Edit", "MultiEdit", "Write"];

/// `path` as the model gave it, relative to the project `root` with `/` between components,
/// for glob rules to match; `None` for a path outside the project.
fn project_relative(root: &Path, path: &str) -> Option<String> {
    let path = Path::new(path);
    let relative = if path.is_absolute() {
        path.strip_prefix(root).ok()?
    } else {
        path
    };
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            // `src/../src/lib.rs` is `src/lib.rs`; a `..` out of the project is not in it.
            Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// Where a round reports what happens.
pub(crate) type Events<'a> = &'a mut (dyn FnMut(Event) + Send);

/// Where a round or a compaction reports what happens: the front end's event callback.
pub(crate) struct EventSink<'a> {
    events: Events<'a>,
}

impl<'a> EventSink<'a> {
    pub(crate) fn new(events: Events<'a>) -> Self {
        Self { events }
    }

    /// Reports `event`.
    pub(crate) fn emit(&mut self, event: Event) {
        (self.events)(event);
    }

    /// A storage failure becomes a warning, never a lost round.
    pub(crate) fn warn_unsaved(&mut self, result: Result<(), StoreError>) {
        if let Err(e) = result {
            self.emit(Event::Warning {
                message: format!("the session could not be saved: {e}"),
            });
        }
    }
}

/// One round while it runs: the agent it runs on, where it reports, and what it keeps until
/// it ends (spec A2: the scratchpad is dropped with it).
pub(crate) struct Round<'a> {
    agent: &'a mut Agent,
    sink: EventSink<'a>,
    /// The user's input after @file preprocessing.
    input: String,
    /// L3 as the round sees it, snapshotted when the round opens.
    view: HistoryView,
    /// The model call being made, from 1.
    step: u32,
    /// Tokens billed over the round so far.
    usage: Usage,
    /// The round's steps with their full observations.
    scratchpad: Vec<ScratchStep>,
    /// Replies in a row that could not be read.
    malformed_in_a_row: u32,
    /// Whether L2's unreadable files were already reported this round.
    warned_instructions: bool,
    /// L2 as the last request read it: its rules give the steps' glob reminders.
    instructions: Instructions,
    /// The glob rules already sent this round, by file name (once per round each).
    rules_sent: Vec<String>,
    /// Whether a snapshot was taken before one of the round's steps (then one more is taken
    /// when it ends).
    checkpointed: bool,
    /// Native tool protocol: the tools the requests offer (none in the text protocol).
    offered: Vec<ToolDefinition>,
    /// The token estimate of `offered` as the request carries them.
    offered_estimate: u64,
}

impl Agent {
    /// Runs one round for `input`, reporting each step to `events`. Ends early with
    /// [`FailureCode::Interrupted`] once the tool context's cancellation token fires.
    pub async fn run_round(&mut self, input: &str, events: Events<'_>) -> RoundOutcome {
        Round::new(self, EventSink::new(events)).run(input).await
    }
}

impl<'a> Round<'a> {
    fn new(agent: &'a mut Agent, sink: EventSink<'a>) -> Self {
        Self {
            agent,
            sink,
            input: String::new(),
            view: HistoryView::default(),
            step: 0,
            usage: Usage::default(),
            scratchpad: Vec::new(),
            malformed_in_a_row: 0,
            warned_instructions: false,
            instructions: Instructions::default(),
            rules_sent: Vec::new(),
            checkpointed: false,
            offered: Vec::new(),
            offered_estimate: 0,
        }
    }

    /// Before the round: repair a step a crash cut off, preprocess the input, compact if due;
    /// then open the round and run its steps until an answer or a failure.
    async fn run(mut self, input: &str) -> RoundOutcome {
        self.sink.emit(Event::RoundStarted {
            prompt: input.to_string(),
        });
        let repaired = self.agent.history.repair_interrupted_step().map(|_| ());
        self.sink.warn_unsaved(repaired);
        let ctx = self.agent.ctx.clone();
        let exists = |path: &str| ctx.resolve(path).is_ok_and(|abs| abs.exists());
        let preprocessed = mention::preprocess(input, &exists);
        self.input = preprocessed.text;
        ctx.start_round(
            preprocessed
                .mentioned
                .iter()
                .filter_map(|path| ctx.resolve(path).ok())
                .collect(),
        );
        if ["RepoMap", "Definitions"]
            .iter()
            .any(|tool| self.agent.tools.get(tool).is_some())
        {
            wright_tools::warm_code_index(&ctx);
        }
        let ended = self.agent.take_ended_jobs();
        jobs::tell_with_input(&mut self.input, &ended);
        if let Err(error) = self.agent.compact_if_due(&self.input, &mut self.sink).await {
            return self.fail(error);
        }
        self.view = HistoryView::new(&self.agent.history);
        self.offer_tools();
        let opened = self.agent.history.open_round(&self.input);
        self.sink.warn_unsaved(opened);
        let steps = self.steps().await;
        if self.checkpointed {
            let step = self.step;
            let agent = &mut *self.agent;
            agent
                .checkpoints
                .take(
                    &mut agent.history,
                    step,
                    CheckpointKind::EndOfRound,
                    &mut self.sink,
                )
                .await;
        }
        match steps {
            Ok(answer) => self.finish(answer),
            Err(error) => self.fail(error),
        }
    }

    /// The ReAct steps, until the model answers or the round has to stop.
    async fn steps(&mut self) -> Result<String, RoundError> {
        let max_steps = self.agent.config.max_steps();
        for step in 1..=max_steps {
            self.step = step;
            let (request, completion, continued) = self.call_fitted().await?;
            // Every call is recorded, so cost counts them all; the last record is the call
            // whose request held the whole context, which the compaction trigger reads (A6/C7).
            // A continued reply's later requests also carry its first pieces: no calibration.
            let estimate = (!continued).then(|| estimate_request(&request) + self.offered_estimate);
            if let (Some(estimate), [only]) = (estimate, completion.calls.as_slice()) {
                self.agent.calibrate(estimate, only);
            }
            let model = &self.agent.llm.config().model;
            for call_usage in &completion.calls {
                self.usage.add(call_usage);
                self.sink.emit(Event::usage(call_usage));
                let recorded = self.agent.history.record_usage_estimated(
                    *call_usage,
                    UsageKind::Step,
                    model,
                    estimate,
                );
                self.sink.warn_unsaved(recorded);
            }
            if self.agent.config.tool_protocol == ToolProtocol::Native {
                if let Some(answer) = self.native_step(&completion).await? {
                    return Ok(answer);
                }
                if self.malformed_in_a_row >= MAX_MALFORMED_REPLIES {
                    return Err(RoundError::MalformedReplies);
                }
                continue;
            }
            let record = match parse_reply(&completion.text) {
                Reply::Answer(answer) if answer.is_empty() => StepRecord::format_error(
                    completion.text.clone(),
                    "your reply was empty.",
                    FORMAT_REMINDER,
                ),
                Reply::Answer(answer) => {
                    self.store(Message::assistant(answer.clone()), None);
                    return Ok(answer);
                }
                Reply::Step {
                    text,
                    action: Action::Finish(answer),
                } => {
                    self.store(Message::assistant(text), None);
                    return Ok(answer);
                }
                Reply::Step {
                    text,
                    action: Action::Tool(call),
                } => {
                    // D3: the step is written at once, so a Ctrl-C, kill or crash while the
                    // tool runs leaves its action in history for the next round to see.
                    let stored = history_step_text(&text, &call, self.agent.tools.get(&call.tool));
                    self.store(Message::assistant(stored), None);
                    let result = self.run_tool(&call).await;
                    match result {
                        Some(mut result) if !self.agent.cancellation().is_cancelled() => {
                            jobs::tell_with_result(&mut result, self.agent.take_ended_jobs());
                            let reminder = self.rule_reminders(&call, &result);
                            StepRecord::tool_step(text, call, result, FORMAT_REMINDER)
                                .with_reminder(reminder)
                        }
                        // Interrupted: what the tool returned before it was stopped (Bash's
                        // output so far, a write that finished) is kept; a call that never
                        // ran or was cut off says so.
                        result => {
                            let stored = interrupted_history_form(&call.tool, result.as_ref());
                            self.store(tool_message(&stored), Some(&call.tool));
                            return Err(RoundError::Interrupted);
                        }
                    }
                }
                Reply::Malformed { text, problem } => {
                    self.sink.emit(Event::FormatError {
                        step,
                        message: problem.clone(),
                    });
                    StepRecord::format_error(text, &problem, FORMAT_REMINDER)
                }
            };
            self.keep(record);
            if self.malformed_in_a_row >= MAX_MALFORMED_REPLIES {
                return Err(RoundError::MalformedReplies);
            }
        }
        Err(RoundError::MaxSteps { max_steps })
    }

    /// Writes a step to history in its compressed form and keeps it whole in the scratchpad
    /// (spec A2).
    fn keep(&mut self, record: StepRecord) {
        let StepRecord {
            text,
            stored_text,
            observation,
            compressed,
            tool,
            malformed,
            todos,
            reminder,
            tool_call_id,
            tool_calls,
        } = record;
        if let Some(stored_text) = stored_text {
            self.store(Message::assistant(stored_text), None);
        }
        let metadata = MessageMetadata {
            tool_name: tool,
            todos,
            tool_call_id: tool_call_id.clone(),
            ..MessageMetadata::default()
        };
        self.store_with(tool_message(&compressed), metadata);
        // A glob rule's reminder is part of the observation this round reads, in full or
        // compressed, but not of its history form: later rounds that touch no matching file
        // do not carry it (one that does gets it again).
        let reminder = reminder.unwrap_or_default();
        self.scratchpad.push(ScratchStep {
            assistant: text,
            tool_calls,
            tool_call_id,
            observation: observation + &reminder,
            compressed: compressed + &reminder,
            use_compressed: false,
        });
        self.malformed_in_a_row = if malformed {
            self.malformed_in_a_row + 1
        } else {
            0
        };
    }

    /// The `<system-reminder>`s of the glob rules matching the file a successful `Read`,
    /// `Edit`, `MultiEdit` or `Write` step touched, each rule once per round.
    fn rule_reminders(&mut self, call: &ToolCall, result: &ToolResult) -> Option<String> {
        if !FILE_TOOLS.contains(&call.tool.as_str()) || !result.is_success() {
            return None;
        }
        let path = call.args.get("file_path")?.as_str()?;
        let relative = project_relative(self.agent.ctx.root(), path)?;
        self.instructions
            .rules
            .reminders_for(&relative, &mut self.rules_sent)
    }

    /// Writes a message of this step to history; a storage failure becomes a warning.
    fn store(&mut self, message: Message, tool_name: Option<&str>) {
        let metadata = MessageMetadata {
            tool_name: tool_name.map(str::to_string),
            ..MessageMetadata::default()
        };
        self.store_with(message, metadata);
    }

    /// [`store`](Self::store) with more metadata; the step number is this step's.
    fn store_with(&mut self, mut message: Message, metadata: MessageMetadata) {
        message.metadata = MessageMetadata {
            step: Some(self.step),
            ..metadata
        };
        let written = self.agent.history.push(message);
        self.sink.warn_unsaved(written);
    }

    /// Ends the round with the model's answer.
    fn finish(mut self, answer: String) -> RoundOutcome {
        let ended = self.agent.history.end_round(RoundStatus::Finished);
        self.sink.warn_unsaved(ended);
        let (steps, usage) = (self.step, self.usage);
        self.sink.emit(Event::RoundFinished {
            answer: answer.clone(),
            steps,
            usage,
        });
        RoundOutcome::Finished {
            answer,
            steps,
            usage,
        }
    }

    /// Ends the round without an answer.
    fn fail(mut self, error: RoundError) -> RoundOutcome {
        let status = match error {
            RoundError::Interrupted => RoundStatus::Interrupted,
            _ => RoundStatus::Failed,
        };
        let ended = self.agent.history.end_round(status);
        self.sink.warn_unsaved(ended);
        let (code, message) = (error.code(), error.to_string());
        self.sink.emit(Event::Error {
            code,
            message: message.clone(),
        });
        RoundOutcome::Failed { code, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn glob_rules_see_paths_relative_to_the_project_root() {
        let root = Path::new("/work/project");
        assert_eq!(
            project_relative(root, "src/lib.rs").as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(
            project_relative(root, "./src/./lib.rs").as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(
            project_relative(root, "/work/project/src/lib.rs").as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(project_relative(root, "/etc/passwd"), None);
        assert_eq!(project_relative(root, "../other/lib.rs"), None);
        assert_eq!(
            project_relative(root, "src/../src/lib.rs").as_deref(),
            Some("src/lib.rs")
        );
    }
}
