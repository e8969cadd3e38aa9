//! The session's MCP servers: started together, their tools listed once, restarted (a few
//! times) when one goes away, stopped with the session (issue 15).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Mutex;

use crate::client::{self, Caller, ClientError, Connection, DROP_GRACE, ServerTool};
use crate::config::McpServerConfig;
use crate::names;
use crate::tool::McpTool;

/// Issue 15: a server that goes away is restarted on the next call, at most 3 times a session.
pub const MAX_RESTARTS: u32 = 3;

/// How long [`McpServers::shutdown`] gives servers between SIGTERM and SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// A server that could not be started, or could not list its tools, in time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartProblem {
    /// The server's name in the settings.
    pub server: String,
    /// What went wrong, for the user.
    pub message: String,
}

impl std::fmt::Display for StartProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MCP server `{}`: {}", self.server, self.message)
    }
}

/// The MCP servers of a session and the tools they offer. Dropping it stops every server.
pub struct McpServers {
    servers: Vec<Arc<Server>>,
    tools: Vec<McpTool>,
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field("servers", &self.server_names())
            .field("tools", &self.tools.len())
            .finish()
    }
}

/// One started server, shared by its tools.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) config: McpServerConfig,
    state: Mutex<ServerState>,
    /// Set when the session's servers are stopped: no more calls, no more restarts.
    stopped: AtomicBool,
}

struct ServerState {
    connection: Option<Connection>,
    restarts: u32,
}

impl McpServers {
    /// Starts every server at once, each bounded by its startup timeout, and lists their
    /// tools. A server that fails or is too slow is left out and reported, never fatal.
    pub async fn start(servers: Vec<(String, McpServerConfig)>) -> (McpServers, Vec<StartProblem>) {
        let started =
            futures::future::join_all(servers.into_iter().map(|(name, config)| async move {
                let outcome = start_one(&config).await;
                (name, config, outcome)
            }))
            .await;
        let mut problems = Vec::new();
        let mut live = Vec::new();
        for (name, config, outcome) in started {
            match outcome {
                Ok((connection, tools)) => {
                    let server = Arc::new(Server {
                        name,
                        config,
                        state: Mutex::new(ServerState {
                            connection: Some(connection),
                            restarts: 0,
                        }),
                        stopped: AtomicBool::new(false),
                    });
                    live.push((server, tools));
                }
                Err(message) => problems.push(StartProblem {
                    server: name,
                    message,
                }),
            }
        }
        live.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        problems.sort_by(|a, b| a.server.cmp(&b.server));
        let mut offered: Vec<(Arc<Server>, ServerTool)> = Vec::new();
        for (server, mut tools) in live.iter().cloned() {
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            tools.dedup_by(|a, b| a.name == b.name);
            for tool in tools {
                if server.config.offers(&tool.name) {
                    offered.push((server.clone(), tool));
                }
            }
        }
        let names = names::unique_names(
            offered
                .iter()
                .map(|(s, t)| (s.name.as_str(), t.name.as_str())),
        );
        let tools = offered
            .into_iter()
            .zip(names)
            .map(|((server, tool), name)| McpTool::new(name, server, tool))
            .collect();
        let servers = live.into_iter().map(|(server, _)| server).collect();
        (McpServers { servers, tools }, problems)
    }

    /// The names of the servers that started, sorted.
    pub fn server_names(&self) -> Vec<&str> {
        self.servers.iter().map(|s| s.name.as_str()).collect()
    }

    /// The names (as the model sees them) of the tools the server `server` offers, in order.
    pub fn tool_names_of(&self, server: &str) -> Vec<String> {
        self.tools
            .iter()
            .filter(|tool| tool.server_name() == server)
            .map(|tool| wright_tools::Tool::name(tool).to_string())
            .collect()
    }

    /// One wright tool per offered server tool, named `mcp__SERVER__TOOL`, ordered by server
    /// then tool name: the same list, in the same order, every time (L1 stays byte-identical,
    /// DESIGN §9.10).
    pub fn tools(&self) -> Vec<Box<dyn wright_tools::Tool>> {
        self.tools
            .iter()
            .map(|tool| Box::new(tool.clone()) as Box<dyn wright_tools::Tool>)
            .collect()
    }

