//! `wright`: a terminal coding agent. This binary parses the command line, loads settings, and
//! runs `exec` (one round, non-interactive) and `tool` (one tool call) on top of `wright-core`.

mod agents_cmd;
mod check_cmd;
mod checkpoints;
mod commit_cmd;
mod config;
mod context_cmd;
mod exit_signals;
mod init_cmd;
mod interactive;
mod mcp_cmd;
mod mcp_setup;
mod memory_cmd;
mod prompt;
mod render;
mod sec_cmd;
mod sec_verify;
mod session;
mod session_view;
mod sessions_cmd;
mod terminal;
mod undo_cmd;

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use tokio_util::sync::CancellationToken;
use wright_core::approval::ApprovalMode;
use wright_core::cost::session_cost;
use wright_core::session::{AgentBuilder, Session, Sessions};
use wright_core::{RoundOutcome, ToolProtocol};
use wright_llm::ProviderKind;
use wright_protocol::text::plural;
use wright_protocol::{Event, FailureCode, ToolCall, ToolStatus};
use wright_store::SessionStore;

use crate::config::Flags;
use crate::render::{HumanRenderer, JsonRenderer, Renderer};

/// Exit code: a usage or configuration error.
const EXIT_USAGE: u8 = 2;
/// Exit code: the round failed.
const EXIT_FAILED: u8 = 1;
/// Exit code of `exec`: the round ran, but the session could not be saved (all of it or
/// part), so a later `--session` round would not see it.
const EXIT_UNSAVED: u8 = 3;
/// Exit code: interrupted by Ctrl-C (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

const EXAMPLES: &str = "Examples:
  OPENAI_API_KEY=sk-... wright exec \"explain what src/main.rs does\"
  WRIGHT_BASE_URL=https://api.deepseek.com/v1 WRIGHT_API_KEY=sk-... WRIGHT_MODEL=deepseek-chat \\
      wright exec \"fix the failing test\"
  ANTHROPIC_API_KEY=sk-ant-... wright exec --json \"list the TODOs\" | jq .type
  wright -C ../other-project exec \"what does this project build?\"
  wright exec - < task.md          # the prompt from standard input
  wright exec --plan \"add a --retry flag\" > plan.md   # a plan; nothing changes
  wright tool Read '{\"file_path\": \"Cargo.toml\", \"limit\": 20}'";

const CHECK_EXAMPLES: &str = "Examples:
  wright check 'cargo test' 'rm -rf ~'
  wright check --json 'git push --force origin main' | jq .verdict
  wright check -- \"$(cat script.sh)\"";

