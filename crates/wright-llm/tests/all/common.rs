//! Shared setup for the loopback tests: a client pointed at a `TestServer`, with retries
//! fast enough for tests.

use std::time::Duration;

use wright_llm::{
    ChatMessage, ChatRequest, Completion, LlmClient, LlmConfig, LlmError, ProviderKind, StreamEvent,
};
use wright_testkit::TestServer;

/// The API key every test client sends.
pub const API_KEY: &str = "test-key";

/// The continuation prompt wright sends after a reply hits the output-token limit.
pub const CONTINUE_PROMPT: &str = "Your reply was cut off by the output token limit. Continue \
                                   exactly where you stopped: no repetition, no preamble.";

/// A config for `provider` at `server`, with millisecond retry delays.
pub fn config(provider: ProviderKind, server: &TestServer) -> LlmConfig {
    let base_url = match provider {
        ProviderKind::OpenAi => format!("{}/v1/", server.url()),
        ProviderKind::Anthropic => format!("{}/", server.url()),
    };
    let mut config = LlmConfig::new(provider, base_url, "test-model");
    config.api_key = Some(API_KEY.to_string());
    config.retry_base_delay = Duration::from_millis(5);
    config.stream_idle_timeout = Duration::from_secs(5);
    config
}

/// A one-message conversation with a system prompt.
pub fn request() -> ChatRequest {
    ChatRequest {
        system: vec!["You are terse.".to_string()],
        messages: vec![ChatMessage::user("Say hello.")],
        stop: Vec::new(),
        max_output_tokens: None,
    }
}

/// Runs one call, returning its result and every event it reported.
pub async fn complete(
    config: LlmConfig,
    request: &ChatRequest,
) -> (Result<Completion, LlmError>, Vec<StreamEvent>) {
    let client = match LlmClient::new(config) {
        Ok(client) => client,
        Err(error) => return (Err(error), Vec::new()),
    };
    let mut events = Vec::new();
    let result = client
        .complete(request, &mut |event| events.push(event))
        .await;
    (result, events)
}

/// The `Text` deltas joined.
pub fn streamed_text(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The `Reasoning` deltas joined.
pub fn streamed_reasoning(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Reasoning(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// How many `Text` deltas were reported.
pub fn text_deltas(events: &[StreamEvent]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, StreamEvent::Text(_)))
        .count()
}

/// The `Retry` events as `(attempt, max_attempts, reason)`.
pub fn retries(events: &[StreamEvent]) -> Vec<(u32, u32, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Retry {
                attempt,
                max_attempts,
                reason,
                ..
            } => Some((*attempt, *max_attempts, reason.clone())),
            _ => None,
        })
        .collect()
}
