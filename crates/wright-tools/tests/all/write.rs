//! The Write tool end to end, through the registry, on real files in a temporary project.

use std::fs::File;
use std::path::Path;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{ToolContext, ToolRegistry};

use crate::common::{code, project};

fn put(ctx: &ToolContext, path: &str, content: impl AsRef<[u8]>) {
    let abs = ctx.root().join(path);
    std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
    std::fs::write(abs, content).unwrap();
}

fn on_disk(ctx: &ToolContext, path: &str) -> Vec<u8> {
    std::fs::read(ctx.root().join(path)).unwrap()
}

async fn run(ctx: &ToolContext, tool: &str, args: Value) -> ToolResult {
    let call = ToolCall {
        tool: tool.into(),
        args,
    };
    ToolRegistry::builtin().run(&call, ctx).await
}

async fn write(ctx: &ToolContext, path: &str, content: &str) -> ToolResult {
    run(ctx, "Write", json!({"file_path": path, "content": content})).await
}

fn message(result: &ToolResult) -> &str {
    result.error.as_ref().map_or("", |e| e.message.as_str())
}

fn set_mtime(path: &Path, time: SystemTime) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

#[tokio::test]
async fn creates_a_file_and_its_parent_directories() {
    let (_dir, ctx) = project();
    let result = write(&ctx, "src/deep/new.rs", "fn a() {}\nfn b() {}\n").await;
    assert_eq!(result.text, "Created src/deep/new.rs (2 lines, 20 bytes).");
    assert_eq!(
        result.data,
        json!({
            "file_path": "src/deep/new.rs",
            "action": "created",
            "lines": 2,
            "bytes": 20,
            "head": "fn a() {}\nfn b() {}",
            "truncated": false,
            "diff": "--- a/src/deep/new.rs\n+++ b/src/deep/new.rs\n@@ -0,0 +1,2 @@\n+fn a() {}\n+fn b() {}\n",
        })
    );
    assert_eq!(on_disk(&ctx, "src/deep/new.rs"), b"fn a() {}\nfn b() {}\n");
}

#[tokio::test]
async fn overwrites_a_file_never_read() {
    let (_dir, ctx) = project();
    put(&ctx, "a.txt", "old\n");
    let result = write(&ctx, "a.txt", "new\n").await;
    assert_eq!(result.text, "Overwrote a.txt (1 line, 4 bytes).");
    assert_eq!(result.data["action"], "overwritten");
    assert_eq!(on_disk(&ctx, "a.txt"), b"new\n");
}

#[tokio::test]
async fn head_holds_the_first_50_lines_and_flags_the_rest() {
    let (_dir, ctx) = project();
    let content: String = (1..=80).map(|n| format!("line {n}\n")).collect();
    let result = write(&ctx, "long.txt", &content).await;
    let head = result.data["head"].as_str().unwrap();
    assert_eq!(head.lines().count(), 50);
    assert!(head.ends_with("line 50"));
    assert_eq!(result.data["truncated"], true);
    assert_eq!(result.data["lines"], 80);
    assert!(!result.text.contains("line 1"), "{}", result.text);
}

#[cfg(unix)]
#[tokio::test]
async fn an_existing_file_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, ctx) = project();
    put(&ctx, "run.sh", "#!/bin/sh\n");
    let abs = ctx.root().join("run.sh");
    std::fs::set_permissions(&abs, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(
        write(&ctx, "run.sh", "#!/bin/sh\necho hi\n")
            .await
            .is_success()
    );
    let mode = std::fs::metadata(&abs).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
}

#[tokio::test]
async fn no_temporary_file_is_left_behind() {
    let (_dir, ctx) = project();
    put(&ctx, "a.txt", "old\n");
    assert!(write(&ctx, "a.txt", "new\n").await.is_success());
    assert!(write(&ctx, "b.txt", "b\n").await.is_success());
    let mut names: Vec<String> = std::fs::read_dir(ctx.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec!["a.txt", "b.txt"]);
}

#[tokio::test]
async fn crlf_endings_and_bom_of_an_existing_file_are_kept() {
    let (_dir, ctx) = project();
    put(&ctx, "win.txt", b"\xEF\xBB\xBFa\r\nb\r\n");
    let result = write(&ctx, "win.txt", "x\ny\nz\n").await;
    assert_eq!(
        result.text,
        "Overwrote win.txt (3 lines, 12 bytes). Kept its CRLF line endings and UTF-8 BOM."
    );
    assert_eq!(on_disk(&ctx, "win.txt"), b"\xEF\xBB\xBFx\r\ny\r\nz\r\n");
}

