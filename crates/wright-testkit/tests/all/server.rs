//! Behaviour common to both formats: routing, recording, errors, the script running out,
//! misbehaving streams and concurrency.

use std::io::{Read, Write};
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wright_testkit::{RecordedRequest, Script, ScriptedResponse, TestServer};

use crate::common;

const OPENAI: &str = "/v1/chat/completions";
const ANTHROPIC: &str = "/v1/messages";
const STREAM: &str = r#"{"model":"m","stream":true}"#;

#[tokio::test]
async fn requests_are_recorded_with_lower_cased_headers_and_raw_body() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")])).unwrap();
    let body = r#"{"model":"m","messages":[]}"#;

    common::send(
        server.addr(),
        &common::post_bytes(ANTHROPIC, &[("X-Api-Key", "secret")], body),
    )
    .await;

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, ANTHROPIC);
    assert_eq!(request.body, body);
    assert_eq!(request.header("x-api-key"), Some("secret"));
    assert_eq!(request.header("X-API-KEY"), Some("secret"));
    assert!(request.headers.iter().any(|(name, _)| name == "x-api-key"));
    assert_eq!(
        request.json().unwrap(),
        json!({"model": "m", "messages": []})
    );
}

#[tokio::test]
async fn a_request_head_sent_in_pieces_is_understood() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")])).unwrap();
    let bytes = common::post_bytes(OPENAI, &[], r#"{"model":"m"}"#);
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();

    for piece in bytes.chunks(7) {
        stream.write_all(piece).await.unwrap();
        stream.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();

    let response = common::parse_response(&response);
    assert_eq!(response.status, 200);
    assert_eq!(server.requests()[0].json().unwrap(), json!({"model": "m"}));
}

#[tokio::test]
async fn unknown_paths_get_404_are_recorded_apart_and_consume_nothing() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")])).unwrap();

    let not_found = common::post(server.addr(), "/v1/models", "{}").await;
    let scripted = common::post(server.addr(), OPENAI, r#"{"model":"m"}"#).await;

    assert_eq!(not_found.status, 404);
    assert_eq!(not_found.json()["error"]["type"], "not_found_error");
    assert_eq!(scripted.status, 200);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec![OPENAI.to_string()]);
    let others: Vec<String> = server
        .other_requests()
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert_eq!(others, vec!["/v1/models".to_string()]);
}

#[tokio::test]
async fn documents_are_served_at_their_path_every_time() {
    let server = TestServer::start(
        Script::new(vec![ScriptedResponse::text("ok")]).with_document(
            "/props",
            r#"{"default_generation_settings":{"n_ctx":4096}}"#,
        ),
    )
    .unwrap();

    let first = common::get(server.addr(), "/props").await;
    let second = common::post(server.addr(), "/props?x=1", "{}").await;
    let scripted = common::post(server.addr(), OPENAI, r#"{"model":"m"}"#).await;

    assert_eq!(first.status, 200);
    assert_eq!(first.json()["default_generation_settings"]["n_ctx"], 4096);
    assert_eq!(second.json(), first.json());
    assert_eq!(scripted.json()["choices"][0]["message"]["content"], "ok");
    assert_eq!(server.other_requests().len(), 2);
}

#[tokio::test]
async fn a_response_cut_before_events_sends_only_the_head() {
    let server =
        TestServer::start(Script::new(vec![ScriptedResponse::cut_before_events()])).unwrap();

    let cut = common::post(server.addr(), OPENAI, r#"{"model":"m","stream":true}"#).await;

    assert_eq!(cut.status, 200);
    assert_eq!(cut.body, "");
    assert!(!cut.terminated, "the body ends without its last chunk");
}

#[tokio::test]
async fn responses_are_handed_out_in_order_then_the_script_is_exhausted() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("first"),
        ScriptedResponse::text("second"),
    ]))
    .unwrap();

    let first = common::post(server.addr(), OPENAI, "{}").await;
    let second = common::post(server.addr(), ANTHROPIC, "{}").await;
    let third = common::post(server.addr(), ANTHROPIC, "{}").await;

    assert_eq!(first.json()["choices"][0]["message"]["content"], "first");
    assert_eq!(second.json()["content"][0]["text"], "second");
    assert_eq!(third.status, 500);
    assert_eq!(
        third.json(),
        json!({"type": "error", "error": {
            "type": "api_error",
            "message": "wright-testkit: script exhausted (2 responses scripted)",
        }})
    );
}

