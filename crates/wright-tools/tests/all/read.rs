//! The Read tool end to end, through the registry, on real files in a temporary project.

use std::fs::File;
use std::path::Path;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolResult};
use wright_tools::ToolContext;

use crate::common::{code, project, run, write};

async fn read(ctx: &ToolContext, args: Value) -> ToolResult {
    run(ctx, "Read", args).await
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
async fn small_file_is_numbered_with_the_range_note() {
    let (_dir, ctx) = project();
    write(&ctx, "src/main.rs", "fn main() {\n    run();\n}\n");
    let result = read(&ctx, json!({"file_path": "src/main.rs"})).await;
    assert_eq!(
        result.text,
        "     1\tfn main() {\n     2\t    run();\n     3\t}\n[lines 1-3 of 3]"
    );
    let mut data = result.data.clone();
    assert!(data["mtime"].as_f64().unwrap() > 0.0);
    data["mtime"] = Value::Null;
    assert_eq!(
        data,
        json!({
            "file_path": "src/main.rs",
            "mtime": null,
            "offset": 1,
            "limit": 2000,
            "lines_shown": 3,
            "total_lines": 3,
            "truncated": false,
            "long_lines_cut": 0,
            "content": "     1\tfn main() {\n     2\t    run();\n     3\t}",
            "modified_externally": false,
        })
    );
}

#[tokio::test]
async fn offset_and_limit_select_a_window_and_say_how_to_read_on() {
    let (_dir, ctx) = project();
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    write(&ctx, "ten.txt", text);
    let result = read(
        &ctx,
        json!({"file_path": "ten.txt", "offset": 3, "limit": 2}),
    )
    .await;
    assert_eq!(
        result.text,
        "     3\tline 3\n     4\tline 4\n[lines 3-4 of 10; use offset=5 to read more]"
    );
    assert_eq!(result.data["lines_shown"], 2);
    assert_eq!(result.data["truncated"], true);
}

#[tokio::test]
async fn default_limit_is_2000_lines() {
    let (_dir, ctx) = project();
    write(&ctx, "big.txt", "x\n".repeat(2500));
    let result = read(&ctx, json!({"file_path": "big.txt"})).await;
    assert!(
        result
            .text
            .ends_with("\n[lines 1-2000 of 2500; use offset=2001 to read more]")
    );
    assert_eq!(result.data["lines_shown"], 2000);
}

#[tokio::test]
async fn long_line_is_cut_with_a_marker() {
    let (_dir, ctx) = project();
    write(&ctx, "min.js", format!("{}\nshort\n", "a".repeat(5234)));
    let result = read(&ctx, json!({"file_path": "min.js"})).await;
    let expected = format!(
        "     1\t{} … [line truncated: 5234 chars]\n     2\tshort\n[lines 1-2 of 2; 1 long line cut]",
        "a".repeat(2000)
    );
    assert_eq!(result.text, expected);
    assert_eq!(result.data["truncated"], true);
}

#[tokio::test]
async fn crlf_is_shown_without_carriage_returns() {
    let (_dir, ctx) = project();
    write(&ctx, "win.txt", "one\r\ntwo\r\n");
    let result = read(&ctx, json!({"file_path": "win.txt"})).await;
    assert_eq!(result.text, "     1\tone\n     2\ttwo\n[lines 1-2 of 2]");
}

#[tokio::test]
async fn empty_file_is_a_success_that_says_so() {
    let (_dir, ctx) = project();
    write(&ctx, "empty.txt", "");
    let result = read(&ctx, json!({"file_path": "empty.txt"})).await;
    assert!(result.is_success());
    assert_eq!(result.text, "empty.txt is empty (0 lines).");
    assert_eq!(result.data["total_lines"], 0);
}

#[tokio::test]
async fn offset_past_the_end_says_how_long_the_file_is() {
    let (_dir, ctx) = project();
    write(&ctx, "two.txt", "a\nb\n");
    let result = read(&ctx, json!({"file_path": "two.txt", "offset": 3})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(message(&result).contains("past the end of two.txt, which has 2 lines"));
}

#[tokio::test]
async fn directory_is_refused_pointing_at_ls() {
    let (_dir, ctx) = project();
    write(&ctx, "src/lib.rs", "");
    let result = read(&ctx, json!({"file_path": "src"})).await;
    assert_eq!(code(&result), Some(ErrorCode::IsDirectory));
    assert!(message(&result).contains("LS"));
}

#[tokio::test]
async fn binary_file_is_refused() {
    let (_dir, ctx) = project();
    write(&ctx, "logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let result = read(&ctx, json!({"file_path": "logo.png"})).await;
    assert_eq!(code(&result), Some(ErrorCode::BinaryFile));
}

#[tokio::test]
async fn missing_file_names_the_path_as_given() {
    let (_dir, ctx) = project();
    let result = read(&ctx, json!({"file_path": "./src/nope.rs"})).await;
    assert_eq!(code(&result), Some(ErrorCode::NotFound));
    assert!(message(&result).contains("./src/nope.rs"));
}

#[tokio::test]
async fn missing_file_path_is_invalid_arguments() {
    let (_dir, ctx) = project();
    let result = read(&ctx, json!({"path": "src/main.rs"})).await;
    assert_eq!(code(&result), Some(ErrorCode::InvalidArguments));
    assert!(message(&result).contains("missing field `file_path`"));
    assert!(message(&result).contains(r#"Read[{"file_path": string"#));
}

#[tokio::test]
async fn paths_outside_the_project_are_refused() {
    let (dir, ctx) = project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s3cret\n").unwrap();
    let sibling = format!(
        "../{}/secret.txt",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    let absolute = outside.path().join("secret.txt");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), dir.path().join("escape")).unwrap();
    let mut paths = vec![
        "../secret.txt".to_string(),
        absolute.to_string_lossy().into_owned(),
    ];
    if outside.path().parent() == dir.path().parent() {
        paths.push(sibling);
    }
    #[cfg(unix)]
    paths.push("escape/secret.txt".to_string());
    for path in paths {
        let result = read(&ctx, json!({"file_path": path})).await;
        assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject), "{path}");
        assert!(!result.text.contains("s3cret"));
    }
}

#[tokio::test]
async fn outside_change_is_noted_on_the_next_read() {
    let (_dir, ctx) = project();
    write(&ctx, "notes.md", "v1\n");
    let path = ctx.root().join("notes.md");
    set_mtime(
        &path,
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000),
    );
    let first = read(&ctx, json!({"file_path": "notes.md"})).await;
    assert!(!first.text.contains("modified externally"));

    write(&ctx, "notes.md", "v2\n");
    set_mtime(
        &path,
        SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000),
    );
    let second = read(&ctx, json!({"file_path": "notes.md"})).await;
    assert_eq!(
        second.text,
        "     1\tv2\n[lines 1-1 of 1]\nNote: notes.md was modified externally."
    );
    assert_eq!(second.data["modified_externally"], true);
}

