//! Crash safety (DESIGN §7): killing wright with SIGKILL at any moment leaves every session
//! loadable, a torn last line is skipped with a warning, and completed rounds are never lost.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use pretty_assertions::assert_eq;
use wright_store::{Record, RoundStatus, SessionStore, load};
use wright_testkit::ScriptedResponse;

use crate::common::{Project, Run, messages, reply, serve};

/// Rounds started and killed.
const ITERATIONS: u64 = 25;
/// Kills come after a delay spread evenly up to this, so they land anywhere from start-up to
/// after the answer.
const MAX_KILL_DELAY_MS: u64 = 150;
/// Fixed seed: the same delays on every run.
const SEED: u64 = 0x5eed_cafe_f00d_0001;

/// A small deterministic generator (xorshift64*), so the test needs no dependency.
struct Delays(u64);

impl Delays {
    fn next_ms(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % (MAX_KILL_DELAY_MS + 1)
    }
}

/// A reply streamed in small pieces, so a kill can land in the middle of it. A whole round
/// takes about half of [`MAX_KILL_DELAY_MS`], so about half the rounds complete.
fn slow(text: &str) -> ScriptedResponse {
    ScriptedResponse {
        chunk_size: 8,
        chunk_delay_ms: 1,
        ..reply(text)
    }
}

/// One round: a Bash step, then the answer `answer-N`.
fn round_script(n: u64) -> Vec<ScriptedResponse> {
    vec![
        slow(&format!(
            "Thought: check\nAction: Bash[{{\"command\": \"echo step-{n}\"}}]"
        )),
        slow(&format!("Thought: done\nAction: Finish[answer-{n}]")),
    ]
}

fn store(project: &Project) -> SessionStore {
    SessionStore::new(
        &project.home.path().join("state"),
        &project.path().canonicalize().unwrap(),
    )
}

fn session_files(project: &Project) -> Vec<PathBuf> {
    match std::fs::read_dir(store(project).dir()) {
        Ok(entries) => entries
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The answers of the rounds the session file records as finished.
fn finished_answers(project: &Project) -> Vec<String> {
    let Some(session) = store(project).find("crash").unwrap() else {
        return Vec::new();
    };
    let mut answers = Vec::new();
    let mut last_step = None;
    for record in &session.records {
        match record {
            Record::Message { message, .. } => last_step = Some(message.content.clone()),
            Record::RoundEnd {
                status: RoundStatus::Finished,
                ..
            } => {
                let step = last_step.clone().unwrap();
                let answer = step.split("Finish[").nth(1).unwrap().trim_end_matches(']');
                answers.push(answer.to_string());
            }
            _ => {}
        }
    }
    answers
}

#[test]
fn sigkill_at_random_moments_never_loses_a_completed_round() {
    let project = Project::new();
    let mut delays = Delays(SEED);
    // One round left to finish, so there is always a completed round for the kills to spare,
    // however slow the machine.
    let server = serve(round_script(0));
    let run = project.exec(&server, "openai", &["--session", "crash"], "question-0");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let mut completed = vec!["answer-0".to_string()];
    let mut killed_before_answering = 0;
    for n in 1..=ITERATIONS {
        let server = serve(round_script(n));
        let mut child = project
            .command(&server, "openai")
            .args(["exec", "--session", "crash", &format!("question-{n}")])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delays.next_ms()));
        child.kill().unwrap();
        child.wait().unwrap();
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        let earlier = completed.clone();
        let answer = format!("answer-{n}");
        if stdout.contains(&answer) {
            completed.push(answer);
        } else {
            killed_before_answering += 1;
        }

        // The round saw every round completed before it (if it got as far as asking).
        if let Some(first) = server.requests().first() {
            let sent = messages(first);
            for answer in &earlier {
                assert!(
                    sent.iter()
                        .any(|(_, text)| text.contains(&format!("Finish[{answer}]"))),
                    "iteration {n}: {answer} missing from the request"
                );
            }
        }
        // Every session file loads and keeps every completed round.
        for path in session_files(&project) {
            load(&path).unwrap_or_else(|e| panic!("iteration {n}: {e}"));
        }
        let answers = finished_answers(&project);
        for answer in &completed {
            assert!(
                answers.contains(answer),
                "iteration {n}: {answer} lost; the file has {answers:?}"
            );
        }
        let show = Run::from(
            project
                .bare_command()
                .args(["sessions", "show", "crash"])
                .output()
                .unwrap(),
        );
        assert_eq!(show.code, Some(0), "iteration {n}: {}", show.stderr);
        for answer in &completed {
            assert!(
                show.stdout.contains(&format!("Finish[{answer}]")),
                "iteration {n}: {answer} missing from the transcript"
            );
        }
    }
    eprintln!(
        "{} rounds completed, {killed_before_answering} killed before answering",
        completed.len()
    );
    assert_eq!(
        session_files(&project).len(),
        1,
        "one session, continued throughout"
    );
    assert!(killed_before_answering > 0, "no kill landed inside a round");

    let server = serve(vec![reply("Action: Finish[after the crashes]")]);
    let run = project.exec(&server, "openai", &["--session", "crash"], "and now?");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "after the crashes\n");
    let sent = messages(&server.requests()[0]);
    for answer in &completed {
        assert!(
            sent.iter()
                .any(|(_, text)| text.contains(&format!("Finish[{answer}]"))),
            "{answer} missing from the request after the crashes"
        );
    }
    let mut expected = completed.clone();
    expected.push("after the crashes".to_string());
    let mut answers = finished_answers(&project);
    answers.retain(|a| expected.contains(a));
    assert_eq!(answers, expected);
}

#[test]
fn a_torn_last_line_is_skipped_with_a_warning_and_the_session_continues() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[first answer]")]);
    let run = project.exec(&server, "openai", &["--session", "torn"], "first question");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let path = store(&project).find("torn").unwrap().unwrap().path;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(br#"{"type":"message","at":"2026-11-22T08:00:00Z","message":{"role":"assis"#)
        .unwrap();

    let show = Run::from(
        project
            .bare_command()
            .args(["sessions", "show", "torn"])
            .output()
            .unwrap(),
    );
    assert_eq!(show.code, Some(0), "{}", show.stderr);
    assert!(show.stderr.contains("warning: "), "{}", show.stderr);
    assert!(
        show.stderr.contains("line 5 could not be read"),
        "{}",
        show.stderr
    );
    assert!(
        show.stdout.contains("> first question\n"),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout
            .contains("Action: Finish[first answer]\n(finished at "),
        "{}",
        show.stdout
    );

    let server = serve(vec![reply("Action: Finish[second answer]")]);
    let run = project.exec(&server, "openai", &["--session", "torn"], "second question");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("could not be read"), "{}", run.stderr);
    let sent = messages(&server.requests()[0]);
    assert_eq!(
        sent,
        [
            ("user".to_string(), "first question".to_string()),
            (
                "assistant".to_string(),
                "Action: Finish[first answer]".to_string()
            ),
            ("user".to_string(), "second question".to_string()),
        ]
    );

    let show = Run::from(
        project
            .bare_command()
            .args(["sessions", "show", "torn"])
            .output()
            .unwrap(),
    );
    assert_eq!(show.code, Some(0), "{}", show.stderr);
    assert!(show.stdout.contains("── Round 2 · "), "{}", show.stdout);
    assert!(
        show.stdout.contains("Action: Finish[second answer]"),
        "{}",
        show.stdout
    );
    assert_eq!(
        load(&path).unwrap().warnings.len(),
        1,
        "only the torn line is skipped"
    );
}
