//! The Anthropic provider against a real loopback server.

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_llm::{
    ChatMessage, ChatRequest, Completion, FinishReason, LlmError, ProviderKind, StreamEvent,
};
use wright_protocol::Usage;
use wright_testkit::{Script, ScriptedResponse, TestServer};

use crate::common::*;

const REPLY: &str = "Hello! This reply arrives in several streamed pieces.";

#[tokio::test]
async fn a_streamed_reply_gives_text_and_usage_with_cache_counts() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY)
            .with_usage(10, 12)
            .with_cached_tokens(100)
            .with_cache_creation_tokens(20),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    assert_eq!(
        result.unwrap(),
        Completion {
            text: REPLY.to_string(),
            reasoning: String::new(),
            usage: Some(Usage {
                prompt_tokens: 130,
                completion_tokens: 12,
                total_tokens: 142,
                cached_prompt_tokens: Some(100),
                cache_creation_tokens: Some(20),
            }),
            calls: vec![Usage {
                prompt_tokens: 130,
                completion_tokens: 12,
                total_tokens: 142,
                cached_prompt_tokens: Some(100),
                cache_creation_tokens: Some(20),
            }],
            finish_reason: FinishReason::Stop,
            tool_calls: Vec::new(),
        }
    );
    assert_eq!(streamed_text(&events), REPLY);
    assert!(text_deltas(&events) > 1, "{events:?}");
}

#[tokio::test]
async fn the_request_has_the_documented_shape() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")])).unwrap();
    let mut config = config(ProviderKind::Anthropic, &server);
    config.max_output_tokens = 1234;
    let request = ChatRequest {
        system: vec!["You are terse.".into()],
        messages: vec![
            ChatMessage::assistant("Ready."),
            ChatMessage::user("Say hello."),
            ChatMessage::user("Observation: none"),
            ChatMessage::assistant("Hello."),
        ],
        stop: vec!["Observation:".into()],
        max_output_tokens: None,
    };
    complete(config, &request).await.0.unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(sent.header("x-api-key"), Some("test-key"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.json().unwrap(),
        json!({
            "model": "test-model",
            "max_tokens": 1234,
            "system": [{
                "type": "text",
                "text": "You are terse.",
                "cache_control": {"type": "ephemeral"},
            }],
            "messages": [
                {"role": "user", "content": "(continue)"},
                {"role": "assistant", "content": "Ready."},
                {"role": "user", "content": [{
                    "type": "text",
                    "text": "Say hello.\n\nObservation: none",
                    "cache_control": {"type": "ephemeral"},
                }]},
                {"role": "assistant", "content": "Hello."},
            ],
            "stop_sequences": ["Observation:"],
            "stream": true,
        })
    );
}

#[tokio::test]
async fn thinking_is_reported_as_reasoning_apart_from_the_text() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY).with_reasoning("First, think about greetings at length."),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    let completion = result.unwrap();
    assert_eq!(completion.text, REPLY);
    assert_eq!(
        completion.reasoning,
        "First, think about greetings at length."
    );
    assert_eq!(streamed_reasoning(&events), completion.reasoning);
    assert_eq!(streamed_text(&events), REPLY);
}

#[tokio::test]
async fn a_plain_request_reports_the_whole_reply_at_once() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY)
            .with_reasoning("thinking")
            .with_usage(10, 4)
            .with_cached_tokens(6),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::Anthropic, &server);
    config.stream = false;
    let (result, events) = complete(config, &request()).await;
    assert_eq!(
        result.unwrap(),
        Completion {
            text: REPLY.to_string(),
            reasoning: "thinking".to_string(),
            usage: Some(Usage {
                prompt_tokens: 16,
                completion_tokens: 4,
                total_tokens: 20,
                cached_prompt_tokens: Some(6),
                cache_creation_tokens: None,
            }),
            calls: vec![Usage {
                prompt_tokens: 16,
                completion_tokens: 4,
                total_tokens: 20,
                cached_prompt_tokens: Some(6),
                cache_creation_tokens: None,
            }],
            finish_reason: FinishReason::Stop,
            tool_calls: Vec::new(),
        }
    );
    assert_eq!(
        events,
        vec![
            StreamEvent::Reasoning("thinking".into()),
            StreamEvent::Text(REPLY.into()),
        ]
    );
    assert_eq!(server.requests()[0].json().unwrap()["stream"], json!(false));
}

fn error_event(kind: &str, message: &str) -> String {
    let data = json!({"type": "error", "error": {"type": kind, "message": message}});
    format!("event: error\ndata: {data}\n\n")
}

#[tokio::test]
async fn an_overloaded_error_event_is_retried() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::raw_sse(error_event("overloaded_error", "Overloaded")),
        ScriptedResponse::text("ok"),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    assert_eq!(result.unwrap().text, "ok");
    assert_eq!(
        retries(&events),
        vec![(2, 5, "overloaded_error: Overloaded".to_string())]
    );
}

