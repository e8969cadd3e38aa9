//! The Glob tool end to end, through the registry, on real files in a temporary project.

use std::fs::File;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, ToolResult};
use wright_tools::{GlobTool, Tool, ToolContext};

use crate::common::{code, project, run, write};

/// Writes `path` with an mtime `secs` seconds after a fixed day.
fn write_aged(ctx: &ToolContext, path: &str, secs: u64) {
    write(ctx, path, "");
    let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs);
    File::options()
        .write(true)
        .open(ctx.root().join(path))
        .unwrap()
        .set_modified(time)
        .unwrap();
}

async fn glob(ctx: &ToolContext, args: Value) -> ToolResult {
    run(ctx, "Glob", args).await
}

fn files(result: &ToolResult) -> Vec<String> {
    result.data["files"]
        .as_array()
        .unwrap_or_else(|| panic!("no files in {}", result.text))
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn matches_are_listed_newest_first() {
    let (_dir, ctx) = project();
    write_aged(&ctx, "src/old.rs", 10);
    write_aged(&ctx, "src/new.rs", 30);
    write_aged(&ctx, "src/mid/mid.rs", 20);
    write_aged(&ctx, "README.md", 40);
    let result = glob(&ctx, json!({"pattern": "**/*.rs"})).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.text, "src/new.rs\nsrc/mid/mid.rs\nsrc/old.rs");
    assert_eq!(
        result.data,
        json!({
            "pattern": "**/*.rs",
            "path": ".",
            "files": ["src/new.rs", "src/mid/mid.rs", "src/old.rs"],
            "total": 3,
            "truncated": false,
        })
    );
}

#[tokio::test]
async fn star_does_not_cross_directories() {
    let (_dir, ctx) = project();
    write(&ctx, "top.rs", "");
    write(&ctx, "src/deep.rs", "");
    let result = glob(&ctx, json!({"pattern": "*.rs"})).await;
    assert_eq!(files(&result), vec!["top.rs"]);
}

#[tokio::test]
async fn path_narrows_the_search_and_paths_stay_relative_to_the_root() {
    let (_dir, ctx) = project();
    write(&ctx, "src/lib.rs", "");
    write(&ctx, "tests/it.rs", "");
    let result = glob(&ctx, json!({"pattern": "*.rs", "path": "src"})).await;
    assert_eq!(files(&result), vec!["src/lib.rs"]);
    assert_eq!(result.data["path"], "src");
}

#[tokio::test]
async fn gitignore_is_honoured_without_a_git_directory() {
    let (_dir, ctx) = project();
    write(&ctx, ".gitignore", "target/\n*.tmp\n");
    write(&ctx, "src/main.rs", "");
    write(&ctx, "target/debug/build.rs", "");
    write(&ctx, "scratch.tmp", "");
    let result = glob(&ctx, json!({"pattern": "**/*"})).await;
    assert_eq!(files(&result), vec!["src/main.rs"]);
}

#[tokio::test]
async fn hidden_files_are_skipped_unless_the_pattern_names_them() {
    let (_dir, ctx) = project();
    write_aged(&ctx, ".env", 1);
    write_aged(&ctx, ".github/workflows/ci.yml", 2);
    write_aged(&ctx, "config.yml", 3);
    let all = glob(&ctx, json!({"pattern": "**/*.yml"})).await;
    assert_eq!(files(&all), vec!["config.yml"]);
    let named = glob(&ctx, json!({"pattern": ".github/**/*.yml"})).await;
    assert_eq!(files(&named), vec![".github/workflows/ci.yml"]);
    let dot = glob(&ctx, json!({"pattern": "**/.env*"})).await;
    assert_eq!(files(&dot), vec![".env"]);
}

#[tokio::test]
async fn git_directory_is_never_listed() {
    let (_dir, ctx) = project();
    write(&ctx, ".git/config", "");
    write(&ctx, ".git/.keep", "");
    write(&ctx, ".gitignore", "");
    let result = glob(&ctx, json!({"pattern": "**/.*"})).await;
    assert_eq!(files(&result), vec![".gitignore"]);
}

#[tokio::test]
async fn more_than_a_hundred_matches_keep_the_newest_and_the_total() {
    let (_dir, ctx) = project();
    for n in 0..105 {
        write_aged(&ctx, &format!("f{n:03}.txt"), n);
    }
    let result = glob(&ctx, json!({"pattern": "*.txt"})).await;
    let shown = files(&result);
    assert_eq!(shown.len(), 100);
    assert_eq!(shown[0], "f104.txt");
    assert_eq!(shown[99], "f005.txt");
    assert_eq!(result.data["total"], 105);
    assert_eq!(result.data["truncated"], true);
    assert!(
        result.text.ends_with(
            "\n[showing the 100 newest of 105 matching files; narrow the pattern or path to see the rest]"
        ),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn no_match_is_a_success_that_says_so() {
    let (_dir, ctx) = project();
    write(&ctx, "a.txt", "");
    let result = glob(&ctx, json!({"pattern": "src/**/*.rs"})).await;
    assert!(result.is_success());
    assert_eq!(result.text, "No files matched");
    assert_eq!(result.data["files"], json!([]));
    assert_eq!(result.data["total"], 0);
}

#[tokio::test]
async fn invalid_glob_is_an_invalid_pattern() {
    let (_dir, ctx) = project();
    let result = glob(&ctx, json!({"pattern": "src/{a,b"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidPattern));
    assert!(result.text.contains("src/{a,b"), "{}", result.text);
}

#[tokio::test]
async fn path_outside_the_project_is_refused() {
    let (_dir, ctx) = project();
    let result = glob(&ctx, json!({"pattern": "*", "path": "../"})).await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
}

#[tokio::test]
async fn missing_path_is_not_found() {
    let (_dir, ctx) = project();
    let result = glob(&ctx, json!({"pattern": "*", "path": "nope"})).await;
    assert_eq!(code(&result), Some(ErrorCode::NotFound));
}

#[tokio::test]
async fn a_cancelled_walk_stops_and_reports_interrupted() {
    let (_dir, ctx) = project();
    for n in 0..50 {
        write(&ctx, &format!("d{n}/f.txt"), "");
    }
    let token = CancellationToken::new();
    token.cancel();
    let ctx = ctx.with_cancellation(token);
    let call = GlobTool.prepare(json!({"pattern": "**/*"}), &ctx).unwrap();
    let result = call.run(&ctx).await;
    assert_eq!(code(&result), Some(ErrorCode::Interrupted));
}
