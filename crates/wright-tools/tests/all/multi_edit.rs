//! The MultiEdit tool end to end, through the registry, on real files in a temporary project.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{ToolContext, ToolRegistry};

use crate::common::{code, project};

async fn run(ctx: &ToolContext, tool: &str, args: Value) -> ToolResult {
    let call = ToolCall {
        tool: tool.into(),
        args,
    };
    ToolRegistry::builtin().run(&call, ctx).await
}

/// Puts `content` at `path` and Reads it, as the agent must before editing.
async fn put_and_read(ctx: &ToolContext, path: &str, content: &str) {
    std::fs::write(ctx.root().join(path), content).unwrap();
    let read = run(ctx, "Read", json!({"file_path": path})).await;
    assert!(read.is_success(), "{}", read.text);
}

async fn multi_edit(ctx: &ToolContext, path: &str, edits: Value) -> ToolResult {
    run(ctx, "MultiEdit", json!({"file_path": path, "edits": edits})).await
}

fn on_disk(ctx: &ToolContext, path: &str) -> String {
    std::fs::read_to_string(ctx.root().join(path)).unwrap()
}

fn message(result: &ToolResult) -> &str {
    result.error.as_ref().map_or("", |e| e.message.as_str())
}

const LIB: &str = "use std::fs;\n\nfn load() -> u32 {\n    1\n}\n\nfn save() {}\n";

#[tokio::test]
async fn edits_apply_in_order_and_report_each() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "lib.rs", LIB).await;
    let result = multi_edit(
        &ctx,
        "lib.rs",
        json!([
            {"old_string": "use std::fs;\n\n", "new_string": ""},
            {"old_string": "fn", "new_string": "pub fn", "replace_all": true},
            {"old_string": "    1  \n", "new_string": "    2\n"},
        ]),
    )
    .await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(
        on_disk(&ctx, "lib.rs"),
        "pub fn load() -> u32 {\n    2\n}\n\npub fn save() {}\n"
    );
    assert!(
        result.text.starts_with(
            "Edited lib.rs: 3 edits, 4 replacements, lines 1-2, 5 changed. Edit 3 matched only \
             ignoring trailing whitespace.\n--- a/lib.rs\n"
        ),
        "{}",
        result.text
    );
    let mut data = result.data.clone();
    for key in ["diff", "diff_lines", "added", "removed"] {
        data.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(
        data,
        json!({
            "file_path": "lib.rs",
            "replacements": 4,
            "fallback": "trailing_whitespace",
            "applied": true,
            "changed_ranges": [[1, 2], [5, 5]],
            "edits": [
                {"replacements": 1, "fallback": null},
                {"replacements": 2, "fallback": null},
                {"replacements": 1, "fallback": "trailing_whitespace"},
            ],
            "edits_applied": 3,
        })
    );
}

#[tokio::test]
async fn a_later_edit_sees_the_result_of_an_earlier_one() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "alpha\n").await;
    let result = multi_edit(
        &ctx,
        "a.txt",
        json!([
            {"old_string": "alpha", "new_string": "beta"},
            {"old_string": "beta", "new_string": "gamma"},
        ]),
    )
    .await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(on_disk(&ctx, "a.txt"), "gamma\n");
}

#[tokio::test]
async fn a_failing_edit_leaves_the_file_unchanged_and_is_named() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "lib.rs", LIB).await;
    let result = multi_edit(
        &ctx,
        "lib.rs",
        json!([
            {"old_string": "fn load", "new_string": "fn read"},
            {"old_string": "fn missing", "new_string": "fn found"},
            {"old_string": "fn save", "new_string": "fn store"},
        ]),
    )
    .await;
    assert_eq!(code(&result), Some(ErrorCode::NoMatch));
    assert!(
        message(&result).starts_with("edit 2 of 3: old_string was not found in lib.rs"),
        "{}",
        message(&result)
    );
    assert!(message(&result).ends_with("No edits were applied."));
    assert_eq!(on_disk(&ctx, "lib.rs"), LIB);
}

#[tokio::test]
async fn a_failing_edit_keeps_its_own_error_code() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "x\nx\n").await;
    let result = multi_edit(
        &ctx,
        "a.txt",
        json!([{"old_string": "x", "new_string": "y"}]),
    )
    .await;
    assert_eq!(code(&result), Some(ErrorCode::AmbiguousMatch));
    assert!(message(&result).starts_with("edit 1 of 1: old_string matches 2 places"));

    let result = multi_edit(
        &ctx,
        "a.txt",
        json!([{"old_string": "x\nx", "new_string": "z"}, {"old_string": "q", "new_string": "q"}]),
    )
    .await;
    assert_eq!(code(&result), Some(ErrorCode::NoChange));
    assert!(message(&result).starts_with("edit 2 of 2: "));
    assert_eq!(on_disk(&ctx, "a.txt"), "x\nx\n");
}

#[tokio::test]
async fn edits_that_cancel_out_are_no_change() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "a\n").await;
    let result = multi_edit(
        &ctx,
        "a.txt",
        json!([{"old_string": "a", "new_string": "b"}, {"old_string": "b", "new_string": "a"}]),
    )
    .await;
    assert_eq!(code(&result), Some(ErrorCode::NoChange));
}

#[tokio::test]
async fn an_empty_edit_list_is_invalid() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "a\n").await;
    let result = multi_edit(&ctx, "a.txt", json!([])).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
}

#[tokio::test]
async fn a_mistyped_edit_names_its_field() {
    let (_dir, ctx) = project();
    let result = multi_edit(&ctx, "a.txt", json!([{"old_string": "a", "new_string": 3}])).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(
        message(&result).contains("field `edits[0].new_string`"),
        "{}",
        message(&result)
    );
}
