//! The one module that knows rmcp (CRATES.md row 9: its API churns between majors, so every
//! rmcp type stays in here): connecting to a server over stdio or Streamable HTTP, listing
//! its tools, calling one, and the stdio server's process group.
//!
//! Stdio servers are spawned here rather than through rmcp's child-process transport: wright
//! keeps the child, so it decides how the server's group is stopped (SIGTERM, a grace, then
//! SIGKILL to the whole group) and rmcp's `Drop`, which needs a runtime to kill, is never
//! relied on. They are started as Bash commands are ([`wright_tools::spawn_in_group`]): a
//! session and process group of their own, no controlling terminal, and a watchdog and the
//! parent-death signal that stop them however wright ends, even by SIGKILL.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};

use crate::config::{McpServerConfig, McpTransport};

/// The most tools one server may bring; the rest are ignored (a server is untrusted).
pub const MAX_TOOLS_PER_SERVER: usize = 1000;

/// How much of a stdio server's standard error is kept, to explain a failure.
const STDERR_TAIL_BYTES: usize = 2048;

/// How often a stopping server is looked at.
const POLL: Duration = Duration::from_millis(10);

/// A tool as a server lists it, in wright's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTool {
    /// The server's own name for it.
    pub name: String,
    /// The server's description, possibly empty.
    pub description: String,
    /// Its input schema (a JSON Schema object).
    pub input_schema: Value,
    /// Whether the server says it changes nothing (`annotations.readOnlyHint`).
    pub read_only: bool,
}

/// Why a server could not be reached or did not answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The stdio server's command could not be started.
    #[error("could not start `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    /// A header, or the bearer token, is not valid in HTTP.
    #[error("{0}")]
    BadSetting(String),
    /// The MCP handshake failed.
    #[error("the MCP handshake failed: {0}")]
    Initialize(String),
    /// The server is gone: it exited or closed the connection.
    #[error("the server closed the connection{0}")]
    Closed(String),
    /// The server answered a request with an error.
    #[error("{0}")]
    Request(String),
}

/// A live connection to one server.
pub struct Connection {
    service: RunningService<RoleClient, ClientConfig>,
    /// The stdio server's process; `None` for HTTP.
    process: Option<ServerProcess>,
}

/// What calls a server's tools; cheap to clone, usable while others call too.
#[derive(Clone)]
pub struct Caller {
    peer: Peer<RoleClient>,
    stderr: Arc<Mutex<String>>,
}

/// Connects to the server `config` describes and completes the MCP handshake. Not bounded in
/// time: the caller bounds it, and dropping the future stops a started process.
pub async fn connect(config: &McpServerConfig) -> Result<Connection, ClientError> {
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("wright", env!("CARGO_PKG_VERSION")),
    );
    match &config.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = Command::new(command);
            // wright's own provider key is not the server's (as for Bash commands, issue 12);
            // a key the settings give it in `env` is.
            for name in wright_tools::PROVIDER_KEY_VARIABLES {
                cmd.env_remove(name);
            }
            cmd.args(args)
                .envs(env)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(false);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let (mut child, group) =
                wright_tools::spawn_in_group(cmd)
                    .await
                    .map_err(|source| ClientError::Spawn {
                        command: command.clone(),
                        source,
                    })?;
            let stderr = Arc::new(Mutex::new(String::new()));
            if let Some(mut pipe) = child.stderr.take() {
                let tail = stderr.clone();
                tokio::spawn(async move {
                    let mut buffer = [0u8; 1024];
                    while let Ok(n) = pipe.read(&mut buffer).await {
                        if n == 0 {
                            break;
                        }
                        keep_tail(&tail, &String::from_utf8_lossy(&buffer[..n]));
                    }
                });
            }
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(ClientError::Initialize("no pipes to the server".into()));
            };
            let process = ServerProcess {
                child: Some(child),
                group,
                stderr: stderr.clone(),
            };
            let service = info.serve((stdout, stdin)).await.map_err(|e| {
                ClientError::Initialize(format!(
                    "{}{}",
                    plain(&e.to_string()),
                    process.stderr_note()
                ))
            })?;
            Ok(Connection {
                service,
                process: Some(process),
            })
        }
        McpTransport::Http {
            url,
            headers,
            bearer_token_env_var,
        } => {
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let name =
                    reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                        ClientError::BadSetting(format!("`{name}` is not a header name"))
                    })?;
                let value = reqwest::header::HeaderValue::from_str(value).map_err(|_| {
                    ClientError::BadSetting(format!("the value of header `{name}` is not valid"))
                })?;
                custom.insert(name, value);
            }
            let mut transport_config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            if let Some(var) = bearer_token_env_var {
                let token = std::env::var(var).map_err(|_| {
                    ClientError::BadSetting(format!(
                        "the bearer token variable `{var}` is not set (or not UTF-8)"
                    ))
                })?;
                transport_config = transport_config.auth_header(token);
            }
            // reqwest is built without a crypto provider (ring is wright's, as wright-llm
            // installs it): without one, making the client panics, even for http://.
            // Installing it a second time fails harmlessly.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let transport = StreamableHttpClientTransport::from_config(transport_config);
            let service = info.serve(transport).await.map_err(|e| {
                ClientError::Initialize(format!("{}{}", plain(&e.to_string()), sse_hint(url)))
            })?;
            Ok(Connection {
                service,
                process: None,
            })
        }
    }
}

