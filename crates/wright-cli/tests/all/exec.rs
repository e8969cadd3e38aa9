//! `wright exec` end to end: the real binary against the scripted provider over loopback.

use pretty_assertions::assert_eq;
use serde_json::Value;
use wright_testkit::{ScriptedResponse, ScriptedUsage};

use crate::common::{self, Project, last_message, messages, reply, serve};

fn read_bash_finish(provider: &str) {
    let project = Project::new();
    project.write("notes.txt", "hello from the notes\nsecond line\n");
    let server = serve(vec![
        reply("Thought: look at the notes\nAction: Read[{\"file_path\": \"notes.txt\"}]"),
        reply(
            "Thought: count lines\nAction: Bash[{\"command\": \"wc -l < notes.txt && echo done-bash\"}]",
        ),
        reply("Thought: done\nAction: Finish[The notes have 2 lines.]"),
    ]);
    let run = project.exec(&server, provider, &[], "how long are the notes?");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "The notes have 2 lines.\n");
    assert!(run.stderr.contains("→ Read"), "{}", run.stderr);
    assert!(run.stderr.contains("→ Bash"), "{}", run.stderr);

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let second = messages(&requests[1]);
    assert_eq!(
        second[0],
        ("user".to_string(), "how long are the notes?".to_string())
    );
    assert!(
        second[1]
            .1
            .starts_with("Thought: look at the notes\nAction: Read[")
    );
    assert!(last_message(&requests[1]).starts_with("Observation: "));
    assert!(last_message(&requests[1]).contains("1\thello from the notes"));
    let third = last_message(&requests[2]);
    assert!(third.contains("done-bash"), "{third}");
    assert!(third.contains('2'), "{third}");
    // Every request carries the stop sequence and the same system prompt.
    let systems: Vec<String> = requests
        .iter()
        .map(|r| system_prompt(&r.json().unwrap()))
        .collect();
    assert!(
        systems
            .iter()
            .all(|s| s == &systems[0] && s.contains("## Read"))
    );
}

fn system_prompt(body: &Value) -> String {
    match &body["system"] {
        Value::Array(blocks) => blocks[0]["text"].as_str().unwrap().to_string(),
        Value::Null => body["messages"][0]["content"].as_str().unwrap().to_string(),
        other => other.as_str().unwrap().to_string(),
    }
}

#[test]
fn read_then_bash_then_finish_over_openai() {
    read_bash_finish("openai");
}

#[test]
fn read_then_bash_then_finish_over_anthropic() {
    read_bash_finish("anthropic");
}

#[test]
fn every_request_carries_the_stop_sequence() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[ok]")]);
    project.exec(&server, "openai", &[], "hi");
    project.exec(&server, "openai", &[], "hi");
    let server_anthropic = serve(vec![reply("Action: Finish[ok]")]);
    project.exec(&server_anthropic, "anthropic", &[], "hi");
    let openai = server.requests()[0].json().unwrap();
    assert_eq!(openai["stop"], serde_json::json!(["\nObservation:"]));
    let anthropic = server_anthropic.requests()[0].json().unwrap();
    assert_eq!(
        anthropic["stop_sequences"],
        serde_json::json!(["\nObservation:"])
    );
}

