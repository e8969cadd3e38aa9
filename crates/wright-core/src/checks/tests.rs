use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn checks(specs: &[(&str, &str)]) -> Checks {
    let specs = specs
        .iter()
        .map(|(pattern, command)| CheckSpec {
            pattern: pattern.to_string(),
            command: command.to_string(),
        })
        .collect();
    Checks::new(specs, DEFAULT_CHECK_TIMEOUT).unwrap()
}

fn paths(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

#[test]
fn a_pattern_without_a_slash_matches_the_name_at_any_depth() {
    let checks = checks(&[("*.rs", "cargo check")]);
    assert_eq!(checks.due(&paths(&["main.rs"])), vec!["cargo check"]);
    assert_eq!(
        checks.due(&paths(&["crates/a/src/lib.rs"])),
        vec!["cargo check"]
    );
    assert_eq!(checks.due(&paths(&["README.md"])), Vec::<String>::new());
}

#[test]
fn a_pattern_with_a_slash_is_anchored_at_the_root() {
    let checks = checks(&[("src/*.py", "ruff"), ("/setup.py", "setup-check")]);
    assert_eq!(checks.due(&paths(&["src/a.py"])), vec!["ruff"]);
    assert_eq!(checks.due(&paths(&["lib/src/a.py"])), Vec::<String>::new());
    assert_eq!(checks.due(&paths(&["src/deep/a.py"])), Vec::<String>::new());
    assert_eq!(checks.due(&paths(&["setup.py"])), vec!["setup-check"]);
    assert_eq!(checks.due(&paths(&["sub/setup.py"])), Vec::<String>::new());
}

#[test]
fn a_double_star_crosses_directories() {
    let checks = checks(&[("src/**/*.ts", "tsc")]);
    assert_eq!(checks.due(&paths(&["src/a/b/c.ts"])), vec!["tsc"]);
}

#[test]
fn the_same_command_runs_once_in_the_order_of_the_settings() {
    let checks = checks(&[
        ("*.toml", "cargo check"),
        ("*.md", "markdownlint"),
        ("*.rs", "cargo check"),
    ]);
    assert_eq!(
        checks.due(&paths(&["Cargo.toml", "src/lib.rs"])),
        vec!["cargo check"]
    );
}

#[test]
fn files_are_the_matching_edited_files_shell_quoted() {
    let checks = checks(&[("*.py", "ruff check {files}")]);
    assert_eq!(
        checks.due(&paths(&["a.py", "notes.txt", "it's here.py"])),
        vec![r#"ruff check a.py "it's here.py""#]
    );
}

#[test]
fn a_bad_pattern_is_an_error_naming_it() {
    let error = Checks::new(
        vec![CheckSpec {
            pattern: "src/[".into(),
            command: "true".into(),
        }],
        DEFAULT_CHECK_TIMEOUT,
    )
    .unwrap_err();
    assert_eq!(error.pattern, "src/[");
    assert!(
        error.to_string().contains("invalid `[checks]` pattern"),
        "{error}"
    );
}

#[test]
fn only_successful_file_edits_inside_the_project_count_as_edits() {
    let write = ToolResult::success(
        "",
        json!({"file_path": "src/a.rs", "action": "created", "lines": 1, "bytes": 2}),
    );
    assert_eq!(edited_files("Write", &write), paths(&["src/a.rs"]));
    let edit = ToolResult::success(
        "",
        json!({"file_path": "b.rs", "replacements": 1, "applied": true, "diff": ""}),
    );
    assert_eq!(edited_files("MultiEdit", &edit), paths(&["b.rs"]));
    let outside = ToolResult::success(
        "",
        json!({"file_path": "/tmp/x.rs", "action": "created", "lines": 1, "bytes": 2}),
    );
    assert_eq!(edited_files("Write", &outside), Vec::<String>::new());
    let bash = ToolResult::success("", json!({"command": "touch x.rs"}));
    assert_eq!(edited_files("Bash", &bash), Vec::<String>::new());
    let failed = ToolResult::error(wright_protocol::ErrorCode::Io, "disk full");
    assert_eq!(edited_files("Write", &failed), Vec::<String>::new());
}

fn run(exit_code: Option<i32>, output: &str) -> CommandRun {
    CommandRun {
        exit_code,
        timed_out: false,
        interrupted: false,
        output: output.into(),
        notes: Vec::new(),
    }
}

#[test]
fn a_passing_check_leaves_nothing() {
    assert_eq!(
        failure("true", &run(Some(0), "all good"), DEFAULT_CHECK_TIMEOUT),
        None
    );
}

#[test]
fn a_failed_check_note_names_the_command_the_exit_and_the_output() {
    let failed = failure(
        "grep -q good bad.txt",
        &run(Some(3), "bad content\n"),
        DEFAULT_CHECK_TIMEOUT,
    )
    .unwrap();
    assert_eq!(
        failure_note(&failed),
        "Check failed: grep -q good bad.txt (exit 3):\nbad content"
    );
}

#[test]
fn a_timed_out_check_says_so() {
    let mut timed_out = run(None, "compiling\n");
    timed_out.timed_out = true;
    let failed = failure("cargo check", &timed_out, Duration::from_secs(5)).unwrap();
    assert_eq!(
        failure_note(&failed),
        "Check failed: cargo check (timed out):\ncompiling\n\
         [the check did not finish within 5 s and was stopped]"
    );
}

#[test]
fn the_observation_keeps_the_last_lines_of_long_output() {
    let output: Vec<String> = (1..=250).map(|n| format!("line {n}")).collect();
    let kept = observation_output(&output.join("\n"));
    let expected = format!("[… 50 earlier lines cut]\n{}", output[50..].join("\n"));
    assert_eq!(kept, expected);
}

#[test]
fn the_observation_keeps_at_most_its_byte_cap() {
    let output: Vec<String> = (0..100).map(|_| "x".repeat(999)).collect();
    let kept = observation_output(&output.join("\n"));
    assert!(
        kept.starts_with("[… 84 earlier lines cut]\n"),
        "{}",
        &kept[..40]
    );
    assert!(kept.len() <= OBSERVATION_MAX_BYTES + 40);
}