/// A terminal coding agent: it reads, changes and runs code in your project until it can answer.
#[derive(Debug, Parser)]
#[command(name = "wright", version, after_help = EXAMPLES)]
struct Cli {
    /// Work in DIR instead of the current directory.
    #[arg(short = 'C', value_name = "DIR", global = true)]
    dir: Option<PathBuf>,
    /// Resume a session of this project by id (six or more characters of it will do) or name;
    /// without a value, the one with the most recent activity.
    #[arg(long, value_name = "ID|NAME", num_args = 0..=1, conflicts_with = "continue_latest")]
    resume: Option<Option<String>>,
    /// Continue this project's most recent session.
    #[arg(long = "continue")]
    continue_latest: bool,
    /// Which actions the interactive session runs without asking: `ask` (the default),
    /// `auto-edit` (file changes) or `auto` (everything). Default: `approval` in config.toml.
    #[arg(long, value_name = "MODE")]
    approval: Option<ApprovalMode>,
    /// Start the interactive session in plan mode: the agent only reads, then offers a plan to
    /// accept (Shift-Tab or /plan leave it).
    #[arg(long)]
    plan: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one round without asking anything, and print the answer.
    #[command(after_help = EXAMPLES)]
    Exec(ExecArgs),
    /// Run one tool in the project and print its observation; exit 1 when the tool fails.
    Tool(ToolArgs),
    /// Show what the next request would contain, layer by layer, with token estimates.
    Context(ContextArgs),
    /// List, show and remove stored sessions.
    Sessions(sessions_cmd::SessionsArgs),
    /// Judge shell commands as the Bash tool would (allow, ask or refuse), without running
    /// them, under this project's [bash] policy. Exit 0 when all are allowed, 1 otherwise.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(check_cmd::CheckArgs),
    /// Take back a session's last round (or rounds from N on): the files as they were before
    /// it, byte for byte, and the conversation without it. `--redo` takes the undo back.
    Undo(undo_cmd::UndoArgs),
    /// The unified diff of what a session (or one round) changed in the files, commands'
    /// changes included.
    Diff(undo_cmd::DiffArgs),
    /// Commit a session's uncommitted changes — only the files the agent changed — to the
    /// project's git repository, with a message a model call writes (`[git]` in config.toml).
    Commit(commit_cmd::CommitArgs),
    /// The agents the Task tool can run: built in, the user's (~/.config/wright/agents) and
    /// the project's (.wright/agents).
    Agents(agents_cmd::AgentsArgs),
    /// The Model Context Protocol servers whose tools the agent may use: list them, add one to
    /// your settings, remove one.
    Mcp(mcp_cmd::McpArgs),
    /// Security scanning of C, C++ and Rust code: `wright sec scan [PATH]` lists memory,
    /// buffer, error-handling, concurrency and API-misuse problems, or writes them as JSON,
    /// Markdown or SARIF.
    Sec(sec_cmd::SecArgs),
    /// The memory the agent keeps across sessions (the Memory tool): list, search and remove
    /// entries of this project's and your global memory.
    Memory(memory_cmd::MemoryArgs),
    /// Write the project's instructions for the agent: a first AGENTS.md (or CODE_LAW.md
    /// updated, when the project has one) with its build and test commands, layout and
    /// conventions, by an agent that only reads; shown as a diff, written after a yes.
    Init(init_cmd::InitArgs),
}

#[derive(Debug, Args)]
struct ContextArgs {
    /// The session to look at (default: the project's most recent).
    #[arg(long, value_name = "NAME")]
    session: Option<String>,
    /// Also print the whole request as the model would see it.
    #[arg(long)]
    full: bool,
}

#[derive(Debug, Args)]
struct ExecArgs {
    /// Print one JSON event per line on stdout instead of the answer.
    #[arg(long)]
    json: bool,
    /// The provider's wire format: `openai` (any OpenAI-compatible server) or `anthropic`.
    #[arg(long, value_name = "P")]
    provider: Option<String>,
    /// The model to use.
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// The provider's base URL, e.g. http://localhost:11434/v1.
    #[arg(long, value_name = "U")]
    base_url: Option<String>,
    /// How the model is offered the tools and calls them: `text` (in the reply, any model)
    /// or `native` (the provider's tool-call API). Default: `tool_protocol` in config.toml,
    /// else `text`.
    #[arg(long, value_name = "P")]
    tool_protocol: Option<ToolProtocol>,
    /// Continue the session NAME in this project, or start it (each exec is one round).
    #[arg(long, value_name = "NAME")]
    session: Option<String>,
    /// Which actions run without asking: `ask`, `auto-edit` (file changes) or `auto`
    /// (everything). exec has no one to ask, so actions the mode does not allow are denied.
    /// Default: `approval` in config.toml, else `auto`.
    #[arg(long, value_name = "MODE")]
    approval: Option<ApprovalMode>,
    /// Plan only: the agent may use only the tools that change nothing (Bash only for
    /// read-only commands), and its answer is a plan. Nothing in the project changes.
    #[arg(long)]
    plan: bool,
    /// Run as the agent NAME (`wright agents list`): its tools, model, step limit and
    /// instructions.
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Offer only these tools, e.g. `Read,Grep,Glob` (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    tools: Option<Vec<String>>,
    /// Append the text of FILE to the system prompt.
    #[arg(long, value_name = "FILE")]
    system_prompt_file: Option<PathBuf>,
    /// What you want done; `-` (or nothing, with a pipe on standard input) reads it from
    /// standard input, up to 1 MiB.
    #[arg(value_name = "PROMPT")]
    prompt: Option<String>,
}

#[derive(Debug, Args)]
struct ToolArgs {
    /// Print the whole tool result as JSON.
    #[arg(long)]
    json: bool,
    /// The tool, e.g. Read.
    name: String,
    /// Its arguments as one JSON object.
    #[arg(default_value = "{}")]
    args: String,
}

/// Makes wright's process non-dumpable (issue 12), so commands running as the same user
/// cannot read its memory or `/proc/PID/environ` (where the provider key it was started with
/// stays) nor attach to it with ptrace. Commands get the default again when they exec.
#[cfg(target_os = "linux")]
fn not_dumpable() {
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        eprintln!("wright: warning: cannot make wright's memory unreadable to its commands: {e}");
    }
}

