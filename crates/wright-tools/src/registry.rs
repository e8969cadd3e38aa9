//! The set of tools the model may call, and the one place a call is run.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult};

use crate::{
    BashTool, EditTool, GlobTool, GrepTool, LsTool, MultiEditTool, ReadTool, TodoWriteTool, Tool,
    ToolContext, WriteTool,
};

/// How long a cancelled tool may take to report its own `interrupted` result (Bash includes the
/// output so far) before the registry answers with a plain one.
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// The tools, by name, in registration order (which is also their order in the system prompt).
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Box<dyn Tool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry; see [`ToolRegistry::builtin`] for the usual set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The built-in tools: Read, Write, Edit, MultiEdit, LS, Glob, Grep, TodoWrite, Bash.
    pub fn builtin() -> Self {
        let mut registry = Self::new();
        registry.register(Box::new(ReadTool));
        registry.register(Box::new(WriteTool));
        registry.register(Box::new(EditTool));
        registry.register(Box::new(MultiEditTool));
        registry.register(Box::new(LsTool));
        registry.register(Box::new(GlobTool));
        registry.register(Box::new(GrepTool));
        registry.register(Box::new(TodoWriteTool));
        registry.register(Box::new(BashTool));
        registry
    }

    /// Adds a tool at the end, or replaces the tool of the same name in its place.
    pub fn register(&mut self, tool: Box<dyn Tool>) {
        match self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
    }

    /// The tool called exactly `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
    }

    /// The tool names, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// All descriptions for the system prompt, in registration order: each as
    /// `## <Name>\n<description>`, separated by blank lines.
    pub fn descriptions(&self) -> String {
        self.tools
            .iter()
            .map(|t| format!("## {}\n{}", t.name(), t.description().trim()))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Runs one call.
    ///
    /// An unknown tool gives an `unknown_tool` result naming the valid tools. Otherwise the tool
    /// runs racing the context's cancellation token: once it is cancelled the tool has
    /// [`CANCEL_GRACE`] to return its own `interrupted` result, then it is dropped and the call
    /// ends `interrupted`. `stats` gets `{"duration_ms": N}` and `context` the arguments.
    pub async fn run(&self, call: &ToolCall, ctx: &ToolContext) -> ToolResult {
        let started = Instant::now();
        let mut result = match self.get(&call.tool) {
            None => ToolResult::error(
                ErrorCode::UnknownTool,
                format!(
                    "there is no tool named `{}`; the tools are: {}",
                    call.tool,
                    self.names().join(", ")
                ),
            ),
            Some(tool) => run_cancellable(tool, call.args.clone(), ctx).await,
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        match &mut result.stats {
            Value::Object(stats) => {
                stats.insert("duration_ms".into(), json!(duration_ms));
            }
            stats => *stats = json!({ "duration_ms": duration_ms }),
        }
        result.context = call.args.clone();
        result
    }

    /// What `call` would do, without doing it (see [`Tool::preview`]): the command for Bash,
    /// the unified diff a Write, Edit or MultiEdit would make. `None` for an unknown tool, a
    /// tool with nothing to preview, or a dry run that fails.
    pub async fn preview(&self, call: &ToolCall, ctx: &ToolContext) -> Option<String> {
        self.get(&call.tool)?.preview(&call.args, ctx).await
    }
}

/// Runs `tool`, racing the cancellation token (see [`ToolRegistry::run`]).
async fn run_cancellable(tool: &dyn Tool, args: Value, ctx: &ToolContext) -> ToolResult {
    let interrupted = || {
        ToolResult::error(
            ErrorCode::Interrupted,
            format!(
                "{} was interrupted by the user before it finished",
                tool.name()
            ),
        )
    };
    let cancel = ctx.cancellation();
    if cancel.is_cancelled() {
        return interrupted();
    }
    let run = tool.run(args, ctx);
    tokio::pin!(run);
    tokio::select! {
        biased;
        result = &mut run => result,
        () = cancel.cancelled() => {
            match tokio::time::timeout(CANCEL_GRACE, &mut run).await {
                Ok(result)
                    if result.error.as_ref().map(|e| e.code) == Some(ErrorCode::Interrupted) =>
                {
                    result
                }
                _ => interrupted(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use futures::future::BoxFuture;
    use pretty_assertions::assert_eq;
    use tokio_util::sync::CancellationToken;

    /// A tool that waits forever and ignores cancellation, like a tool stuck in I/O.
    struct Stuck;

    impl Tool for Stuck {
        fn name(&self) -> &'static str {
            "Stuck"
        }
        fn description(&self) -> &'static str {
            "Never finishes.\n"
        }
        fn run<'a>(&'a self, _: Value, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
            futures::future::pending().boxed()
        }
    }

    fn ctx() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(dir.path()).unwrap();
        (dir, ctx)
    }

    #[test]
    fn builtin_names_are_in_registration_order() {
        assert_eq!(
            ToolRegistry::builtin().names(),
            vec![
                "Read",
                "Write",
                "Edit",
                "MultiEdit",
                "LS",
                "Glob",
                "Grep",
                "TodoWrite",
                "Bash"
            ]
        );
    }

    #[test]
    fn descriptions_have_a_heading_per_tool_separated_by_blank_lines() {
        let mut registry = ToolRegistry::new();
        registry.register(Box::new(Stuck));
        registry.register(Box::new(Stuck));
        assert_eq!(registry.names(), vec!["Stuck"], "same name replaces");
        assert_eq!(registry.descriptions(), "## Stuck\nNever finishes.");

        let all = ToolRegistry::builtin().descriptions();
        assert!(all.starts_with("## Read\n"), "{all}");
        assert!(all.contains("\n\n## Bash\n"), "{all}");
    }

    #[tokio::test]
    async fn unknown_tool_lists_the_valid_names() {
        let (_dir, ctx) = ctx();
        let call = ToolCall {
            tool: "Raed".into(),
            args: json!({"file_path": "x"}),
        };
        let result = ToolRegistry::builtin().run(&call, &ctx).await;
        let error = result.error.unwrap();
        assert_eq!(error.code, ErrorCode::UnknownTool);
        assert_eq!(
            error.message,
            "there is no tool named `Raed`; the tools are: Read, Write, Edit, MultiEdit, LS, Glob, Grep, \
             TodoWrite, Bash"
        );
        assert_eq!(result.context, json!({"file_path": "x"}));
        assert!(result.stats["duration_ms"].is_u64());
    }

    #[tokio::test]
    async fn cancelling_a_tool_that_ignores_the_token_still_ends_the_call() {
        let (_dir, ctx) = ctx();
        let token = CancellationToken::new();
        let ctx = ctx.with_cancellation(token.clone());
        let mut registry = ToolRegistry::new();
        registry.register(Box::new(Stuck));
        let call = ToolCall {
            tool: "Stuck".into(),
            args: json!({}),
        };
        let canceller = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            token.cancel();
        };
        let (result, ()) = tokio::join!(registry.run(&call, &ctx), canceller);
        assert_eq!(result.error.map(|e| e.code), Some(ErrorCode::Interrupted));
    }

    #[tokio::test]
    async fn an_already_cancelled_call_does_not_run() {
        let (_dir, ctx) = ctx();
        let token = CancellationToken::new();
        token.cancel();
        let ctx = ctx.with_cancellation(token);
        let call = ToolCall {
            tool: "Bash".into(),
            args: json!({"command": "touch ran"}),
        };
        let result = ToolRegistry::builtin().run(&call, &ctx).await;
        assert_eq!(result.error.map(|e| e.code), Some(ErrorCode::Interrupted));
        assert!(!ctx.root().join("ran").exists());
    }
}
