//! One model call of a round: the request goes out, the reply streams back through the ReAct
//! parser so only the thought is shown while it arrives, and Ctrl-C abandons it.

use wright_llm::{ChatRequest, Completion, StreamEvent};
use wright_protocol::Event;

use crate::error::RoundError;
use crate::react::ReplyStream;

use super::{Round, ToolProtocol};

impl Round<'_> {
    /// Sends `request`, streaming the thought to the sink; also says whether the reply was
    /// continued after hitting the output limit (its usage then covers several requests).
    /// Under the native tool protocol the round's tools go with it and the reply's text is
    /// streamed as it comes (it holds no `Action:` lines to hide).
    pub(super) async fn call_model(
        &mut self,
        request: &ChatRequest,
    ) -> Result<(Completion, bool), RoundError> {
        let mut stream = ReplyStream::new();
        let mut continued = false;
        let native = self.agent.config.tool_protocol == ToolProtocol::Native;
        let sink = &mut self.sink;
        let mut on_event = |event: StreamEvent| match event {
            StreamEvent::Text(piece) if native => sink.emit(Event::AssistantDelta { text: piece }),
            StreamEvent::Text(piece) => {
                if let Some(thought) = stream.push(&piece) {
                    sink.emit(Event::AssistantDelta {
                        text: thought.to_string(),
                    });
                }
            }
            StreamEvent::Reasoning(piece) => sink.emit(Event::ReasoningDelta { text: piece }),
            StreamEvent::Retry {
                attempt,
                max_attempts,
                reason,
                delay,
            } => {
                stream.reset();
                sink.emit(Event::Retry {
                    attempt,
                    max_attempts,
                    reason,
                    delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                });
            }
            StreamEvent::Continuation { attempt } => {
                continued = true;
                sink.emit(Event::Continuation { attempt });
            }
        };
        let agent = &*self.agent;
        let result = tokio::select! {
            result = agent.llm.complete_with_tools(request, &self.offered, &mut on_event) => result,
            () = agent.cancellation().cancelled() => return Err(RoundError::Interrupted),
        };
        let completion = result?;
        if let Some(rest) = stream.finish().filter(|_| !native) {
            self.sink.emit(Event::AssistantDelta {
                text: rest.to_string(),
            });
        }
        Ok((completion, continued))
    }
}
