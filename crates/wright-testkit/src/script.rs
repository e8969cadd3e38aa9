//! The script a [`TestServer`](crate::TestServer) replays: one scripted response per request.

use serde::{Deserialize, Serialize};

/// Default number of characters per streamed delta.
pub(crate) const DEFAULT_CHUNK_SIZE: usize = 16;

/// Default finish reason: the model stopped on its own.
pub(crate) const DEFAULT_FINISH_REASON: &str = "stop";

/// Finish reason of a reply that makes tool calls (Anthropic: `tool_use`).
pub(crate) const TOOL_CALLS_FINISH_REASON: &str = "tool_calls";

/// The whole script: responses handed out one per request, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Script {
    /// The responses, consumed front to back by successive provider requests.
    pub responses: Vec<ScriptedResponse>,
    /// Requests whose body contains a route's text get that route's response instead, every
    /// time, without consuming `responses` (e.g. summary calls, whose number a long scripted
    /// session cannot know in advance).
    pub routes: Vec<Route>,
    /// JSON documents served at fixed paths, to any method and every time, without consuming
    /// `responses` (e.g. llama.cpp's `/props`, vLLM's `/v1/models`, Ollama's `/api/show`).
    pub documents: Vec<Document>,
}

/// A JSON document the server answers with at one path.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Document {
    /// The request path it is served at, e.g. `/props` (a query string is ignored).
    pub path: String,
    /// The response body, sent with status 200 as `application/json`.
    pub body: String,
}

/// A standing answer for requests that contain some text.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Route {
    /// Text the request body must contain (as sent, JSON-escaped).
    pub body_contains: String,
    /// The response given to every such request.
    pub response: ScriptedResponse,
}

impl Script {
    /// A script that hands out `responses` in order.
    pub fn new(responses: Vec<ScriptedResponse>) -> Script {
        Script {
            responses,
            routes: Vec::new(),
            documents: Vec::new(),
        }
    }

    /// Serves `body` (JSON) at `path`, to every request for it.
    pub fn with_document(mut self, path: impl Into<String>, body: impl Into<String>) -> Script {
        self.documents.push(Document {
            path: path.into(),
            body: body.into(),
        });
        self
    }

    /// Adds a standing answer for requests whose body contains `body_contains`.
    pub fn with_route(
        mut self,
        body_contains: impl Into<String>,
        response: ScriptedResponse,
    ) -> Script {
        self.routes.push(Route {
            body_contains: body_contains.into(),
            response,
        });
        self
    }
}

impl From<Vec<ScriptedResponse>> for Script {
    fn from(responses: Vec<ScriptedResponse>) -> Script {
        Script::new(responses)
    }
}

/// One response of the script, rendered in whichever wire format the request asked for.
///
/// Every field has a default, so a script file only names what it needs:
/// `{"text": "Thought: done\nAction: Finish[ok]"}` is a complete response.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct ScriptedResponse {
    /// HTTP status; anything but 200 sends a provider-shaped error body. Default 200.
    pub status: u16,
    /// Extra response headers, e.g. `("Retry-After", "1")`.
    pub headers: Vec<(String, String)>,
    /// For status != 200: the message put in the provider-shaped error body.
    pub error_message: Option<String>,
    /// For status != 200: send this raw body instead (overrides `error_message`).
    pub body: Option<String>,
    /// The assistant's reply text.
    pub text: String,
    /// OpenAI: `reasoning_content` deltas; Anthropic: a thinking block before the text;
    /// Responses: a `reasoning` item (as a summary) before the message.
    pub reasoning: Option<String>,
    /// Native tool calls after the text: OpenAI `tool_calls` (streamed as index-keyed
    /// fragments), Anthropic `tool_use` blocks (streamed as `input_json_delta`s), Responses
    /// `function_call` items (streamed as `function_call_arguments` deltas). Arguments
    /// are split like text, by `chunk_size`, and sent exactly as scripted, malformed or not.
    pub tool_calls: Vec<ScriptedToolCall>,
    /// Text (and reasoning) is split into deltas of this many chars; 0 = one delta. Default 16.
    pub chunk_size: usize,
    /// Token usage; `None` means the response carries no usage.
    pub usage: Option<ScriptedUsage>,
    /// Report usage in proportion to the request instead (about 4 bytes a token, like real
    /// tokenizers on English and code): `prompt_tokens` from the request body, and
    /// `completion_tokens` from `text` and the tool calls. Overrides `usage`.
    pub usage_from_request: bool,
    /// Default `"stop"`; `"length"` means cut by the token limit.
    ///
    /// Anthropic maps `stop` to `end_turn` and `length` to `max_tokens`; anything else is
    /// passed through as is (e.g. `stop_sequence`). Responses ends a `length` reply as
    /// `incomplete` (`response.incomplete`), any other as `completed`.
    pub finish_reason: String,
    /// Wait this long before sending the response head.
    pub delay_ms: u64,
    /// Wait this long between SSE events.
    pub chunk_delay_ms: u64,
    /// Send this many content-delta events, then drop the connection without the final events.
    pub cut_after_chunks: Option<usize>,
    /// Send this many content-delta events, then send nothing more but keep the connection
    /// open until the client goes away (or 300 s pass).
    pub stall_after_chunks: Option<usize>,
    /// Send the response head (status 200, `text/event-stream`), then drop the connection
    /// before any event, as llama.cpp does with a request it cannot fit.
    pub cut_before_events: bool,
    /// Send exactly these bytes as the event-stream body (status 200, `text/event-stream`).
    /// Takes precedence over every other field except `delay_ms` and `headers`.
    pub raw_sse: Option<String>,
    /// After `raw_sse` (or right after the head, without it), send these bytes again and
    /// again, `chunk_delay_ms` apart, until the client goes away (or 300 s pass): a server
    /// that never ends its reply, sends only keep-alives, or floods text.
    pub repeat_sse: Option<String>,
}

