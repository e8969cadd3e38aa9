//! `wright mcp list|add|remove` (issue 15): servers in the user's settings file, a project's
//! own servers only when it is trusted.

use crate::common::Project;
use wright_testkit::TestServer;

fn wright(project: &Project, args: &[&str]) -> (Option<i32>, String, String) {
    let output = project.bare_command().args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn servers_are_added_to_the_user_settings_listed_and_removed_keeping_the_file() {
    let project = Project::new();
    let settings = project.home.path().join(".config/wright/config.toml");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "# my settings\nmodel = \"mine\" # keep this\n").unwrap();

    let (code, out, err) = wright(
        &project,
        &[
            "mcp",
            "add",
            "files",
            "--env",
            "LOG=1",
            "--",
            "/nonexistent/npx",
            "-y",
            "server-fs",
            ".",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Added the MCP server \"files\""), "{out}");
    let (code, _, err) = wright(
        &project,
        &[
            "mcp",
            "add",
            "web",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--header",
            "X-Team=core",
            "--bearer-token-env-var",
            "WEB_TOKEN",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(
        text.starts_with("# my settings\nmodel = \"mine\" # keep this\n"),
        "{text}"
    );
    assert!(text.contains("[mcp_servers.files]"), "{text}");
    assert!(text.contains("command = \"/nonexistent/npx\""), "{text}");

    let (code, out, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(
            "files  command: /nonexistent/npx -y server-fs .\nweb  url: http://127.0.0.1:9/mcp\n\n"
        ),
        "{out}"
    );
    // Each is started as a session would start it, and what went wrong is said.
    assert!(
        out.contains("\nfiles: did not start: could not start `/nonexistent/npx`"),
        "{out}"
    );
    assert!(out.contains("\nweb: did not start: "), "{out}");

    // A name taken, a bad name, neither command nor url: usage errors, the file unchanged.
    let before = std::fs::read_to_string(&settings).unwrap();
    for bad in [
        vec!["mcp", "add", "files", "--", "other"],
        vec!["mcp", "add", "bad name", "--", "x"],
        vec!["mcp", "add", "empty"],
    ] {
        let (code, _, err) = wright(&project, &bad);
        assert_eq!(code, Some(2), "{bad:?}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);

    let (code, _, err) = wright(&project, &["mcp", "remove", "files"]);
    assert_eq!(code, Some(0), "{err}");
    let (_, out, _) = wright(&project, &["mcp", "list"]);
    assert!(
        out.starts_with("web  url: http://127.0.0.1:9/mcp\n\n"),
        "{out}"
    );
    let (code, _, err) = wright(&project, &["mcp", "remove", "files"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("has no server called \"files\""), "{err}");
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .starts_with("# my settings\nmodel = \"mine\" # keep this\n")
    );
}

#[test]
fn a_projects_own_servers_are_used_only_when_it_is_trusted() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[mcp_servers.repo]\ncommand = \"./serve-mcp\"\n",
    );
    let (code, out, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("No MCP servers are configured."), "{out}");
    assert!(
        err.contains("[mcp_servers]"),
        "the user is told what was ignored: {err}"
    );

    project.trust();
    let (code, out, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("repo  command: ./serve-mcp\n\n"), "{out}");
}

#[test]
fn a_server_that_cannot_be_started_is_an_error_naming_the_file() {
    let project = Project::new();
    project.trust();
    project.write(
        ".wright/config.toml",
        "[mcp_servers.both]\ncommand = \"x\"\nurl = \"http://127.0.0.1:1/mcp\"\n",
    );
    let (code, _, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("invalid `mcp_servers`")
            && err.contains("[mcp_servers.both]: give `command` or `url`, not both"),
        "{err}"
    );
}

/// The user's settings naming the scripted MCP server `demo`, serving `script`.
fn with_scripted_server(project: &Project, script: &serde_json::Value) {
    let script_path = project.home.path().join("mcp-script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let settings = project.home.path().join(".config/wright/config.toml");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        format!(
            "[mcp_servers.demo]\ncommand = {:?}\nargs = [\"mcp-serve\", {:?}]\n",
            wright_testkit::mcp_server::binary().display().to_string(),
            script_path.display().to_string()
        ),
    )
    .unwrap();
}

#[test]
fn exec_offers_a_servers_tools_calls_them_and_stops_the_server() {
    let project = Project::new();
    with_scripted_server(
        &project,
        &serde_json::json!({"tools": [
            {"name": "lookup", "description": "Looks a word up.",
             "input_schema": {"type": "object", "properties": {"word": {"type": "string"}},
                              "required": ["word"]},
             "result": {"content": [{"type": "text", "text": "MEANING: a small bird"}]}}
        ]}),
    );
    let server = crate::common::serve(vec![
        crate::common::reply("Action: mcp__demo__lookup[{\"word\": 42}]"),
        crate::common::reply("Action: mcp__demo__lookup[{\"word\": \"wren\"}]"),
        crate::common::reply("Action: Finish[a small bird]"),
    ]);
    let run = project.exec(&server, "openai", &[], "what is a wren?");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "a small bird\n");
    let requests = server.requests();
    let body = requests[0].json().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(
        system.contains("## mcp__demo__lookup\nLooks a word up.\nInput schema: "),
        "{system}"
    );
    // Wrong arguments: refused before the call, with the schema.
    let refused = crate::common::last_message(&requests[1]);
    assert!(refused.contains("invalid_arguments"), "{refused}");
    assert!(refused.contains("\"required\":[\"word\"]"), "{refused}");
    let answered = crate::common::last_message(&requests[2]);
    assert!(answered.contains("MEANING: a small bird"), "{answered}");
    // The server did not outlive wright.
    // It ran in the project (its cwd); nothing may run there once wright is gone.
    let left = wright_testkit::processes::running_in(project.path()).unwrap_or_default();
    assert!(
        wright_testkit::processes::wait_until_gone(&left).is_empty(),
        "{left:?}"
    );
}

