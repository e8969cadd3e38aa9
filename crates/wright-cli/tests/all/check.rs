//! `wright check`: commands judged without being run — one line (or JSON object) per command,
//! under the project's `[bash]` policy, exit 0 only when all are allowed.

use crate::common::{Project, Run};
use pretty_assertions::assert_eq;
use serde_json::json;

fn check(project: &Project, args: &[&str]) -> Run {
    Run::from(
        project
            .bare_command()
            .arg("check")
            .args(args)
            .output()
            .unwrap(),
    )
}

#[test]
fn json_gives_one_verdict_per_command_and_nothing_runs() {
    let project = Project::new();
    let heredoc = "cat > notes.txt <<'EOF'\nrm -rf ~\nEOF";
    let run = check(
        &project,
        &[
            "--json",
            "cargo test",
            "touch made-by-check && rm -rf ~",
            "git push --force origin main",
            heredoc,
        ],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let verdicts: Vec<_> = run
        .events()
        .iter()
        .map(|v| {
            (
                v["command"].as_str().unwrap().to_string(),
                v["verdict"].as_str().unwrap().to_string(),
                v["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        vec![
            ("cargo test".into(), "allow".into(), "none".into()),
            (
                "touch made-by-check && rm -rf ~".into(),
                "refuse".into(),
                "catastrophic-delete".into()
            ),
            (
                "git push --force origin main".into(),
                "ask".into(),
                "force-push".into()
            ),
            (heredoc.into(), "allow".into(), "none".into()),
        ]
    );
    let refused = run.stdout.lines().nth(1).unwrap();
    assert!(
        refused.starts_with(
            r#"{"command":"touch made-by-check && rm -rf ~","verdict":"refuse","rule":"catastrophic-delete","reason":"#
        ),
        "keys in the documented order: {refused}"
    );
    assert!(refused.contains("home directory"), "{refused}");
    assert!(!project.path().join("made-by-check").exists());
    let read_only: Vec<_> = run
        .events()
        .iter()
        .map(|v| (v["read_only"].clone(), v["read_only_reason"].is_string()))
        .collect();
    assert_eq!(
        read_only,
        vec![
            (json!(false), true),
            (json!(false), true),
            (json!(false), true),
            (json!(false), true),
        ]
    );
}

#[test]
fn each_command_says_whether_it_is_read_only() {
    let project = Project::new();
    let run = check(
        &project,
        &["git log --oneline | head", "sed -i s/a/b/ notes.txt"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "allow   git log --oneline | head\n        read-only\n\
         allow   sed -i s/a/b/ notes.txt\n        not read-only: `sed -i s/a/b/ notes.txt`: \
         `sed -i` edits files in place\n"
    );
    let json = check(&project, &["--json", "grep -rn x src", "echo x > f"]);
    let read_only: Vec<_> = json
        .events()
        .iter()
        .map(|v| (v["read_only"].clone(), v["read_only_reason"].clone()))
        .collect();
    assert_eq!(
        read_only,
        vec![
            (json!(true), json!(null)),
            (
                json!(false),
                json!(
                    "`> f` writes to a file; only `> /dev/null` and duplications such as `2>&1` \
                     may be used"
                )
            ),
        ]
    );
}

#[test]
fn all_allowed_exits_zero_with_one_line_each() {
    let project = Project::new();
    let run = check(&project, &["ls -la", "cargo build --release"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "allow   ls -la\n        read-only\nallow   cargo build --release\n        not read-only: \
         `cargo build --release`: `cargo` may run code or write files (here it may only be asked \
         for its version, e.g. `cargo --version`)\n"
    );
}

#[test]
fn the_projects_policy_decides_when_the_user_trusts_it() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "[bash]\nallow = [\"sudo apt-get install*\"]\ndeny = [\"npm publish*\"]\n",
    );
    let commands = ["sudo apt-get install jq", "npm publish"];
    // An untrusted project's allow patterns are ignored; its deny patterns still count.
    let untrusted = check(&project, &commands);
    assert_eq!(untrusted.code, Some(1));
    let lines: Vec<&str> = untrusted.stdout.lines().collect();
    assert!(
        lines[0].starts_with("ask     sudo apt-get install jq  [privilege]"),
        "{}",
        lines[0]
    );
    assert!(
        lines[2].starts_with("refuse  npm publish  [denied]"),
        "{}",
        lines[2]
    );

    project.trust();
    let trusted = check(&project, &["--json", commands[0]]);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    let verdict = &trusted.events()[0];
    assert_eq!(verdict["verdict"], json!("allow"));
    assert_eq!(verdict["rule"], json!("allow-pattern"));
}

#[test]
fn a_command_that_looks_like_a_flag_needs_the_separator_and_none_is_a_usage_error() {
    let project = Project::new();
    let none = check(&project, &[]);
    assert_eq!(none.code, Some(2));
    assert!(none.stderr.contains("COMMAND"), "{}", none.stderr);

    let dashed = check(&project, &["--", "-rf"]);
    assert_eq!(dashed.code, Some(0), "{}", dashed.stderr);
    assert!(
        dashed.stdout.starts_with("allow   -rf\n"),
        "{}",
        dashed.stdout
    );
}

#[test]
fn a_broken_settings_file_is_a_usage_error_naming_it() {
    let project = Project::new();
    project.write(".wright/config.toml", "[bash\n");
    let run = check(&project, &["ls"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("config.toml"), "{}", run.stderr);
}
