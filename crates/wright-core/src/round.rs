//! The round loop: from a user message to the model's final answer, one ReAct step at a time,
//! with the history written as it happens and compaction before the round when it is due.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use wright_llm::{ChatRequest, LlmClient, LlmError, StreamEvent};
use wright_protocol::{ErrorCode, Event, FailureCode, Message, MessageMetadata, ToolCall};
use wright_protocol::{HistoryResult, ToolResult, Usage, UsageCall};
use wright_store::{RoundStatus, StoreError, UsageKind};
use wright_tools::{ToolContext, ToolRegistry};

use crate::approval::{ApprovalMode, Approvals, Approver, Gate};
use crate::code_law;
use crate::compaction::{CompactionPlan, ContextSettings, check_trigger, plan_compaction};
use crate::context::{ScratchStep, estimate_request};
use crate::history::HistoryManager;
use crate::hooks::{HookOutcome, Hooks};
use crate::mention;
use crate::prompt::system_prompt;
use crate::react::{Action, FORMAT_REMINDER, Reply, ReplyStream, parse_reply};
use crate::summarize::{SummaryCall, SummaryFailure, summarize};
use crate::summary::result_summary;
use crate::tiers::{HistoryView, tool_message};
use crate::trim::history_step_text;

/// Default cap on model calls in one round.
pub const DEFAULT_MAX_STEPS: u32 = 50;
/// Malformed replies in a row that end a round (DESIGN §2).
pub const MAX_MALFORMED_REPLIES: u32 = 3;
/// Bounds of the factor that calibrates the local `len // 3` estimate against the provider's
/// own count of the last request (tokenizers differ: about 3 to 4 characters a token).
const CALIBRATION_RANGE: (f64, f64) = (0.5, 2.0);

/// How a round is run.
#[derive(Debug, Clone, Default)]
pub struct AgentConfig {
    /// Model calls allowed in one round before it is stopped (0 means the default).
    pub max_steps: u32,
    /// Window, threshold, retained rounds, summary settings.
    pub context: ContextSettings,
}

impl AgentConfig {
    fn max_steps(&self) -> u32 {
        if self.max_steps == 0 {
            DEFAULT_MAX_STEPS
        } else {
            self.max_steps
        }
    }
}

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

/// Where a round reports what happens.
pub(crate) type Events<'a> = &'a mut (dyn FnMut(Event) + Send);

/// The agent: a model, the tools, the project they work in, and the session's history.
pub struct Agent {
    llm: LlmClient,
    summary_llm: LlmClient,
    tools: ToolRegistry,
    ctx: ToolContext,
    system: String,
    config: AgentConfig,
    history: HistoryManager,
    approvals: Approvals,
    hooks: Hooks,
    /// Provider tokens per locally estimated token, from the last request whose usage came
    /// back; 1.0 until one has.
    calibration: f64,
}

impl Agent {
    /// An agent over `tools` in the project of `ctx`, continuing `history`. The system prompt
    /// is built once here, so every request of the session starts with the same bytes. Fails
    /// only if the summary model's client cannot be made.
    pub fn new(
        llm: LlmClient,
        tools: ToolRegistry,
        ctx: ToolContext,
        config: AgentConfig,
        history: HistoryManager,
    ) -> Result<Self, LlmError> {
        let summary_llm = match &config.context.summary_model {
            Some(model) if *model != llm.config().model => {
                let mut summary_config = llm.config().clone();
                summary_config.model = model.clone();
                LlmClient::new(summary_config)?
            }
            _ => llm.clone(),
        };
        let system = system_prompt(&tools);
        Ok(Self {
            llm,
            summary_llm,
            tools,
            ctx,
            system,
            config,
            calibration: history.calibration().map_or(1.0, clamp_calibration),
            history,
            approvals: Approvals::default(),
            hooks: Hooks::default(),
        })
    }

