//! Plan mode end to end: an Agent against the scripted provider, switched in and out of plan
//! mode between rounds.

use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use wright_core::approval::ApprovalMode;
use wright_core::history::HistoryManager;
use wright_core::plan::PLAN_MODE_PROMPT;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig, ProviderKind};
use wright_protocol::{ErrorCode, Event};
use wright_testkit::{Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

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
    .with_environment("# Environment\nplatform: test")
    .with_instructions(Some("You are careful."))
}

fn serve(replies: &[&str]) -> TestServer {
    TestServer::start(Script::new(
        replies
            .iter()
            .copied()
            .map(ScriptedResponse::text)
            .collect(),
    ))
    .unwrap()
}

/// The system message (L1; nothing else here has system authority) of each request.
fn systems(server: &TestServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|request| {
            let body = request.json().unwrap();
            assert_eq!(body["messages"][0]["role"], "system");
            body["messages"][0]["content"].as_str().unwrap().to_string()
        })
        .collect()
}

const FINISH: &str = "Thought: done.\nAction: Finish[done]";

#[tokio::test]
async fn in_plan_mode_the_request_offers_only_the_tools_that_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&[
        "Thought: write it.\nAction: Write[{\"file_path\": \"a.txt\", \"content\": \"x\"}]",
        "Thought: planned.\nAction: Finish[1. Create a.txt]",
    ]);
    let mut agent = agent(dir.path(), &server);
    agent.set_plan_mode(true);
    assert!(agent.is_planning());
    let mut events = Vec::new();
    let outcome = agent
        .run_round("plan a.txt", &mut |event| events.push(event))
        .await;

    assert!(
        matches!(&outcome, RoundOutcome::Finished { answer, .. } if answer == "1. Create a.txt"),
        "{outcome:?}"
    );
    let system = &systems(&server)[0];
    let headings: Vec<&str> = system
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .collect();
    assert_eq!(
        headings,
        [
            "Read",
            "LS",
            "Glob",
            "Grep",
            "Definitions",
            "RepoMap",
            "TodoWrite",
            "Bash",
            "BashOutput",
            "KillBash"
        ]
    );
    assert!(
        system.ends_with(&format!(
            "platform: test\n\nYou are careful.\n\n{}",
            PLAN_MODE_PROMPT.trim_end()
        )),
        "{system}"
    );
    // The Write the model tried anyway is refused, and nothing is written.
    assert!(!dir.path().join("a.txt").exists());
    let refused = events.iter().find_map(|event| match event {
        Event::ToolResult { tool, error, .. } if tool == "Write" => error.clone(),
        _ => None,
    });
    let refused = refused.unwrap();
    assert_eq!(refused.code, ErrorCode::Refused);
    assert!(
        refused
            .message
            .starts_with("`Write` is not available in plan mode"),
        "{}",
        refused.message
    );
}

#[tokio::test]
async fn each_mode_keeps_one_l1_and_switching_back_restores_it_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&[FINISH, FINISH, FINISH, FINISH]);
    let mut agent = agent(dir.path(), &server);
    let normal = agent.system_prompt().to_string();
    for plan in [false, true, true, false] {
        agent.set_plan_mode(plan);
        agent.run_round("go", &mut |_| {}).await;
    }
    let systems = systems(&server);
    assert_eq!(systems[0], normal);
    assert_ne!(systems[1], normal);
    assert_eq!(
        systems[2], systems[1],
        "one L1 for every round in plan mode"
    );
    assert_eq!(systems[3], normal, "switching back restores the normal L1");
    assert!(normal.contains("## Write\n") && normal.contains("## MultiEdit\n"));
    assert!(!normal.contains(PLAN_MODE_PROMPT.trim_end()));
}

#[tokio::test]
async fn out_of_plan_mode_the_file_changes_of_the_plan_are_carried_out() {
    let dir = tempfile::tempdir().unwrap();
    let write = "Thought: write it.\nAction: Write[{\"file_path\": \"a.txt\", \"content\": \"x\"}]";
    let server = serve(&[write, "Action: Finish[planned]", write, FINISH]);
    let mut agent = agent(dir.path(), &server);
    agent.set_plan_mode(true);
    agent.run_round("plan a.txt", &mut |_| {}).await;
    assert!(!dir.path().join("a.txt").exists());

    agent.set_plan_mode(false);
    agent.set_approval_mode(ApprovalMode::AutoEdit);
    assert_eq!(agent.approval_mode(), ApprovalMode::AutoEdit);
    let outcome = agent
        .run_round(wright_core::plan::CARRY_OUT_THE_PLAN, &mut |_| {})
        .await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "x"
    );
}
