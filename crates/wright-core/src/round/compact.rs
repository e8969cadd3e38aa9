//! Compaction as the agent runs it (spec A4–A6, C2, C7, D6, E2): before a round when the last
//! usage plus the new input reaches the threshold, or on demand (`/compact`). The policy (when,
//! and which rounds) is [`compaction`](crate::compaction)'s; this is the part that calls the
//! summary model, records the outcome and reports it.

use wright_llm::{ChatRequest, LlmClient};
use wright_protocol::{Event, Message, Role, UsageCall};
use wright_store::UsageKind;

use crate::compaction::{CompactionPlan, check_trigger, plan_compaction, round_starts};
use crate::context::estimate_request;
use crate::error::RoundError;
use crate::instructions::Instructions;
use crate::summarize::{
    SummaryCall, SummaryFailure, SummaryRequestForm, session_summary_request, summarize_with,
    summary_request, summary_request_within,
};
use crate::tiers::HistoryView;

use super::request::reserved_for_reply;
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

    /// Archives what `plan` covers with summaries (spec A4–A6): as many summary calls as the
    /// summary model's window needs, each archiving the oldest rounds its request can hold.
    async fn compact(
        &mut self,
        mut plan: CompactionPlan,
        estimated_tokens: u64,
        threshold: u64,
        sink: &mut EventSink<'_>,
    ) -> Result<(), RoundError> {
        while self
            .compact_once(plan, estimated_tokens, threshold, sink)
            .await?
        {
            match plan_compaction(&self.retained(), self.config.context.retain_rounds) {
                Some(rest) => plan = rest,
                None => break,
            }
        }
        Ok(())
    }

    /// Archives the oldest rounds of `plan` that one summary request can hold, with their
    /// summary, or all of `plan` without one when the summary call timed out (E2) or failed
    /// when history no longer fits the window; keeps it all when the call failed otherwise.
    /// Says whether rounds of `plan` are left for another summary.
    async fn compact_once(
        &mut self,
        whole: CompactionPlan,
        estimated_tokens: u64,
        threshold: u64,
        sink: &mut EventSink<'_>,
    ) -> Result<bool, RoundError> {
        sink.emit(Event::CompactionStarted {
            estimated_tokens,
            threshold,
        });
        let tokens_before = HistoryView::new(&self.history).estimate(&self.system);
        let max_tokens = self.request_limit(&self.summary_llm);
        // The session form names the archived rounds rather than repeating them, so it covers
        // the whole plan whenever it fits; the separate request holds what it can.
        let (plan, request) = match self.session_summary(&whole, max_tokens) {
            Some(request) => (whole, request),
            None => {
                let plan = self.fitting_plan(whole, max_tokens);
                let archived = self.history.to_archive(&plan);
                (plan, summary_request_within(archived, max_tokens))
            }
        };
        let archived = self.history.to_archive(&plan).to_vec();
        let timeout = self.config.context.summary_timeout;
        let reply_tokens = self.reply_reserve(&self.summary_llm);
        let SummaryCall { summary, usage } = tokio::select! {
            call = summarize_with(&self.summary_llm, request, &archived, reply_tokens, timeout) => call,
            () = self.cancellation().cancelled() => return Err(RoundError::Interrupted),
        };
        if let Some(usage) = usage {
            sink.emit(Event::usage_of(&usage, UsageCall::Summary));
            let model = &self.summary_llm.config().model;
            let recorded = self.history.record_usage(usage, UsageKind::Summary, model);
            sink.warn_unsaved(recorded);
        }
        let (summary, error) = match summary {
            Ok(summary) => (Some(summary), None),
            Err(SummaryFailure::TimedOut) => (None, None),
            // Only the timeout may drop history (E2): on any other failure every round stays
            // while the request-fitting tiers can keep requests inside the window (DESIGN
            // §9.3), and the trigger tries again before the next round. Once even the tightest
            // tier cannot, no round could run: the rounds are archived without a summary.
            Err(SummaryFailure::Failed(cause)) if self.history_fits() => {
                sink.emit(Event::CompactionFinished {
                    archived_rounds: 0,
                    summary: None,
                    timed_out: false,
                    error: Some(cause),
                    tokens_before,
                    tokens_after: tokens_before,
                });
                return Ok(false);
            }
            Err(SummaryFailure::Failed(cause)) => (None, Some(cause)),
        };
        // Without a summary, every round the whole plan covers goes: nothing is left to
        // summarise later, and what stays must fit.
        let rest_left = summary.is_some() && plan.archived_rounds < whole.archived_rounds;
        let plan = if summary.is_some() { plan } else { whole };
        let timed_out = summary.is_none() && error.is_none();
        let applied = self
            .history
            .apply_compaction(&plan, summary.clone(), error.clone());
        sink.warn_unsaved(applied.map(|_| ()));
        sink.emit(Event::CompactionFinished {
            archived_rounds: u32::try_from(plan.archived_rounds).unwrap_or(u32::MAX),
            summary,
            timed_out,
            error,
            tokens_before,
            tokens_after: HistoryView::new(&self.history).estimate(&self.system),
        });
        Ok(rest_left)
    }

    /// The summary request in the session's own prompt (`summary_request = "session"`, see
    /// [`session_summary_request`]): the request the next round would start with, its input
    /// replaced by the summary instructions for the rounds `plan` archives. `None` — the
    /// separate request of spec C2 is sent — unless the setting asks for it, the summary model
    /// is the session's (another model has no cache of the session's prompt) and the request
    /// fits `max_tokens`.
    fn session_summary(&self, plan: &CompactionPlan, max_tokens: u64) -> Option<ChatRequest> {
        let (session, summary) = (self.llm.config(), self.summary_llm.config());
        let same_model = session.model == summary.model && session.base_url == summary.base_url;
        if self.config.context.summary_request != SummaryRequestForm::Session
            || self.config.tool_protocol != super::ToolProtocol::Text
            || !same_model
        {
            return None;
        }
        let retained = self.history.retained();
        let first_kept = retained
            .get(plan.archive_len)
            .filter(|stored| stored.message.role == Role::User)?;
        // L2 as the round's requests read it (round/request.rs), so the prefix is theirs.
        let instructions = Instructions::load(
            self.ctx.root(),
            self.config.user_config_dir.as_deref(),
            self.tools.masker(),
        );
        let next = HistoryView::new(&self.history).request(
            &self.system,
            Some(&instructions),
            "",
            &[],
            None,
        );
        let request = session_summary_request(
            next,
            self.history.to_archive(plan),
            plan.archived_rounds,
            &first_kept.message.content,
        );
        (self.calibrated(estimate_request(&request)) <= max_tokens).then_some(request)
    }

    /// What the window keeps for a reply of `llm`.
    fn reply_reserve(&self, llm: &LlmClient) -> u32 {
        reserved_for_reply(
            llm.config().max_output_tokens,
            self.config.context.context_window,
        )
    }

    /// The most tokens a request to `llm` may hold: the window less what is kept for the
    /// reply.
    fn request_limit(&self, llm: &LlmClient) -> u64 {
        let window = self.config.context.context_window;
        window.saturating_sub(u64::from(self.reply_reserve(llm)))
    }

    /// `plan` cut to the most whole rounds whose summary request fits `max_tokens` (at least
    /// one round; a round too long alone has its transcript cut, see
    /// [`summary_request_within`](crate::summarize::summary_request_within)). The rounds left
    /// out stay in history for the next compaction.
    fn fitting_plan(&self, plan: CompactionPlan, max_tokens: u64) -> CompactionPlan {
        let retained = self.retained();
        let starts = round_starts(&retained[..plan.archive_len.min(retained.len())]);
        let mut fitting = plan;
        while fitting.archived_rounds > 1 {
            let archived = self.history.to_archive(&fitting);
            if self.calibrated(estimate_request(&summary_request(archived))) <= max_tokens {
                break;
            }
            fitting.archived_rounds -= 1;
            fitting.archive_len = starts
                .get(fitting.archived_rounds)
                .copied()
                .unwrap_or(fitting.archive_len);
        }
        fitting
    }

    /// Whether the retained history, compressed as hard as the tiers go, still leaves room
    /// in the window for a request.
    fn history_fits(&self) -> bool {
        let mut view = HistoryView::new(&self.history);
        view.tighten();
        self.calibrated(view.estimate(&self.system)) < self.request_limit(&self.llm)
    }
}
