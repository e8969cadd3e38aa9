//! One MCP server tool as a wright [`Tool`]: its name, description and kind, the check of
//! its arguments, and the call itself, bounded in time and stopped by Ctrl-C.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use wright_protocol::{ErrorCode, ToolError, ToolResult};
use wright_tools::{Prepared, Tool, ToolContext, ToolKind};

use crate::client::{ClientError, ServerTool};
use crate::result::{cut_middle, to_tool_result};
use crate::schema;
use crate::servers::Server;

/// The most of a server's own description shown in the system prompt.
pub const MAX_DESCRIPTION_CHARS: usize = 1000;

/// The largest input schema shown in full, in the description and in an `invalid_arguments`
/// error; a larger one is cut in the middle.
pub const MAX_SCHEMA_BYTES: usize = 8 * 1024;

/// A server's tool, offered to the model as `mcp__SERVER__TOOL`.
#[derive(Clone)]
pub struct McpTool {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    server: Arc<Server>,
    tool: ServerTool,
    description: String,
    /// The first line of its description, for L1 once the tools from outside pass their
    /// budget (see `ToolRegistry::descriptions`).
    summary: String,
    /// The input schema as compact JSON, bounded.
    shape: String,
}

impl McpTool {
    /// The name of the server whose tool this is.
    pub(crate) fn server_name(&self) -> &str {
        &self.inner.server.name
    }

    /// The server whose tool this is.
    pub(crate) fn server(&self) -> &Arc<Server> {
        &self.inner.server
    }

    pub(crate) fn new(name: String, server: Arc<Server>, tool: ServerTool) -> Self {
        let shape = cut_middle(&tool.input_schema.to_string(), MAX_SCHEMA_BYTES);
        let own = match tool.description.trim() {
            "" => format!(
                "The tool `{}` of the MCP server `{}`.",
                tool.name, server.name
            ),
            own => wright_protocol::text::clip(own, MAX_DESCRIPTION_CHARS).into_owned(),
        };
        let description = format!("{own}\nInput schema: {shape}");
        let summary = wright_protocol::text::first_line(&own).to_string();
        Self {
            inner: Arc::new(Inner {
                name,
                server,
                tool,
                description,
                summary,
                shape,
            }),
        }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// Issue 15: a tool the server says changes nothing is a read; any other may do
    /// anything, so it is asked about one tool at a time (`external`).
    fn kind(&self) -> ToolKind {
        if self.inner.tool.read_only {
            ToolKind::Read
        } else {
            ToolKind::External
        }
    }

    fn description(&self) -> &str {
        &self.inner.description
    }

    fn summary(&self) -> Option<&str> {
        Some(&self.inner.summary)
    }

    fn schema(&self) -> Value {
        self.inner.tool.input_schema.clone()
    }

    fn prepare(&self, args: Value, _ctx: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args = match args {
            Value::Null => Value::Object(serde_json::Map::new()),
            args => args,
        };
        schema::check(&self.inner.tool.input_schema, &args).map_err(|problem| {
            wright_tools::invalid(&self.inner.name, &problem, &self.inner.shape)
        })?;
        let Value::Object(arguments) = args else {
            return Err(wright_tools::invalid(
                &self.inner.name,
                "the arguments must be a JSON object",
                &self.inner.shape,
            ));
        };
        Ok(Box::new(McpCall {
            tool: self.inner.clone(),
            arguments,
        }))
    }
}

/// A checked call of an MCP tool.
/// The most characters of arguments an approval shows.
const MAX_PREVIEW_CHARS: usize = 2_000;

struct McpCall {
    tool: Arc<Inner>,
    arguments: serde_json::Map<String, Value>,
}

impl Prepared for McpCall {
    /// What the user approves: the server, its tool and the arguments.
    fn preview<'a>(&'a mut self, _: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
        let arguments = Value::Object(self.arguments.clone()).to_string();
        let text = format!(
            "{} of the MCP server `{}`, with {}",
            self.tool.tool.name,
            self.tool.server.name,
            cut_middle(&arguments, MAX_PREVIEW_CHARS)
        );
        Box::pin(std::future::ready(Some(text)))
    }

    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let McpCall { tool, arguments } = *self;
            let server = &tool.server;
            let caller = tokio::select! {
                caller = server.caller() => caller,
                () = ctx.cancellation().cancelled() => return interrupted(&server.name),
            };
            let (caller, generation) = match caller {
                Ok(caller) => caller,
                Err(message) => return ToolResult::error(ErrorCode::ServerUnavailable, message),
            };
            let timeout = server.config.tool_timeout;
            let outcome = tokio::select! {
                outcome = tokio::time::timeout(timeout, caller.call(&tool.tool.name, arguments)) => outcome,
                () = ctx.cancellation().cancelled() => return interrupted(&server.name),
            };
            match outcome {
                Ok(Ok(result)) => to_tool_result(&server.name, &tool.tool.name, &result),
                Ok(Err(error @ ClientError::Closed(_))) => {
                    server.lost(generation).await;
                    ToolResult::error(
                        ErrorCode::ServerUnavailable,
                        format!(
                            "the MCP server `{}` went away during the call: {error}. It will be \
                             started again on the next call of one of its tools",
                            server.name
                        ),
                    )
                }
                Ok(Err(error)) => ToolResult::error(
                    ErrorCode::ServerError,
                    format!(
                        "the MCP server `{}` answered with an error: {error}",
                        server.name
                    ),
                ),
                Err(_) => ToolResult::error(
                    ErrorCode::Timeout,
                    format!(
                        "the MCP server `{}` did not answer within {} s (tool_timeout_secs); the call was cancelled",
                        server.name,
                        timeout.as_secs_f64()
                    ),
                ),
            }
        })
    }
}

fn interrupted(server: &str) -> ToolResult {
    ToolResult::error(
        ErrorCode::Interrupted,
        format!("interrupted; the call to the MCP server `{server}` was cancelled"),
    )
}
