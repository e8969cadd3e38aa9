//! The OpenAI Responses wire format (what Codex CLI speaks), streamed and not.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_testkit::{Script, ScriptedResponse, ScriptedToolCall, TestServer};

use crate::common;

const PATH: &str = "/v1/responses";

/// A `response` object as the testkit sends it.
fn response_object(status: &str, output: Value, usage: Value) -> Value {
    let incomplete_details = if status == "incomplete" {
        json!({"reason": "max_output_tokens"})
    } else {
        Value::Null
    };
    json!({
        "id": "resp_testkit", "object": "response", "created_at": 0, "status": status,
        "model": "gpt-test", "output": output, "usage": usage, "error": null,
        "incomplete_details": incomplete_details,
    })
}

fn usage(input: u64, cached: u64, output: u64) -> Value {
    json!({
        "input_tokens": input, "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + output,
    })
}

fn message(status: &str, text: &str) -> Value {
    json!({"id": "msg_testkit", "type": "message", "status": status, "role": "assistant",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

/// An event about one output item: its `type`, `item_id`, `output_index` and `fields`.
fn item_event(kind: &str, item_id: &str, output_index: usize, fields: Value) -> Value {
    let mut event = json!({"type": kind, "item_id": item_id, "output_index": output_index});
    let Value::Object(fields) = fields else {
        panic!("fields must be an object: {fields}");
    };
    event.as_object_mut().unwrap().extend(fields);
    event
}

/// The data of every event with its `sequence_number` checked (0, 1, 2 ...) and removed, so
/// the expected events can be written without it.
fn numbered_data(response: &common::RawResponse) -> Vec<Value> {
    response
        .sse_data()
        .into_iter()
        .enumerate()
        .map(|(expected, mut event)| {
            let object = event.as_object_mut().unwrap();
            assert_eq!(object.remove("sequence_number"), Some(json!(expected)));
            event
        })
        .collect()
}

#[tokio::test]
async fn stream_sends_reasoning_and_text_items_between_created_and_completed() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Hi there")
            .with_reasoning("hmm")
            .with_chunk_size(4)
            .with_usage(12, 3)
            .with_cached_tokens(8),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test","stream":true}"#).await;

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert!(response.terminated);
    let data = numbered_data(&response);
    let types: Vec<String> = data
        .iter()
        .map(|event| event["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(response.sse_event_names(), types);
    let pending = response_object("in_progress", json!([]), Value::Null);
    let reasoning = |kind: &str, fields: Value| item_event(kind, "rs_testkit", 0, fields);
    let text = |kind: &str, fields: Value| item_event(kind, "msg_testkit", 1, fields);
    let reasoning_done = json!({"id": "rs_testkit", "type": "reasoning",
                                "summary": [{"type": "summary_text", "text": "hmm"}]});
    assert_eq!(
        data,
        vec![
            json!({"type": "response.created", "response": pending}),
            json!({"type": "response.in_progress", "response": pending}),
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"id": "rs_testkit", "type": "reasoning", "summary": []}}),
            reasoning(
                "response.reasoning_summary_part.added",
                json!({"summary_index": 0, "part": {"type": "summary_text", "text": ""}})
            ),
            reasoning(
                "response.reasoning_summary_text.delta",
                json!({"summary_index": 0, "delta": "hmm"})
            ),
            reasoning(
                "response.reasoning_summary_text.done",
                json!({"summary_index": 0, "text": "hmm"})
            ),
            reasoning(
                "response.reasoning_summary_part.done",
                json!({"summary_index": 0, "part": {"type": "summary_text", "text": "hmm"}})
            ),
            json!({"type": "response.output_item.done", "output_index": 0,
                   "item": reasoning_done}),
            json!({"type": "response.output_item.added", "output_index": 1,
                   "item": {"id": "msg_testkit", "type": "message", "status": "in_progress",
                            "role": "assistant", "content": []}}),
            text(
                "response.content_part.added",
                json!({"content_index": 0,
                       "part": {"type": "output_text", "text": "", "annotations": []}})
            ),
            text(
                "response.output_text.delta",
                json!({"content_index": 0, "delta": "Hi t", "logprobs": []})
            ),
            text(
                "response.output_text.delta",
                json!({"content_index": 0, "delta": "here", "logprobs": []})
            ),
            text(
                "response.output_text.done",
                json!({"content_index": 0, "text": "Hi there", "logprobs": []})
            ),
            text(
                "response.content_part.done",
                json!({"content_index": 0,
                       "part": {"type": "output_text", "text": "Hi there", "annotations": []}})
            ),
            json!({"type": "response.output_item.done", "output_index": 1,
                   "item": message("completed", "Hi there")}),
            json!({"type": "response.completed", "response": response_object(
                "completed",
                json!([reasoning_done, message("completed", "Hi there")]),
                usage(12, 8, 3),
            )}),
        ]
    );
}

fn two_tool_calls() -> ScriptedResponse {
    ScriptedResponse::tool_calls(vec![
        ScriptedToolCall::new("call_a", "exec_command", r#"{"cmd":"ls"}"#),
        ScriptedToolCall::new("call_b", "view_image", "{"),
    ])
    .with_chunk_size(6)
}

fn function_call(index: usize, status: &str, call_id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": format!("fc_testkit_{index}"), "type": "function_call", "status": status,
           "call_id": call_id, "name": name, "arguments": arguments})
}

