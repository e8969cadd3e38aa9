//! Time to build one request from a 150k-token history (issue 4 goal: at most 2 ms).
//!
//! The history is 30 rounds, each a question, a Read step with a compressed result of about
//! 15 000 characters, and a Finish step: about 450 000 characters, 150k tokens by the spec's
//! `len // 3`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use wright_core::compaction::estimate_tokens;
use wright_core::context::estimate_request;
use wright_core::history::HistoryManager;
use wright_core::tiers::{HistoryView, tool_message};
use wright_protocol::Message;

const ROUNDS: usize = 30;
const RESULT_CHARS: usize = 15_000;

fn history() -> HistoryManager {
    let mut history = HistoryManager::new(None);
    let line = "    let value = compute(&input, options).unwrap_or_default(); // more code here\n";
    let content: String = line.repeat(RESULT_CHARS / line.len());
    let result = serde_json::json!({"status": "success", "data": {"file_path": "src/lib.rs", "content": content}})
        .to_string();
    for round in 0..ROUNDS {
        let _ = history.open_round(&format!("Please look at module {round} and explain it."));
        let _ = history.push(Message::assistant(
            "Thought: read it\nAction: Read[{\"file_path\": \"src/lib.rs\"}]",
        ));
        let _ = history.push(tool_message(&result));
        let _ = history.push(Message::assistant(
            "Thought: done\nAction: Finish[It computes values.]",
        ));
        let _ = history.end_round(wright_store::RoundStatus::Finished);
    }
    history
}

fn bench(c: &mut Criterion) {
    let history = history();
    let system = "You are wright. ".repeat(600);
    let view = HistoryView::new(&history);
    let tokens = estimate_request(&view.request(&system, None, "next", &[], None));
    eprintln!(
        "history: {tokens} tokens (estimate), system {} tokens",
        estimate_tokens(&system)
    );
    let mut group = c.benchmark_group("context_build");
    group.bench_function("request_from_150k_history", |b| {
        b.iter(|| {
            let request = view.request(&system, None, black_box("next input"), &[], Some("1 todo"));
            black_box(estimate_request(&request))
        })
    });
    group.bench_function("snapshot_then_request", |b| {
        b.iter(|| {
            let view = HistoryView::new(&history);
            let request = view.request(&system, None, black_box("next input"), &[], None);
            black_box(estimate_request(&request))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
