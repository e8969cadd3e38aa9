//! The tools a wright agent can call, behind one trait and a registry (DESIGN §2, §5).
//!
//! The model calls a tool by writing `Action: Read[{"file_path": "src/main.rs"}]`; the core parses
//! that into a [`wright_protocol::ToolCall`] and hands it to [`ToolRegistry::run`], which finds the
//! [`Tool`], runs it inside a [`ToolContext`] (project root, Ctrl-C token, mtime record) and
//! returns a [`wright_protocol::ToolResult`]. Every failure the model can recover from (bad
//! arguments, missing file, timeout, …) is an error *result*, never a Rust error or a panic.
//!
//! It also shapes what history keeps of a result: [`compress`] gives its history form (spec A3,
//! C1) and [`todo_recap`] the todo recap that closes each request; it stores no history itself.
//!
//! This crate knows nothing about models, prompts beyond its own tool descriptions, or history.
//!
//! A call is prepared once ([`ToolRegistry::prepare`]): the tool is found and the checks that
//! refuse it whoever approves (protected files, the dangerous-command checker) run. The
//! [`PreparedCall`] then gives its [`ToolKind`], any [`Concern`] that only the user may waive,
//! what it would do ([`PreparedCall::preview`]: Bash's command, a file change's unified diff)
//! for the user to approve, and finally runs ([`PreparedCall::run`]).
//!
//! Adding a tool = one file implementing [`Tool`] + one line in [`ToolRegistry::builtin`].

mod args;
mod atomic;
mod background;
mod bash;
mod closest;
mod compress;
mod context;
pub mod data;
mod definitions;
mod diff;
mod edit;
#[doc(hidden)]
pub mod fuzzing;
mod glob;
mod grep;
mod guard;
mod ls;
mod matching;
mod multi_edit;
mod process_group;
pub mod project_file;
mod protect;
mod read;
mod registry;
mod repomap;
mod sandbox;
pub mod secrets;
mod settings;
mod text_file;
mod todo_write;
mod walk;
mod write;

use futures::future::BoxFuture;
use serde_json::Value;
use wright_protocol::{ActionKind, ErrorCode, ToolError, ToolResult};

pub use args::{invalid, kind as json_kind, parse_args, schema_of};
pub use background::tools::{BashOutputTool, KillBashTool};
pub use background::{JobInfo, Jobs, job_reminder};
pub use bash::{BashTool, CommandRun, PROVIDER_KEY_VARIABLES, run_confined_command};
pub use compress::{
    CompressionLevel, READ_MAX_LINES, cap_read_content, compress, compress_to_string,
    compress_to_string_with, compress_with,
};
pub use context::{Freshness, ToolContext};
pub use definitions::{DefinitionEntry, DefinitionsData, DefinitionsTool, Skipped};
pub use edit::EditTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use ls::LsTool;
pub use multi_edit::MultiEditTool;
pub use process_group::{
    ProcessGroup, STOP_GRACE, kill_running_commands, spawn as spawn_in_group, stop_running_commands,
};
pub use protect::ProtectedPath;
pub use read::ReadTool;
pub use registry::{PreparedCall, ToolRegistry};
pub use repomap::{MapDefinition, MapFile, RepoMapData, RepoMapTool, warm_code_index};
pub use sandbox::{SandboxPolicy, SandboxStatus};
pub use settings::ToolSettings;
pub use todo_write::{TodoWriteTool, todo_recap};
pub use wright_checker::CommandPolicy;
pub use write::WriteTool;

/// One tool the model can call.
///
/// Adding a tool = one file implementing this + one line in [`ToolRegistry::builtin`].
pub trait Tool: Send + Sync {
    /// The name the model writes after `Action:`, e.g. `Read`, `Bash`.
    fn name(&self) -> &str;

    /// What the tool does to the world: reads, edits files, or runs commands.
    fn kind(&self) -> ToolKind;

    /// The tool's prompt text (purpose, parameters, rules, one example), shown in the system
    /// prompt under `## <name>`; from `prompts/tools/`.
    fn description(&self) -> &str;

    /// The JSON Schema of the tool's arguments (an object schema, subschemas inline), as
    /// function-calling providers and MCP clients take it.
    fn schema(&self) -> Value;

    /// For a tool from outside wright (an MCP server's): one line saying what it does, which
    /// L1 gives instead of the full description once such tools pass a budget
    /// ([`ToolRegistry::descriptions`]). `None` (the built-ins): always described in full.
    fn summary(&self) -> Option<&str> {
        None
    }

    /// Whether a call changes nothing outside the agent, so that it may run where nothing may
    /// be changed (plan mode, read-only sub-agents).
    fn read_only(&self) -> bool {
        self.kind().is_read_only()
    }