impl Connection {
    /// The server's tools, at most [`MAX_TOOLS_PER_SERVER`].
    pub async fn list_tools(&self) -> Result<Vec<ServerTool>, ClientError> {
        let tools = self
            .service
            .list_all_tools()
            .await
            .map_err(|e| self.caller().error(e))?;
        Ok(tools
            .into_iter()
            .take(MAX_TOOLS_PER_SERVER)
            .map(|tool| ServerTool {
                name: tool.name.to_string(),
                description: tool.description.map(|d| d.to_string()).unwrap_or_default(),
                input_schema: Value::Object((*tool.input_schema).clone()),
                read_only: tool
                    .annotations
                    .and_then(|a| a.read_only_hint)
                    .unwrap_or(false),
            })
            .collect())
    }

    /// What calls this server's tools.
    pub fn caller(&self) -> Caller {
        Caller {
            peer: self.service.peer().clone(),
            stderr: self
                .process
                .as_ref()
                .map(|p| p.stderr.clone())
                .unwrap_or_default(),
        }
    }

    /// Whether the connection has ended (the server exited or closed it).
    pub fn is_closed(&mut self) -> bool {
        self.service.is_closed() || self.process.as_mut().is_some_and(ServerProcess::exited)
    }

    /// The process id of a stdio server (also its process group's id).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.child.as_ref()?.id())
    }

    /// Sends SIGTERM to a stdio server's process group, without waiting.
    pub fn terminate(&self) {
        if let Some(process) = &self.process {
            process.group.terminate();
        }
    }

    /// Stops the server: SIGTERM to its process group, up to `grace` for it to exit, then
    /// SIGKILL to the group. Blocks the thread for at most `grace`.
    pub fn stop(mut self, grace: Duration) {
        if let Some(process) = self.process.take() {
            process.stop(grace);
        }
    }
}

impl Caller {
    /// Calls `tool` with `arguments` and gives the `CallToolResult` as JSON. Dropping the
    /// future cancels the request (rmcp sends `notifications/cancelled`).
    pub async fn call(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, ClientError> {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let result = self
            .peer
            .call_tool(params)
            .await
            .map_err(|e| self.error(e))?;
        serde_json::to_value(result).map_err(|e| ClientError::Request(e.to_string()))
    }

    fn error(&self, error: ServiceError) -> ClientError {
        match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                ClientError::Closed(stderr_note(&self.stderr))
            }
            ServiceError::McpError(e) => ClientError::Request(e.message.to_string()),
            other => ClientError::Request(plain(&other.to_string())),
        }
    }
}