#[tokio::test]
async fn unchanged_re_read_has_no_note() {
    let (_dir, ctx) = project();
    write(&ctx, "notes.md", "v1\n");
    read(&ctx, json!({"file_path": "notes.md"})).await;
    let again = read(&ctx, json!({"file_path": "notes.md"})).await;
    assert!(!again.text.contains("modified externally"));
    assert_eq!(again.data["modified_externally"], false);
}

#[tokio::test]
async fn recorded_own_write_is_not_external() {
    let (_dir, ctx) = project();
    write(&ctx, "notes.md", "v1\n");
    let path = ctx.root().join("notes.md");
    set_mtime(
        &path,
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000),
    );
    read(&ctx, json!({"file_path": "notes.md"})).await;

    write(&ctx, "notes.md", "v2\n");
    set_mtime(
        &path,
        SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000),
    );
    ctx.record_mtime(&path);
    let again = read(&ctx, json!({"file_path": "notes.md"})).await;
    assert_eq!(again.data["modified_externally"], false);
}

#[tokio::test]
async fn a_one_megabyte_line_is_cut_with_a_marker() {
    let (_dir, ctx) = project();
    write(
        &ctx,
        "dump.json",
        format!("{}\nnext\n", "y".repeat(1_000_000)),
    );
    let result = read(&ctx, json!({"file_path": "dump.json"})).await;
    let expected = format!(
        "     1\t{} … [line truncated: 1000000 chars]\n     2\tnext\n[lines 1-2 of 2; 1 long line cut]",
        "y".repeat(2000)
    );
    assert_eq!(result.text, expected);
    assert_eq!(result.data["long_lines_cut"], 1);
}

