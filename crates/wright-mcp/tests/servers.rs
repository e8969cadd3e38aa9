//! wright-mcp against real MCP servers: the testkit's scripted server over stdio, and the
//! reference `server-everything` from npm when node is present.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use wright_mcp::{McpServerConfig, McpServers, McpTransport, ServerHealth, StartEvent};
use wright_protocol::{ErrorCode, ToolStatus};
use wright_tools::{Tool, ToolContext, ToolKind, ToolRegistry};

/// A stdio server running the testkit's scripted server with `script`, in `dir`.
fn scripted(dir: &Path, script: Value) -> McpServerConfig {
    let path = dir.join(format!("script-{}.json", fastrand_name()));
    std::fs::write(&path, script.to_string()).unwrap();
    let mut config = McpServerConfig::new(McpTransport::Stdio {
        command: wright_testkit::mcp_server::binary().display().to_string(),
        args: vec!["mcp-serve".into(), path.display().to_string()],
        env: BTreeMap::new(),
        cwd: Some(dir.to_path_buf()),
    });
    config.startup_timeout = Duration::from_secs(10);
    config
}

fn fastrand_name() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn script() -> Value {
    json!({"tools": [
        {"name": "echo", "description": "Echoes.", "read_only": true,
         "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"name": "rich", "result": {
            "content": [
                {"type": "text", "text": "a picture:"},
                {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg".repeat(100), "mimeType": "image/png"}
            ],
            "structuredContent": {"width": 3, "height": 4}}},
        {"name": "fails", "result": {"content": [{"type": "text", "text": "quota exceeded"}], "isError": true}},
        {"name": "crash", "crash": true},
        {"name": "slow", "delay_ms": 30000},
        {"name": "bad name!", "description": "x"},
    ]})
}

fn find<'a>(tools: &'a [Box<dyn Tool>], name: &str) -> &'a dyn Tool {
    tools
        .iter()
        .find(|t| t.name() == name)
        .map(|t| t.as_ref())
        .unwrap()
}

async fn call(tool: &dyn Tool, ctx: &ToolContext, args: Value) -> wright_protocol::ToolResult {
    match tool.prepare(args, ctx) {
        Ok(prepared) => prepared.run(ctx).await,
        Err(error) => wright_protocol::ToolResult::error(error.code, error.message),
    }
}

#[tokio::test]
async fn start_list_and_call_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let (servers, problems) =
        McpServers::start(vec![("test".into(), scripted(dir.path(), script()))]).await;
    assert_eq!(problems, vec![]);
    let tools = servers.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "mcp__test__bad_name_",
            "mcp__test__crash",
            "mcp__test__echo",
            "mcp__test__fails",
            "mcp__test__rich",
            "mcp__test__slow"
        ]
    );
    let echo = find(&tools, "mcp__test__echo");
    assert_eq!(echo.kind(), ToolKind::Read);
    assert_eq!(find(&tools, "mcp__test__rich").kind(), ToolKind::External);
    assert!(
        echo.description().starts_with("Echoes.\nInput schema: {"),
        "{}",
        echo.description()
    );
    let result = call(echo, &ctx, json!({"text": "hi"})).await;
    assert_eq!(result.status, ToolStatus::Success);
    assert_eq!(result.text, r#"{"text":"hi"}"#);
    servers.shutdown().await;
}

#[tokio::test]
async fn arguments_are_checked_against_the_schema_before_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let (servers, _) =
        McpServers::start(vec![("test".into(), scripted(dir.path(), script()))]).await;
    let tools = servers.tools();
    let result = call(find(&tools, "mcp__test__echo"), &ctx, json!({"text": 5})).await;
    let error = result.error.unwrap();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert!(
        error
            .message
            .contains("field `text`: expected string, got a number"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains(r#""required":["text"]"#),
        "the schema is quoted: {}",
        error.message
    );
}

#[tokio::test]
async fn results_are_converted_images_described_and_is_error_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let (servers, _) =
        McpServers::start(vec![("test".into(), scripted(dir.path(), script()))]).await;
    let tools = servers.tools();
    let rich = call(find(&tools, "mcp__test__rich"), &ctx, json!({})).await;
    assert_eq!(rich.text, "a picture:\n[image: image/png, 1.6 KB]");
    assert_eq!(
        rich.data["structured_content"],
        json!({"width": 3, "height": 4})
    );
    let fails = call(find(&tools, "mcp__test__fails"), &ctx, json!({})).await;
    assert_eq!(fails.status, ToolStatus::Error);
    assert_eq!(fails.error.as_ref().unwrap().code, ErrorCode::ServerError);
    assert!(fails.text.contains("quota exceeded"), "{}", fails.text);
}

