//! The Anthropic Messages wire format: the request (system prompt as a cached block, strictly
//! alternating messages, native tools and their `tool_use` / `tool_result` blocks) and the
//! event stream (`message_start` ... `message_stop`).

use std::collections::{HashMap, HashSet};

use eventsource_stream::Event;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wright_protocol::{NativeToolCall, ToolDefinition, Usage};

use crate::error::StreamFault;
use crate::sse::{Delta, Piece, StreamDecoder};
use crate::tool_calls::ToolCallFragment;
use crate::{ChatRequest, FinishReason, LlmConfig};

mod messages;

use messages::{WireRequestMessage, alternating_messages, mark_cache_breakpoint};

/// The API version wright speaks, sent as `anthropic-version`.
pub(crate) const API_VERSION: &str = "2023-06-01";

/// Error types of stream `error` events that pass: retried rather than reported.
const TRANSIENT_ERROR_TYPES: [&str; 4] = [
    "overloaded_error",
    "api_error",
    "rate_limit_error",
    "timeout_error",
];

/// The endpoint under `base_url`.
pub(crate) fn endpoint(base_url: &str) -> String {
    format!("{}/v1/messages", base_url.trim_end_matches('/'))
}

/// The request body, as bytes so every attempt sends exactly the same ones. `tools` are
/// offered with their `input_schema`. Without them, and without tool calls in the
/// conversation, the body is what it was before native tool calling existed, but for the
/// cache breakpoint that ends the conversation (`mark_cache_breakpoint`).
pub(crate) fn request_body(
    config: &LlmConfig,
    request: &ChatRequest,
    tools: &[ToolDefinition],
) -> serde_json::Result<Vec<u8>> {
    // Cache breakpoints after the first part (L1, the same for the whole session) and after
    // the last (the whole system prompt, until the rules or the summaries change); a third
    // ends the last user message (the whole conversation: `mark_cache_breakpoint`).
    let parts: Vec<&str> = request.system_parts().collect();
    let last = parts.len().saturating_sub(1);
    let system = parts
        .iter()
        .enumerate()
        .map(|(index, text)| SystemBlock {
            kind: "text",
            text,
            cache_control: (index == 0 || index == last)
                .then_some(CacheControl { kind: "ephemeral" }),
        })
        .collect();
    serde_json::to_vec(&WireRequest {
        model: &config.model,
        max_tokens: request.output_limit(config.max_output_tokens),
        system,
        messages: {
            let mut messages = alternating_messages(&request.messages);
            mark_cache_breakpoint(&mut messages);
            messages
        },
        stop_sequences: &request.stop,
        stream: config.stream,
        tools: tools
            .iter()
            .map(|tool| WireTool {
                name: &tool.name,
                description: &tool.description,
                input_schema: &tool.parameters,
            })
            .collect(),
    })
}

/// A tool offered.
#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<SystemBlock<'a>>,
    messages: Vec<WireRequestMessage<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop_sequences: &'a [String],
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
}

#[derive(Serialize)]
struct SystemBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

#[derive(Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// One streamed event, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireEvent {
    MessageStart {
        #[serde(default)]
        message: WireMessage,
    },
    ContentBlockStart {
        #[serde(default)]
        index: u64,
        #[serde(default)]
        content_block: WireBlock,
    },
    ContentBlockDelta {
        #[serde(default)]
        index: u64,
        #[serde(default)]
        delta: WireBlockDelta,
    },
    ContentBlockStop {
        #[serde(default)]
        index: u64,
    },
    MessageDelta {
        #[serde(default)]
        delta: WireMessageDelta,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    MessageStop {},
    Error {
        #[serde(default)]
        error: WireError,
    },
    /// `ping` and whatever comes next.
    #[serde(other)]
    Other,
}

/// A message: `message_start` carries an empty one, a plain request gets a whole one.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireMessage {
    #[serde(rename = "type")]
    kind: Option<String>,
    content: Vec<WireBlock>,
    stop_reason: Option<String>,
    usage: Option<WireUsage>,
    error: Option<WireError>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    /// A native tool call; streamed, its `input` is `{}` and `input_json_delta`s follow.
    ToolUse {
        #[serde(default)]
        id: String,
        #[serde(default)]
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// `redacted_thinking`, `server_tool_use` ...
    #[default]
    #[serde(other)]
    Other,
}

