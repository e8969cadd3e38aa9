//! Renders scripted responses in the Anthropic Messages wire format.

use serde_json::{Map, Value, json};

use crate::script::ScriptedResponse;
use crate::wire::{EventKind, RequestInfo, SseEvent, error_type};

/// The `id` of every message.
const MESSAGE_ID: &str = "msg_testkit";

/// The signature attached to every thinking block.
const THINKING_SIGNATURE: &str = "testkit-signature";

/// `{"type":"error","error":{"type":T,"message":M}}`.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    json!({
        "type": "error",
        "error": {
            "type": error_type(status),
            "message": message,
        }
    })
}

/// Anthropic's name for a scripted finish reason.
pub(crate) fn stop_reason(finish_reason: &str) -> &str {
    match finish_reason {
        "stop" => "end_turn",
        "length" => "max_tokens",
        "tool_calls" => "tool_use",
        other => other,
    }
}

/// A whole `message` object.
pub(crate) fn message_body(response: &ScriptedResponse, request: &RequestInfo) -> Value {
    let mut content = Vec::new();
    if let Some(reasoning) = &response.reasoning {
        content.push(json!({
            "type": "thinking",
            "thinking": reasoning,
            "signature": THINKING_SIGNATURE,
        }));
    }
    if response.has_text_block() {
        content.push(json!({ "type": "text", "text": response.text }));
    }
    for call in &response.tool_calls {
        content.push(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": tool_input(&call.arguments),
        }));
    }
    let output_tokens = response.usage.map_or(0, |usage| usage.completion_tokens);
    json!({
        "id": MESSAGE_ID,
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": stop_reason(&response.finish_reason),
        "stop_sequence": null,
        "usage": usage_json(response, output_tokens),
    })
}

/// The event stream: `message_start`, `ping`, an optional thinking block, the text block,
/// `message_delta` and `message_stop`.
pub(crate) fn stream_events(response: &ScriptedResponse, request: &RequestInfo) -> Vec<SseEvent> {
    // Like the real API, message_start reports a placeholder output count of 1.
    let message_start = json!({
        "type": "message_start",
        "message": {
            "id": MESSAGE_ID,
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": request.model,
            "stop_reason": null,
            "stop_sequence": null,
            "usage": usage_json(response, 1),
        }
    });
    let mut events = vec![
        SseEvent::named(EventKind::Frame, "message_start", &message_start),
        SseEvent::named(EventKind::Frame, "ping", &json!({ "type": "ping" })),
    ];

    let mut index = 0;
    if response.reasoning.is_some() {
        events.push(block_start(
            index,
            json!({ "type": "thinking", "thinking": "" }),
        ));
        for piece in response.reasoning_pieces() {
            events.push(block_delta(
                EventKind::ContentDelta,
                index,
                json!({ "type": "thinking_delta", "thinking": piece }),
            ));
        }
        events.push(block_delta(
            EventKind::Frame,
            index,
            json!({ "type": "signature_delta", "signature": THINKING_SIGNATURE }),
        ));
        events.push(block_stop(index));
        index += 1;
    }
    if response.has_text_block() {
        events.push(block_start(index, json!({ "type": "text", "text": "" })));
        for piece in response.text_pieces() {
            events.push(block_delta(
                EventKind::ContentDelta,
                index,
                json!({ "type": "text_delta", "text": piece }),
            ));
        }
        events.push(block_stop(index));
        index += 1;
    }
    // Like Anthropic: a tool_use block starts with an empty input, which then streams as
    // partial JSON.
    for call in &response.tool_calls {
        events.push(block_start(
            index,
            json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": {} }),
        ));
        for piece in response.argument_pieces(call) {
            events.push(block_delta(
                EventKind::ContentDelta,
                index,
                json!({ "type": "input_json_delta", "partial_json": piece }),
            ));
        }
        events.push(block_stop(index));
        index += 1;
    }

    let output_tokens = response.usage.map_or(0, |usage| usage.completion_tokens);
    let message_delta = json!({
        "type": "message_delta",
        "delta": {
            "stop_reason": stop_reason(&response.finish_reason),
            "stop_sequence": null,
        },
        "usage": { "output_tokens": output_tokens },
    });
    events.push(SseEvent::named(
        EventKind::Final,
        "message_delta",
        &message_delta,
    ));
    events.push(SseEvent::named(
        EventKind::Final,
        "message_stop",
        &json!({ "type": "message_stop" }),
    ));
    events
}

/// A `tool_use` block's `input` in a whole message: the arguments' object, or `{}` when they
/// are not one (a whole message cannot carry malformed input; a stream can).
fn tool_input(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => object,
        _ => Value::Object(Map::new()),
    }
}

fn block_start(index: usize, content_block: Value) -> SseEvent {
    SseEvent::named(
        EventKind::Frame,
        "content_block_start",
        &json!({ "type": "content_block_start", "index": index, "content_block": content_block }),
    )
}

fn block_delta(kind: EventKind, index: usize, delta: Value) -> SseEvent {
    SseEvent::named(
        kind,
        "content_block_delta",
        &json!({ "type": "content_block_delta", "index": index, "delta": delta }),
    )
}

fn block_stop(index: usize) -> SseEvent {
    SseEvent::named(
        EventKind::Frame,
        "content_block_stop",
        &json!({ "type": "content_block_stop", "index": index }),
    )
}

/// The `usage` object with `output_tokens`; the cache fields only when scripted.
/// Anthropic always reports usage, so an unscripted usage is sent as zeros.
fn usage_json(response: &ScriptedResponse, output_tokens: u64) -> Value {
    let usage = response.usage.unwrap_or_default();
    let mut object = Map::new();
    object.insert("input_tokens".into(), json!(usage.prompt_tokens));
    object.insert("output_tokens".into(), json!(output_tokens));
    if let Some(read) = usage.cached_tokens {
        object.insert("cache_read_input_tokens".into(), json!(read));
    }
    if let Some(created) = usage.cache_creation_tokens {
        object.insert("cache_creation_input_tokens".into(), json!(created));
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reasons_map_to_anthropic_stop_reasons() {
        assert_eq!(stop_reason("stop"), "end_turn");
        assert_eq!(stop_reason("length"), "max_tokens");
        assert_eq!(stop_reason("stop_sequence"), "stop_sequence");
    }
}
