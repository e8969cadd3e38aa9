//! Compaction as the agent runs it (spec A4–A6, C2, C7, D6, E2): before a round when the last
//! usage plus the new input reaches the threshold, or on demand (`/compact`). The policy (when,
//! and which rounds) is [`compaction`](crate::compaction)'s; this is the part that calls the
//! summary model, records the outcome and reports it.

use wright_protocol::{Event, Message, UsageCall};
use wright_store::UsageKind;

use crate::compaction::{CompactionPlan, check_trigger, plan_compaction};
use crate::context::estimate_request;
use crate::error::RoundError;
use crate::summarize::{SummaryCall, SummaryFailure, summarize};
use crate::tiers::HistoryView;

use super::{Agent, EventSink, Events};

impl Agent {
    /// Compacts now (`/compact`), whatever the usage: archives every whole round before the
    /// last `retain_rounds` and summarises them. `Ok(false)` when there is nothing to archive;
    /// fails only when interrupted.
    pub async fn compact_now(&mut self, events: Events<'_>) -> Result<bool, RoundError> {
        let mut sink = EventSink::new(events);
        // A step a crash cut off is closed first, so the plan sees whole rounds.
        let repaired = self.history.repair_interrupted_step().map(|_| ());
        sink.warn_unsaved(repaired);
        let Some(plan) = plan_compaction(&self.retained(), self.config.context.retain_rounds)
        else {
            return Ok(false);
        };
        let estimated_tokens = self.history.last_usage().map_or(0, |u| u.total_tokens);
        let threshold = self.config.context.threshold();
        self.compact(plan, estimated_tokens, threshold, &mut sink)
            .await?;
        Ok(true)
    }

    /// Spec A6/C7/D6: before a round opens, compact if the last usage plus the new input
    /// reaches the threshold. Blocks until the summary is made, fails or times out.
    pub(super) async fn compact_if_due(
        &mut self,
        input: &str,
        sink: &mut EventSink<'_>,
    ) -> Result<(), RoundError> {
        let settings = &self.config.context;
        let last_total =
            match self.history.last_usage() {
                Some(usage) => usage.total_tokens,
                // A provider that reports no usage: estimate what the next request would hold.
                None => self.calibrated(estimate_request(
                    &HistoryView::new(&self.history).request(&self.system, None, "", &[], None),
                )),
            };
        let retained = self.retained();
        let trigger = check_trigger(last_total, input, retained.len(), settings);
        if !trigger.compact {
            return Ok(());
        }
        let Some(plan) = plan_compaction(&retained, settings.retain_rounds) else {
            // Everything left is within the rounds that must be kept; the request builder
            // compresses their tool results harder if they do not fit (DESIGN §9.3).
            return Ok(());
        };
        self.compact(plan, trigger.estimated_tokens, trigger.threshold, sink)
            .await
    }

    /// The retained history's messages, as the compaction policy reads them.
    fn retained(&self) -> Vec<Message> {
        self.history
            .retained()
            .iter()
            .map(|stored| stored.message.clone())
            .collect()
    }

    /// Archives what `plan` covers with its summary (spec A4–A6), or without one when the
    /// summary call timed out (E2); keeps it all when the call failed otherwise.
    async fn compact(
        &mut self,
        plan: CompactionPlan,
        estimated_tokens: u64,
        threshold: u64,
        sink: &mut EventSink<'_>,
    ) -> Result<(), RoundError> {
        sink.emit(Event::CompactionStarted {
            estimated_tokens,
            threshold,
        });
        let tokens_before = HistoryView::new(&self.history).estimate(&self.system);
        let archived = self.history.to_archive(&plan).to_vec();
        let timeout = self.config.context.summary_timeout;
        let SummaryCall { summary, usage } = tokio::select! {
            call = summarize(&self.summary_llm, &archived, timeout) => call,
            () = self.cancellation().cancelled() => return Err(RoundError::Interrupted),
        };
        if let Some(usage) = usage {
            sink.emit(Event::usage_of(&usage, UsageCall::Summary));
            let model = &self.summary_llm.config().model;
            let recorded = self.history.record_usage(usage, UsageKind::Summary, model);
            sink.warn_unsaved(recorded);
        }
        let summary = match summary {
            Ok(summary) => Some(summary),
            Err(SummaryFailure::TimedOut) => None,
            // Only the timeout may drop history (E2): on any other failure every round stays,
            // the request-fitting tiers keep requests inside the window (DESIGN §9.3), and the
            // trigger tries again before the next round.
            Err(SummaryFailure::Failed(cause)) => {
                sink.emit(Event::CompactionFinished {
                    archived_rounds: 0,
                    summary: None,
                    timed_out: false,
                    error: Some(cause),
                    tokens_before,
                    tokens_after: tokens_before,
                });
                return Ok(());
            }
        };
        let timed_out = summary.is_none();
        let applied = self.history.apply_compaction(&plan, summary.clone());
        sink.warn_unsaved(applied.map(|_| ()));
        sink.emit(Event::CompactionFinished {
            archived_rounds: u32::try_from(plan.archived_rounds).unwrap_or(u32::MAX),
            summary,
            timed_out,
            error: None,
            tokens_before,
            tokens_after: HistoryView::new(&self.history).estimate(&self.system),
        });
        Ok(())
    }
}