impl Default for ScriptedResponse {
    fn default() -> ScriptedResponse {
        ScriptedResponse {
            status: 200,
            headers: Vec::new(),
            error_message: None,
            body: None,
            text: String::new(),
            reasoning: None,
            tool_calls: Vec::new(),
            chunk_size: DEFAULT_CHUNK_SIZE,
            usage: None,
            usage_from_request: false,
            finish_reason: DEFAULT_FINISH_REASON.to_string(),
            delay_ms: 0,
            chunk_delay_ms: 0,
            cut_after_chunks: None,
            stall_after_chunks: None,
            cut_before_events: false,
            raw_sse: None,
            repeat_sse: None,
        }
    }
}

impl ScriptedResponse {
    /// A successful reply with this text.
    pub fn text(text: impl Into<String>) -> ScriptedResponse {
        ScriptedResponse {
            text: text.into(),
            ..ScriptedResponse::default()
        }
    }

    /// A successful reply that makes these native tool calls and no text, ending with the
    /// finish reason `tool_calls` (Anthropic `tool_use`).
    pub fn tool_calls(tool_calls: Vec<ScriptedToolCall>) -> ScriptedResponse {
        ScriptedResponse {
            tool_calls,
            finish_reason: TOOL_CALLS_FINISH_REASON.to_string(),
            ..ScriptedResponse::default()
        }
    }

    /// An error response with this status and message (in the provider's error shape).
    pub fn status(status: u16, message: impl Into<String>) -> ScriptedResponse {
        ScriptedResponse {
            status,
            error_message: Some(message.into()),
            ..ScriptedResponse::default()
        }
    }

    /// A 200 event stream whose body is exactly `sse`.
    pub fn raw_sse(sse: impl Into<String>) -> ScriptedResponse {
        ScriptedResponse {
            raw_sse: Some(sse.into()),
            ..ScriptedResponse::default()
        }
    }

    /// A 200 event stream that sends `sse` again and again until the client goes away.
    pub fn endless_sse(sse: impl Into<String>) -> ScriptedResponse {
        ScriptedResponse {
            repeat_sse: Some(sse.into()),
            ..ScriptedResponse::default()
        }
    }

    /// Sets the bytes sent again and again after `raw_sse` (see [`Self::endless_sse`]).
    pub fn then_forever(mut self, sse: impl Into<String>) -> ScriptedResponse {
        self.repeat_sse = Some(sse.into());
        self
    }

    /// Sets the reasoning (thinking) text sent before the reply.
    pub fn with_reasoning(mut self, reasoning: impl Into<String>) -> ScriptedResponse {
        self.reasoning = Some(reasoning.into());
        self
    }

    /// Sets prompt and completion token counts.
    pub fn with_usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> ScriptedResponse {
        let usage = self.usage.get_or_insert_with(ScriptedUsage::default);
        usage.prompt_tokens = prompt_tokens;
        usage.completion_tokens = completion_tokens;
        self
    }

