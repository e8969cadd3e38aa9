//! Sub-agents, measured against the scripted server (issue 14). Not a criterion bench: two
//! workloads whose figures are token counts and one wall-clock time, printed as a table.
//!
//! 1. Context: a 10-file exploration (each file 300 lines), done by the session's own agent
//!    (10 Read steps, then an answer) and delegated to one `explore` task (the child reads
//!    the 10 files; the parent keeps its answer). Prompt tokens are the server's count of
//!    each request (about 4 bytes a token), summed per agent.
//! 2. Concurrency: one Task call with three `explore` tasks whose model calls each take 2 s.
//!
//! `cargo bench -p wright-core --bench subagents`

// A benchmark, not library code: a failure is a panic with its reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use tokio_util::sync::CancellationToken;
use wright_core::RoundOutcome;
use wright_core::session::{AgentBuilder, AgentSetup, Session, Sessions};
use wright_llm::{LlmConfig, ProviderKind};
use wright_store::SessionStore;
use wright_testkit::{RecordedRequest, Script, ScriptedResponse, TestServer};

const FILES: usize = 10;
const LINES: usize = 300;

fn response(text: &str) -> ScriptedResponse {
    ScriptedResponse {
        usage_from_request: true,
        ..ScriptedResponse::text(text)
    }
}

fn session(server: &TestServer, home: &std::path::Path, root: &std::path::Path) -> Session {
    let setup = AgentSetup::new(
        root.to_path_buf(),
        LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m"),
    );
    let builder = AgentBuilder::new(setup).expect("builder");
    Sessions::new(SessionStore::new(home, root), builder)
        .create(None)
        .expect("session")
}

fn project() -> (tempfile::TempDir, tempfile::TempDir) {
    let (home, root) = (
        tempfile::tempdir().expect("home"),
        tempfile::tempdir().expect("root"),
    );
    for file in 0..FILES {
        let text: String = (0..LINES)
            .map(|line| {
                format!(
                    "pub fn item_{file}_{line}(value: u64) -> u64 {{ value * {line} + {file} }}\n"
                )
            })
            .collect();
        std::fs::write(root.path().join(format!("mod_{file}.rs")), text).expect("write");
    }
    (home, root)
}

/// The server's prompt-token count of a request (its usage_from_request rule: ~4 bytes a
/// token).
fn prompt_tokens(request: &RecordedRequest) -> u64 {
    (request.body.len() as u64).div_ceil(4)
}

fn reads() -> Vec<ScriptedResponse> {
    (0..FILES)
        .map(|file| {
            response(&format!(
                "Thought: next file\nAction: Read[{{\"file_path\": \"mod_{file}.rs\"}}]"
            ))
        })
        .collect()
}

/// A second round in each session, to see what its history carries from then on.
const NEXT: &str = "Is that all?";

const ANSWER: &str = "The ten modules mod_0.rs..mod_9.rs each define 300 functions item_F_L(value) returning value * L + F; nothing else.";

async fn run(session: &mut Session, input: &str) {
    let outcome = session
        .run_round(input, CancellationToken::new(), &mut |_| {})
        .await;
    assert!(
        matches!(outcome, RoundOutcome::Finished { .. }),
        "{outcome:?}"
    );
}

async fn context() {
    // Without delegation: the parent reads the ten files itself.
    let (home, root) = project();
    let mut responses = reads();
    responses.push(response(&format!(
        "Thought: done\nAction: Finish[{ANSWER}]"
    )));
    responses.push(response("Thought: easy\nAction: Finish[Yes, that is all.]"));
    let server = TestServer::start(Script::new(responses)).expect("server");
    let mut own = session(&server, home.path(), root.path());
    run(&mut own, "What do the mod_*.rs files define?").await;
    run(&mut own, NEXT).await;
    let mut direct: Vec<u64> = server.requests().iter().map(prompt_tokens).collect();
    let direct_next = direct.pop().unwrap_or(0);

    // With delegation: one explore task reads them; the parent keeps the answer.
    let (home, root) = project();
    let mut responses = vec![response(
        "Thought: delegate\nAction: Task[{\"agent\": \"explore\", \"description\": \"Survey the modules\", \"prompt\": \"Read mod_0.rs to mod_9.rs and say what they define.\"}]",
    )];
    responses.extend(reads());
    responses.push(response(&format!(
        "Thought: done\nAction: Finish[{ANSWER}]"
    )));
    responses.push(response(&format!(
        "Thought: relay\nAction: Finish[{ANSWER}]"
    )));
    responses.push(response("Thought: easy\nAction: Finish[Yes, that is all.]"));
    let server = TestServer::start(Script::new(responses)).expect("server");
    let mut delegating = session(&server, home.path(), root.path());
    run(&mut delegating, "What do the mod_*.rs files define?").await;
    run(&mut delegating, NEXT).await;
    let mut all: Vec<u64> = server.requests().iter().map(prompt_tokens).collect();
    let delegating_next = all.pop().unwrap_or(0);
    // Requests 0 and the last are the parent's; the rest the child's.
    let parent = [all[0], all[all.len() - 1]];
    let child = &all[1..all.len() - 1];

    println!("## Context: a 10-file exploration ({FILES} files x {LINES} lines)\n");
    println!(
        "| | parent requests | parent prompt tokens | largest parent request | child prompt tokens | total |"
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| reads itself | {} | {} | {} | - | {} |",
        direct.len(),
        direct.iter().sum::<u64>(),
        direct.iter().max().copied().unwrap_or(0),
        direct.iter().sum::<u64>()
    );
    println!(
        "| delegates to explore | {} | {} | {} | {} | {} |",
        parent.len(),
        parent.iter().sum::<u64>(),
        parent.iter().max().copied().unwrap_or(0),
        child.iter().sum::<u64>(),
        all.iter().sum::<u64>()
    );
    println!(
        "\nThe parent's last request of the round: {} tokens reading itself, {} delegating.",
        direct.last().copied().unwrap_or(0),
        parent[1]
    );
    println!(
        "The next round's request (the history kept from then on): {direct_next} tokens \
         reading itself, {delegating_next} delegating.\n"
    );
}

async fn concurrency() {
    let (home, root) = project();
    let mut script = Script::new(vec![
        response(
            "Action: Task[{\"tasks\": [{\"agent\": \"explore\", \"description\": \"a\", \"prompt\": \"TASK-A\"}, {\"agent\": \"explore\", \"description\": \"b\", \"prompt\": \"TASK-B\"}, {\"agent\": \"explore\", \"description\": \"c\", \"prompt\": \"TASK-C\"}]}]",
        ),
        response("Action: Finish[all done]"),
    ]);
    for task in ["A", "B", "C"] {
        script = script.with_route(
            format!("\"content\":\"TASK-{task}"),
            ScriptedResponse {
                delay_ms: 2000,
                ..response(&format!("Action: Finish[answer {task}]"))
            },
        );
    }
    let server = TestServer::start(script).expect("server");
    let mut parent = session(&server, home.path(), root.path());
    let started = Instant::now();
    run(&mut parent, "three questions").await;
    let elapsed = started.elapsed();
    println!("## Concurrency: three explore tasks, each model call taking 2 s\n");
    println!(
        "Round with the Task call: {:.2} s (one after another would take 6 s).",
        elapsed.as_secs_f64()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        context().await;
        concurrency().await;
    });
}