#[tokio::test]
async fn a_directory_is_refused() {
    let (_dir, ctx) = project();
    std::fs::create_dir(ctx.root().join("src")).unwrap();
    let result = write(&ctx, "src", "x").await;
    assert_eq!(code(&result), Some(ErrorCode::IsDirectory));
    let result = write(&ctx, "new/", "x").await;
    assert_eq!(code(&result), Some(ErrorCode::IsDirectory));
    assert!(!ctx.root().join("new").exists());
}

#[tokio::test]
async fn a_path_outside_the_project_is_refused() {
    let (dir, ctx) = project();
    let result = write(&ctx, "../escape.txt", "x").await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
    assert!(!dir.path().parent().unwrap().join("escape.txt").exists());
}

#[tokio::test]
async fn a_file_changed_since_it_was_read_is_refused() {
    let (_dir, ctx) = project();
    put(&ctx, "a.txt", "one\n");
    let abs = ctx.root().join("a.txt");
    set_mtime(&abs, SystemTime::UNIX_EPOCH + Duration::from_secs(1_000));
    assert!(
        run(&ctx, "Read", json!({"file_path": "a.txt"}))
            .await
            .is_success()
    );
    std::fs::write(&abs, "someone else's\n").unwrap();
    set_mtime(&abs, SystemTime::UNIX_EPOCH + Duration::from_secs(2_000));

    let result = write(&ctx, "a.txt", "mine\n").await;
    assert_eq!(code(&result), Some(ErrorCode::StaleFile));
    assert_eq!(
        message(&result),
        "a.txt was modified since you last read it. Read it again before writing."
    );
    assert_eq!(on_disk(&ctx, "a.txt"), b"someone else's\n");
}

#[tokio::test]
async fn the_agents_own_write_is_not_an_external_change() {
    let (_dir, ctx) = project();
    put(&ctx, "a.txt", "one\n");
    assert!(
        run(&ctx, "Read", json!({"file_path": "a.txt"}))
            .await
            .is_success()
    );
    assert!(write(&ctx, "a.txt", "two\n").await.is_success());
    assert!(write(&ctx, "a.txt", "three\n").await.is_success());
    let read = run(&ctx, "Read", json!({"file_path": "a.txt"})).await;
    assert_eq!(read.data["modified_externally"], false, "{}", read.text);
    let edit = json!({"file_path": "a.txt", "old_string": "three", "new_string": "four"});
    assert!(run(&ctx, "Edit", edit).await.is_success());
}

#[tokio::test]
async fn missing_content_is_invalid_arguments() {
    let (_dir, ctx) = project();
    let result = run(&ctx, "Write", json!({"file_path": "a.txt"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(message(&result).contains("missing field `content`"));
}

#[tokio::test]
async fn the_result_carries_the_diff_for_the_user_but_history_drops_it() {
    let (_dir, ctx) = project();
    let created = write(&ctx, "notes.txt", "alpha\nbeta\n").await;
    let diff = created.data["diff"].as_str().unwrap();
    assert!(diff.contains("+alpha\n+beta\n"), "{diff}");

    let _ = run(&ctx, "Read", serde_json::json!({"file_path": "notes.txt"})).await;
    let overwritten = write(&ctx, "notes.txt", "alpha\ngamma\n").await;
    let diff = overwritten.data["diff"].as_str().unwrap();
    assert!(diff.contains("-beta\n+gamma\n"), "{diff}");
    assert!(
        !diff.contains("+alpha"),
        "unchanged lines are context: {diff}"
    );

    let history = wright_tools::compress("Write", &overwritten);
    assert!(history.get("diff").is_none() && history["data"].get("diff").is_none());

    let big: String = (0..1000).map(|i| format!("line {i}\n")).collect();
    let large = write(&ctx, "big.txt", &big).await;
    let diff = large.data["diff"].as_str().unwrap();
    assert!(diff.lines().count() <= 401, "{}", diff.lines().count());
    assert!(diff.ends_with("more lines of diff\n"), "{diff}");
}
