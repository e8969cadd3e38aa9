//! Issue 13 item 5, "Checks after edits": `[checks]` from the settings file, run by the real
//! binary after the model's edits, confined like Bash commands.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::common::*;

/// The check of the issue: it fails unless the edited file says "good".
const GREP_CHECK: &str =
    r#""*.txt" = "grep -q good {files} || { echo 'bad content' >&2; exit 3; }""#;

fn write(path: &str, content: &str) -> wright_testkit::ScriptedResponse {
    reply(&format!(
        "Thought: write.\nAction: Write[{}]",
        json!({"file_path": path, "content": content})
    ))
}

fn finish() -> wright_testkit::ScriptedResponse {
    reply("Thought: done.\nAction: Finish[ok]")
}

fn trusted_with_checks(checks: &str) -> Project {
    let project = Project::new();
    project.trust();
    project.write(
        ".wright/config.toml",
        &format!("retry_base_delay_ms = 5\n\n[checks]\n{checks}\n"),
    );
    project
}

/// Every session file's text under the project's `$WRIGHT_HOME`.
fn session_files(project: &Project) -> String {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&project.home.path().join("state"), &mut files);
    files
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect()
}

#[test]
fn a_failing_check_is_added_to_the_observation_and_kept_short_in_history() {
    let project = trusted_with_checks(GREP_CHECK);
    let server = serve(vec![write("bad.txt", "bad\n"), finish()]);
    let run = project.exec(&server, "openai", &["--json"], "write it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let observation = last_message(&server.requests()[1]);
    assert!(
        observation.contains("Check failed: grep -q good bad.txt || { echo 'bad content' >&2; exit 3; } (exit 3):\nbad content"),
        "{observation}"
    );

    let events = run.events();
    let finished: Vec<_> = events
        .iter()
        .filter(|e| e["type"] == "check_finished")
        .collect();
    assert_eq!(finished.len(), 1, "{}", run.stdout);
    assert_eq!(finished[0]["passed"], false);
    assert_eq!(finished[0]["exit_code"], 3);
    assert!(events.iter().any(|e| e["type"] == "check_started"));

    let sessions = session_files(&project);
    assert!(
        sessions.contains(r#"\"checks\":[{\"command\":\"grep -q good bad.txt"#),
        "{sessions}"
    );
    assert!(
        sessions.contains(r#"\"exit_code\":3,\"output\":\"bad content\",\"output_lines\":1}]"#),
        "{sessions}"
    );
}

#[test]
fn a_passing_check_adds_nothing() {
    // The check also shows that checks get no provider key.
    let project = trusted_with_checks(
        r#""*.txt" = "grep -q good {files} && test -z \"$WRIGHT_API_KEY$OPENAI_API_KEY\"""#,
    );
    let server = serve(vec![write("good.txt", "good\n"), finish()]);
    let run = project.exec(&server, "openai", &["--json"], "write it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    assert!(!observation.contains("Check"), "{observation}");
    assert!(
        run.stdout.contains(r#""type":"check_finished""#)
            && run.stdout.contains(r#""passed":true"#),
        "{}",
        run.stdout
    );
}

#[test]
fn a_file_no_pattern_matches_runs_no_check() {
    let project = trusted_with_checks(r#""*.txt" = "touch check-ran; exit 1""#);
    let server = serve(vec![write("notes.md", "# notes\n"), finish()]);
    let run = project.exec(&server, "openai", &["--json"], "write it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!project.path().join("check-ran").exists());
    assert!(!run.stdout.contains("check_started"), "{}", run.stdout);
    assert!(!last_message(&server.requests()[1]).contains("Check"));
}

#[test]
fn an_untrusted_projects_checks_are_ignored_with_a_warning() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n\n[checks]\n\"*.txt\" = \"touch check-ran; exit 1\"\n",
    );
    let server = serve(vec![write("bad.txt", "bad\n"), finish()]);
    let run = project.exec(&server, "openai", &[], "write it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("ignoring [checks]"), "{}", run.stderr);
    assert!(!project.path().join("check-ran").exists(), "the check ran");
    assert!(!last_message(&server.requests()[1]).contains("Check"));
}

#[test]
fn a_check_runs_confined_like_a_bash_command() {
    let outside =
        wright_testkit::scratch::outside_temporary_dirs(Path::new(env!("CARGO_TARGET_TMPDIR")))
            .expect("a writable directory outside the temporary directories")
            .join(format!("wright-cli-checks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    std::fs::create_dir_all(&outside).unwrap();
    let target = outside.join("made-by-a-check");
    let project = trusted_with_checks(&format!("\"*.txt\" = \"touch {}\"", target.display()));
    let server = serve(vec![write("a.txt", "x\n"), finish()]);
    let run = project.exec(&server, "openai", &[], "write it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    if run.stderr.contains("not confined") {
        assert!(target.exists(), "{observation}");
    } else {
        assert!(!target.exists(), "a check wrote outside the project");
        assert!(observation.contains("Check failed: touch"), "{observation}");
        assert!(observation.contains("ermission denied"), "{observation}");
    }
    let _ = std::fs::remove_dir_all(&outside);
}

/// Whether process `pid` still exists (a zombie counts: nobody reaped it).
fn alive(pid: &str) -> bool {
    Path::new("/proc").join(pid).exists()
}

#[test]
fn ctrl_c_stops_a_running_check_and_its_process_group_and_exits_130() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    // The shell records itself and a background sleep of its group, then waits.
    let project = trusted_with_checks(
        r#""*.txt" = "echo $$ > check.pid; sleep 30 & echo $! > sleep.pid; wait""#,
    );
    let server = serve(vec![write("a.txt", "x\n"), finish()]);
    let mut child = project
        .command(&server, "openai")
        .args(["exec", "--json", "write it"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().contains(r#""type":"check_started""#) {
            break;
        }
    }
    let read_pid = |name: &str| {
        let started = Instant::now();
        loop {
            let text = std::fs::read_to_string(project.path().join(name)).unwrap_or_default();
            if text.ends_with('\n') {
                return text.trim().to_string();
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no {name}: the check did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let pids = [read_pid("check.pid"), read_pid("sleep.pid")];
    assert!(pids.iter().all(|pid| alive(pid)), "{pids:?}");

    let status = interrupt_and_wait(&mut child, Duration::from_secs(5));
    assert_eq!(status.code(), Some(130));
    // Once wright is gone its children are reaped by init; give that a moment.
    let gone = Instant::now();
    while pids.iter().any(|pid| alive(pid)) {
        assert!(
            gone.elapsed() < Duration::from_secs(3),
            "the check's processes outlived wright: {pids:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(server.requests().len(), 1, "the round ended at the check");
}
