//! The OpenAI Chat Completions wire format, as OpenAI and the compatible servers (vLLM,
//! Ollama, llama.cpp, OpenRouter, DeepSeek ...) speak it. Responses are read leniently: every
//! field is optional and unknown fields are ignored, because compatible servers differ.

use eventsource_stream::Event;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wright_protocol::{NativeToolCall, ToolDefinition, Usage};

use crate::error::{StreamFault, message_in_error_json};
use crate::retry::is_retryable_status;
use crate::sse::{Delta, Piece, StreamDecoder};
use crate::tool_calls::{ToolCallFragment, fallback_id};
use crate::{ChatMessage, ChatRequest, ChatRole, FinishReason, LlmConfig};

/// The endpoint under `base_url`.
pub(crate) fn endpoint(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// Which spelling of the request a server takes. OpenAI's reasoning models (o1, o3, o4,
/// gpt-5 and later) refuse `max_tokens` and want `max_completion_tokens`, and some refuse
/// `stop`; older compatible servers know only `max_tokens`. A client starts from a guess by
/// model name and learns from the server's 400 answer (see [`Dialect::learn`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// Send the output limit as `max_completion_tokens` instead of `max_tokens`.
    pub max_completion_tokens: bool,
    /// Send no `stop` sequences.
    pub omit_stop: bool,
}

impl Dialect {
    /// The guess for `model`: OpenAI's reasoning families take `max_completion_tokens`.
    pub(crate) fn for_model(model: &str) -> Self {
        let model = model
            .rsplit('/')
            .next()
            .unwrap_or(model)
            .to_ascii_lowercase();
        let reasoning = ["o1", "o3", "o4", "gpt-5"].iter().any(|family| {
            model == *family
                || model
                    .strip_prefix(family)
                    .is_some_and(|rest| rest.starts_with(['-', '.', '_']))
        });
        Self {
            max_completion_tokens: reasoning,
            omit_stop: false,
        }
    }

    /// Adjusts to a 400 answer that names a parameter this dialect sends and the server does
    /// not take; whether anything changed (then the request is worth sending again).
    pub(crate) fn learn(&mut self, message: &str) -> bool {
        let unsupported = message.contains("nsupported") || message.contains("not supported");
        if !self.max_completion_tokens
            && message.contains("max_completion_tokens")
            && message.contains("max_tokens")
        {
            self.max_completion_tokens = true;
            return true;
        }
        if !self.omit_stop && unsupported && message.contains("'stop'") {
            self.omit_stop = true;
            return true;
        }
        false
    }
}

/// The request body, as bytes so every attempt sends exactly the same ones. `tools` are
/// offered as `function` tools; without them the body is what it was before native tool
/// calling existed.
pub(crate) fn request_body(
    config: &LlmConfig,
    request: &ChatRequest,
    tools: &[ToolDefinition],
    dialect: Dialect,
) -> serde_json::Result<Vec<u8>> {
    let system_text = request.system_text();
    let system = (!system_text.is_empty()).then(|| WireMessage::text("system", &system_text));
    let messages = system
        .into_iter()
        .chain(request.messages.iter().map(WireMessage::of))
        .collect();
    let output_limit = request.output_limit(config.max_output_tokens);
    serde_json::to_vec(&WireRequest {
        model: &config.model,
        messages,
        stream: config.stream,
        stream_options: config.stream.then_some(StreamOptions {
            include_usage: true,
        }),
        max_tokens: (!dialect.max_completion_tokens).then_some(output_limit),
        max_completion_tokens: dialect.max_completion_tokens.then_some(output_limit),
        stop: if dialect.omit_stop {
            &[]
        } else {
            &request.stop
        },
        tools: tools.iter().map(WireTool::of).collect(),
    })
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    /// `null` only for a model message that is nothing but tool calls, as OpenAI sends it.
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCallOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

impl<'a> WireMessage<'a> {
    fn text(role: &'static str, content: &'a str) -> Self {
        WireMessage {
            role,
            content: Some(content),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// A message of the conversation: a tool result becomes a `tool` message, a model
    /// message's tool calls its `tool_calls`.
    fn of(message: &'a ChatMessage) -> Self {
        if let Some(id) = &message.tool_call_id {
            return WireMessage {
                tool_call_id: Some(id),
                ..WireMessage::text("tool", &message.content)
            };
        }
        let role = match message.role {
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        };
        let calls_only = !message.tool_calls.is_empty() && message.content.is_empty();
        WireMessage {
            content: (!calls_only).then_some(message.content.as_str()),
            tool_calls: message.tool_calls.iter().map(WireToolCallOut::of).collect(),
            ..WireMessage::text(role, &message.content)
        }
    }
}

/// A tool call in a model message sent back: `{"id","type":"function","function":{...}}`.
#[derive(Serialize)]
struct WireToolCallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionOut<'a>,
}

#[derive(Serialize)]
struct WireFunctionOut<'a> {
    name: &'a str,
    /// The arguments text as the model sent it, malformed or not.
    arguments: &'a str,
}

impl<'a> WireToolCallOut<'a> {
    fn of(call: &'a NativeToolCall) -> Self {
        WireToolCallOut {
            id: &call.id,
            kind: "function",
            function: WireFunctionOut {
                name: &call.name,
                arguments: &call.arguments,
            },
        }
    }
}

/// A tool offered: `{"type":"function","function":{"name","description","parameters"}}`.
#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionDefinition<'a>,
}

