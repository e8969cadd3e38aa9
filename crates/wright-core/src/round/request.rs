//! Each step's request, made to fit the window (DESIGN §9.3): the ContextBuilder's layers from
//! the round's view of L3, with L2 re-read (its files and rules, kept for the step's glob
//! reminders) and the todo recap taken fresh; when the estimate
//! does not fit, the oldest scratchpad observations fall back to their compressed form, then
//! the retained history's tool results are compressed harder, and if nothing is left to
//! shrink the round ends. The request then asks for a reply no longer than what the window
//! leaves after it, since servers count the reply's limit against the window too.

use wright_llm::ChatRequest;
use wright_protocol::Event;

use crate::compaction::plan_compaction;
use crate::context::{ContextBuilder, estimate_request};
use crate::error::RoundError;
use crate::instructions::Instructions;

use super::Round;

/// At most this share of the window (1/4) is kept free for the reply, so a small window (a
/// local server's 4,096 tokens) still has room for a request when `max_output_tokens` is
/// larger than the window.
const MAX_REPLY_SHARE_OF_WINDOW: u64 = 4;

/// The shortest reply limit a request asks for, whatever the window leaves: less cannot hold
/// a ReAct step. Only a window under 1,024 tokens (a quarter of it under this) comes down
/// to it.
const MIN_REPLY_TOKENS: u32 = 256;

/// Tokens kept free for the reply: `max_output_tokens`, but no more than a quarter of the
/// window.
pub(super) fn reserved_for_reply(max_output_tokens: u32, context_window: u64) -> u32 {
    let share = context_window / MAX_REPLY_SHARE_OF_WINDOW;
    u32::try_from(share).map_or(max_output_tokens, |share| max_output_tokens.min(share))
}

/// The reply limit a request of `estimated` tokens asks for: what the window leaves after it,
/// up to `max_output_tokens`, and never under [`MIN_REPLY_TOKENS`] (unless that is what is
/// configured). A request fitted to leave [`reserved_for_reply`] free gets at least that
/// much, so the prompt and the reply it asks for add up to no more than the window.
fn reply_cap(max_output_tokens: u32, context_window: u64, estimated: u64) -> u32 {
    let room = context_window
        .saturating_sub(estimated)
        .max(u64::from(MIN_REPLY_TOKENS));
    u32::try_from(room).map_or(max_output_tokens, |room| max_output_tokens.min(room))
}

impl Round<'_> {
    /// Builds the next request and makes it fit the window, with the reply limit it leaves.
    pub(super) fn fit_request(&mut self) -> Result<ChatRequest, RoundError> {
        let instructions = Instructions::load(
            self.agent.ctx.root(),
            self.agent.config.user_config_dir.as_deref(),
            self.agent.tools.masker(),
        );
        // L2 is re-read for every request; what cannot be read is said once per round.
        if !self.warned_instructions {
            self.warned_instructions = true;
            for problem in &instructions.problems {
                self.sink.emit(Event::Warning {
                    message: problem.clone(),
                });
            }
        }
        self.instructions = instructions;
        let recap = wright_tools::todo_recap(&self.agent.ctx.todos());
        let agent = &*self.agent;
        let settings = &agent.config.context;
        let max_output_tokens = agent.llm.config().max_output_tokens;
        let reserved = reserved_for_reply(max_output_tokens, settings.context_window);
        let limit = settings.context_window.saturating_sub(u64::from(reserved));
        // DESIGN §9.3: the retained rounds alone past the threshold, with nothing left that
        // compaction could archive, are compressed harder.
        let threshold = settings.threshold();
        let view = &mut self.view;
        let nothing_to_archive = plan_compaction(view.messages(), settings.retain_rounds).is_none();
        if !view.is_tight()
            && nothing_to_archive
            && agent.calibrated(view.estimate(&agent.system) + self.offered_estimate) >= threshold
        {
            view.tighten();
        }
        loop {
            let request = ContextBuilder {
                protocol: agent.config.tool_protocol,
                ..view.context(
                    &agent.system,
                    Some(&self.instructions),
                    &self.input,
                    &self.scratchpad,
                    recap.as_deref(),
                )
            }
            .request();
            // Natively offered tools travel beside the messages and count against the window.
            let estimated = agent.calibrated(estimate_request(&request) + self.offered_estimate);
            if estimated <= limit {
                return Ok(ChatRequest {
                    max_output_tokens: Some(reply_cap(
                        max_output_tokens,
                        settings.context_window,
                        estimated,
                    )),
                    ..request
                });
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_reply_keeps_at_most_a_quarter_of_a_small_window() {
        assert_eq!(reserved_for_reply(8192, 200_000), 8192);
        assert_eq!(reserved_for_reply(8192, 4096), 1024);
        assert_eq!(reserved_for_reply(8192, u64::MAX), 8192);
    }

    #[test]
    fn the_reply_cap_is_what_the_window_leaves_up_to_max_output_tokens() {
        assert_eq!(reply_cap(8192, 200_000, 50_000), 8192);
        assert_eq!(reply_cap(8192, 4096, 1000), 3096);
        assert_eq!(reply_cap(8192, u64::MAX, 1000), 8192);
    }

    #[test]
    fn the_reply_cap_never_goes_under_the_floor_nor_over_the_setting() {
        assert_eq!(reply_cap(8192, 4096, 4000), MIN_REPLY_TOKENS);
        assert_eq!(reply_cap(100, 4096, 4000), 100);
    }

    #[test]
    fn a_request_fitted_to_the_reserve_has_room_for_its_whole_cap() {
        for (max_output_tokens, window) in [(8192, 4096), (8192, 200_000), (2000, 4096)] {
            let reserved = reserved_for_reply(max_output_tokens, window);
            let largest_fitted = window - u64::from(reserved);
            for estimated in [0, largest_fitted / 2, largest_fitted] {
                let cap = reply_cap(max_output_tokens, window, estimated);
                assert!(cap >= reserved, "{max_output_tokens} {window} {estimated}");
                assert!(
                    estimated + u64::from(cap) <= window,
                    "{max_output_tokens} {window} {estimated}"
                );
            }
        }
    }
}
