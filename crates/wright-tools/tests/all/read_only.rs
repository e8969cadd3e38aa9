//! A read-only context (issue 14: plan mode, read-only sub-agents): the tools that edit files
//! are refused, Bash runs only commands the checker judges read-only — as reads — and the
//! sandbox keeps even those from writing the project.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{SandboxStatus, ToolContext, ToolKind, ToolRegistry};

use crate::common::code;

fn read_only_project() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap().with_read_only(true);
    (dir, ctx)
}

fn call(tool: &str, args: Value) -> ToolCall {
    ToolCall {
        tool: tool.into(),
        args,
    }
}

fn bash(command: &str) -> ToolCall {
    call("Bash", json!({"command": command, "timeout_ms": 20_000}))
}

/// Prepares `call` in `ctx`: the refusal, or the kind of the prepared call.
fn prepared_kind(call: &ToolCall, ctx: &ToolContext) -> Result<ToolKind, Box<ToolResult>> {
    ToolRegistry::builtin()
        .prepare(call, ctx)
        .map(|prepared| prepared.kind())
}

#[test]
fn the_context_is_read_only_only_when_asked_and_its_clones_share_it() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    assert!(!ctx.is_read_only());
    let ctx = ctx.with_read_only(true);
    assert!(ctx.clone().is_read_only());
    assert!(!ctx.with_read_only(false).is_read_only());
}

#[test]
fn a_command_that_may_write_is_refused() {
    let (_dir, ctx) = read_only_project();
    let refused = prepared_kind(&bash("sed -i 's/a/b/' notes.txt"), &ctx).unwrap_err();
    assert_eq!(code(&refused), Some(ErrorCode::Refused));
    let message = &refused.error.as_ref().unwrap().message;
    assert!(
        message.starts_with("only read-only commands run here (plan mode or a read-only agent)"),
        "{message}"
    );
    assert!(
        message.contains("`sed -i` edits files in place"),
        "{message}"
    );
    assert!(
        message.ends_with("Propose the change in your answer instead."),
        "{message}"
    );
}

#[tokio::test]
async fn a_redirection_to_a_file_is_refused_and_the_file_is_not_created() {
    let (dir, ctx) = read_only_project();
    let result = ToolRegistry::builtin().run(&bash("echo x > f"), &ctx).await;
    assert_eq!(code(&result), Some(ErrorCode::Refused), "{}", result.text);
    assert!(!dir.path().join("f").exists());
}

#[tokio::test]
async fn a_read_only_command_runs_as_a_read() {
    let (dir, ctx) = read_only_project();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let command = bash("grep -n beta notes.txt | head -1");
    assert_eq!(prepared_kind(&command, &ctx).unwrap(), ToolKind::Read);
    let result = ToolRegistry::builtin().run(&command, &ctx).await;
    assert_eq!(result.data["exit_code"], 0, "{}", result.text);
    assert_eq!(result.data["stdout"], "2:beta\n");
}

#[test]
fn outside_a_read_only_context_bash_is_a_command_and_writers_are_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    assert_eq!(prepared_kind(&bash("ls"), &ctx).unwrap(), ToolKind::Execute);
    assert_eq!(
        prepared_kind(&bash("echo x > f"), &ctx).unwrap(),
        ToolKind::Execute
    );
}

#[test]
fn the_tools_that_edit_files_are_refused() {
    let (_dir, ctx) = read_only_project();
    let edits = [
        call("Write", json!({"file_path": "a.txt", "content": "x"})),
        call(
            "Edit",
            json!({"file_path": "a.txt", "old_string": "x", "new_string": "y"}),
        ),
        call(
            "MultiEdit",
            json!({"file_path": "a.txt", "edits": [{"old_string": "x", "new_string": "y"}]}),
        ),
    ];
    for edit in &edits {
        let refused = prepared_kind(edit, &ctx).unwrap_err();
        assert_eq!(code(&refused), Some(ErrorCode::Refused));
        let message = &refused.error.as_ref().unwrap().message;
        assert_eq!(
            message,
            &format!(
                "{} is not available in read-only mode (plan mode or a read-only agent): it \
                 changes things. Propose the change in your answer instead.",
                edit.tool
            )
        );
    }
    for read in [
        call("Read", json!({"file_path": "a.txt"})),
        call("LS", json!({})),
        call("Glob", json!({"pattern": "*"})),
    ] {
        assert_eq!(prepared_kind(&read, &ctx).unwrap(), ToolKind::Read);
    }
}

/// Runs `git` in `dir`, which must succeed.
fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// `git status` is judged read-only, and it is as far as the user can see, but it refreshes
/// `.git/index` when a file's timestamps changed: the sandbox keeps it from writing, and the
/// same command in an ordinary context does write, so the test shows the sandbox at work.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_sandbox_keeps_a_read_only_command_from_writing_the_project() {
    let has_git = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !has_git {
        eprintln!("skipped: git is needed");
        return;
    }
    // Both confinements: Landlock outside the temporary directory, the read-only bind inside.
    let outside =
        wright_testkit::scratch::outside_temporary_dirs(Path::new(env!("CARGO_TARGET_TMPDIR")))
            .expect("a writable directory outside the temporary directories to test with");
    for dir in [
        tempfile::tempdir_in(outside).unwrap(),
        tempfile::tempdir().unwrap(),
    ] {
        let root = dir.path();
        std::fs::write(root.join("f.txt"), "a\n").unwrap();
        git(root, &["init", "-q"]);
        git(root, &["add", "f.txt"]);
        git(root, &["commit", "-qm", "first"]);
        let index = root.join(".git/index");
        let stale = || {
            // The same content, a later mtime: `git status` refreshes the index's record.
            let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
            let file = std::fs::File::options()
                .write(true)
                .open(root.join("f.txt"))
                .unwrap();
            file.set_modified(later).unwrap();
        };
        stale();
        let before = std::fs::read(&index).unwrap();

        let ctx = ToolContext::new(root).unwrap().with_read_only(true);
        let result = ToolRegistry::builtin()
            .run(&bash("git status --short"), &ctx)
            .await;
        if ctx.sandbox_status() != &SandboxStatus::Confined {
            eprintln!("skipped: commands are not fully confined here");
            return;
        }
        assert_eq!(result.data["exit_code"], 0, "{}", result.text);
        assert_eq!(std::fs::read(&index).unwrap(), before, "{}", root.display());

        let ordinary = ToolContext::new(root).unwrap();
        let result = ToolRegistry::builtin()
            .run(&bash("git status --short"), &ordinary)
            .await;
        assert_eq!(result.data["exit_code"], 0, "{}", result.text);
        assert_ne!(std::fs::read(&index).unwrap(), before, "{}", root.display());
    }
}