#[derive(Serialize)]
struct WireFunctionDefinition<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl<'a> WireTool<'a> {
    fn of(tool: &'a ToolDefinition) -> Self {
        WireTool {
            kind: "function",
            function: WireFunctionDefinition {
                name: &tool.name,
                description: &tool.description,
                parameters: &tool.parameters,
            },
        }
    }
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
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
    use crate::sse::CUT_STREAM_REASON;
    use crate::sse::test_support::decode;
    use crate::{ChatMessage, ProviderKind, StreamEvent};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn config() -> LlmConfig {
        LlmConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:1/v1/", "gpt-test")
    }

    fn body_json(config: &LlmConfig, request: &ChatRequest) -> Value {
        serde_json::from_slice(&request_body(config, request, &[], Dialect::default()).unwrap())
            .unwrap()
    }

    #[test]
    fn reasoning_model_families_are_guessed_by_name() {
        for model in [
            "o1",
            "o3-mini",
            "o4-mini-high",
            "gpt-5",
            "gpt-5.1",
            "gpt-5-mini",
            "openai/gpt-5.4",
        ] {
            assert!(Dialect::for_model(model).max_completion_tokens, "{model}");
        }
        for model in [
            "gpt-4.1",
            "gpt-4o",
            "o1x",
            "deepseek-chat",
            "qwen2.5-coder:7b",
            "gpt-50",
        ] {
            assert_eq!(Dialect::for_model(model), Dialect::default(), "{model}");
        }
    }

    #[test]
    fn the_dialect_learns_from_unsupported_parameter_messages_once() {
        let mut dialect = Dialect::default();
        assert!(!dialect.learn("prompt is too long"));
        assert!(dialect.learn(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use \
             'max_completion_tokens' instead."
        ));
        assert!(dialect.max_completion_tokens);
        assert!(!dialect.learn("Unsupported parameter: 'max_tokens' … 'max_completion_tokens'"));
        assert!(dialect.learn("Unsupported parameter: 'stop' is not supported with this model."));
        assert!(dialect.omit_stop);
        assert!(!dialect.learn("Unsupported parameter: 'stop' is not supported with this model."));

        let mut config = config();
        config.max_output_tokens = 77;
        let request = ChatRequest {
            system: Vec::new(),
            messages: vec![ChatMessage::user("hi")],
            stop: vec!["\nObservation:".into()],
            max_output_tokens: None,
        };
        let body: Value =
            serde_json::from_slice(&request_body(&config, &request, &[], dialect).unwrap())
                .unwrap();
        assert_eq!(body["max_completion_tokens"], 77);
        assert!(body.get("max_tokens").is_none());
        assert!(body.get("stop").is_none());
    }

    #[test]
    fn the_endpoint_tolerates_a_trailing_slash() {
        assert_eq!(endpoint("http://h/v1/"), "http://h/v1/chat/completions");
        assert_eq!(endpoint("http://h/v1"), "http://h/v1/chat/completions");
    }

    #[test]
    fn the_request_puts_the_system_prompt_first_and_asks_for_usage() {
        let request = ChatRequest {
            system: vec!["be brief".into()],
            messages: vec![ChatMessage::user("hi"), ChatMessage::assistant("hello")],
            stop: vec!["Observation:".into()],
            max_output_tokens: None,
        };
        assert_eq!(
            body_json(&config(), &request),
            json!({
                "model": "gpt-test",
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "hello"},
                ],
                "stream": true,
                "stream_options": {"include_usage": true},
                "max_tokens": 8192,
                "stop": ["Observation:"],
            })
        );
    }

    #[test]
    fn a_plain_request_leaves_out_stream_options_empty_stop_and_empty_system() {
        let mut config = config();
        config.stream = false;
        let request = ChatRequest {
            messages: vec![ChatMessage::user("hi")],
            ..ChatRequest::default()
        };
        assert_eq!(
            body_json(&config, &request),
            json!({
                "model": "gpt-test",
                "messages": [{"role": "user", "content": "hi"}],
                "stream": false,
                "max_tokens": 8192,
            })
        );
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
            piece.tool_calls,
            vec![
                NativeToolCall::new("call_1", "Read", "{\"a\":1"),
                NativeToolCall::new("wright_call_1", "Glob", "{\"p\":\"*\"}"),
            ]
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
