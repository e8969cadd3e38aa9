//! The set of tools the model may call, and the one place a call is run.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolDefinition, ToolResult};

use crate::secrets::SecretMasker;
use crate::{
    BashOutputTool, BashTool, Concern, DefinitionsTool, EditTool, GlobTool, GrepTool, KillBashTool,
    LsTool, MultiEditTool, Prepared, ReadTool, RepoMapTool, TodoWriteTool, Tool, ToolContext,
    ToolKind, WriteTool, failure,
};

/// How long a cancelled tool may take to report its own `interrupted` result (Bash includes the
/// output so far) before the registry answers with a plain one.
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// Tools from outside described in full in L1, at most (issue 15: "many tools, small context").
pub const FULL_EXTERNAL_TOOLS: usize = 40;
/// Characters of full descriptions of tools from outside in L1, at most (~4k tokens).
pub const FULL_EXTERNAL_CHARS: usize = 12_000;
/// The longest one-line summary of a tool beyond the budget.
const SUMMARY_CHARS: usize = 100;
/// What L1 says once before the tools it describes in short.
const BRIEF_NOTE: &str = "(The tools below are described in one line each. Call one with the \
                          arguments you expect; if they are wrong, the observation gives its \
                          parameters.)\n\n";

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

    /// The built-in tools: Read, Write, Edit, MultiEdit, LS, Glob, Grep, Definitions, RepoMap,
    /// TodoWrite, Bash, BashOutput, KillBash.
    pub fn builtin() -> Self {
        let mut registry = Self::new();
        registry.register(Box::new(ReadTool));
        registry.register(Box::new(WriteTool));
        registry.register(Box::new(EditTool));
        registry.register(Box::new(MultiEditTool));
        registry.register(Box::new(LsTool));
        registry.register(Box::new(GlobTool));
        registry.register(Box::new(GrepTool));
        registry.register(Box::new(DefinitionsTool));
        registry.register(Box::new(RepoMapTool));
        registry.register(Box::new(TodoWriteTool));
        registry.register(Box::new(BashTool));
        registry.register(Box::new(BashOutputTool));
        registry.register(Box::new(KillBashTool));
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

    /// Keeps only the tools `keep` says yes to, in their order (a sub-agent's tool list, plan
    /// mode's read-only tools).
    pub fn retain(&mut self, mut keep: impl FnMut(&dyn Tool) -> bool) {
        self.tools.retain(|tool| keep(tool.as_ref()));
    }

    /// The tool called exactly `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
    }

    /// The tool names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// All descriptions for the system prompt, in registration order: each as
    /// `## <Name>\n<description>`, separated by blank lines.
    pub fn descriptions(&self) -> String {
        self.descriptions_where(|_| true)
    }

    /// [`descriptions`](Self::descriptions) of the tools `offered` says yes to (plan mode
    /// describes only the tools that change nothing, and Bash).
    ///
    /// Tools from outside (those with a [`Tool::summary`], MCP servers' tools) are described in
    /// full while they fit a budget ([`FULL_EXTERNAL_TOOLS`] tools, [`FULL_EXTERNAL_CHARS`]
    /// characters); the rest by name and their one-line summary: a call with wrong arguments
    /// gets their schema back, a call with right ones just works. Built-in tools are always
    /// described in full. The same tools give the same text every time (L1 stays stable).
    pub fn descriptions_where(&self, mut offered: impl FnMut(&dyn Tool) -> bool) -> String {
        let (mut full_tools, mut full_chars, mut told) = (0, 0, false);
        self.tools
            .iter()
            .filter(|t| offered(t.as_ref()))
            .map(|t| {
                let description = t.description().trim();
                let Some(summary) = t.summary() else {
                    return format!("## {}\n{description}", t.name());
                };
                let fits = full_tools < FULL_EXTERNAL_TOOLS
                    && full_chars + description.len() <= FULL_EXTERNAL_CHARS;
                if fits {
                    full_tools += 1;
                    full_chars += description.len();
                    format!("## {}\n{description}", t.name())
                } else {
                    let summary = wright_protocol::text::clip(summary.trim(), SUMMARY_CHARS);
                    // Said once, before the first tool described in short.
                    let note = match std::mem::replace(&mut told, true) {
                        false => BRIEF_NOTE,
                        true => "",
                    };
                    format!("{note}## {}\n{summary}", t.name())
                }
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// The tools `offered` says yes to as native tool definitions (issue 19), in registration
    /// order: each tool's name, its whole description and its argument schema. Unlike
    /// [`descriptions_where`](Self::descriptions_where) nothing is shortened: the provider
    /// needs every schema to let the model call the tool.
    pub fn definitions_where(
        &self,
        mut offered: impl FnMut(&dyn Tool) -> bool,
    ) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .filter(|t| offered(t.as_ref()))
            .map(|t| ToolDefinition {
                name: t.name().to_string(),
                description: t.description().trim().to_string(),
                parameters: t.schema(),
            })
            .collect()
    }

    /// Finds the tool for `call` and runs, once, the checks that refuse a call whoever
    /// approves it: in a read-only context ([`ToolContext::is_read_only`]) any tool that edits
    /// files, then the tool's own [`Tool::prepare`] (for Bash the dangerous-command checker,
    /// and in a read-only context the read-only judgement) and writes to the protected paths
    /// ([`ToolContext::protected_paths`]). `Err` is the finished result of a call that will
    /// not run: an unknown tool (naming the valid ones) or a refusal.
    pub fn prepare<'a>(
        &'a self,
        call: &'a ToolCall,
        ctx: &ToolContext,
    ) -> Result<PreparedCall<'a>, Box<ToolResult>> {
        let refused = |error: wright_protocol::ToolError| {
            Box::new(self.finish(call, crate::error_result(error), Instant::now()))
        };
        let Some(tool) = self.get(&call.tool) else {
            return Err(refused(failure(
                ErrorCode::UnknownTool,
                format!(
                    "there is no tool named `{}`; the tools are: {}",
                    call.tool,
                    self.names().join(", ")
                ),
            )));
        };
        if ctx.is_read_only() && !crate::usable_read_only(tool) {
            return Err(refused(failure(
                ErrorCode::Refused,
                format!(
                    "{} is not available in read-only mode (plan mode or a read-only agent): it \
                     changes things. Propose the change in your answer instead.",
                    call.tool
                ),
            )));
        }
        let prepared = tool.prepare(call.args.clone(), ctx).map_err(refused)?;
        if let Some(refusal) = prepared
            .writes()
            .and_then(|path| protected_target(path, ctx))
        {
            return Err(refused(refusal));
        }
        Ok(PreparedCall {
            registry: self,
            tool,
            call,
            prepared,
        })
    }

    /// Prepares and runs one call where no one can be asked: a call with a [`Concern`] is
    /// refused (see [`PreparedCall::run`] for the rest).
    pub async fn run(&self, call: &ToolCall, ctx: &ToolContext) -> ToolResult {
        match self.prepare(call, ctx) {
            Err(result) => *result,
            Ok(prepared) if prepared.concern().is_some() => prepared.refuse(),
            Ok(prepared) => prepared.run(ctx).await,
        }
    }

    /// The finished result: credentials masked, `stats.duration_ms` since `started`, the
    /// call's arguments as `context`.
    fn finish(&self, call: &ToolCall, mut result: ToolResult, started: Instant) -> ToolResult {
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
}

