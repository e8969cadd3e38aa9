//! The OpenAI-compatible provider against a real loopback server.

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_llm::{ChatMessage, ChatRequest, Completion, FinishReason, ProviderKind, StreamEvent};
use wright_protocol::Usage;
use wright_testkit::{Script, ScriptedResponse, TestServer};

use crate::common::*;

const REPLY: &str = "Hello! This reply arrives in several streamed pieces.";

#[tokio::test]
async fn a_streamed_reply_gives_text_usage_and_cached_tokens() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY)
            .with_usage(100, 12)
            .with_cached_tokens(64),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(
        result.unwrap(),
        Completion {
            text: REPLY.to_string(),
            reasoning: String::new(),
            usage: Some(Usage {
                prompt_tokens: 100,
                completion_tokens: 12,
                total_tokens: 112,
                cached_prompt_tokens: Some(64),
                cache_creation_tokens: None,
            }),
            calls: vec![Usage {
                prompt_tokens: 100,
                completion_tokens: 12,
                total_tokens: 112,
                cached_prompt_tokens: Some(64),
                cache_creation_tokens: None,
            }],
            finish_reason: FinishReason::Stop,
            tool_calls: Vec::new(),
        }
    );
    assert_eq!(streamed_text(&events), REPLY);
    assert!(text_deltas(&events) > 1, "{events:?}");
}

/// OpenRouter reports the cache writes of the Anthropic models behind it beside the reads;
/// both are part of `prompt_tokens`, as OpenAI counts them.
#[tokio::test]
async fn cache_writes_reported_beside_the_reads_are_kept() {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 194, "completion_tokens": 2,
            "total_tokens": 196,
            "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 100}}}),
    ];
    let sse: String = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .chain(["data: [DONE]\n\n".to_string()])
        .collect();
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(sse)])).unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(
        result.unwrap().usage,
        Some(Usage {
            prompt_tokens: 194,
            completion_tokens: 2,
            total_tokens: 196,
            cached_prompt_tokens: Some(0),
            cache_creation_tokens: Some(100),
        })
    );
}

#[tokio::test]
async fn the_request_has_the_documented_shape() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")])).unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.max_output_tokens = 1234;
    let request = ChatRequest {
        system: vec!["You are terse.".into()],
        messages: vec![
            ChatMessage::user("Say hello."),
            ChatMessage::assistant("Hello."),
            ChatMessage::user("Again."),
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
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(sent.header("authorization"), Some("Bearer test-key"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(
        sent.json().unwrap(),
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Say hello."},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "Again."},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 1234,
            "stop": ["Observation:"],
        })
    );
}

#[tokio::test]
async fn without_an_api_key_no_authorization_header_is_sent() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")])).unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.api_key = None;
    complete(config, &request()).await.0.unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn reasoning_deltas_are_reported_apart_from_the_text() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY).with_reasoning("First, think about greetings at length."),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
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
async fn a_reply_without_usage_reports_none() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")])).unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(result.unwrap().usage, None);
}

#[tokio::test]
async fn crlf_lines_comments_and_multibyte_text_are_read() {
    let sse = concat!(
        ": keep-alive\r\n\r\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\u{e9} \"},\"finish_reason\":null}]}\r\n\r\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\u{1F600} \u{65E5}\u{672C}\"},\"finish_reason\":\"\"}]}\r\n\r\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n",
        "data: [DONE]\r\n\r\n",
    );
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(sse)])).unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    let completion = result.unwrap();
    assert_eq!(completion.text, "café 😀 日本");
    assert_eq!(completion.finish_reason, FinishReason::Stop);
    assert_eq!(
        events,
        vec![
            StreamEvent::Text("café ".into()),
            StreamEvent::Text("😀 日本".into()),
        ]
    );
}

#[tokio::test]
async fn a_stream_without_done_is_complete_after_its_finish_reason() {
    let sse = concat!(
        "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    );
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(sse)])).unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(result.unwrap().text, "ok");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_plain_request_reports_the_whole_reply_at_once() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(REPLY)
            .with_reasoning("thinking")
            .with_usage(10, 4),
    ]))
    .unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.stream = false;
    let (result, events) = complete(config, &request()).await;
    assert_eq!(
        result.unwrap(),
        Completion {
            text: REPLY.to_string(),
            reasoning: "thinking".to_string(),
            usage: Some(Usage {
                prompt_tokens: 10,
                completion_tokens: 4,
                total_tokens: 14,
                cached_prompt_tokens: None,
                cache_creation_tokens: None,
            }),
            calls: vec![Usage {
                prompt_tokens: 10,
                completion_tokens: 4,
                total_tokens: 14,
                cached_prompt_tokens: None,
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
    let body = server.requests()[0].json().unwrap();
    assert_eq!(body["stream"], json!(false));
    assert_eq!(body.get("stream_options"), None);
}

#[tokio::test]
async fn a_server_refusing_max_tokens_and_stop_gets_them_its_way_and_the_client_remembers() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use \
             'max_completion_tokens' instead.",
        ),
        ScriptedResponse::status(
            400,
            "Unsupported parameter: 'stop' is not supported with this model.",
        ),
        ScriptedResponse::text(REPLY),
        ScriptedResponse::text(REPLY),
    ]))
    .unwrap();
    let client = wright_llm::LlmClient::new(config(ProviderKind::OpenAi, &server)).unwrap();
    let mut request = request();
    request.stop = vec!["\nObservation:".into()];
    let first = client.complete(&request, &mut |_| {}).await.unwrap();
    assert_eq!(first.text, REPLY);
    let second = client.complete(&request, &mut |_| {}).await.unwrap();
    assert_eq!(second.text, REPLY);

    let bodies: Vec<serde_json::Value> = server
        .requests()
        .iter()
        .map(|r| r.json().unwrap())
        .collect();
    assert_eq!(bodies.len(), 4, "one retry per lesson, none after");
    assert_eq!(bodies[0]["max_tokens"], 8192);
    assert!(bodies[0]["stop"].is_array());
    assert_eq!(bodies[1]["max_completion_tokens"], 8192);
    assert!(bodies[1].get("max_tokens").is_none());
    for body in &bodies[2..] {
        assert_eq!(body["max_completion_tokens"], 8192);
        assert!(body.get("max_tokens").is_none());
        assert!(body.get("stop").is_none());
    }
}

#[tokio::test]
async fn a_bad_request_about_something_else_still_fails_at_once() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(400, "Unsupported value: 'temperature' does not support 0.2"),
        ScriptedResponse::text(REPLY),
    ]))
    .unwrap();
    let (result, _) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert!(result.is_err());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_requests_own_reply_limit_is_sent_as_max_tokens() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text(REPLY)])).unwrap();
    let request = ChatRequest {
        max_output_tokens: Some(700),
        ..request()
    };
    complete(config(ProviderKind::OpenAi, &server), &request)
        .await
        .0
        .unwrap();

    let body = server.requests()[0].json().unwrap();
    assert_eq!(body["max_tokens"], 700);
    assert!(body.get("max_completion_tokens").is_none());
}

#[tokio::test]
async fn a_requests_own_reply_limit_is_sent_as_max_completion_tokens_where_that_is_the_spelling() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text(REPLY)])).unwrap();
    let mut config = config(ProviderKind::OpenAi, &server);
    config.model = "gpt-5-mini".into();
    let request = ChatRequest {
        max_output_tokens: Some(700),
        ..request()
    };
    complete(config, &request).await.0.unwrap();

    let body = server.requests()[0].json().unwrap();
    assert_eq!(body["max_completion_tokens"], 700);
    assert!(body.get("max_tokens").is_none());
}