    /// Sets the prompt tokens read from the provider's cache (implies usage is reported).
    pub fn with_cached_tokens(mut self, cached_tokens: u64) -> ScriptedResponse {
        self.usage
            .get_or_insert_with(ScriptedUsage::default)
            .cached_tokens = Some(cached_tokens);
        self
    }

    /// Sets the prompt tokens written to the provider's cache (Anthropic only).
    pub fn with_cache_creation_tokens(mut self, tokens: u64) -> ScriptedResponse {
        self.usage
            .get_or_insert_with(ScriptedUsage::default)
            .cache_creation_tokens = Some(tokens);
        self
    }

    /// Sets how many chars go into each delta (0 = the whole text in one delta).
    pub fn with_chunk_size(mut self, chunk_size: usize) -> ScriptedResponse {
        self.chunk_size = chunk_size;
        self
    }

    /// Sets the finish reason (`"stop"`, `"length"`, ...).
    pub fn with_finish_reason(mut self, finish_reason: impl Into<String>) -> ScriptedResponse {
        self.finish_reason = finish_reason.into();
        self
    }

    /// Adds an extra response header.
    pub fn with_header(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> ScriptedResponse {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends this raw body instead of the provider-shaped error body (for status != 200).
    pub fn with_body(mut self, body: impl Into<String>) -> ScriptedResponse {
        self.body = Some(body.into());
        self
    }

    /// Waits this long before sending the response head.
    pub fn with_delay_ms(mut self, delay_ms: u64) -> ScriptedResponse {
        self.delay_ms = delay_ms;
        self
    }

    /// Waits this long between SSE events.
    pub fn with_chunk_delay_ms(mut self, chunk_delay_ms: u64) -> ScriptedResponse {
        self.chunk_delay_ms = chunk_delay_ms;
        self
    }

    /// Sends `chunks` content deltas, then drops the connection mid-body.
    pub fn cut_after(mut self, chunks: usize) -> ScriptedResponse {
        self.cut_after_chunks = Some(chunks);
        self
    }

    /// Sends the response head, then drops the connection before any event.
    pub fn cut_before_events() -> ScriptedResponse {
        ScriptedResponse {
            cut_before_events: true,
            ..ScriptedResponse::default()
        }
    }

    /// Sends `chunks` content deltas, then goes silent while keeping the connection open.
    pub fn stall_after(mut self, chunks: usize) -> ScriptedResponse {
        self.stall_after_chunks = Some(chunks);
        self
    }

    /// The reasoning split into deltas (empty when there is no reasoning).
    pub(crate) fn reasoning_pieces(&self) -> Vec<&str> {
        self.reasoning
            .as_deref()
            .map(|reasoning| split_into_chunks(reasoning, self.chunk_size))
            .unwrap_or_default()
    }

    /// The reply text split into deltas.
    pub(crate) fn text_pieces(&self) -> Vec<&str> {
        split_into_chunks(&self.text, self.chunk_size)
    }

    /// Whether the reply carries a text block (Anthropic) or message item (Responses): always,
    /// unless it is only tool calls, as the providers send those.
    pub(crate) fn has_text_block(&self) -> bool {
        !self.text.is_empty() || self.tool_calls.is_empty()
    }

    /// The bytes the reply is made of: its text and its tool calls' names and arguments.
    pub(crate) fn reply_len(&self) -> usize {
        self.tool_calls
            .iter()
            .map(|call| call.name.len() + call.arguments.len())
            .sum::<usize>()
            + self.text.len()
    }

    /// A tool call's arguments split into deltas.
    pub(crate) fn argument_pieces<'a>(&self, call: &'a ScriptedToolCall) -> Vec<&'a str> {
        split_into_chunks(&call.arguments, self.chunk_size)
    }
}

/// A native tool call in a scripted reply.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct ScriptedToolCall {
    /// The call's id (`call_...` or `toolu_...`, whatever the test likes).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments text, sent as is: it need not be valid JSON.
    pub arguments: String,
    /// A call of a Responses custom (freeform) tool: a `custom_tool_call` item whose `input`
    /// is `arguments`, streamed as `custom_tool_call_input` deltas (Codex's `exec`, which
    /// takes JavaScript). The other wires have no such calls and send it as a function call.
    pub custom: bool,
}

