//! The Grep tool end to end, through the registry, on real files in a temporary project.

use std::fs::File;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{GrepTool, Tool, ToolContext, ToolRegistry};

use crate::common::{code, project, write};

/// Writes `path` with an mtime `secs` seconds after a fixed day.
fn write_aged(ctx: &ToolContext, path: &str, content: &str, secs: u64) {
    write(ctx, path, content);
    let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs);
    File::options()
        .write(true)
        .open(ctx.root().join(path))
        .unwrap()
        .set_modified(time)
        .unwrap();
}

async fn grep(ctx: &ToolContext, args: Value) -> ToolResult {
    let call = ToolCall {
        tool: "Grep".into(),
        args,
    };
    let result = ToolRegistry::builtin().run(&call, ctx).await;
    assert!(
        result.is_success() || result.error.is_some(),
        "{}",
        result.text
    );
    result
}

fn files(result: &ToolResult) -> Vec<String> {
    result.data["files"]
        .as_array()
        .unwrap_or_else(|| panic!("no files in {}", result.text))
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

/// A project with three Rust files of known ages and contents.
fn rust_project() -> (tempfile::TempDir, ToolContext) {
    let (dir, ctx) = project();
    write_aged(&ctx, "src/old.rs", "fn old() {}\nfn helper() {}\n", 10);
    write_aged(&ctx, "src/new.rs", "fn new() {}\n", 30);
    write_aged(
        &ctx,
        "src/util/mid.rs",
        "// no functions\nconst X: u8 = 1;\n",
        20,
    );
    (dir, ctx)
}

#[tokio::test]
async fn files_mode_lists_matching_files_newest_first() {
    let (_dir, ctx) = rust_project();
    let result = grep(&ctx, json!({"pattern": "fn \\w+"})).await;
    assert_eq!(
        result.text,
        "Found 2 files (newest first)\nsrc/new.rs\nsrc/old.rs"
    );
    assert_eq!(
        result.data,
        json!({
            "pattern": "fn \\w+",
            "mode": "files_with_matches",
            "files": ["src/new.rs", "src/old.rs"],
            "total_files": 2,
            "truncated": false,
        })
    );
}

#[tokio::test]
async fn content_mode_shows_path_line_and_text_by_path() {
    let (_dir, ctx) = rust_project();
    let result = grep(&ctx, json!({"pattern": "^fn", "output_mode": "content"})).await;
    assert_eq!(
        result.text,
        "src/new.rs:1:fn new() {}\nsrc/old.rs:1:fn old() {}\nsrc/old.rs:2:fn helper() {}"
    );
    assert_eq!(
        result.data,
        json!({
            "pattern": "^fn",
            "mode": "content",
            "matches": [
                {"file": "src/new.rs", "line": 1, "text": "fn new() {}"},
                {"file": "src/old.rs", "line": 1, "text": "fn old() {}"},
                {"file": "src/old.rs", "line": 2, "text": "fn helper() {}"},
            ],
            "total_matches": 3,
            "total_files": 2,
            "truncated": false,
        })
    );
}

#[tokio::test]
async fn content_mode_without_line_numbers() {
    let (_dir, ctx) = rust_project();
    let result = grep(
        &ctx,
        json!({"pattern": "helper", "output_mode": "content", "-n": false}),
    )
    .await;
    assert_eq!(result.text, "src/old.rs:fn helper() {}");
}

#[tokio::test]
async fn count_mode_counts_matching_lines_per_file() {
    let (_dir, ctx) = rust_project();
    let result = grep(&ctx, json!({"pattern": "fn|const", "output_mode": "count"})).await;
    assert_eq!(
        result.text,
        "src/new.rs:1\nsrc/old.rs:2\nsrc/util/mid.rs:1\nFound 4 matching lines in 3 files"
    );
    assert_eq!(
        result.data,
        json!({
            "pattern": "fn|const",
            "mode": "count",
            "counts": [
                {"file": "src/new.rs", "count": 1},
                {"file": "src/old.rs", "count": 2},
                {"file": "src/util/mid.rs", "count": 1},
            ],
            "total_matches": 4,
            "total_files": 3,
            "truncated": false,
        })
    );
}

#[tokio::test]
async fn case_is_ignored_with_dash_i() {
    let (_dir, ctx) = project();
    write(&ctx, "a.txt", "Hello\nHELLO\nhello\nbye\n");
    let sensitive = grep(&ctx, json!({"pattern": "hello", "output_mode": "count"})).await;
    assert_eq!(sensitive.data["total_matches"], 1);
    let insensitive = grep(
        &ctx,
        json!({"pattern": "hello", "output_mode": "count", "-i": true}),
    )
    .await;
    assert_eq!(insensitive.data["total_matches"], 3);
}

fn numbered(ctx: &ToolContext) {
    let text: String = (1..=12).map(|n| format!("line {n}\n")).collect();
    write(ctx, "n.txt", text);
}

#[tokio::test]
async fn context_lines_after_before_and_around() {
    let (_dir, ctx) = project();
    numbered(&ctx);
    let pattern = "^line (3|9)$";
    let after = grep(
        &ctx,
        json!({"pattern": pattern, "output_mode": "content", "-A": 1}),
    )
    .await;
    assert_eq!(
        after.text,
        "n.txt:3:line 3\nn.txt-4-line 4\n--\nn.txt:9:line 9\nn.txt-10-line 10"
    );
    let before = grep(
        &ctx,
        json!({"pattern": pattern, "output_mode": "content", "-B": 1}),
    )
    .await;
    assert_eq!(
        before.text,
        "n.txt-2-line 2\nn.txt:3:line 3\n--\nn.txt-8-line 8\nn.txt:9:line 9"
    );
    let around = grep(
        &ctx,
        json!({"pattern": "^line 3$", "output_mode": "content", "-C": 1}),
    )
    .await;
    assert_eq!(
        around.text,
        "n.txt-2-line 2\nn.txt:3:line 3\nn.txt-4-line 4"
    );
    assert_eq!(
        around.data["matches"],
        json!([{"file": "n.txt", "line": 3, "text": "line 3"}]),
        "context lines are not matches"
    );
}

#[tokio::test]
async fn context_groups_of_different_files_are_separated() {
    let (_dir, ctx) = project();
    write(&ctx, "a.txt", "x\nhit\ny\n");
    write(&ctx, "b.txt", "hit\n");
    let result = grep(
        &ctx,
        json!({"pattern": "hit", "output_mode": "content", "-C": 1}),
    )
    .await;
    assert_eq!(
        result.text,
        "a.txt-1-x\na.txt:2:hit\na.txt-3-y\n--\nb.txt:1:hit"
    );
}

#[tokio::test]
async fn multiline_matches_span_lines() {
    let (_dir, ctx) = project();
    write(&ctx, "s.rs", "struct A {\n    x: u8,\n}\nstruct B;\n");
    let single = grep(&ctx, json!({"pattern": "A \\{.*x"})).await;
    assert_eq!(single.text, "No matches found");
    let multi = grep(
        &ctx,
        json!({"pattern": "A \\{.*x", "multiline": true, "output_mode": "content"}),
    )
    .await;
    assert_eq!(multi.text, "s.rs:1:struct A {\ns.rs:2:    x: u8,");
    assert_eq!(multi.data["total_matches"], 2);
}

#[tokio::test]
async fn newline_in_a_pattern_needs_multiline() {
    let (_dir, ctx) = project();
    write(&ctx, "s.rs", "a\nb\n");
    let result = grep(&ctx, json!({"pattern": "a\\nb"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidPattern));
    assert!(
        result.text.contains("\"multiline\": true"),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn head_limit_caps_content_lines_and_says_so() {
    let (_dir, ctx) = project();
    numbered(&ctx);
    let result = grep(
        &ctx,
        json!({"pattern": "line", "output_mode": "content", "head_limit": 2}),
    )
    .await;
    assert_eq!(
        result.text,
        "n.txt:1:line 1\nn.txt:2:line 2\n[output cut at 2 lines; 12 matching lines in 1 file \
         in all — narrow with path, glob or type, or set head_limit]"
    );
    assert_eq!(result.data["matches"].as_array().unwrap().len(), 2);
    assert_eq!(result.data["total_matches"], 12);
    assert_eq!(result.data["truncated"], true);
}

#[tokio::test]
async fn head_limit_caps_files_and_zero_means_no_cap() {
    let (_dir, ctx) = project();
    for n in 0..5 {
        write_aged(&ctx, &format!("f{n}.txt"), "needle\n", n);
    }
    let capped = grep(&ctx, json!({"pattern": "needle", "head_limit": 2})).await;
    assert_eq!(files(&capped), vec!["f4.txt", "f3.txt"]);
    assert_eq!(capped.data["total_files"], 5);
    assert_eq!(capped.data["truncated"], true);
    assert!(
        capped.text.starts_with(
            "Found 5 files (newest first); showing the first 2 — narrow with path, glob or \
             type, or set head_limit\n"
        ),
        "{}",
        capped.text
    );
    let all = grep(&ctx, json!({"pattern": "needle", "head_limit": 0})).await;
    assert_eq!(files(&all).len(), 5);
    assert_eq!(all.data["truncated"], false);
}

#[tokio::test]
async fn head_limit_caps_count_mode_files() {
    let (_dir, ctx) = project();
    for name in ["a", "b", "c"] {
        write(&ctx, &format!("{name}.txt"), "needle\nneedle\n");
    }
    let result = grep(
        &ctx,
        json!({"pattern": "needle", "output_mode": "count", "head_limit": 1}),
    )
    .await;
    assert_eq!(
        result.text,
        "a.txt:2\nFound 6 matching lines in 3 files; showing the first 1 files — narrow with \
         path, glob or type, or set head_limit"
    );
    assert_eq!(result.data["truncated"], true);
}

#[tokio::test]
async fn content_mode_stops_at_500_lines_by_default() {
    let (_dir, ctx) = project();
    for n in 0..30 {
        let text: String = (0..30).map(|i| format!("hit {i}\n")).collect();
        write(&ctx, &format!("f{n:02}.txt"), text);
    }
    let result = grep(&ctx, json!({"pattern": "hit", "output_mode": "content"})).await;
    assert_eq!(result.data["matches"].as_array().unwrap().len(), 500);
    assert_eq!(result.data["total_matches"], 900);
    assert_eq!(result.data["total_files"], 30);
    assert_eq!(result.data["truncated"], true);
    assert_eq!(
        result.data["matches"][499],
        json!({"file": "f16.txt", "line": 20, "text": "hit 19"})
    );
}

#[tokio::test]
async fn long_matching_lines_are_cut() {
    let (_dir, ctx) = project();
    write(&ctx, "min.js", format!("needle{}\n", "x".repeat(1000)));
    let result = grep(&ctx, json!({"pattern": "needle", "output_mode": "content"})).await;
    let expected = format!(
        "min.js:1:needle{} … [line truncated: 1006 chars]",
        "x".repeat(494)
    );
    assert_eq!(result.text, expected);
}

#[tokio::test]
async fn type_and_glob_filter_the_files() {
    let (_dir, ctx) = project();
    write(&ctx, "src/lib.rs", "needle\n");
    write(&ctx, "app.py", "needle\n");
    write(&ctx, "web/app.ts", "needle\n");
    let by_type = grep(&ctx, json!({"pattern": "needle", "type": "py"})).await;
    assert_eq!(files(&by_type), vec!["app.py"]);
    let by_glob = grep(&ctx, json!({"pattern": "needle", "glob": "*.{rs,ts}"})).await;
    let mut found = files(&by_glob);
    found.sort();
    assert_eq!(found, vec!["src/lib.rs", "web/app.ts"]);
    let excluded = grep(&ctx, json!({"pattern": "needle", "glob": "!*.py"})).await;
    assert_eq!(excluded.data["total_files"], 2);
}

#[tokio::test]
async fn unknown_type_is_an_invalid_argument() {
    let (_dir, ctx) = project();
    let result = grep(&ctx, json!({"pattern": "x", "type": "cobolx"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(result.text.contains("cobolx"), "{}", result.text);
}

#[tokio::test]
async fn gitignored_hidden_and_binary_files_are_skipped() {
    let (_dir, ctx) = project();
    write(&ctx, ".gitignore", "build/\n");
    write(&ctx, "build/out.txt", "needle\n");
    write(&ctx, ".hidden/secret.txt", "needle\n");
    write(&ctx, ".git/config", "needle\n");
    write(&ctx, "blob.bin", b"needle\n\0\x01\x02");
    write(&ctx, "src/ok.txt", "needle\n");
    let result = grep(&ctx, json!({"pattern": "needle"})).await;
    assert_eq!(files(&result), vec!["src/ok.txt"]);
}

#[tokio::test]
async fn gitignore_is_honoured_without_a_git_directory() {
    let (_dir, ctx) = project();
    write(&ctx, ".gitignore", "ignored.txt\nbuild/\n");
    write(&ctx, "kept.txt", "needle\n");
    write(&ctx, "ignored.txt", "needle\n");
    write(&ctx, "build/out.txt", "needle\n");
    assert!(!ctx.root().join(".git").exists());
    let result = grep(&ctx, json!({"pattern": "needle"})).await;
    assert_eq!(files(&result), vec!["kept.txt"]);
    assert_eq!(result.data["total_files"], 1);
}

#[tokio::test]
async fn path_may_be_a_single_file() {
    let (_dir, ctx) = rust_project();
    let result = grep(
        &ctx,
        json!({"pattern": "fn", "path": "src/old.rs", "output_mode": "content"}),
    )
    .await;
    assert_eq!(
        result.text,
        "src/old.rs:1:fn old() {}\nsrc/old.rs:2:fn helper() {}"
    );
}

#[tokio::test]
async fn path_narrows_to_a_directory() {
    let (_dir, ctx) = rust_project();
    let result = grep(&ctx, json!({"pattern": "X", "path": "src/util"})).await;
    assert_eq!(files(&result), vec!["src/util/mid.rs"]);
}

#[tokio::test]
async fn no_match_is_a_success_with_empty_lists() {
    let (_dir, ctx) = rust_project();
    for mode in ["files_with_matches", "content", "count"] {
        let result = grep(&ctx, json!({"pattern": "absent", "output_mode": mode})).await;
        assert!(result.is_success());
        assert_eq!(result.text, "No matches found");
        assert_eq!(result.data["total_files"], 0);
        assert_eq!(result.data["truncated"], false);
    }
    let content = grep(&ctx, json!({"pattern": "absent", "output_mode": "content"})).await;
    assert_eq!(content.data["matches"], json!([]));
}

#[tokio::test]
async fn invalid_regex_is_an_invalid_pattern_with_the_regex_error() {
    let (_dir, ctx) = project();
    let result = grep(&ctx, json!({"pattern": "fn (foo"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidPattern));
    let message = &result.error.as_ref().unwrap().message;
    assert!(
        message.starts_with("invalid regex `fn (foo`: "),
        "{message}"
    );
    assert!(message.contains("unclosed group"), "{message}");
}

#[tokio::test]
async fn invalid_glob_is_an_invalid_pattern() {
    let (_dir, ctx) = project();
    let result = grep(&ctx, json!({"pattern": "x", "glob": "*.{rs"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidPattern));
}

#[tokio::test]
async fn unknown_output_mode_is_an_invalid_argument() {
    let (_dir, ctx) = project();
    let result = grep(&ctx, json!({"pattern": "x", "output_mode": "lines"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(
        result.text.contains("files_with_matches"),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn path_outside_the_project_is_refused() {
    let (_dir, ctx) = project();
    let result = grep(&ctx, json!({"pattern": "root", "path": "/etc"})).await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
}

#[tokio::test]
async fn missing_path_is_not_found() {
    let (_dir, ctx) = project();
    let result = grep(&ctx, json!({"pattern": "x", "path": "nope.rs"})).await;
    assert_eq!(code(&result), Some(ErrorCode::NotFound));
}

#[tokio::test]
async fn a_cancelled_search_stops_and_reports_interrupted() {
    let (_dir, ctx) = project();
    for n in 0..50 {
        write(&ctx, &format!("d{n}/f.txt"), "needle\n");
    }
    let token = CancellationToken::new();
    token.cancel();
    let ctx = ctx.with_cancellation(token);
    let call = GrepTool
        .prepare(json!({"pattern": "needle"}), &ctx)
        .unwrap();
    let result = call.run(&ctx).await;
    assert_eq!(code(&result), Some(ErrorCode::Interrupted));
}