/// A call whose tool is found and whose checks have passed: ready to be previewed, asked about
/// and run, without reading or checking it again.
pub struct PreparedCall<'a> {
    registry: &'a ToolRegistry,
    tool: &'a dyn Tool,
    call: &'a ToolCall,
    prepared: Box<dyn Prepared>,
}

impl std::fmt::Debug for PreparedCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedCall")
            .field("call", self.call)
            .field("concern", &self.concern())
            .finish()
    }
}

impl PreparedCall<'_> {
    /// The call as the model made it.
    pub fn call(&self) -> &ToolCall {
        self.call
    }

    /// What the call does: reads, edits files, or runs commands — its tool's kind, unless the
    /// call says otherwise ([`Prepared::kind`]).
    pub fn kind(&self) -> ToolKind {
        self.prepared.kind().unwrap_or_else(|| self.tool.kind())
    }

    /// Why only the user may let this call run, if a check says so.
    pub fn concern(&self) -> Option<&Concern> {
        self.prepared.concern()
    }

    /// The file the call writes, as the model named it, if it writes one.
    pub fn writes(&self) -> Option<&str> {
        self.prepared.writes()
    }

    /// What the call would do, without doing it (see [`Prepared::preview`]): the command for
    /// Bash, the unified diff a Write, Edit or MultiEdit would make. `None` for a tool with
    /// nothing to preview, or a dry run that fails.
    pub async fn preview(&mut self, ctx: &ToolContext) -> Option<String> {
        self.prepared.preview(ctx).await
    }

    /// Runs the call — a [`Concern`] is taken as waived by whoever decided to run it —
    /// racing the context's cancellation token: once it is cancelled the tool has
    /// [`CANCEL_GRACE`] to return its own `interrupted` result, then it is dropped and the call
    /// ends `interrupted`. The result is masked, `stats` gets `{"duration_ms": N}` and
    /// `context` the arguments.
    pub async fn run(self, ctx: &ToolContext) -> ToolResult {
        let started = Instant::now();
        let result = run_cancellable(self.tool.name(), self.prepared, ctx).await;
        self.registry.finish(self.call, result, started)
    }

    /// The call refused because of its [`Concern`], where no one may waive it.
    pub fn refuse(self) -> ToolResult {
        let message = self
            .concern()
            .map_or_else(String::new, |concern| concern.refusal.clone());
        let result = ToolResult::error(ErrorCode::Refused, message);
        self.registry.finish(self.call, result, Instant::now())
    }
}

