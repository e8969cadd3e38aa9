//! What wright needs to know to start one MCP server: plain data, filled by the CLI from
//! `[mcp_servers.NAME]` (issue 15).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Issue 15: `startup_timeout_secs` defaults to 10.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// Issue 15: `tool_timeout_secs` defaults to 60.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// One MCP server, as the settings declare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// How to reach the server.
    pub transport: McpTransport,
    /// When set, only these tools (the server's own names) are offered.
    pub enabled_tools: Option<Vec<String>>,
    /// Tools (the server's own names) never offered, even when enabled.
    pub disabled_tools: Vec<String>,
    /// How long the server may take to start and list its tools.
    pub startup_timeout: Duration,
    /// How long one tool call may take.
    pub tool_timeout: Duration,
}

impl McpServerConfig {
    /// A server reached through `transport`, every tool offered, default timeouts.
    pub fn new(transport: McpTransport) -> Self {
        Self {
            transport,
            enabled_tools: None,
            disabled_tools: Vec::new(),
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
        }
    }

    /// Whether the settings let the server's tool `name` be offered.
    pub fn offers(&self, name: &str) -> bool {
        let enabled = self
            .enabled_tools
            .as_ref()
            .is_none_or(|enabled| enabled.iter().any(|e| e == name));
        enabled && !self.disabled_tools.iter().any(|d| d == name)
    }
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A command wright starts, speaking JSON-RPC on its standard input and output.
    Stdio {
        /// The program, looked up in `PATH` when it has no slash.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to (or replacing those of) wright's environment.
        env: BTreeMap<String, String>,
        /// Its working directory; wright's own when `None`.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint, e.g. `https://example.com/mcp`.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
        /// The environment variable holding a bearer token for `Authorization`, if any; the
        /// token itself is never written in the settings.
        bearer_token_env_var: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_tools_win_over_enabled_ones() {
        let mut config = McpServerConfig::new(McpTransport::Http {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: BTreeMap::new(),
            bearer_token_env_var: None,
        });
        assert!(config.offers("anything"));
        config.enabled_tools = Some(vec!["a".into(), "b".into()]);
        config.disabled_tools = vec!["b".into()];
        assert!(config.offers("a"));
        assert!(!config.offers("b"));
        assert!(!config.offers("c"));
    }
}