#[tokio::test]
async fn a_crashed_server_gives_an_error_then_restarts_at_most_three_times() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let (servers, _) =
        McpServers::start(vec![("test".into(), scripted(dir.path(), script()))]).await;
    let tools = servers.tools();
    let (crash, echo) = (
        find(&tools, "mcp__test__crash"),
        find(&tools, "mcp__test__echo"),
    );
    let first = servers.pids().await;
    let crashed = call(crash, &ctx, json!({})).await;
    assert_eq!(crashed.status, ToolStatus::Error);
    assert_eq!(
        crashed.error.as_ref().unwrap().code,
        ErrorCode::ServerUnavailable
    );
    assert!(crashed.text.contains("`test`"), "{}", crashed.text);
    let again = call(echo, &ctx, json!({"text": "back"})).await;
    assert_eq!(
        again.text, r#"{"text":"back"}"#,
        "restarted: {}",
        again.text
    );
    assert_ne!(servers.pids().await, first);
    for _ in 0..2 {
        assert_eq!(call(crash, &ctx, json!({})).await.status, ToolStatus::Error);
        assert!(call(echo, &ctx, json!({"text": "x"})).await.is_success());
    }
    // The fourth crash: no more restarts this session.
    call(crash, &ctx, json!({})).await;
    let gone = call(echo, &ctx, json!({"text": "x"})).await;
    assert!(
        gone.text.contains("restarted 3 times already"),
        "{}",
        gone.text
    );
    assert_eq!(gone.error.unwrap().code, ErrorCode::ServerUnavailable);
}

#[tokio::test]
async fn a_slow_server_is_reported_within_its_startup_timeout_and_others_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut slow = scripted(dir.path(), json!({"start_delay_ms": 20000, "tools": []}));
    slow.startup_timeout = Duration::from_millis(500);
    let broken = McpServerConfig::new(McpTransport::Stdio {
        command: "/nonexistent/server".into(),
        args: vec![],
        env: BTreeMap::new(),
        cwd: None,
    });
    let started = Instant::now();
    let (servers, problems) = McpServers::start(vec![
        ("slow".into(), slow),
        (
            "fine".into(),
            scripted(dir.path(), json!({"generate_tools": 2})),
        ),
        ("broken".into(), broken),
    ])
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(servers.server_names(), ["fine"]);
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].starts_with("MCP server `broken`: could not start `/nonexistent/server`"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].contains("`slow`: did not start and list its tools within 0.5 s"),
        "{}",
        problems[1]
    );
    // The slow server's process was stopped with its start.
    drop(servers);
    assert_eq!(
        wright_testkit::processes::wait_until_none_run_in(dir.path()).unwrap(),
        Vec::<u32>::new()
    );
}

#[tokio::test]
async fn dropping_the_servers_leaves_no_process_behind() {
    let dir = tempfile::tempdir().unwrap();
    let script = json!({"spawn": ["sleep", "300"], "generate_tools": 1});
    let (servers, problems) = McpServers::start(vec![
        ("a".into(), scripted(dir.path(), script.clone())),
        ("b".into(), scripted(dir.path(), script)),
    ])
    .await;
    assert_eq!(problems, vec![]);
    // Two servers, each with its `sleep`.
    assert_eq!(
        wright_testkit::processes::running_in(dir.path())
            .unwrap()
            .len(),
        4
    );
    drop(servers);
    assert_eq!(
        wright_testkit::processes::wait_until_none_run_in(dir.path()).unwrap(),
        Vec::<u32>::new()
    );
}

