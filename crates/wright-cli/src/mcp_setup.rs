//! Starting the MCP servers of the settings for a session (issue 15): their tools join every
//! agent's registry (`AgentSetup::external_tools`), and they are stopped when wright is done.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;
use wright_core::session::ExternalTools;
use wright_mcp::{McpServers, McpTransport, ServerHealth, ServerStatus, StartEvent};
use wright_protocol::text::plural;
use wright_tui::app::{McpControl, McpLaunch};

use crate::config::McpServerConfig;

/// The servers `servers` name, as wright-mcp starts them: a relative `cwd` is taken from the
/// project root, which is also where a server runs when it names none.
pub fn server_configs(
    root: &Path,
    servers: &[(String, McpServerConfig)],
) -> Vec<(String, wright_mcp::McpServerConfig)> {
    servers
        .iter()
        .filter_map(|(name, server)| {
            let transport =
                match (&server.command, &server.url) {
                    (Some(command), _) => McpTransport::Stdio {
                        command: command.clone(),
                        args: server.args.clone(),
                        env: server.env.clone(),
                        cwd: Some(server.cwd.as_deref().map_or_else(
                            || root.to_path_buf(),
                            |cwd| root.join(PathBuf::from(cwd)),
                        )),
                    },
                    (None, Some(url)) => McpTransport::Http {
                        url: url.clone(),
                        headers: server.headers.clone(),
                        bearer_token_env_var: server.bearer_token_env_var.clone(),
                    },
                    // Refused when the settings were read.
                    (None, None) => return None,
                };
            let mut config = wright_mcp::McpServerConfig::new(transport);
            config.enabled_tools = server.enabled_tools.clone();
            config.disabled_tools = server.disabled_tools.clone();
            if let Some(secs) = server.startup_timeout_secs {
                config.startup_timeout = Duration::from_secs(secs);
            }
            if let Some(secs) = server.tool_timeout_secs {
                config.tool_timeout = Duration::from_secs(secs);
            }
            Some((name.clone(), config))
        })
        .collect()
}

/// Starts the servers `servers` name, in parallel, each within its startup timeout; one that
/// fails is reported on stderr and left out. `None` when there are none to start.
pub async fn start(root: &Path, servers: &[(String, McpServerConfig)]) -> Option<Arc<McpServers>> {
    if servers.is_empty() {
        return None;
    }
    let (started, problems) = McpServers::start(server_configs(root, servers)).await;
    for problem in problems {
        eprintln!("wright: warning: {problem}; its tools are left out of this session");
    }
    Some(Arc::new(started))
}

/// The servers' tools, made for each agent (the same, in the same order, every time).
pub fn tools(servers: &Arc<McpServers>) -> ExternalTools {
    let servers = Arc::clone(servers);
    Arc::new(move || servers.tools())
}

/// The interactive session's servers: started in the background, so the prompt is there at
/// once; each one's progress is a notice. `None` when there are none to start.
pub fn launch(
    root: &Path,
    servers: &[(String, McpServerConfig)],
) -> Option<(Arc<McpServers>, McpLaunch)> {
    if servers.is_empty() {
        return None;
    }
    let started = Arc::new(McpServers::new(server_configs(root, servers)));
    let control = Arc::new(Interactive {
        servers: started.clone(),
        settled: Arc::new(AtomicBool::new(false)),
    });
    let (tx, notices) = mpsc::unbounded_channel();
    let names: Vec<String> = started.statuses().into_iter().map(|s| s.name).collect();
    let _ = tx.send(format!(
        "Starting {} ({})…",
        plural(names.len(), "MCP server"),
        names.join(", ")
    ));
    let starting = started.clone();
    let settled = control.settled.clone();
    tokio::spawn(async move {
        starting
            .start_all(&move |event: &StartEvent| {
                let _ = tx.send(start_notice(event, settled.load(Ordering::SeqCst)));
            })
            .await;
    });
    Some((started, McpLaunch { control, notices }))
}

/// The line an interactive session shows when a server is up or failed; `settled`: the
/// session's tools were already fixed, so a server up now waits for `/mcp reconnect`.
fn start_notice(event: &StartEvent, settled: bool) -> String {
    match event {
        StartEvent::Started { server, tools } if settled => format!(
            "MCP server `{server}` is up ({}), after this session's tools were fixed: \
             `/mcp reconnect` adds them.",
            plural(*tools, "tool")
        ),
        StartEvent::Started { server, tools } => {
            format!("MCP server `{server}` is up: {}.", plural(*tools, "tool"))
        }
        StartEvent::Failed(problem) => format!(
            "{problem}. Its tools are left out; `/mcp reconnect {}` tries again.",
            problem.server
        ),
    }
}

