//! `wright init` (issue 17, item 3): a read-only agent writes the project's instructions file
//! (`AGENTS.md`, or `CODE_LAW.md` updated when the project has one; see `wright_core::init`),
//! printed as a unified diff on stdout and written after a yes on the terminal, or at once
//! with `--yes`. Without a terminal to ask and without `--yes`, nothing is written.

use std::io::{IsTerminal as _, Write as _};
use std::path::Path;

use clap::Args;
use tokio_util::sync::CancellationToken;
use wright_core::approval::ApprovalMode;
use wright_core::init::{self, Proposal};
use wright_core::session::{AgentBuilder, Sessions};
use wright_protocol::Event;
use wright_store::SessionStore;

use crate::config::{self, Flags};
use crate::render::{HumanRenderer, Renderer};

/// Exit code: bad settings, or the file cannot be read.
const EXIT_USAGE: u8 = 2;
/// Exit code: the agent gave no usable text, or the file could not be written.
const EXIT_FAILED: u8 = 1;
/// Exit code: interrupted by Ctrl-C (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

/// `wright init`'s arguments.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Write the file without asking.
    #[arg(long, short = 'y')]
    yes: bool,
}

/// Runs `wright init` in the project at `root`; returns the exit code.
pub async fn run(root: &Path, args: &InitArgs) -> u8 {
    let usage = |message: String| {
        eprintln!("wright: {message}");
        EXIT_USAGE
    };
    let mut settings = match config::load(root, &Flags::default()) {
        Ok(settings) => settings,
        Err(e) => return usage(e.to_string()),
    };
    config::learn_context_window(&mut settings).await;
    let env = |name: &str| std::env::var(name).ok();
    let home = match config::wright_home(&env) {
        Ok(home) => home,
        Err(e) => return usage(e.to_string()),
    };
    let setup = settings
        .agent_setup(root, &home, ApprovalMode::Auto)
        .into_reader(init::profile());
    let agents = match AgentBuilder::new(setup) {
        Ok(agents) => agents,
        Err(e) => return usage(e.to_string()),
    };
    let sessions = Sessions::new(SessionStore::new(&home, root), agents);
    let mut session = match sessions.create(None) {
        Ok(session) => session,
        Err(e) => return usage(e.to_string()),
    };
    crate::exit_signals::stop_commands_on_exit_signals();
    let cancel = CancellationToken::new();
    crate::cancel_on_ctrl_c(cancel.clone());
    eprintln!("wright: an agent that only reads studies the project to write its instructions…");
    let mut renderer = HumanRenderer::new();
    // Its steps are shown; its answer, the file's text, is shown as a diff below rather than
    // streamed or printed.
    let mut events = |event: Event| {
        if !matches!(
            event,
            Event::RoundFinished { .. }
                | Event::AssistantDelta { .. }
                | Event::ReasoningDelta { .. }
        ) {
            renderer.event(&event);
        }
    };
    let proposal = match init::propose(&mut session, root, cancel.clone(), &mut events).await {
        Ok(proposal) => proposal,
        Err(_) if cancel.is_cancelled() => return EXIT_INTERRUPTED,
        Err(e @ init::InitError::Read { .. }) => return usage(e.to_string()),
        Err(e) => {
            eprintln!("wright: {e} (session {})", session.id());
            return EXIT_FAILED;
        }
    };
    decide(root, &proposal, args.yes).await
}

/// Shows `proposal`'s diff and writes it if `yes`, or if the user says yes on the terminal.
async fn decide(root: &Path, proposal: &Proposal, yes: bool) -> u8 {
    let name = &proposal.target.name;
    if proposal.diff.is_empty() {
        eprintln!("wright: {name} already says this; nothing to change");
        return 0;
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(crate::terminal::for_stdout(&proposal.diff).as_bytes());
        let _ = out.flush();
    }
    let approved = if yes {
        true
    } else if std::io::stdin().is_terminal() {
        crate::commit_cmd::confirm(&format!("Write {name}? [y/N] "))
    } else {
        eprintln!(
            "wright: {name} was not written (no terminal to ask); `wright init --yes` writes it"
        );
        return 0;
    };
    if !approved {
        eprintln!("wright: {name} was left as it is");
        return 0;
    }
    match proposal.target.write(root, &proposal.text).await {
        Ok(_) => {
            let what = match proposal.target.current {
                Some(_) => "updated",
                None => "written",
            };
            eprintln!("wright: {name} {what}");
            0
        }
        Err(e) => {
            eprintln!("wright: {e}");
            EXIT_FAILED
        }
    }
}
