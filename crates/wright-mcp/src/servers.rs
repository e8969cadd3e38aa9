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
///
/// Servers start together ([`start`](Self::start) waits for them; an interactive session
/// runs [`start_all`](Self::start_all) in the background and goes on). The tools offered are
/// a snapshot, made anew only by [`publish`](Self::publish): the list an agent gets stays the
/// same bytes however late a server comes up, until the user asks for it to change.
pub struct McpServers {
    /// One per configured server, sorted by name.
    entries: Vec<Entry>,
    /// The tools offered, as the last [`publish`](Self::publish) made them.
    offered: std::sync::Mutex<Vec<McpTool>>,
    /// Set by [`shutdown`](Self::shutdown) and drop: nothing starts any more.
    stopped: AtomicBool,
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field("servers", &self.server_names())
            .field("tools", &lock(&self.offered).len())
            .finish()
    }
}

/// A configured server and how far it got.
struct Entry {
    name: String,
    config: McpServerConfig,
    /// Held while the server starts (at first, or again on [`McpServers::reconnect`]): a
    /// second start waits for the first.
    starting: Mutex<()>,
    state: std::sync::Mutex<EntryState>,
}

enum EntryState {
    /// Not started yet, or starting.
    Starting,
    /// Up, with the tools it listed when it started.
    Up {
        server: Arc<Server>,
        tools: Vec<ServerTool>,
    },
    /// It did not start; why.
    Failed(String),
}

/// One started server, shared by its tools.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) config: McpServerConfig,
    state: Mutex<ServerState>,
    /// Set when the server is stopped: no more calls, no more restarts.
    stopped: AtomicBool,
}

struct ServerState {
    connection: Option<Connection>,
    restarts: u32,
    /// Counts the connections made: a call that found the server gone forgets the
    /// connection it used, never a newer one another call has made since.
    generation: u64,
}

/// How a server is doing, for `/mcp` and `wright mcp list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// Its name in the settings.
    pub name: String,
    pub health: ServerHealth,
}

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerHealth {
    /// Starting (or waiting to).
    Starting,
    /// Up: the names (as the model sees them) of its tools the session offers now, and how
    /// many it offers in all (more when it came up after the tools were fixed).
    Running { offered: Vec<String>, tools: usize },
    /// It did not start; why.
    Failed(String),
}

/// What happened to one server as it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartEvent {
    /// It is up and offers `tools` tools (after `enabled_tools` / `disabled_tools`).
    Started { server: String, tools: usize },
    /// It did not start.
    Failed(StartProblem),
}

/// Which start [`McpServers::start_entry`] makes.
enum Start {
    /// The first: only of a server not started yet.
    First,
    /// Again (`/mcp reconnect`): of one not started or failed, or of the one up as
    /// `replacing` (the server the caller saw) — not of one another start brought up since.
    Again { replacing: Option<Arc<Server>> },
}

