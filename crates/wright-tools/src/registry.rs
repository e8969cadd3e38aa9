//! The set of tools the model may call, and the one place a call is run.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult};

use crate::secrets::SecretMasker;
use crate::{
    BashTool, EditTool, GlobTool, GrepTool, LsTool, MultiEditTool, ReadTool, TodoWriteTool, Tool,
    ToolContext, WriteTool, failure,
};

/// Files the model may not change, relative to the project root: wright's own settings, where
/// an `allow` rule or a hook would let the model widen what it may do (issue 6).
pub const PROTECTED_FILES: &[&str] = &[".wright/config.toml"];

/// The tools that write the file named by their `file_path` argument.
const FILE_WRITERS: &[&str] = &["Write", "Edit", "MultiEdit"];

/// How long a cancelled tool may take to report its own `interrupted` result (Bash includes the
/// output so far) before the registry answers with a plain one.
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// The tools, by name, in registration order (which is also their order in the system prompt).
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Box<dyn Tool>>,
    /// Applied to every result before anyone sees it.
    masker: SecretMasker,
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

    /// Masks credentials in results with `masker` instead of the builtin patterns alone.
    pub fn with_secrets(mut self, masker: SecretMasker) -> Self {
        self.masker = masker;
        self
    }

    /// What masks credentials in results (and what the caller should mask its own output
    /// with, e.g. a hook's stderr).
    pub fn masker(&self) -> &SecretMasker {
        &self.masker
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
        let mut result = match (self.get(&call.tool), self.check(call, ctx)) {
            (_, Some(refusal)) => refusal,
            (None, None) => ToolResult::error(
                ErrorCode::UnknownTool,
                format!(
                    "there is no tool named `{}`; the tools are: {}",
                    call.tool,
                    self.names().join(", ")
                ),
            ),
            (Some(tool), None) => run_cancellable(tool, call.args.clone(), ctx).await,
        };
        self.masker.mask_result(&mut result);
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

    /// The refusal of a call that must not run whoever approves it, `None` for any other:
    /// the tool's own [`Tool::check`] (the dangerous-command checker), and writes to
    /// [`PROTECTED_FILES`]. Callers ask this before asking the user; [`run`](Self::run) asks
    /// it again.
    pub fn check(&self, call: &ToolCall, ctx: &ToolContext) -> Option<ToolResult> {
        let refusal = protected_target(call, ctx).or_else(|| {
            self.get(&call.tool)
                .and_then(|tool| tool.check(&call.args, ctx).err())
        })?;
        let mut result = ToolResult::error(refusal.code, refusal.message);
        result.context = call.args.clone();
        Some(result)
    }

    /// What `call` would do, without doing it (see [`Tool::preview`]): the command for Bash,
    /// the unified diff a Write, Edit or MultiEdit would make. `None` for an unknown tool, a
    /// tool with nothing to preview, or a dry run that fails.
    pub async fn preview(&self, call: &ToolCall, ctx: &ToolContext) -> Option<String> {
        self.get(&call.tool)?.preview(&call.args, ctx).await
    }
}

/// The refusal of a file change aimed at one of the [`PROTECTED_FILES`], wherever the path
/// leads (`./.wright/../.wright/config.toml`, an absolute path, a symlinked directory): both
/// sides are resolved as the tools resolve paths ([`ToolContext::resolve`]). A path that does
/// not resolve is left to the tool, which refuses it with its own error.
fn protected_target(call: &ToolCall, ctx: &ToolContext) -> Option<wright_protocol::ToolError> {
    if !FILE_WRITERS.contains(&call.tool.as_str()) {
        return None;
    }
    let target = ctx.resolve(call.args.get("file_path")?.as_str()?).ok()?;
    PROTECTED_FILES
        .iter()
        .find(|protected| ctx.resolve(protected).is_ok_and(|path| path == target))
        .map(|protected| {
            failure(
                ErrorCode::Protected,
                format!(
                    "{protected} holds wright's own settings (allow rules, hooks), which the \
                     model may not change. Tell the user what to change there and why; they \
                     can edit it themselves."
                ),
            )
        })
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
    async fn the_settings_file_cannot_be_written_by_any_path_to_it() {
        let (dir, ctx) = ctx();
        std::fs::create_dir(dir.path().join(".wright")).unwrap();
        std::fs::write(dir.path().join(".wright/config.toml"), "model = \"m\"\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join(".wright"), dir.path().join("alias")).unwrap();
        let absolute = dir.path().join(".wright/config.toml");
        let registry = ToolRegistry::builtin();
        for (tool, path) in [
            ("Write", ".wright/config.toml"),
            ("Write", "./src/../.wright/config.toml"),
            ("Write", absolute.to_str().unwrap()),
            ("Edit", "alias/config.toml"),
            ("MultiEdit", ".wright//config.toml"),
        ] {
            let call = ToolCall {
                tool: tool.into(),
                args: json!({
                    "file_path": path,
                    "content": "[bash]\nallow = [\"*\"]\n",
                    "old_string": "model",
                    "new_string": "x",
                    "edits": [{"old_string": "model", "new_string": "x"}],
                }),
            };
            assert!(registry.check(&call, &ctx).is_some(), "{tool} {path}");
            let result = registry.run(&call, &ctx).await;
            let error = result.error.unwrap();
            assert_eq!(error.code, ErrorCode::Protected, "{tool} {path}");
            assert!(
                error.message.contains("edit it themselves"),
                "{}",
                error.message
            );
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".wright/config.toml")).unwrap(),
            "model = \"m\"\n"
        );
        // Reading it, and writing its neighbours, are fine.
        let read = ToolCall {
            tool: "Read".into(),
            args: json!({"file_path": ".wright/config.toml"}),
        };
        assert!(registry.check(&read, &ctx).is_none());
        let neighbour = ToolCall {
            tool: "Write".into(),
            args: json!({"file_path": ".wright/notes.md", "content": "x"}),
        };
        assert_eq!(registry.run(&neighbour, &ctx).await.error, None);
    }

    #[tokio::test]
    async fn a_refused_command_is_refused_by_check_before_it_would_run() {
        let (_dir, ctx) = ctx();
        let call = ToolCall {
            tool: "Bash".into(),
            args: json!({"command": "sudo true"}),
        };
        let refusal = ToolRegistry::builtin().check(&call, &ctx).unwrap();
        assert_eq!(refusal.error.unwrap().code, ErrorCode::Refused);
        let fine = ToolCall {
            tool: "Bash".into(),
            args: json!({"command": "cargo test | tail"}),
        };
        assert!(ToolRegistry::builtin().check(&fine, &ctx).is_none());
    }

    #[tokio::test]
    async fn results_are_masked_before_anyone_sees_them() {
        let (_dir, ctx) = ctx();
        let call = ToolCall {
            tool: "Bash".into(),
            args: json!({"command": "echo key=sk-proj-Abc123def456ghi789jkl012mno; echo 'opaque-value-42'"}),
        };
        let masker = SecretMasker::new(&crate::secrets::SecretPolicy {
            literals: vec!["opaque-value-42".into()],
            ..Default::default()
        })
        .unwrap();
        let result = ToolRegistry::builtin()
            .with_secrets(masker)
            .run(&call, &ctx)
            .await;
        // The call's own arguments (`context`) are the model's words, not output.
        let shown = format!("{}{}", result.text, result.data);
        assert!(!shown.contains("sk-proj-Abc123"), "{shown}");
        assert!(!shown.contains("opaque-value-42"), "{shown}");
        assert!(
            result.text.contains("key=[REDACTED openai key]"),
            "{}",
            result.text
        );
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