#[cfg(not(target_os = "linux"))]
fn not_dumpable() {}

#[allow(unsafe_code)]
fn main() -> ExitCode {
    // SAFETY: nothing has started a thread yet (the runtime is built below).
    unsafe { config::take_provider_keys() };
    not_dumpable();
    let cli = Cli::parse();
    if cli.command.is_some() && (cli.resume.is_some() || cli.continue_latest) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--resume and --continue open the interactive session and take no subcommand; \
                 `wright exec --session NAME \"...\"` continues a named session",
            )
            .exit();
    }
    if cli.command.is_some() && cli.approval.is_some() {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--approval before a subcommand sets the interactive session's mode only; \
                 for exec put it after: `wright exec --approval MODE \"...\"`",
            )
            .exit();
    }
    if cli.command.is_some() && cli.plan {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--plan before a subcommand starts the interactive session in plan mode; \
                 for exec put it after: `wright exec --plan \"...\"`",
            )
            .exit();
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("wright: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let code = runtime.block_on(async {
        let root = match project_root(cli.dir.as_deref()) {
            Ok(root) => root,
            Err(message) => {
                eprintln!("wright: {message}");
                return EXIT_USAGE;
            }
        };
        match cli.command {
            Some(Command::Exec(args)) => exec(&root, args).await,
            Some(Command::Tool(args)) => tool(&root, args).await,
            Some(Command::Context(args)) => context(&root, &args),
            Some(Command::Sessions(args)) => sessions_cmd::run(&root, &args),
            Some(Command::Check(args)) => check_cmd::run(&root, &args),
            Some(Command::Undo(args)) => undo_cmd::undo(&root, &args),
            Some(Command::Diff(args)) => undo_cmd::diff(&root, &args),
            Some(Command::Commit(args)) => commit_cmd::commit(&root, &args).await,
            Some(Command::Agents(args)) => agents_cmd::run(&root, &args),
            Some(Command::Mcp(args)) => mcp_cmd::run(&root, &args).await,
            Some(Command::Sec(args)) => sec_cmd::run(&root, &args).await,
            Some(Command::Memory(args)) => memory_cmd::run(&root, &args),
            Some(Command::Init(args)) => init_cmd::run(&root, &args).await,
            None => {
                exit_signals::stop_commands_on_exit_signals();
                let args = interactive::InteractiveArgs {
                    resume: cli.resume,
                    continue_latest: cli.continue_latest,
                    approval: cli.approval,
                    plan: cli.plan,
                };
                interactive::run(&root, args).await
            }
        }
    });
    // Background commands (Bash `run_in_background`) end with wright: asked to stop
    // (SIGTERM), then killed if they have not within the grace; so would a round's command
    // still running (it cannot be, but nothing may outlive wright whatever the path out).
    wright_tools::stop_running_commands(wright_tools::STOP_GRACE);
    ExitCode::from(code)
}

/// The project root: `-C DIR` or the current directory, made absolute.
fn project_root(dir: Option<&Path>) -> Result<PathBuf, String> {
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?,
    };
    dir.canonicalize()
        .map_err(|e| format!("cannot use {} as the project directory: {e}", dir.display()))
}

/// Cancels `cancel` on the first Ctrl-C; a second Ctrl-C exits at once.
fn cancel_on_ctrl_c(cancel: CancellationToken) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                // Leaving without unwinding: nothing stops the running command but this.
                wright_tools::kill_running_commands();
                std::process::exit(i32::from(EXIT_INTERRUPTED));
            }
        }
    });
}

