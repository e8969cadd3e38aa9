//! Sub-agents from the command line (issue 14): `wright agents list`, `wright exec --agent`,
//! `--tools`, `--system-prompt-file`, and a Task's session listed under its parent.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::{Project, reply, serve};

fn system_prompt(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

/// The tool names a system prompt offers (`## Name` headings).
fn offered(system: &str) -> Vec<String> {
    system
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(str::to_string)
        .collect()
}

#[test]
fn agents_list_shows_builtins_and_files_and_names_a_bad_files_line() {
    let project = Project::new();
    project.trust();
    project.write(
        ".wright/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews diffs strictly\ntools: Read, Grep\nmodel: small\n---\nReview.\n",
    );
    project.write(
        ".wright/agents/broken.md",
        "---\nname: broken\ndescription: x\nmax_steps: lots\n---\n",
    );
    let output = project
        .bare_command()
        .args(["agents", "list"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("general  (built-in)\n  tools: all\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("explore  (built-in, read-only)\n  tools: Read, LS, Glob, Grep, Bash\n"),
        "{stdout}"
    );
    assert!(stdout.contains("reviewer  ("), "{stdout}");
    assert!(
        stdout.contains("  tools: Read, Grep; model: small\n  Reviews diffs strictly\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("broken"), "{stdout}");
    assert!(
        stderr.contains("broken.md:4: max_steps must be a number from 1 to 200, not \"lots\"; the agent is skipped"),
        "{stderr}"
    );

    let output = project
        .bare_command()
        .args(["agents", "list", "--json"])
        .output()
        .unwrap();
    let agents: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let names: Vec<&str> = agents.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["general", "explore", "reviewer"]);
    assert_eq!(agents[1]["read_only"], true);
    assert_eq!(agents[2]["model"], "small");
}

#[test]
fn exec_as_a_named_agent_uses_its_tools_model_instructions_and_an_appended_file() {
    let project = Project::new();
    // An untrusted project's agent picks no model (see the next test).
    project.trust();
    project.write(
        ".wright/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews\ntools: Read, Grep\nmodel: review-model\nmax_steps: 1\n---\nREVIEWER-RULES\n",
    );
    project.write("extra.md", "EXTRA-SYSTEM-TEXT\n");
    let server = serve(vec![reply("Action: Finish[reviewed]")]);
    let run = project.exec(
        &server,
        "openai",
        &["--agent", "reviewer", "--system-prompt-file", "extra.md"],
        "review it",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "reviewed\n");
    let body = server.requests()[0].json().unwrap();
    assert_eq!(body["model"], "review-model");
    let system = system_prompt(&body);
    assert_eq!(offered(&system), vec!["Read", "Grep"]);
    let rules = system
        .find("REVIEWER-RULES")
        .expect("the agent's instructions");
    let extra = system.find("EXTRA-SYSTEM-TEXT").expect("the file's text");
    assert!(
        rules < extra,
        "the file is appended after the agent's instructions"
    );
    assert!(
        !system.contains("You are a sub-agent"),
        "a session is not a sub-agent"
    );
}

#[test]
fn exec_tools_narrows_the_tools_and_an_unknown_agent_or_tool_is_a_usage_error() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[ok]")]);
    let run = project.exec(&server, "openai", &["--tools", "Read,Glob"], "look");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let system = system_prompt(&server.requests()[0].json().unwrap());
    assert_eq!(offered(&system), vec!["Read", "Glob"]);

    let run = project.exec(&server, "openai", &["--agent", "wizard"], "look");
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("there is no agent named `wizard`; the agents are: general, explore"),
        "{}",
        run.stderr
    );
    let run = project.exec(&server, "openai", &["--tools", "Read,Teleport"], "look");
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("--tools: there is no tool named `Teleport`"),
        "{}",
        run.stderr
    );
    let run = project.exec(
        &server,
        "openai",
        &["--system-prompt-file", "missing.md"],
        "look",
    );
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("--system-prompt-file missing.md"),
        "{}",
        run.stderr
    );
    assert_eq!(
        server.requests().len(),
        1,
        "no model call after a usage error"
    );
}

#[test]
fn a_tasks_session_is_listed_under_its_parent() {
    let project = Project::new();
    let server = serve(vec![
        reply(
            "Action: Task[{\"agent\": \"explore\", \"description\": \"Look around\", \"prompt\": \"list the files\"}]",
        ),
        reply("Action: LS[{\"path\": \".\"}]"),
        reply("Action: Finish[CHILD-SAYS-HI]"),
        reply("Action: Finish[parent done]"),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "delegate");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let events = run.events();
    let session = events[0]["session_id"].as_str().unwrap().to_string();
    // The child's steps come as `subagent` events under the Task call's step.
    let child_call = events
        .iter()
        .find(|e| e["type"] == "subagent" && e["event"]["type"] == "tool_call")
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(child_call["step"], 1);
    assert_eq!(child_call["agent"], "explore");
    assert_eq!(child_call["description"], "Look around");
    assert_eq!(child_call["event"]["tool"], "LS");

    // A person running exec sees the child's steps too.
    let human_server = serve(vec![
        reply(
            "Action: Task[{\"agent\": \"explore\", \"description\": \"Look\", \"prompt\": \"list\"}]",
        ),
        reply("Action: LS[{\"path\": \".\"}]"),
        reply("Action: Finish[seen]"),
        reply("Action: Finish[done]"),
    ]);
    let human = project.exec(&human_server, "openai", &[], "delegate");
    assert_eq!(human.code, Some(0), "{}", human.stderr);
    assert!(
        human
            .stderr
            .contains("↳ explore (Look) → LS {\"path\":\".\"}"),
        "{}",
        human.stderr
    );
    let output = project
        .bare_command()
        .args(["sessions", "show", &session])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains("Sub-agents (1; `wright sessions show ID` shows one):"),
        "{shown}"
    );
    assert!(
        shown.contains("  explore  \"Look around\"  1 round"),
        "{shown}"
    );
    let child = shown
        .lines()
        .skip_while(|line| !line.starts_with("Sub-agents"))
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let output = project
        .bare_command()
        .args(["sessions", "show", &child])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.starts_with(&format!(
            "Sub-agent `explore` of session {session}: Look around"
        )),
        "{shown}"
    );
    assert!(shown.contains("CHILD-SAYS-HI"), "{shown}");
    // The project's own list shows the parent alone.
    let output = project
        .bare_command()
        .args(["sessions", "list"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&output.stdout);
    assert!(listed.contains(&session[..8]), "{listed}");
    assert!(!listed.contains(&child[..13]), "{listed}");
}

#[test]
fn an_untrusted_projects_agent_runs_on_the_users_model_and_says_so() {
    let project = Project::new();
    project.write(
        ".wright/agents/pricey.md",
        "---\nname: pricey\ndescription: Costs a lot\nmodel: very-expensive\n---\nGo.\n",
    );
    let server = serve(vec![reply("Action: Finish[done]")]);
    let run = project.exec(&server, "openai", &["--agent", "pricey"], "go");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.requests()[0].json().unwrap()["model"], "test-model");
    assert!(
        run.stderr
            .contains("`model: very-expensive` ignored: this project is not trusted"),
        "{}",
        run.stderr
    );
}