#[test]
fn a_server_that_cannot_start_is_a_warning_and_the_round_goes_on() {
    let project = Project::new();
    let settings = project.home.path().join(".config/wright/config.toml");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        "[mcp_servers.gone]\ncommand = \"/nonexistent/mcp-server\"\n",
    )
    .unwrap();
    let server = crate::common::serve(vec![crate::common::reply("Action: Finish[fine]")]);
    let run = project.exec(&server, "openai", &[], "hi");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("MCP server `gone`") && run.stderr.contains("left out of this session"),
        "{}",
        run.stderr
    );
}

#[test]
fn in_ask_mode_a_servers_tool_is_asked_about_and_with_no_one_to_ask_denied() {
    let project = Project::new();
    with_scripted_server(
        &project,
        &serde_json::json!({"tools": [
            {"name": "lookup", "result": {"content": [{"type": "text", "text": "MEANING"}]}},
            {"name": "peek", "read_only": true,
             "result": {"content": [{"type": "text", "text": "PEEKED"}]}}
        ]}),
    );
    let server = crate::common::serve(vec![
        crate::common::reply("Action: mcp__demo__lookup[{}]"),
        crate::common::reply("Action: mcp__demo__peek[{}]"),
        crate::common::reply("Action: Finish[done]"),
    ]);
    let run = project.exec(&server, "openai", &["--approval", "ask"], "look it up");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    let denied = crate::common::last_message(&requests[1]);
    assert!(denied.contains("The user denied this action."), "{denied}");
    assert!(!denied.contains("MEANING"), "{denied}");
    // A tool its server says only reads runs unasked.
    let peeked = crate::common::last_message(&requests[2]);
    assert!(peeked.contains("PEEKED"), "{peeked}");
}