#[derive(Debug, Default, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlockDelta {
    TextDelta {
        #[serde(default)]
        text: String,
    },
    ThinkingDelta {
        #[serde(default)]
        thinking: String,
    },
    /// A piece of a `tool_use` block's input JSON.
    InputJsonDelta {
        #[serde(default)]
        partial_json: String,
    },
    /// `signature_delta` ...
    #[default]
    #[serde(other)]
    Other,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireMessageDelta {
    stop_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireError {
    #[serde(rename = "type")]
    kind: String,
    message: String,
}

impl WireError {
    fn into_fault(self) -> StreamFault {
        if TRANSIENT_ERROR_TYPES.contains(&self.kind.as_str()) {
            StreamFault::Transient(format!("{}: {}", self.kind, self.message))
        } else {
            StreamFault::Provider {
                kind: self.kind,
                message: self.message,
            }
        }
    }
}

/// Token counts as they arrive: `message_start` has the input side, `message_delta` the
/// (cumulative) output count and, on newer servers, updated input counts.
#[derive(Debug, Default)]
struct UsageCounts {
    reported: bool,
    input: u64,
    output: u64,
    cache_read: Option<u64>,
    cache_creation: Option<u64>,
}

impl UsageCounts {
    fn update(&mut self, usage: &WireUsage) {
        self.reported = true;
        self.input = usage.input_tokens.unwrap_or(self.input);
        self.output = usage.output_tokens.unwrap_or(self.output);
        self.cache_read = usage.cache_read_input_tokens.or(self.cache_read);
        self.cache_creation = usage.cache_creation_input_tokens.or(self.cache_creation);
    }

    /// Anthropic's `input_tokens` leaves out cached tokens; wright counts the whole prompt.
    fn to_usage(&self) -> Option<Usage> {
        if !self.reported {
            return None;
        }
        let prompt_tokens =
            self.input + self.cache_read.unwrap_or(0) + self.cache_creation.unwrap_or(0);
        Some(Usage {
            prompt_tokens,
            completion_tokens: self.output,
            total_tokens: prompt_tokens + self.output,
            cached_prompt_tokens: self.cache_read,
            cache_creation_tokens: self.cache_creation,
        })
    }
}

/// Reads the event stream until `message_stop`.
#[derive(Debug, Default)]
pub(crate) struct EventDecoder {
    stopped: bool,
    stop_reason: Option<String>,
    usage: UsageCounts,
    /// `tool_use` blocks (by index) that have had no input JSON yet, with the `input` their
    /// start carried: a call without arguments may get no `input_json_delta` at all.
    tool_blocks_without_input: HashMap<u64, String>,
    /// The indexes of the `tool_use` blocks: input JSON for any other block is ignored.
    tool_blocks: HashSet<u64>,
}

impl EventDecoder {
    /// The start of a content block.
    fn on_block_start(&mut self, index: u64, block: WireBlock) -> Option<Delta> {
        let WireBlock::ToolUse { id, name, input } = block else {
            return block_delta(block);
        };
        let input = match input {
            Value::Null => "{}".to_string(),
            other => other.to_string(),
        };
        self.tool_blocks_without_input.insert(index, input);
        self.tool_blocks.insert(index);
        Some(Delta::ToolCall(ToolCallFragment {
            index,
            id: Some(id),
            name: Some(name),
            arguments: String::new(),
        }))
    }

    /// A piece of a `tool_use` block's input.
    fn on_input_json(&mut self, index: u64, partial_json: String) -> Option<Delta> {
        if !self.tool_blocks.contains(&index) {
            return None;
        }
        if !partial_json.is_empty() {
            self.tool_blocks_without_input.remove(&index);
        }
        Some(Delta::ToolCall(ToolCallFragment {
            index,
            arguments: partial_json,
            ..ToolCallFragment::default()
        }))
    }

    /// The end of a content block: a `tool_use` block that got no input JSON takes the
    /// `input` its start carried (`{}`).
    fn on_block_stop(&mut self, index: u64) -> Option<Delta> {
        let input = self.tool_blocks_without_input.remove(&index)?;
        Some(Delta::ToolCall(ToolCallFragment {
            index,
            arguments: input,
            ..ToolCallFragment::default()
        }))
    }
}

impl StreamDecoder for EventDecoder {
    fn on_event(&mut self, event: &Event) -> Result<Vec<Delta>, StreamFault> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let wire: WireEvent = serde_json::from_str(data).map_err(|error| {
            StreamFault::Invalid(format!("an event is not valid JSON ({error}): {data}"))
        })?;
        let delta = match wire {
            WireEvent::MessageStart { message } => message.usage.map(|usage| {
                self.usage.update(&usage);
                Delta::Progress
            }),
            WireEvent::ContentBlockStart {
                index,
                content_block,
            } => self.on_block_start(index, content_block),
            WireEvent::ContentBlockDelta { index, delta } => match delta {
                WireBlockDelta::TextDelta { text } => Some(Delta::Text(text)),
                WireBlockDelta::ThinkingDelta { thinking } => Some(Delta::Reasoning(thinking)),
                WireBlockDelta::InputJsonDelta { partial_json } => {
                    self.on_input_json(index, partial_json)
                }
                WireBlockDelta::Other => None,
            },
            WireEvent::ContentBlockStop { index } => self.on_block_stop(index),
            WireEvent::MessageDelta { delta, usage } => {
                let progress = delta.stop_reason.is_some() || usage.is_some();
                if delta.stop_reason.is_some() {
                    self.stop_reason = delta.stop_reason;
                }
                if let Some(usage) = &usage {
                    self.usage.update(usage);
                }
                progress.then_some(Delta::Progress)
            }
            WireEvent::MessageStop {} => {
                self.stopped = true;
                None
            }
            WireEvent::Error { error } => return Err(error.into_fault()),
            WireEvent::Other => None,
        };
        Ok(delta.into_iter().collect())
    }

    fn is_finished(&self) -> bool {
        self.stopped
    }

    fn may_end_here(&self) -> bool {
        false
    }

    fn outcome(self) -> (Option<Usage>, FinishReason) {
        (
            self.usage.to_usage(),
            FinishReason::from_wire(self.stop_reason.as_deref()),
        )
    }
}

