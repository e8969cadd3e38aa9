//! Context engineering end to end (spec A1–A7, C1–C3, C5–C7, E1–E5): layers, history,
//! compaction, @file, CODE_LAW.md and the todo recap, through the real binary against the
//! testkit. (The mtime notes of A8/C4 are tested with the Read tool.)

use pretty_assertions::assert_eq;
use serde_json::Value;
use wright_core::summarize::{SECTIONS, TITLE};
use wright_testkit::{RecordedRequest, ScriptedResponse, ScriptedUsage, TestServer};

use crate::common::{Project, Run, messages, reply, serve};

const SESSION: &str = "work";

fn exec(project: &Project, server: &TestServer, prompt: &str) -> Run {
    project.exec(server, "openai", &["--session", SESSION], prompt)
}

fn system(request: &RecordedRequest) -> String {
    request.json().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

fn finish(answer: &str) -> ScriptedResponse {
    reply(&format!("Thought: done\nAction: Finish[{answer}]"))
}

fn with_usage(response: ScriptedResponse, prompt_tokens: u64) -> ScriptedResponse {
    ScriptedResponse {
        usage: Some(ScriptedUsage {
            prompt_tokens,
            completion_tokens: 10,
            ..ScriptedUsage::default()
        }),
        ..response
    }
}

#[test]
fn layers_are_in_order_l1_is_stable_and_code_law_is_sent_once_but_never_stored() {
    let project = Project::new();
    project.write("CODE_LAW.md", "Always answer in haiku. LAW-MARKER");
    project.write("a.txt", "alpha\n");
    let server = serve(vec![
        reply("Thought: read\nAction: Read[{\"file_path\": \"a.txt\"}]"),
        finish("first"),
        finish("second"),
    ]);
    assert_eq!(exec(&project, &server, "round one").code, Some(0));
    assert_eq!(exec(&project, &server, "round two").code, Some(0));
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let l1: Vec<String> = requests
        .iter()
        .map(|r| {
            system(r)
                .split("\n\n# Project rules")
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(l1.iter().all(|s| s == &l1[0]), "L1 is byte-identical");
    for request in &requests {
        assert_eq!(
            request.body.matches("LAW-MARKER").count(),
            1,
            "CODE_LAW once per request"
        );
        assert!(system(request).contains("LAW-MARKER"));
    }
    // Round two: L3 (round one, compressed) comes before the new input.
    let second = messages(&requests[2]);
    let roles: Vec<&str> = second.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        roles,
        vec!["user", "assistant", "user", "assistant", "user"]
    );
    assert_eq!(second[0].1, "round one");
    assert!(
        second[2].1.starts_with("[tool] {\"status\":\"success\""),
        "{}",
        second[2].1
    );
    assert_eq!(second[4].1, "round two");
    let session_files = std::fs::read_dir(project.home.path().join("state/sessions"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(session_files.contains("round two"));
    assert!(
        !session_files.contains("LAW-MARKER"),
        "CODE_LAW never enters history"
    );
}

#[test]
fn observations_are_full_within_a_round_and_compressed_in_the_next() {
    let project = Project::new();
    let big: String = (1..=800).map(|i| format!("line number {i}\n")).collect();
    project.write("big.txt", &big);
    let stderr_script = "for i in $(seq 1 100); do echo err-$i >&2; done; echo out";
    let server = serve(vec![
        reply("Thought: read\nAction: Read[{\"file_path\": \"big.txt\"}]"),
        reply(&format!(
            "Thought: run\nAction: Bash[{{\"command\": \"{stderr_script}\"}}]"
        )),
        reply(
            "Thought: grep\nAction: Grep[{\"pattern\": \"line number 1\", \"output_mode\": \"content\"}]",
        ),
        finish("read it"),
        finish("next"),
    ]);
    assert_eq!(exec(&project, &server, "read big").code, Some(0));
    assert_eq!(exec(&project, &server, "and now?").code, Some(0));
    let requests = server.requests();
    // Inside round one: the full observation, all 800 lines.
    let full = messages(&requests[1]).pop().unwrap().1;
    assert!(
        full.contains("   800\tline number 800"),
        "full read in the scratchpad"
    );
    let bash_full = messages(&requests[2]).pop().unwrap().1;
    assert!(
        bash_full.contains("err-1\n"),
        "full stderr in the scratchpad"
    );
    // Round two sees the compressed forms.
    let history = messages(&requests[4]);
    let tool_messages: Vec<Value> = history
        .iter()
        .filter_map(|(_, content)| content.strip_prefix("[tool] "))
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
    assert_eq!(tool_messages.len(), 3);
    let read = &tool_messages[0];
    assert_eq!(read["status"], "success");
    assert!(
        read.get("text").is_none() && read.get("stats").is_none() && read.get("context").is_none()
    );
    // Issue 19: history keeps the first 50 lines by default (read_history_lines).
    let read_json = read.to_string();
    assert!(read_json.contains("line number 50") && !read_json.contains("line number 51"));
    assert_eq!(read["data"]["content_lines_dropped"], 750);
    let bash = &tool_messages[1].to_string();
    assert!(
        bash.contains("err-100") && bash.contains("err-81") && !bash.contains("err-80\\n"),
        "{bash}"
    );
    let grep = &tool_messages[2].to_string();
    let shown = grep.matches("big.txt:").count();
    assert!(
        (1..=5).contains(&shown),
        "at most 5 grep lines in history: {grep}"
    );
}

/// The `[tool]` messages a request sends from history, parsed.
fn history_tool_results(request: &RecordedRequest) -> Vec<Value> {
    messages(request)
        .iter()
        .filter_map(|(_, content)| content.strip_prefix("[tool] "))
        .map(|json| serde_json::from_str(json).unwrap())
        .collect()
}

/// Two rounds, the first reading an 800-line file, with `settings` as the project's
/// config.toml; the requests the server got.
fn read_then_ask(settings: &str) -> Vec<RecordedRequest> {
    let project = Project::new();
    let big: String = (1..=800).map(|i| format!("line number {i}\n")).collect();
    project.write("big.txt", &big);
    project.write(".wright/config.toml", settings);
    let server = serve(vec![
        reply("Thought: read\nAction: Read[{\"file_path\": \"big.txt\"}]"),
        finish("read it"),
        finish("next"),
    ]);
    assert_eq!(exec(&project, &server, "read big").code, Some(0));
    assert_eq!(exec(&project, &server, "and now?").code, Some(0));
    server.requests()
}

#[test]
fn read_history_lines_zero_keeps_where_a_read_was_and_none_of_its_lines() {
    let requests = read_then_ask("read_history_lines = 0\n");
    let observation = messages(&requests[1]).pop().unwrap().1;
    assert!(
        observation.contains("   800\tline number 800"),
        "the round reads the file whole (A2)"
    );
    let tool = history_tool_results(&requests[2]);
    assert_eq!(tool.len(), 1);
    let data = &tool[0]["data"];
    assert_eq!(data["file_path"], "big.txt");
    assert_eq!(data["total_lines"], 800);
    assert_eq!(data["content_lines_dropped"], 800);
    assert_eq!(data.get("content"), None, "{data}");
}

#[test]
fn read_history_lines_500_is_the_spec_a3_form() {
    let requests = read_then_ask("read_history_lines = 500\n");
    let tool = history_tool_results(&requests[2]);
    let read_json = tool[0].to_string();
    assert!(read_json.contains("line number 500") && !read_json.contains("line number 501"));
    assert_eq!(tool[0]["data"]["content_lines_dropped"], 300);
}

/// A summary with every section of the A5 template, and `marker` before the first.
fn full_summary(marker: &str) -> String {
    let mut text = format!("{TITLE}\n*(Contains context from A to B)*\n\n{marker}");
    for (heading, _) in SECTIONS {
        text.push_str(&format!("\n\n{heading}\n* None"));
    }
    text
}

fn summary_requests(server: &TestServer) -> Vec<RecordedRequest> {
    server
        .requests()
        .into_iter()
        .filter(|r| system(r).starts_with("You archive the older part of a conversation"))
        .collect()
}

/// Twelve finished rounds, the last reporting a usage past the threshold.
fn twelve_rounds(project: &Project, tail: Vec<ScriptedResponse>) -> TestServer {
    let mut responses: Vec<ScriptedResponse> =
        (1..=12).map(|i| finish(&format!("answer {i}"))).collect();
    responses[11] = with_usage(finish("answer 12"), 170_000);
    responses.extend(tail);
    let server = serve(responses);
    for i in 1..=12 {
        let run = exec(project, &server, &format!("question {i}"));
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    server
}

#[test]
fn passing_the_threshold_summarises_the_archived_rounds_and_keeps_ten_whole_rounds() {
    let project = Project::new();
    let summary = full_summary("SUMMARY-MARKER");
    let server = twelve_rounds(
        &project,
        vec![with_usage(reply(&summary), 9_000), finish("answer 13")],
    );
    let run = project.exec(
        &server,
        "openai",
        &["--session", SESSION, "--json"],
        "question 13",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let summaries = summary_requests(&server);
    assert_eq!(summaries.len(), 1, "one summary request");
    let archived = &summaries[0].body;
    assert!(archived.contains("question 1\\n") || archived.contains("question 1 "));
    assert!(archived.contains("question 2"));
    assert!(
        !archived.contains("question 3"),
        "only the archived rounds are summarised"
    );
    assert!(archived.contains("Start Time: 20"), "real start time");

    let last = server.requests().pop().unwrap();
    // A5/C2: the summary is system context after L1 (and L2), as written, with no header.
    let system = system(&last);
    let (l1, summary_part) = system
        .split_once("\n\n## 📌 Archived Session Summary")
        .unwrap();
    assert!(
        l1.starts_with("You are wright"),
        "L1 stays the prefix: {l1:.80}"
    );
    assert!(summary_part.contains("SUMMARY-MARKER"), "{summary_part}");
    let sent = messages(&last);
    assert!(
        !sent
            .iter()
            .any(|(_, c)| c.contains("SUMMARY-MARKER") || c.contains("[summary]"))
    );
    let questions: Vec<&str> = sent
        .iter()
        .filter(|(role, c)| role == "user" && c.starts_with("question"))
        .map(|(_, c)| c.as_str())
        .collect();
    let expected: Vec<String> = (3..=13).map(|i| format!("question {i}")).collect();
    assert_eq!(questions, expected, "ten whole rounds plus the new input");

    let events = run.events();
    let started = events
        .iter()
        .find(|e| e["type"] == "compaction_started")
        .unwrap();
    assert_eq!(started["threshold"], 160_000);
    assert!(started["estimated_tokens"].as_u64().unwrap() >= 170_000);
    let finished = events
        .iter()
        .find(|e| e["type"] == "compaction_finished")
        .unwrap();
    assert_eq!(finished["archived_rounds"], 2);
    assert_eq!(finished["timed_out"], false);
    let usage_calls: Vec<(&str, u64)> = events
        .iter()
        .filter(|e| e["type"] == "usage")
        .map(|e| {
            (
                e["call"].as_str().unwrap(),
                e["prompt_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    // The step's reply reported no usage; the summary call's did, and is reported as such.
    assert_eq!(usage_calls, vec![("summary", 9_000)]);
    assert!(
        finished["summary"]
            .as_str()
            .unwrap()
            .contains("SUMMARY-MARKER")
    );
}

#[test]
fn the_session_summary_request_extends_the_last_request_and_names_the_archived_rounds() {
    let project = Project::new();
    project.write(".wright/config.toml", "summary_request = \"session\"\n");
    let summary = full_summary("SUMMARY-MARKER");
    let server = twelve_rounds(&project, vec![reply(&summary), finish("answer 13")]);
    let run = project.exec(
        &server,
        "openai",
        &["--session", SESSION, "--json"],
        "question 13",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 14, "12 rounds, the summary call, round 13");
    let sent = |request: &RecordedRequest| request.json().unwrap()["messages"].clone();
    let (round_12, call) = (sent(&requests[11]), sent(&requests[12]));
    let (round_12, call) = (round_12.as_array().unwrap(), call.as_array().unwrap());
    // Round 12's request, system prompt included, is the call's prefix: the provider has it
    // cached. Then round 12's answer and the instructions.
    assert_eq!(call[..round_12.len()], round_12[..]);
    assert_eq!(call.len(), round_12.len() + 2);
    let instructions = call.last().unwrap()["content"].as_str().unwrap();
    assert!(
        instructions.starts_with("You archive the older part of a conversation"),
        "{instructions:.80}"
    );
    assert!(
        instructions.contains("the first 2 rounds of the conversation above")
            && instructions.contains("begins with \"question 3\""),
        "{instructions}"
    );
    assert!(instructions.contains("Start Time: 20"), "real start time");
    let finished = run
        .events()
        .into_iter()
        .find(|e| e["type"] == "compaction_finished")
        .unwrap();
    assert_eq!(finished["archived_rounds"], 2);
    assert!(system(&requests[13]).contains("SUMMARY-MARKER"));
}

#[test]
fn another_summary_model_gets_the_separate_request_whatever_summary_request_says() {
    let project = Project::new();
    // Trusted: an untrusted project may not pick the summary model.
    project.trust();
    project.write(
        ".wright/config.toml",
        "summary_request = \"session\"\nsummary_model = \"small\"\n",
    );
    let summary = full_summary("SUMMARY-MARKER");
    let server = twelve_rounds(&project, vec![reply(&summary), finish("answer 13")]);
    assert_eq!(exec(&project, &server, "question 13").code, Some(0));
    let summaries = summary_requests(&server);
    assert_eq!(summaries.len(), 1, "the separate request of spec C2");
    assert_eq!(summaries[0].json().unwrap()["model"], "small");
}

#[test]
fn a_summary_that_times_out_archives_anyway_with_the_exact_message() {
    let project = Project::new();
    let slow = ScriptedResponse {
        delay_ms: 5_000,
        ..reply("too late")
    };
    let server = twelve_rounds(&project, vec![slow, finish("answer 13")]);
    let run = Run::from(
        project
            .command(&server, "openai")
            .env("WRIGHT_SUMMARY_TIMEOUT_SECS", "1")
            .args(["exec", "--session", SESSION, "question 13"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("Summary generation timed out, keeping recent history only."),
        "{}",
        run.stderr
    );
    let last = server.requests().pop().unwrap();
    let sent = messages(&last);
    assert!(
        !sent
            .iter()
            .any(|(_, c)| c.contains("question 2") || c.contains("[summary]"))
    );
    assert!(sent.iter().any(|(_, c)| c == "question 3"));
}

/// Only the summary timeout may drop history (E2): a summary call that fails otherwise keeps
/// every round, says why, and is tried again before the next round.
#[test]
fn a_failed_summary_names_its_cause_keeps_all_history_and_is_tried_again() {
    let project = Project::new();
    let refused = ScriptedResponse {
        status: 400,
        error_message: Some("summary model not found".into()),
        ..ScriptedResponse::default()
    };
    let summary = full_summary("SUMMARY-MARKER");
    let server = twelve_rounds(
        &project,
        vec![
            refused,
            with_usage(finish("answer 13"), 170_000),
            reply(&summary),
            finish("answer 14"),
        ],
    );
    let run = exec(&project, &server, "question 13");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("Summary generation failed ("),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("summary model not found"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("all history is kept"), "{}", run.stderr);
    let step = messages(&server.requests().pop().unwrap());
    assert!(
        step.iter().any(|(_, c)| c == "question 1"),
        "the oldest round is still sent: {step:?}"
    );

    let run = exec(&project, &server, "question 14");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(summary_requests(&server).len(), 2, "tried again");
    let requests = server.requests();
    let step = requests.last().unwrap();
    assert!(
        !messages(step).iter().any(|(_, c)| c == "question 1"),
        "archived once the summary was made"
    );
    assert!(step.body.contains("SUMMARY-MARKER"));
}

#[test]
fn file_mentions_become_reminders_in_the_user_message() {
    let project = Project::new();
    project.write("src/auth.ts", "export {}\n");
    let server = serve(vec![finish("ok")]);
    let run = exec(
        &project,
        &server,
        "fix @src/auth.ts, ask ann@example.com, ignore @nothing.rs",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let input = messages(&server.requests()[0]).pop().unwrap().1;
    assert_eq!(
        input,
        "fix @src/auth.ts, ask ann@example.com, ignore @nothing.rs\n\n<system-reminder>\nThe user mentioned @src/auth.ts.\nYou MUST read this file with the Read tool before answering.\n</system-reminder>"
    );
}

#[test]
fn the_todo_recap_closes_every_request_and_survives_between_rounds() {
    let project = Project::new();
    let server = serve(vec![
        reply(
            "Thought: plan\nAction: TodoWrite[{\"todos\": [{\"id\": \"1\", \"content\": \"Write tests\", \"status\": \"completed\"}, {\"id\": \"2\", \"content\": \"Fix parser\", \"status\": \"in_progress\"}]}]",
        ),
        finish("planned"),
        finish("still planned"),
    ]);
    assert_eq!(exec(&project, &server, "plan it").code, Some(0));
    assert_eq!(exec(&project, &server, "status?").code, Some(0));
    let requests = server.requests();
    assert!(
        !requests[0].body.contains("todo-recap"),
        "no list, no recap"
    );
    for request in &requests[1..] {
        let last = messages(request).pop().unwrap().1;
        assert!(last.ends_with("</todo-recap>"), "recap is last: {last}");
        let recap = &last[last.find("<todo-recap>").unwrap()..];
        assert!(recap.find("Fix parser").unwrap() < recap.find("Write tests").unwrap());
    }
}

#[test]
fn wright_context_shows_layers_usage_and_the_trigger() {
    let project = Project::new();
    project.write("CODE_LAW.md", "Be brief.");
    let server = serve(vec![with_usage(finish("one"), 1234)]);
    assert_eq!(exec(&project, &server, "hello").code, Some(0));
    let run = Run::from(
        project
            .bare_command()
            .args(["context", "--session", SESSION])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for needle in [
        "L1 system prompt + ",
        "L2 CODE_LAW.md",
        "L3 summaries (0)",
        "L3 retained history (1 rounds, 2 messages)",
        "Last reported usage: 1244 tokens (1234 prompt + 10 completion)",
        "compaction threshold 160000",
        "Next input triggers compaction: no (history has 2 messages; at least 3 needed)",
    ] {
        assert!(
            run.stdout.contains(needle),
            "missing {needle:?} in\n{}",
            run.stdout
        );
    }
    let full = Run::from(
        project
            .bare_command()
            .args(["context", "--full"])
            .output()
            .unwrap(),
    );
    assert!(full.stdout.contains("===== system ====="));
    assert!(full.stdout.contains("Be brief."));
}

/// A file of `lines` lines of 30 characters: about 10 tokens a line by the spec's `len // 3`.
fn numbered_file(project: &Project, name: &str, lines: usize) {
    let text: String = (1..=lines)
        .map(|i| format!("line number {i:>6} of the file\n"))
        .collect();
    project.write(name, &text);
}

fn read(name: &str) -> ScriptedResponse {
    reply(&format!(
        "Thought: read\nAction: Read[{{\"file_path\": \"{name}\"}}]"
    ))
}

#[test]
fn a_long_round_falls_back_to_compressed_forms_for_its_oldest_observations() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nmax_output_tokens = 500\n",
    );
    numbered_file(&project, "a.txt", 700);
    numbered_file(&project, "b.txt", 700);
    let server = serve(vec![read("a.txt"), read("b.txt"), finish("done")]);
    let run = Run::from(
        project
            .command(&server, "openai")
            // Both reads whole do not fit, the oldest compressed does: a band about 1,500
            // tokens wide, which moves with the size of L1 (the tool descriptions).
            .env("WRIGHT_CONTEXT_WINDOW", "21650")
            .args(["exec", "--session", SESSION, "read both"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let third = messages(&server.requests()[2]);
    let observations: Vec<&String> = third
        .iter()
        .filter_map(|(_, c)| c.strip_prefix("Observation: ").map(|_| c))
        .collect();
    assert_eq!(observations.len(), 2);
    assert!(
        observations[0].starts_with("Observation: {\"status\":\"success\""),
        "the oldest observation is in its compressed form"
    );
    assert!(
        observations[0].contains("line number    500")
            && !observations[0].contains("line number    501")
    );
    assert!(
        observations[1].contains("line number    700"),
        "the newest stays whole"
    );
}

#[test]
fn when_nothing_can_shrink_the_round_ends_with_a_clear_message() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nmax_output_tokens = 500\n",
    );
    numbered_file(&project, "a.txt", 700);
    let server = serve(vec![read("a.txt"), finish("never")]);
    let run = Run::from(
        project
            .command(&server, "openai")
            .env("WRIGHT_CONTEXT_WINDOW", "5950")
            .args(["exec", "--json", "read it"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(
        server.requests().len(),
        1,
        "the oversized request is never sent"
    );
    let last = run.events().pop().unwrap();
    assert_eq!(last["code"], "context_overflow");
    assert!(last["message"].as_str().unwrap().contains("context window"));
}

#[test]
fn retained_rounds_past_the_threshold_have_their_tool_results_compressed_harder() {
    let project = Project::new();
    numbered_file(&project, "a.txt", 700);
    let mut responses = Vec::new();
    for _ in 0..3 {
        responses.push(read("a.txt"));
        responses.push(finish("read"));
    }
    responses.push(finish("fourth"));
    let server = serve(responses);
    for i in 1..=4 {
        let run = Run::from(
            project
                .command(&server, "openai")
                .env("WRIGHT_CONTEXT_WINDOW", "24000")
                .args(["exec", "--session", SESSION, &format!("round {i}")])
                .output()
                .unwrap(),
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let last = server.requests().pop().unwrap();
    let tools: Vec<String> = messages(&last)
        .into_iter()
        .filter(|(_, c)| c.starts_with("[tool] "))
        .map(|(_, c)| c)
        .collect();
    assert_eq!(
        tools.len(),
        3,
        "all three rounds are retained (fewer than retain_rounds)"
    );
    for tool in &tools {
        let lines = tool.matches("line number").count();
        assert!(
            (1..=100).contains(&lines),
            "tight tier keeps at most 100 lines, got {lines}"
        );
    }
}

#[test]
fn the_local_estimate_is_calibrated_by_the_providers_own_count() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nmax_output_tokens = 500\n",
    );
    numbered_file(&project, "a.txt", 700);
    numbered_file(&project, "b.txt", 700);
    let counted = |response: ScriptedResponse| ScriptedResponse {
        usage_from_request: true,
        ..response
    };
    // Same set-up as the fallback test above, but the provider counts about 4 bytes a token,
    // fewer tokens than `len // 3` says: both observations now fit whole.
    let server = serve(vec![
        counted(read("a.txt")),
        counted(read("b.txt")),
        counted(finish("done")),
    ]);
    let run = Run::from(
        project
            .command(&server, "openai")
            .env("WRIGHT_CONTEXT_WINDOW", "20000")
            .args(["exec", "read both"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let third = messages(&server.requests()[2]);
    let observations: Vec<&String> = third
        .iter()
        .filter(|(_, c)| c.starts_with("Observation: "))
        .map(|(_, c)| c)
        .collect();
    assert_eq!(observations.len(), 2);
    assert!(
        observations
            .iter()
            .all(|o| o.contains("line number    700")),
        "both whole"
    );
}

/// L1 ends with the environment block made when the session started: the same bytes for every
/// request of the session, resumes included, even after the branch changed.
#[test]
fn the_environment_block_is_fixed_when_the_session_starts() {
    let project = Project::new();
    project.write(".git/HEAD", "ref: refs/heads/main\n");
    let server = serve(vec![finish("one"), finish("two"), finish("three")]);
    assert_eq!(exec(&project, &server, "first").code, Some(0));
    project.write(".git/HEAD", "ref: refs/heads/feature\n");
    assert_eq!(exec(&project, &server, "second").code, Some(0));
    let run = project.exec(&server, "openai", &["--session", "fresh"], "third");
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let systems: Vec<String> = server.requests().iter().map(system).collect();
    assert!(systems[0].contains("\n# Environment\n"), "{}", systems[0]);
    assert!(systems[0].contains("- Git repository: yes, on branch main"));
    assert!(systems[0].contains(&format!(
        "- Project directory (the working directory): {}",
        project.path().canonicalize().unwrap().display()
    )));
    assert_eq!(systems[1], systems[0], "a resumed session keeps its L1");
    assert!(systems[2].contains("- Git repository: yes, on branch feature"));
}

/// A hostile repository's CODE_LAW.md is not followed out of the project, and a FIFO there
/// does not hang wright: the request goes without project rules and the user is told why.
#[test]
fn a_code_law_leading_out_of_the_project_or_a_fifo_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("credentials"), "TOP-SECRET-VALUE").unwrap();
    let project = Project::new();
    std::os::unix::fs::symlink(
        outside.path().join("credentials"),
        project.path().join("CODE_LAW.md"),
    )
    .unwrap();
    let server = serve(vec![finish("one"), finish("two")]);
    let run = exec(&project, &server, "hello");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("leads out of the project"),
        "{}",
        run.stderr
    );
    assert!(!server.requests()[0].body.contains("TOP-SECRET-VALUE"));

    std::fs::remove_file(project.path().join("CODE_LAW.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(project.path().join("CODE_LAW.md"))
        .status()
        .unwrap();
    assert!(made.success());
    let run = exec(&project, &server, "again");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
}
