//! One tool call of a round: the registry's refusals, the `pre_tool` hooks, the approval gate,
//! the call itself and the `post_tool` hooks, in that order.

use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, Event, ToolCall, ToolResult};

use wright_store::CheckpointKind;

use crate::approval::Gate;
use crate::checkpoint::changes_files;
use crate::hooks::HookOutcome;
use crate::summary::result_summary;

use super::{Agent, Round};

impl Round<'_> {
    /// Runs a tool call (unknown tools included: the registry answers those with an error).
    /// In order: the registry's refusals (the dangerous-command checker, protected files),
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
        let result = match agent.tools.prepare(call, &agent.ctx) {
            Err(refusal) => *refusal,
            Ok(mut prepared) => match agent.hooks.pre_tool(call, agent.ctx.root(), &cancel).await {
                HookOutcome::Interrupted => return None,
                HookOutcome::Failed(message) => {
                    let message = agent.tools.masker().mask(&message).into_owned();
                    let mut blocked = ToolResult::error(ErrorCode::Blocked, message);
                    blocked.context = call.args.clone();
                    blocked
                }
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
                            let mut result = prepared.run(&agent.ctx).await;
                            agent.after_hooks(call, &mut result, &cancel).await;
                            result
                        }
                        Gate::Refused => prepared.refuse(),
                        Gate::Denied(result) => result,
                        Gate::Interrupted => return None,
                    }
                }
            },
        };
        self.sink.emit(Event::ToolResult {
            step,
            tool: call.tool.clone(),
            status: result.status,
            summary: result_summary(&call.tool, &result),
            data: result.data.clone(),
            error: result.error.clone(),
        });
        Some(result)
    }
}

impl Agent {
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
