//! The window the server says it has (DESIGN §9.3): when a request is refused as too long
//! for the model's context window and the server names that window, the round learns it for
//! the rest of the session, fits the request to it with the usual tiers, and sends it once
//! more. A second refusal ends the round with the server's error, which names the window and
//! the `context_window` setting.

use wright_llm::{ChatRequest, Completion, LlmError};
use wright_protocol::Event;

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
        let configured = self.agent.config.context.context_window;
        let learnt = match &refused {
            RoundError::Provider(LlmError::ContextOverflow {
                window: Some(window),
                ..
            }) if *window < configured => *window,
            _ => return Err(refused),
        };
        self.agent.config.context.context_window = learnt;
        self.sink.emit(Event::Warning {
            message: format!(
                "the server's context window is {learnt} tokens, not {configured}; requests are \
                 fitted to it for the rest of this session (set `context_window = {learnt}` to \
                 start with it)"
            ),
        });
        let refitted = self.fit_request()?;
        if refitted == request {
            return Err(refused);
        }
        let (completion, continued) = self.call_model(&refitted).await?;
        Ok((refitted, completion, continued))
    }
}
