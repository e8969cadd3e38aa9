//! `wright commit` (issue 13): commits a session's uncommitted agent changes on demand, as
//! `[git] auto_commit` does after each round (see `wright_core::commit`).

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;

use clap::Args;
use wright_core::approval::ApprovalMode;
use wright_core::commit::CommitOutcome;
use wright_core::session::{AgentBuilder, Sessions};
use wright_protocol::Event;
use wright_store::SessionStore;

use crate::config::{self, Flags};
use crate::session;

/// Exit code: bad settings, or no such session.
const EXIT_USAGE: u8 = 2;
/// Exit code: nothing was committed though there was something to commit.
const EXIT_FAILED: u8 = 1;

/// `wright commit`'s arguments.
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// The session (name or id; default: the project's most recent).
    #[arg(long, value_name = "NAME|ID")]
    session: Option<String>,
}

/// Runs `wright commit` in the project at `root`; returns the exit code.
pub async fn commit(root: &Path, args: &CommitArgs) -> u8 {
    let usage = |message: String| {
        eprintln!("wright: {message}");
        EXIT_USAGE
    };
    let settings = match config::load(root, &Flags::default()) {
        Ok(settings) => settings,
        Err(e) => return usage(e.to_string()),
    };
    let env = |name: &str| std::env::var(name).ok();
    let home = match config::wright_home(&env) {
        Ok(home) => home,
        Err(e) => return usage(e.to_string()),
    };
    let store = SessionStore::new(&home, root);
    let loaded = match session::find(&store, args.session.as_deref()) {
        Ok(Some(loaded)) => loaded,
        Ok(None) => {
            return usage(match &args.session {
                Some(name) => format!(
                    "no session {name:?} in this project; `wright sessions list` shows them"
                ),
                None => "this project has no session yet".into(),
            });
        }
        Err(e) => return usage(e.to_string()),
    };
    let setup = settings.agent_setup(root, &home, ApprovalMode::Auto);
    let agents = match AgentBuilder::new(setup) {
        Ok(agents) => agents,
        Err(e) => return usage(e.to_string()),
    };
    let sessions = Sessions::new(store, agents);
    let mut session = match sessions.resume(loaded) {
        Ok(session) => session,
        Err(e) => return usage(e.to_string()),
    };
    let mut warn = |event: Event| {
        if let Event::Warning { message } = event {
            eprintln!("wright: warning: {message}");
        }
    };
    let mut outcome = session.commit(false, &mut warn).await;
    if let CommitOutcome::ProtectedBranch(branch) = &outcome
        && std::io::stdin().is_terminal()
        && confirm(&format!(
            "{branch} is a protected branch; commit on it anyway? [y/N] "
        ))
    {
        outcome = session.commit(true, &mut warn).await;
    }
    match outcome.report() {
        Some(line) => eprintln!("wright: {line}"),
        None => eprintln!("wright: nothing to commit: the session has no uncommitted change"),
    }
    match outcome {
        CommitOutcome::Committed { .. } | CommitOutcome::NothingToCommit => 0,
        _ => EXIT_FAILED,
    }
}

/// Asks `question` on stderr and reads a yes or no from stdin.
pub(crate) fn confirm(question: &str) -> bool {
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim(), "y" | "Y" | "yes" | "Yes")
}
