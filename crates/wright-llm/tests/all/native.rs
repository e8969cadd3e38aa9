//! Native tool calling on both providers against a real loopback server: the tools offered,
//! the calls parsed from streamed and whole replies, the history rendered as each provider
//! wants it, and requests without tools left exactly as they were.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_llm::{
    ChatMessage, ChatRequest, Completion, FinishReason, LlmClient, LlmConfig, LlmError,
    NativeToolCall, ProviderKind, StreamEvent, ToolDefinition,
};
use wright_testkit::{Script, ScriptedResponse, ScriptedToolCall, TestServer};

use crate::common::*;

const PROVIDERS: [ProviderKind; 2] = [ProviderKind::OpenAi, ProviderKind::Anthropic];

/// Arguments that are not JSON: the model forgot the closing brace.
const MALFORMED_ARGUMENTS: &str = r#"{"file_path": "src/main.rs""#;

fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: "Read".into(),
            description: "Reads a file.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"file_path": {"type": "string"}},
                "required": ["file_path"],
            }),
        },
        ToolDefinition {
            name: "Glob".into(),
            description: "Finds files by pattern.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"pattern": {"type": "string"}},
            }),
        },
    ]
}

/// Two calls whose arguments stream in fragments of three characters. The arguments are
/// compact JSON: a whole Anthropic message carries `input` as an object, so its text is the
/// object's compact rendering.
fn two_calls() -> ScriptedResponse {
    ScriptedResponse::tool_calls(vec![
        ScriptedToolCall::new("call_a", "Read", r#"{"file_path":"src/main.rs"}"#),
        ScriptedToolCall::new("call_b", "Glob", r#"{"pattern":"**/*.toml"}"#),
    ])
    .with_chunk_size(3)
}

fn expected_calls() -> Vec<NativeToolCall> {
    vec![
        NativeToolCall::new("call_a", "Read", r#"{"file_path":"src/main.rs"}"#),
        NativeToolCall::new("call_b", "Glob", r#"{"pattern":"**/*.toml"}"#),
    ]
}

/// Runs one call offering `tools`.
async fn complete_with(
    config: LlmConfig,
    request: &ChatRequest,
    tools: &[ToolDefinition],
) -> (Result<Completion, LlmError>, Vec<StreamEvent>) {
    let client = match LlmClient::new(config) {
        Ok(client) => client,
        Err(error) => return (Err(error), Vec::new()),
    };
    let mut events = Vec::new();
    let result = client
        .complete_with_tools(request, tools, &mut |event| events.push(event))
        .await;
    (result, events)
}

/// A conversation in which the model called two tools and both answered.
fn history_with_tool_calls(first_arguments: &str) -> ChatRequest {
    ChatRequest {
        system: vec!["You are terse.".into()],
        messages: vec![
            ChatMessage::user("Look around."),
            ChatMessage::assistant_tool_calls(
                "Reading both.",
                vec![
                    NativeToolCall::new("call_a", "Read", first_arguments),
                    NativeToolCall::new("call_b", "Glob", r#"{"pattern": "*"}"#),
                ],
            ),
            ChatMessage::tool_result("call_a", r#"{"status":"success"}"#),
            ChatMessage::tool_result("call_b", r#"{"status":"error"}"#),
        ],
        ..ChatRequest::default()
    }
}

/// The body the server received for the only request.
async fn sent_body(
    provider: ProviderKind,
    request: &ChatRequest,
    tools: &[ToolDefinition],
) -> Result<Value, Box<dyn std::error::Error>> {
    let server = TestServer::start(Script::new(vec![ScriptedResponse::text("ok")]))?;
    complete_with(config(provider, &server), request, tools)
        .await
        .0?;
    let requests = server.requests();
    let sent = requests.first().ok_or("the server got no request")?;
    Ok(sent.json()?)
}

#[tokio::test]
async fn openai_gets_the_tools_as_function_schemas() {
    let body = sent_body(ProviderKind::OpenAi, &request(), &tools())
        .await
        .unwrap();
    assert_eq!(
        body["tools"],
        json!([
            {"type": "function", "function": {
                "name": "Read",
                "description": "Reads a file.",
                "parameters": {
                    "type": "object",
                    "properties": {"file_path": {"type": "string"}},
                    "required": ["file_path"],
                },
            }},
            {"type": "function", "function": {
                "name": "Glob",
                "description": "Finds files by pattern.",
                "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}},
            }},
        ])
    );
}

#[tokio::test]
async fn anthropic_gets_the_tools_with_input_schemas() {
    let body = sent_body(ProviderKind::Anthropic, &request(), &tools())
        .await
        .unwrap();
    assert_eq!(
        body["tools"],
        json!([
            {
                "name": "Read",
                "description": "Reads a file.",
                "input_schema": {
                    "type": "object",
                    "properties": {"file_path": {"type": "string"}},
                    "required": ["file_path"],
                },
            },
            {
                "name": "Glob",
                "description": "Finds files by pattern.",
                "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}},
            },
        ])
    );
}

#[tokio::test]
async fn streamed_tool_calls_in_fragments_arrive_whole_on_both_providers() {
    for provider in PROVIDERS {
        let server = TestServer::start(Script::new(vec![two_calls()])).unwrap();
        let (result, events) = complete_with(config(provider, &server), &request(), &tools()).await;
        let completion = result.unwrap();
        assert_eq!(completion.tool_calls, expected_calls(), "{provider:?}");
        assert_eq!(completion.text, "", "{provider:?}");
        assert_eq!(
            completion.finish_reason,
            FinishReason::ToolCalls,
            "{provider:?}"
        );
        assert_eq!(streamed_text(&events), "", "{provider:?}");
    }
}

#[tokio::test]
async fn whole_replies_give_the_tool_calls_on_both_providers() {
    for provider in PROVIDERS {
        let server = TestServer::start(Script::new(vec![two_calls()])).unwrap();
        let mut config = config(provider, &server);
        config.stream = false;
        let (result, _) = complete_with(config, &request(), &tools()).await;
        let completion = result.unwrap();
        assert_eq!(completion.tool_calls, expected_calls(), "{provider:?}");
        assert_eq!(
            completion.finish_reason,
            FinishReason::ToolCalls,
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn text_beside_tool_calls_is_kept_and_streamed() {
    for provider in PROVIDERS {
        let reply = ScriptedResponse {
            text: "Let me look.".into(),
            ..two_calls()
        };
        let server = TestServer::start(Script::new(vec![reply])).unwrap();
        let (result, events) = complete_with(config(provider, &server), &request(), &tools()).await;
        let completion = result.unwrap();
        assert_eq!(completion.text, "Let me look.", "{provider:?}");
        assert_eq!(streamed_text(&events), "Let me look.", "{provider:?}");
        assert_eq!(completion.tool_calls, expected_calls(), "{provider:?}");
    }
}

#[tokio::test]
async fn malformed_streamed_arguments_are_returned_as_sent_not_as_an_error() {
    for provider in PROVIDERS {
        let reply = ScriptedResponse::tool_calls(vec![ScriptedToolCall::new(
            "c",
            "Read",
            MALFORMED_ARGUMENTS,
        )])
        .with_chunk_size(4);
        let server = TestServer::start(Script::new(vec![reply])).unwrap();
        let (result, _) = complete_with(config(provider, &server), &request(), &tools()).await;
        assert_eq!(
            result.unwrap().tool_calls,
            vec![NativeToolCall::new("c", "Read", MALFORMED_ARGUMENTS)],
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn a_call_without_arguments_is_an_empty_object_from_anthropic_and_as_sent_from_openai() {
    for (provider, arguments) in [(ProviderKind::Anthropic, "{}"), (ProviderKind::OpenAi, "")] {
        let reply = ScriptedResponse::tool_calls(vec![ScriptedToolCall::new("c", "Todo", "")]);
        let server = TestServer::start(Script::new(vec![reply])).unwrap();
        let (result, _) = complete_with(config(provider, &server), &request(), &tools()).await;
        assert_eq!(
            result.unwrap().tool_calls,
            vec![NativeToolCall::new("c", "Todo", arguments)],
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn a_reply_with_tool_calls_cut_by_the_output_limit_is_not_continued() {
    for provider in PROVIDERS {
        let server = TestServer::start(Script::new(vec![
            ScriptedResponse {
                text: "Reading.".into(),
                ..two_calls()
            }
            .with_finish_reason("length"),
            ScriptedResponse::text("never asked for"),
        ]))
        .unwrap();
        let (result, _) = complete_with(config(provider, &server), &request(), &tools()).await;
        let completion = result.unwrap();
        assert_eq!(
            completion.finish_reason,
            FinishReason::Length,
            "{provider:?}"
        );
        assert_eq!(completion.tool_calls, expected_calls(), "{provider:?}");
        assert_eq!(server.requests().len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn a_plain_text_reply_with_tools_offered_is_the_answer() {
    for provider in PROVIDERS {
        let server =
            TestServer::start(Script::new(vec![ScriptedResponse::text("All done.")])).unwrap();
        let (result, _) = complete_with(config(provider, &server), &request(), &tools()).await;
        let completion = result.unwrap();
        assert_eq!(completion.text, "All done.", "{provider:?}");
        assert_eq!(completion.tool_calls, Vec::new(), "{provider:?}");
        assert_eq!(completion.finish_reason, FinishReason::Stop, "{provider:?}");
    }
}

#[tokio::test]
async fn without_tools_offered_stray_tool_calls_are_ignored_as_before() {
    for provider in PROVIDERS {
        let server = TestServer::start(Script::new(vec![two_calls()])).unwrap();
        let (result, _) = complete(config(provider, &server), &request()).await;
        assert_eq!(result.unwrap().tool_calls, Vec::new(), "{provider:?}");
    }
}

#[tokio::test]
async fn openai_history_sends_tool_calls_and_tool_messages_and_malformed_arguments_as_empty() {
    let body = sent_body(
        ProviderKind::OpenAi,
        &history_with_tool_calls(MALFORMED_ARGUMENTS),
        &tools(),
    )
    .await
    .unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Look around."},
            {"role": "assistant", "content": "Reading both.", "tool_calls": [
                {"id": "call_a", "type": "function",
                 "function": {"name": "Read", "arguments": "{}"}},
                {"id": "call_b", "type": "function",
                 "function": {"name": "Glob", "arguments": "{\"pattern\": \"*\"}"}},
            ]},
            {"role": "tool", "content": "{\"status\":\"success\"}", "tool_call_id": "call_a"},
            {"role": "tool", "content": "{\"status\":\"error\"}", "tool_call_id": "call_b"},
        ])
    );
}

#[tokio::test]
async fn openai_sends_a_model_message_of_only_tool_calls_with_null_content() {
    let request = ChatRequest {
        messages: vec![
            ChatMessage::user("Look."),
            ChatMessage::assistant_tool_calls("", vec![NativeToolCall::new("c", "Read", "{}")]),
            ChatMessage::tool_result("c", "ok"),
        ],
        ..ChatRequest::default()
    };
    let body = sent_body(ProviderKind::OpenAi, &request, &tools())
        .await
        .unwrap();
    assert_eq!(
        body["messages"][1],
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "Read", "arguments": "{}"}},
        ]})
    );
}

#[tokio::test]
async fn anthropic_history_sends_tool_use_blocks_and_the_results_in_one_user_message() {
    let mut request = history_with_tool_calls(r#"{"file_path": "a.rs"}"#);
    request.messages.push(ChatMessage::user("And now?"));
    let body = sent_body(ProviderKind::Anthropic, &request, &tools())
        .await
        .unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": "Look around."},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Reading both."},
                {"type": "tool_use", "id": "call_a", "name": "Read",
                 "input": {"file_path": "a.rs"}},
                {"type": "tool_use", "id": "call_b", "name": "Glob", "input": {"pattern": "*"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_a",
                 "content": "{\"status\":\"success\"}"},
                {"type": "tool_result", "tool_use_id": "call_b",
                 "content": "{\"status\":\"error\"}"},
                {"type": "text", "text": "And now?", "cache_control": {"type": "ephemeral"}},
            ]},
        ])
    );
}

#[tokio::test]
async fn anthropic_keeps_tool_results_ahead_of_text_that_came_before_them() {
    let request = ChatRequest {
        messages: vec![
            ChatMessage::assistant_tool_calls("", vec![NativeToolCall::new("c", "Read", "{}")]),
            ChatMessage::user("(a note)"),
            ChatMessage::tool_result("c", "ok"),
        ],
        ..ChatRequest::default()
    };
    let body = sent_body(ProviderKind::Anthropic, &request, &tools())
        .await
        .unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": "(continue)"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "c", "name": "Read", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c", "content": "ok"},
                {"type": "text", "text": "(a note)", "cache_control": {"type": "ephemeral"}},
            ]},
        ])
    );
}

#[tokio::test]
async fn anthropic_sends_malformed_arguments_as_an_empty_input() {
    let body = sent_body(
        ProviderKind::Anthropic,
        &history_with_tool_calls(MALFORMED_ARGUMENTS),
        &tools(),
    )
    .await
    .unwrap();
    assert_eq!(
        body["messages"][1]["content"][1],
        json!({"type": "tool_use", "id": "call_a", "name": "Read", "input": {}})
    );
}

/// The bytes a request without tools sends: what it sent before native tool calling existed,
/// but for the cache breakpoint that ends an Anthropic conversation (issue 19).
#[tokio::test]
async fn requests_without_tools_are_byte_for_byte_what_they_were() {
    let request = ChatRequest {
        system: vec!["You are terse.".into()],
        messages: vec![
            ChatMessage::user("Say hello."),
            ChatMessage::assistant("Hello."),
            ChatMessage::user("Again."),
        ],
        stop: vec!["\nObservation:".into()],
        max_output_tokens: None,
    };
    let expected = [
        (
            ProviderKind::OpenAi,
            concat!(
                r#"{"model":"test-model","messages":[{"role":"system","content":"You are terse."},"#,
                r#"{"role":"user","content":"Say hello."},{"role":"assistant","content":"Hello."},"#,
                r#"{"role":"user","content":"Again."}],"stream":true,"#,
                r#""stream_options":{"include_usage":true},"max_tokens":8192,"#,
                r#""stop":["\nObservation:"]}"#,
            ),
        ),
        (
            ProviderKind::Anthropic,
            concat!(
                r#"{"model":"test-model","max_tokens":8192,"system":[{"type":"text","#,
                r#""text":"You are terse.","cache_control":{"type":"ephemeral"}}],"#,
                r#""messages":[{"role":"user","content":"Say hello."},"#,
                r#"{"role":"assistant","content":"Hello."},{"role":"user","content":[{"type":"text","#,
                r#""text":"Again.","cache_control":{"type":"ephemeral"}}]}],"#,
                r#""stop_sequences":["\nObservation:"],"stream":true}"#,
            ),
        ),
    ];
    for (provider, expected) in expected {
        let server = TestServer::start(Script::new(vec![
            ScriptedResponse::text("ok"),
            ScriptedResponse::text("ok"),
        ]))
        .unwrap();
        complete(config(provider, &server), &request)
            .await
            .0
            .unwrap();
        complete_with(config(provider, &server), &request, &[])
            .await
            .0
            .unwrap();
        let bodies: Vec<String> = server.requests().into_iter().map(|r| r.body).collect();
        assert_eq!(bodies, vec![expected, expected], "{provider:?}");
    }
}