    /// Runs `hooks` around every tool call (see [`hooks`](crate::hooks)).
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Asks `approver` before a command or a file change that `mode` does not allow (see
    /// [`approval`](crate::approval)). Without this, everything runs without asking
    /// ([`ApprovalMode::Auto`]). With a mode that asks and no approver, such actions are denied.
    /// Kinds approved "always" stay approved for this agent's lifetime.
    pub fn with_approvals(
        mut self,
        mode: ApprovalMode,
        approver: Option<Arc<dyn Approver>>,
    ) -> Self {
        self.approvals = Approvals::new(mode, approver);
        self
    }

    /// The system prompt (layer L1) every request starts with.
    pub fn system_prompt(&self) -> &str {
        &self.system
    }

    /// The session's history.
    pub fn history(&self) -> &HistoryManager {
        &self.history
    }

    fn cancellation(&self) -> &CancellationToken {
        self.ctx.cancellation()
    }

    /// Uses `token` to stop the next round (Ctrl-C). A cancelled token stays cancelled, so an
    /// interactive session gives every round a fresh one.
    pub fn set_cancellation(&mut self, token: CancellationToken) {
        self.ctx = self.ctx.clone().with_cancellation(token);
    }

    /// Switches the model for the next rounds (the summary model too, unless one is set).
    pub fn set_model(&mut self, model: &str) -> Result<(), LlmError> {
        let mut config = self.llm.config().clone();
        config.model = model.to_string();
        let llm = LlmClient::new(config)?;
        if self.config.context.summary_model.is_none() {
            self.summary_llm = llm.clone();
        }
        self.llm = llm;
        Ok(())
    }

    /// The model the next round talks to.
    pub fn model(&self) -> &str {
        &self.llm.config().model
    }

    /// The current todo list.
    pub fn todos(&self) -> Vec<wright_protocol::TodoItem> {
        self.ctx.todos()
    }

    /// The context settings (window, threshold, retained rounds).
    pub fn context_settings(&self) -> &ContextSettings {
        &self.config.context
    }

    /// Compacts now (`/compact`), whatever the usage: archives every whole round before the
    /// last `retain_rounds` and summarises them. `Ok(false)` when there is nothing to archive.
    pub async fn compact_now(&mut self, events: Events<'_>) -> Result<bool, String> {
        let retained: Vec<Message> = self
            .history
            .retained()
            .iter()
            .map(|stored| stored.message.clone())
            .collect();
        let Some(plan) = plan_compaction(&retained, self.config.context.retain_rounds) else {
            return Ok(false);
        };
        let estimated_tokens = self.history.last_usage().map_or(0, |u| u.total_tokens);
        let threshold = self.config.context.threshold();
        self.compact(plan, estimated_tokens, threshold, events)
            .await
            .map_err(|(_, message)| message)?;
        Ok(true)
    }

    /// Runs one round for `input`, reporting each step to `events`. Ends early with
    /// [`FailureCode::Interrupted`] once the tool context's cancellation token fires.
    pub async fn run_round(&mut self, input: &str, events: Events<'_>) -> RoundOutcome {
        events(Event::RoundStarted {
            prompt: input.to_string(),
        });
        let repaired = self.history.repair_interrupted_step().map(|_| ());
        self.warn_on_store_error(repaired, events);
        let ctx = self.ctx.clone();
        let exists = |path: &str| ctx.resolve(path).is_ok_and(|abs| abs.exists());
        let input = mention::preprocess(input, &exists).text;
        if let Err(outcome) = self.compact_if_due(&input, events).await {
            return self.fail(outcome, events);
        }
        let mut view = HistoryView::new(&self.history);
        let mut round = RoundState::default();
        let opened = self.history.open_round(&input);
        self.warn_on_store_error(opened, events);
        let max_steps = self.config.max_steps();
        for step in 1..=max_steps {
            let request = match self.fit_request(&input, &mut view, &mut round, events) {
                Ok(request) => request,
                Err(message) => return self.fail((FailureCode::ContextOverflow, message), events),
            };
            let (completion, continued) = match self.call_model(&request, events).await {
                Ok(called) => called,
                Err(outcome) => return self.fail(outcome, events),
            };
            if let Some(call_usage) = completion.usage {
                // A continued reply's usage covers several requests: no calibration from it.
                let estimate = (!continued).then(|| estimate_request(&request));
                if let Some(estimate) = estimate {
                    self.calibrate(estimate, &call_usage);
                }
                round.usage.add(&call_usage);
                events(Event::usage(&call_usage));
                let model = &self.llm.config().model;
                let recorded = self.history.record_usage_estimated(
                    call_usage,
                    UsageKind::Step,
                    model,
                    estimate,
                );
                self.warn_on_store_error(recorded, events);
            }
            let step_record = match parse_reply(&completion.text) {
                Reply::Answer(answer) if answer.is_empty() => {
                    StepRecord::format_error(completion.text.clone(), "your reply was empty.")
                }
                Reply::Answer(answer) => {
                    self.store(Message::assistant(answer.clone()), step, None, events);
                    return self.finish(answer, step, round.usage, events);
                }
                Reply::Step {
                    text,
                    action: Action::Finish(answer),
                } => {
                    self.store(Message::assistant(text), step, None, events);
                    return self.finish(answer, step, round.usage, events);
                }
                Reply::Step {
                    text,
                    action: Action::Tool(call),
                } => {
                    let result = self.run_tool(step, &call, events).await;
                    let Some(result) = result.filter(|_| !self.cancellation().is_cancelled())
                    else {
                        return self.fail(interrupted(), events);
                    };
                    let malformed = is_malformed_call(&result);
                    StepRecord {
                        stored_text: history_step_text(
                            &text,
                            &call,
                            self.tools.get(&call.tool).map(|t| t.kind()),
                        ),
                        compressed: wright_tools::compress_to_string(&call.tool, &result),
                        observation: if malformed {
                            format!("{}\n{FORMAT_REMINDER}", result.text)
                        } else {
                            result.text
                        },
                        text,
                        tool: Some(call.tool),
                        malformed,
                    }
                }
                Reply::Malformed { text, problem } => {
                    events(Event::FormatError {
                        step,
                        message: problem.clone(),
                    });
                    StepRecord::format_error(text, &problem)
                }
            };
            let StepRecord {
                text,
                stored_text,
                observation,
                compressed,
                tool,
                malformed,
            } = step_record;
            self.store(Message::assistant(stored_text), step, None, events);
            self.store(tool_message(&compressed), step, tool.as_deref(), events);
            round.scratchpad.push(ScratchStep {
                assistant: text,
                observation,
                compressed,
                use_compressed: false,
            });
            round.note_reply(malformed);
            if let Some(outcome) = round.too_many_malformed() {
                return self.fail(outcome, events);
            }
        }
        let message = format!(
            "Stopped after {max_steps} steps without an answer. Raise `max_steps` in .wright/config.toml, \
             or split the task into smaller requests."
        );
        self.fail((FailureCode::MaxSteps, message), events)
    }

    /// Spec A6/C7/D6: before a round opens, compact if the last usage plus the new input
    /// reaches the threshold. Blocks until the summary is made, fails or times out.
    async fn compact_if_due(
        &mut self,
        input: &str,
        events: Events<'_>,
    ) -> Result<(), (FailureCode, String)> {
        let settings = &self.config.context;
        let last_total =
            match self.history.last_usage() {
                Some(usage) => usage.total_tokens,
                // A provider that reports no usage: estimate what the next request would hold.
                None => self.calibrated(estimate_request(
                    &HistoryView::new(&self.history).request(&self.system, None, "", &[], None),
                )),
            };
        let retained: Vec<Message> = self
            .history
            .retained()
            .iter()
            .map(|stored| stored.message.clone())
            .collect();
        let trigger = check_trigger(last_total, input, retained.len(), settings);
        if !trigger.compact {
            return Ok(());
        }
        let Some(plan) = plan_compaction(&retained, settings.retain_rounds) else {
            // Everything left is within the rounds that must be kept; the request builder
            // compresses their tool results harder if they do not fit (DESIGN §9.3).
            return Ok(());
        };
        self.compact(plan, trigger.estimated_tokens, trigger.threshold, events)
            .await
    }

    /// Archives what `plan` covers, with a summary if the summary call succeeds (spec A4–A6).
    async fn compact(
        &mut self,
        plan: CompactionPlan,
        estimated_tokens: u64,
        threshold: u64,
        events: Events<'_>,
    ) -> Result<(), (FailureCode, String)> {
        events(Event::CompactionStarted {
            estimated_tokens,
            threshold,
        });
        let tokens_before = HistoryView::new(&self.history).estimate(&self.system);
        let archived = self.history.to_archive(&plan).to_vec();
        let timeout = self.config.context.summary_timeout;
        let SummaryCall { summary, usage } = tokio::select! {
            call = summarize(&self.summary_llm, &archived, timeout) => call,
            () = self.cancellation().cancelled() => return Err(interrupted()),
        };
        if let Some(usage) = usage {
            events(Event::usage_of(&usage, UsageCall::Summary));
            let model = &self.summary_llm.config().model;
            let recorded = self.history.record_usage(usage, UsageKind::Summary, model);
            self.warn_on_store_error(recorded, events);
        }
        let (summary, timed_out, error) = match summary {
            Ok(summary) => (Some(summary), false, None),
            Err(SummaryFailure::TimedOut) => (None, true, None),
            Err(SummaryFailure::Failed(cause)) => (None, false, Some(cause)),
        };
        let applied =
            self.history
                .apply_compaction(&plan, summary.clone(), timed_out, error.clone());
        self.warn_on_store_error(applied.map(|_| ()), events);
        events(Event::CompactionFinished {
            archived_rounds: u32::try_from(plan.archived_rounds).unwrap_or(u32::MAX),
            summary,
            timed_out,
            error,
            tokens_before,
            tokens_after: HistoryView::new(&self.history).estimate(&self.system),
        });
        Ok(())
    }

    /// Builds the next request and makes it fit the window (DESIGN §9.3): first the oldest
    /// scratchpad observations fall back to their compressed form, then the retained history's
    /// tool results are compressed harder; if it still does not fit, the round ends.
    fn fit_request(
        &self,
        input: &str,
        view: &mut HistoryView,
        round: &mut RoundState,
        events: Events<'_>,
    ) -> Result<ChatRequest, String> {
        let code_law = match code_law::load(self.ctx.root()) {
            Ok(law) => law,
            Err(problem) => {
                if !round.warned_code_law {
                    round.warned_code_law = true;
                    events(Event::Warning {
                        message: format!("{problem}; sending the request without project rules"),
                    });
                }
                None
            }
        };
        let recap = wright_tools::todo_recap(&self.ctx.todos());
        let settings = &self.config.context;
        let limit = settings
            .context_window
            .saturating_sub(u64::from(self.llm.config().max_output_tokens));
        // DESIGN §9.3: the retained rounds alone past the threshold, with nothing left that
        // compaction could archive, are compressed harder.
        let threshold = settings.threshold();
        let nothing_to_archive = plan_compaction(view.messages(), settings.retain_rounds).is_none();
        if !view.is_tight()
            && nothing_to_archive
            && self.calibrated(view.estimate(&self.system)) >= threshold
        {
            view.tighten();
        }
        loop {
            let request = view.request(
                &self.system,
                code_law.as_ref(),
                input,
                &round.scratchpad,
                recap.as_deref(),
            );
            let estimated = self.calibrated(estimate_request(&request));
            if estimated <= limit {
                return Ok(request);
            }
            if let Some(step) = round.scratchpad.iter_mut().find(|s| !s.use_compressed) {
                step.use_compressed = true;
            } else if !view.is_tight() {
                view.tighten();
            } else {
                return Err(format!(
                    "The next request would need about {estimated} tokens, more than fits the context window \
                     ({} tokens, less {} reserved for the reply), even with every observation compressed. \
                     Start a new session, or raise `context_window` if the model allows more.",
                    settings.context_window,
                    self.llm.config().max_output_tokens
                ));
            }
        }
    }

    /// The local estimate scaled by the provider's own count of the last request.
    fn calibrated(&self, estimate: u64) -> u64 {
        (estimate as f64 * self.calibration) as u64
    }

    /// Learns how the provider's token count relates to the local estimate of `request`.
    fn calibrate(&mut self, estimate: u64, usage: &Usage) {
        if usage.prompt_tokens > 0 && estimate > 0 {
            self.calibration = clamp_calibration(usage.prompt_tokens as f64 / estimate as f64);
        }
    }

    /// Writes a message to history; a storage failure becomes a warning, never a lost round.
    fn store(
        &mut self,
        mut message: Message,
        step: u32,
        tool_name: Option<&str>,
        events: Events<'_>,
    ) {
        message.metadata = MessageMetadata {
            tool_name: tool_name.map(str::to_string),
            step: Some(step),
        };
        let written = self.history.push(message);
        self.warn_on_store_error(written, events);
    }

    fn warn_on_store_error(&self, result: Result<(), StoreError>, events: Events<'_>) {
        if let Err(e) = result {
            events(Event::Warning {
                message: format!("the session could not be saved: {e}"),
            });
        }
    }

    /// One model call, streaming its thought to `events`; also says whether the reply was
    /// continued after hitting the output limit (its usage then covers several requests).
    async fn call_model(
        &self,
        request: &ChatRequest,
        events: Events<'_>,
    ) -> Result<(wright_llm::Completion, bool), (FailureCode, String)> {
        let mut stream = ReplyStream::new();
        let mut continued = false;
        let mut on_event = |event: StreamEvent| match event {
            StreamEvent::Text(piece) => {
                if let Some(thought) = stream.push(&piece) {
                    events(Event::AssistantDelta {
                        text: thought.to_string(),
                    });
                }
            }
            StreamEvent::Reasoning(piece) => events(Event::ReasoningDelta { text: piece }),
            StreamEvent::Retry {
                attempt,
                max_attempts,
                reason,
                delay,
            } => {
                stream.reset();
                events(Event::Retry {
                    attempt,
                    max_attempts,
                    reason,
                    delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                });
            }
            StreamEvent::Continuation { attempt } => {
                continued = true;
                events(Event::Continuation { attempt });
            }
        };
        let result = tokio::select! {
            result = self.llm.complete(request, &mut on_event) => result,
            () = self.cancellation().cancelled() => return Err(interrupted()),
        };
        let completion = result.map_err(|e| (FailureCode::Provider, e.to_string()))?;
        if let Some(rest) = stream.finish() {
            events(Event::AssistantDelta {
                text: rest.to_string(),
            });
        }
        Ok((completion, continued))
    }

    /// Runs a tool call (unknown tools included: the registry answers those with an error).
    /// In order: the registry's refusals (the dangerous-command checker, protected files),
    /// the `pre_tool` hooks, approval when the mode requires it, the call, the `post_tool`
    /// hooks. A call refused, blocked or denied does not run and its result says why; the
    /// user is never asked about a call that would be refused anyway. `None` when the user
    /// interrupted.
    async fn run_tool(
        &mut self,
        step: u32,
        call: &ToolCall,
        events: Events<'_>,
    ) -> Option<ToolResult> {
        events(Event::ToolCall {
            step,
            tool: call.tool.clone(),
            args: call.args.clone(),
        });
        let cancel = self.cancellation().clone();
        let result = match self.tools.prepare(call, &self.ctx) {
            Err(refusal) => *refusal,
            Ok(mut prepared) => match self.hooks.pre_tool(call, self.ctx.root(), &cancel).await {
                HookOutcome::Interrupted => return None,
                HookOutcome::Failed(message) => {
                    let message = self.tools.masker().mask(&message).into_owned();
                    let mut blocked = ToolResult::error(ErrorCode::Blocked, message);
                    blocked.context = call.args.clone();
                    blocked
                }
                HookOutcome::Passed => {
                    let gate = self
                        .approvals
                        .gate(step, &mut prepared, &self.ctx, events)
                        .await;
                    match gate {
                        Gate::Run => {
                            let mut result = prepared.run(&self.ctx).await;
                            self.after_hooks(call, &mut result, &cancel).await;
                            result
                        }
                        Gate::Refused => prepared.refuse(),
                        Gate::Denied(result) => result,
                        Gate::Interrupted => return None,
                    }
                }
            },
        };
        events(Event::ToolResult {
            step,
            tool: call.tool.clone(),
            status: result.status,
            summary: result_summary(&call.tool, &result),
            data: result.data.clone(),
            error: result.error.clone(),
        });
        Some(result)
    }

    /// Runs the `post_tool` hooks for a call that ran, adding the notes of those that failed
    /// to its observation.
    async fn after_hooks(
        &self,
        call: &ToolCall,
        result: &mut ToolResult,
        cancel: &CancellationToken,
    ) {
        let notes = self
            .hooks
            .post_tool(call, result, self.ctx.root(), cancel)
            .await;
        for note in notes {
            let note = self.tools.masker().mask(&note).into_owned();
            result.text.push_str(&format!("\n\nNote: {note}"));
        }
    }

    fn finish(
        &mut self,
        answer: String,
        steps: u32,
        usage: Usage,
        events: Events<'_>,
    ) -> RoundOutcome {
        let ended = self.history.end_round(RoundStatus::Finished);
        self.warn_on_store_error(ended, events);
        events(Event::RoundFinished {
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

    fn fail(&mut self, (code, message): (FailureCode, String), events: Events<'_>) -> RoundOutcome {
        let status = match code {
            FailureCode::Interrupted => RoundStatus::Interrupted,
            _ => RoundStatus::Failed,
        };
        let ended = self.history.end_round(status);
        self.warn_on_store_error(ended, events);
        events(Event::Error {
            code,
            message: message.clone(),
        });
        RoundOutcome::Failed { code, message }
    }
}

/// What a round keeps while it runs.
#[derive(Debug, Default)]
struct RoundState {
    scratchpad: Vec<ScratchStep>,
    usage: Usage,
    malformed_in_a_row: u32,
    warned_code_law: bool,
}

impl RoundState {
    fn note_reply(&mut self, malformed: bool) {
        self.malformed_in_a_row = if malformed {
            self.malformed_in_a_row + 1
        } else {
            0
        };
    }

    fn too_many_malformed(&self) -> Option<(FailureCode, String)> {
        (self.malformed_in_a_row >= MAX_MALFORMED_REPLIES).then(|| {
            (
                FailureCode::MalformedReplies,
                format!(
                    "The model wrote {MAX_MALFORMED_REPLIES} malformed replies in a row, so the round was stopped. \
                     The model may not follow the Thought/Action format; try a stronger model (--model)."
                ),
            )
        })
    }
}

/// One step as the round keeps it: the text the model wrote, its history form, and the
/// observation with its compressed form.
struct StepRecord {
    /// The step as written (scratchpad).
    text: String,
    /// The step as history stores it (DESIGN §9.2).
    stored_text: String,
    /// The full observation.
    observation: String,
    /// Its history form (spec C1).
    compressed: String,
    /// The tool that ran, if one did.
    tool: Option<String>,
    /// Whether the reply counts as malformed.
    malformed: bool,
}

impl StepRecord {
    /// A reply that could not be read: the observation restates the format, and history keeps
    /// an error result.
    fn format_error(text: String, problem: &str) -> Self {
        let message = format!("your action could not be read: {problem}");
        let observation = format!("Error: {message}\n{FORMAT_REMINDER}");
        let compressed = HistoryResult::error(ErrorCode::InvalidArguments, message).to_json();
        Self {
            stored_text: text.clone(),
            text,
            observation,
            compressed,
            tool: None,
            malformed: true,
        }
    }
}

fn clamp_calibration(factor: f64) -> f64 {
    let (low, high) = CALIBRATION_RANGE;
    factor.clamp(low, high)
}

fn interrupted() -> (FailureCode, String) {
    (FailureCode::Interrupted, "Interrupted.".to_string())
}

/// A call that names no tool or gives arguments the tool cannot take counts as a malformed reply.
fn is_malformed_call(result: &ToolResult) -> bool {
    matches!(
        result.error.as_ref().map(|e| e.code),
        Some(ErrorCode::UnknownTool | ErrorCode::InvalidArguments)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use wright_protocol::Role;

    #[test]
    fn format_errors_are_stored_as_error_tool_results() {
        let record = StepRecord::format_error("Action: Read{".into(), "bad json");
        assert!(record.malformed);
        assert!(record.observation.contains(FORMAT_REMINDER));
        let compressed = record.compressed;
        assert!(
            compressed.starts_with(
                r#"{"status":"error","data":null,"error":{"code":"invalid_arguments","#
            ),
            "spec E1 order: {compressed}"
        );
        assert_eq!(
            Role::Tool,
            tool_message(&compressed).role,
            "stored with the tool role"
        );
    }
}