/// `wright exec` in a project whose MCP server is busy with a slow call, once the server
/// and a child in its group (which, unlike the server, does not end when wright's pipe to it
/// closes) run: wright, the scripted provider (kept alive) and the server's processes.
fn wright_in_a_slow_call(project: &Project) -> (std::process::Child, TestServer, Vec<u32>) {
    with_scripted_server(
        project,
        &serde_json::json!({"spawn": ["sleep", "300"],
                            "tools": [{"name": "slow", "delay_ms": 60_000}]}),
    );
    let server = crate::common::serve(vec![
        crate::common::reply("Action: mcp__demo__slow[{}]"),
        crate::common::reply("Action: Finish[never]"),
    ]);
    let wright = project
        .command(&server, "openai")
        .args(["exec", "call the slow tool"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The server runs in the project (its cwd) once wright has started it.
    let deadline = std::time::Instant::now() + wright_testkit::processes::DEADLINE;
    let servers = loop {
        let running = wright_testkit::processes::running_in(project.path()).unwrap_or_default();
        let servers: Vec<u32> = running
            .into_iter()
            .filter(|&pid| pid != wright.id())
            .collect();
        if servers.len() >= 2 && !server.requests().is_empty() {
            break servers;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    (wright, server, servers)
}

#[test]
fn sigterm_to_wright_stops_its_mcp_servers() {
    let project = Project::new();
    let (mut wright, _server, servers) = wright_in_a_slow_call(&project);
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &wright.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    assert_eq!(wright.wait().unwrap().code(), Some(143));
    assert_eq!(
        wright_testkit::processes::wait_until_gone(&servers),
        Vec::<u32>::new(),
        "the MCP server outlived wright"
    );
}

#[test]
fn mcp_list_starts_each_server_and_names_its_tools() {
    let project = Project::new();
    with_scripted_server(
        &project,
        &serde_json::json!({"tools": [{"name": "lookup"}, {"name": "peek", "read_only": true}]}),
    );
    let (code, out, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.ends_with("\ndemo: running, 2 tools: mcp__demo__lookup, mcp__demo__peek\n"),
        "{out}"
    );
}

/// The system message (L1) of a recorded request.
fn system(request: &wright_testkit::RecordedRequest) -> String {
    let body = request.json().unwrap();
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

#[test]
fn a_slow_server_does_not_hold_the_prompt_and_joins_with_mcp_reconnect() {
    use crate::common::{reply, serve};
    use crate::interactive::pty::Session;

    let project = Project::new();
    let fast = project.home.path().join("fast.json");
    let slow = project.home.path().join("slow.json");
    std::fs::write(&fast, r#"{"generate_tools": 1}"#).unwrap();
    std::fs::write(&slow, r#"{"start_delay_ms": 3000, "generate_tools": 1}"#).unwrap();
    let binary = wright_testkit::mcp_server::binary().display().to_string();
    let settings = project.home.path().join(".config/wright/config.toml");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        format!(
            "[mcp_servers.fast]\ncommand = {binary:?}\nargs = [\"mcp-serve\", {:?}]\n\n\
             [mcp_servers.slow]\ncommand = {binary:?}\nargs = [\"mcp-serve\", {:?}]\n",
            fast.display().to_string(),
            slow.display().to_string()
        ),
    )
    .unwrap();
    let server = serve(vec![
        reply("Action: Finish[first answer]"),
        reply("Action: Finish[second answer]"),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("Starting 2 MCP servers (fast, slow)");
    session.expect("MCP server `fast` is up: 1 tool.");
    // The prompt works while the slow one starts.
    session.type_text("/mcp");
    session.enter();
    session.expect("slow: starting…");
    session.type_text("hello");
    session.enter();
    session.expect("first answer");
    // Up after the first round fixed the tools: it waits for a reconnect.
    session.expect("MCP server `slow` is up");
    session.type_text("/mcp reconnect");
    session.enter();
    session.expect("slow: running, 1 tool: mcp__slow__tool_000");
    session.type_text("again");
    session.enter();
    session.expect("second answer");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = system(&requests[0]);
    assert!(first.contains("## mcp__fast__tool_000\n"), "{first}");
    assert!(!first.contains("mcp__slow__"), "{first}");
    let second = system(&requests[1]);
    assert!(second.contains("## mcp__fast__tool_000\n"), "{second}");
    assert!(second.contains("## mcp__slow__tool_000\n"), "{second}");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
    assert_eq!(
        wright_testkit::processes::wait_until_none_run_in(project.path()).unwrap(),
        Vec::<u32>::new()
    );
}

#[test]
fn sigkill_to_wright_stops_its_mcp_servers_too() {
    let project = Project::new();
    let (mut wright, _server, servers) = wright_in_a_slow_call(&project);
    // No handler runs: the servers' watchdog and parent-death signal must stop them.
    wright.kill().unwrap();
    wright.wait().unwrap();
    assert_eq!(
        wright_testkit::processes::wait_until_gone(&servers),
        Vec::<u32>::new(),
        "the MCP server outlived wright"
    );
}

#[test]
fn a_server_is_not_given_wrights_provider_key() {
    let project = Project::new();
    let script = project.home.path().join("mcp-script.json");
    std::fs::write(
        &script,
        r#"{"tools": [{"name": "hello", "result": {"content": [{"type": "text", "text": "HELLO"}]}}]}"#,
    )
    .unwrap();
    let settings = project.home.path().join(".config/wright/config.toml");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    // The server refuses to start when it sees a provider key; one it is given by name is
    // its own.
    let guard = r#"[ -n "$WRIGHT_API_KEY$OPENAI_API_KEY$ANTHROPIC_API_KEY" ] && { echo "key leaked" >&2; exit 3; }; [ "$GIVEN" = yes ] || exit 4; exec "$0" mcp-serve "$1""#;
    std::fs::write(
        &settings,
        format!(
            "[mcp_servers.demo]\ncommand = \"sh\"\nargs = [\"-c\", {guard:?}, {:?}, {:?}]\n\
             env = {{ GIVEN = \"yes\" }}\n",
            wright_testkit::mcp_server::binary().display().to_string(),
            script.display().to_string()
        ),
    )
    .unwrap();
    let server = crate::common::serve(vec![
        crate::common::reply("Action: mcp__demo__hello[{}]"),
        crate::common::reply("Action: Finish[done]"),
    ]);
    let run = project
        .command(&server, "openai")
        .env("OPENAI_API_KEY", "sk-secret")
        .args(["exec", "say hello"])
        .output()
        .unwrap();
    let run = crate::common::Run::from(run);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!run.stderr.contains("did not start"), "{}", run.stderr);
    let answered = crate::common::last_message(&server.requests()[1]);
    assert!(answered.contains("HELLO"), "{answered}");
}

#[test]
fn pre_tool_hooks_and_secret_masking_apply_to_a_servers_tools() {
    let project = Project::new();
    with_scripted_server(
        &project,
        &serde_json::json!({"tools": [
            {"name": "env", "result": {"content": [{"type": "text",
             "text": "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nregion=eu-west-1"}]}},
            {"name": "deploy", "result": {"content": [{"type": "text", "text": "DEPLOYED"}]}}
        ]}),
    );
    let settings = project.home.path().join(".config/wright/config.toml");
    let mut text = std::fs::read_to_string(&settings).unwrap();
    text.push_str(
        "\n[[hooks.pre_tool]]\ntool = \"mcp__demo__deploy\"\n\
         command = \"echo 'deploys go through CI' >&2; exit 1\"\n",
    );
    std::fs::write(&settings, text).unwrap();
    let server = crate::common::serve(vec![
        crate::common::reply("Action: mcp__demo__env[{}]"),
        crate::common::reply("Action: mcp__demo__deploy[{}]"),
        crate::common::reply("Action: Finish[done]"),
    ]);
    let run = project.exec(&server, "openai", &["--approval", "auto"], "look");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = server.requests();
    let env = crate::common::last_message(&requests[1]);
    assert!(env.contains("region=eu-west-1"), "{env}");
    assert!(!env.contains("AKIAIOSFODNN7EXAMPLE"), "{env}");
    let blocked = crate::common::last_message(&requests[2]);
    assert!(
        blocked.starts_with("Observation: Error (blocked)")
            && blocked.contains("deploys go through CI"),
        "{blocked}"
    );
    assert!(!blocked.contains("DEPLOYED"), "{blocked}");
}