/// [`McpControl`] over the servers of an interactive session.
struct Interactive {
    servers: Arc<McpServers>,
    /// Whether the first round fixed the tools yet.
    settled: Arc<AtomicBool>,
}

impl McpControl for Interactive {
    fn report(&self, agent_tools: &[String]) -> String {
        status_report(&self.servers.statuses(), Some(agent_tools))
    }

    fn settle(&self) -> bool {
        !self.settled.swap(true, Ordering::SeqCst) && self.servers.publish()
    }

    fn reconnect<'a>(
        &'a self,
        server: Option<&'a str>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>> {
        Box::pin(async move {
            self.settled.store(true, Ordering::SeqCst);
            let events = self.servers.reconnect(server).await?;
            let mut text = if events.is_empty() {
                "Every MCP server was up; none was started again \
                 (`/mcp reconnect SERVER` restarts one).\n"
                    .to_string()
            } else {
                events
                    .iter()
                    .map(|event| match event {
                        StartEvent::Started { server, tools } => {
                            format!("MCP server `{server}` is up: {}.\n", plural(*tools, "tool"))
                        }
                        StartEvent::Failed(problem) => format!("{problem}\n"),
                    })
                    .collect()
            };
            text.push('\n');
            text.push_str(&status_report(&self.servers.statuses(), None));
            Ok(text)
        })
    }
}

/// Each server, how it is doing and its tools, one line each (`wright mcp list`, `/mcp`).
/// `agent_tools`, when given, are the tools the session's agent offers: a server's tools
/// missing from them are "not in this session yet".
pub fn status_report(statuses: &[ServerStatus], agent_tools: Option<&[String]>) -> String {
    let mut text = String::new();
    for status in statuses {
        let name = &status.name;
        let line = match &status.health {
            ServerHealth::Starting => format!("{name}: starting…"),
            ServerHealth::Failed(message) => format!("{name}: did not start: {message}"),
            ServerHealth::Running { offered, tools } => {
                let offered: Vec<&String> = offered
                    .iter()
                    .filter(|tool| agent_tools.is_none_or(|agent| agent.contains(tool)))
                    .collect();
                let missing = tools.saturating_sub(offered.len());
                let names = offered
                    .iter()
                    .map(|tool| tool.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                match (offered.len(), missing) {
                    (0, 0) => format!("{name}: running, no tools"),
                    (_, 0) => format!(
                        "{name}: running, {}: {names}",
                        plural(offered.len(), "tool")
                    ),
                    (0, _) => format!(
                        "{name}: running, its {} not in this session yet: `/mcp reconnect` adds them",
                        plural(missing, "tool")
                    ),
                    (_, _) => format!(
                        "{name}: running, {}: {names} ({missing} more not in this session yet: \
                         `/mcp reconnect` adds them)",
                        plural(offered.len(), "tool")
                    ),
                }
            }
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_report_names_each_server_its_state_and_the_tools_the_agent_has() {
        let statuses = vec![
            ServerStatus {
                name: "db".into(),
                health: ServerHealth::Running {
                    offered: vec!["mcp__db__query".into(), "mcp__db__tables".into()],
                    tools: 2,
                },
            },
            ServerStatus {
                name: "late".into(),
                health: ServerHealth::Running {
                    offered: vec![],
                    tools: 3,
                },
            },
            ServerStatus {
                name: "slow".into(),
                health: ServerHealth::Starting,
            },
            ServerStatus {
                name: "web".into(),
                health: ServerHealth::Failed("could not start `x`".into()),
            },
        ];
        let agent = vec!["Read".to_string(), "mcp__db__query".to_string()];
        assert_eq!(
            status_report(&statuses, Some(&agent)),
            "db: running, 1 tool: mcp__db__query (1 more not in this session yet: \
             `/mcp reconnect` adds them)\n\
             late: running, its 3 tools not in this session yet: `/mcp reconnect` adds them\n\
             slow: starting…\n\
             web: did not start: could not start `x`\n"
        );
        assert!(
            status_report(&statuses, None)
                .starts_with("db: running, 2 tools: mcp__db__query, mcp__db__tables\nlate:")
        );
    }

    #[test]
    fn a_server_up_after_the_tools_were_fixed_points_to_reconnect() {
        let up = StartEvent::Started {
            server: "db".into(),
            tools: 2,
        };
        assert_eq!(start_notice(&up, false), "MCP server `db` is up: 2 tools.");
        assert!(start_notice(&up, true).contains("`/mcp reconnect` adds them"));
    }
}