async fn exec(root: &Path, mut args: ExecArgs) -> u8 {
    let mut renderer: Box<dyn Renderer> = if args.json {
        Box::new(JsonRenderer::default())
    } else {
        Box::new(HumanRenderer::new())
    };
    let mut usage_error = |message: String| {
        if args.json {
            renderer.event(&Event::Error {
                code: FailureCode::Config,
                message: message.clone(),
            });
        }
        eprintln!("wright: {message}");
        EXIT_USAGE
    };
    let stdin = std::io::stdin();
    let is_terminal = stdin.is_terminal();
    let prompt = match prompt::exec_prompt(args.prompt.take(), stdin.lock(), is_terminal) {
        Ok(prompt) => prompt,
        Err(e) => return usage_error(e.to_string()),
    };
    let provider = match args.provider.as_deref().map(str::parse::<ProviderKind>) {
        None => None,
        Some(Ok(provider)) => Some(provider),
        Some(Err(_)) => {
            return usage_error(format!(
                "unknown provider {:?}: expected `openai` or `anthropic`",
                args.provider.unwrap_or_default()
            ));
        }
    };
    let model_flag = args.model.is_some();
    let flags = Flags {
        provider,
        model: args.model,
        base_url: args.base_url,
        tool_protocol: args.tool_protocol,
    };
    let mut settings = match config::load(root, &flags) {
        Ok(settings) => settings,
        Err(e) => return usage_error(e.to_string()),
    };
    for problem in &settings.agent_problems {
        eprintln!("wright: warning: {problem}");
    }
    let profile = match agents_cmd::exec_profile(
        &mut settings,
        args.agent.as_deref(),
        args.tools.as_deref(),
        args.system_prompt_file.as_deref(),
        model_flag,
    ) {
        Ok(profile) => profile,
        Err(message) => return usage_error(message),
    };
    config::learn_context_window(&mut settings).await;
    let env = |name: &str| std::env::var(name).ok();
    let home = match config::wright_home(&env) {
        Ok(home) => home,
        Err(e) => return usage_error(e.to_string()),
    };
    let approval = args
        .approval
        .or(settings.approval)
        .unwrap_or(ApprovalMode::Auto);
    let mut setup = settings.agent_setup(root, &home, approval);
    setup.profile = profile;
    let mcp = mcp_setup::start(root, &settings.mcp_servers).await;
    setup.external_tools = mcp.as_ref().map(mcp_setup::tools);
    let agents = match AgentBuilder::new(setup) {
        Ok(agents) => agents,
        Err(e) => return usage_error(e.to_string()),
    };
    let sessions = Sessions::new(SessionStore::new(&home, root), agents);
    // Another wright running a round in the session: say so, then wait for it.
    let on_busy = &mut |busy: &_| eprintln!("wright: {busy}");
    let mut session = match sessions.open(args.session.as_deref(), on_busy) {
        Ok(session) => session,
        Err(e) => return usage_error(e.to_string()),
    };
    session.set_plan_mode(args.plan);
    // Only now, before any command runs: installed while the prompt is read from a pipe that
    // stays open, or while waiting for the session's lock, the handler would never run (both
    // block this thread) and SIGTERM would not end wright.
    exit_signals::stop_commands_on_exit_signals();
    if let Some(note) = session.agent().sandbox_note() {
        eprintln!("wright: {note}");
    }
    let cancel = CancellationToken::new();
    cancel_on_ctrl_c(cancel.clone());
    renderer.event(&Event::SessionStarted {
        session_id: session.id().to_string(),
        provider: settings.llm.provider.to_string(),
        model: settings.llm.model.clone(),
        cwd: root.display().to_string(),
    });
    for message in session.warnings() {
        renderer.event(&Event::Warning {
            message: message.clone(),
        });
    }
    let cost = |session: &Session| {
        session_cost(
            session.agent().history().usage_records(),
            &settings.llm.model,
            &settings.prices,
        )
    };
    let before = cost(&session);
    let outcome = session
        .run_round(&prompt, cancel, &mut |event| renderer.event(&event))
        .await;
    let interrupted = matches!(
        outcome,
        RoundOutcome::Failed {
            code: FailureCode::Interrupted,
            ..
        }
    );
    if session.auto_commits() && !interrupted {
        // `exec` asks nothing: on a protected branch the commit is skipped (with a line).
        let committed = session
            .commit(false, &mut |event| renderer.event(&event))
            .await;
        if let Some(report) = committed.report() {
            eprintln!("wright: {report}");
        }
    }
    renderer.cost(&before, &cost(&session));
    if let Some(mcp) = &mcp {
        mcp.shutdown().await;
    }
    let unsaved = session.unsaved_records();
    match outcome {
        RoundOutcome::Failed {
            code: FailureCode::Interrupted,
            ..
        } => EXIT_INTERRUPTED,
        _ if unsaved > 0 => {
            eprintln!(
                "wright: error: {} of session {} could not be saved (see the warnings above); \
                 the session on disk lacks part of this round, so a later `--session` round \
                 will not see all of it",
                plural(unsaved, "record"),
                session.id()
            );
            EXIT_UNSAVED
        }
        RoundOutcome::Finished { .. } => 0,
        RoundOutcome::Failed { .. } => EXIT_FAILED,
    }
}