    /// Whether the tool may be used where nothing may be changed (plan mode, read-only
    /// agents): the tools that change nothing, and those that keep to that there on their own
    /// (Bash runs only commands judged read-only, in a sandbox that lets them write nothing;
    /// KillBash only stops a background command).
    fn usable_read_only(&self) -> bool {
        self.read_only()
    }

    /// Whether calls may run at the same time as other such calls (several read-only calls
    /// in one reply).
    fn concurrency_safe(&self) -> bool {
        self.read_only()
    }

    /// The arguments as the stored action in history keeps them, when not as written: a
    /// tool whose arguments restate what each request already carries replaces them with a
    /// short note (TodoWrite: the todo recap closes every request, spec A3). `None` keeps them;
    /// the long content of file edits is trimmed by the core (DESIGN §9.2).
    fn history_args(&self, _args: &Value) -> Option<Value> {
        None
    }

    /// Reads the model's JSON arguments into the tool's own type and runs the checks that
    /// refuse a call whoever approves it, once per call. `Err` is the observation of a call
    /// that will not run (bad arguments: code `invalid_arguments`; the dangerous-command
    /// checker: `refused`); this never panics on model input.
    fn prepare(&self, args: Value, ctx: &ToolContext) -> Result<Box<dyn Prepared>, ToolError>;
}

/// Whether `tool` may be used where nothing may be changed (plan mode, read-only agents), as
/// [`Tool::usable_read_only`] says: the one test both the offered tools and the registry's
/// refusal use.
pub fn usable_read_only(tool: &dyn Tool) -> bool {
    tool.usable_read_only()
}

/// One call of a tool, its arguments read and checked: what [`Tool::prepare`] gives.
pub trait Prepared: Send + Sync {
    /// What this call does to the world when it differs from its tool's [`Tool::kind`]: a
    /// Bash command judged read-only in a read-only context is a read; a Task call reads
    /// when all its agents are read-only and runs commands when one can write. `None` (the
    /// default): the tool's kind.
    fn kind(&self) -> Option<ToolKind> {
        None
    }

    /// Why only the user may let this call run (the checker's `ask` verdict), if anything.
    fn concern(&self) -> Option<&Concern> {
        None
    }

    /// The file this call writes, as the model named it (relative to the project root or
    /// absolute), if it writes one: [`ToolRegistry::prepare`] refuses wright's own settings
    /// file here.
    fn writes(&self) -> Option<&str> {
        None
    }

    /// What [`run`](Prepared::run) would do, shown to the user before it is allowed to run:
    /// the command for Bash, the unified diff for a file change. A dry run: nothing is written
    /// and nothing is executed. A file change keeps what it worked out, so that what runs is
    /// exactly what was shown.
    ///
    /// `None` when the tool has nothing to preview (the default), or when the dry run fails
    /// (no match, …): the call would fail the same way, and its own error is what the model
    /// should see.
    fn preview<'a>(&'a mut self, ctx: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
        let _ = ctx;
        Box::pin(std::future::ready(None))
    }

    /// Runs the call. Failures come back as error results (code `not_found`, …) for the
    /// model to read.
    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult>;
}

/// What a tool does to the world, which decides whether a call is asked about and which
/// calls may run side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// Changes nothing outside the agent (Read, LS, Glob, Grep; TodoWrite changes only the
    /// agent's own list).
    Read,
    /// Writes files (Write, Edit, MultiEdit): asked about as a file change.
    Edit,
    /// Runs commands (Bash): asked about as a command.
    Execute,
    /// A tool from outside wright (an MCP server's) that does not say it only reads: asked
    /// about one tool at a time.
    External,
}

impl ToolKind {
    /// The kind of action approvals ask about, `None` for a call that never needs approval.
    pub fn action(self) -> Option<ActionKind> {
        match self {
            ToolKind::Read => None,
            ToolKind::Edit => Some(ActionKind::FileChange),
            ToolKind::Execute => Some(ActionKind::Command),
            ToolKind::External => Some(ActionKind::External),
        }
    }

    /// Whether calls of this kind change nothing and so may run side by side.
    pub fn is_read_only(self) -> bool {
        self == ToolKind::Read
    }
}

/// Why a call may run only if the user says so (the checker's `ask` verdict): asked about even
/// when the approval mode would let its kind run, and refused where no one is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Concern {
    /// The rule that flagged it, e.g. `recursive-delete`.
    pub rule: String,
    /// What the call would do, for the user.
    pub reason: String,
    /// The observation when it is refused because no one may allow it.
    pub refusal: String,
}

/// A failure the model sees: a stable code and a message saying what to do.
pub(crate) fn failure(code: ErrorCode, message: impl Into<String>) -> ToolError {
    ToolError {
        code,
        message: message.into(),
    }
}

/// The error result for a tool's failure.
pub(crate) fn error_result(error: ToolError) -> ToolResult {
    ToolResult::error(error.code, error.message)
}
