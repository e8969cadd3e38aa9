//! Each step's request, made to fit the window (DESIGN §9.3): the ContextBuilder's layers from
//! the round's view of L3, with L2 re-read and the todo recap taken fresh; when the estimate
//! does not fit, the oldest scratchpad observations fall back to their compressed form, then
//! the retained history's tool results are compressed harder, and if nothing is left to
//! shrink the round ends.

use wright_llm::ChatRequest;
use wright_protocol::Event;

use crate::code_law;
use crate::compaction::plan_compaction;
use crate::context::estimate_request;
use crate::error::RoundError;

use super::Round;

impl Round<'_> {
    /// Builds the next request and makes it fit the window.
    pub(super) fn fit_request(&mut self) -> Result<ChatRequest, RoundError> {
        let code_law = match code_law::load(self.agent.ctx.root()) {
            Ok(law) => law,
            Err(problem) => {
                if !self.warned_code_law {
                    self.warned_code_law = true;
                    self.sink.emit(Event::Warning {
                        message: format!("{problem}; sending the request without project rules"),
                    });
                }
                None
            }
        };
        let recap = wright_tools::todo_recap(&self.agent.ctx.todos());
        let agent = &*self.agent;
        let settings = &agent.config.context;
        let reserved = agent.llm.config().max_output_tokens;
        let limit = settings.context_window.saturating_sub(u64::from(reserved));
        // DESIGN §9.3: the retained rounds alone past the threshold, with nothing left that
        // compaction could archive, are compressed harder.
        let threshold = settings.threshold();
        let view = &mut self.view;
        let nothing_to_archive = plan_compaction(view.messages(), settings.retain_rounds).is_none();
        if !view.is_tight()
            && nothing_to_archive
            && agent.calibrated(view.estimate(&agent.system)) >= threshold
        {
            view.tighten();
        }
        loop {
            let request = view.request(
                &agent.system,
                code_law.as_ref(),
                &self.input,
                &self.scratchpad,
                recap.as_deref(),
            );
            let estimated = agent.calibrated(estimate_request(&request));
            if estimated <= limit {
                return Ok(request);
            }
            if let Some(step) = self.scratchpad.iter_mut().find(|s| !s.use_compressed) {
                step.use_compressed = true;
            } else if !view.is_tight() {
                view.tighten();
            } else {
                return Err(RoundError::ContextOverflow {
                    estimated,
                    context_window: settings.context_window,
                    reserved,
                });
            }
        }
    }
}
