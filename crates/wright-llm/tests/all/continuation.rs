//! Replies cut by the output-token limit are continued, against a real loopback server.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_llm::{FinishReason, MAX_CONTINUATIONS, ProviderKind, StreamEvent};
use wright_protocol::Usage;
use wright_testkit::{Script, ScriptedResponse, TestServer};

use crate::common::*;

fn cut(text: &str, prompt_tokens: u64, completion_tokens: u64) -> ScriptedResponse {
    ScriptedResponse::text(text)
        .with_usage(prompt_tokens, completion_tokens)
        .with_finish_reason("length")
}

fn continuation_events(events: &[StreamEvent]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Continuation { attempt } => Some(*attempt),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_openai_reply_cut_twice_is_joined_from_three_pieces() {
    let server = TestServer::start(Script::new(vec![
        cut("The first piece, ", 100, 10),
        cut("the second piece, ", 120, 10),
        ScriptedResponse::text("and the end.").with_usage(140, 4),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    let completion = result.unwrap();
    assert_eq!(
        completion.text,
        "The first piece, the second piece, and the end."
    );
    assert_eq!(completion.finish_reason, FinishReason::Stop);
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 360,
            completion_tokens: 24,
            total_tokens: 384,
            cached_prompt_tokens: None,
            cache_creation_tokens: None,
        })
    );
    // The context held at the end is the last call's; the sum is what was billed.
    let prompts: Vec<u64> = completion.calls.iter().map(|u| u.prompt_tokens).collect();
    assert_eq!(prompts, [100, 120, 140]);
    assert_eq!(completion.calls.last().unwrap().total_tokens, 144);
    assert_eq!(continuation_events(&events), vec![1, 2]);
    assert_eq!(streamed_text(&events), completion.text);

    let messages: Vec<Value> = server
        .requests()
        .iter()
        .map(|request| request.json().unwrap()["messages"].clone())
        .collect();
    let start = json!([
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Say hello."},
    ]);
    let with = |partial: &str| {
        let mut messages = start.as_array().unwrap().clone();
        messages.push(json!({"role": "assistant", "content": partial}));
        messages.push(json!({"role": "user", "content": CONTINUE_PROMPT}));
        Value::Array(messages)
    };
    assert_eq!(
        messages,
        vec![
            start.clone(),
            with("The first piece, "),
            with("The first piece, the second piece, "),
        ]
    );
}

#[tokio::test]
async fn an_anthropic_reply_cut_once_is_joined_from_two_pieces() {
    let server = TestServer::start(Script::new(vec![
        cut("The first piece, ", 100, 10).with_cached_tokens(50),
        ScriptedResponse::text("and the end.")
            .with_usage(120, 4)
            .with_cached_tokens(50),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::Anthropic, &server), &request()).await;
    let completion = result.unwrap();
    assert_eq!(completion.text, "The first piece, and the end.");
    assert_eq!(completion.finish_reason, FinishReason::Stop);
    assert_eq!(
        completion.usage,
        Some(Usage {
            prompt_tokens: 320,
            completion_tokens: 14,
            total_tokens: 334,
            cached_prompt_tokens: Some(100),
            cache_creation_tokens: None,
        })
    );
    assert_eq!(continuation_events(&events), vec![1]);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].json().unwrap()["messages"],
        json!([
            {"role": "user", "content": "Say hello."},
            {"role": "assistant", "content": "The first piece, "},
            {"role": "user", "content": [
                {"type": "text", "text": CONTINUE_PROMPT, "cache_control": {"type": "ephemeral"}},
            ]},
        ])
    );
}

#[tokio::test]
async fn a_reply_still_cut_after_the_last_continuation_ends_with_length() {
    let pieces = (0..=MAX_CONTINUATIONS)
        .map(|_| cut("more ", 1, 1))
        .collect();
    let server = TestServer::start(Script::new(pieces)).unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    let completion = result.unwrap();
    assert_eq!(completion.finish_reason, FinishReason::Length);
    assert_eq!(
        completion.text,
        "more ".repeat(MAX_CONTINUATIONS as usize + 1)
    );
    assert_eq!(
        continuation_events(&events),
        (1..=MAX_CONTINUATIONS).collect::<Vec<_>>()
    );
    assert_eq!(server.requests().len(), MAX_CONTINUATIONS as usize + 1);
}

#[tokio::test]
async fn a_retry_during_a_continuation_streams_the_earlier_pieces_again() {
    let server = TestServer::start(Script::new(vec![
        cut("The first piece, ", 1, 1),
        ScriptedResponse::status(503, "overloaded"),
        ScriptedResponse::text("and the end."),
    ]))
    .unwrap();
    let (result, events) = complete(config(ProviderKind::OpenAi, &server), &request()).await;
    assert_eq!(result.unwrap().text, "The first piece, and the end.");
    let retry_at = events
        .iter()
        .position(|event| matches!(event, StreamEvent::Retry { .. }))
        .unwrap();
    assert_eq!(
        streamed_text(&events[retry_at..]),
        "The first piece, and the end."
    );
    let requests = server.requests();
    assert_eq!(requests[2].body, requests[1].body);
}
