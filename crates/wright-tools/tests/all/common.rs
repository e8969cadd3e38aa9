//! Set-up shared by the tool tests: a temporary project, files in it, calls through the
//! registry.

use serde_json::Value;
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{ToolContext, ToolRegistry};

/// A temporary project and a tool context rooted in it.
pub fn project() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    (dir, ctx)
}

/// Puts `content` at `path` in the project, making its directories.
pub fn write(ctx: &ToolContext, path: &str, content: impl AsRef<[u8]>) {
    let abs = ctx.root().join(path);
    std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
    std::fs::write(abs, content).unwrap();
}

/// One call of `tool` through the builtin registry.
pub async fn run(ctx: &ToolContext, tool: &str, args: Value) -> ToolResult {
    let call = ToolCall {
        tool: tool.into(),
        args,
    };
    ToolRegistry::builtin().run(&call, ctx).await
}

/// The error code of a result, if it failed.
pub fn code(result: &ToolResult) -> Option<ErrorCode> {
    result.error.as_ref().map(|e| e.code)
}