/// The text a content block starts with (usually none; the deltas carry it).
fn block_delta(block: WireBlock) -> Option<Delta> {
    match block {
        WireBlock::Text { text } => Some(Delta::Text(text)),
        WireBlock::Thinking { thinking } => Some(Delta::Reasoning(thinking)),
        WireBlock::ToolUse { .. } | WireBlock::Other => None,
    }
}

/// Reads a whole (non-streamed) message.
pub(crate) fn parse_message(body: &[u8]) -> Result<Piece, StreamFault> {
    let message: WireMessage = serde_json::from_slice(body).map_err(|error| {
        StreamFault::Invalid(format!("the response is not a message ({error})"))
    })?;
    if message.kind.as_deref() == Some("error") {
        return Err(message.error.unwrap_or_default().into_fault());
    }
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut tool_calls = Vec::new();
    for block in message.content {
        if let WireBlock::ToolUse { id, name, input } = block {
            tool_calls.push(NativeToolCall::new(id, name, input.to_string()));
            continue;
        }
        match block_delta(block) {
            Some(Delta::Text(part)) => text.push_str(&part),
            Some(Delta::Reasoning(part)) => reasoning.push_str(&part),
            Some(Delta::ToolCall(_) | Delta::Progress) | None => {}
        }
    }
    let mut usage = UsageCounts::default();
    if let Some(wire) = &message.usage {
        usage.update(wire);
    }
    Ok(Piece {
        text,
        reasoning,
        usage: usage.to_usage(),
        finish_reason: FinishReason::from_wire(message.stop_reason.as_deref()),
        tool_calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::CUT_STREAM_REASON;
    use crate::sse::test_support::decode;
    use crate::{ChatMessage, ProviderKind, StreamEvent};
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    fn config() -> LlmConfig {
        LlmConfig::new(
            ProviderKind::Anthropic,
            "http://127.0.0.1:1/",
            "claude-test",
        )
    }

    fn body_json(config: &LlmConfig, request: &ChatRequest) -> Value {
        serde_json::from_slice(&request_body(config, request, &[]).unwrap()).unwrap()
    }

    #[test]
    fn the_endpoint_tolerates_a_trailing_slash() {
        assert_eq!(endpoint("http://h/"), "http://h/v1/messages");
        assert_eq!(endpoint("http://h"), "http://h/v1/messages");
    }

    #[test]
    fn the_request_caches_the_system_prompt_and_the_conversation_and_names_stop_sequences() {
        let request = ChatRequest {
            system: vec!["be brief".into()],
            messages: vec![ChatMessage::user("hi")],
            stop: vec!["Observation:".into()],
            max_output_tokens: None,
        };
        assert_eq!(
            body_json(&config(), &request),
            json!({
                "model": "claude-test",
                "max_tokens": 8192,
                "system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}],
                "messages": [{"role": "user", "content": [
                    {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}},
                ]}],
                "stop_sequences": ["Observation:"],
                "stream": true,
            })
        );
    }

    #[test]
    fn system_parts_are_blocks_cached_after_the_first_and_the_last() {
        let request = ChatRequest {
            system: vec!["L1".into(), "rules".into(), String::new(), "summary".into()],
            messages: vec![ChatMessage::user("hi")],
            ..ChatRequest::default()
        };
        assert_eq!(
            body_json(&config(), &request)["system"],
            json!([
                {"type": "text", "text": "L1", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "rules"},
                {"type": "text", "text": "summary", "cache_control": {"type": "ephemeral"}},
            ])
        );
    }

    #[test]
    fn an_empty_system_prompt_and_stop_list_are_left_out() {
        let mut config = config();
        config.stream = false;
        let request = ChatRequest {
            messages: vec![ChatMessage::user("hi")],
            ..ChatRequest::default()
        };
        assert_eq!(
            body_json(&config, &request),
            json!({
                "model": "claude-test",
                "max_tokens": 8192,
                "messages": [{"role": "user", "content": [
                    {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}},
                ]}],
                "stream": false,
            })
        );
    }

    fn event(name: &str, data: Value) -> String {
        format!("event: {name}\ndata: {data}\n\n")
    }

    fn full_stream() -> String {
        [
            event(
                "message_start",
                json!({"type": "message_start", "message": {"id": "m", "content": [], "usage": {
                    "input_tokens": 10, "output_tokens": 1,
                    "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20}}}),
            ),
            event("ping", json!({"type": "ping"})),
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            ),
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            ),
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
            ),
            event("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            ),
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi"}}),
            ),
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{"}}),
            ),
            event("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
            event(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens", "stop_sequence": null}, "usage": {"output_tokens": 7}}),
            ),
            event("message_stop", json!({"type": "message_stop"})),
        ]
        .concat()
    }

    #[tokio::test]
    async fn events_give_text_thinking_usage_and_stop_reason() {
        let stream = full_stream();
        let (piece, events) = decode(EventDecoder::default(), &[stream.as_bytes()]).await;
        assert_eq!(
            piece.unwrap(),
            Piece {
                text: "Hi".into(),
                reasoning: "hmm".into(),
                usage: Some(Usage {
                    prompt_tokens: 130,
                    completion_tokens: 7,
                    total_tokens: 137,
                    cached_prompt_tokens: Some(100),
                    cache_creation_tokens: Some(20),
                }),
                finish_reason: FinishReason::Length,
                tool_calls: Vec::new(),
            }
        );
        assert_eq!(
            events,
            vec![
                StreamEvent::Reasoning("hmm".into()),
                StreamEvent::Text("Hi".into())
            ]
        );
    }

    #[tokio::test]
    async fn a_stream_without_message_stop_is_cut() {
        let stream = full_stream();
        let cut = &stream[..stream.find("event: message_stop").unwrap()];
        let (piece, _) = decode(EventDecoder::default(), &[cut.as_bytes()]).await;
        assert_eq!(piece, Err(StreamFault::Transient(CUT_STREAM_REASON.into())));
    }

    #[tokio::test]
    async fn overloaded_errors_in_the_stream_are_retried() {
        let stream = event(
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        );
        let (piece, _) = decode(EventDecoder::default(), &[stream.as_bytes()]).await;
        assert_eq!(
            piece,
            Err(StreamFault::Transient(
                "overloaded_error: Overloaded".into()
            ))
        );
    }

    #[tokio::test]
    async fn other_errors_in_the_stream_are_reported() {
        let stream = event(
            "error",
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}}),
        );
        let (piece, _) = decode(EventDecoder::default(), &[stream.as_bytes()]).await;
        assert_eq!(
            piece,
            Err(StreamFault::Provider {
                kind: "invalid_request_error".into(),
                message: "prompt is too long".into()
            })
        );
    }

    #[test]
    fn a_whole_message_gives_text_thinking_usage_and_tool_calls() {
        let body = json!({
            "type": "message",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "Hi"},
                {"type": "tool_use", "id": "t", "name": "x", "input": {}},
            ],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 5, "output_tokens": 2},
        });
        assert_eq!(
            parse_message(body.to_string().as_bytes()).unwrap(),
            Piece {
                text: "Hi".into(),
                reasoning: "hmm".into(),
                usage: Some(Usage {
                    prompt_tokens: 5,
                    completion_tokens: 2,
                    total_tokens: 7,
                    cached_prompt_tokens: None,
                    cache_creation_tokens: None,
                }),
                finish_reason: FinishReason::Stop,
                tool_calls: vec![NativeToolCall::new("t", "x", "{}")],
            }
        );
    }
}