impl ScriptedToolCall {
    /// A call of `name` with `arguments` (JSON text, or deliberately not), known as `id`.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> ScriptedToolCall {
        ScriptedToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            custom: false,
        }
    }

    /// A call of the custom (freeform) tool `name` with the text `input`, known as `id`.
    pub fn custom(
        id: impl Into<String>,
        name: impl Into<String>,
        input: impl Into<String>,
    ) -> ScriptedToolCall {
        ScriptedToolCall {
            custom: true,
            ..ScriptedToolCall::new(id, name, input)
        }
    }
}

/// Token usage reported with a scripted response.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct ScriptedUsage {
    /// Input tokens (Anthropic and Responses `input_tokens`).
    pub prompt_tokens: u64,
    /// Output tokens (Anthropic and Responses `output_tokens`).
    pub completion_tokens: u64,
    /// Prompt tokens read from cache (OpenAI `prompt_tokens_details.cached_tokens`, Responses
    /// `input_tokens_details.cached_tokens`,
    /// Anthropic `cache_read_input_tokens`).
    pub cached_tokens: Option<u64>,
    /// Prompt tokens written to cache (Anthropic `cache_creation_input_tokens`; OpenAI has none).
    pub cache_creation_tokens: Option<u64>,
}

/// Splits `text` into pieces of `chunk_size` chars, never inside a char.
///
/// `chunk_size == 0` gives the whole text as one piece; an empty text gives no pieces.
pub(crate) fn split_into_chunks(text: &str, chunk_size: usize) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    if chunk_size == 0 {
        return vec![text];
    }
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut chars_in_piece = 0;
    for (offset, _) in text.char_indices() {
        if chars_in_piece == chunk_size {
            pieces.push(&text[start..offset]);
            start = offset;
            chars_in_piece = 0;
        }
        chars_in_piece += 1;
    }
    pieces.push(&text[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn chunks_hold_chunk_size_chars_and_the_last_holds_the_rest() {
        assert_eq!(split_into_chunks("abcdefg", 3), vec!["abc", "def", "g"]);
    }

    #[test]
    fn chunks_never_split_a_multibyte_char() {
        assert_eq!(split_into_chunks("héé✓日本", 2), vec!["hé", "é✓", "日本"]);
    }

    #[test]
    fn chunk_size_zero_sends_the_whole_text_at_once() {
        assert_eq!(split_into_chunks("hello world", 0), vec!["hello world"]);
    }

    #[test]
    fn empty_text_has_no_chunks() {
        assert_eq!(split_into_chunks("", 4), Vec::<&str>::new());
    }

    #[test]
    fn script_file_fields_default_when_omitted() {
        let script: Script =
            serde_json::from_str(r#"{"responses":[{"text":"hi"},{"status":429}]}"#).unwrap();
        assert_eq!(
            script,
            Script::new(vec![
                ScriptedResponse::text("hi"),
                ScriptedResponse {
                    status: 429,
                    ..ScriptedResponse::default()
                },
            ])
        );
    }

    #[test]
    fn a_tool_call_reply_ends_for_tool_calls_and_reads_from_a_script_file() {
        let script: Script = serde_json::from_str(
            r#"{"responses":[{"tool_calls":[{"id":"c1","name":"Read","arguments":"{}"}],"finish_reason":"tool_calls"}]}"#,
        )
        .unwrap();
        assert_eq!(
            script,
            Script::new(vec![ScriptedResponse::tool_calls(vec![
                ScriptedToolCall::new("c1", "Read", "{}")
            ])])
        );
    }

    #[test]
    fn a_custom_tool_call_reads_from_a_script_file() {
        let call: ScriptedToolCall = serde_json::from_str(
            r#"{"id":"c1","name":"exec","arguments":"text(1)","custom":true}"#,
        )
        .unwrap();
        assert_eq!(call, ScriptedToolCall::custom("c1", "exec", "text(1)"));
    }

    #[test]
    fn builders_set_usage_and_cache_fields() {
        let response = ScriptedResponse::text("x")
            .with_usage(10, 5)
            .with_cached_tokens(3);
        assert_eq!(
            response.usage,
            Some(ScriptedUsage {
                prompt_tokens: 10,
                completion_tokens: 5,
                cached_tokens: Some(3),
                cache_creation_tokens: None,
            })
        );
    }
}
