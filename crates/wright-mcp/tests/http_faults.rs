//! Streamable HTTP servers that misbehave (issue 15): an error status, an answer that is not
//! MCP, no answer at all, nothing listening, a legacy SSE URL (a server that goes away
//! mid-session and comes back is in `servers.rs`, with the reference servers). Each is
//! a start problem or an error observation naming the server — never a hang or a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use wright_mcp::{McpServerConfig, McpServers, McpTransport};

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
