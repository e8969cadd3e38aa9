//! The Edit tool end to end, through the registry, on real files in a temporary project.

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

/// Puts `content` at `path` and Reads it, as the agent must before editing.
async fn put_and_read(ctx: &ToolContext, path: &str, content: impl AsRef<[u8]>) {
    put(ctx, path, content);
    let read = run(ctx, "Read", json!({"file_path": path})).await;
    assert!(read.is_success(), "{}", read.text);
}

async fn edit(ctx: &ToolContext, path: &str, old: &str, new: &str) -> ToolResult {
    let args = json!({"file_path": path, "old_string": old, "new_string": new});
    run(ctx, "Edit", args).await
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

const MAIN: &str = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";

#[tokio::test]
async fn a_unique_string_is_replaced_and_the_diff_reported() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "src/main.rs", MAIN).await;
    let result = edit(&ctx, "src/main.rs", "let x = 1;", "let x = 2;").await;
    let diff = "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1,4 +1,4 @@\n fn main() {\n-    let x \
                = 1;\n+    let x = 2;\n     println!(\"{x}\");\n }\n";
    assert_eq!(
        result.text,
        format!(
            "Edited src/main.rs: 1 replacement, line 2 changed.\n{}",
            diff.trim_end()
        )
    );
    assert_eq!(
        result.data,
        json!({
            "file_path": "src/main.rs",
            "replacements": 1,
            "fallback": null,
            "applied": true,
            "changed_ranges": [[2, 2]],
            "diff": diff,
            "diff_lines": 8,
            "added": 1,
            "removed": 1,
        })
    );
    assert_eq!(
        on_disk(&ctx, "src/main.rs"),
        MAIN.replace("x = 1", "x = 2").as_bytes()
    );
}

#[tokio::test]
async fn a_file_never_read_is_refused() {
    let (_dir, ctx) = project();
    put(&ctx, "a.txt", "one\n");
    let result = edit(&ctx, "a.txt", "one", "two").await;
    assert_eq!(code(&result), Some(ErrorCode::StaleFile));
    assert!(
        message(&result).contains("you have not read a.txt"),
        "{}",
        message(&result)
    );
    assert_eq!(on_disk(&ctx, "a.txt"), b"one\n");
}

#[tokio::test]
async fn a_file_changed_since_it_was_read_is_refused() {
    let (_dir, ctx) = project();
    let abs = ctx.root().join("a.txt");
    put(&ctx, "a.txt", "one\n");
    set_mtime(&abs, SystemTime::UNIX_EPOCH + Duration::from_secs(1_000));
    assert!(
        run(&ctx, "Read", json!({"file_path": "a.txt"}))
            .await
            .is_success()
    );
    std::fs::write(&abs, "one, changed\n").unwrap();
    set_mtime(&abs, SystemTime::UNIX_EPOCH + Duration::from_secs(2_000));

    let result = edit(&ctx, "a.txt", "one", "two").await;
    assert_eq!(code(&result), Some(ErrorCode::StaleFile));
    assert_eq!(
        message(&result),
        "a.txt was modified since you last read it. Read it again before editing it."
    );
    assert_eq!(on_disk(&ctx, "a.txt"), b"one, changed\n");
}

#[tokio::test]
async fn the_agents_own_edit_needs_no_new_read() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\n").await;
    assert!(edit(&ctx, "a.txt", "one", "two").await.is_success());
    let again = edit(&ctx, "a.txt", "two", "three").await;
    assert!(again.is_success(), "{}", again.text);
    assert_eq!(on_disk(&ctx, "a.txt"), b"three\n");
}

#[tokio::test]
async fn a_missing_file_is_not_found() {
    let (_dir, ctx) = project();
    let result = edit(&ctx, "nope.rs", "a", "b").await;
    assert_eq!(code(&result), Some(ErrorCode::NotFound));
    assert!(
        message(&result).contains("Use Write"),
        "{}",
        message(&result)
    );
}

#[tokio::test]
async fn several_matches_are_ambiguous_with_their_line_numbers() {
    let (_dir, ctx) = project();
    let original = "x();\ny();\nx();\nz();\nx();\n";
    put_and_read(&ctx, "a.rs", original).await;
    let result = edit(&ctx, "a.rs", "x();", "w();").await;
    assert_eq!(code(&result), Some(ErrorCode::AmbiguousMatch));
    assert_eq!(
        message(&result),
        "old_string matches 3 places in a.rs (lines 1, 3, 5); add surrounding lines to \
         old_string so that it matches one place, or set replace_all to true to change every one"
    );
    assert_eq!(on_disk(&ctx, "a.rs"), original.as_bytes());
}

