//! Prompt-cache reads and writes end to end (issue 19): what the provider reports reaches the
//! `usage` events, `wright sessions show`, `/cost` and the exec cost line, priced at the
//! cache prices (built in or configured).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_testkit::{ScriptedResponse, ScriptedUsage, TestServer};

use crate::common::{Project, Run, reply, serve};
use crate::interactive::pty::Session;

/// A reply whose usage is scripted as the provider reports it: for Anthropic, `input` leaves
/// out the cache reads and writes; for OpenAI it counts the reads.
fn reply_with_cache(
    text: &str,
    input: u64,
    read: u64,
    written: Option<u64>,
    output: u64,
) -> ScriptedResponse {
    ScriptedResponse {
        usage: Some(ScriptedUsage {
            prompt_tokens: input,
            completion_tokens: output,
            cached_tokens: Some(read),
            cache_creation_tokens: written,
        }),
        ..reply(text)
    }
}

/// `wright exec --session NAME [extra...] PROMPT` against `server` speaking `provider` to
/// `model`.
fn exec(
    project: &Project,
    server: &TestServer,
    provider: &str,
    model: &str,
    extra: &[&str],
    name: &str,
) -> Run {
    let output = project
        .command(server, provider)
        .env("WRIGHT_MODEL", model)
        .arg("exec")
        .args(["--session", name])
        .args(extra)
        .arg("read a")
        .output()
        .unwrap();
    let run = Run::from(output);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run
}

/// The last line of `wright sessions show NAME`.
fn shown_usage(project: &Project, name: &str) -> String {
    let show = Run::from(
        project
            .bare_command()
            .args(["sessions", "show", name])
            .output()
            .unwrap(),
    );
    assert_eq!(show.code, Some(0), "{}", show.stderr);
    show.stdout.lines().last().unwrap_or_default().to_string()
}

/// Two Anthropic steps: one that writes the cache and reads part of it, one that reads it.
fn anthropic_round() -> Vec<ScriptedResponse> {
    vec![
        reply_with_cache(
            "Thought: read a\nAction: Read[{\"file_path\": \"a.txt\"}]",
            1_000,
            10_000,
            Some(2_000),
            500,
        ),
        reply_with_cache(
            "Thought: done\nAction: Finish[alpha]",
            2_000,
            12_000,
            Some(0),
            400,
        ),
    ]
}

#[test]
fn anthropic_cache_reads_and_writes_reach_the_usage_events_and_sessions_show_priced() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let server = serve(anthropic_round());
    let run = exec(
        &project,
        &server,
        "anthropic",
        "claude-sonnet-4-5",
        &["--json"],
        "cache",
    );
    let events = run.events();
    let usage: Vec<Value> = events
        .iter()
        .filter(|event| event["type"] == "usage")
        .cloned()
        .collect();
    assert_eq!(
        usage,
        vec![
            json!({"type": "usage", "prompt_tokens": 13_000, "completion_tokens": 500,
                   "total_tokens": 13_500, "cached_prompt_tokens": 10_000,
                   "cache_creation_tokens": 2_000, "call": "step"}),
            json!({"type": "usage", "prompt_tokens": 14_000, "completion_tokens": 400,
                   "total_tokens": 14_400, "cached_prompt_tokens": 12_000,
                   "cache_creation_tokens": 0, "call": "step"}),
        ]
    );
    assert_eq!(
        events.last().unwrap()["usage"],
        json!({"prompt_tokens": 27_000, "completion_tokens": 900, "total_tokens": 27_900,
               "cached_prompt_tokens": 22_000, "cache_creation_tokens": 2_000})
    );
    // Sonnet 4.5 per million: $3 input, $0.30 cache read, $3.75 cache write, $15 output.
    // 1000×3 + 10000×0.3 + 2000×3.75 + 500×15 = 21000, then 2000×3 + 12000×0.3 + 400×15 = 15600.
    assert_eq!(
        shown_usage(&project, "cache"),
        "Usage: 2 model calls, 27,900 tokens (27,000 in, 22,000 cached, 2,000 written to cache; \
         900 out), cost $0.0366"
    );
}

#[test]
fn a_configured_cache_write_price_bills_the_writes_in_the_exec_cost_line() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n\n[pricing.\"test-model\"]\ninput = 4.0\noutput = 16.0\n\
         cached_input = 0.5\ncache_write = 5.0\n",
    );
    let server = serve(vec![reply_with_cache(
        "Thought: done\nAction: Finish[alpha]",
        1_000,
        2_000,
        Some(1_000),
        500,
    )]);
    let run = exec(&project, &server, "anthropic", "test-model", &[], "priced");
    // 1000×4 + 2000×0.5 + 1000×5 + 500×16 = 18000 per million.
    assert!(
        run.stderr
            .contains("tokens: 4000 in (2000 cached, 1000 written to cache), 500 out\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("cost: $0.0180 this round, $0.0180 this session"),
        "{}",
        run.stderr
    );
    assert_eq!(
        shown_usage(&project, "priced"),
        "Usage: 1 model call, 4,500 tokens (4,000 in, 2,000 cached, 1,000 written to cache; \
         500 out), cost $0.0180"
    );
}

#[test]
fn openai_cache_reads_show_without_writes_at_the_builtin_price() {
    let project = Project::new();
    let server = serve(vec![reply_with_cache(
        "Thought: done\nAction: Finish[alpha]",
        10_000,
        8_000,
        None,
        1_000,
    )]);
    let run = exec(&project, &server, "openai", "gpt-4.1", &["--json"], "reads");
    let usage = run
        .events()
        .into_iter()
        .find(|event| event["type"] == "usage")
        .unwrap();
    assert_eq!(
        usage,
        json!({"type": "usage", "prompt_tokens": 10_000, "completion_tokens": 1_000,
               "total_tokens": 11_000, "cached_prompt_tokens": 8_000, "call": "step"})
    );
    // GPT-4.1 per million: $2 input, $0.50 cached input, $8 output.
    assert_eq!(
        shown_usage(&project, "reads"),
        "Usage: 1 model call, 11,000 tokens (10,000 in, 8,000 cached; 1,000 out), cost $0.0160"
    );
}

#[test]
fn the_cost_command_shows_cache_reads_and_writes_and_their_price() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let server = serve(anthropic_round());
    let mut session = Session::start_with(
        &project,
        &server,
        &[],
        &[
            ("WRIGHT_PROVIDER", "anthropic"),
            ("WRIGHT_MODEL", "claude-sonnet-4-5"),
        ],
    );
    session.expect("/help for commands");
    session.type_text("read a");
    session.enter();
    session.expect("claude-sonnet-4-5 · context");
    session.type_text("/cost");
    session.enter();
    session.expect(
        "steps:     2 calls, 27000 in (22000 cached, 2000 written to cache), 900 out, $0.0366",
    );
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}
