//! Streamable HTTP servers that misbehave (issue 15): an error status, an answer that is not
//! MCP, no answer at all, and a server that goes away mid-session and comes back. Each is
//! a start problem or an error observation naming the server — never a hang or a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::json;
use wright_mcp::{McpServerConfig, McpServers, McpTransport};
use wright_protocol::ErrorCode;
use wright_tools::ToolContext;

/// A server on 127.0.0.1 that answers every request with `response` (raw HTTP), or holds it
/// unanswered when `None`; its URL.
fn fake_server(response: Option<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut buffer = [0u8; 8192];
            let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
            let _ = stream.read(&mut buffer);
            match response {
                Some(response) => {
                    let _ = stream.write_all(response.as_bytes());
                }
                None => held.push(stream),
            }
        }
    });
    url
}

fn http(url: String, startup: Duration) -> McpServerConfig {
    let mut config = McpServerConfig::new(McpTransport::Http {
        url,
        headers: BTreeMap::new(),
        bearer_token_env_var: None,
    });
    config.startup_timeout = startup;
    config
}

async fn start_problem(config: McpServerConfig) -> String {
    let started = Instant::now();
    let (servers, problems) = McpServers::start(vec![("web".into(), config)]).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(servers.tools().is_empty());
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems[0].to_string()
}

#[tokio::test]
async fn an_error_status_is_a_start_problem_naming_the_server() {
    let url = fake_server(Some(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\nConnection: close\r\n\r\noops",
    ));
    let problem = start_problem(http(url, Duration::from_secs(5))).await;
    assert!(problem.starts_with("MCP server `web`: "), "{problem}");
    assert_eq!(
        problem,
        "MCP server `web`: the MCP handshake failed: HTTP 500"
    );
}

#[tokio::test]
async fn a_legacy_sse_endpoint_is_named_as_such() {
    let url = fake_server(Some(
        "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    ));
    let url = url.replace("/mcp", "/sse");
    let problem = start_problem(http(url, Duration::from_secs(5))).await;
    assert!(problem.contains("HTTP 405"), "{problem}");
    assert!(
        problem.contains("looks like a legacy SSE endpoint, which wright does not speak"),
        "{problem}"
    );
}

#[tokio::test]
async fn an_answer_that_is_not_mcp_is_a_start_problem() {
    let url = fake_server(Some(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\
         Connection: close\r\n\r\nnot json",
    ));
    let problem = start_problem(http(url, Duration::from_secs(5))).await;
    assert!(
        problem
            .starts_with("MCP server `web`: the MCP handshake failed: unexpected server response"),
        "{problem}"
    );
    assert!(!problem.contains("rmcp::"), "{problem}");
}

#[tokio::test]
async fn a_server_that_never_answers_is_given_up_on_at_its_startup_timeout() {
    let url = fake_server(None);
    let problem = start_problem(http(url, Duration::from_millis(500))).await;
    assert!(
        problem.contains("did not start and list its tools within 0.5 s"),
        "{problem}"
    );
}

#[tokio::test]
async fn nothing_listening_is_a_start_problem() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let problem = start_problem(http(
        format!("http://127.0.0.1:{port}/mcp"),
        Duration::from_secs(5),
    ))
    .await;
    assert!(
        problem.contains("error sending request for url (http://127.0.0.1:"),
        "{problem}"
    );
    assert!(!problem.contains("rmcp::"), "{problem}");
}

/// The reference server over HTTP stops mid-session: the call says so, naming the server;
/// once it listens again, the next call reconnects.
#[tokio::test]
async fn a_server_that_goes_away_is_an_error_and_is_reconnected_when_back() {
    let dir = tempfile::tempdir().unwrap();
    let package = "@modelcontextprotocol/server-everything";
    let install = std::process::Command::new("npm")
        .args(["install", "--silent", "--no-audit", "--no-fund", package])
        .current_dir(dir.path())
        .output();
    let entry = dir
        .path()
        .join(format!("node_modules/{package}/dist/index.js"));
    match install {
        Ok(out) if out.status.success() && entry.exists() => {}
        Ok(out) => {
            eprintln!(
                "skipped: npm install failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        Err(error) => {
            eprintln!("skipped: npm is not available: {error}");
            return;
        }
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let serve = || {
        let child = std::process::Command::new("node")
            .args([entry.display().to_string(), "streamableHttp".into()])
            .env("PORT", port.to_string())
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the server never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
        child
    };
    let mut node = serve();
    let config = http(
        format!("http://127.0.0.1:{port}/mcp"),
        Duration::from_secs(30),
    );
    let (servers, problems) = McpServers::start(vec![("web".into(), config)]).await;
    assert_eq!(problems, vec![]);
    let tools = servers.tools();
    let echo = tools.iter().find(|t| t.name() == "mcp__web__echo").unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let call = |message: &'static str| {
        let prepared = echo.prepare(json!({ "message": message }), &ctx).unwrap();
        prepared.run(&ctx)
    };
    assert!(call("one").await.is_success());

    node.kill().unwrap();
    node.wait().unwrap();
    let gone = call("two").await;
    assert!(!gone.is_success());
    let code = gone.error.as_ref().unwrap().code;
    assert!(
        matches!(code, ErrorCode::ServerUnavailable | ErrorCode::ServerError),
        "{gone:?}"
    );
    assert!(gone.text.contains("`web`"), "{}", gone.text);

    let mut node = serve();
    // The first call after it came back may still find the old session gone; within a
    // couple of calls it is reconnected.
    let mut back = call("three").await;
    if !back.is_success() {
        back = call("three").await;
    }
    assert!(back.is_success() && back.text.contains("three"), "{back:?}");
    servers.shutdown().await;
    let _ = node.kill();
    let _ = node.wait();
}
