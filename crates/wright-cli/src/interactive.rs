//! `wright` with no subcommand: resolves settings and the session to continue, then hands the
//! terminal to `wright_tui::app`.

use std::io::IsTerminal;
use std::path::Path;

use chrono::Local;
use wright_core::approval::ApprovalMode;
use wright_core::compaction::ContextSettings;
use wright_store::{LoadedSession, SessionStore, SessionSummary, StoreError};
use wright_tui::app::{EXIT_USAGE, Launch, Reports};

use crate::checkpoints;
use crate::config::{self, Flags};
use crate::context_cmd;
use crate::session;
use crate::session_view::session_table;
use crate::sessions_cmd;

/// What the command line says about the interactive session.
#[derive(Debug, Default)]
pub struct InteractiveArgs {
    /// `--resume [ID|NAME]`.
    pub resume: Option<Option<String>>,
    /// `--continue`.
    pub continue_latest: bool,
    /// `--approval MODE`; else `approval` in the settings, else `ask`.
    pub approval: Option<ApprovalMode>,
    /// `--plan`: start in plan mode.
    pub plan: bool,
}

/// Runs the interactive session in the project at `root`; returns the exit code.
pub async fn run(root: &Path, args: InteractiveArgs) -> u8 {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        // Still say which session `--resume` / `--continue` would pick: a dry run for scripts.
        if args.resume.is_some() || args.continue_latest {
            let selected = sessions_cmd::report_selection(root, args.resume, args.continue_latest);
            if let Err(code) = selected {
                return code;
            }
        }
        eprintln!(
            "wright: the interactive session needs a terminal, and stdin or stdout is not one.\n\
             For scripts and pipes use `wright exec \"...\"` (see `wright exec --help`)."
        );
        return EXIT_USAGE;
    }
    let mut settings = match config::load(root, &Flags::default()) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    config::learn_context_window(&mut settings).await;
    let protocol = settings.agent.tool_protocol;
    for problem in &settings.agent_problems {
        eprintln!("wright: warning: {problem}");
    }
    let env = |name: &str| std::env::var(name).ok();
    let home = match config::wright_home(&env) {
        Ok(home) => home,
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    let store = SessionStore::new(&home, root);
    let session = match session::select(&store, args.resume, args.continue_latest) {
        Ok(session) => session,
        Err(e) => {
            eprintln!("wright: {e}");
            if matches!(e, StoreError::NotFound { .. }) {
                eprintln!("`wright sessions list` shows this project's sessions.");
            }
            return EXIT_USAGE;
        }
    };
    let approval = args
        .approval
        .or(settings.approval)
        .unwrap_or(ApprovalMode::Ask);
    let mut setup = settings.agent_setup(root, &home, approval);
    // The servers start in the background: the prompt is there at once, and their tools
    // join the session when its first round starts (or with `/mcp reconnect`).
    let (mcp, mcp_launch) = match crate::mcp_setup::launch(root, &settings.mcp_servers) {
        Some((servers, launch)) => (Some(servers), Some(launch)),
        None => (None, None),
    };
    setup.external_tools = mcp.as_ref().map(crate::mcp_setup::tools);
    let setup_memory = setup.memory.clone();
    let undo = checkpoints::for_undo(&home, root, &settings.checkpoints);
    let launch = Launch {
        checkpoints: Some(undo),
        setup,
        home,
        store,
        session,
        prices: settings.prices,
        reports: Box::new(CliReports {
            memory: setup_memory,
            user_config: config::user_config_dir(&config::process_env),
            protocol,
        }),
        plan: args.plan,
        mcp: mcp_launch,
    };
    let code = wright_tui::app::run(launch).await;
    if let Some(mcp) = &mcp {
        mcp.shutdown().await;
    }
    code
}

/// The interactive session's reports, as the subcommands print them; its agents keep memory
/// at `memory`; L2 is read with the user's settings directory `user_config`.
struct CliReports {
    memory: Option<wright_store::memory::MemoryPaths>,
    user_config: Option<std::path::PathBuf>,
    protocol: wright_core::ToolProtocol,
}

impl Reports for CliReports {
    /// `/context`: the `wright context` report.
    fn context(
        &self,
        root: &Path,
        session: Option<&LoadedSession>,
        settings: &ContextSettings,
    ) -> String {
        context_cmd::report(
            root,
            session,
            settings,
            self.memory.as_ref(),
            self.user_config.as_deref(),
            self.protocol,
            false,
        )
    }

    /// `/sessions`: the `wright sessions list` table in local time.
    fn session_table(&self, summaries: &[SessionSummary]) -> String {
        session_table(summaries, &Local)
    }
}