#[test]
fn server_errors_rate_limits_and_cut_streams_are_retried() {
    let project = Project::new();
    let server = serve(vec![
        ScriptedResponse {
            status: 500,
            error_message: Some("boom".into()),
            ..ScriptedResponse::default()
        },
        ScriptedResponse {
            status: 429,
            error_message: Some("slow down".into()),
            headers: vec![("Retry-After".into(), "1".into())],
            ..ScriptedResponse::default()
        },
        ScriptedResponse {
            cut_after_chunks: Some(2),
            chunk_size: 4,
            ..reply("Thought: this stream will be cut\nAction: Finish[never]")
        },
        reply("Thought: fine now\nAction: Finish[recovered]"),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "go");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    let retries: Vec<&Value> = events.iter().filter(|e| e["type"] == "retry").collect();
    assert_eq!(
        retries
            .iter()
            .map(|e| e["attempt"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![2, 3, 4]
    );
    assert!(retries[0]["reason"].as_str().unwrap().contains("500"));
    assert!(retries[1]["reason"].as_str().unwrap().contains("429"));
    assert!(
        retries[1]["delay_ms"].as_u64().unwrap() >= 1000,
        "Retry-After honoured"
    );
    assert_eq!(events.last().unwrap()["answer"], "recovered");
    assert_eq!(server.requests().len(), 4);
}

#[test]
fn retries_are_reported_on_stderr() {
    let project = Project::new();
    let server = serve(vec![
        ScriptedResponse {
            status: 503,
            error_message: Some("overloaded".into()),
            ..ScriptedResponse::default()
        },
        reply("Action: Finish[ok]"),
    ]);
    let run = project.exec(&server, "anthropic", &[], "go");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(run.stderr.contains("retrying"), "{}", run.stderr);
    assert!(run.stderr.contains("attempt 2/5"), "{}", run.stderr);
}

#[test]
fn unauthorised_fails_at_once_with_the_providers_message() {
    let project = Project::new();
    let server = serve(vec![ScriptedResponse {
        status: 401,
        error_message: Some("Incorrect API key provided".into()),
        ..ScriptedResponse::default()
    }]);
    let run = project.exec(&server, "openai", &["--json"], "go");
    assert_eq!(run.code, Some(1));
    assert_eq!(server.requests().len(), 1);
    let last = run.events().pop().unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["code"], "provider");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .contains("Incorrect API key provided")
    );
}

#[test]
fn a_reply_cut_by_the_token_limit_is_continued_and_joined() {
    let project = Project::new();
    let server = serve(vec![
        ScriptedResponse {
            finish_reason: "length".into(),
            usage: Some(ScriptedUsage {
                prompt_tokens: 100,
                completion_tokens: 10,
                ..ScriptedUsage::default()
            }),
            ..reply("Thought: long answer\nAction: Finish[first half, ")
        },
        ScriptedResponse {
            usage: Some(ScriptedUsage {
                prompt_tokens: 120,
                completion_tokens: 5,
                ..ScriptedUsage::default()
            }),
            ..reply("second half]")
        },
    ]);
    let run = project.exec(&server, "openai", &["--json"], "go");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    let last = events.last().unwrap();
    assert_eq!(last["answer"], "first half, second half");
    assert_eq!(last["usage"]["prompt_tokens"], 220);
    assert_eq!(last["usage"]["completion_tokens"], 15);
    assert!(events.iter().any(|e| e["type"] == "continuation"));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let continued = messages(&requests[1]);
    let n = continued.len();
    assert_eq!(continued[n - 2].0, "assistant");
    assert!(continued[n - 2].1.contains("first half, "));
    assert_eq!(continued[n - 1].0, "user");
}

#[test]
fn malformed_json_is_explained_and_the_model_recovers() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: oops\nAction: Bash[{\"command\": 'ls'}]"),
        reply("Thought: fixed\nAction: Finish[recovered]"),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "go");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    assert!(observation.contains("not valid JSON"), "{observation}");
    assert!(
        observation.contains("Action: <ToolName>["),
        "format restated: {observation}"
    );
    assert!(run.events().iter().any(|e| e["type"] == "format_error"));
}

#[test]
fn three_malformed_replies_in_a_row_end_the_round() {
    let project = Project::new();
    let server = serve(vec![
        reply("Action: Read{}"),
        reply("Action: Read[{]"),
        reply("Action: Nope[{}]"),
        reply("Action: Finish[too late]"),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "go");
    assert_eq!(run.code, Some(1));
    assert_eq!(server.requests().len(), 3);
    let last = run.events().pop().unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["code"], "malformed_replies");
}

#[test]
fn an_unknown_tool_is_answered_with_the_valid_names() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: hmm\nAction: Frobnicate[{\"x\": 1}]"),
        reply("Action: Finish[ok]"),
    ]);
    let run = project.exec(&server, "anthropic", &[], "go");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    assert!(observation.contains("Frobnicate"), "{observation}");
    assert!(
        observation.contains("Read") && observation.contains("Bash"),
        "{observation}"
    );
}

