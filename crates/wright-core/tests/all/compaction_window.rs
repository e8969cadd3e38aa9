//! Compaction within the summary model's window: a summary request holds only the oldest
//! rounds that fit (more summaries follow for the rest), and when the summary call fails and
//! history no longer fits the window, the rounds are archived without a summary so work can go
//! on (issue 11).

use std::time::Duration;

use pretty_assertions::assert_eq;
use wright_core::compaction::ContextSettings;
use wright_core::history::HistoryManager;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig, ProviderKind};
use wright_protocol::{Event, Message, Usage};
use wright_store::{RoundStatus, UsageKind};
use wright_testkit::{Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

use crate::cost::full_summary;

/// A window of 12,000 tokens: 9,000 for a request, 3,000 kept for the reply.
const WINDOW: u64 = 12_000;

/// Twelve finished rounds of about 1,200 tokens each, the last step's usage past the
/// threshold.
fn long_rounds() -> HistoryManager {
    let mut history = HistoryManager::new(None);
    for i in 1..=12 {
        let question = format!("question {i} {}", "words ".repeat(600));
        history.open_round(&question).unwrap();
        history
            .push(Message::assistant(format!("answer {i}")))
            .unwrap();
        history.end_round(RoundStatus::Finished).unwrap();
    }
    let usage = Usage {
        prompt_tokens: 11_000,
        total_tokens: 11_000,
        ..Usage::default()
    };
    history.record_usage(usage, UsageKind::Step, "m").unwrap();
    history
}

fn agent(server: &TestServer, dir: &std::path::Path) -> Agent {
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.api_key = Some("test-key".into());
    config.retry_base_delay = Duration::from_millis(5);
    config.max_attempts = 1;
    let agent_config = AgentConfig {
        context: ContextSettings {
            context_window: WINDOW,
            retain_rounds: 1,
            ..ContextSettings::default()
        },
        ..AgentConfig::default()
    };
    Agent::new(
        LlmClient::new(config).unwrap(),
        ToolRegistry::builtin(),
        ToolContext::new(dir).unwrap(),
        agent_config,
        long_rounds(),
    )
    .unwrap()
}

fn is_summary_request(body: &str) -> bool {
    body.contains("You archive the older part of a conversation")
}

#[tokio::test]
async fn archived_rounds_too_long_for_one_summary_are_summarised_in_parts_that_fit() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(full_summary("PART-ONE")),
        ScriptedResponse::text(full_summary("PART-TWO")),
        ScriptedResponse::text("Thought: done.\nAction: Finish[ok]"),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut agent = agent(&server, dir.path());
    let outcome = agent.run_round("question 13", &mut |_| {}).await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3, "two summaries, one step");
    let (first, second) = (&requests[0].body, &requests[1].body);
    assert!(is_summary_request(first) && is_summary_request(second));
    // Each summary request fits the request share of the window (3 characters a token).
    for (body, request) in [(first, &requests[0]), (second, &requests[1])] {
        assert!(body.chars().count() / 3 <= 9_000, "{}", body.len());
        // The reply asked for fits the window with the request: the quarter kept for it.
        assert_eq!(request.json().unwrap()["max_tokens"], 3_000);
    }
    assert!(first.contains("question 1 ") && !first.contains("question 11 "));
    assert!(second.contains("question 11 "), "the rest in the second");
    assert!(!second.contains("question 1 "), "no round summarised twice");
    let summaries: Vec<&str> = agent
        .history()
        .summaries()
        .iter()
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(summaries.len(), 2);
    assert!(summaries[0].contains("PART-ONE") && summaries[1].contains("PART-TWO"));
    let step = &requests[2].body;
    assert!(step.contains("question 12 ") && !step.contains("question 11 "));
}

#[tokio::test]
async fn a_failed_summary_archives_without_one_when_history_no_longer_fits() {
    let refused = ScriptedResponse {
        status: 400,
        error_message: Some("summary model not found".into()),
        ..ScriptedResponse::default()
    };
    let server = TestServer::start(Script::new(vec![
        refused,
        ScriptedResponse::text("Thought: done.\nAction: Finish[ok]"),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut agent = agent(&server, dir.path());
    let mut finished = Vec::new();
    let outcome = agent
        .run_round("question 13", &mut |event| {
            if let Event::CompactionFinished {
                archived_rounds,
                error,
                timed_out,
                ..
            } = event
            {
                finished.push((archived_rounds, error.clone(), timed_out));
            }
        })
        .await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
    assert_eq!(finished.len(), 1, "{finished:?}");
    let (archived, error, timed_out) = &finished[0];
    assert_eq!(*archived, 11, "every round but the retained one");
    assert!(
        error
            .as_deref()
            .unwrap()
            .contains("summary model not found")
    );
    assert!(!timed_out);
    assert!(agent.history().summaries().is_empty());
    let step = &server.requests()[1].body;
    assert!(step.contains("question 12 ") && !step.contains("question 11 "));
}