#[tokio::test]
async fn cancellation_stops_a_slow_call() {
    let dir = tempfile::tempdir().unwrap();
    let token = CancellationToken::new();
    let ctx = ToolContext::new(dir.path())
        .unwrap()
        .with_cancellation(token.clone());
    let (servers, _) =
        McpServers::start(vec![("test".into(), scripted(dir.path(), script()))]).await;
    let tools = servers.tools();
    let started = Instant::now();
    let canceller = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(
        call(find(&tools, "mcp__test__slow"), &ctx, json!({})),
        canceller
    );
    assert_eq!(result.error.map(|e| e.code), Some(ErrorCode::Interrupted));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_slow_call_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let mut config = scripted(dir.path(), script());
    config.tool_timeout = Duration::from_millis(300);
    let (servers, _) = McpServers::start(vec![("test".into(), config)]).await;
    let result = call(find(&servers.tools(), "mcp__test__slow"), &ctx, json!({})).await;
    assert_eq!(result.error.map(|e| e.code), Some(ErrorCode::Timeout));
}

#[tokio::test]
async fn many_tools_are_filtered_and_ordered_by_server_then_tool() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = scripted(dir.path(), json!({"generate_tools": 150}));
    big.disabled_tools = vec!["tool_000".into()];
    let mut small = scripted(dir.path(), json!({"generate_tools": 3}));
    small.enabled_tools = Some(vec!["tool_002".into(), "tool_000".into()]);
    let (servers, problems) =
        McpServers::start(vec![("zeta".into(), big), ("alpha".into(), small)]).await;
    assert_eq!(problems, vec![]);
    let tools = servers.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names.len(), 2 + 149);
    assert_eq!(
        names[..4],
        [
            "mcp__alpha__tool_000",
            "mcp__alpha__tool_002",
            "mcp__zeta__tool_001",
            "mcp__zeta__tool_002"
        ]
    );
    assert_eq!(names.last(), Some(&"mcp__zeta__tool_149"));
    let mut registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool);
    }
    assert_eq!(registry.names().len(), 151);
}

/// `@modelcontextprotocol/server-everything` installed with npm into a temporary directory:
/// the directory and the server's entry point, or `None` (with the reason printed) when node
/// or the install is not available.
fn install_everything() -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    install_reference("server-everything")
}

/// The reference server `@modelcontextprotocol/NAME` installed with npm into a temporary
/// directory (see [`install_everything`]).
fn install_reference(name: &str) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let dir = tempfile::tempdir().unwrap();
    let package = format!("@modelcontextprotocol/{name}");
    let install = std::process::Command::new("npm")
        .args(["install", "--silent", "--no-audit", "--no-fund", &package])
        .current_dir(dir.path())
        .output();
    let entry = dir
        .path()
        .join(format!("node_modules/{package}/dist/index.js"));
    match install {
        Ok(out) if out.status.success() && entry.exists() => Some((dir, entry)),
        Ok(out) => {
            eprintln!(
                "skipped: npm install failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            None
        }
        Err(error) => {
            eprintln!("skipped: npm is not available: {error}");
            None
        }
    }
}

/// The reference server over stdio.
#[tokio::test]
async fn the_reference_everything_server_works_over_stdio() {
    let Some((dir, entry)) = install_everything() else {
        return;
    };
    let mut config = McpServerConfig::new(McpTransport::Stdio {
        command: "node".into(),
        args: vec![entry.display().to_string(), "stdio".into()],
        env: BTreeMap::new(),
        cwd: Some(dir.path().to_path_buf()),
    });
    config.startup_timeout = Duration::from_secs(30);
    let (servers, problems) = McpServers::start(vec![("everything".into(), config)]).await;
    assert_eq!(problems, vec![]);
    let tools = servers.tools();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let echo = find(&tools, "mcp__everything__echo");
    let result = call(echo, &ctx, json!({"message": "hello"})).await;
    assert!(
        result.is_success() && result.text.contains("hello"),
        "{result:?}"
    );
    servers.shutdown().await;
}

