//! Retries and failures that will not heal, against a real loopback server.

use std::time::Duration;

use pretty_assertions::assert_eq;
use wright_llm::{LlmError, ProviderKind, StreamEvent};
use wright_testkit::{Script, ScriptedResponse, TestServer};

use crate::common::*;

const REPLY: &str = "A reply long enough to arrive in several pieces.";

#[tokio::test]
async fn failures_that_may_heal_are_retried_with_identical_requests() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(500, "internal trouble"),
        ScriptedResponse::status(429, "slow down").with_header("Retry-After", "1"),
        ScriptedResponse::text(REPLY).cut_after(2),
        ScriptedResponse::text(REPLY).with_usage(10, 5),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(result.unwrap().text, REPLY);

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    for retried in &requests[1..] {
        assert_eq!(retried.body, requests[0].body);
    }
    let retries = retries(&events);
    assert_eq!(
        retries[..2],
        [
            (2, 5, "HTTP 500: internal trouble".to_string()),
            (3, 5, "HTTP 429: slow down".to_string()),
        ]
    );
    // The cut is named, followed by the transport's own words in parentheses.
    let (attempt, _, reason) = &retries[2];
    assert_eq!(*attempt, 4);
    assert!(
        reason.starts_with("stream ended before its final event"),
        "{reason}"
    );
    assert_eq!(retries.len(), 3);
    // The server asked for 1 s; wright picks only milliseconds by itself here.
    let delays: Vec<Duration> = events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Retry { delay, .. } => Some(*delay),
            _ => None,
        })
        .collect();
    assert_eq!(delays[1], Duration::from_secs(1));
    assert!(delays[0] < Duration::from_millis(100), "{delays:?}");
}

#[tokio::test]
async fn text_streamed_before_a_retry_is_streamed_again_after_it() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY).cut_after(2),
        ScriptedResponse::text(REPLY),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    assert_eq!(result.unwrap().text, REPLY);
    let retry_at = events
        .iter()
        .position(|event| matches!(event, StreamEvent::Retry { .. }))
        .unwrap();
    assert_eq!(streamed_text(&events[..retry_at]), &REPLY[..32]);
    assert_eq!(streamed_text(&events[retry_at..]), REPLY);
}

#[tokio::test]
async fn an_unauthorized_request_fails_at_once_with_the_providers_message() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::status(
        401,
        "Incorrect API key provided",
    )]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    let error = result.unwrap_err();
    assert_eq!(error.status(), Some(401));
    assert_eq!(
        error.to_string(),
        format!(
            "the OpenAI-compatible API at {}/v1/chat/completions answered HTTP 401: Incorrect API key \
             provided. Check the API key (`api_key`) for this provider.",
            server.url()
        )
    );
    assert_eq!(server.requests().len(), 1);
    assert_eq!(retries(&events), vec![]);
}

#[tokio::test]
async fn a_bad_request_fails_at_once_with_the_providers_message() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::status(
        400,
        "messages: roles must alternate between \"user\" and \"assistant\"",
    )]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    match result.unwrap_err() {
        LlmError::Http {
            status, message, ..
        } => {
            assert_eq!(status, 400);
            assert_eq!(
                message,
                "messages: roles must alternate between \"user\" and \"assistant\""
            );
        }
        other => panic!("expected an HTTP error, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_error_body_that_is_not_json_is_quoted() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(404, "").with_body("<html>no such route</html>"),
    ]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    match result.unwrap_err() {
        LlmError::Http { message, .. } => assert_eq!(message, "<html>no such route</html>"),
        other => panic!("expected an HTTP error, got {other:?}"),
    }
}

#[tokio::test]
async fn retries_give_up_after_max_attempts_naming_the_last_reason() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(503, "overloaded"),
        ScriptedResponse::status(529, "overloaded"),
        ScriptedResponse::status(503, "still overloaded"),
        ScriptedResponse::text("too late"),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::Anthropic, &server);
    config.max_attempts = 3;
    let (result, events) = complete(config, &request()).await;
    match result.unwrap_err() {
        LlmError::RetriesExhausted {
            attempts,
            last_reason,
            ..
        } => {
            assert_eq!(attempts, 3);
            assert_eq!(last_reason, "HTTP 503: still overloaded");
        }
        other => panic!("expected exhausted retries, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 3);
    assert_eq!(
        retries(&events)
            .into_iter()
            .map(|(attempt, max, _)| (attempt, max))
            .collect::<Vec<_>>(),
        vec![(2, 3), (3, 3)]
    );
}

#[tokio::test]
async fn a_stalled_stream_is_abandoned_after_the_idle_timeout_and_retried() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY).stall_after(1),
        ScriptedResponse::text(REPLY),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.stream_idle_timeout = Duration::from_millis(300);
    let (result, events) = complete(config, &request()).await;
    assert_eq!(result.unwrap().text, REPLY);
    assert_eq!(
        retries(&events),
        vec![(2, 5, "no content for 300 ms".to_string())]
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_slow_response_head_counts_against_the_idle_timeout() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("late").with_delay_ms(2_000),
        ScriptedResponse::text("ok"),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::Anthropic, &server);
    config.stream_idle_timeout = Duration::from_millis(300);
    let (result, events) = complete(config, &request()).await;
    assert_eq!(result.unwrap().text, "ok");
    assert_eq!(
        retries(&events),
        vec![(2, 5, "no response for 300 ms".to_string())]
    );
}

#[tokio::test]
async fn a_refused_connection_is_retried_and_then_reported() {
    // Bind a port, then free it, so that nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = wright_llm::LlmConfig::new(
        ProviderKind::OpenAi,
        format!("http://127.0.0.1:{port}/v1"),
        "test-model",
    );
    config.max_attempts = 2;
    config.retry_base_delay = Duration::from_millis(5);
    let (result, events) = complete(config, &request()).await;
    match result.unwrap_err() {
        LlmError::RetriesExhausted {
            attempts,
            last_reason,
            ..
        } => {
            assert_eq!(attempts, 2);
            assert!(
                last_reason.starts_with("connection failed: "),
                "{last_reason}"
            );
        }
        other => panic!("expected exhausted retries, got {other:?}"),
    }
    assert_eq!(retries(&events).len(), 1);
}

#[tokio::test]
async fn an_api_key_echoed_by_the_provider_is_redacted_from_errors_and_retry_reasons() {
    const KEY: &str = "sk-proj-echoedKEY0123456789abcdef";
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(503, format!("proxy down for key {KEY}")),
        ScriptedResponse::status(401, format!("Incorrect API key provided: {KEY}")),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.api_key = Some(KEY.into());
    let (result, events) = complete(config, &request()).await;
    let error = result.unwrap_err().to_string();
    assert!(!error.contains(KEY), "{error}");
    assert!(
        error.contains("Incorrect API key provided: [REDACTED api key]"),
        "{error}"
    );
    let retries = retries(&events);
    assert_eq!(retries.len(), 1);
    assert_eq!(
        retries[0].2,
        "HTTP 503: proxy down for key [REDACTED api key]"
    );
    // The key still went where it belongs.
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}
