//! One tool call of a round: the registry's refusals, the `pre_tool` hooks, the approval gate,
//! the call itself and the `post_tool` hooks, in that order; then the `[checks]` covering
//! the files it edited.

use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, Event, ToolCall, ToolResult};

use wright_store::{CheckpointKind, UsageKind};

use wright_tools::{CommandRun, PreparedCall, ToolContext, ToolRegistry};

use crate::approval::Gate;
use crate::checkpoint::changes_files;
use crate::checks;
use crate::history::HistoryManager;
use crate::hooks::HookOutcome;
use crate::plan;
use crate::subagent::subagent_spending;
use crate::summary::result_summary;

use super::{Agent, EventSink, Round};

impl Round<'_> {
    /// Runs a tool call (unknown tools included: the registry answers those with an error).
    /// In order: plan mode's refusal of the tools it does not offer, the registry's refusals
    /// (the dangerous-command checker, protected files),
    /// the `pre_tool` hooks, approval when the mode requires it, the call, the `post_tool`
    /// hooks. A call refused, blocked or denied does not run and its result says why; the
    /// user is never asked about a call that would be refused anyway. `None` when the user
    /// interrupted.
    pub(super) async fn run_tool(&mut self, call: &ToolCall) -> Option<ToolResult> {
        let step = self.step;
        self.sink.emit(Event::ToolCall {
            step,
            tool: call.tool.clone(),
            args: call.args.clone(),
        });
        let agent = &mut *self.agent;
        let cancel = agent.cancellation().clone();
        let mut ran = false;
        let mut result = match prepare(&agent.tools, &agent.ctx, agent.planning, call) {
            Err(refusal) => *refusal,
            Ok(mut prepared) => match agent.hooks.pre_tool(call, agent.ctx.root(), &cancel).await {
                HookOutcome::Interrupted => return None,
                HookOutcome::Failed(message) => agent.blocked_by_hook(call, &message),
                HookOutcome::Passed => {
                    let gate = agent
                        .approvals
                        .gate(step, &mut prepared, &agent.ctx, &mut self.sink)
                        .await;
                    match gate {
                        Gate::Run => {
                            if changes_files(prepared.kind())
                                && agent
                                    .checkpoints
                                    .take(
                                        &mut agent.history,
                                        step,
                                        CheckpointKind::BeforeStep,
                                        &mut self.sink,
                                    )
                                    .await
                            {
                                self.checkpointed = true;
                            }
                            // Events the call reports while it runs (a Task call's
                            // sub-agents' steps) are shown as they come.
                            let (events, mut progress) = tokio::sync::mpsc::unbounded_channel();
                            let ctx = agent.ctx.clone().with_events(events);
                            let run = prepared.run(&ctx);
                            tokio::pin!(run);
                            let mut result = loop {
                                tokio::select! {
                                    result = &mut run => break result,
                                    Some(event) = progress.recv() => {
                                        self.sink.emit(at_step(event, step));
                                    }
                                }
                            };
                            while let Ok(event) = progress.try_recv() {
                                self.sink.emit(at_step(event, step));
                            }
                            record_subagent_spending(&mut agent.history, &result, &mut self.sink);
                            agent.after_hooks(call, &mut result, &cancel).await;
                            ran = true;
                            result
                        }
                        Gate::Refused => prepared.refuse(),
                        Gate::Denied(result) => *result,
                        Gate::Interrupted => return None,
                    }
                }
            },
        };
        self.sink.emit(result_event(step, call, &result));
        if ran && !cancel.is_cancelled() {
            self.run_checks(call, &mut result).await;
        }
        Some(result)
    }

    /// Runs calls that only read side by side (issue 19: several read-only native calls of one
    /// reply), each through the same refusals and hooks as [`run_tool`](Self::run_tool); their
    /// events are reported in the reply's order before and after the runs, and the results come
    /// back in that order (`None` for a call the user interrupted before it ran). `None` when a
    /// call turns out to change something once prepared (a `Task` whose agent can write): then
    /// nothing has run, and the calls are the caller's to run one at a time.
    pub(super) async fn run_tools_side_by_side(
        &mut self,
        calls: &[ToolCall],
    ) -> Option<Vec<Option<ToolResult>>> {
        let step = self.step;
        let agent = &mut *self.agent;
        let cancel = agent.cancellation().clone();
        let prepared: Vec<Result<PreparedCall<'_>, Box<ToolResult>>> = calls
            .iter()
            .map(|call| prepare(&agent.tools, &agent.ctx, agent.planning, call))
            .collect();
        let all_read = prepared.iter().all(|prepared| {
            prepared
                .as_ref()
                .map_or(true, |prepared| prepared.kind().is_read_only())
        });
        if !all_read {
            return None;
        }
        // Before: each call reported and its `pre_tool` hooks run, in order. Calls that only
        // read need no approval and no snapshot.
        let mut outcomes = Vec::with_capacity(calls.len());
        for (call, prepared) in calls.iter().zip(prepared) {
            self.sink.emit(Event::ToolCall {
                step,
                tool: call.tool.clone(),
                args: call.args.clone(),
            });
            let outcome = match prepared {
                Err(refusal) => Outcome::Done(*refusal),
                Ok(prepared) => match agent.hooks.pre_tool(call, agent.ctx.root(), &cancel).await {
                    HookOutcome::Interrupted => Outcome::Interrupted,
                    HookOutcome::Failed(message) => {
                        Outcome::Done(agent.blocked_by_hook(call, &message))
                    }
                    HookOutcome::Passed => Outcome::Ready(prepared),
                },
            };
            outcomes.push(outcome);
        }
        // Ctrl-C during the hooks: none of them runs.
        if outcomes.iter().any(|o| matches!(o, Outcome::Interrupted)) || cancel.is_cancelled() {
            for outcome in &mut outcomes {
                if matches!(outcome, Outcome::Ready(_)) {
                    *outcome = Outcome::Interrupted;
                }
            }
        }
        // The runs, side by side; what they report while running is shown as it comes.
        let (events, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let ctx = agent.ctx.clone().with_events(events);
        let runs = outcomes
            .iter_mut()
            .filter_map(
                |outcome| match std::mem::replace(outcome, Outcome::Running) {
                    Outcome::Ready(prepared) => Some(prepared.run(&ctx)),
                    other => {
                        *outcome = other;
                        None
                    }
                },
            )
            .collect::<Vec<_>>();
        let runs = futures::future::join_all(runs);
        tokio::pin!(runs);
        let finished = loop {
            tokio::select! {
                finished = &mut runs => break finished,
                Some(event) = progress.recv() => self.sink.emit(at_step(event, step)),
            }
        };
        while let Ok(event) = progress.try_recv() {
            self.sink.emit(at_step(event, step));
        }
        // After: each result's hooks and event, in order.
        let mut finished = finished.into_iter();
        let mut results = Vec::with_capacity(calls.len());
        for (call, outcome) in calls.iter().zip(outcomes) {
            let result = match outcome {
                Outcome::Done(result) => Some(result),
                Outcome::Running => match finished.next() {
                    Some(mut result) => {
                        record_subagent_spending(&mut agent.history, &result, &mut self.sink);
                        agent.after_hooks(call, &mut result, &cancel).await;
                        Some(result)
                    }
                    None => None,
                },
                Outcome::Ready(_) | Outcome::Interrupted => None,
            };
            if let Some(result) = &result {
                self.sink.emit(result_event(step, call, result));
            }
            results.push(result);
        }
        Some(results)
    }

    /// Runs the `[checks]` that cover the files a successful call edited (none for a call
    /// that failed or edited nothing), each confined like a Bash command, and adds a note for
    /// each that failed to the call's observation (and its short form to history). Stops at
    /// Ctrl-C, which also stops the running check.
    async fn run_checks(&mut self, call: &ToolCall, result: &mut ToolResult) {
        let agent = &*self.agent;
        if agent.checks.is_empty() {
            return;
        }
        let edited = checks::edited_files(&call.tool, result);
        let commands = agent.checks.due(&edited);
        let timeout = agent.checks.timeout();
        for command in commands {
            self.sink.emit(Event::CheckStarted {
                step: self.step,
                command: command.clone(),
            });
            let run = match wright_tools::run_confined_command(&command, timeout, &agent.ctx).await
            {
                Ok(run) => run,
                Err(error) => CommandRun {
                    exit_code: None,
                    timed_out: false,
                    interrupted: false,
                    output: error.message,
                    notes: Vec::new(),
                },
            };
            self.sink.emit(Event::CheckFinished {
                step: self.step,
                command: command.clone(),
                passed: run.passed(),
                exit_code: run.exit_code,
                timed_out: run.timed_out,
            });
            let masker = agent.tools.masker();
            for note in &run.notes {
                result.text.push_str(&format!("\n{}", masker.mask(note)));
            }
            if run.interrupted {
                return;
            }
            if let Some(mut failure) = checks::failure(&command, &run, timeout) {
                failure.output = masker.mask(&failure.output).into_owned();
                let note = checks::failure_note(&failure);
                result.text.push_str(&format!("\n\n{note}"));
                result.checks.push(failure);
            }
        }
    }
}

