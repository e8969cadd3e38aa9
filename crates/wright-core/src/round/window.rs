//! The window the server says it has (DESIGN §9.3): when a request is refused as too long
//! for the model's context window, the round learns what the refusal tells: the window, when
//! it names one smaller than the configured one (kept for the rest of the session), and the
//! prompt's size by the server's count, when it gives it (which calibrates the estimate). It
//! fits the request again with the usual tiers, which also shortens the reply it asks for
//! (servers count that against the window too), and sends it once more if anything changed.
//! A second refusal ends the round with the server's error, which names the window and the
//! settings to change.

use wright_llm::{ChatRequest, Completion, LlmError};
use wright_protocol::{Event, Usage};

use crate::context::estimate_request;
use crate::error::RoundError;

use super::Round;

impl Round<'_> {
    /// Builds the next request, fitted to the window, and sends it; see the module doc for
    /// what happens when the server refuses it as too long.
    pub(super) async fn call_fitted(
        &mut self,
    ) -> Result<(ChatRequest, Completion, bool), RoundError> {
        let request = self.fit_request()?;
        let refused = match self.call_model(&request).await {
            Ok((completion, continued)) => return Ok((request, completion, continued)),
            Err(error) => error,
        };
        let (window, prompt_tokens) = match &refused {
            RoundError::Provider(LlmError::ContextOverflow {
                window,
                prompt_tokens,
                ..
            }) => (*window, *prompt_tokens),
            _ => return Err(refused),
        };
        let configured = self.agent.config.context.context_window;
        if let Some(learnt) = window.filter(|window| *window < configured) {
            self.agent.config.context.context_window = learnt;
            self.sink.emit(Event::Warning {
                message: format!(
                    "the server's context window is {learnt} tokens, not {configured}; requests \
                     are fitted to it for the rest of this session (set `context_window = \
                     {learnt}` to start with it)"
                ),
            });
        }
        if let Some(prompt_tokens) = prompt_tokens {
            let counted = Usage {
                prompt_tokens,
                ..Usage::default()
            };
            self.agent.calibrate(estimate_request(&request), &counted);
        }
        // Nothing learnt leaves the same request, which would be refused the same way.
        let refitted = self.fit_request()?;
        if refitted == request {
            return Err(refused);
        }
        let (completion, continued) = self.call_model(&refitted).await?;
        Ok((refitted, completion, continued))
    }
}
