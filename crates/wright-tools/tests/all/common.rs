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

/// Whether `python3` runs here and can `import` each of `modules` (a comma-separated list, as
/// in an `import` statement); tests that drive system calls through ctypes skip without it.
pub fn python3_has(modules: &str) -> bool {
    std::process::Command::new("python3")
        .arg("-c")
        .arg(format!("import {modules}"))
        .status()
        .is_ok_and(|status| status.success())
}

/// The error code of a result, if it failed.
pub fn code(result: &ToolResult) -> Option<ErrorCode> {
    result.error.as_ref().map(|e| e.code)
}