#[tokio::test]
async fn offset_near_the_end_of_a_large_file_shows_its_last_lines() {
    let (_dir, ctx) = project();
    let text: String = (1..=300_000).map(|n| format!("entry {n}\n")).collect();
    write(&ctx, "app.log", text);
    let result = read(
        &ctx,
        json!({"file_path": "app.log", "offset": 299_998, "limit": 50}),
    )
    .await;
    assert_eq!(
        result.text,
        "299998\tentry 299998\n299999\tentry 299999\n300000\tentry 300000\n\
         [lines 299998-300000 of 300000]"
    );
    assert_eq!(result.data["lines_shown"], 3);
    assert_eq!(result.data["truncated"], false);
}

#[tokio::test]
async fn total_lines_is_the_same_with_or_without_a_final_newline() {
    let (_dir, ctx) = project();
    let body: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
    write(&ctx, "with.txt", &body);
    write(&ctx, "without.txt", body.trim_end());
    for path in ["with.txt", "without.txt"] {
        let result = read(&ctx, json!({"file_path": path, "offset": 100_000})).await;
        assert_eq!(result.data["total_lines"], 100_000, "{path}");
        assert_eq!(
            result.text, "100000\t100000\n[lines 100000-100000 of 100000]",
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_character_across_a_read_block_boundary_is_shown_whole() {
    let (_dir, ctx) = project();
    // 65,535 bytes, then an `é` whose two bytes lie either side of the 64 KiB mark.
    let mut text = "a\n".repeat(32_767);
    text.push_str("x\u{e9}\r\n");
    write(&ctx, "accents.txt", text);
    let result = read(&ctx, json!({"file_path": "accents.txt", "offset": 32_768})).await;
    assert_eq!(result.text, " 32768\tx\u{e9}\n[lines 32768-32768 of 32768]");
    assert_eq!(result.data.get("invalid_utf8_bytes"), None);
}

#[tokio::test]
async fn undecodable_bytes_past_the_first_64_kib_are_counted_not_called_binary() {
    let (_dir, ctx) = project();
    let mut bytes = "ok\n".repeat(30_000).into_bytes();
    bytes.extend_from_slice(&[0xff; 5000]);
    bytes.push(b'\n');
    write(&ctx, "mixed.log", bytes);
    let result = read(&ctx, json!({"file_path": "mixed.log", "offset": 30_001})).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.data["invalid_utf8_bytes"], 5000);
    assert!(result.text.ends_with(
        "Note: mixed.log is not valid UTF-8; its 5000 undecodable bytes are shown as \u{FFFD}."
    ));
}

#[tokio::test]
async fn bom_is_hidden_from_the_first_line() {
    let (_dir, ctx) = project();
    write(&ctx, "bom.txt", b"\xEF\xBB\xBFfirst\nsecond\n");
    let result = read(&ctx, json!({"file_path": "bom.txt"})).await;
    assert_eq!(
        result.text,
        "     1\tfirst\n     2\tsecond\n[lines 1-2 of 2]"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_fifo_is_refused_without_blocking() {
    let (_dir, ctx) = project();
    let fifo = ctx.root().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let result = read(&ctx, json!({"file_path": "pipe"})).await;
    assert_eq!(code(&result), Some(ErrorCode::Other));
    assert!(message(&result).contains("not a regular file"));
}
