//! Starting the MCP servers of the settings for a session (issue 15): their tools join every
//! agent's registry (`AgentSetup::external_tools`), and they are stopped when wright is done.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wright_core::session::ExternalTools;
use wright_mcp::{McpServers, McpTransport};

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
