//! The context window: a server's "does not fit" error recognised (also behind a stream cut
//! before any event), and the window read from the server's own endpoints, over loopback.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_llm::{LlmClient, LlmError, ProviderKind};
use wright_testkit::{Script, ScriptedResponse, TestServer};

use crate::common::*;

/// What llama.cpp's server answers a request longer than its window.
const LLAMA_CPP_OVERFLOW: &str = r#"{"error":{"code":400,"message":"request (5120 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5120,"n_ctx":4096}}"#;

#[tokio::test]
async fn a_stream_cut_before_any_event_is_asked_again_plainly_and_the_overflow_reported() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::cut_before_events(),
        ScriptedResponse::status(400, "").with_body(LLAMA_CPP_OVERFLOW),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;

    let error = result.unwrap_err();
    assert!(
        matches!(
            error,
            LlmError::ContextOverflow {
                window: Some(4096),
                ..
            }
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("context window of 4096 tokens"),
        "{message}"
    );
    assert!(message.contains("`context_window`"), "{message}");
    assert!(
        !message.contains("Check that the server is up"),
        "{message}"
    );
    assert!(!error.is_retryable());
    // One streamed request, one plain one: no blind retries.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let streamed: Vec<Option<Value>> = requests
        .iter()
        .map(|request| request.json().unwrap().get("stream").cloned())
        .collect();
    assert_eq!(streamed, vec![Some(json!(true)), Some(json!(false))]);
    let retries = retries(&events);
    assert_eq!(retries.len(), 1);
    assert!(
        retries[0]
            .2
            .ends_with("asking once without streaming to see the server's error"),
        "{retries:?}"
    );
}

#[tokio::test]
async fn a_plain_answer_after_a_cut_stream_is_the_reply() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::cut_before_events(),
        ScriptedResponse::text("Hello."),
    ]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(result.unwrap().text, "Hello.");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn streams_that_keep_being_cut_are_asked_plainly_only_once() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::cut_before_events(),
        ScriptedResponse::cut_before_events(),
        ScriptedResponse::cut_before_events(),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.max_attempts = 3;
    let (result, _) = complete(config, &request()).await;
    assert!(
        matches!(result, Err(LlmError::RetriesExhausted { attempts: 3, .. })),
        "{result:?}"
    );
    let plain = server
        .requests()
        .iter()
        .filter(|request| request.json().unwrap()["stream"] == json!(false))
        .count();
    assert_eq!(plain, 1);
}

#[tokio::test]
async fn an_overflow_error_is_never_retried_whatever_its_status() {
    for provider in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
        let server = TestServer::start(Script::new(vec![ScriptedResponse::status(
            500,
            "prompt is too long: 210345 tokens > 200000 maximum",
        )]))
        .unwrap();
        let (result, _) = complete(config(provider, &server), &request()).await;
        assert!(
            matches!(
                result,
                Err(LlmError::ContextOverflow {
                    window: Some(200_000),
                    ..
                })
            ),
            "{result:?}"
        );
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn an_overflow_reported_inside_a_stream_is_recognised() {
    let chunk = r#"data: {"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.","type":"BadRequestError","code":400}}"#;
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(format!(
        "{chunk}\n\n"
    ))]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert!(
        matches!(
            result,
            Err(LlmError::ContextOverflow {
                window: Some(8192),
                ..
            })
        ),
        "{result:?}"
    );
}

async fn discover(server: &TestServer) -> Option<u64> {
    match LlmClient::new(config(ProviderKind::OpenAi, server)) {
        Ok(client) => client.discover_context_window().await,
        Err(error) => panic!("the test client cannot be made: {error}"),
    }
}

#[tokio::test]
async fn the_window_is_read_from_llama_cpp_props() {
    let server = TestServer::start(Script::default().with_document(
        "/props",
        r#"{"default_generation_settings":{"n_ctx":4096},"total_slots":1}"#,
    ))
    .unwrap();
    assert_eq!(discover(&server).await, Some(4096));
    assert!(server.requests().is_empty(), "no model call is made");
}

#[tokio::test]
async fn the_window_is_read_from_vllm_models() {
    let server = TestServer::start(Script::default().with_document(
        "/v1/models",
        r#"{"object":"list","data":[{"id":"test-model","object":"model","max_model_len":32768}]}"#,
    ))
    .unwrap();
    assert_eq!(discover(&server).await, Some(32768));
    let models = server
        .other_requests()
        .into_iter()
        .find(|request| request.path == "/v1/models")
        .unwrap();
    assert_eq!(models.method, "GET");
    assert_eq!(
        models.header("authorization"),
        Some(format!("Bearer {API_KEY}").as_str())
    );
}

#[tokio::test]
async fn the_window_is_read_from_ollama_show() {
    let server = TestServer::start(Script::default().with_document(
        "/api/show",
        r#"{"parameters":"num_ctx 8192","model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}"#,
    ))
    .unwrap();
    assert_eq!(discover(&server).await, Some(8192));
    let show = server
        .other_requests()
        .into_iter()
        .find(|request| request.path == "/api/show")
        .unwrap();
    assert_eq!(show.method, "POST");
    assert_eq!(show.json().unwrap(), json!({"model": "test-model"}));
}

#[tokio::test]
async fn a_server_that_tells_nothing_gives_no_window() {
    let server = TestServer::start(
        Script::default().with_document("/props", r#"{"default_generation_settings":"#),
    )
    .unwrap();
    assert_eq!(discover(&server).await, None);
}

#[tokio::test]
async fn anthropic_is_never_asked_for_its_window() {
    let server = TestServer::start(Script::default()).unwrap();
    let client = LlmClient::new(config(ProviderKind::Anthropic, &server)).unwrap();
    assert_eq!(client.discover_context_window().await, None);
    assert!(server.other_requests().is_empty());
}
