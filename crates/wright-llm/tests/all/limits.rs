//! Limits that keep an untrusted server from hanging or flooding wright (issue 12): an idle
//! timeout only content resets, a deadline per request, and caps on replies and error bodies.

use std::time::Duration;

use pretty_assertions::assert_eq;
use wright_llm::{LlmError, MIN_MAX_REPLY_BYTES, ProviderKind};
use wright_testkit::{Script, ScriptedResponse, TestServer};

use crate::common::*;

/// An OpenAI chunk carrying `text`.
fn openai_chunk(text: &str) -> String {
    format!(
        "data: {}\n\n",
        serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]})
    )
}

/// The last reason of a call that gave up after retrying.
fn last_reason(result: Result<wright_llm::Completion, LlmError>) -> String {
    match result {
        Err(LlmError::RetriesExhausted { last_reason, .. }) => last_reason,
        other => panic!("expected exhausted retries, got {other:?}"),
    }
}

#[tokio::test]
async fn anthropic_pings_alone_count_as_a_stall() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::endless_sse("event: ping\ndata: {\"type\": \"ping\"}\n\n")
            .with_chunk_delay_ms(10),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::Anthropic, &server);
    config.stream_idle_timeout = Duration::from_millis(300);
    config.max_attempts = 1;
    let (result, _) = complete(config, &request()).await;
    assert_eq!(last_reason(result), "no content for 300 ms");
}

#[tokio::test]
async fn keep_alive_comments_after_some_text_count_as_a_stall() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::raw_sse(openai_chunk("Hel"))
            .then_forever(": keep-alive\n\n")
            .with_chunk_delay_ms(10),
        ScriptedResponse::text("Hello"),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.stream_idle_timeout = Duration::from_millis(300);
    let (result, events) = complete(config, &request()).await;
    assert_eq!(result.unwrap().text, "Hello");
    assert_eq!(
        retries(&events),
        vec![(2, 5, "no content for 300 ms".to_string())]
    );
}

#[tokio::test]
async fn empty_deltas_alone_count_as_a_stall() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::endless_sse(openai_chunk("")).with_chunk_delay_ms(10),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.stream_idle_timeout = Duration::from_millis(300);
    config.max_attempts = 1;
    let (result, _) = complete(config, &request()).await;
    assert_eq!(last_reason(result), "no content for 300 ms");
}

#[tokio::test]
async fn a_reply_that_never_ends_is_given_up_at_the_request_timeout_and_retried() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::endless_sse(openai_chunk("more ")).with_chunk_delay_ms(10),
        ScriptedResponse::text("done"),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.request_timeout = Duration::from_millis(500);
    let (result, events) = complete(config, &request()).await;
    assert_eq!(result.unwrap().text, "done");
    assert_eq!(
        retries(&events),
        vec![(
            2,
            5,
            "no complete reply within 500 ms (`request_timeout_secs`)".to_string()
        )]
    );
}

#[tokio::test]
async fn a_flooding_stream_fails_the_call_once_the_reply_passes_its_cap() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::endless_sse(
        openai_chunk(&"flood ".repeat(200)),
    )]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.max_output_tokens = 16;
    let (result, _) = complete(config, &request()).await;
    match result {
        Err(LlmError::ReplyTooLarge { limit, .. }) => assert_eq!(limit, MIN_MAX_REPLY_BYTES),
        other => panic!("expected a reply too large, got {other:?}"),
    }
    // Not retried: the same request would flood again.
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_plain_reply_past_its_cap_fails_the_call() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text(
        "x".repeat(MIN_MAX_REPLY_BYTES + 1),
    )]))
    .unwrap();
    let mut config = config(ProviderKind::Anthropic, &server);
    config.max_output_tokens = 16;
    config.stream = false;
    let (result, _) = complete(config, &request()).await;
    assert!(
        matches!(result, Err(LlmError::ReplyTooLarge { .. })),
        "{result:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_huge_error_message_is_cut_to_its_first_few_kilobytes() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::status(
        400,
        "bad ".repeat(50_000),
    )]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    let error = result.unwrap_err();
    let message = error.to_string();
    assert!(message.contains("HTTP 400: bad bad"), "{message}");
    assert!(message.len() < 5_000, "{} bytes", message.len());
}

#[tokio::test]
async fn a_huge_retry_reason_is_cut_too() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(503, "busy ".repeat(50_000)),
        ScriptedResponse::text("ok"),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(result.unwrap().text, "ok");
    let reasons = retries(&events);
    assert_eq!(reasons.len(), 1);
    assert!(reasons[0].2.len() < 5_000, "{} bytes", reasons[0].2.len());
}