/// The refusal of a file change aimed at a protected path or into a protected directory
/// (issue 12), wherever the path leads (`./.wright/../.wright/config.toml`, an absolute path, a
/// symlinked directory): the target is resolved as the tools resolve paths
/// ([`ToolContext::resolve`]). A path that does not resolve is left to the tool, which refuses
/// it with its own error.
fn protected_target(path: &str, ctx: &ToolContext) -> Option<wright_protocol::ToolError> {
    let target = ctx.resolve(path).ok()?;
    let protected = ctx.protection_of(&target)?;
    Some(failure(
        ErrorCode::Protected,
        format!(
            "{} is protected: {} holds {}, which the model may not change. Tell the user what \
             to change there and why; they can edit it themselves.",
            ctx.display_path(&target),
            ctx.display_path(&protected.path),
            protected.why
        ),
    ))
}

/// Runs `tool`, racing the cancellation token (see [`ToolRegistry::run`]).
async fn run_cancellable(name: &str, call: Box<dyn Prepared>, ctx: &ToolContext) -> ToolResult {
    let interrupted = || {
        ToolResult::error(
            ErrorCode::Interrupted,
            format!("{name} was interrupted by the user before it finished"),
        )
    };
    let cancel = ctx.cancellation();
    if cancel.is_cancelled() {
        return interrupted();
    }
    let run = call.run(ctx);
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
    use crate::ProtectedPath;
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
        fn kind(&self) -> ToolKind {
            ToolKind::Read
        }
        fn schema(&self) -> Value {
            json!({"type": "object"})
        }
        fn description(&self) -> &'static str {
            "Never finishes.\n"
        }
        fn prepare(
            &self,
            _: Value,
            _: &ToolContext,
        ) -> Result<Box<dyn Prepared>, wright_protocol::ToolError> {
            Ok(Box::new(Stuck))
        }
    }

    impl Prepared for Stuck {
        fn run<'a>(self: Box<Self>, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
            futures::future::pending().boxed()
        }
    }

    fn ctx() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(dir.path()).unwrap();
        (dir, ctx)
    }

    /// A tool from outside with a description of `len` characters.
    struct External {
        name: String,
        description: String,
    }

    impl Tool for External {
        fn name(&self) -> &str {
            &self.name
        }
        fn kind(&self) -> ToolKind {
            ToolKind::Execute
        }
        fn schema(&self) -> Value {
            json!({"type": "object"})
        }
        fn description(&self) -> &str {
            &self.description
        }
        fn summary(&self) -> Option<&str> {
            self.description.lines().next()
        }
        fn prepare(
            &self,
            _: Value,
            _: &ToolContext,
        ) -> Result<Box<dyn Prepared>, wright_protocol::ToolError> {
            Ok(Box::new(Stuck))
        }
    }

    /// The builtins and `count` outside tools, each with a one-line purpose and a schema of
    /// about 400 characters, as MCP servers describe theirs.
    fn with_external(count: usize) -> ToolRegistry {
        let mut registry = ToolRegistry::builtin();
        let schema = json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "The file or directory to work on"},
            "recursive": {"type": "boolean", "description": "Whether to go into subdirectories"},
            "limit": {"type": "integer", "description": "How many entries to return at most"},
            "pattern": {"type": "string", "description": "A glob the names must match"}},
            "required": ["path"]});
        for i in 0..count {
            registry.register(Box::new(External {
                name: format!("mcp__server__tool_{i:03}"),
                description: format!(
                    "Lists the entries of directory number {i} with their sizes.\nInput schema: {schema}"
                ),
            }));
        }
        registry
    }

    #[test]
    fn many_outside_tools_add_little_to_l1_and_always_the_same() {
        let base = ToolRegistry::builtin().descriptions().len();
        let tokens = |count: usize| (with_external(count).descriptions().len() - base) / 3;
        let (twenty, many) = (tokens(20), tokens(150));
        // Twenty are described in full; 150 stay within the ~8k tokens the issue allows.
        assert!(
            with_external(20)
                .descriptions()
                .matches("Input schema")
                .count()
                == 20
        );
        assert!(
            many <= 8_000,
            "150 tools add {many} tokens (20 add {twenty})"
        );
        let text = with_external(150).descriptions();
        assert_eq!(text.matches(BRIEF_NOTE.trim()).count(), 1);
        assert!(
            text.contains("## mcp__server__tool_149\nLists the entries of directory number 149")
        );
        assert_eq!(text, with_external(150).descriptions(), "stable");
        // The built-ins are always whole.
        assert!(text.starts_with(&ToolRegistry::builtin().descriptions()));
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
                "Definitions",
                "RepoMap",
                "TodoWrite",
                "Bash",
                "BashOutput",
                "KillBash"
            ]
        );
    }

    /// The argument names a schema declares, and those it requires, sorted.
    fn schema_fields(schema: &Value) -> (Vec<String>, Vec<String>) {
        let mut properties: Vec<String> = schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let mut required: Vec<String> = schema["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        properties.sort();
        required.sort();
        (properties, required)
    }

    #[test]
    fn every_tool_declares_its_arguments_as_an_inline_object_schema() {
        let registry = ToolRegistry::builtin();
        let fields = |name: &str| {
            let schema = registry.get(name).unwrap().schema();
            assert_eq!(schema["type"], "object", "{name}: {schema}");
            let text = schema.to_string();
            assert!(
                !text.contains("$ref") && !text.contains("$defs"),
                "{name}: {text}"
            );
            schema_fields(&schema)
        };
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            fields("Read"),
            (
                names(&["file_path", "limit", "offset"]),
                names(&["file_path"])
            )
        );
        assert_eq!(
            fields("Edit"),
            (
                names(&["file_path", "new_string", "old_string", "replace_all"]),
                names(&["file_path", "new_string", "old_string"])
            )
        );
        assert_eq!(
            fields("Bash"),
            (
                names(&["command", "description", "run_in_background", "timeout_ms"]),
                names(&["command"])
            )
        );
        assert_eq!(
            fields("BashOutput"),
            (names(&["filter", "id"]), names(&["id"]))
        );
        assert_eq!(fields("KillBash"), (names(&["id"]), names(&["id"])));
        assert_eq!(
            fields("MultiEdit"),
            (
                names(&["edits", "file_path"]),
                names(&["edits", "file_path"])
            )
        );
        let grep = fields("Grep");
        assert!(grep.0.contains(&"-i".to_string()) && grep.0.contains(&"type".to_string()));
        assert_eq!(grep.1, names(&["pattern"]));
        let todo = registry.get("TodoWrite").unwrap().schema();
        let status = todo["properties"]["todos"]["items"]["properties"]["status"].to_string();
        for value in ["\"pending\"", "\"in_progress\"", "\"completed\""] {
            assert!(status.contains(value), "{status}");
        }
        for name in registry.names() {
            fields(name);
        }
    }

    #[test]
    fn only_tools_that_change_nothing_are_read_only_and_todo_write_runs_alone() {
        let registry = ToolRegistry::builtin();
        let flags: Vec<(&str, bool, bool)> = registry
            .names()
            .into_iter()
            .map(|name| {
                let tool = registry.get(name).unwrap();
                (name, tool.read_only(), tool.concurrency_safe())
            })
            .collect();
        assert_eq!(
            flags,
            vec![
                ("Read", true, true),
                ("Write", false, false),
                ("Edit", false, false),
                ("MultiEdit", false, false),
                ("LS", true, true),
                ("Glob", true, true),
                ("Grep", true, true),
                ("Definitions", true, true),
                ("RepoMap", true, true),
                ("TodoWrite", true, false),
                ("Bash", false, false),
                ("BashOutput", true, true),
                ("KillBash", false, false),
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
             Definitions, RepoMap, TodoWrite, Bash, BashOutput, KillBash"
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
            // Issue 12: all of `.wright/`, not only the settings file.
            ("Write", ".wright/hooks/vet.sh"),
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
            assert!(registry.prepare(&call, &ctx).is_err(), "{tool} {path}");
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
        assert!(!dir.path().join(".wright/hooks").exists());
        // Reading it, and writing beside the directory, are fine.
        let read = ToolCall {
            tool: "Read".into(),
            args: json!({"file_path": ".wright/config.toml"}),
        };
        assert!(registry.prepare(&read, &ctx).is_ok());
        let neighbour = ToolCall {
            tool: "Write".into(),
            args: json!({"file_path": ".wrightrc", "content": "x"}),
        };
        assert_eq!(registry.run(&neighbour, &ctx).await.error, None);
    }

    #[tokio::test]
    async fn git_settings_and_hooks_and_the_front_ends_paths_cannot_be_written() {
        let (dir, ctx) = ctx();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::create_dir(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/vet.sh"), "exit 0\n").unwrap();
        let hook =
            ProtectedPath::existing(&root.join("scripts/vet.sh"), "a hook's script").unwrap();
        let ctx = ctx.with_protected(vec![hook]);
        let registry = ToolRegistry::builtin();
        for path in [
            ".git/config",
            ".git/hooks/pre-commit",
            "./.git/hooks/../config",
            "scripts/vet.sh",
        ] {
            let call = ToolCall {
                tool: "Write".into(),
                args: json!({"file_path": path, "content": "[core]\nfsmonitor = evil\n"}),
            };
            let result = registry.run(&call, &ctx).await;
            let error = result.error.unwrap();
            assert_eq!(error.code, ErrorCode::Protected, "{path}");
            assert!(error.message.contains("is protected"), "{}", error.message);
        }
        assert_eq!(
            std::fs::read_to_string(root.join(".git/config")).unwrap(),
            "[core]\n"
        );
        assert!(!root.join(".git/hooks/pre-commit").exists());
        assert_eq!(
            std::fs::read_to_string(root.join("scripts/vet.sh")).unwrap(),
            "exit 0\n"
        );
        // The rest of `.git` is git's to write, and the agent's through git.
        let head = ToolCall {
            tool: "Write".into(),
            args: json!({"file_path": ".git/description", "content": "x"}),
        };
        assert_eq!(registry.run(&head, &ctx).await.error, None);
    }

    #[tokio::test]
    async fn a_refused_command_is_refused_when_prepared_and_an_asked_one_carries_its_concern() {
        let (_dir, ctx) = ctx();
        let call = ToolCall {
            tool: "Bash".into(),
            args: json!({"command": "rm -rf ~"}),
        };
        let registry = ToolRegistry::builtin();
        let refusal = registry.prepare(&call, &ctx).unwrap_err();
        assert_eq!(refusal.error.unwrap().code, ErrorCode::Refused);
        assert_eq!(refusal.context, call.args);

        let asked = ToolCall {
            tool: "Bash".into(),
            args: json!({"command": "sudo touch ran"}),
        };
        let prepared = registry.prepare(&asked, &ctx).unwrap();
        let concern = prepared.concern().unwrap();
        assert_eq!(concern.rule, "privilege");
        assert!(
            concern.refusal.contains("Only the user can allow it"),
            "{}",
            concern.refusal
        );
        // Where no one can be asked, the concern refuses the call.
        let result = registry.run(&asked, &ctx).await;
        assert_eq!(result.error.unwrap().code, ErrorCode::Refused);
        assert!(!ctx.root().join("ran").exists());

        let fine = ToolCall {
            tool: "Bash".into(),
            args: json!({"command": "cargo test | tail"}),
        };
        let prepared = registry.prepare(&fine, &ctx).unwrap();
        assert_eq!(prepared.kind(), ToolKind::Execute);
        assert_eq!(prepared.concern(), None);
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
