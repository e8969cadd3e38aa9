//! The Anthropic Messages wire format, streamed and not.

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_testkit::{Script, ScriptedResponse, TestServer};

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