    /// The process ids of the running stdio servers (each also its process group's id).
    pub async fn pids(&self) -> Vec<u32> {
        let mut pids = Vec::new();
        for server in &self.servers {
            if let Some(pid) = server
                .state
                .lock()
                .await
                .connection
                .as_ref()
                .and_then(Connection::pid)
            {
                pids.push(pid);
            }
        }
        pids
    }

    /// Stops every server: SIGTERM to each stdio server's process group, up to
    /// [`STOP_GRACE`] to exit, then SIGKILL. Their tools answer with an error afterwards.
    pub async fn shutdown(&self) {
        let mut connections = Vec::new();
        for server in &self.servers {
            server.stopped.store(true, Ordering::SeqCst);
            if let Some(connection) = server.state.lock().await.connection.take() {
                connection.terminate();
                connections.push(connection);
            }
        }
        let stops = connections
            .into_iter()
            .map(|c| tokio::task::spawn_blocking(move || c.stop(STOP_GRACE)));
        // A stop that panicked has nothing left to stop.
        futures::future::join_all(stops).await;
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        let mut connections = Vec::new();
        for server in &self.servers {
            server.stopped.store(true, Ordering::SeqCst);
            // A call holding the lock right now restarts nothing (`stopped`), and its
            // connection is stopped when the call's server is dropped.
            if let Ok(mut state) = server.state.try_lock()
                && let Some(connection) = state.connection.take()
            {
                connection.terminate();
                connections.push(connection);
            }
        }
        // All were sent SIGTERM first, so each stop waits only for what is left of the grace.
        // A server still held by a call (or by its tools) is stopped when its connection
        // goes: the server's process stops itself on drop.
        for connection in connections {
            connection.stop(DROP_GRACE);
        }
    }
}

/// Connects to one server and lists its tools, within its startup timeout.
async fn start_one(config: &McpServerConfig) -> Result<(Connection, Vec<ServerTool>), String> {
    let work = async {
        let connection = client::connect(config).await?;
        let tools = connection.list_tools().await?;
        Ok::<_, ClientError>((connection, tools))
    };
    match tokio::time::timeout(config.startup_timeout, work).await {
        Ok(Ok(started)) => Ok(started),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!(
            "did not start and list its tools within {} s (startup_timeout_secs)",
            config.startup_timeout.as_secs_f64()
        )),
    }
}

impl Server {
    /// What calls this server now: the live connection, or a new one when it went away (at
    /// most [`MAX_RESTARTS`] times a session). `Err` is the message for the model.
    pub(crate) async fn caller(&self) -> Result<Caller, String> {
        if self.stopped.load(Ordering::SeqCst) {
            return Err(format!("the MCP server `{}` has been stopped", self.name));
        }
        let mut state = self.state.lock().await;
        if let Some(connection) = state.connection.as_mut()
            && !connection.is_closed()
        {
            return Ok(connection.caller());
        }
        if let Some(old) = state.connection.take() {
            old.stop(Duration::ZERO);
        }
        if state.restarts >= MAX_RESTARTS {
            return Err(format!(
                "the MCP server `{}` went away and was restarted {MAX_RESTARTS} times already; \
                 its tools are unavailable for the rest of this session",
                self.name
            ));
        }
        state.restarts += 1;
        let (connection, _) = start_one(&self.config).await.map_err(|message| {
            format!(
                "the MCP server `{}` went away and could not be restarted: {message}",
                self.name
            )
        })?;
        if self.stopped.load(Ordering::SeqCst) {
            connection.stop(Duration::ZERO);
            return Err(format!("the MCP server `{}` has been stopped", self.name));
        }
        let caller = connection.caller();
        state.connection = Some(connection);
        Ok(caller)
    }

    /// Forgets the connection after a call found the server gone, so the next call restarts it.
    pub(crate) async fn lost(&self) {
        if let Some(old) = self.state.lock().await.connection.take() {
            old.stop(Duration::ZERO);
        }
    }
}