/// The reference server `entry` (installed in `dir`) over Streamable HTTP on 127.0.0.1:`port`,
/// once it listens.
fn everything_over_http(dir: &Path, entry: &Path, port: u16) -> std::process::Child {
    let server = std::process::Command::new("node")
        .args([entry.display().to_string(), "streamableHttp".into()])
        .env("PORT", port.to_string())
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the server never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// The reference server over Streamable HTTP on 127.0.0.1, with a header (which the server
/// ignores; it must not break the exchange).
#[tokio::test]
async fn the_reference_everything_server_works_over_streamable_http() {
    let Some((dir, entry)) = install_everything() else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = everything_over_http(dir.path(), &entry, port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    // A bearer token named by a variable that is not set: said, not sent empty.
    let missing = McpServerConfig::new(McpTransport::Http {
        url: url.clone(),
        headers: BTreeMap::new(),
        bearer_token_env_var: Some("WRIGHT_MCP_TEST_TOKEN_NEVER_SET".into()),
    });
    let (_, problems) = McpServers::start(vec![("web".into(), missing)]).await;
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .to_string()
            .contains("`WRIGHT_MCP_TEST_TOKEN_NEVER_SET` is not set"),
        "{}",
        problems[0]
    );
    let mut headers = BTreeMap::new();
    headers.insert("X-Test".to_string(), "wright".to_string());
    let mut config = McpServerConfig::new(McpTransport::Http {
        url,
        headers,
        bearer_token_env_var: None,
    });
    config.startup_timeout = Duration::from_secs(30);
    let (servers, problems) = McpServers::start(vec![("web".into(), config)]).await;
    let outcome = async {
        assert_eq!(problems, vec![]);
        let tools = servers.tools();
        let ctx = ToolContext::new(dir.path()).unwrap();
        let echo = find(&tools, "mcp__web__echo");
        let result = call(echo, &ctx, json!({"message": "over http"})).await;
        assert!(
            result.is_success() && result.text.contains("over http"),
            "{result:?}"
        );
    };
    outcome.await;
    servers.shutdown().await;
    let _ = server.kill();
    let _ = server.wait();
}

/// The reference filesystem server, allowed one directory: its read-only tools are reads,
/// its writers are asked about (`external`), and reading a file gives its text.
#[tokio::test]
async fn the_reference_filesystem_server_reads_what_it_is_allowed_to() {
    let Some((dir, entry)) = install_reference("server-filesystem") else {
        return;
    };
    let allowed = tempfile::tempdir().unwrap();
    std::fs::write(
        allowed.path().join("notes.txt"),
        "first line\nsecond line\n",
    )
    .unwrap();
    let mut config = McpServerConfig::new(McpTransport::Stdio {
        command: "node".into(),
        args: vec![
            entry.display().to_string(),
            allowed.path().display().to_string(),
        ],
        env: BTreeMap::new(),
        cwd: Some(dir.path().to_path_buf()),
    });
    config.startup_timeout = Duration::from_secs(30);
    let (servers, problems) = McpServers::start(vec![("fs".into(), config)]).await;
    assert_eq!(problems, vec![]);
    let tools = servers.tools();
    assert_eq!(
        find(&tools, "mcp__fs__read_text_file").kind(),
        ToolKind::Read
    );
    assert_eq!(
        find(&tools, "mcp__fs__write_file").kind(),
        ToolKind::External
    );
    let ctx = ToolContext::new(allowed.path()).unwrap();
    let path = allowed.path().join("notes.txt").display().to_string();
    let read = call(
        find(&tools, "mcp__fs__read_text_file"),
        &ctx,
        json!({"path": path}),
    )
    .await;
    assert!(
        read.is_success() && read.text.contains("second line"),
        "{read:?}"
    );
    // Outside the allowed directory: the server's own error, as an error result.
    let outside = call(
        find(&tools, "mcp__fs__read_text_file"),
        &ctx,
        json!({"path": "/etc/hostname"}),
    )
    .await;
    assert!(!outside.is_success(), "{outside:?}");
    servers.shutdown().await;
}

#[tokio::test]
async fn servers_start_in_the_background_and_join_only_when_published() {
    let dir = tempfile::tempdir().unwrap();
    let servers = std::sync::Arc::new(McpServers::new(vec![
        (
            "slow".into(),
            scripted(
                dir.path(),
                json!({"start_delay_ms": 1500, "generate_tools": 1}),
            ),
        ),
        (
            "fast".into(),
            scripted(dir.path(), json!({"generate_tools": 2})),
        ),
    ]));
    assert_eq!(
        servers
            .statuses()
            .iter()
            .map(|s| s.health.clone())
            .collect::<Vec<_>>(),
        [ServerHealth::Starting, ServerHealth::Starting]
    );
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let starting = servers.clone();
    let all = tokio::spawn(async move {
        starting
            .start_all(&move |event: &StartEvent| {
                let _ = tx.send(event.clone());
            })
            .await
    });
    // The fast one is up long before the slow one.
    let first = tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        first,
        StartEvent::Started {
            server: "fast".into(),
            tools: 2
        }
    );
    // Nothing is offered before it is published; then only what is up.
    assert!(servers.tools().is_empty());
    assert!(servers.publish());
    let names = |servers: &McpServers| -> Vec<String> {
        servers
            .tools()
            .iter()
            .map(|t| t.name().to_string())
            .collect()
    };
    assert_eq!(
        names(&servers),
        ["mcp__fast__tool_000", "mcp__fast__tool_001"]
    );
    assert!(!servers.publish(), "nothing new to publish");
    let statuses = servers.statuses();
    assert_eq!(statuses[1].name, "slow");
    assert_eq!(statuses[1].health, ServerHealth::Starting);

    // The slow one comes up; its tools wait for the next publish.
    all.await.unwrap();
    assert_eq!(names(&servers).len(), 2);
    assert_eq!(
        servers.statuses()[1].health,
        ServerHealth::Running {
            offered: vec![],
            tools: 1
        }
    );
    assert!(servers.publish());
    assert_eq!(
        names(&servers),
        [
            "mcp__fast__tool_000",
            "mcp__fast__tool_001",
            "mcp__slow__tool_000"
        ]
    );
    servers.shutdown().await;
}