#[tokio::test]
async fn stream_sends_tool_calls_as_function_call_items_with_argument_deltas() {
    let server = TestServer::start(Script::new(vec![two_tool_calls()])).unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test","stream":true}"#).await;

    let data = numbered_data(&response);
    let arguments = |index: usize, kind: &str, fields: Value| {
        item_event(kind, &format!("fc_testkit_{index}"), index, fields)
    };
    let done_a = function_call(0, "completed", "call_a", "exec_command", r#"{"cmd":"ls"}"#);
    let done_b = function_call(1, "completed", "call_b", "view_image", "{");
    // No message item: a reply that is only tool calls has none.
    assert_eq!(
        data[2..data.len() - 1].to_vec(),
        vec![
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": function_call(0, "in_progress", "call_a", "exec_command", "")}),
            arguments(
                0,
                "response.function_call_arguments.delta",
                json!({"delta": "{\"cmd\""})
            ),
            arguments(
                0,
                "response.function_call_arguments.delta",
                json!({"delta": ":\"ls\"}"})
            ),
            arguments(
                0,
                "response.function_call_arguments.done",
                json!({"name": "exec_command", "arguments": "{\"cmd\":\"ls\"}"})
            ),
            json!({"type": "response.output_item.done", "output_index": 0, "item": done_a}),
            json!({"type": "response.output_item.added", "output_index": 1,
                   "item": function_call(1, "in_progress", "call_b", "view_image", "")}),
            arguments(
                1,
                "response.function_call_arguments.delta",
                json!({"delta": "{"})
            ),
            arguments(
                1,
                "response.function_call_arguments.done",
                json!({"name": "view_image", "arguments": "{"})
            ),
            json!({"type": "response.output_item.done", "output_index": 1, "item": done_b}),
        ]
    );
    assert_eq!(
        data.last(),
        Some(
            &json!({"type": "response.completed", "response": response_object(
            "completed", json!([done_a, done_b]), Value::Null)})
        )
    );
}

#[tokio::test]
async fn a_custom_tool_call_streams_as_a_custom_tool_call_item_with_input_deltas() {
    let code = "text(1);";
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::tool_calls(vec![ScriptedToolCall::custom("call_x", "exec", code)])
            .with_chunk_size(5),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test","stream":true}"#).await;

    let data = numbered_data(&response);
    let item = |status: &str, input: &str| {
        json!({"id": "ctc_testkit_0", "type": "custom_tool_call", "status": status,
               "call_id": "call_x", "name": "exec", "input": input})
    };
    let input = |kind: &str, fields: Value| item_event(kind, "ctc_testkit_0", 0, fields);
    assert_eq!(
        data[2..].to_vec(),
        vec![
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": item("in_progress", "")}),
            input(
                "response.custom_tool_call_input.delta",
                json!({"delta": "text("})
            ),
            input(
                "response.custom_tool_call_input.delta",
                json!({"delta": "1);"})
            ),
            input(
                "response.custom_tool_call_input.done",
                json!({"input": code})
            ),
            json!({"type": "response.output_item.done", "output_index": 0,
                   "item": item("completed", code)}),
            json!({"type": "response.completed", "response": response_object(
                "completed", json!([item("completed", code)]), Value::Null)}),
        ]
    );
}

#[tokio::test]
async fn a_reply_cut_by_the_token_limit_ends_with_response_incomplete() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("trunc").with_finish_reason("length"),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"gpt-test","stream":true}"#).await;

    assert_eq!(
        numbered_data(&response).last(),
        Some(
            &json!({"type": "response.incomplete", "response": response_object(
            "incomplete", json!([message("incomplete", "trunc")]), Value::Null)})
        )
    );
}