/// `call` ready to run, or the result of a call that will not run: in plan mode one of a tool
/// plan mode does not offer, then the registry's refusals ([`ToolRegistry::prepare`]).
fn prepare<'t>(
    tools: &'t ToolRegistry,
    ctx: &ToolContext,
    planning: bool,
    call: &'t ToolCall,
) -> Result<PreparedCall<'t>, Box<ToolResult>> {
    match planning.then(|| plan::refusal(call, tools)).flatten() {
        Some(refusal) => Err(Box::new(refusal)),
        None => tools.prepare(call, ctx),
    }
}

/// Where a call of a side-by-side batch is.
enum Outcome<'t> {
    /// Refused or blocked: this is its result.
    Done(ToolResult),
    /// Ready to run.
    Ready(PreparedCall<'t>),
    /// Running with the others.
    Running,
    /// The user interrupted it before it ran.
    Interrupted,
}

/// A Task call's sub-agents billed calls of their own: the session's cost counts them.
fn record_subagent_spending(
    history: &mut HistoryManager,
    result: &ToolResult,
    sink: &mut EventSink<'_>,
) {
    for (model, usage) in subagent_spending(&result.stats) {
        let recorded = history.record_usage(usage, UsageKind::Subagent, &model);
        sink.warn_unsaved(recorded);
    }
}

/// The event that reports `call`'s result.
fn result_event(step: u32, call: &ToolCall, result: &ToolResult) -> Event {
    Event::ToolResult {
        step,
        tool: call.tool.clone(),
        status: result.status,
        summary: result_summary(&call.tool, result),
        data: result.data.clone(),
        error: result.error.clone(),
    }
}

/// A sub-agent's event as the step of the Task call that ran it reports it.
fn at_step(mut event: Event, step: u32) -> Event {
    if let Event::Subagent { step: at, .. } = &mut event {
        *at = step;
    }
    event
}

impl Agent {
    /// The result of a call a `pre_tool` hook blocked with `message`.
    fn blocked_by_hook(&self, call: &ToolCall, message: &str) -> ToolResult {
        let message = self.tools.masker().mask(message).into_owned();
        let mut blocked = ToolResult::error(ErrorCode::Blocked, message);
        blocked.context = call.args.clone();
        blocked
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
}
