//! Issue 19, part 1: the native tool protocol end to end — the real binary against the testkit
//! on both wires: tools offered as schemas, results sent as each provider expects, the answer
//! printed, malformed arguments answered like text mode, read-only calls side by side, and a
//! session switching protocol when it is resumed.

use serde_json::Value;
use wright_testkit::{ScriptedResponse, ScriptedToolCall};

use crate::common::{Project, interrupt_at_first_tool_call, reply, serve};

const NATIVE: [&str; 2] = ["--tool-protocol", "native"];

fn call(id: &str, name: &str, arguments: &str) -> ScriptedToolCall {
    ScriptedToolCall::new(id, name, arguments)
}

fn calls(calls: Vec<ScriptedToolCall>) -> ScriptedResponse {
    ScriptedResponse::tool_calls(calls)
}

/// The names of the tools a request body offers, on either wire.
fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| {
                    tool["function"]["name"]
                        .as_str()
                        .or_else(|| tool["name"].as_str())
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The system prompt of a request body, on either wire.
fn system(body: &Value) -> String {
    match &body["system"] {
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n\n"),
        Value::String(text) => text.clone(),
        _ => body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    }
}

/// The tool results of an OpenAI request body: (tool_call_id, content), in order.
fn openai_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The tool results of an Anthropic request body: (tool_use_id, content), in order.
fn anthropic_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|block| block["type"] == "tool_result")
        .map(|block| {
            let content = match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<String>(),
                other => other.to_string(),
            };
            (block["tool_use_id"].as_str().unwrap().to_string(), content)
        })
        .collect()
}

fn results(provider: &str, body: &Value) -> Vec<(String, String)> {
    match provider {
        "anthropic" => anthropic_results(body),
        _ => openai_results(body),
    }
}

#[test]
fn both_providers_get_the_tools_as_schemas_and_the_results_as_they_expect() {
    for provider in ["openai", "anthropic"] {
        let project = Project::new();
        project.write("notes.txt", "the password is swordfish\n");
        let server = serve(vec![
            calls(vec![call(
                "call_1",
                "Read",
                r#"{"file_path": "notes.txt"}"#,
            )]),
            reply("It holds the password."),
        ]);
        let run = project.exec(&server, provider, &NATIVE, "what is in notes.txt?");
        assert_eq!(run.code, Some(0), "{provider}: {}", run.stderr);
        assert_eq!(run.stdout, "It holds the password.\n", "{provider}");
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{provider}");
        let first = requests[0].json().unwrap();
        let tools = offered(&first);
        for tool in ["Read", "Edit", "Bash", "Grep"] {
            assert!(tools.contains(&tool.to_string()), "{provider}: {tools:?}");
        }
        let read = first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Read" || t["function"]["name"] == "Read")
            .unwrap();
        let schema = match provider {
            "anthropic" => &read["input_schema"],
            _ => &read["function"]["parameters"],
        };
        assert_eq!(schema["type"], "object", "{provider}: {read}");
        assert!(
            schema["properties"]["file_path"].is_object(),
            "{provider}: {read}"
        );
        // No text protocol: no format in the prompt, no stop at a made-up observation.
        let prompt = system(&first);
        assert!(!prompt.contains("Action:"), "{provider}: {prompt}");
        assert!(
            !prompt.contains("## Read"),
            "{provider}: tools described twice"
        );
        assert!(first.get("stop").is_none() && first.get("stop_sequences").is_none());
        let second = requests[1].json().unwrap();
        let results = results(provider, &second);
        assert_eq!(results.len(), 1, "{provider}: {second}");
        assert_eq!(results[0].0, "call_1", "{provider}");
        assert!(
            results[0].1.contains("the password is swordfish"),
            "{provider}: the full result in its round: {}",
            results[0].1
        );
        // The call itself goes back as the provider's own call message.
        let assistant = second["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "assistant")
            .unwrap();
        let (id, name) = match provider {
            "anthropic" => {
                let block = &assistant["content"][0];
                assert_eq!(block["type"], "tool_use", "{assistant}");
                (&block["id"], &block["name"])
            }
            _ => {
                let call = &assistant["tool_calls"][0];
                (&call["id"], &call["function"]["name"])
            }
        };
        assert_eq!((id.as_str(), name.as_str()), (Some("call_1"), Some("Read")));
        // Descriptions carry no text-protocol `Action:` examples.
        let descriptions = first["tools"].to_string();
        assert!(!descriptions.contains("Action: "), "{provider}");
        assert!(descriptions.contains("Example arguments: {"), "{provider}");
    }
}

#[test]
fn the_text_protocol_stays_the_default_and_offers_no_tools() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[ok]")]);
    let run = project.exec(&server, "anthropic", &[], "hi");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "ok\n");
    let body = server.requests()[0].json().unwrap();
    assert!(body.get("tools").is_none(), "{body}");
    assert!(system(&body).contains("Action: Finish["));
    assert_eq!(body["stop_sequences"][0], "\nObservation:");
}