#[tokio::test]
async fn a_raw_error_body_replaces_the_provider_shape() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::status(502, "unused").with_body("<html>bad gateway</html>"),
    ]))
    .unwrap();

    let response = common::post(server.addr(), OPENAI, "{}").await;

    assert_eq!(response.status, 502);
    assert_eq!(response.body, "<html>bad gateway</html>");
}

#[tokio::test]
async fn cut_after_chunks_drops_the_connection_mid_chunked_body() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("abcdefgh")
            .with_chunk_size(2)
            .cut_after(2),
    ]))
    .unwrap();

    let response = common::post(server.addr(), OPENAI, STREAM).await;

    assert_eq!(response.status, 200);
    assert!(
        !response.terminated,
        "a cut body has no 0-length last chunk"
    );
    let contents: Vec<String> = response
        .sse_data()
        .iter()
        .filter_map(|chunk| {
            chunk["choices"][0]["delta"]["content"]
                .as_str()
                .map(String::from)
        })
        .collect();
    assert_eq!(contents, vec!["ab", "cd"]);
    assert!(!response.body.contains("[DONE]"));
    assert!(!response.body.contains("finish_reason\":\"stop"));
}

#[tokio::test]
async fn cut_anthropic_stream_never_reaches_message_stop() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("abcdef")
            .with_chunk_size(2)
            .cut_after(1),
    ]))
    .unwrap();

    let response = common::post(server.addr(), ANTHROPIC, STREAM).await;

    assert!(!response.terminated);
    assert_eq!(
        response.sse_event_names(),
        vec![
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta"
        ]
    );
}

#[tokio::test]
async fn stall_after_chunks_goes_silent_but_keeps_the_connection_open() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("abcdef")
            .with_chunk_size(2)
            .stall_after(1),
        ScriptedResponse::text("after"),
    ]))
    .unwrap();
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    stream
        .write_all(&common::post_bytes(OPENAI, &[], STREAM))
        .await
        .unwrap();

    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let silent = loop {
        match tokio::time::timeout(Duration::from_millis(300), stream.read(&mut buffer)).await {
            Ok(Ok(0)) => break false,
            Ok(Ok(read)) => received.extend_from_slice(&buffer[..read]),
            Ok(Err(error)) => panic!("read failed: {error}"),
            Err(_elapsed) => break true,
        }
    };
    drop(stream);

    assert!(silent, "the connection stays open without sending more");
    let text = String::from_utf8(received).unwrap();
    assert!(text.contains(r#""content":"ab""#));
    assert!(!text.contains(r#""content":"cd""#));
    let next = common::post(server.addr(), OPENAI, "{}").await;
    assert_eq!(next.json()["choices"][0]["message"]["content"], "after");
}

#[tokio::test]
async fn chunk_size_counts_chars_not_bytes() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("héllo wörld ✓").with_chunk_size(3),
    ]))
    .unwrap();

    let response = common::post(server.addr(), ANTHROPIC, STREAM).await;

    let pieces: Vec<String> = response
        .sse_data()
        .iter()
        .filter_map(|event| event["delta"]["text"].as_str().map(String::from))
        .collect();
    assert_eq!(pieces, vec!["hél", "lo ", "wör", "ld ", "✓"]);
}

