//! Requests fitted to the window over loopback: each asks for a reply no longer than the
//! window leaves. A server whose window is smaller than the configured one, or that counts
//! the prompt higher than wright's estimate, refuses a request; its refusal is recognised
//! (also behind a stream cut before any event), the request is fitted again to what it
//! names and sent once more, and a second refusal ends the round once.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_core::context::estimate_request;
use wright_core::history::HistoryManager;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{ChatMessage, ChatRequest, LlmClient, LlmConfig, ProviderKind};
use wright_protocol::{Event, FailureCode};
use wright_testkit::{RecordedRequest, Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

const FINISH: &str = "Thought: done.\nAction: Finish[done]";

/// llama.cpp's answer to a request longer than its window of `n_ctx` tokens, without the
/// prompt's count (so only the window can be learnt from it).
fn llama_cpp_overflow(n_ctx: u64) -> ScriptedResponse {
    ScriptedResponse::status(400, "").with_body(
        json!({"error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_ctx": n_ctx,
        }})
        .to_string(),
    )
}

/// vLLM's answer to a request whose prompt (`prompt` tokens by its count) and reply limit
/// (`completion`) add up to more than its window.
fn vllm_overflow(window: u64, prompt: u64, completion: u64) -> ScriptedResponse {
    let message = format!(
        "This model's maximum context length is {window} tokens. However, you requested {} \
         tokens ({prompt} in the messages, {completion} in the completion). Please reduce the \
         length of the messages or completion.",
        prompt + completion
    );
    ScriptedResponse::status(400, "").with_body(
        json!({"object": "error", "message": message, "type": "BadRequestError", "param": null, "code": 400})
            .to_string(),
    )
}

/// A refusal as llama.cpp gives it to a streamed request: the stream is cut before any
/// event, and only the plain request wright sends next gets the error.
fn refusal(n_ctx: u64) -> [ScriptedResponse; 2] {
    [
        ScriptedResponse::cut_before_events(),
        llama_cpp_overflow(n_ctx),
    ]
}

struct Ran {
    outcome: RoundOutcome,
    events: Vec<Event>,
    server: TestServer,
    agent: Agent,
}

/// Runs one round in a project holding `big.txt` (1,500 lines, 30,000 characters) against `script`.
async fn run(script: Vec<ScriptedResponse>) -> Ran {
    run_with(script, AgentConfig::default(), ToolRegistry::builtin()).await
}

/// [`run`] with `context_window` configured and the default `max_output_tokens` (8,192).
async fn run_in_window(script: Vec<ScriptedResponse>, context_window: u64) -> Ran {
    let mut config = AgentConfig::default();
    config.context.context_window = context_window;
    run_with(script, config, ToolRegistry::builtin()).await
}

/// [`run_in_window`] with the Read tool alone: the descriptions of every built-in tool would
/// not leave a window of 4,096 tokens room for a request.
async fn run_in_small_window(script: Vec<ScriptedResponse>, context_window: u64) -> Ran {
    let mut config = AgentConfig::default();
    config.context.context_window = context_window;
    let mut tools = ToolRegistry::builtin();
    tools.retain(|tool| tool.name() == "Read");
    run_with(script, config, tools).await
}

async fn run_with(
    script: Vec<ScriptedResponse>,
    agent_config: AgentConfig,
    tools: ToolRegistry,
) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let line = format!("{}\n", "x".repeat(19));
    std::fs::write(dir.path().join("big.txt"), line.repeat(1500)).unwrap();
    let server = TestServer::start(Script::new(script)).unwrap();
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.retry_base_delay = Duration::from_millis(5);
    let llm = LlmClient::new(config).unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let mut agent = Agent::new(llm, tools, ctx, agent_config, HistoryManager::new(None)).unwrap();
    let mut events = Vec::new();
    let outcome = agent
        .run_round("read big.txt", &mut |event| events.push(event))
        .await;
    Ran {
        outcome,
        events,
        server,
        agent,
    }
}

/// The reply limit a recorded request asked for (`max_tokens`), and wright's estimate of its
/// prompt (before calibration, which a fresh session does not have).
fn reply_limit_and_prompt(request: &RecordedRequest) -> (u64, u64) {
    let body = request.json().unwrap();
    let mut chat = ChatRequest::default();
    for message in body["messages"].as_array().unwrap() {
        let content = message["content"].as_str().unwrap().to_string();
        match message["role"].as_str().unwrap() {
            "system" => chat.system.push(content),
            "assistant" => chat.messages.push(ChatMessage::assistant(content)),
            _ => chat.messages.push(ChatMessage::user(content)),
        }
    }
    (
        body["max_tokens"].as_u64().unwrap(),
        estimate_request(&chat),
    )
}

fn read_big_file() -> ScriptedResponse {
    ScriptedResponse::text(format!(
        "Thought: read it.\nAction: Read[{}]",
        json!({"file_path": "big.txt"})
    ))
}

