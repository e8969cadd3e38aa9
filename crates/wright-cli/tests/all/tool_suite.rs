//! Every built-in tool end to end through `wright tool`: the real binary, a temporary project,
//! and the result checked on stdout and on disk.

use std::io::Write as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Project, Run};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;

/// `wright tool NAME ARGS`: the observation text on stdout.
fn tool(project: &Project, name: &str, args: &Value) -> Run {
    let run = Run::from(
        project
            .bare_command()
            .args(["tool", name, &args.to_string()])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run
}

/// `wright tool --json NAME ARGS`: the whole ToolResult.
fn tool_result(project: &Project, name: &str, args: &Value) -> Value {
    let run = Run::from(
        project
            .bare_command()
            .args(["tool", "--json", name, &args.to_string()])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// The error code of a failed result, failing the test if it succeeded.
fn error_code(result: &Value) -> &str {
    assert_eq!(result["status"], "error", "{result:#}");
    result["error"]["code"].as_str().unwrap()
}

fn error_message(result: &Value) -> &str {
    result["error"]["message"].as_str().unwrap()
}

fn bytes_of(project: &Project, relative: &str) -> Vec<u8> {
    std::fs::read(project.path().join(relative)).unwrap()
}

fn text_of(project: &Project, relative: &str) -> String {
    String::from_utf8(bytes_of(project, relative)).unwrap()
}

/// A directory outside the project holding `secret.txt`.
fn outside_dir() -> TempDir {
    let outside = TempDir::new().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    outside
}

fn ten_lines(project: &Project) {
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    project.write("ten.txt", &text);
}

// ---------------------------------------------------------------------------------------------
// Read

#[test]
fn read_window_shows_numbered_lines_and_how_to_read_on() {
    let project = Project::new();
    ten_lines(&project);
    let run = tool(
        &project,
        "Read",
        &json!({"file_path": "ten.txt", "offset": 4, "limit": 3}),
    );
    assert_eq!(
        run.stdout,
        "     4\tline 4\n     5\tline 5\n     6\tline 6\n\
         [lines 4-6 of 10; use offset=7 to read more]\n"
    );
}

#[test]
fn read_window_reaching_the_end_has_a_plain_range_note() {
    let project = Project::new();
    ten_lines(&project);
    let run = tool(
        &project,
        "Read",
        &json!({"file_path": "ten.txt", "offset": 9, "limit": 5}),
    );
    assert_eq!(
        run.stdout,
        "     9\tline 9\n    10\tline 10\n[lines 9-10 of 10]\n"
    );
}

#[test]
fn read_of_a_binary_file_is_refused_as_binary_file() {
    let project = Project::new();
    std::fs::write(project.path().join("blob.bin"), b"PK\x03\x04\0\0\x01binary").unwrap();
    let result = tool_result(&project, "Read", &json!({"file_path": "blob.bin"}));
    assert_eq!(error_code(&result), "binary_file");
}

#[test]
fn read_of_a_missing_file_is_not_found() {
    let project = Project::new();
    let result = tool_result(&project, "Read", &json!({"file_path": "nope/missing.rs"}));
    assert_eq!(error_code(&result), "not_found");
    assert!(
        error_message(&result).contains("nope/missing.rs"),
        "{result:#}"
    );
}

#[test]
fn read_of_an_absolute_path_outside_the_project_is_refused() {
    let project = Project::new();
    let outside = outside_dir();
    let secret = outside.path().join("secret.txt");
    let result = tool_result(
        &project,
        "Read",
        &json!({"file_path": secret.to_string_lossy()}),
    );
    assert_eq!(error_code(&result), "path_outside_project");
}

#[cfg(unix)]
#[test]
fn read_through_a_symlink_pointing_outside_is_refused() {
    let project = Project::new();
    let outside = outside_dir();
    std::os::unix::fs::symlink(outside.path(), project.path().join("out")).unwrap();
    let result = tool_result(&project, "Read", &json!({"file_path": "out/secret.txt"}));
    assert_eq!(error_code(&result), "path_outside_project");
    assert!(!result["text"].as_str().unwrap().contains("\tsecret"));
}

// ---------------------------------------------------------------------------------------------
// Write

#[test]
fn write_outside_the_project_is_refused_and_writes_nothing() {
    let project = Project::new();
    let outside = outside_dir();
    let target = outside.path().join("escape.txt");
    let result = tool_result(
        &project,
        "Write",
        &json!({"file_path": target.to_string_lossy(), "content": "x\n"}),
    );
    assert_eq!(error_code(&result), "path_outside_project");
    assert!(!target.exists());
}

#[test]
fn write_with_dot_dot_out_of_the_project_is_refused() {
    let project = Project::new();
    // Named after the project, so that no other test or run can have made it.
    let name = format!(
        "{}-escape.txt",
        project.path().file_name().unwrap().to_string_lossy()
    );
    let result = tool_result(
        &project,
        "Write",
        &json!({"file_path": format!("sub/../../{name}"), "content": "x\n"}),
    );
    assert_eq!(error_code(&result), "path_outside_project");
    assert!(!project.path().parent().unwrap().join(name).exists());
}

#[cfg(unix)]
#[test]
fn write_through_a_symlinked_directory_pointing_outside_is_refused() {
    let project = Project::new();
    let outside = outside_dir();
    std::os::unix::fs::symlink(outside.path(), project.path().join("out")).unwrap();
    let result = tool_result(
        &project,
        "Write",
        &json!({"file_path": "out/new.txt", "content": "planted\n"}),
    );
    assert_eq!(error_code(&result), "path_outside_project");
    assert!(!outside.path().join("new.txt").exists());
}

#[cfg(unix)]
#[test]
fn write_to_a_symlinked_file_pointing_outside_is_refused() {
    let project = Project::new();
    let outside = outside_dir();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        project.path().join("link.txt"),
    )
    .unwrap();
    let result = tool_result(
        &project,
        "Write",
        &json!({"file_path": "link.txt", "content": "overwritten\n"}),
    );
    assert_eq!(error_code(&result), "path_outside_project");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "secret\n"
    );
}

#[test]
fn write_creates_missing_parent_directories_and_reports_created() {
    let project = Project::new();
    let result = tool_result(
        &project,
        "Write",
        &json!({"file_path": "deep/er/new.txt", "content": "a\nb\n"}),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(
        result["data"],
        json!({
            "file_path": "deep/er/new.txt",
            "action": "created",
            "lines": 2,
            "bytes": 4,
            "head": "a\nb",
            "truncated": false,
            "diff": "--- a/deep/er/new.txt\n+++ b/deep/er/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
        })
    );
    assert_eq!(text_of(&project, "deep/er/new.txt"), "a\nb\n");
}

#[test]
fn write_over_an_existing_file_reports_overwritten() {
    let project = Project::new();
    project.write("notes.txt", "old\ncontent\n");
    let result = tool_result(
        &project,
        "Write",
        &json!({"file_path": "notes.txt", "content": "new\n"}),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["action"], "overwritten");
    assert_eq!(
        result["text"], "Overwrote notes.txt (1 line, 4 bytes).",
        "{result:#}"
    );
    assert_eq!(text_of(&project, "notes.txt"), "new\n");
}

// ---------------------------------------------------------------------------------------------
// Edit and MultiEdit

#[test]
fn edit_exact_match_changes_the_file_on_disk() {
    let project = Project::new();
    project.write("src/lib.rs", "fn a() {\n    let x = 1;\n}\n");
    let result = tool_result(
        &project,
        "Edit",
        &json!({"file_path": "src/lib.rs", "old_string": "let x = 1;", "new_string": "let x = 2;"}),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["replacements"], 1);
    assert_eq!(result["data"]["fallback"], Value::Null);
    assert_eq!(
        text_of(&project, "src/lib.rs"),
        "fn a() {\n    let x = 2;\n}\n"
    );
}

#[test]
fn edit_ambiguous_match_names_the_lines_and_changes_nothing() {
    let project = Project::new();
    let original = "fn a() {\n    x();\n}\nfn b() {\n    x();\n}\n";
    project.write("e.rs", original);
    let result = tool_result(
        &project,
        "Edit",
        &json!({"file_path": "e.rs", "old_string": "x();", "new_string": "y();"}),
    );
    assert_eq!(error_code(&result), "ambiguous_match");
    assert!(
        error_message(&result).contains("2 places in e.rs (lines 2, 5)"),
        "{result:#}"
    );
    assert_eq!(text_of(&project, "e.rs"), original);
}

#[test]
fn edit_falls_back_to_ignoring_indentation_and_keeps_the_file_indentation() {
    let project = Project::new();
    project.write(
        "f.rs",
        "impl A {\n        fn a() {\n            x();\n        }\n}\n",
    );
    let result = tool_result(
        &project,
        "Edit",
        &json!({
            "file_path": "f.rs",
            "old_string": "fn a() {\n    x();\n}",
            "new_string": "fn a() {\n    y();\n    z();\n}",
        }),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["fallback"], "indentation");
    assert_eq!(
        text_of(&project, "f.rs"),
        "impl A {\n        fn a() {\n            y();\n            z();\n        }\n}\n"
    );
}

#[test]
fn edit_falls_back_to_ignoring_trailing_whitespace() {
    let project = Project::new();
    project.write("t.rs", "fn a() {   \n    x();\t\n}\n");
    let result = tool_result(
        &project,
        "Edit",
        &json!({
            "file_path": "t.rs",
            "old_string": "fn a() {\n    x();\n}",
            "new_string": "fn b() {\n    x();\n}",
        }),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["fallback"], "trailing_whitespace");
    assert_eq!(text_of(&project, "t.rs"), "fn b() {\n    x();\n}\n");
}

#[test]
fn edit_no_match_shows_the_closest_lines_with_their_numbers() {
    let project = Project::new();
    let original = "fn main() {\n    let total = 0;\n    run(total);\n}\n\n\
                    fn run(n: u32) {\n    println!(\"{n}\");\n}\n";
    project.write("main.rs", original);
    let result = tool_result(
        &project,
        "Edit",
        &json!({
            "file_path": "main.rs",
            "old_string": "fn run(count: u32) {\n    println!(\"{count}\");",
            "new_string": "fn run(count: u64) {\n    println!(\"{count}\");",
        }),
    );
    assert_eq!(error_code(&result), "no_match");
    assert!(
        error_message(&result).contains(
            "The closest region is lines 6-7:\n     6\tfn run(n: u32) {\n     7\t    println!(\"{n}\");\n"
        ),
        "{result:#}"
    );
    assert_eq!(text_of(&project, "main.rs"), original);
}

#[test]
fn edit_of_a_crlf_file_keeps_crlf_line_endings_on_disk() {
    let project = Project::new();
    project.write("c.txt", "one\r\ntwo\r\nthree\r\n");
    let result = tool_result(
        &project,
        "Edit",
        &json!({"file_path": "c.txt", "old_string": "two\nthree", "new_string": "TWO\nTHREE\nfour"}),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(
        bytes_of(&project, "c.txt"),
        b"one\r\nTWO\r\nTHREE\r\nfour\r\n".to_vec()
    );
}

#[test]
fn edit_keeps_the_utf8_bom() {
    let project = Project::new();
    std::fs::write(project.path().join("b.txt"), b"\xEF\xBB\xBFhello\nworld\n").unwrap();
    let result = tool_result(
        &project,
        "Edit",
        &json!({"file_path": "b.txt", "old_string": "hello", "new_string": "bye"}),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(
        bytes_of(&project, "b.txt"),
        b"\xEF\xBB\xBFbye\nworld\n".to_vec()
    );
}

#[test]
fn multi_edit_whose_second_edit_fails_leaves_the_file_unchanged() {
    let project = Project::new();
    project.write("m.txt", "alpha\nbeta\ngamma\n");
    let result = tool_result(
        &project,
        "MultiEdit",
        &json!({
            "file_path": "m.txt",
            "edits": [
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "no such text", "new_string": "x"},
            ],
        }),
    );
    assert_eq!(error_code(&result), "no_match");
    let message = error_message(&result);
    assert!(message.contains("edit 2"), "{message}");
    assert!(message.contains("No edits were applied"), "{message}");
    assert_eq!(text_of(&project, "m.txt"), "alpha\nbeta\ngamma\n");
}

// ---------------------------------------------------------------------------------------------
// Glob, Grep, LS

/// `kept.txt` and two ignored files (by name and by directory) that all contain `needle`, with
/// a `.gitignore` but no `.git` directory.
fn project_with_gitignore() -> Project {
    let project = Project::new();
    project.write(".gitignore", "ignored.txt\nbuild/\n");
    project.write("kept.txt", "needle\n");
    project.write("ignored.txt", "needle\n");
    project.write("build/out.txt", "needle\n");
    assert!(!project.path().join(".git").exists());
    project
}

#[test]
fn glob_skips_gitignored_files_without_a_git_directory() {
    let project = project_with_gitignore();
    let result = tool_result(&project, "Glob", &json!({"pattern": "**/*.txt"}));
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["files"], json!(["kept.txt"]));
    assert_eq!(result["data"]["total"], 1);
}

#[test]
fn grep_skips_gitignored_files_without_a_git_directory() {
    let project = project_with_gitignore();
    let result = tool_result(&project, "Grep", &json!({"pattern": "needle"}));
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["files"], json!(["kept.txt"]));
    assert_eq!(result["data"]["total_files"], 1);
}

#[test]
fn grep_content_mode_shows_line_numbers_and_context() {
    let project = Project::new();
    project.write("g.txt", "a\nhit\nb\nc\nd\ne\nhit\nf\n");
    let run = tool(
        &project,
        "Grep",
        &json!({"pattern": "hit", "output_mode": "content", "-n": true, "-C": 1}),
    );
    assert_eq!(
        run.stdout,
        "g.txt-1-a\ng.txt:2:hit\ng.txt-3-b\n--\ng.txt-6-e\ng.txt:7:hit\ng.txt-8-f\n"
    );
}

#[test]
fn grep_invalid_regex_is_invalid_pattern() {
    let project = Project::new();
    project.write("a.txt", "(x\n");
    let result = tool_result(&project, "Grep", &json!({"pattern": "(unclosed"}));
    assert_eq!(error_code(&result), "invalid_pattern");
    assert!(error_message(&result).contains("(unclosed"), "{result:#}");
}

#[test]
fn ls_lists_directories_first_and_hides_git() {
    let project = Project::new();
    project.write(".git/HEAD", "ref: refs/heads/main\n");
    project.write("src/main.rs", "fn main() {}\n");
    project.write("Docs/guide.md", "# Guide\n");
    project.write("b.txt", "bb\n");
    project.write("A.md", "a\n");
    let run = tool(&project, "LS", &json!({}));
    // `.wright/` holds the test project's config.
    assert_eq!(
        run.stdout,
        "./ (3 dirs, 2 files)\n.wright/\nDocs/\nsrc/\nA.md (2 B)\nb.txt (3 B)\n"
    );
}

// ---------------------------------------------------------------------------------------------
// TodoWrite

#[test]
fn todo_write_refuses_two_items_in_progress() {
    let project = Project::new();
    let result = tool_result(
        &project,
        "TodoWrite",
        &json!({"todos": [
            {"id": "1", "content": "Read the parser", "status": "in_progress"},
            {"id": "2", "content": "Fix the bug", "status": "in_progress"},
            {"id": "3", "content": "Run the tests", "status": "pending"},
        ]}),
    );
    assert_eq!(error_code(&result), "invalid_arguments");
    assert!(
        error_message(&result).contains("at most one todo may be in_progress"),
        "{result:#}"
    );
}

// ---------------------------------------------------------------------------------------------
// Bash

#[test]
fn bash_timeout_kills_the_background_children_too() {
    let project = Project::new();
    let started = Instant::now();
    let result = tool_result(
        &project,
        "Bash",
        &json!({"command": "(sleep 1; touch marker) & sleep 30", "timeout_ms": 300}),
    );
    let elapsed = started.elapsed();
    assert_eq!(error_code(&result), "timeout");
    assert_eq!(result["data"]["timed_out"], true);
    assert!(elapsed < Duration::from_secs(3), "took {elapsed:?}");
    // The background subshell would have touched the marker 1 s after it started.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!project.path().join("marker").exists());
}

#[test]
fn bash_huge_output_is_cut_in_the_middle_with_the_full_count() {
    let project = Project::new();
    // 10 000 lines of 10 characters: 100 000 characters.
    let result = tool_result(
        &project,
        "Bash",
        &json!({"command": "for i in $(seq 1 10000); do printf '%09d\\n' $i; done"}),
    );
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["stdout_chars"], 100_000);
    let text = result["text"].as_str().unwrap();
    assert!(
        text.contains("\n… [70000 characters cut] …\n"),
        "{}",
        &text[..200]
    );
    assert!(text.contains("<stdout>\n000000001\n000000002\n"));
    assert!(text.contains("000009999\n000010000\n</stdout>"));
    assert!(text.chars().count() < 31_000, "{} chars", text.len());
}

#[test]
fn bash_stdin_is_closed_so_cat_returns_at_once() {
    let project = Project::new();
    let args = json!({"command": "cat", "timeout_ms": 5000});
    let mut child = project
        .bare_command()
        .args(["tool", "--json", "Bash", &args.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wright's own stdin stays open with data in it: the command must not see it.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"leaked from the terminal\n").unwrap();
    let started = Instant::now();
    let run = Run::from(child.wait_with_output().unwrap());
    let elapsed = started.elapsed();
    drop(stdin);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let result: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(result["status"], "success", "{result:#}");
    assert_eq!(result["data"]["exit_code"], 0);
    assert_eq!(result["data"]["stdout"], "");
    assert!(elapsed < Duration::from_secs(3), "took {elapsed:?}");
}
