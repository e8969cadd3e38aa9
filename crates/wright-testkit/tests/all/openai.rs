//! The OpenAI Chat Completions wire format, streamed and not.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_testkit::{Script, ScriptedResponse, ScriptedToolCall, TestServer};

use crate::common;

const PATH: &str = "/v1/chat/completions";

fn chunk(delta: Value, finish_reason: Value) -> Value {
    json!({
        "id": "chatcmpl-testkit",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-test",
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish_reason }],
    })
}

#[tokio::test]
async fn stream_sends_role_deltas_finish_usage_and_done() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Hello world!")
            .with_chunk_size(5)
            .with_usage(10, 5)
            .with_cached_tokens(3),
    ]))
    .unwrap();

    let response = common::post(
        server.addr(),
        PATH,
        r#"{"model":"gpt-test","stream":true,"stream_options":{"include_usage":true}}"#,
    )
    .await;

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert_eq!(response.header("transfer-encoding"), Some("chunked"));
    assert!(response.terminated);
    assert_eq!(response.chunks.len(), response.sse_events().len());
    assert_eq!(response.sse_events()[0], ": keep-alive");
    assert_eq!(response.sse_events().last().unwrap(), "data: [DONE]");
    assert_eq!(
        response.sse_data(),
        vec![
            chunk(json!({"role": "assistant"}), Value::Null),
            chunk(json!({"content": "Hello"}), Value::Null),
            chunk(json!({"content": " worl"}), Value::Null),
            chunk(json!({"content": "d!"}), Value::Null),
            chunk(json!({}), json!("stop")),
            json!({
                "id": "chatcmpl-testkit",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "gpt-test",
                "choices": [],
                "usage": {
                    "prompt_tokens": 10,
                    "completion_tokens": 5,
                    "total_tokens": 15,
                    "prompt_tokens_details": { "cached_tokens": 3 },
                },
            }),
        ]
    );
}

#[tokio::test]
async fn stream_omits_usage_unless_include_usage_is_requested() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("hi").with_usage(10, 5),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test","stream":true}"#).await;

    assert_eq!(
        response.sse_data(),
        vec![
            chunk(json!({"role": "assistant"}), Value::Null),
            chunk(json!({"content": "hi"}), Value::Null),
            chunk(json!({}), json!("stop")),
        ]
    );
    assert_eq!(response.sse_events().last().unwrap(), "data: [DONE]");
}

#[tokio::test]
async fn stream_sends_reasoning_content_before_content() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("ok")
            .with_reasoning("think")
            .with_chunk_size(0)
            .with_finish_reason("length"),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test","stream":true}"#).await;

    assert_eq!(
        response.sse_data(),
        vec![
            chunk(json!({"role": "assistant"}), Value::Null),
            chunk(json!({"reasoning_content": "think"}), Value::Null),
            chunk(json!({"content": "ok"}), Value::Null),
            chunk(json!({}), json!("length")),
        ]
    );
}

#[tokio::test]
async fn non_streaming_request_gets_a_whole_completion() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Hello")
            .with_reasoning("hmm")
            .with_usage(7, 2),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test"}"#).await;

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(
        response.header("content-length"),
        Some(response.body.len().to_string().as_str())
    );
    assert_eq!(
        response.json(),
        json!({
            "id": "chatcmpl-testkit",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [{
                "index": 0,
                "message": { "role": "assistant", "content": "Hello", "reasoning_content": "hmm" },
                "finish_reason": "stop",
            }],
            "usage": { "prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9 },
        })
    );
}

#[tokio::test]
async fn non_streaming_completion_without_usage_has_no_usage_field() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("x")])).unwrap();

    let response = common::post(server.addr(), "/chat/completions", r#"{"model":"m"}"#).await;

    assert_eq!(response.json().get("usage"), None);
}

#[tokio::test]
async fn error_status_has_openai_error_shape_and_extra_headers() {
    // Chat Completions and Responses share OpenAI's error shape.
    for path in [PATH, "/v1/responses"] {
        let server = TestServer::start(Script::new(vec![
            ScriptedResponse::status(429, "slow down").with_header("Retry-After", "1"),
        ]))
        .unwrap();

        let response = common::post(server.addr(), path, r#"{"model":"m","stream":true}"#).await;

        assert_eq!(response.status, 429, "{path}");
        assert_eq!(response.header("retry-after"), Some("1"));
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(
            response.json(),
            json!({"error": {"message": "slow down", "type": "rate_limit_error", "code": null}})
        );
    }
}

#[tokio::test]
async fn usage_from_request_is_proportional_to_the_request_body() {
    let response = ScriptedResponse {
        usage_from_request: true,
        ..ScriptedResponse::text("12345678")
    };
    let server = TestServer::start(Script::new(vec![response])).unwrap();
    let body = format!(
        "{{\"model\":\"m\",\"stream\":false,\"messages\":[{{\"role\":\"user\",\"content\":\"{}\"}}]}}",
        "x".repeat(400)
    );
    let reply = common::post(server.addr(), PATH, &body).await;
    let json = reply.json();
    assert_eq!(json["usage"]["prompt_tokens"], (body.len() / 4) as u64);
    assert_eq!(json["usage"]["completion_tokens"], 2);
}

fn two_tool_calls() -> ScriptedResponse {
    ScriptedResponse::tool_calls(vec![
        ScriptedToolCall::new("call_a", "Read", r#"{"p":1}"#),
        ScriptedToolCall::new("call_b", "Glob", "{"),
    ])
    .with_chunk_size(4)
}

#[tokio::test]
async fn stream_sends_tool_calls_as_index_keyed_fragments() {
    let server = TestServer::start(Script::new(vec![two_tool_calls()])).unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test","stream":true}"#).await;

    let call = |index: u64, id: &str, name: &str| {
        json!({"tool_calls": [{"index": index, "id": id, "type": "function",
            "function": {"name": name, "arguments": ""}}]})
    };
    let arguments = |index: u64, piece: &str| json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]});
    assert_eq!(
        response.sse_data(),
        vec![
            chunk(json!({"role": "assistant"}), Value::Null),
            chunk(call(0, "call_a", "Read"), Value::Null),
            chunk(arguments(0, "{\"p\""), Value::Null),
            chunk(arguments(0, ":1}"), Value::Null),
            chunk(call(1, "call_b", "Glob"), Value::Null),
            chunk(arguments(1, "{"), Value::Null),
            chunk(json!({}), json!("tool_calls")),
        ]
    );
}

#[tokio::test]
async fn a_whole_completion_carries_tool_calls_and_null_content() {
    let server = TestServer::start(Script::new(vec![two_tool_calls()])).unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test"}"#).await;

    assert_eq!(
        response.json()["choices"][0],
        json!({
            "index": 0,
            "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function",
                 "function": {"name": "Read", "arguments": "{\"p\":1}"}},
                {"id": "call_b", "type": "function",
                 "function": {"name": "Glob", "arguments": "{"}},
            ]},
            "finish_reason": "tool_calls",
        })
    );
}