#[tokio::test]
async fn non_streaming_request_gets_a_whole_response_object() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Hello").with_usage(7, 2),
        two_tool_calls(),
    ]))
    .unwrap();

    let text = common::post(server.addr(), PATH, r#"{"model":"gpt-test"}"#).await;
    let calls = common::post(
        server.addr(),
        PATH,
        r#"{"model":"gpt-test","stream":false}"#,
    )
    .await;

    assert_eq!(text.status, 200);
    assert_eq!(text.header("content-type"), Some("application/json"));
    assert_eq!(
        text.json(),
        response_object(
            "completed",
            json!([message("completed", "Hello")]),
            usage(7, 0, 2)
        )
    );
    assert_eq!(
        calls.json()["output"],
        json!([
            function_call(0, "completed", "call_a", "exec_command", r#"{"cmd":"ls"}"#),
            function_call(1, "completed", "call_b", "view_image", "{"),
        ])
    );
}

#[tokio::test]
async fn responses_requests_are_recorded_and_consume_the_script_in_order() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("first"),
        ScriptedResponse::text("second"),
    ]))
    .unwrap();
    let body = r#"{"model":"gpt-test","instructions":"be brief","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}],"stream":false}"#;

    let first = common::send(
        server.addr(),
        &common::post_bytes(PATH, &[("Authorization", "Bearer bench")], body),
    )
    .await;
    let second = common::post(server.addr(), "/responses", r#"{"model":"gpt-test"}"#).await;

    assert_eq!(first.json()["output"][0]["content"][0]["text"], "first");
    assert_eq!(second.json()["output"][0]["content"][0]["text"], "second");
    let requests = server.requests();
    assert_eq!(
        requests
            .iter()
            .map(|request| request.path.as_str())
            .collect::<Vec<_>>(),
        vec![PATH, "/responses"]
    );
    assert_eq!(requests[0].body, body);
    assert_eq!(requests[0].header("authorization"), Some("Bearer bench"));
    assert!(server.other_requests().is_empty());
}

#[tokio::test]
async fn usage_from_request_reports_input_tokens_from_the_request_body() {
    let response = ScriptedResponse {
        usage_from_request: true,
        ..ScriptedResponse::text("12345678")
    };
    let server = TestServer::start(Script::new(vec![response])).unwrap();
    let body = format!(
        "{{\"model\":\"gpt-test\",\"stream\":true,\"input\":\"{}\"}}",
        "x".repeat(400)
    );

    let reply = common::post(server.addr(), PATH, &body).await;

    let data = reply.sse_data();
    assert_eq!(
        data.last().unwrap()["response"]["usage"],
        usage((body.len() / 4) as u64, 0, 2)
    );
}

#[tokio::test]
async fn a_cut_stream_never_reaches_response_completed() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("abcdefgh")
            .with_chunk_size(2)
            .cut_after(2),
    ]))
    .unwrap();

    let response = common::post(server.addr(), PATH, r#"{"model":"m","stream":true}"#).await;

    assert!(!response.terminated);
    let names = response.sse_event_names();
    assert_eq!(
        names
            .iter()
            .filter(|name| *name == "response.output_text.delta")
            .count(),
        2
    );
    assert!(!names.iter().any(|name| name == "response.completed"));
}