#[test]
fn malformed_arguments_get_the_text_modes_error_and_the_round_goes_on() {
    for provider in ["openai", "anthropic"] {
        let project = Project::new();
        let server = serve(vec![
            calls(vec![call("call_9", "Read", r#"{"file_path": "a.txt""#)]),
            reply("I could not read it."),
        ]);
        let run = project.exec(&server, provider, &NATIVE, "read a.txt");
        assert_eq!(run.code, Some(0), "{provider}: {}", run.stderr);
        assert_eq!(run.stdout, "I could not read it.\n");
        let second = server.requests()[1].json().unwrap();
        let results = results(provider, &second);
        assert_eq!(results.len(), 1, "{provider}: {second}");
        assert_eq!(results[0].0, "call_9");
        assert!(
            results[0].1.starts_with(
                "Error: your action could not be read: the arguments of `Read` are not valid JSON:"
            ),
            "{provider}: {}",
            results[0].1
        );
        assert!(results[0].1.contains("tool-calling interface"));
    }
}

/// The order of the tool events of a `--json` run: ("call"|"result", tool).
fn tool_events(run: &crate::common::Run) -> Vec<(String, String)> {
    run.events()
        .iter()
        .filter_map(|event| {
            let kind = match event["type"].as_str()? {
                "tool_call" => "call",
                "tool_result" => "result",
                _ => return None,
            };
            Some((kind.to_string(), event["tool"].as_str()?.to_string()))
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn read_only_calls_of_one_reply_run_side_by_side_and_answer_in_order() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    project.write("b.txt", "beta\n");
    let server = serve(vec![
        calls(vec![
            call("c1", "Read", r#"{"file_path": "a.txt"}"#),
            call("c2", "Grep", r#"{"pattern": "beta"}"#),
            call("c3", "Read", r#"{"file_path": "b.txt"}"#),
        ]),
        reply("alpha and beta"),
    ]);
    let mut args = NATIVE.to_vec();
    args.push("--json");
    let run = project.exec(&server, "openai", &args, "read both");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // All three were called before any finished: they ran together.
    assert_eq!(
        tool_events(&run),
        pairs(&[
            ("call", "Read"),
            ("call", "Grep"),
            ("call", "Read"),
            ("result", "Read"),
            ("result", "Grep"),
            ("result", "Read"),
        ])
    );
    let second = server.requests()[1].json().unwrap();
    let results = openai_results(&second);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["c1", "c2", "c3"], "{second}");
    assert!(results[0].1.contains("alpha"));
    assert!(results[1].1.contains("b.txt"));
    assert!(results[2].1.contains("beta"));
}

#[test]
fn a_reply_that_writes_runs_its_calls_one_after_another_in_order() {
    let project = Project::new();
    let server = serve(vec![
        calls(vec![
            call(
                "w",
                "Write",
                r#"{"file_path": "new.txt", "content": "fresh\n"}"#,
            ),
            call("r", "Read", r#"{"file_path": "new.txt"}"#),
        ]),
        reply("written and read"),
    ]);
    let mut args = NATIVE.to_vec();
    args.push("--json");
    let run = project.exec(&server, "anthropic", &args, "write then read");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        tool_events(&run),
        pairs(&[
            ("call", "Write"),
            ("result", "Write"),
            ("call", "Read"),
            ("result", "Read"),
        ])
    );
    let second = server.requests()[1].json().unwrap();
    let results = anthropic_results(&second);
    assert_eq!(results.len(), 2, "{second}");
    assert!(results[1].1.contains("fresh"), "the Read saw the Write");
}

#[test]
fn a_session_switches_protocol_when_it_is_resumed() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let server = serve(vec![
        calls(vec![call("c1", "Read", r#"{"file_path": "a.txt"}"#)]),
        reply("It says alpha."),
        // Round 2, text: the native step reads as text.
        reply("Action: Finish[still alpha]"),
        // Round 3, native again: round 1 goes back as native calls, round 2 as text.
        reply("done"),
    ]);
    let session = ["--session", "s"];
    let native: Vec<&str> = NATIVE.iter().chain(&session).copied().collect();
    let run = project.exec(&server, "openai", &native, "read a.txt");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let run = project.exec(&server, "openai", &session, "and now?");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "still alpha\n");
    let run = project.exec(&server, "openai", &native, "once more");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "done\n");
    let requests = server.requests();
    let text = requests[2].json().unwrap();
    assert!(text.get("tools").is_none());
    let sent = text["messages"].to_string();
    assert!(
        sent.contains(r#"Action: Read[{\"file_path\": \"a.txt\"}]"#),
        "{sent}"
    );
    assert!(sent.contains(r#"[tool] {\"status\":\"success\""#), "{sent}");
    assert!(!sent.contains("tool_call"), "{sent}");
    let native = requests[3].json().unwrap();
    let results = openai_results(&native);
    assert_eq!(results.len(), 1, "{native}");
    assert_eq!(results[0].0, "c1");
    assert!(
        results[0].1.starts_with(r#"{"status":"success""#),
        "history form"
    );
    assert!(
        native["messages"]
            .to_string()
            .contains("Action: Finish[still alpha]"),
        "the text round stays text"
    );
}

#[test]
fn ctrl_c_mid_reply_leaves_every_call_answered_for_the_next_round() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let server = serve(vec![
        calls(vec![
            call("slow", "Bash", r#"{"command": "sleep 30"}"#),
            call("next", "Read", r#"{"file_path": "a.txt"}"#),
        ]),
        reply("resumed"),
    ]);
    let mut command = project.command(&server, "openai");
    command
        .args(["exec", "--json", "--tool-protocol", "native"])
        .args(["--session", "s", "wait"]);
    let (status, _) = interrupt_at_first_tool_call(command);
    assert_eq!(status.code(), Some(130));
    let run = project.exec(
        &server,
        "openai",
        &["--tool-protocol", "native", "--session", "s"],
        "go on",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "resumed\n");
    let body = server.requests()[1].json().unwrap();
    let results = openai_results(&body);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["slow", "next"], "{body}");
    assert!(
        results[1].1.contains("\"code\":\"interrupted\""),
        "{}",
        results[1].1
    );
    assert!(!results[1].1.contains("alpha"), "the Read never ran");
}

#[test]
fn wright_context_shows_the_native_request_with_its_tools_and_calls() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let server = serve(vec![
        calls(vec![call("c1", "Read", r#"{"file_path": "a.txt"}"#)]),
        reply("It says alpha."),
    ]);
    let native: Vec<&str> = NATIVE.iter().chain(&["--session", "s"]).copied().collect();
    let run = project.exec(&server, "anthropic", &native, "read a.txt");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // The same stored history, shown for each protocol.
    let context = |protocol: &str| {
        let output = project
            .command(&server, "anthropic")
            .env("WRIGHT_TOOL_PROTOCOL", protocol)
            .args(["context", "--full", "--session", "s"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let shown = context("native");
    assert!(shown.contains("L1 tool definitions ("), "{shown}");
    assert!(shown.contains("===== tools =====\n[\n  {\n"), "{shown}");
    assert!(
        shown.contains("[tool call c1] Read {\"file_path\": \"a.txt\"}"),
        "{shown}"
    );
    assert!(
        shown.contains("===== tool result c1 =====\n{\"status\":\"success\""),
        "{shown}"
    );
    assert!(!shown.contains("Action: "), "{shown}");
    let shown = context("text");
    assert!(shown.contains("L1 system prompt + "), "{shown}");
    assert!(!shown.contains("===== tools ====="), "{shown}");
    assert!(
        shown.contains("Action: Read[{\"file_path\": \"a.txt\"}]"),
        "{shown}"
    );
    assert!(!shown.contains("[tool call"), "{shown}");
    let output = project
        .command(&server, "anthropic")
        .args(["sessions", "show", "s"])
        .output()
        .unwrap();
    let shown = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{shown}");
    assert!(
        shown.contains("Action: Read[{\"file_path\": \"a.txt\"}]\n  ↳ Read"),
        "{shown}"
    );
    assert!(shown.contains("It says alpha."), "{shown}");
}

#[test]
fn plan_mode_offers_only_the_tools_that_change_nothing() {
    let project = Project::new();
    let server = serve(vec![
        calls(vec![call(
            "w",
            "Write",
            r#"{"file_path": "x.txt", "content": "no"}"#,
        )]),
        reply("1. Do it."),
    ]);
    let args: Vec<&str> = NATIVE.iter().chain(&["--plan"]).copied().collect();
    let run = project.exec(&server, "openai", &args, "plan it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    let first = requests[0].json().unwrap();
    let tools = offered(&first);
    assert!(tools.contains(&"Read".to_string()), "{tools:?}");
    for changing in ["Write", "Edit", "MultiEdit"] {
        assert!(!tools.contains(&changing.to_string()), "{tools:?}");
    }
    assert!(system(&first).contains("plan"), "plan mode's L1");
    // A call of a tool plan mode does not offer is refused, not run.
    assert!(!project.path().join("x.txt").exists());
    let results = openai_results(&requests[1].json().unwrap());
    assert_eq!(results[0].0, "w");
    assert!(results[0].1.contains("plan mode"), "{}", results[0].1);
}

#[test]
fn compaction_summarises_native_rounds_and_keeps_the_retained_ones_paired() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let mut script = Vec::new();
    for i in 1..=12 {
        script.push(calls(vec![call(
            &format!("c{i}"),
            "Read",
            r#"{"file_path": "a.txt"}"#,
        )]));
        let mut answer = reply(&format!("answer {i}"));
        if i == 12 {
            answer.usage = Some(wright_testkit::ScriptedUsage {
                prompt_tokens: 170_000,
                completion_tokens: 10,
                ..wright_testkit::ScriptedUsage::default()
            });
        }
        script.push(answer);
    }
    let summary: String = std::iter::once("## 📌 Archived Session Summary\nSUMMARY-MARKER")
        .chain(wright_core::summarize::SECTIONS.iter().map(|(h, _)| *h))
        .collect::<Vec<_>>()
        .join("\n\n");
    script.push(reply(&summary));
    script.push(reply("answer 13"));
    let server = serve(script);
    let native: Vec<&str> = NATIVE.iter().chain(&["--session", "s"]).copied().collect();
    for i in 1..=13 {
        let run = project.exec(&server, "openai", &native, &format!("question {i}"));
        assert_eq!(run.code, Some(0), "round {i}: {}", run.stderr);
    }
    let requests = server.requests();
    let summary_call = requests
        .iter()
        .find(|r| {
            r.body
                .contains("You archive the older part of a conversation")
        })
        .expect("a summary call");
    // The archived rounds' calls reach the summary model as action lines.
    assert!(
        summary_call
            .body
            .contains(r#"[assistant] Action: Read[{\"file_path\": \"a.txt\"}]"#),
        "{}",
        summary_call.body
    );
    let last = requests.last().unwrap().json().unwrap();
    let ids: Vec<String> = openai_results(&last)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let kept: Vec<String> = (3..=12).map(|i| format!("c{i}")).collect();
    assert_eq!(
        ids, kept,
        "ten whole native rounds, each call with its result"
    );
    assert!(system(&last).contains("SUMMARY-MARKER"));
}

#[test]
fn the_todo_recap_closes_a_native_request_after_the_cache_breakpoint() {
    for provider in ["openai", "anthropic"] {
        let project = Project::new();
        let todos = r#"{"todos": [{"id": "1", "content": "Ship it", "status": "in_progress"}]}"#;
        let server = serve(vec![
            calls(vec![call("t", "TodoWrite", todos)]),
            reply("planned"),
        ]);
        let run = project.exec(&server, provider, &NATIVE, "plan");
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let second = server.requests()[1].json().unwrap();
        let last = second["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        match provider {
            // OpenAI caches any prefix: the recap ends the last tool message.
            "openai" => {
                assert_eq!(last["role"], "tool", "{last}");
                let content = last["content"].as_str().unwrap();
                let (result, recap) = content.split_once("\n\n<todo-recap>\n").unwrap();
                assert!(result.contains("Ship it"), "{result}");
                assert!(recap.ends_with("</todo-recap>") && recap.contains("Ship it"));
            }
            // Anthropic caches up to a breakpoint: it ends the result, and the recap, which
            // the next request will not have there, follows as a block of its own.
            _ => {
                let blocks = last["content"].as_array().unwrap();
                assert_eq!(blocks.len(), 2, "{last}");
                assert_eq!(blocks[0]["type"], "tool_result");
                assert_eq!(blocks[0]["cache_control"]["type"], "ephemeral");
                assert!(
                    !blocks[0]["content"]
                        .as_str()
                        .unwrap()
                        .contains("todo-recap")
                );
                let recap = blocks[1]["text"].as_str().unwrap();
                assert!(recap.starts_with("\n\n<todo-recap>\n"), "{recap}");
                assert!(recap.ends_with("</todo-recap>") && recap.contains("Ship it"));
            }
        }
    }
}

#[test]
fn arguments_cut_by_the_output_limit_say_so_and_are_not_sent_back_broken() {
    let project = Project::new();
    let cut = format!(
        r#"{{"file_path": "big.txt", "content": "{}"#,
        "line\\n".repeat(2_000)
    );
    let server = serve(vec![
        ScriptedResponse {
            finish_reason: "length".into(),
            ..calls(vec![call("w", "Write", &cut)])
        },
        reply("I will write it in parts."),
    ]);
    let run = project.exec(&server, "openai", &NATIVE, "write a big file");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let second = server.requests()[1].json().unwrap();
    let results = openai_results(&second);
    assert!(
        results[0].1.contains("reached the output-token limit"),
        "{}",
        results[0].1
    );
    let sent = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(
        sent["tool_calls"][0]["function"]["arguments"], "{}",
        "a server that parses arguments is never sent broken JSON"
    );
    assert!(!project.path().join("big.txt").exists());
}

#[test]
fn three_unreadable_replies_in_a_row_end_the_round() {
    let project = Project::new();
    let server = serve(vec![
        calls(vec![call("a", "Read", "{oops")]),
        reply(""),
        calls(vec![call("b", "Read", "[1]"), call("c", "Read", "nope")]),
        reply("never asked"),
    ]);
    let mut args = NATIVE.to_vec();
    args.push("--json");
    let run = project.exec(&server, "anthropic", &args, "read");
    assert_ne!(run.code, Some(0), "{}", run.stdout);
    let events = run.events();
    let format_errors = events
        .iter()
        .filter(|e| e["type"] == "format_error")
        .count();
    // One per unreadable call; an empty reply is told as in text mode, without an event.
    assert_eq!(format_errors, 3);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "error", "{last}");
    assert_eq!(last["code"], "malformed_replies", "{last}");
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn a_native_reply_cut_by_a_kill_is_answered_in_the_next_rounds_request() {
    let project = Project::new();
    project.write("a.txt", "alpha\n");
    let server = serve(vec![
        calls(vec![
            call("read", "Read", r#"{"file_path": "a.txt"}"#),
            call("wait", "Bash", r#"{"command": "touch started; sleep 20"}"#),
        ]),
        reply("resumed"),
    ]);
    let mut child = project
        .command(&server, "openai")
        .args(["exec", "--tool-protocol", "native", "--session", "s", "go"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !project.path().join("started").exists() {
        assert!(std::time::Instant::now() < deadline, "never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let native: Vec<&str> = NATIVE.iter().chain(&["--session", "s"]).copied().collect();
    let run = project.exec(&server, "openai", &native, "again");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let body = server.requests()[1].json().unwrap();
    let results = openai_results(&body);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["read", "wait"], "{body}");
    assert!(results[0].1.contains("alpha"), "the Read that ran is kept");
    assert!(
        results[1].1.contains("\"code\":\"interrupted\""),
        "{}",
        results[1].1
    );
}

#[test]
fn read_only_sub_agents_of_one_reply_run_side_by_side() {
    let project = Project::new();
    let task = |id: &str| {
        call(
            id,
            "Task",
            r#"{"agent": "explore", "description": "Look", "prompt": "say found"}"#,
        )
    };
    let server = serve(vec![
        calls(vec![task("t1"), task("t2")]),
        // Each sub-agent's one reply (native too: text is its answer); either may come first.
        reply("found"),
        reply("found"),
        reply("both found"),
    ]);
    let mut args = NATIVE.to_vec();
    args.push("--json");
    let run = project.exec(&server, "openai", &args, "look twice");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.events().last().unwrap()["answer"], "both found");
    assert_eq!(
        tool_events(&run),
        pairs(&[
            ("call", "Task"),
            ("call", "Task"),
            ("result", "Task"),
            ("result", "Task"),
        ])
    );
    let last = server.requests().pop().unwrap().json().unwrap();
    let results = openai_results(&last);
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|(_, content)| content.contains("found")));
}