/// The server `entry` has up now, if any.
fn up_server(entry: &Entry) -> Option<Arc<Server>> {
    match &*lock(&entry.state) {
        EntryState::Up { server, .. } => Some(server.clone()),
        EntryState::Starting | EntryState::Failed(_) => None,
    }
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl McpServers {
    /// The servers `servers` name, none started yet.
    pub fn new(servers: Vec<(String, McpServerConfig)>) -> McpServers {
        let mut entries: Vec<Entry> = servers
            .into_iter()
            .map(|(name, config)| Entry {
                name,
                config,
                starting: Mutex::new(()),
                state: std::sync::Mutex::new(EntryState::Starting),
            })
            .collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries.dedup_by(|a, b| a.name == b.name);
        McpServers {
            entries,
            offered: std::sync::Mutex::new(Vec::new()),
            stopped: AtomicBool::new(false),
        }
    }

    /// Starts every server at once, each bounded by its startup timeout, lists their tools
    /// and offers them. A server that fails or is too slow is left out and reported, never
    /// fatal.
    pub async fn start(servers: Vec<(String, McpServerConfig)>) -> (McpServers, Vec<StartProblem>) {
        let started = McpServers::new(servers);
        let events = started.start_all(&|_| {}).await;
        started.publish();
        let problems = events
            .into_iter()
            .filter_map(|event| match event {
                StartEvent::Failed(problem) => Some(problem),
                StartEvent::Started { .. } => None,
            })
            .collect();
        (started, problems)
    }

    /// Starts every server not started yet, at once; `on_event` hears of each as it is up or
    /// fails, and the events come back in the servers' order. Offers nothing new: see
    /// [`publish`](Self::publish).
    pub async fn start_all(&self, on_event: &(dyn Fn(&StartEvent) + Sync)) -> Vec<StartEvent> {
        let starts = self.entries.iter().map(|entry| async move {
            let event = self.start_entry(entry, Start::First).await;
            if let Some(event) = &event {
                on_event(event);
            }
            event
        });
        futures::future::join_all(starts)
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    /// Starts `entry` as `again` says ([`Start`]), decided once the start already under way,
    /// if any, is over. Says what came of it; `None` when it was left as it was.
    async fn start_entry(&self, entry: &Entry, again: Start) -> Option<StartEvent> {
        let _starting = entry.starting.lock().await;
        let old = {
            let mut state = lock(&entry.state);
            let start = match (&*state, &again) {
                (EntryState::Starting, _) => true,
                (_, Start::First) => false,
                (EntryState::Failed(_), Start::Again { .. }) => true,
                (EntryState::Up { server, .. }, Start::Again { replacing }) => replacing
                    .as_ref()
                    .is_some_and(|seen| Arc::ptr_eq(seen, server)),
            };
            if !start {
                return None;
            }
            match &*state {
                EntryState::Starting => None,
                _ => Some(std::mem::replace(&mut *state, EntryState::Starting)),
            }
        };
        if let Some(EntryState::Up { server, .. }) = old {
            server.stop().await;
        }
        if self.stopped.load(Ordering::SeqCst) {
            let message = "wright is stopping its MCP servers".to_string();
            *lock(&entry.state) = EntryState::Failed(message.clone());
            return Some(StartEvent::Failed(StartProblem {
                server: entry.name.clone(),
                message,
            }));
        }
        let outcome = start_one(&entry.config).await;
        let event = match outcome {
            Ok((connection, mut tools)) => {
                if self.stopped.load(Ordering::SeqCst) {
                    // Stopped while it started: it must not outlive the others.
                    connection.stop(Duration::ZERO);
                    let message = "wright is stopping its MCP servers".to_string();
                    *lock(&entry.state) = EntryState::Failed(message.clone());
                    return Some(StartEvent::Failed(StartProblem {
                        server: entry.name.clone(),
                        message,
                    }));
                }
                tools.sort_by(|a, b| a.name.cmp(&b.name));
                tools.dedup_by(|a, b| a.name == b.name);
                tools.retain(|tool| entry.config.offers(&tool.name));
                let count = tools.len();
                let server = Arc::new(Server {
                    name: entry.name.clone(),
                    config: entry.config.clone(),
                    state: Mutex::new(ServerState {
                        connection: Some(connection),
                        restarts: 0,
                        generation: 0,
                    }),
                    stopped: AtomicBool::new(false),
                });
                *lock(&entry.state) = EntryState::Up {
                    server: server.clone(),
                    tools,
                };
                // `shutdown` sets `stopped` before it looks for servers that are up: one
                // that came up after its look sees the flag here, and stops itself.
                if self.stopped.load(Ordering::SeqCst) {
                    *lock(&entry.state) =
                        EntryState::Failed("wright is stopping its MCP servers".into());
                    server.stop().await;
                    return Some(StartEvent::Failed(StartProblem {
                        server: entry.name.clone(),
                        message: "wright is stopping its MCP servers".into(),
                    }));
                }
                StartEvent::Started {
                    server: entry.name.clone(),
                    tools: count,
                }
            }
            Err(message) => {
                *lock(&entry.state) = EntryState::Failed(message.clone());
                StartEvent::Failed(StartProblem {
                    server: entry.name.clone(),
                    message,
                })
            }
        };
        Some(event)
    }

    /// Offers the tools of the servers up now, from the next [`tools`](Self::tools) on;
    /// `true` when the names offered changed.
    pub fn publish(&self) -> bool {
        let mut offered: Vec<(Arc<Server>, ServerTool)> = Vec::new();
        for entry in &self.entries {
            if let EntryState::Up { server, tools } = &*lock(&entry.state) {
                offered.extend(tools.iter().map(|tool| (server.clone(), tool.clone())));
            }
        }
        let names = names::unique_names(
            offered
                .iter()
                .map(|(s, t)| (s.name.as_str(), t.name.as_str())),
        );
        let tools: Vec<McpTool> = offered
            .into_iter()
            .zip(names)
            .map(|((server, tool), name)| McpTool::new(name, server, tool))
            .collect();
        let mut current = lock(&self.offered);
        let changed = current.len() != tools.len()
            || current
                .iter()
                .zip(&tools)
                .any(|(a, b)| wright_tools::Tool::name(a) != wright_tools::Tool::name(b));
        *current = tools;
        changed
    }

    /// Starts `server` again (any server that is not up, or whose connection is gone, when
    /// `None`), waiting for it within its startup timeout, and offers the tools of the
    /// servers up then. `Err` names an unknown server.
    pub async fn reconnect(&self, server: Option<&str>) -> Result<Vec<StartEvent>, String> {
        // Each chosen entry with the server seen up now (to be replaced), if any.
        let chosen: Vec<(&Entry, Option<Arc<Server>>)> = match server {
            Some(name) => match self.entries.iter().find(|e| e.name == name) {
                Some(entry) => vec![(entry, up_server(entry))],
                None => {
                    return Err(format!(
                        "no MCP server `{name}` in this session (it has {})",
                        if self.entries.is_empty() {
                            "none".to_string()
                        } else {
                            self.entries
                                .iter()
                                .map(|e| format!("`{}`", e.name))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    ));
                }
            },
            None => {
                let mut chosen = Vec::new();
                for entry in &self.entries {
                    match up_server(entry) {
                        Some(server) if server.is_healthy().await => {}
                        seen => chosen.push((entry, seen)),
                    }
                }
                chosen
            }
        };
        let events = futures::future::join_all(
            chosen
                .into_iter()
                .map(|(entry, seen)| self.start_entry(entry, Start::Again { replacing: seen })),
        )
        .await;
        self.publish();
        Ok(events.into_iter().flatten().collect())
    }

    /// Each server and how it is doing, in name order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        let offered = lock(&self.offered);
        self.entries
            .iter()
            .map(|entry| {
                let health = match &*lock(&entry.state) {
                    EntryState::Starting => ServerHealth::Starting,
                    EntryState::Failed(message) => ServerHealth::Failed(message.clone()),
                    EntryState::Up { server, tools } => ServerHealth::Running {
                        offered: offered
                            .iter()
                            .filter(|tool| Arc::ptr_eq(tool.server(), server))
                            .map(|tool| wright_tools::Tool::name(tool).to_string())
                            .collect(),
                        tools: tools.len(),
                    },
                };
                ServerStatus {
                    name: entry.name.clone(),
                    health,
                }
            })
            .collect()
    }

    /// The names of the servers that are up, sorted.
    pub fn server_names(&self) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|entry| matches!(*lock(&entry.state), EntryState::Up { .. }))
            .map(|entry| entry.name.as_str())
            .collect()
    }

    /// The names (as the model sees them) of the tools the server `server` offers, in order.
    pub fn tool_names_of(&self, server: &str) -> Vec<String> {
        lock(&self.offered)
            .iter()
            .filter(|tool| tool.server_name() == server)
            .map(|tool| wright_tools::Tool::name(tool).to_string())
            .collect()
    }

    /// One wright tool per offered server tool, named `mcp__SERVER__TOOL`, ordered by server
    /// then tool name: the same list, in the same order, every time until the next
    /// [`publish`](Self::publish) (L1 stays byte-identical, DESIGN §9.10).
    pub fn tools(&self) -> Vec<Box<dyn wright_tools::Tool>> {
        lock(&self.offered)
            .iter()
            .map(|tool| Box::new(tool.clone()) as Box<dyn wright_tools::Tool>)
            .collect()
    }

    /// The servers that are up.
    fn up(&self) -> Vec<Arc<Server>> {
        self.entries
            .iter()
            .filter_map(|entry| match &*lock(&entry.state) {
                EntryState::Up { server, .. } => Some(server.clone()),
                _ => None,
            })
            .collect()
    }

    /// The process ids of the running stdio servers (each also its process group's id).
    pub async fn pids(&self) -> Vec<u32> {
        let mut pids = Vec::new();
        for server in self.up() {
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
    /// [`STOP_GRACE`] to exit, then SIGKILL. Their tools answer with an error afterwards; a
    /// server still starting is stopped as soon as it is up.
    pub async fn shutdown(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        let mut connections = Vec::new();
        for server in self.up() {
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
        self.stopped.store(true, Ordering::SeqCst);
        let mut connections = Vec::new();
        for server in self.up() {
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
    /// What calls this server now, and the generation of its connection: the live
    /// connection, or a new one when it went away (at most [`MAX_RESTARTS`] times a session).
    /// `Err` is the message for the model.
    pub(crate) async fn caller(&self) -> Result<(Caller, u64), String> {
        if self.stopped.load(Ordering::SeqCst) {
            return Err(format!("the MCP server `{}` has been stopped", self.name));
        }
        let mut state = self.state.lock().await;
        let generation = state.generation;
        if let Some(connection) = state.connection.as_mut()
            && !connection.is_closed()
        {
            return Ok((connection.caller(), generation));
        }
        if let Some(old) = state.connection.take() {
            old.stop(Duration::ZERO);
        }
        if state.restarts >= MAX_RESTARTS {
            return Err(format!(
                "the MCP server `{}` went away and was restarted {MAX_RESTARTS} times already; \
                 its tools are unavailable until `/mcp reconnect` (or the next session)",
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
        state.generation += 1;
        Ok((caller, state.generation))
    }

    /// Forgets the connection of `generation` after a call found the server gone, so the
    /// next call restarts it; a newer connection (another call's restart) is kept.
    pub(crate) async fn lost(&self, generation: u64) {
        let mut state = self.state.lock().await;
        if state.generation == generation
            && let Some(old) = state.connection.take()
        {
            old.stop(Duration::ZERO);
        }
    }

    /// Whether its connection is live, or can still be restarted by a call.
    async fn is_healthy(&self) -> bool {
        let mut state = self.state.lock().await;
        match state.connection.as_mut() {
            Some(connection) => !connection.is_closed(),
            None => state.restarts < MAX_RESTARTS,
        }
    }

    /// Stops it for good (it is being replaced): its tools answer with an error.
    async fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        let connection = self.state.lock().await.connection.take();
        if let Some(connection) = connection {
            connection.terminate();
            let _ = tokio::task::spawn_blocking(move || connection.stop(STOP_GRACE)).await;
        }
    }
}
