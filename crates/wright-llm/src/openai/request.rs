//! The OpenAI Chat Completions request: the body wright sends (system prompt first, native
//! tools as `function` tools, tool calls and `tool` messages in the conversation), spelt in
//! the [`Dialect`] the server takes.

use serde::Serialize;
use serde_json::Value;
use wright_protocol::{NativeToolCall, ToolDefinition};

use crate::tool_calls::arguments_object;
use crate::{ChatMessage, ChatRequest, ChatRole, LlmConfig};

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
    /// The arguments text as the model sent it when it is a JSON object, else `{}`: servers
    /// that parse it (chat templates do) would refuse the whole request. History keeps what
    /// was sent, and the result answering the call says what was wrong with it.
    arguments: &'a str,
}

impl<'a> WireToolCallOut<'a> {
    fn of(call: &'a NativeToolCall) -> Self {
        WireToolCallOut {
            id: &call.id,
            kind: "function",
            function: WireFunctionOut {
                name: &call.name,
                arguments: object_or_empty(&call.arguments),
            },
        }
    }
}

/// `arguments` when it holds a JSON object, else `{}`.
fn object_or_empty(arguments: &str) -> &str {
    arguments_object(arguments).map_or("{}", |_| arguments)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProviderKind;
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
}