#[tokio::test]
async fn reconnect_restarts_a_server_and_its_old_tools_stop() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let (servers, problems) =
        McpServers::start(vec![("test".into(), scripted(dir.path(), script()))]).await;
    assert_eq!(problems, vec![]);
    let old_tools = servers.tools();
    let old_pids = servers.pids().await;
    assert_eq!(old_pids.len(), 1);

    assert!(
        servers
            .reconnect(Some("nope"))
            .await
            .unwrap_err()
            .contains("no MCP server `nope` in this session (it has `test`)")
    );
    // All are well: a plain reconnect restarts nothing.
    assert_eq!(servers.reconnect(None).await.unwrap(), vec![]);
    assert_eq!(servers.pids().await, old_pids);

    let events = servers.reconnect(Some("test")).await.unwrap();
    assert_eq!(
        events,
        vec![StartEvent::Started {
            server: "test".into(),
            tools: 6
        }]
    );
    let new_pids = servers.pids().await;
    assert_eq!(new_pids.len(), 1);
    assert_ne!(new_pids, old_pids);
    // The replaced server's process is gone.
    let running = wright_testkit::processes::running_in(dir.path()).unwrap();
    assert!(!running.contains(&old_pids[0]), "{running:?}");

    let old = call(
        find(&old_tools, "mcp__test__echo"),
        &ctx,
        json!({"text": "hi"}),
    )
    .await;
    assert_eq!(old.status, ToolStatus::Error);
    assert!(old.text.contains("has been stopped"), "{}", old.text);
    let tools = servers.tools();
    let new = call(find(&tools, "mcp__test__echo"), &ctx, json!({"text": "hi"})).await;
    assert_eq!(new.status, ToolStatus::Success, "{}", new.text);
    servers.shutdown().await;
}

/// A scripted server (one tool) in `dir` that runs `fail` instead while the flag file
/// `dir/broken` exists when it starts; the flag (made here) and the server.
fn flaky(dir: &Path, fail: &str) -> (std::path::PathBuf, McpServerConfig) {
    let flag = dir.join("broken");
    std::fs::write(&flag, "").unwrap();
    std::fs::write(
        dir.join("script.json"),
        json!({"generate_tools": 1}).to_string(),
    )
    .unwrap();
    let mut config = McpServerConfig::new(McpTransport::Stdio {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            format!(
                "test -e broken && {fail}; exec {} mcp-serve script.json",
                wright_testkit::mcp_server::binary().display()
            ),
        ],
        env: BTreeMap::new(),
        cwd: Some(dir.to_path_buf()),
    });
    config.startup_timeout = Duration::from_secs(10);
    (flag, config)
}

