//! RepoMap in a round: the files the user's input mentions lean the map, and a new round
//! forgets the files of the round before.

use std::time::Duration;

use wright_core::history::HistoryManager;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig, ProviderKind};
use wright_testkit::{Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

#[tokio::test]
async fn the_files_the_input_mentions_lean_the_map_of_that_round() {
    let server = TestServer::start(Script::new(vec![
        ScriptedResponse::text("Thought: orient.\nAction: RepoMap[{}]"),
        ScriptedResponse::text("Thought: done.\nAction: Finish[ok]"),
        ScriptedResponse::text("Thought: orient.\nAction: RepoMap[{}]"),
        ScriptedResponse::text("Thought: done.\nAction: Finish[ok]"),
    ]))
    .unwrap();
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.api_key = Some("test-key".into());
    config.retry_base_delay = Duration::from_millis(5);
    let dir = tempfile::tempdir().unwrap();
    let put = |path: &str, text: &str| {
        let abs = dir.path().join(path);
        std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::fs::write(abs, text).unwrap();
    };
    put("src/core.rs", "pub fn widely_used() {}\n");
    for name in ["a", "b", "c"] {
        put(&format!("src/{name}.rs"), "fn f() { widely_used(); }\n");
    }
    put("src/special.rs", "pub fn special_helper() {}\n");
    put("src/x.rs", "fn x() { special_helper(); }\n");
    let ctx = ToolContext::new(dir.path()).unwrap();
    let mut agent = Agent::new(
        LlmClient::new(config).unwrap(),
        ToolRegistry::builtin(),
        ctx.clone(),
        AgentConfig::default(),
        HistoryManager::new(None),
    )
    .unwrap();

    let outcome = agent
        .run_round("what does @src/x.rs depend on?", &mut |_| {})
        .await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
    let observation = |i: usize| server.requests()[i].body.clone();
    let first = observation(1);
    assert!(
        first.contains("leaning towards the 1 file of this round")
            && first.contains("src/special.rs\\n    1 pub fn special_helper()\\nsrc/core.rs"),
        "{first}"
    );

    let outcome = agent.run_round("and the rest?", &mut |_| {}).await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
    let second = observation(3);
    let last_map = &second[second.rfind("Repository map").unwrap()..];
    assert!(!last_map.contains("leaning towards"), "{last_map}");
    assert!(
        last_map.starts_with("Repository map: 6 of 6 definitions in 6 files"),
        "{last_map}"
    );
    assert!(ctx.round_files().is_empty());
}