#[tokio::test]
async fn replace_all_replaces_every_occurrence() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.rs", "x();\ny();\nx();\n").await;
    let args = json!({"file_path": "a.rs", "old_string": "x()", "new_string": "w()",
                      "replace_all": true});
    let result = run(&ctx, "Edit", args).await;
    assert!(
        result
            .text
            .starts_with("Edited a.rs: 2 replacements, lines 1, 3 changed.\n")
    );
    assert_eq!(result.data["replacements"], 2);
    assert_eq!(result.data["changed_ranges"], json!([[1, 1], [3, 3]]));
    assert_eq!(on_disk(&ctx, "a.rs"), b"w();\ny();\nw();\n");
}

#[tokio::test]
async fn no_match_shows_the_closest_region_with_line_numbers() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "src/main.rs", MAIN).await;
    let result = edit(&ctx, "src/main.rs", "let y = 1;\nprintln!(\"{y}\");", "").await;
    assert_eq!(code(&result), Some(ErrorCode::NoMatch));
    assert_eq!(
        message(&result),
        "old_string was not found in src/main.rs, not even ignoring whitespace and Unicode \
         quotes/dashes. The closest region is lines 2-3:\n     2\t    let x = 1;\n     3\t    \
         println!(\"{x}\");\nRead the file again and copy old_string exactly from it."
    );
    assert_eq!(on_disk(&ctx, "src/main.rs"), MAIN.as_bytes());
}

#[tokio::test]
async fn a_tolerant_match_is_reported_as_fallback() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.py", "def f():   \n    return 1\n").await;
    let result = edit(
        &ctx,
        "a.py",
        "def f():\n    return 1",
        "def f():\n    return 2",
    )
    .await;
    assert_eq!(result.data["fallback"], "trailing_whitespace");
    assert!(
        result.text.starts_with(
            "Edited a.py: 1 replacement, lines 1-2 changed. old_string matched only \
                          ignoring trailing whitespace.\n"
        ),
        "{}",
        result.text
    );
    assert_eq!(on_disk(&ctx, "a.py"), b"def f():\n    return 2\n");
}

#[tokio::test]
async fn the_indentation_rung_keeps_the_files_indentation() {
    let (_dir, ctx) = project();
    put_and_read(
        &ctx,
        "a.rs",
        "mod m {\n    fn f() {\n        a();\n    }\n}\n",
    )
    .await;
    let result = edit(
        &ctx,
        "a.rs",
        "fn f() {\n    a();\n}",
        "fn f() {\n    b();\n}",
    )
    .await;
    assert_eq!(result.data["fallback"], "indentation");
    assert_eq!(
        on_disk(&ctx, "a.rs"),
        b"mod m {\n    fn f() {\n        b();\n    }\n}\n"
    );
}

#[tokio::test]
async fn crlf_line_endings_are_kept() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "win.txt", "a\r\nb\r\nc\r\n").await;
    let result = edit(&ctx, "win.txt", "a\nb\n", "a\nB\nb2\n").await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.data["fallback"], Value::Null);
    assert!(!result.data["diff"].as_str().unwrap().contains('\r'));
    assert_eq!(on_disk(&ctx, "win.txt"), b"a\r\nB\r\nb2\r\nc\r\n");
}

#[tokio::test]
async fn a_utf8_bom_is_kept() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "bom.txt", b"\xEF\xBB\xBFhello\n").await;
    assert!(edit(&ctx, "bom.txt", "hello", "bye").await.is_success());
    assert_eq!(on_disk(&ctx, "bom.txt"), b"\xEF\xBB\xBFbye\n");
}

#[tokio::test]
async fn old_string_equal_to_new_string_is_no_change() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\n").await;
    let result = edit(&ctx, "a.txt", "one", "one").await;
    assert_eq!(code(&result), Some(ErrorCode::NoChange));
}

#[tokio::test]
async fn an_empty_old_string_points_to_write() {
    let (_dir, ctx) = project();
    put_and_read(&ctx, "a.txt", "one\n").await;
    let result = edit(&ctx, "a.txt", "", "x").await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(
        message(&result).contains("use Write"),
        "{}",
        message(&result)
    );
}

#[tokio::test]
async fn a_binary_file_is_refused() {
    let (_dir, ctx) = project();
    put(&ctx, "blob.bin", b"abc\0def");
    let result = edit(&ctx, "blob.bin", "abc", "xyz").await;
    assert_eq!(code(&result), Some(ErrorCode::BinaryFile));
    assert_eq!(on_disk(&ctx, "blob.bin"), b"abc\0def");
}

#[tokio::test]
async fn a_path_outside_the_project_is_refused() {
    let (_dir, ctx) = project();
    let result = edit(&ctx, "../../etc/hosts", "a", "b").await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
}

#[tokio::test]
async fn a_directory_is_refused() {
    let (_dir, ctx) = project();
    std::fs::create_dir(ctx.root().join("src")).unwrap();
    let result = edit(&ctx, "src", "a", "b").await;
    assert_eq!(code(&result), Some(ErrorCode::IsDirectory));
}