fn context(root: &Path, args: &ContextArgs) -> u8 {
    let env = config::process_env;
    let (settings, files) = match config::load_files(root, &env)
        .and_then(|files| Ok((config::context_settings(&env, &files)?, files)))
    {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    let found = config::wright_home(&env)
        .map_err(|e| e.to_string())
        .and_then(|home| {
            session::find(&SessionStore::new(&home, root), args.session.as_deref())
                .map_err(|e| e.to_string())
        });
    let session = match found {
        Ok(Some(session)) => Some(session),
        Ok(None) if args.session.is_some() => {
            eprintln!(
                "wright: no session named {:?} in this project",
                args.session.as_deref().unwrap_or_default()
            );
            return EXIT_USAGE;
        }
        Ok(None) => None,
        Err(message) => {
            eprintln!("wright: {message}");
            return EXIT_USAGE;
        }
    };
    let memory = config::wright_home(&env).ok().map(|home| {
        let user_home = env("HOME").map(PathBuf::from);
        let dir = config::memory_dir(&files, root, user_home.as_deref());
        wright_store::memory::MemoryPaths::new(&home, root, dir.as_deref())
    });
    let user_config = config::user_config_dir(&env);
    let protocol = match config::tool_protocol(&env, &files) {
        Ok(protocol) => protocol,
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    let report = context_cmd::report(
        root,
        session.as_ref(),
        &settings,
        memory.as_ref(),
        user_config.as_deref(),
        protocol,
        args.full,
    );
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(report.as_bytes());
    0
}

async fn tool(root: &Path, args: ToolArgs) -> u8 {
    exit_signals::stop_commands_on_exit_signals();
    let settings = match config::load_tool_settings(root) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    let registry = settings.registry();
    if registry.get(&args.name).is_none() {
        eprintln!(
            "wright: unknown tool {:?}; the tools are: {}",
            args.name,
            registry.names().join(", ")
        );
        return EXIT_USAGE;
    }
    let call_args = match serde_json::from_str::<serde_json::Value>(&args.args) {
        Ok(value) if value.is_object() => value,
        Ok(_) => {
            eprintln!(
                "wright: the tool arguments must be one JSON object, e.g. '{{\"file_path\": \"README.md\"}}'"
            );
            return EXIT_USAGE;
        }
        Err(e) => {
            eprintln!("wright: the tool arguments are not valid JSON: {e}");
            return EXIT_USAGE;
        }
    };
    let cancel = CancellationToken::new();
    // Each `wright tool` run is a fresh process with no Read behind it, so the
    // read-before-edit rule would refuse every edit; a file changed since a Read still is.
    let ctx = match settings.context(root) {
        Ok(ctx) => ctx
            .with_cancellation(cancel.clone())
            .allowing_unread_edits(),
        Err(e) => {
            eprintln!("wright: cannot open the project {}: {e}", root.display());
            return EXIT_USAGE;
        }
    };
    cancel_on_ctrl_c(cancel.clone());
    let call = ToolCall {
        tool: args.name,
        args: call_args,
    };
    let result = registry.run(&call, &ctx).await;
    if cancel.is_cancelled() {
        return EXIT_INTERRUPTED;
    }
    let failed = result.status == ToolStatus::Error;
    let output = if args.json {
        serde_json::to_string(&result).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    } else {
        result.text
    };
    use std::io::Write;
    let output = terminal::for_stdout(&output);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{output}");
    if failed { EXIT_FAILED } else { 0 }
}
