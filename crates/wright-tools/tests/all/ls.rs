//! The LS tool end to end, through the registry, on real directories in a temporary project.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolResult};
use wright_tools::ToolContext;

use crate::common::{code, project, run, write};

async fn ls(ctx: &ToolContext, args: Value) -> ToolResult {
    run(ctx, "LS", args).await
}

fn names(result: &ToolResult) -> Vec<String> {
    result.data["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn root_lists_directories_first_with_sizes_and_counts() {
    let (_dir, ctx) = project();
    write(&ctx, "src/main.rs", "fn main() {}\n");
    write(&ctx, "Cargo.toml", "x".repeat(2048));
    write(&ctx, "README.md", "hi\n");
    std::fs::create_dir(ctx.root().join("docs")).unwrap();
    let result = ls(&ctx, json!({})).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(
        result.text,
        "./ (2 dirs, 2 files)\ndocs/\nsrc/\nCargo.toml (2.0 KB)\nREADME.md (3 B)"
    );
    assert_eq!(
        result.data,
        json!({
            "path": ".",
            "entries": [
                {"name": "docs", "kind": "dir", "size": null},
                {"name": "src", "kind": "dir", "size": null},
                {"name": "Cargo.toml", "kind": "file", "size": 2048},
                {"name": "README.md", "kind": "file", "size": 3},
            ],
            "total": 4,
            "dirs": 2,
            "files": 2,
            "truncated": false,
        })
    );
}

#[tokio::test]
async fn subdirectory_is_listed_by_its_relative_path() {
    let (_dir, ctx) = project();
    write(&ctx, "src/a.rs", "");
    write(&ctx, "src/nested/b.rs", "");
    let result = ls(&ctx, json!({"path": "src"})).await;
    assert_eq!(result.text, "src/ (1 dir, 1 file)\nnested/\na.rs (0 B)");
    assert_eq!(result.data["path"], "src");
}

#[tokio::test]
async fn git_directory_is_hidden_but_other_dot_files_are_not() {
    let (_dir, ctx) = project();
    write(&ctx, ".git/HEAD", "ref: refs/heads/main\n");
    write(&ctx, ".gitignore", "target/\n");
    write(&ctx, ".github/workflows/ci.yml", "");
    let result = ls(&ctx, json!({})).await;
    assert_eq!(names(&result), vec![".github", ".gitignore"]);
}

#[tokio::test]
async fn ignore_globs_hide_matching_entries() {
    let (_dir, ctx) = project();
    write(&ctx, "app.log", "");
    write(&ctx, "main.rs", "");
    write(&ctx, "node_modules/x/index.js", "");
    let result = ls(&ctx, json!({"ignore": ["*.log", "node_modules/"]})).await;
    assert_eq!(names(&result), vec!["main.rs"]);
    assert_eq!(result.data["total"], 1);
}

#[tokio::test]
async fn more_than_a_thousand_entries_are_cut_and_flagged() {
    let (_dir, ctx) = project();
    for n in 0..1005 {
        write(&ctx, &format!("f{n:04}.txt"), "");
    }
    let result = ls(&ctx, json!({})).await;
    assert_eq!(result.data["entries"].as_array().unwrap().len(), 1000);
    assert_eq!(result.data["total"], 1005);
    assert_eq!(result.data["truncated"], true);
    assert!(
        result
            .text
            .ends_with("[showing the first 1000 of 1005 entries; pass `ignore` globs or list a subdirectory to see the rest]"),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn empty_directory_says_so() {
    let (_dir, ctx) = project();
    std::fs::create_dir(ctx.root().join("empty")).unwrap();
    let result = ls(&ctx, json!({"path": "empty"})).await;
    assert_eq!(result.text, "empty/ (0 dirs, 0 files)\n(empty directory)");
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_are_listed_as_such_with_their_target() {
    let (_dir, ctx) = project();
    write(&ctx, "real.txt", "abc");
    std::os::unix::fs::symlink("real.txt", ctx.root().join("link.txt")).unwrap();
    let result = ls(&ctx, json!({})).await;
    assert_eq!(
        result.text,
        "./ (0 dirs, 2 files)\nlink.txt -> real.txt\nreal.txt (3 B)"
    );
    assert_eq!(
        result.data["entries"][0],
        json!({"name": "link.txt", "kind": "symlink", "size": null})
    );
}

#[tokio::test]
async fn a_file_is_refused_with_a_pointer_to_read() {
    let (_dir, ctx) = project();
    write(&ctx, "main.rs", "");
    let result = ls(&ctx, json!({"path": "main.rs"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(result.text.contains("use the Read tool"), "{}", result.text);
}

#[tokio::test]
async fn missing_directory_is_not_found() {
    let (_dir, ctx) = project();
    let result = ls(&ctx, json!({"path": "nope"})).await;
    assert_eq!(code(&result), Some(ErrorCode::NotFound));
}

#[tokio::test]
async fn path_outside_the_project_is_refused() {
    let (_dir, ctx) = project();
    let result = ls(&ctx, json!({"path": ".."})).await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
}

#[tokio::test]
async fn invalid_ignore_glob_is_an_invalid_pattern() {
    let (_dir, ctx) = project();
    let result = ls(&ctx, json!({"ignore": ["[abc"]})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidPattern));
}