#[tokio::test]
async fn raw_sse_is_sent_verbatim_as_a_terminated_event_stream() {
    let raw = "data: {\"weird\":true}\n\nevent: x\ndata: not json\n\n";
    let server = TestServer::start(Script::new(vec![ScriptedResponse::raw_sse(raw)])).unwrap();

    let response = common::post(server.addr(), ANTHROPIC, r#"{"model":"m"}"#).await;

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert!(response.terminated);
    assert_eq!(response.body, raw);
}

#[tokio::test]
async fn a_delayed_response_does_not_hold_up_other_connections() {
    let server = TestServer::start(Script::new(vec![
        // Long enough that the fast reply, if it is not held up, comes well before it.
        ScriptedResponse::text("slow").with_delay_ms(5_000),
        ScriptedResponse::text("fast"),
    ]))
    .unwrap();
    let addr = server.addr();
    let slow = tokio::spawn(async move { common::post(addr, OPENAI, "{}").await });
    while server.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    let fast = common::post(addr, OPENAI, "{}").await;

    assert_eq!(fast.json()["choices"][0]["message"]["content"], "fast");
    assert!(
        !slow.is_finished(),
        "the fast reply waited for the slow one"
    );
    let slow = slow.await.unwrap();
    assert_eq!(slow.json()["choices"][0]["message"]["content"], "slow");
}

#[tokio::test]
async fn a_client_leaving_mid_stream_does_not_disturb_the_server() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("a long reply sent slowly")
            .with_chunk_size(1)
            .with_chunk_delay_ms(20),
        ScriptedResponse::text("still here"),
    ]))
    .unwrap();
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    stream
        .write_all(&common::post_bytes(OPENAI, &[], STREAM))
        .await
        .unwrap();
    let mut buffer = [0u8; 64];
    let _ = stream.read(&mut buffer).await.unwrap();
    drop(stream);

    let next = common::post(server.addr(), OPENAI, "{}").await;

    assert_eq!(
        next.json()["choices"][0]["message"]["content"],
        "still here"
    );
}

#[tokio::test]
async fn many_concurrent_connections_are_all_served() {
    let responses = (0..20)
        .map(|i| ScriptedResponse::text(format!("r{i}")))
        .collect();
    let server = TestServer::start(Script::new(responses)).unwrap();
    let addr = server.addr();

    let tasks: Vec<_> = (0..20)
        .map(|_| tokio::spawn(async move { common::post(addr, OPENAI, STREAM).await }))
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap().status);
    }

    assert_eq!(statuses, vec![200; 20]);
    assert_eq!(server.requests().len(), 20);
}

#[test]
fn works_from_a_plain_test_without_a_runtime() {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("plain")])).unwrap();
    assert_eq!(
        server.url(),
        format!("http://127.0.0.1:{}", server.addr().port())
    );
    let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();

    stream
        .write_all(&common::post_bytes(OPENAI, &[], "{}"))
        .unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();

    let response = common::parse_response(&bytes);
    assert_eq!(response.header("connection"), Some("close"));
    assert_eq!(response.json()["choices"][0]["message"]["content"], "plain");
    assert_eq!(
        server.requests(),
        vec![RecordedRequest {
            method: "POST".to_string(),
            path: OPENAI.to_string(),
            headers: vec![
                ("host".to_string(), "127.0.0.1".to_string()),
                ("content-type".to_string(), "application/json".to_string()),
                ("content-length".to_string(), "2".to_string()),
            ],
            body: "{}".to_string(),
        }]
    );
}

#[test]
fn dropping_the_server_stops_it() {
    let server = TestServer::start(Script::default()).unwrap();
    let addr = server.addr();

    drop(server);

    assert!(std::net::TcpStream::connect(addr).is_err());
}

#[tokio::test]
async fn routed_requests_get_their_standing_answer_without_consuming_the_script() {
    let script = Script::new(vec![
        ScriptedResponse::text("first"),
        ScriptedResponse::text("second"),
    ])
    .with_route("SUMMARISE", ScriptedResponse::text("summary"));
    let server = TestServer::start(script).unwrap();
    let body = |content: &str| {
        format!(
            "{{\"model\":\"m\",\"stream\":false,\"messages\":[{{\"role\":\"user\",\"content\":\"{content}\"}}]}}"
        )
    };
    let path = "/v1/chat/completions";
    let text =
        |reply: common::RawResponse| reply.json()["choices"][0]["message"]["content"].clone();
    assert_eq!(
        text(common::post(server.addr(), path, &body("hi")).await),
        "first"
    );
    assert_eq!(
        text(common::post(server.addr(), path, &body("SUMMARISE")).await),
        "summary"
    );
    assert_eq!(
        text(common::post(server.addr(), path, &body("SUMMARISE")).await),
        "summary"
    );
    assert_eq!(
        text(common::post(server.addr(), path, &body("hi")).await),
        "second"
    );
}
