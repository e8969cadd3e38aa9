//! Parser throughput on a 10 MB streamed reply (issue 2 goal: at least 100 MB/s).
//!
//! The reply is a long thought followed by a `Write`-style action whose JSON string argument is
//! most of the text, delivered in 64-byte pieces like a provider stream, then parsed whole.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use wright_core::react::{Reply, ReplyStream, parse_reply};

const REPLY_BYTES: usize = 10 * 1024 * 1024;
const PIECE_BYTES: usize = 64;

fn reply() -> String {
    let mut thought = String::from("Thought: ");
    while thought.len() < REPLY_BYTES / 10 {
        thought.push_str("I will rewrite the module so that it handles [brackets] and {braces}.\n");
    }
    let mut content = String::new();
    while content.len() < REPLY_BYTES - thought.len() {
        content.push_str("fn main() { let v = vec![1, 2, 3]; println!(\"{:?}\", v); }\n");
    }
    let args = serde_json::json!({"file_path": "src/main.rs", "content": content});
    format!("{thought}Action: Write[{args}]")
}

fn bench(c: &mut Criterion) {
    let reply = reply();
    let pieces: Vec<&str> = reply
        .as_bytes()
        .chunks(PIECE_BYTES)
        .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
        .collect();
    let mut group = c.benchmark_group("react_parser");
    group.throughput(Throughput::Bytes(reply.len() as u64));
    group.sample_size(20);
    group.bench_function("stream_and_parse_10MB", |b| {
        b.iter(|| {
            let mut stream = ReplyStream::new();
            let mut shown = 0;
            for piece in &pieces {
                if let Some(thought) = stream.push(piece) {
                    shown += thought.len();
                }
            }
            let parsed = parse_reply(stream.text());
            assert!(matches!(parsed, Reply::Step { .. }));
            black_box((shown, parsed))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
