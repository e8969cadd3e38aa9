//! The session's MCP servers as the interactive session sees them (issue 15): `/mcp` shows
//! them, `/mcp reconnect` starts them again, and the first round fixes which of their tools
//! the agent offers. The front end knows them only through [`McpControl`], which the CLI
//! implements over wright-mcp; their start's progress arrives as notices.

use futures::future::BoxFuture;
use tokio::sync::mpsc;

/// What the interactive session asks of the MCP servers.
pub trait McpControl: Send + Sync {
    /// `/mcp`'s text: each server, how it is doing and the tools it offers; `agent_tools`
    /// are the tools the session's agent offers now.
    fn report(&self, agent_tools: &[String]) -> String;

    /// Called before each round. The first call fixes the servers' tools at those of the
    /// servers up by then (a slow server does not hold the first prompt back; its tools wait
    /// for `/mcp reconnect`); `true` when the agent's tools are to be made anew.
    fn settle(&self) -> bool;

    /// `/mcp reconnect [SERVER]`: starts `server` again (every server that is not up, when
    /// `None`) and offers the tools of those up then. The text for the user, or why not.
    fn reconnect<'a>(&'a self, server: Option<&'a str>) -> BoxFuture<'a, Result<String, String>>;
}

/// The MCP servers of an interactive session: what controls them and the progress of their
/// start, one line per notice.
pub struct McpLaunch {
    pub control: std::sync::Arc<dyn McpControl>,
    pub notices: mpsc::UnboundedReceiver<String>,
}

/// `/mcp` when no server is configured.
pub const NO_SERVERS: &str = "No MCP servers are configured. `wright mcp add NAME -- CMD ARGS…` \
                              adds one (to the user settings); it starts with the next session.";
