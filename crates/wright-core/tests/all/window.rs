//! A server whose window is smaller than the configured one, over loopback: its refusal is
//! recognised (also behind a stream cut before any event), the request is fitted to the
//! window it names and sent once more, and a second refusal ends the round once.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_core::history::HistoryManager;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig, ProviderKind};
use wright_protocol::{Event, FailureCode};
use wright_testkit::{Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

const FINISH: &str = "Thought: done.\nAction: Finish[done]";

/// llama.cpp's answer to a request longer than its window of `n_ctx` tokens.
fn llama_cpp_overflow(n_ctx: u64) -> ScriptedResponse {
    ScriptedResponse::status(400, "").with_body(
        json!({"error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 30000,
            "n_ctx": n_ctx,
        }})
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
    let dir = tempfile::tempdir().unwrap();
    let line = format!("{}\n", "x".repeat(19));
    std::fs::write(dir.path().join("big.txt"), line.repeat(1500)).unwrap();
    let server = TestServer::start(Script::new(script)).unwrap();
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.retry_base_delay = Duration::from_millis(5);
    let llm = LlmClient::new(config).unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let mut agent = Agent::new(
        llm,
        ToolRegistry::builtin(),
        ctx,
        AgentConfig::default(),
        HistoryManager::new(None),
    )
    .unwrap();
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
    // The first request is already as small as it gets: fitting it to 4096 tokens changes
    // nothing, so it is not sent again.
    let [cut, overflow] = refusal(4096);
    let ran = run(vec![cut, overflow, ScriptedResponse::text(FINISH)]).await;

    let RoundOutcome::Failed { code, message } = &ran.outcome else {
        panic!("expected a failure, got {:?}", ran.outcome);
    };
    assert_eq!(*code, FailureCode::ContextOverflow);
    assert!(message.contains("4096"), "{message}");
    assert!(message.contains("`context_window`"), "{message}");
    assert_eq!(ran.server.requests().len(), 2);
}
