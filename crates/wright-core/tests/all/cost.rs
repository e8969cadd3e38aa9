//! Usage accounting end to end: a compaction's summary call is recorded as a summary, and the
//! compaction trigger keeps reading the last step's usage.

use std::collections::HashMap;
use std::time::Duration;

use pretty_assertions::assert_eq;
use wright_core::cost::{KindCost, Price, session_cost};
use wright_core::history::HistoryManager;
use wright_core::summarize::{SECTIONS, TITLE};
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig, ProviderKind};
use wright_protocol::{Message, Usage};
use wright_store::{Record, RoundStatus, UsageKind};
use wright_testkit::{Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

fn usage(prompt: u64, completion: u64) -> Usage {
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        ..Usage::default()
    }
}

/// A summary with every section of the A5 template, `gist` before the first.
pub fn full_summary(gist: &str) -> String {
    let mut text = format!("{TITLE}\n{gist}");
    for (heading, _) in SECTIONS {
        text.push_str(&format!("\n\n{heading}\n* None"));
    }
    text
}

/// Twelve finished rounds, the last step's usage past the compaction threshold.
pub fn long_history() -> HistoryManager {
    let mut history = HistoryManager::new(None);
    for i in 1..=12 {
        history.open_round(&format!("question {i}")).unwrap();
        history
            .push(Message::assistant(format!("answer {i}")))
            .unwrap();
        history.end_round(RoundStatus::Finished).unwrap();
    }
    history
        .record_usage(usage(170_000, 0), UsageKind::Step, "m")
        .unwrap();
    history
}

#[tokio::test]
async fn the_summary_call_is_recorded_as_a_summary_and_is_not_the_last_usage() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(full_summary("the gist")).with_usage(2_000, 500),
        ScriptedResponse::text("Thought: done.\nAction: Finish[ok]").with_usage(1_000, 100),
    ]))
    .unwrap();
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.api_key = Some("test-key".into());
    config.retry_base_delay = Duration::from_millis(5);
    let dir = tempfile::tempdir().unwrap();
    let mut agent = Agent::new(
        LlmClient::new(config).unwrap(),
        ToolRegistry::builtin(),
        ToolContext::new(dir.path()).unwrap(),
        AgentConfig::default(),
        long_history(),
    )
    .unwrap();

    let outcome = agent.run_round("question 13", &mut |_| {}).await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
    assert_eq!(server.requests().len(), 2, "one summary call, one step");

    let recorded: Vec<(UsageKind, Option<String>, Usage)> = agent
        .history()
        .usage_records()
        .iter()
        .filter_map(|record| match record {
            Record::Usage {
                usage, kind, model, ..
            } => Some((*kind, model.clone(), *usage)),
            _ => None,
        })
        .collect();
    assert_eq!(
        recorded,
        vec![
            (UsageKind::Step, Some("m".into()), usage(170_000, 0)),
            (UsageKind::Summary, Some("m".into()), usage(2_000, 500)),
            (UsageKind::Step, Some("m".into()), usage(1_000, 100)),
        ]
    );
    assert_eq!(agent.history().last_usage(), Some(&usage(1_000, 100)));

    let prices = HashMap::from([(
        "m".to_string(),
        Price {
            input: 1.0,
            output: 2.0,
            cached_input: None,
            cache_write: None,
        },
    )]);
    let report = session_cost(agent.history().usage_records(), "m", &prices);
    assert_eq!(
        report.summaries,
        KindCost {
            calls: 1,
            usage: usage(2_000, 500),
            cost_usd: Some(0.003),
        }
    );
}

/// A6/C7: a reply continued after the output limit triggers compaction by its last call's
/// usage (the context it held), while cost counts every call.
#[tokio::test]
async fn a_continued_reply_leaves_the_last_calls_usage_for_the_trigger() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Thought: a long answer ")
            .with_finish_reason("length")
            .with_usage(90_000, 8_192),
        ScriptedResponse::text("follows.\nAction: Finish[ok]").with_usage(98_192, 100),
    ]))
    .unwrap();
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.api_key = Some("test-key".into());
    config.retry_base_delay = Duration::from_millis(5);
    let dir = tempfile::tempdir().unwrap();
    let mut agent = Agent::new(
        LlmClient::new(config).unwrap(),
        ToolRegistry::builtin(),
        ToolContext::new(dir.path()).unwrap(),
        AgentConfig::default(),
        HistoryManager::new(None),
    )
    .unwrap();

    let outcome = agent.run_round("question", &mut |_| {}).await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
    assert_eq!(server.requests().len(), 2, "the reply was continued once");
    assert_eq!(agent.history().last_usage(), Some(&usage(98_192, 100)));
    let prices = HashMap::from([(
        "m".to_string(),
        Price {
            input: 1.0,
            output: 2.0,
            cached_input: None,
            cache_write: None,
        },
    )]);
    let report = session_cost(agent.history().usage_records(), "m", &prices);
    assert_eq!(report.steps.calls, 2);
    assert_eq!(report.steps.usage, usage(188_192, 8_292));
}

/// Spec A5: a summary that leaves out sections of the template is asked for once more with the
/// missing ones named; what is still missing is filled with `None`, so the stored summary
/// always holds the template. Both calls are billed as summaries.
#[tokio::test]
async fn a_summary_missing_sections_is_asked_again_and_filled_with_none() {
    let first = format!("{TITLE}\nthe gist\n\n{}\n* login works", SECTIONS[0].0);
    let second = format!("{first}\n\n{}\n* Rust", SECTIONS[1].0);
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text(first).with_usage(2_000, 100),
        ScriptedResponse::text(second).with_usage(2_100, 150),
        ScriptedResponse::text("Thought: done.\nAction: Finish[ok]").with_usage(1_000, 100),
    ]))
    .unwrap();
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.api_key = Some("test-key".into());
    let dir = tempfile::tempdir().unwrap();
    let mut agent = Agent::new(
        LlmClient::new(config).unwrap(),
        ToolRegistry::builtin(),
        ToolContext::new(dir.path()).unwrap(),
        AgentConfig::default(),
        long_history(),
    )
    .unwrap();

    let outcome = agent.run_round("question 13", &mut |_| {}).await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "two summary calls, one step");
    let again = requests[1].json().unwrap();
    let asked = again["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    for (heading, _) in &SECTIONS[1..] {
        assert!(asked.contains(heading), "{heading} named in: {asked}");
    }
    assert!(!asked.contains(SECTIONS[0].0), "{asked}");

    let stored = &agent.history().summaries()[0].text;
    assert_eq!(
        wright_core::summarize::missing_sections(stored),
        Vec::<&str>::new()
    );
    assert!(
        stored.contains("* login works") && stored.contains("* Rust"),
        "{stored}"
    );
    for (heading, _) in &SECTIONS[2..] {
        assert!(stored.contains(&format!("{heading}\nNone")), "{stored}");
    }
    let summaries: Vec<Usage> = agent
        .history()
        .usage_records()
        .iter()
        .filter_map(|record| match record {
            Record::Usage {
                usage,
                kind: UsageKind::Summary,
                ..
            } => Some(*usage),
            _ => None,
        })
        .collect();
    assert_eq!(summaries, vec![usage(4_100, 250)]);
}
