//! The Anthropic Messages wire format, streamed and not.

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_testkit::{Script, ScriptedResponse, ScriptedToolCall, TestServer};

use crate::common;

const PATH: &str = "/v1/messages";

#[tokio::test]
async fn stream_sends_the_message_event_sequence() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Hi there")
            .with_reasoning("hmm")
            .with_chunk_size(4)
            .with_usage(12, 3)
            .with_cached_tokens(8)
            .with_cache_creation_tokens(2)
            .with_finish_reason("length"),
    ]))
    .unwrap();

    let response = common::post(
        server.addr(),
        PATH,
        r#"{"model":"claude-test","stream":true}"#,
    )
    .await;

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert!(response.terminated);
    assert_eq!(response.chunks.len(), response.sse_events().len());
    assert_eq!(
        response.sse_event_names(),
        vec![
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    assert_eq!(
        response.sse_data(),
        vec![
            json!({"type": "message_start", "message": {
                "id": "msg_testkit", "type": "message", "role": "assistant", "content": [],
                "model": "claude-test", "stop_reason": null, "stop_sequence": null,
                "usage": {
                    "input_tokens": 12, "output_tokens": 1,
                    "cache_read_input_tokens": 8, "cache_creation_input_tokens": 2,
                },
            }}),
            json!({"type": "ping"}),
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "signature_delta", "signature": "testkit-signature"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1,
                   "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1,
                   "delta": {"type": "text_delta", "text": "Hi t"}}),
            json!({"type": "content_block_delta", "index": 1,
                   "delta": {"type": "text_delta", "text": "here"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta",
                   "delta": {"stop_reason": "max_tokens", "stop_sequence": null},
                   "usage": {"output_tokens": 3}}),
            json!({"type": "message_stop"}),
        ]
    );
}

#[tokio::test]
async fn stream_without_scripted_usage_reports_zero_input_tokens() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("x")])).unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"c","stream":true}"#).await;

    let data = response.sse_data();
    assert_eq!(
        data[0]["message"]["usage"],
        json!({"input_tokens": 0, "output_tokens": 1})
    );
    assert_eq!(
        response.sse_event_names(),
        vec![
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
}

#[tokio::test]
async fn non_streaming_request_gets_a_whole_message() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Hello")
            .with_reasoning("hmm")
            .with_usage(7, 2)
            .with_cached_tokens(5)
            .with_finish_reason("stop_sequence"),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"claude-test"}"#).await;

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(
        response.json(),
        json!({
            "id": "msg_testkit",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "testkit-signature"},
                {"type": "text", "text": "Hello"},
            ],
            "stop_reason": "stop_sequence",
            "stop_sequence": null,
            "usage": {"input_tokens": 7, "output_tokens": 2, "cache_read_input_tokens": 5},
        })
    );
}

#[tokio::test]
async fn error_status_has_anthropic_error_shape() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(529, "Overloaded").with_header("Retry-After", "2"),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"c","stream":true}"#).await;

    assert_eq!(response.status, 529);
    assert_eq!(response.header("retry-after"), Some("2"));
    assert_eq!(
        response.json(),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
}

fn text_and_a_tool_call() -> ScriptedResponse {
    ScriptedResponse {
        text: "Look".into(),
        ..ScriptedResponse::tool_calls(vec![ScriptedToolCall::new("toolu_a", "Read", r#"{"p":1}"#)])
    }
    .with_chunk_size(4)
}

#[tokio::test]
async fn stream_sends_tool_use_blocks_with_input_json_deltas() {
    let server = TestServer::start(Script::new(vec![text_and_a_tool_call()])).unwrap();

    let response = common::post(
        server.addr(),
        PATH,
        r#"{"model":"claude-test","stream":true}"#,
    )
    .await;

    let data = response.sse_data();
    let blocks: Vec<_> = data
        .iter()
        .filter(|event| {
            event["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("content_block"))
        })
        .cloned()
        .collect();
    assert_eq!(
        blocks,
        vec![
            json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "Look"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1,
                "content_block": {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": "{\"p\""}}),
            json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": ":1}"}}),
            json!({"type": "content_block_stop", "index": 1}),
        ]
    );
    let message_delta = data.iter().find(|event| event["type"] == "message_delta");
    assert_eq!(
        message_delta.map(|event| event["delta"]["stop_reason"].clone()),
        Some(json!("tool_use"))
    );
}

#[tokio::test]
async fn a_whole_message_carries_tool_use_blocks_and_no_empty_text() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::tool_calls(vec![
        ScriptedToolCall::new("toolu_a", "Read", r#"{"p":1}"#),
        ScriptedToolCall::new("toolu_b", "Glob", "not json"),
    ])]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"claude-test"}"#).await;

    let body = response.json();
    assert_eq!(
        body["content"],
        json!([
            {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {"p": 1}},
            {"type": "tool_use", "id": "toolu_b", "name": "Glob", "input": {}},
        ])
    );
    assert_eq!(body["stop_reason"], json!("tool_use"));
}