#[test]
fn brackets_and_quotes_inside_json_strings_reach_the_tool_intact() {
    let project = Project::new();
    let server = serve(vec![
        ScriptedResponse {
            chunk_size: 3,
            ..reply(
                r#"Thought: echo tricky text
Action: Bash[{"command": "printf '%s' \"a]b}c[d{e\\\"f\""}]"#,
            )
        },
        reply("Action: Finish[ok]"),
    ]);
    let run = project.exec(&server, "openai", &[], "go");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    assert!(observation.contains(r#"a]b}c[d{e"f"#), "{observation}");
}

#[test]
fn a_reply_without_action_is_the_answer() {
    let project = Project::new();
    let server = serve(vec![reply("The answer is 42.")]);
    let run = project.exec(&server, "openai", &[], "what is 6*7?");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "The answer is 42.\n");
}

#[test]
fn reaching_max_steps_ends_the_round_clearly() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nmax_steps = 2\n",
    );
    let server = serve(vec![
        reply("Action: Bash[{\"command\": \"true\"}]"),
        reply("Action: Bash[{\"command\": \"true\"}]"),
        reply("Action: Finish[too late]"),
    ]);
    let run = project.exec(&server, "openai", &[], "loop");
    assert_eq!(run.code, Some(1));
    assert_eq!(server.requests().len(), 2);
    assert!(
        run.stderr.contains("Stopped after 2 steps"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn nothing_configured_exits_2_with_examples() {
    let project = Project::new();
    let run = common::Run::from(
        project
            .bare_command()
            .args(["exec", "hi"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(2));
    for needle in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "WRIGHT_BASE_URL",
        "WRIGHT_MODEL",
        "deepseek",
        "11434",
    ] {
        assert!(
            run.stderr.contains(needle),
            "missing {needle}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_broken_config_file_exits_2_naming_the_file() {
    let project = Project::new();
    project.write(".wright/config.toml", "max_steps = \"many\"\n");
    let server = serve(vec![]);
    let run = project.exec(&server, "openai", &[], "hi");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains(".wright/config.toml"), "{}", run.stderr);
    assert!(server.requests().is_empty());
}

#[test]
fn json_mode_prints_one_typed_event_per_line_ending_with_round_finished() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let server = serve(vec![
        ScriptedResponse {
            usage: Some(ScriptedUsage {
                prompt_tokens: 50,
                completion_tokens: 7,
                cached_tokens: Some(40),
                ..ScriptedUsage::default()
            }),
            ..reply("Thought: read a\nAction: Read[{\"file_path\": \"a.txt\"}]")
        },
        reply("Thought: done\nAction: Finish[alpha it is]"),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "read a");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types[0], "session_started");
    assert_eq!(types[1], "round_started");
    assert_eq!(*types.last().unwrap(), "round_finished");
    let position = |t: &str| types.iter().position(|x| *x == t).unwrap();
    assert!(position("assistant_delta") < position("tool_call"));
    assert!(position("tool_call") < position("tool_result"));
    let thought: String = events
        .iter()
        .filter(|e| e["type"] == "assistant_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(thought, "Thought: read a\nThought: done\n");
    let call = &events[position("tool_call")];
    assert_eq!(call["tool"], "Read");
    assert_eq!(call["args"]["file_path"], "a.txt");
    let result = &events[position("tool_result")];
    assert_eq!(result["status"], "success");
    let usage = &events[position("usage")];
    assert_eq!(usage["prompt_tokens"], 50);
    assert_eq!(usage["completion_tokens"], 7);
    assert_eq!(usage["call"], "step");
    assert_eq!(usage["total_tokens"], 57);
    assert_eq!(usage["cached_prompt_tokens"], 40);
    assert_eq!(events.last().unwrap()["answer"], "alpha it is");
}

#[test]
fn reasoning_is_shown_as_thought_but_never_parsed_for_actions() {
    let project = Project::new();
    let server = serve(vec![ScriptedResponse {
        reasoning: Some("Maybe\nAction: Bash[{\"command\": \"touch pwned\"}]".into()),
        ..reply("Thought: easy\nAction: Finish[42]")
    }]);
    let run = project.exec(&server, "openai", &["--json"], "go");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(run.events().iter().any(|e| e["type"] == "reasoning_delta"));
    assert!(!project.path().join("pwned").exists());
    assert_eq!(run.events().last().unwrap()["answer"], "42");
}

#[test]
fn a_failed_call_carries_its_error_in_the_json_event() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: look.\nAction: Read[{\"file_path\": \"missing.txt\"}]"),
        reply("Thought: done.\nAction: Finish[ok]"),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "read it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let events = run.events();
    let result = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(result["status"], "error");
    assert_eq!(result["error"]["code"], "not_found");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("missing.txt")
    );
}

/// A llama.cpp server whose window is 4,096 tokens, answering `reply` to one request.
fn small_local_server(reply_text: &str) -> wright_testkit::TestServer {
    wright_testkit::TestServer::start(
        wright_testkit::Script::new(vec![reply(reply_text)]).with_document(
            "/props",
            r#"{"default_generation_settings":{"n_ctx":4096},"total_slots":1}"#,
        ),
    )
    .unwrap()
}

#[test]
fn an_unset_context_window_is_read_from_the_server_at_start() {
    let project = Project::new();
    let server = small_local_server("Thought: done\nAction: Finish[ok]");
    // About 10,000 tokens: fits the default window, not the server's.
    let prompt = "word ".repeat(6000);
    let run = project.exec(&server, "openai", &[], &prompt);
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    assert!(
        run.stderr.contains("context window (4096 tokens"),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty(), "nothing sent that cannot fit");
    let asked: Vec<String> = server
        .other_requests()
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert!(asked.contains(&"/props".to_string()), "{asked:?}");
}

#[test]
fn a_configured_context_window_is_not_asked_for() {
    let project = Project::new();
    let server = small_local_server("Thought: done\nAction: Finish[ok]");
    let run = project
        .command(&server, "openai")
        .env("WRIGHT_CONTEXT_WINDOW", "200000")
        .arg("exec")
        .arg("hello")
        .output()
        .unwrap();
    let run = common::Run::from(run);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(server.other_requests().is_empty());
}

/// Runs `wright exec ARGS...` against `server` with `input` on a piped standard input.
fn exec_with_stdin(
    project: &Project,
    server: &wright_testkit::TestServer,
    args: &[&str],
    input: &[u8],
) -> common::Run {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = project
        .command(server, "openai")
        .arg("exec")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // wright may stop reading (too long) and close its end; that is not the test's failure.
    let _ = stdin.write_all(input);
    drop(stdin);
    common::Run::from(child.wait_with_output().unwrap())
}

#[test]
fn a_dash_reads_the_prompt_from_standard_input() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[piped ok]")]);
    let run = exec_with_stdin(&project, &server, &["-"], b"summarise\nthe notes\n");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "piped ok\n");
    assert_eq!(
        messages(&server.requests()[0])[0],
        ("user".to_string(), "summarise\nthe notes".to_string())
    );
}

#[test]
fn without_a_prompt_a_piped_standard_input_is_the_prompt() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[ok]")]);
    let run = exec_with_stdin(&project, &server, &["--json"], "ünïcode task".as_bytes());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(last_message(&server.requests()[0]), "ünïcode task");
}

