//! How long credential masking adds to a tool result: 1 MB of build output without secrets
//! (the common case: every pattern scans and nothing is copied) and with a few.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use wright_tools::secrets::{SecretMasker, SecretPolicy};

fn build_output(bytes: usize) -> String {
    let lines = [
        "   Compiling serde_json v1.0.145",
        "warning: unused variable: `token_count` --> src/lib.rs:42:9",
        "test tests::parses_the_reply ... ok",
        "    Finished `test` profile [unoptimized + debuginfo] target(s) in 12.34s",
        "error[E0308]: mismatched types: expected `String`, found `&str`",
    ];
    let mut text = String::with_capacity(bytes + 128);
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(lines[i % lines.len()]);
        text.push('\n');
        i += 1;
    }
    text
}

fn masking(c: &mut Criterion) {
    let masker = SecretMasker::new(&SecretPolicy {
        literals: vec!["configured-key-value-123".into()],
        ..SecretPolicy::default()
    })
    .unwrap()
    .from_env([(
        "GITHUB_TOKEN".to_string(),
        "ghs_value_from_env_0123".to_string(),
    )]);
    let clean = build_output(1 << 20);
    let mut with_secrets = clean.clone();
    for secret in [
        "\nOPENAI_API_KEY=sk-proj-Abc123def456ghi789jkl012mno\n",
        "\nAKIAIOSFODNN7EXAMPLE\n",
        "\nconfigured-key-value-123\n",
    ] {
        with_secrets.insert_str(with_secrets.len() / 2, secret);
    }

    let mut group = c.benchmark_group("mask");
    group.throughput(Throughput::Bytes(clean.len() as u64));
    group.bench_function("1MB build output, no secrets", |b| {
        b.iter(|| masker.mask(black_box(&clean)).len())
    });
    group.bench_function("1MB build output, 3 secrets", |b| {
        b.iter(|| masker.mask(black_box(&with_secrets)).len())
    });
    group.finish();
}

criterion_group!(benches, masking);

fn building(c: &mut Criterion) {
    c.bench_function(
        "build the masker (the builtin patterns compile at first use)",
        |b| b.iter(|| SecretMasker::new(black_box(&SecretPolicy::default())).unwrap()),
    );
}

criterion_group!(build, building);
criterion_main!(benches, build);
