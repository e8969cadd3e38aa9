//! What confinement adds to a Bash call (issues 6 and 12): `true` run through the registry with
//! the sandbox off, confined in a project with nothing to protect (Landlock and seccomp only),
//! and confined in a git repository with `.wright/` (plus a mount namespace with the protected
//! paths bound read-only).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use wright_protocol::ToolCall;
use wright_tools::{SandboxPolicy, ToolContext, ToolRegistry};

fn git_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::create_dir(dir.path().join(".wright")).unwrap();
    dir
}

fn bash_start(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let registry = ToolRegistry::builtin();
    let call = ToolCall {
        tool: "Bash".into(),
        args: json!({"command": "true"}),
    };
    let plain = tempfile::tempdir().unwrap();
    let git = git_project();
    let cases = [
        (
            "sandbox off",
            ToolContext::new(plain.path())
                .unwrap()
                .with_sandbox(SandboxPolicy {
                    enabled: false,
                    ..SandboxPolicy::default()
                }),
        ),
        (
            "confined, nothing protected",
            ToolContext::new(plain.path()).unwrap(),
        ),
        (
            "confined, git repository",
            ToolContext::new(git.path()).unwrap(),
        ),
    ];
    let mut group = c.benchmark_group("bash true");
    for (name, ctx) in &cases {
        // The first call probes the sandbox; it is not what is measured.
        let first = runtime.block_on(registry.run(&call, ctx));
        assert_eq!(first.error, None, "{}", first.text);
        group.bench_function(*name, |b| {
            b.iter(|| runtime.block_on(registry.run(&call, ctx)));
        });
    }
    group.finish();
}

criterion_group!(benches, bash_start);
criterion_main!(benches);
