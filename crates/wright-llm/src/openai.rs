//! The OpenAI Chat Completions wire format, as OpenAI and the compatible servers (vLLM,
//! Ollama, llama.cpp, OpenRouter, DeepSeek ...) speak it. Responses are read leniently: every
//! field is optional and unknown fields are ignored, because compatible servers differ.

use eventsource_stream::Event;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::{NativeToolCall, Usage};

use crate::FinishReason;
use crate::error::{StreamFault, message_in_error_json};
use crate::retry::is_retryable_status;
use crate::sse::{Delta, Piece, StreamDecoder};
use crate::tool_calls::{ToolCallFragment, fallback_id};

mod request;

pub(crate) use request::{Dialect, request_body};

/// The endpoint under `base_url`.
pub(crate) fn endpoint(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// A streamed chunk or a whole completion: the two share their shape.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireCompletion {
    choices: Option<Vec<WireChoice>>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireChoice {
    /// In a streamed chunk.
    delta: Option<WireContent>,
    /// In a whole completion.
    message: Option<WireContent>,
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireContent {
    content: Option<String>,
    /// DeepSeek, vLLM and others.
    reasoning_content: Option<String>,
    /// OpenRouter, Ollama and others.
    reasoning: Option<String>,
    /// Native tool calls: whole in a completion, in index-keyed fragments in a stream.
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireToolCall {
    /// Which call a fragment belongs to; some servers leave it out.
    index: Option<u64>,
    id: Option<String>,
    function: Option<WireFunction>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireFunction {
    name: Option<String>,
    /// A string as OpenAI sends it; some compatible servers send the object itself.
    arguments: Option<Value>,
}

impl WireFunction {
    /// The arguments text: a string as it is, any other JSON as its text, none as empty.
    fn arguments_text(&mut self) -> String {
        match self.arguments.take() {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text,
            Some(other) => other.to_string(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    total_tokens: Option<u64>,
    prompt_tokens_details: Option<WirePromptDetails>,
    /// DeepSeek's name for cached prompt tokens.
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WirePromptDetails {
    cached_tokens: Option<u64>,
    /// OpenRouter's count of prompt tokens written to the cache (Anthropic models behind it);
    /// like `cached_tokens`, part of `prompt_tokens`.
    cache_write_tokens: Option<u64>,
}

impl WireUsage {
    /// The usage, or `None` when the object holds no counts (some servers send `{}`).
    fn to_usage(&self) -> Option<Usage> {
        if self.prompt_tokens.is_none() && self.completion_tokens.is_none() {
            return None;
        }
        let prompt_tokens = self.prompt_tokens.unwrap_or(0);
        let completion_tokens = self.completion_tokens.unwrap_or(0);
        Some(Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: self
                .total_tokens
                .unwrap_or(prompt_tokens.saturating_add(completion_tokens)),
            cached_prompt_tokens: self
                .prompt_tokens_details
                .as_ref()
                .and_then(|details| details.cached_tokens)
                .or(self.prompt_cache_hit_tokens),
            cache_creation_tokens: self
                .prompt_tokens_details
                .as_ref()
                .and_then(|details| details.cache_write_tokens),
        })
    }
}

impl WireContent {
    fn reasoning(&mut self) -> Option<String> {
        self.reasoning_content.take().or(self.reasoning.take())
    }
}

/// An `error` object sent in place of a chunk or completion: errors with a status that will
/// not heal are fatal, anything else (overload, a server fault) is retried.
fn error_fault(error: &Value) -> StreamFault {
    let message = message_in_error_json(&serde_json::json!({ "error": error }))
        .unwrap_or_else(|| error.to_string());
    let status = error
        .get("code")
        .and_then(|code| code.as_u64().or_else(|| code.as_str()?.parse().ok()))
        .and_then(|code| u16::try_from(code).ok());
    match status {
        Some(status) if !is_retryable_status(status) => StreamFault::Provider {
            kind: error
                .get("type")
                .and_then(Value::as_str)
                .map_or_else(|| format!("HTTP {status}"), str::to_string),
            message,
        },
        _ => StreamFault::Transient(format!("the provider reported an error: {message}")),
    }
}

/// Reads `data:` chunks until `[DONE]`.
#[derive(Debug, Default)]
pub(crate) struct ChunkDecoder {
    done: bool,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    /// The index and id of the last tool-call fragment, for servers that send no index.
    last_tool_call: Option<(u64, Option<String>)>,
}

impl ChunkDecoder {
    /// The fragment a streamed `tool_calls` entry carries. Without an index, an entry with a
    /// new id starts a new call, and one without an id (or with the last one's) continues the
    /// last.
    fn tool_call_fragment(&mut self, mut call: WireToolCall) -> ToolCallFragment {
        let id = call.id.clone().filter(|id| !id.is_empty());
        let last = self.last_tool_call.take();
        let index = match (call.index, &last) {
            (Some(index), _) => index,
            (None, None) => 0,
            (None, Some((last_index, last_id))) if id.is_some() && id != *last_id => {
                last_index.saturating_add(1)
            }
            (None, Some((last_index, _))) => *last_index,
        };
        let last_id = match last {
            Some((last_index, last_id)) if last_index == index => last_id,
            _ => None,
        };
        self.last_tool_call = Some((index, id.or(last_id)));
        let mut function = call.function.take().unwrap_or_default();
        ToolCallFragment {
            index,
            id: call.id,
            name: function.name.take(),
            arguments: function.arguments_text(),
        }
    }
}

impl StreamDecoder for ChunkDecoder {
    fn on_event(&mut self, event: &Event) -> Result<Vec<Delta>, StreamFault> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(Vec::new());
        }
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let chunk: WireCompletion = serde_json::from_str(data).map_err(|error| {
            StreamFault::Invalid(format!("a chunk is not valid JSON ({error}): {data}"))
        })?;
        if let Some(error) = chunk.error.filter(|error| !error.is_null()) {
            return Err(error_fault(&error));
        }
        let mut deltas = Vec::new();
        if let Some(usage) = chunk.usage.as_ref().and_then(WireUsage::to_usage) {
            self.usage = Some(usage);
            deltas.push(Delta::Progress);
        }
        let Some(mut choice) = chunk.choices.and_then(|choices| choices.into_iter().next()) else {
            return Ok(deltas);
        };
        if let Some(reason) = choice.finish_reason.filter(|reason| !reason.is_empty()) {
            self.finish_reason = Some(reason);
            deltas.push(Delta::Progress);
        }
        if let Some(delta) = choice.delta.as_mut() {
            if let Some(reasoning) = delta.reasoning() {
                deltas.push(Delta::Reasoning(reasoning));
            }
            if let Some(text) = delta.content.take() {
                deltas.push(Delta::Text(text));
            }
            for call in delta.tool_calls.take().unwrap_or_default() {
                deltas.push(Delta::ToolCall(self.tool_call_fragment(call)));
            }
        }
        Ok(deltas)
    }

    fn is_finished(&self) -> bool {
        self.done
    }

    /// Servers that leave out `[DONE]` are still complete once a finish reason arrived.
    fn may_end_here(&self) -> bool {
        self.finish_reason.is_some()
    }

    fn outcome(self) -> (Option<Usage>, FinishReason) {
        (
            self.usage,
            FinishReason::from_wire(self.finish_reason.as_deref()),
        )
    }
}

/// Reads a whole (non-streamed) completion.
pub(crate) fn parse_completion(body: &[u8]) -> Result<Piece, StreamFault> {
    let completion: WireCompletion = serde_json::from_slice(body).map_err(|error| {
        StreamFault::Invalid(format!("the response is not a chat completion ({error})"))
    })?;
    if let Some(error) = completion.error.filter(|error| !error.is_null()) {
        return Err(error_fault(&error));
    }
    let Some(mut choice) = completion
        .choices
        .and_then(|choices| choices.into_iter().next())
    else {
        return Err(StreamFault::Invalid(
            "the completion has no choices".to_string(),
        ));
    };
    let mut message = choice.message.take().unwrap_or_default();
    let tool_calls = message
        .tool_calls
        .take()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(position, call)| {
            let mut function = call.function.unwrap_or_default();
            NativeToolCall {
                id: call
                    .id
                    .filter(|id| !id.is_empty())
                    .unwrap_or_else(|| fallback_id(position)),
                name: function.name.take().unwrap_or_default(),
                arguments: function.arguments_text(),
            }
        })
        .collect();
    Ok(Piece {
        reasoning: message.reasoning().unwrap_or_default(),
        text: message.content.unwrap_or_default(),
        usage: completion.usage.as_ref().and_then(WireUsage::to_usage),
        finish_reason: FinishReason::from_wire(choice.finish_reason.as_deref()),
        tool_calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StreamEvent;
    use crate::sse::CUT_STREAM_REASON;
    use crate::sse::test_support::decode;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_endpoint_tolerates_a_trailing_slash() {
        assert_eq!(endpoint("http://h/v1/"), "http://h/v1/chat/completions");
        assert_eq!(endpoint("http://h/v1"), "http://h/v1/chat/completions");
    }

    #[tokio::test]
    async fn chunks_give_text_reasoning_usage_and_finish_reason() {
        let stream = concat!(
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"ing\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}],\"extra\":1}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":12,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n",
            "data: [DONE]\n\n",
        );
        let (piece, events) = decode(ChunkDecoder::default(), &[stream.as_bytes()]).await;
        assert_eq!(
            piece.unwrap(),
            Piece {
                text: "Hello".into(),
                reasoning: "thinking".into(),
                usage: Some(Usage {
                    prompt_tokens: 10,
                    completion_tokens: 2,
                    total_tokens: 12,
                    cached_prompt_tokens: Some(4),
                    cache_creation_tokens: None,
                }),
                finish_reason: FinishReason::Stop,
                tool_calls: Vec::new(),
            }
        );
        assert_eq!(
            events,
            vec![
                StreamEvent::Reasoning("think".into()),
                StreamEvent::Reasoning("ing".into()),
                StreamEvent::Text("Hel".into()),
                StreamEvent::Text("lo".into()),
            ]
        );
    }

    #[tokio::test]
    async fn empty_usage_objects_and_empty_finish_reasons_are_tolerated() {
        let stream = concat!(
            "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"\"}],\"usage\":{}}\n\n",
            "data: [DONE]\n\n",
        );
        let (piece, _) = decode(ChunkDecoder::default(), &[stream.as_bytes()]).await;
        let piece = piece.unwrap();
        assert_eq!(piece.usage, None);
        assert_eq!(piece.finish_reason, FinishReason::Stop);
    }

    #[tokio::test]
    async fn a_stream_without_done_is_complete_after_a_finish_reason() {
        let stream = "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"length\"}]}\n\n";
        let (piece, _) = decode(ChunkDecoder::default(), &[stream.as_bytes()]).await;
        assert_eq!(piece.unwrap().finish_reason, FinishReason::Length);
    }

    #[tokio::test]
    async fn a_stream_without_done_or_finish_reason_is_cut() {
        let stream =
            "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\n";
        let (piece, _) = decode(ChunkDecoder::default(), &[stream.as_bytes()]).await;
        assert_eq!(piece, Err(StreamFault::Transient(CUT_STREAM_REASON.into())));
    }

    #[tokio::test]
    async fn a_chunk_that_is_not_json_is_an_invalid_response() {
        let (piece, _) = decode(ChunkDecoder::default(), &[b"data: {oops\n\n"]).await;
        assert!(matches!(piece, Err(StreamFault::Invalid(_))), "{piece:?}");
    }

    #[tokio::test]
    async fn error_chunks_are_retried_unless_their_status_will_not_heal() {
        let overloaded = "data: {\"error\":{\"message\":\"busy\",\"code\":503}}\n\n";
        let (piece, _) = decode(ChunkDecoder::default(), &[overloaded.as_bytes()]).await;
        assert_eq!(
            piece,
            Err(StreamFault::Transient(
                "the provider reported an error: busy".into()
            ))
        );
        let bad = "data: {\"error\":{\"message\":\"too long\",\"type\":\"BadRequestError\",\"code\":400}}\n\n";
        let (piece, _) = decode(ChunkDecoder::default(), &[bad.as_bytes()]).await;
        assert_eq!(
            piece,
            Err(StreamFault::Provider {
                kind: "BadRequestError".into(),
                message: "too long".into()
            })
        );
    }

    #[test]
    fn a_whole_completion_gives_text_reasoning_and_usage() {
        let body = json!({
            "id": "x",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": "Hi", "reasoning_content": "hmm"},
                "finish_reason": "length",
            }],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        });
        assert_eq!(
            parse_completion(body.to_string().as_bytes()).unwrap(),
            Piece {
                text: "Hi".into(),
                reasoning: "hmm".into(),
                usage: Some(Usage {
                    prompt_tokens: 3,
                    completion_tokens: 1,
                    total_tokens: 4,
                    cached_prompt_tokens: None,
                    cache_creation_tokens: None,
                }),
                finish_reason: FinishReason::Length,
                tool_calls: Vec::new(),
            }
        );
    }

    #[tokio::test]
    async fn tool_call_fragments_without_an_index_start_a_call_at_each_new_id() {
        let stream = concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"Read\",\"arguments\":\"{\\\"x\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"\\\": \"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"arguments\":\"1}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"b\",\"function\":{\"name\":\"Glob\",\"arguments\":{\"p\":2}}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let (piece, _) = decode(ChunkDecoder::default(), &[stream.as_bytes()]).await;
        let piece = piece.unwrap();
        assert_eq!(
            piece.tool_calls,
            vec![
                NativeToolCall::new("a", "Read", "{\"x\": 1}"),
                NativeToolCall::new("b", "Glob", "{\"p\":2}"),
            ]
        );
        assert_eq!(piece.finish_reason, FinishReason::ToolCalls);
    }

    #[test]
    fn a_whole_completion_gives_tool_calls_with_object_arguments_as_text_and_missing_ids() {
        let body = json!({
            "choices": [{
                "message": {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "Read", "arguments": "{\"a\":1"}},
                    {"type": "function", "function": {"name": "Glob", "arguments": {"p": "*"}}},
                ]},
                "finish_reason": "tool_calls",
            }],
        });
        let piece = parse_completion(body.to_string().as_bytes()).unwrap();
        assert_eq!(piece.text, "");
        assert_eq!(
            piece.tool_calls[0],
            NativeToolCall::new("call_1", "Read", "{\"a\":1")
        );
        let fallback = &piece.tool_calls[1];
        assert!(fallback.id.starts_with("wright_call_"), "{fallback:?}");
        assert_eq!(
            (fallback.name.as_str(), fallback.arguments.as_str()),
            ("Glob", "{\"p\":\"*\"}")
        );
    }

    #[test]
    fn a_completion_without_choices_is_an_invalid_response() {
        assert_eq!(
            parse_completion(br#"{"choices":[]}"#),
            Err(StreamFault::Invalid("the completion has no choices".into()))
        );
    }
}