#[test]
fn an_empty_prompt_exits_2_and_calls_no_model() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[no]")]);
    let piped = exec_with_stdin(&project, &server, &["-"], b"\n  \n");
    assert_eq!(piped.code, Some(2), "{}", piped.stderr);
    assert_eq!(
        piped.stderr,
        "wright: the prompt on standard input is empty; say what you want done\n"
    );
    let given = project.exec(&server, "openai", &[], " ");
    assert_eq!(given.code, Some(2), "{}", given.stderr);
    assert!(
        given.stderr.contains("the prompt given is empty"),
        "{}",
        given.stderr
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_prompt_over_1_mib_on_standard_input_exits_2() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[no]")]);
    let run = exec_with_stdin(&project, &server, &["-"], &vec![b'a'; (1 << 20) + 1]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("wright: the prompt on standard input is longer than 1 MiB"),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_prompt_that_is_not_utf8_exits_2_naming_the_offset() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[no]")]);
    let run = exec_with_stdin(&project, &server, &["-"], b"caf\xe9");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "wright: the prompt on standard input is not UTF-8 text (invalid byte at offset 3)\n"
    );
    assert!(server.requests().is_empty());
}

/// A session file limit: with `ulimit -f 1` the kernel refuses writes past 512 bytes (with
/// SIGXFSZ ignored, as an error), so the meta line fits and the next record does not.
#[cfg(target_os = "linux")]
#[test]
fn a_round_whose_session_cannot_be_saved_exits_3_and_says_so() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[answered]")]);
    let wright = project.command(&server, "openai");
    let mut command = std::process::Command::new("sh");
    command.env_clear().current_dir(project.path());
    for (name, value) in wright.get_envs() {
        if let Some(value) = value {
            command.env(name, value);
        }
    }
    // The meta line (with the environment block and the agents the Task tool lists) fits
    // under the limit; the prompt's record does not.
    let prompt = "a long request ".repeat(1000);
    let output = command
        .args(["-c", "trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_wright"))
        .args(["exec", "--session", "full", &prompt])
        .output()
        .unwrap();
    let run = common::Run::from(output);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(run.stdout, "answered\n", "the answer is still given");
    assert!(
        run.stderr
            .contains("the session could not be saved: cannot write to "),
        "{}",
        run.stderr
    );
    let summary = run
        .stderr
        .lines()
        .find(|line| line.starts_with("wright: error: "))
        .unwrap_or_else(|| panic!("no error line in {}", run.stderr));
    assert!(summary.contains("could not be saved"), "{summary}");
}

#[test]
fn zero_max_steps_in_a_settings_file_exits_2_naming_the_setting_and_the_file() {
    let project = Project::new();
    project.write(".wright/config.toml", "max_steps = 0\n");
    let server = serve(vec![reply("Action: Finish[no]")]);
    let run = project.exec(&server, "openai", &[], "hi");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let file = project
        .path()
        .canonicalize()
        .unwrap()
        .join(".wright/config.toml");
    assert!(
        run.stderr.starts_with(&format!(
            "wright: invalid `max_steps` in {}: 0 ",
            file.display()
        )),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty());
}

#[test]
fn an_unknown_tool_protocol_is_a_usage_error_naming_the_protocols() {
    let project = Project::new();
    let server = serve(vec![]);
    let run = project.exec(&server, "openai", &["--tool-protocol", "json"], "x");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("expected `text` or `native`"),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty());
}