/// For a URL that looks like a legacy SSE endpoint (the HTTP+SSE transport MCP replaced in
/// 2025-03-26; rmcp 3 has no client for it): what to use instead.
fn sse_hint(url: &str) -> String {
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .trim_end_matches('/');
    if path.ends_with("/sse") {
        format!(
            ". `{url}` looks like a legacy SSE endpoint, which wright does not speak: give the \
             server's Streamable HTTP endpoint (often `/mcp`), or run it over stdio"
        )
    } else {
        String::new()
    }
}

/// rmcp's error text without the Rust type names it wraps the cause in
/// (`Send message error Transport [rmcp::…<…>] error: HTTP 500, when send initialize
/// request` → `HTTP 500`).
fn plain(text: &str) -> String {
    let cause = match (text.find("Transport ["), text.rfind("] error: ")) {
        (Some(start), Some(end)) if start < end => &text[end + "] error: ".len()..],
        _ => text,
    };
    let cause = cause
        .strip_suffix(", when send initialize request")
        .unwrap_or(cause);
    crate::result::cut_middle(cause.trim(), 500)
}

/// `: <its last stderr line>` when the server wrote any, for error messages.
fn stderr_note(stderr: &Mutex<String>) -> String {
    let tail = stderr.lock().unwrap_or_else(PoisonError::into_inner);
    match tail.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => format!(
            " (its last error output: {})",
            crate::result::cut_middle(line.trim(), 300)
        ),
        None => String::new(),
    }
}

fn keep_tail(tail: &Mutex<String>, more: &str) {
    let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
    tail.push_str(more);
    if tail.len() > STDERR_TAIL_BYTES {
        let mut cut = tail.len() - STDERR_TAIL_BYTES;
        while !tail.is_char_boundary(cut) {
            cut += 1;
        }
        tail.drain(..cut);
    }
}

/// A stdio server's process, leader of its own process group. Dropping it stops the group
/// (SIGTERM, a short grace, SIGKILL): no server outlives its connection.
struct ServerProcess {
    child: Option<Child>,
    /// Its group, which dies with wright (and is killed when dropped).
    group: wright_tools::ProcessGroup,
    stderr: Arc<Mutex<String>>,
}

/// Whether `child` has exited, leaving it unreaped where the system can (Linux:
/// `waitid(…, WNOWAIT)`); elsewhere it is reaped (`try_wait`).
fn has_exited(child: &mut Child) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
        use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        return match waitid(Id::Pid(nix::unistd::Pid::from_raw(pid)), flags) {
            Ok(WaitStatus::StillAlive) => false,
            Ok(_) => true,
            // Reaped already (by tokio, or never ours): gone.
            Err(_) => true,
        };
    }
    !matches!(child.try_wait(), Ok(None))
}

/// How long a dropped server gets between SIGTERM and SIGKILL: short, as a drop blocks.
pub(crate) const DROP_GRACE: Duration = Duration::from_millis(300);

impl ServerProcess {
    fn stderr_note(&self) -> String {
        stderr_note(&self.stderr)
    }

    /// Whether the server's process has exited. It is not reaped here: until the group's
    /// last signal has gone ([`stop_now`](Self::stop_now)), its id — the group's id — must
    /// stay taken, or a new group could get it and be signalled instead.
    fn exited(&mut self) -> bool {
        self.child.as_mut().is_none_or(has_exited)
    }

    fn stop(mut self, grace: Duration) {
        self.stop_now(grace);
    }

    fn stop_now(&mut self, grace: Duration) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        // A group wright's exit saw gone is forgotten, and its id never signalled again.
        self.group.terminate();
        let deadline = Instant::now() + grace;
        while !has_exited(&mut child) && Instant::now() < deadline {
            std::thread::sleep(POLL);
        }
        // Whatever is left of the group (the leader, or children it left behind) is killed.
        self.group.kill();
        let _ = child.try_wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop_now(DROP_GRACE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn rmcps_type_names_are_left_out_of_errors() {
        assert_eq!(
            plain(
                "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::\
                 transport::streamable_http_client::StreamableHttpClientWorker<reqwest::Client>>] \
                 error: HTTP 500, when send initialize request"
            ),
            "HTTP 500"
        );
        assert_eq!(plain("connection reset"), "connection reset");
    }
}
