//! L2 for a project with CODE_LAW.md, AGENTS.md and 5 always rules (issue 17): its size
//! (printed: bytes and estimated tokens) and the time to read it, which every request pays
//! since L2 is re-read for each.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use wright_core::compaction::estimate_tokens;
use wright_core::instructions::Instructions;
use wright_tools::secrets::{SecretMasker, SecretPolicy};

const CODE_LAW: &str = "# Code law
- No `unwrap()`/`expect()` outside tests; library crates return `thiserror` enums.
- Every public item has a doc comment; modules start with a `//!` line saying what they own.
- Tests are named for the behaviour they check and compare whole values.
- Keep files under ~600 lines; split by idea, not by size.
- Run `cargo fmt` and `cargo clippy --all-targets -- -D warnings` before committing.
";

const AGENTS: &str = "# AGENTS.md
## Build and test
- Build: `cargo build --workspace`
- Test one crate: `cargo nextest run -p <crate>`
- Lint: `cargo clippy -p <crate> --all-targets -- -D warnings`
## Layout
- `crates/app-core`: domain logic, no I/O.
- `crates/app-http`: HTTP handlers (axum), thin.
- `crates/app-store`: Postgres via sqlx; migrations in `migrations/`.
- `crates/app-cli`: the binary.
## Conventions
- Errors carry the input that failed; no panics on user input.
- Prefer small pure functions that tests call directly.
- Commit messages: imperative, one line, say why.
";

fn project() -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::TempDir::new()?;
    std::fs::write(dir.path().join("CODE_LAW.md"), CODE_LAW)?;
    std::fs::write(dir.path().join("AGENTS.md"), AGENTS)?;
    let rules = dir.path().join(".wright/rules");
    std::fs::create_dir_all(&rules)?;
    for topic in ["errors", "logging", "naming", "tests", "deps"] {
        std::fs::write(
            rules.join(format!("{topic}.md")),
            format!(
                "---\nalways_apply: true\n---\nWhen working on {topic}: keep it consistent with \
                 the existing code; follow the project's {topic} conventions documented in \
                 AGENTS.md, and mention any deviation in your final answer with a reason.\n"
            ),
        )?;
    }
    Ok(dir)
}

fn bench(c: &mut Criterion) {
    let Ok(dir) = project() else {
        eprintln!("cannot write the project");
        return;
    };
    let Ok(root) = dir.path().canonicalize() else {
        return;
    };
    let Ok(masker) = SecretMasker::new(&SecretPolicy::default()) else {
        return;
    };
    let l2 = Instructions::load(&root, None, &masker);
    let text = l2.system_text().unwrap_or_default();
    eprintln!(
        "L2: {} parts, {} bytes, ~{} tokens (len // 3)",
        l2.parts.len(),
        text.len(),
        estimate_tokens(&text)
    );
    c.bench_function("l2_load_code_law_agents_5_rules", |b| {
        b.iter(|| black_box(Instructions::load(black_box(&root), None, &masker)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