#[tokio::test]
async fn reconnect_starts_again_a_server_that_failed_or_is_gone_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    // A server whose start fails while a flag file exists.
    let (flag, flaky) = flaky(dir.path(), "exit 3");
    let (servers, problems) = McpServers::start(vec![
        ("flaky".into(), flaky),
        ("test".into(), scripted(dir.path(), script())),
    ])
    .await;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(matches!(
        servers.statuses()[0].health,
        ServerHealth::Failed(_)
    ));

    // `test` crashes four times: it is restarted three times, then gone for good.
    let tools = servers.tools();
    for _ in 0..4 {
        let _ = call(find(&tools, "mcp__test__crash"), &ctx, json!({})).await;
    }
    let gone = call(find(&tools, "mcp__test__echo"), &ctx, json!({"text": "x"})).await;
    assert!(gone.text.contains("`/mcp reconnect`"), "{}", gone.text);

    std::fs::remove_file(&flag).unwrap();
    let mut events = servers.reconnect(None).await.unwrap();
    events.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(
        events,
        vec![
            StartEvent::Started {
                server: "flaky".into(),
                tools: 1
            },
            StartEvent::Started {
                server: "test".into(),
                tools: 6
            },
        ]
    );
    let tools = servers.tools();
    assert!(tools.iter().any(|t| t.name() == "mcp__flaky__tool_000"));
    let back = call(find(&tools, "mcp__test__echo"), &ctx, json!({"text": "x"})).await;
    assert_eq!(back.status, ToolStatus::Success, "{}", back.text);
    servers.shutdown().await;
}

/// The reference server over HTTP stops mid-session: the call says so, naming the server;
/// once it listens again, the next call reconnects.
#[tokio::test]
async fn an_http_server_that_goes_away_is_an_error_and_is_reconnected_when_back() {
    let Some((dir, entry)) = install_everything() else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut node = everything_over_http(dir.path(), &entry, port);
    let mut config = McpServerConfig::new(McpTransport::Http {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: BTreeMap::new(),
        bearer_token_env_var: None,
    });
    config.startup_timeout = Duration::from_secs(30);
    let (servers, problems) = McpServers::start(vec![("web".into(), config)]).await;
    assert_eq!(problems, vec![]);
    let tools = servers.tools();
    let echo = find(&tools, "mcp__web__echo");
    let ctx = ToolContext::new(dir.path()).unwrap();
    assert!(
        call(echo, &ctx, json!({"message": "one"}))
            .await
            .is_success()
    );

    node.kill().unwrap();
    node.wait().unwrap();
    let gone = call(echo, &ctx, json!({"message": "two"})).await;
    assert!(!gone.is_success());
    let code = gone.error.as_ref().unwrap().code;
    assert!(
        matches!(code, ErrorCode::ServerUnavailable | ErrorCode::ServerError),
        "{gone:?}"
    );
    assert!(gone.text.contains("`web`"), "{}", gone.text);

    let mut node = everything_over_http(dir.path(), &entry, port);
    // The first call after it came back may still find the old session gone; within a
    // couple of calls it is reconnected.
    let mut back = call(echo, &ctx, json!({"message": "three"})).await;
    if !back.is_success() {
        back = call(echo, &ctx, json!({"message": "three"})).await;
    }
    assert!(back.is_success() && back.text.contains("three"), "{back:?}");
    servers.shutdown().await;
    let _ = node.kill();
    let _ = node.wait();
}

#[tokio::test]
async fn reconnect_waits_for_a_start_under_way_and_starts_again_if_it_failed() {
    let dir = tempfile::tempdir().unwrap();
    // Fails a second after it starts while the flag is there when it starts.
    let (flag, flaky) = flaky(dir.path(), "{ sleep 1; exit 3; }");
    let servers = std::sync::Arc::new(McpServers::new(vec![("flaky".into(), flaky)]));
    let starting = servers.clone();
    let first = tokio::spawn(async move { starting.start_all(&|_| {}).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    std::fs::remove_file(&flag).unwrap();
    let events = servers.reconnect(Some("flaky")).await.unwrap();
    assert_eq!(
        events,
        vec![StartEvent::Started {
            server: "flaky".into(),
            tools: 1
        }]
    );
    assert!(matches!(first.await.unwrap()[0], StartEvent::Failed(_)));
    assert_eq!(servers.tool_names_of("flaky"), ["mcp__flaky__tool_000"]);
    servers.shutdown().await;
}
