//! `wright sessions list|show|rm`, `--resume` and `--continue` end to end, against sessions
//! made by real `wright exec` rounds.

use std::process::Stdio;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use wright_store::SessionStore;
use wright_testkit::{ScriptedResponse, ScriptedUsage};

use crate::common::{Project, Run, reply, serve};

/// A reply that reports `total` tokens of usage.
fn reply_with_usage(text: &str, total: u64) -> ScriptedResponse {
    ScriptedResponse {
        usage: Some(ScriptedUsage {
            prompt_tokens: total - 10,
            completion_tokens: 10,
            ..ScriptedUsage::default()
        }),
        ..reply(text)
    }
}

fn store(project: &Project) -> SessionStore {
    SessionStore::new(
        &project.home.path().join("state"),
        &project.path().canonicalize().unwrap(),
    )
}

/// Runs `wright ARGS...` in `project` (no provider needed).
fn wright(project: &Project, args: &[&str]) -> Run {
    Run::from(project.bare_command().args(args).output().unwrap())
}

/// Runs one `exec --session NAME` round answered with `answer` (with `tokens` of usage).
fn round(project: &Project, name: &str, prompt: &str, answer: &str, tokens: u64) {
    let server = serve(vec![reply_with_usage(
        &format!("Thought: easy\nAction: Finish[{answer}]"),
        tokens,
    )]);
    let run = project.exec(&server, "openai", &["--session", name], prompt);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

fn session_id(project: &Project, name: &str) -> String {
    store(project).find(name).unwrap().unwrap().meta.id
}

#[test]
fn list_shows_this_projects_sessions_with_rounds_and_tokens() {
    let project = Project::new();
    round(&project, "notes", "first", "one", 100);
    round(&project, "notes", "second", "two", 150);
    round(&project, "other", "third", "three", 40);
    let elsewhere = Project::new();
    // Another project sharing the same state directory.
    let server = serve(vec![reply("Action: Finish[x]")]);
    let shared_home = elsewhere
        .command(&server, "openai")
        .env("WRIGHT_HOME", project.home.path().join("state"))
        .args(["exec", "--session", "far", "hi"])
        .output()
        .unwrap();
    assert!(shared_home.status.success());

    let run = wright(&project, &["sessions", "list"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].starts_with("ID "), "{}", lines[0]);
    let row = |name: &str| {
        lines
            .iter()
            .find(|line| line.split_whitespace().nth(1) == Some(name))
            .map(|line| line.split_whitespace().collect::<Vec<_>>())
            .unwrap_or_else(|| panic!("no row for {name} in\n{}", run.stdout))
    };
    let notes = row("notes");
    assert_eq!(notes[0], session_id(&project, "notes"));
    assert_eq!(&notes[2..4], ["2", "250"]);
    assert_eq!(
        notes.last().copied(),
        Some(project.path().canonicalize().unwrap().to_str().unwrap())
    );
    assert_eq!(&row("other")[2..4], ["1", "40"]);
    // Most recent activity first, like `ls -t`.
    assert!(lines[1].contains("other"), "{}", run.stdout);

    let all = wright(&project, &["sessions", "list", "--all"]);
    assert_eq!(all.code, Some(0), "{}", all.stderr);
    assert_eq!(all.stdout.lines().count(), 4, "{}", all.stdout);
    assert!(
        all.stdout.lines().nth(1).unwrap().contains(" far "),
        "{}",
        all.stdout
    );
}

#[test]
fn an_empty_list_says_so_on_stderr() {
    let project = Project::new();
    let run = wright(&project, &["sessions", "list"]);
    assert_eq!(run.code, Some(0));
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no sessions yet"), "{}", run.stderr);
}

#[test]
fn show_prints_each_round_with_steps_tool_results_and_usage() {
    let project = Project::new();
    project.write("notes.txt", "hello\nworld\n");
    let server = serve(vec![
        reply_with_usage(
            "Thought: read it\nAction: Read[{\"file_path\": \"notes.txt\"}]",
            500,
        ),
        reply_with_usage("Thought: done\nAction: Finish[Two lines.]", 600),
    ]);
    let run = project.exec(&server, "openai", &["--session", "notes"], "how long?");
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let show = wright(&project, &["sessions", "show", "notes"]);
    assert_eq!(show.code, Some(0), "{}", show.stderr);
    let text = &show.stdout;
    let id = session_id(&project, "notes");
    assert!(
        text.starts_with(&format!("Session {id} \"notes\"\n")),
        "{text}"
    );
    assert!(text.contains("\n── Round 1 · "), "{text}");
    assert!(text.contains("\n> how long?\n"), "{text}");
    assert!(
        text.contains("Thought: read it\nAction: Read[{\"file_path\": \"notes.txt\"}]\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "  ↳ Read · success · file_path=notes.txt, lines_shown=2, offset=1, total_lines=2\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("Action: Finish[Two lines.]\n(finished at "),
        "{text}"
    );
    assert!(
        text.ends_with("Usage: 2 model calls, 1,100 tokens (1,080 in; 20 out)\n"),
        "{text}"
    );
}

#[test]
fn show_json_prints_the_raw_records() {
    let project = Project::new();
    round(&project, "raw", "question", "answer", 30);
    let run = wright(&project, &["sessions", "show", "--json", "raw"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let types: Vec<String> = run
        .events()
        .iter()
        .map(|record| record["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(types, ["meta", "message", "usage", "message", "round_end"]);
    assert_eq!(run.events()[1]["message"]["content"], "question");
}

#[test]
fn sessions_are_found_by_id_prefix_and_an_ambiguous_prefix_lists_them() {
    let project = Project::new();
    round(&project, "first", "q1", "a1", 10);
    round(&project, "second", "q2", "a2", 10);
    let first = session_id(&project, "first");
    let second = session_id(&project, "second");

    let by_id = wright(&project, &["sessions", "show", &first[..13]]);
    assert_eq!(by_id.code, Some(0), "{}", by_id.stderr);
    assert!(by_id.stdout.starts_with(&format!("Session {first}")));

    // UUID v7 ids made moments apart share their leading (time) digits.
    let shared = &first[..6];
    assert_eq!(&second[..6], shared);
    let ambiguous = wright(&project, &["sessions", "show", shared]);
    assert_eq!(ambiguous.code, Some(2));
    assert!(
        ambiguous.stderr.contains("ambiguous"),
        "{}",
        ambiguous.stderr
    );
    assert!(
        ambiguous.stderr.contains(&format!("{first} (first)")),
        "{}",
        ambiguous.stderr
    );
    assert!(
        ambiguous.stderr.contains(&format!("{second} (second)")),
        "{}",
        ambiguous.stderr
    );
}

#[test]
fn an_unknown_session_exits_2_and_points_at_the_list() {
    let project = Project::new();
    let run = wright(&project, &["sessions", "show", "nothing"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("no session with the id or name \"nothing\""),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("wright sessions list"),
        "{}",
        run.stderr
    );
}

#[test]
fn rm_deletes_the_session_file_and_says_what_it_removed() {
    let project = Project::new();
    round(&project, "gone", "q", "a", 10);
    round(&project, "kept", "q", "a", 10);
    let id = session_id(&project, "gone");
    let path = store(&project).find("gone").unwrap().unwrap().path;

    let run = wright(&project, &["sessions", "rm", "gone"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.starts_with(&format!(
            "Removed session {id} \"gone\" (1 round, last active "
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.trim_end().ends_with(path.to_str().unwrap()),
        "{}",
        run.stdout
    );
    assert!(!path.exists());
    let list = wright(&project, &["sessions", "list"]);
    assert!(!list.stdout.contains("gone"), "{}", list.stdout);
    assert!(list.stdout.contains("kept"), "{}", list.stdout);

    let again = wright(&project, &["sessions", "rm", "gone"]);
    assert_eq!(again.code, Some(2), "{}", again.stderr);
}

#[test]
fn rm_refuses_a_session_that_a_running_wright_is_writing() {
    let project = Project::new();
    let server = serve(vec![ScriptedResponse {
        delay_ms: 20_000,
        ..reply("Action: Finish[late]")
    }]);
    let mut running = project
        .command(&server, "openai")
        .args(["exec", "--session", "busy", "wait"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while store(&project).find("busy").unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no session file appeared"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let run = wright(&project, &["sessions", "rm", "busy"]);
    running.kill().unwrap();
    running.wait().unwrap();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("in use by another wright process"),
        "{}",
        run.stderr
    );
    assert!(store(&project).find("busy").unwrap().is_some());
}

#[test]
fn resume_and_continue_without_a_terminal_name_the_session_and_ask_for_one() {
    let project = Project::new();
    round(&project, "older", "q", "a", 10);
    round(&project, "newer", "q", "a", 10);
    let older = session_id(&project, "older");
    let newer = session_id(&project, "newer");

    let resume = wright(&project, &["--resume", "older"]);
    assert_eq!(resume.code, Some(2));
    assert_eq!(resume.stdout, format!("{older}\n"));
    assert!(
        resume
            .stderr
            .contains("interactive session needs a terminal"),
        "{}",
        resume.stderr
    );

    for args in [&["--continue"][..], &["--resume"][..]] {
        let run = wright(&project, args);
        assert_eq!(run.code, Some(2), "{args:?}");
        assert_eq!(run.stdout, format!("{newer}\n"), "{args:?}");
    }

    let by_prefix = wright(&project, &["--resume", &older[..20]]);
    assert_eq!(by_prefix.stdout, format!("{older}\n"));

    let missing = wright(&project, &["--resume", "nope"]);
    assert_eq!(missing.code, Some(2));
    assert_eq!(missing.stdout, "");
    assert!(missing.stderr.contains("\"nope\""), "{}", missing.stderr);
    assert!(
        !missing.stderr.contains("needs a terminal"),
        "{}",
        missing.stderr
    );
}

#[test]
fn continue_in_a_project_without_sessions_would_start_a_new_one() {
    let project = Project::new();
    let run = wright(&project, &["--continue"]);
    assert_eq!(run.code, Some(2));
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no session yet"), "{}", run.stderr);
}

#[test]
fn resume_and_continue_take_no_subcommand() {
    let project = Project::new();
    let run = wright(&project, &["--continue", "sessions", "list"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let both = wright(&project, &["--continue", "--resume", "x"]);
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    // -C is still accepted before a subcommand.
    let dir = project.path().to_str().unwrap().to_string();
    let with_dir = wright(&project, &["-C", &dir, "sessions", "list"]);
    assert_eq!(with_dir.code, Some(0), "{}", with_dir.stderr);
}

#[test]
fn a_session_whose_meta_line_is_garbage_is_listed_as_damaged_and_its_name_not_reused() {
    let project = Project::new();
    round(&project, "notes", "first", "one", 100);
    let path = store(&project).find("notes").unwrap().unwrap().path;
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("garbage{}", &text[1..])).unwrap();

    let list = wright(&project, &["sessions", "list"]);
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    let damaged_line = list
        .stdout
        .lines()
        .find(|line| line.trim_start().starts_with("DAMAGED"))
        .unwrap_or_else(|| panic!("no damaged line in {}", list.stdout));
    assert!(
        damaged_line.contains(&path.display().to_string()),
        "{damaged_line}"
    );
    assert!(damaged_line.contains(": line 1: "), "{damaged_line}");
    assert!(
        list.stdout
            .contains("1 damaged session file cannot be loaded"),
        "{}",
        list.stdout
    );

    let server = serve(vec![reply("Action: Finish[should not run]")]);
    let run = project.exec(&server, "openai", &["--session", "notes"], "again");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "cannot start a session named \"notes\": session file {} is damaged (line 1: ",
            path.display()
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("Move the damaged file out of"),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty());
    assert!(
        store(&project).list().unwrap().is_empty(),
        "a session was started"
    );
}

#[test]
fn processes_starting_one_new_session_name_at_once_make_one_session() {
    const PROCESSES: usize = 4;
    let project = Project::new();
    let server = serve(
        (0..PROCESSES)
            .map(|_| reply("Thought: easy\nAction: Finish[done]"))
            .collect(),
    );
    let children: Vec<_> = (0..PROCESSES)
        .map(|i| {
            project
                .command(&server, "openai")
                .args(["exec", "--session", "race", &format!("task {i}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let runs: Vec<Run> = children
        .into_iter()
        .map(|child| Run::from(child.wait_with_output().unwrap()))
        .collect();

    let sessions = store(&project).list().unwrap();
    let named: Vec<_> = sessions
        .iter()
        .filter(|s| s.meta.name.as_deref() == Some("race"))
        .collect();
    assert_eq!(named.len(), 1, "{sessions:#?}");
    // One created it; the others waited for the session in turn and ran their rounds in it.
    for run in &runs {
        assert_eq!(run.code, Some(0), "{run:?}");
    }
    let rounds = wright_store::SessionSummary::of(named[0]).rounds;
    assert_eq!(rounds, PROCESSES, "{runs:?}");
    let mut prompts: Vec<String> = named[0]
        .records
        .iter()
        .filter_map(|record| match record {
            wright_store::Record::Message { message, .. }
                if message.role == wright_protocol::Role::User =>
            {
                Some(message.content.clone())
            }
            _ => None,
        })
        .collect();
    prompts.sort();
    let expected: Vec<String> = (0..PROCESSES).map(|i| format!("task {i}")).collect();
    assert_eq!(prompts, expected);
}

#[test]
fn exec_waits_for_a_round_another_wright_runs_in_the_session_then_continues_it() {
    use std::io::BufRead;
    let project = Project::new();
    round(&project, "shared", "first", "one", 10);
    // Another wright is running a round in the session: it holds the session's file.
    let loaded = store(&project).find("shared").unwrap().unwrap();
    let mut holder = store(&project).open_for_append(&loaded).unwrap();
    let server = serve(vec![reply("Thought: easy\nAction: Finish[three]")]);
    let mut waiter = project
        .command(&server, "openai")
        .args(["exec", "--session", "shared", "third"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    let stderr = std::io::BufReader::new(waiter.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        for line in stderr.lines() {
            lines_tx.send(line.unwrap()).unwrap();
        }
    });
    let waiting = lines_rx
        .iter()
        .find(|line| line.contains("is in use by another wright process"))
        .unwrap();
    assert!(
        waiting.starts_with(&format!(
            "wright: session \"shared\" ({}) is in use by another wright process; waiting up to 10 minutes",
            loaded.meta.id
        )),
        "{waiting}"
    );
    // The other wright's round ends and it lets go of the session.
    holder
        .append(&wright_store::Record::Message {
            at: chrono::Utc::now(),
            message: wright_protocol::Message::user("second"),
        })
        .unwrap();
    drop(holder);
    let status = waiter.wait().unwrap();
    reader.join().unwrap();
    let rest: Vec<String> = lines_rx.try_iter().collect();
    assert_eq!(status.code(), Some(0), "{rest:?}");
    assert!(
        rest.iter().all(|line| !line.contains("waiting up to")),
        "told more than once: {rest:?}"
    );
    let session = store(&project).find("shared").unwrap().unwrap();
    let prompts: Vec<String> = session
        .records
        .iter()
        .filter_map(|record| match record {
            wright_store::Record::Message { message, .. }
                if message.role == wright_protocol::Role::User =>
            {
                Some(message.content.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(prompts, ["first", "second", "third"]);
}
