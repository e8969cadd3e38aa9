//! The reminder that a background command ended (issue 14), over loopback: the request after
//! the end carries it exactly once — with the step's observation, or with the next round's
//! input — and the requests after it repeat what came before byte for byte.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_core::history::HistoryManager;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig, ProviderKind};
use wright_protocol::{JobStatus, Role};
use wright_testkit::{RecordedRequest, Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

const FINISH: &str = "Thought: done.\nAction: Finish[done]";
const TAG: &str = "<background-jobs>";

fn action(tool: &str, args: Value) -> String {
    format!("Thought: next.\nAction: {tool}[{args}]")
}

fn agent(dir: &Path, server: &TestServer) -> Agent {
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.api_key = Some("test-key".into());
    config.retry_base_delay = Duration::from_millis(5);
    Agent::new(
        LlmClient::new(config).unwrap(),
        ToolRegistry::builtin(),
        ToolContext::new(dir).unwrap(),
        AgentConfig::default(),
        HistoryManager::new(None),
    )
    .unwrap()
}

async fn round(agent: &mut Agent, input: &str) {
    let outcome = agent.run_round(input, &mut |_| {}).await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
}

/// A request's messages (the system prompt first), as (role, content) pairs.
fn parts(request: &RecordedRequest) -> Vec<(String, String)> {
    let body = request.json().unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Asserts that `later` starts with every message of `earlier`, byte for byte.
fn assert_same_prefix(earlier: &RecordedRequest, later: &RecordedRequest) {
    let before = parts(earlier);
    let after = parts(later);
    assert!(after.len() > before.len());
    assert_eq!(&after[..before.len()], before.as_slice());
}

/// How often `text` occurs in the request's messages.
fn count_of(request: &RecordedRequest, text: &str) -> usize {
    parts(request)
        .iter()
        .map(|(_, content)| content.matches(text).count())
        .sum()
}

fn waited_for(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "{what} never happened");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[tokio::test]
async fn a_job_that_ends_during_a_step_is_told_with_its_observation_once() {
    let dir = tempfile::tempdir().unwrap();
    let job = "until [ -e go ]; do sleep 0.01; done; echo bg-line; touch ended; exit 3";
    let server = TestServer::start(Script::new(
        [
            action("Bash", json!({"command": job, "run_in_background": true})),
            action(
                "Bash",
                json!({"command": "touch go; until [ -e ended ]; do sleep 0.01; done; sleep 0.5"}),
            ),
            action("Bash", json!({"command": "true"})),
            FINISH.to_string(),
            FINISH.to_string(),
        ]
        .iter()
        .map(ScriptedResponse::text)
        .collect(),
    ))
    .unwrap();
    let mut agent = agent(dir.path(), &server);
    round(&mut agent, "start it").await;
    round(&mut agent, "and now").await;

    let requests = server.requests();
    assert_eq!(requests.len(), 5);
    // Request 2 follows the step during which the job ended: its last observation says so.
    let reminder = format!(
        "{TAG}\nBackground job b1 has exited (exit code 3): `{job}`. Its last lines:\nbg-line\n\
         </background-jobs>"
    );
    let messages = parts(&requests[2]);
    let observation = &messages.last().unwrap().1;
    assert!(observation.starts_with("Observation: "), "{observation}");
    assert!(observation.ends_with(&reminder), "{observation}");
    assert_eq!(count_of(&requests[1], TAG), 0);
    assert_eq!(count_of(&requests[2], TAG), 1);
    // The next step's request repeats it as it was, and only once.
    assert_same_prefix(&requests[2], &requests[3]);
    assert_eq!(count_of(&requests[3], TAG), 1);
    // History keeps it with the step, shortened: later rounds see it in the step's result.
    let stored: Vec<Value> = agent
        .history()
        .all_messages()
        .iter()
        .filter(|m| m.message.role == Role::Tool)
        .map(|m| serde_json::from_str(&m.message.content).unwrap())
        .collect();
    assert_eq!(
        stored[1]["jobs_ended"],
        json!([{"id": "b1", "command": job, "status": "exited", "exit_code": 3, "last_lines": "bg-line"}])
    );
    assert_eq!(stored[2].get("jobs_ended"), None);
    let next_round = parts(&requests[4]);
    let told: Vec<&(String, String)> = next_round
        .iter()
        .filter(|(_, content)| content.contains("\"jobs_ended\""))
        .collect();
    assert_eq!(told.len(), 1, "{next_round:?}");
}

#[tokio::test]
async fn a_job_that_ends_between_rounds_is_told_with_the_next_input_once() {
    let dir = tempfile::tempdir().unwrap();
    let job = "touch started; until [ -e go ]; do sleep 0.01; done; echo finished-line; exit 4";
    let server = TestServer::start(Script::new(
        [
            action("Bash", json!({"command": job, "run_in_background": true})),
            FINISH.to_string(),
            action("Bash", json!({"command": "true"})),
            FINISH.to_string(),
            FINISH.to_string(),
        ]
        .iter()
        .map(ScriptedResponse::text)
        .collect(),
    ))
    .unwrap();
    let mut agent = agent(dir.path(), &server);
    round(&mut agent, "start it").await;
    waited_for("the job's start", || dir.path().join("started").exists());
    assert_eq!(agent.jobs()[0].status, JobStatus::Running);
    std::fs::write(dir.path().join("go"), "").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while agent.jobs()[0].status == JobStatus::Running {
        assert!(Instant::now() < deadline, "the job never ended");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    round(&mut agent, "next").await;
    round(&mut agent, "again").await;

    let requests = server.requests();
    assert_eq!(requests.len(), 5);
    let input = format!(
        "next\n\n{TAG}\nBackground job b1 has exited (exit code 4): `{job}`. Its last lines:\n\
         finished-line\n</background-jobs>"
    );
    let messages = parts(&requests[2]);
    assert_eq!(
        messages.last().unwrap(),
        &("user".to_string(), input.clone())
    );
    assert_eq!(count_of(&requests[2], TAG), 1);
    assert_same_prefix(&requests[2], &requests[3]);
    assert_eq!(count_of(&requests[3], TAG), 1);
    // The next round has it in history, as the round's input was stored.
    let later = parts(&requests[4]);
    assert_eq!(
        later
            .iter()
            .filter(|(_, content)| *content == input)
            .count(),
        1
    );
    assert_eq!(count_of(&requests[4], TAG), 1);
}