#[tokio::test]
async fn other_error_events_fail_at_once_with_the_providers_message() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(error_event(
        "invalid_request_error",
        "messages: roles must alternate between \"user\" and \"assistant\"",
    ))]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    match result.unwrap_err() {
        LlmError::Provider { kind, message, .. } => {
            assert_eq!(kind, "invalid_request_error");
            assert_eq!(
                message,
                "messages: roles must alternate between \"user\" and \"assistant\""
            );
        }
        other => panic!("expected a provider error, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn crlf_lines_and_multibyte_text_are_read() {
    let events = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "café 😀"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        json!({"type": "message_stop"}),
    ];
    let sse: String = events
        .iter()
        .map(|data| {
            format!(
                "event: {}\r\ndata: {data}\r\n\r\n",
                data["type"].as_str().unwrap()
            )
        })
        .collect();
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(sse)])).unwrap();
    let (result, _) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    let completion = result.unwrap();
    assert_eq!(completion.text, "café 😀");
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 3,
            completion_tokens: 2,
            total_tokens: 5,
            cached_prompt_tokens: None,
            cache_creation_tokens: None,
        })
    );
}

/// An SSE body of `events`, each named by its `type`.
fn sse(events: &[serde_json::Value]) -> String {
    events
        .iter()
        .map(|data| {
            format!(
                "event: {}\ndata: {data}\n\n",
                data["type"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

/// A streamed text reply "ok" whose `message_start` and `message_delta` carry `start` and
/// `delta` as their usage.
fn reply_with_usages(start: serde_json::Value, delta: serde_json::Value) -> String {
    sse(&[
        json!({"type": "message_start", "message": {"id": "m", "content": [], "usage": start}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": delta}),
        json!({"type": "message_stop"}),
    ])
}

/// Anthropic's `message_delta` usage is cumulative: counts it repeats from `message_start`
/// replace them (never add to them), and the prompt is input + cache reads + cache writes.
#[tokio::test]
async fn cumulative_message_delta_usage_replaces_the_message_start_counts() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(
        reply_with_usages(
            json!({"input_tokens": 10, "output_tokens": 1,
                   "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20}),
            json!({"input_tokens": 10, "output_tokens": 12,
                   "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20}),
        ),
    )]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    assert_eq!(
        result.unwrap().usage,
        Some(Usage {
            prompt_tokens: 130,
            completion_tokens: 12,
            total_tokens: 142,
            cached_prompt_tokens: Some(100),
            cache_creation_tokens: Some(20),
        })
    );
}

/// Gateways that learn the counts only at the end send zeros in `message_start` and the real
/// input and cache counts in `message_delta`.
#[tokio::test]
async fn input_and_cache_counts_that_arrive_only_in_message_delta_are_used() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(
        reply_with_usages(
            json!({"input_tokens": 0, "output_tokens": 0}),
            json!({"input_tokens": 7, "output_tokens": 3,
                   "cache_read_input_tokens": 900, "cache_creation_input_tokens": 50}),
        ),
    )]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    assert_eq!(
        result.unwrap().usage,
        Some(Usage {
            prompt_tokens: 957,
            completion_tokens: 3,
            total_tokens: 960,
            cached_prompt_tokens: Some(900),
            cache_creation_tokens: Some(50),
        })
    );
}

/// Counts `message_delta` leaves out (or sends as `null`) keep their `message_start` values.
#[tokio::test]
async fn cache_counts_missing_from_message_delta_keep_their_message_start_values() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(
        reply_with_usages(
            json!({"input_tokens": 5, "output_tokens": 1,
                   "cache_read_input_tokens": 0, "cache_creation_input_tokens": 400}),
            json!({"output_tokens": 9, "input_tokens": null, "cache_creation_input_tokens": null}),
        ),
    )]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    assert_eq!(
        result.unwrap().usage,
        Some(Usage {
            prompt_tokens: 405,
            completion_tokens: 9,
            total_tokens: 414,
            cached_prompt_tokens: Some(0),
            cache_creation_tokens: Some(400),
        })
    );
}

#[tokio::test]
async fn a_plain_message_counts_cache_reads_and_writes_in_the_prompt() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY)
            .with_usage(10, 4)
            .with_cached_tokens(600)
            .with_cache_creation_tokens(300),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::Anthropic, &server);
    config.stream = false;
    let (result, _) = complete(config, &request()).await;
    let usage = Usage {
        prompt_tokens: 910,
        completion_tokens: 4,
        total_tokens: 914,
        cached_prompt_tokens: Some(600),
        cache_creation_tokens: Some(300),
    };
    let completion = result.unwrap();
    assert_eq!(completion.usage, Some(usage));
    assert_eq!(completion.calls, vec![usage]);
}

#[tokio::test]
async fn a_requests_own_reply_limit_is_sent_as_max_tokens() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("Hello.")])).unwrap();
    let request = ChatRequest {
        max_output_tokens: Some(700),
        ..request()
    };
    complete(config(ProviderKind::Anthropic, &server), &request)
        .await
        .0
        .unwrap();

    assert_eq!(server.requests()[0].json().unwrap()["max_tokens"], 700);
}
