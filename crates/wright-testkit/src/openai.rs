//! Renders scripted responses in the OpenAI Chat Completions wire format.

use serde_json::{Map, Value, json};

use crate::script::{ScriptedResponse, ScriptedUsage};
use crate::wire::{EventKind, RequestInfo, SseEvent, error_type};

/// The `id` of every completion.
const COMPLETION_ID: &str = "chatcmpl-testkit";

/// `{"error":{"message":M,"type":T,"code":null}}`.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    json!({
        "error": {
            "message": message,
            "type": error_type(status),
            "code": null,
        }
    })
}

/// A `chat.completion` object.
pub(crate) fn message_body(response: &ScriptedResponse, request: &RequestInfo) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    // Like OpenAI: a reply that is only tool calls has `"content": null`.
    let content = if !response.has_text_block() {
        Value::Null
    } else {
        json!(response.text)
    };
    message.insert("content".into(), content);
    if !response.tool_calls.is_empty() {
        let calls: Vec<Value> = response
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": { "name": call.name, "arguments": call.arguments },
                })
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(reasoning) = &response.reasoning {
        message.insert("reasoning_content".into(), json!(reasoning));
    }
    let mut body = json!({
        "id": COMPLETION_ID,
        "object": "chat.completion",
        "created": 0,
        "model": request.model,
        "choices": [{
            "index": 0,
            "message": message,
            "finish_reason": response.finish_reason,
        }],
    });
    if let (Some(usage), Some(object)) = (response.usage, body.as_object_mut()) {
        object.insert("usage".into(), usage_json(usage));
    }
    body
}

/// The chunk stream: a keep-alive comment, a role chunk, reasoning and text deltas, the
/// finish chunk, the usage chunk (only when asked for with `stream_options.include_usage`)
/// and `[DONE]`.
pub(crate) fn stream_events(response: &ScriptedResponse, request: &RequestInfo) -> Vec<SseEvent> {
    let chunk = |delta: Value, finish_reason: Value| {
        json!({
            "id": COMPLETION_ID,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": request.model,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish_reason }],
        })
    };

    let mut events = vec![
        SseEvent::raw(EventKind::Frame, ": keep-alive\n\n"),
        SseEvent::data(
            EventKind::Frame,
            &chunk(json!({ "role": "assistant" }), Value::Null),
        ),
    ];
    for piece in response.reasoning_pieces() {
        events.push(SseEvent::data(
            EventKind::ContentDelta,
            &chunk(json!({ "reasoning_content": piece }), Value::Null),
        ));
    }
    for piece in response.text_pieces() {
        events.push(SseEvent::data(
            EventKind::ContentDelta,
            &chunk(json!({ "content": piece }), Value::Null),
        ));
    }
    // Like OpenAI: the first fragment of a call names its id, type and function with empty
    // arguments; the arguments follow in fragments that carry only the index.
    for (index, call) in response.tool_calls.iter().enumerate() {
        let start = json!({ "tool_calls": [{
            "index": index,
            "id": call.id,
            "type": "function",
            "function": { "name": call.name, "arguments": "" },
        }]});
        events.push(SseEvent::data(
            EventKind::ContentDelta,
            &chunk(start, Value::Null),
        ));
        for piece in response.argument_pieces(call) {
            let fragment = json!({ "tool_calls": [{
                "index": index,
                "function": { "arguments": piece },
            }]});
            events.push(SseEvent::data(
                EventKind::ContentDelta,
                &chunk(fragment, Value::Null),
            ));
        }
    }
    events.push(SseEvent::data(
        EventKind::Final,
        &chunk(json!({}), json!(response.finish_reason)),
    ));
    if let (Some(usage), true) = (response.usage, request.include_usage) {
        let usage_chunk = json!({
            "id": COMPLETION_ID,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": request.model,
            "choices": [],
            "usage": usage_json(usage),
        });
        events.push(SseEvent::data(EventKind::Final, &usage_chunk));
    }
    events.push(SseEvent::raw(EventKind::Final, "data: [DONE]\n\n"));
    events
}

/// The `usage` object; `prompt_tokens_details` only when cached tokens are scripted.
fn usage_json(usage: ScriptedUsage) -> Value {
    let mut object = Map::new();
    object.insert("prompt_tokens".into(), json!(usage.prompt_tokens));
    object.insert("completion_tokens".into(), json!(usage.completion_tokens));
    object.insert(
        "total_tokens".into(),
        json!(usage.prompt_tokens.saturating_add(usage.completion_tokens)),
    );
    if let Some(cached) = usage.cached_tokens {
        object.insert(
            "prompt_tokens_details".into(),
            json!({ "cached_tokens": cached }),
        );
    }
    Value::Object(object)
}
