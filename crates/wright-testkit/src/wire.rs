//! What the provider formats share: which format a request speaks, what it asked for,
//! and the SSE events a streamed response is made of.

use serde_json::Value;

use crate::script::ScriptedResponse;
use crate::{anthropic, openai, responses};

/// Model name echoed back when the request does not name one.
const FALLBACK_MODEL: &str = "wright-testkit";

/// The provider wire format a request path selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// OpenAI Chat Completions (`.../chat/completions`).
    OpenAi,
    /// Anthropic Messages (`.../v1/messages`).
    Anthropic,
    /// OpenAI Responses (`.../responses`), what Codex CLI speaks.
    Responses,
}

impl Wire {
    /// The format served at `path` (query string ignored), or `None` for an unknown route.
    pub(crate) fn for_path(path: &str) -> Option<Wire> {
        let path = path.split('?').next().unwrap_or(path);
        if path.ends_with("/chat/completions") {
            Some(Wire::OpenAi)
        } else if path.ends_with("/v1/messages") {
            Some(Wire::Anthropic)
        } else if path.ends_with("/responses") {
            Some(Wire::Responses)
        } else {
            None
        }
    }

    /// The provider-shaped error body for `status` carrying `message`.
    pub(crate) fn error_body(self, status: u16, message: &str) -> Value {
        match self {
            Wire::OpenAi => openai::error_body(status, message),
            Wire::Anthropic => anthropic::error_body(status, message),
            Wire::Responses => responses::error_body(status, message),
        }
    }

    /// The whole (non-streaming) response body.
    pub(crate) fn message_body(self, response: &ScriptedResponse, request: &RequestInfo) -> Value {
        match self {
            Wire::OpenAi => openai::message_body(response, request),
            Wire::Anthropic => anthropic::message_body(response, request),
            Wire::Responses => responses::message_body(response, request),
        }
    }

    /// The events of a streamed response, in order.
    pub(crate) fn stream_events(
        self,
        response: &ScriptedResponse,
        request: &RequestInfo,
    ) -> Vec<SseEvent> {
        match self {
            Wire::OpenAi => openai::stream_events(response, request),
            Wire::Anthropic => anthropic::stream_events(response, request),
            Wire::Responses => responses::stream_events(response, request),
        }
    }
}

/// The parts of a request body that shape the response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RequestInfo {
    /// `model`, echoed back in the response.
    pub(crate) model: String,
    /// `"stream": true`.
    pub(crate) stream: bool,
    /// OpenAI `stream_options.include_usage == true`.
    pub(crate) include_usage: bool,
}

impl RequestInfo {
    /// Reads what matters from a request body; a body that is not JSON counts as
    /// a non-streaming request for an unnamed model.
    pub(crate) fn from_body(body: &str) -> RequestInfo {
        let json: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        RequestInfo {
            model: json
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or(FALLBACK_MODEL)
                .to_string(),
            stream: json.get("stream").and_then(Value::as_bool) == Some(true),
            include_usage: json
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                == Some(true),
        }
    }
}

/// Where an event sits in a stream; decides where a cut or stall stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// Structure before or between the content (role chunk, `message_start`, block starts ...).
    Frame,
    /// A reasoning or text delta: what `cut_after_chunks` / `stall_after_chunks` count.
    ContentDelta,
    /// The end of the message (finish reason, usage, `[DONE]`, `message_stop`).
    Final,
}

/// One server-sent event, already serialized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The exact bytes of the event, including its blank-line terminator.
    pub(crate) text: String,
    /// Its role in the stream.
    pub(crate) kind: EventKind,
}

impl SseEvent {
    /// `data: {json}` with no event name.
    pub(crate) fn data(kind: EventKind, data: &Value) -> SseEvent {
        SseEvent {
            text: format!("data: {data}\n\n"),
            kind,
        }
    }

    /// `event: NAME` followed by `data: {json}`.
    pub(crate) fn named(kind: EventKind, name: &str, data: &Value) -> SseEvent {
        SseEvent {
            text: format!("event: {name}\ndata: {data}\n\n"),
            kind,
        }
    }

    /// Literal text (a comment or `data: [DONE]`).
    pub(crate) fn raw(kind: EventKind, text: &str) -> SseEvent {
        SseEvent {
            text: text.to_string(),
            kind,
        }
    }
}

/// The error `type` both providers use for `status`.
pub(crate) fn error_type(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        500..=599 => "api_error",
        _ => "invalid_request_error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn paths_route_by_suffix() {
        assert_eq!(Wire::for_path("/v1/chat/completions"), Some(Wire::OpenAi));
        assert_eq!(Wire::for_path("/chat/completions"), Some(Wire::OpenAi));
        assert_eq!(
            Wire::for_path("/v1/messages?beta=true"),
            Some(Wire::Anthropic)
        );
        assert_eq!(Wire::for_path("/v1/responses"), Some(Wire::Responses));
        assert_eq!(Wire::for_path("/v1/models"), None);
    }

    #[test]
    fn request_info_reads_stream_and_include_usage() {
        let info = RequestInfo::from_body(
            r#"{"model":"m","stream":true,"stream_options":{"include_usage":true}}"#,
        );
        assert_eq!(
            info,
            RequestInfo {
                model: "m".to_string(),
                stream: true,
                include_usage: true,
            }
        );
    }

    #[test]
    fn a_body_that_is_not_json_is_a_plain_request() {
        assert_eq!(
            RequestInfo::from_body("not json"),
            RequestInfo {
                model: FALLBACK_MODEL.to_string(),
                stream: false,
                include_usage: false,
            }
        );
    }
}
