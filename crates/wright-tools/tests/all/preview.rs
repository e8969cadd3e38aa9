//! Dry runs: what a call would do, shown for approval, with nothing written or run.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::ToolCall;
use wright_tools::{ToolContext, ToolRegistry};

use crate::common::project;

fn call(tool: &str, args: Value) -> ToolCall {
    ToolCall {
        tool: tool.into(),
        args,
    }
}

async fn preview(ctx: &ToolContext, tool: &str, args: Value) -> Option<String> {
    let registry = ToolRegistry::builtin();
    let call = call(tool, args);
    let mut prepared = registry.prepare(&call, ctx).ok()?;
    prepared.preview(ctx).await
}

/// Puts `content` at `path` and Reads it, as the agent must before editing.
async fn put_and_read(ctx: &ToolContext, path: &str, content: &str) {
    std::fs::write(ctx.root().join(path), content).unwrap();
    let read = ToolRegistry::builtin()
        .run(&call("Read", json!({"file_path": path})), ctx)
        .await;
    assert!(read.is_success(), "{}", read.text);
}

fn on_disk(ctx: &ToolContext, path: &str) -> String {
    std::fs::read_to_string(ctx.root().join(path)).unwrap()
}

#[tokio::test]
async fn an_edit_preview_is_the_unified_diff_and_writes_nothing() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\ntwo\nthree\n").await;
    let diff = preview(
        &ctx,
        "Edit",
        json!({"file_path": "a.txt", "old_string": "two", "new_string": "2"}),
    )
    .await;
    assert_eq!(
        diff.as_deref(),
        Some("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n")
    );
    assert_eq!(on_disk(&ctx, "a.txt"), "one\ntwo\nthree\n");
}

#[tokio::test]
async fn a_multi_edit_preview_shows_every_edit() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\ntwo\n").await;
    let args = json!({"file_path": "a.txt", "edits": [
        {"old_string": "one", "new_string": "1"},
        {"old_string": "two", "new_string": "2"},
    ]});
    let diff = preview(&ctx, "MultiEdit", args).await;
    assert_eq!(
        diff.as_deref(),
        Some("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n-two\n+1\n+2\n")
    );
    assert_eq!(on_disk(&ctx, "a.txt"), "one\ntwo\n");
}

#[tokio::test]
async fn a_write_preview_diffs_against_the_file_or_nothing() {
    let (_dir, ctx) = project();
    let created = preview(
        &ctx,
        "Write",
        json!({"file_path": "new.txt", "content": "hi\n"}),
    )
    .await;
    assert_eq!(
        created.as_deref(),
        Some("--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n")
    );
    assert!(!ctx.root().join("new.txt").exists());

    put_and_read(&ctx, "old.txt", "a\r\nb\r\n").await;
    let overwritten = preview(
        &ctx,
        "Write",
        json!({"file_path": "old.txt", "content": "a\nc\n"}),
    )
    .await;
    assert_eq!(
        overwritten.as_deref(),
        Some("--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
    );
    assert_eq!(on_disk(&ctx, "old.txt"), "a\r\nb\r\n");
}

#[tokio::test]
async fn a_bash_preview_is_the_command_and_runs_nothing() {
    let (_dir, ctx) = project();
    let command = preview(&ctx, "Bash", json!({"command": "touch ran"})).await;
    assert_eq!(command.as_deref(), Some("touch ran"));
    assert!(!ctx.root().join("ran").exists());
}

#[tokio::test]
async fn a_dry_run_that_would_fail_gives_no_preview() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\n").await;
    let no_match = json!({"file_path": "a.txt", "old_string": "zzz", "new_string": "y"});
    assert_eq!(preview(&ctx, "Edit", no_match).await, None);
    let outside = json!({"file_path": "../x.txt", "content": "x"});
    assert_eq!(preview(&ctx, "Write", outside).await, None);
    assert_eq!(preview(&ctx, "Bash", json!({"command": " "})).await, None);
    assert_eq!(
        preview(&ctx, "Read", json!({"file_path": "a.txt"})).await,
        None
    );
    assert_eq!(preview(&ctx, "Nope", json!({})).await, None);
}

#[tokio::test]
async fn an_approved_edit_writes_what_its_preview_showed() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\ntwo\n").await;
    let registry = ToolRegistry::builtin();
    let edit = call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "two", "new_string": "2"}),
    );
    let mut prepared = registry.prepare(&edit, &ctx).unwrap();
    assert_eq!(prepared.writes(), Some("a.txt"));
    let diff = prepared.preview(&ctx).await.unwrap();
    assert!(diff.contains("-two\n+2\n"), "{diff}");
    let result = prepared.run(&ctx).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(on_disk(&ctx, "a.txt"), "one\n2\n");
}

#[tokio::test]
async fn a_file_changed_while_its_edit_awaited_approval_is_not_written() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\ntwo\n").await;
    let registry = ToolRegistry::builtin();
    let edit = call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "two", "new_string": "2"}),
    );
    let mut prepared = registry.prepare(&edit, &ctx).unwrap();
    prepared.preview(&ctx).await.unwrap();
    // The user (or their editor) changes the file while the question is open; the planned
    // content no longer fits it.
    std::fs::write(
        ctx.root().join("a.txt"),
        "one\ntwo\nthree, added meanwhile\n",
    )
    .unwrap();
    let result = prepared.run(&ctx).await;
    assert_eq!(
        result.error.map(|e| e.code),
        Some(wright_protocol::ErrorCode::StaleFile)
    );
    assert_eq!(on_disk(&ctx, "a.txt"), "one\ntwo\nthree, added meanwhile\n");
}