#[tokio::test]
async fn a_refusal_naming_a_smaller_window_refits_the_request_and_sends_it_once_more() {
    let [cut, overflow] = refusal(16_384);
    let ran = run(vec![
        read_big_file(),
        cut,
        overflow,
        ScriptedResponse::text(FINISH),
    ])
    .await;

    assert!(
        matches!(ran.outcome, RoundOutcome::Finished { .. }),
        "{:?}",
        ran.outcome
    );
    let requests = ran.server.requests();
    assert_eq!(requests.len(), 4);
    // The refused step went out streamed, then plainly; the refitted one streamed again.
    let streamed: Vec<bool> = requests
        .iter()
        .map(|request| request.json().unwrap()["stream"] == json!(true))
        .collect();
    assert_eq!(streamed, vec![true, true, false, true]);
    assert!(
        requests[3].body.len() < requests[1].body.len(),
        "refitted {} bytes, refused {} bytes",
        requests[3].body.len(),
        requests[1].body.len()
    );
    assert_eq!(ran.agent.context_settings().context_window, 16_384);
    assert!(ran.events.iter().any(|event| matches!(
        event,
        Event::Warning { message } if message.contains("16384 tokens")
    )));
}

#[tokio::test]
async fn a_second_refusal_ends_the_round_once_naming_the_window_and_the_setting() {
    let [cut, overflow] = refusal(16_384);
    let [cut_again, overflow_again] = refusal(16_384);
    let ran = run(vec![
        read_big_file(),
        cut,
        overflow,
        cut_again,
        overflow_again,
        ScriptedResponse::text(FINISH),
    ])
    .await;

    let RoundOutcome::Failed { code, message } = &ran.outcome else {
        panic!("expected a failure, got {:?}", ran.outcome);
    };
    assert_eq!(*code, FailureCode::ContextOverflow);
    assert!(
        message.contains("context window of 16384 tokens"),
        "{message}"
    );
    assert!(message.contains("`context_window`"), "{message}");
    assert!(
        !message.contains("Check that the server is up"),
        "{message}"
    );
    // One step, the refused request twice (streamed, then plainly), and nothing more.
    assert_eq!(ran.server.requests().len(), 5);
}

#[tokio::test]
async fn a_refusal_that_refitting_cannot_help_ends_the_round_at_once() {
    // The refusal names the configured window and not the prompt's count: nothing is learnt,
    // the request would be the same, so it is not sent again.
    let [cut, overflow] = refusal(4096);
    let ran = run_in_small_window(vec![cut, overflow, ScriptedResponse::text(FINISH)], 4096).await;

    let RoundOutcome::Failed { code, message } = &ran.outcome else {
        panic!("expected a failure, got {:?}", ran.outcome);
    };
    assert_eq!(*code, FailureCode::ContextOverflow);
    assert!(message.contains("4096"), "{message}");
    assert!(message.contains("`context_window`"), "{message}");
    assert_eq!(ran.server.requests().len(), 2);
}

#[tokio::test]
async fn a_request_to_a_small_window_asks_for_a_reply_that_fits_it() {
    let ran = run_in_small_window(vec![ScriptedResponse::text(FINISH)], 4096).await;

    assert!(
        matches!(ran.outcome, RoundOutcome::Finished { .. }),
        "{:?}",
        ran.outcome
    );
    let requests = ran.server.requests();
    assert_eq!(requests.len(), 1);
    let (max_tokens, prompt) = reply_limit_and_prompt(&requests[0]);
    assert!(max_tokens < 8192, "{max_tokens}");
    assert!(
        prompt + max_tokens <= 4096,
        "prompt {prompt} + reply {max_tokens}"
    );
}

/// A server's count of the first request's prompt that is higher than wright's estimate of
/// it (whatever the tools' descriptions weigh).
fn counted_higher_than_estimated() -> u64 {
    let request = ChatRequest {
        system: vec![wright_core::prompt::system_prompt(&ToolRegistry::builtin())],
        messages: vec![ChatMessage::user("read big.txt")],
        ..ChatRequest::default()
    };
    estimate_request(&request) + 500
}

#[tokio::test]
async fn a_refusal_counting_a_longer_prompt_is_sent_once_more_with_a_shorter_reply() {
    let counted = counted_higher_than_estimated();
    let ran = run_in_window(
        vec![
            vllm_overflow(8192, counted, 5000),
            ScriptedResponse::text(FINISH),
        ],
        8192,
    )
    .await;

    assert!(
        matches!(ran.outcome, RoundOutcome::Finished { .. }),
        "{:?}",
        ran.outcome
    );
    let requests = ran.server.requests();
    assert_eq!(requests.len(), 2);
    let (refused, _) = reply_limit_and_prompt(&requests[0]);
    let (retried, _) = reply_limit_and_prompt(&requests[1]);
    assert!(retried < refused, "retried {retried}, refused {refused}");
    // By the server's count of the (unchanged) prompt, the retry fits.
    assert!(counted + retried <= 8192, "{retried}");
    assert_eq!(ran.agent.context_settings().context_window, 8192);
}

#[tokio::test]
async fn a_second_refusal_counting_the_reply_ends_the_round_naming_max_output_tokens() {
    let counted = counted_higher_than_estimated();
    let ran = run_in_window(
        vec![
            vllm_overflow(8192, counted, 5000),
            vllm_overflow(8192, counted, 8192 - counted),
            ScriptedResponse::text(FINISH),
        ],
        8192,
    )
    .await;

    let RoundOutcome::Failed { code, message } = &ran.outcome else {
        panic!("expected a failure, got {:?}", ran.outcome);
    };
    assert_eq!(*code, FailureCode::ContextOverflow);
    assert!(message.contains("`max_output_tokens`"), "{message}");
    assert!(message.contains("`context_window`"), "{message}");
    assert_eq!(ran.server.requests().len(), 2, "one retry, no more");
}
