//! wright's Model Context Protocol client (issue 15): starts the configured MCP servers
//! (stdio and Streamable HTTP), lists their tools and offers each as a wright
//! [`Tool`](wright_tools::Tool) named `mcp__SERVER__TOOL`.
//!
//! It owns the servers' lifetime — started in parallel, each within its startup timeout,
//! restarted a bounded number of times when one goes away, stopped (process group, SIGTERM
//! then SIGKILL) with the session — and turns their answers into bounded [`ToolResult`]s.
//! Everything a server sends is untrusted: names, descriptions, schemas and results are
//! bounded in size, calls in time.
//!
//! Not for: reading settings files or the command line (the CLI fills [`McpServerConfig`]),
//! approvals (the registry and front ends decide from [`Tool::kind`]), or history.
//!
//! rmcp, whose API churns between majors, is used only in the private `client` module.
//!
//! [`ToolResult`]: wright_protocol::ToolResult
//! [`Tool::kind`]: wright_tools::Tool::kind

mod client;
mod config;
mod names;
mod result;
mod schema;
mod servers;
mod tool;

pub use config::{McpServerConfig, McpTransport};
pub use servers::{McpServers, ServerHealth, ServerStatus, StartEvent, StartProblem};
