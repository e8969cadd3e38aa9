//! `wright sessions`: list, show and remove the sessions stored under `$WRIGHT_HOME`
//! (DESIGN §7), and the session `--resume` / `--continue` would pick.

use std::io::Write as _;
use std::path::Path;

use chrono::Local;
use clap::{Args, Subcommand};
use wright_store::{
    DamagedSession, LoadedSession, Record, SessionStore, SessionSummary, StoreError,
};

use wright_core::cost::session_cost;

use crate::config;
use crate::session;
use wright_protocol::text::plural;

use crate::checkpoints;
use crate::checkpoints::path_change;
use crate::session_view::{local_time, session_table, transcript_with_files};
use wright_checkpoint::CheckpointId;

/// The `[checkpoints]` settings (defaults when the settings cannot be read: only the size
/// cap matters here, and only to open the store).
fn checkpoint_config(root: &Path) -> config::CheckpointConfig {
    let files = config::load_files(root, &config::process_env).unwrap_or_default();
    config::checkpoint_config(&files)
}

/// After a session was removed: when the project has no session left (damaged files count as
/// sessions), its checkpoints go too, since nothing can undo with them any more. While sessions
/// remain, their rounds may still need any snapshot, and `[checkpoints] keep_days` bounds the
/// store instead. A failure is a warning: the session is gone either way.
fn remove_unneeded_checkpoints(home: &Path, root: &Path, store: &SessionStore) {
    let left = match (store.summaries(), store.damaged()) {
        (Ok(sessions), Ok(damaged)) => sessions.len() + damaged.len(),
        _ => return,
    };
    if left > 0 {
        return;
    }
    match checkpoints::remove(home, root, &checkpoint_config(root)) {
        Ok(true) => print("The project has no session left; its checkpoints were removed too.\n"),
        Ok(false) => {}
        Err(e) => eprintln!("wright: warning: could not remove the project's checkpoints: {e}"),
    }
}

/// What `session`'s model calls cost at the configured (else built-in) prices of the settings
/// `files`; `None` when a call's model has no price or the prices cannot be read. Records from
/// before they named their model count as calls to the configured model.
fn cost_usd(root: &Path, session: &LoadedSession, files: &[config::FileConfig]) -> Option<f64> {
    let prices = config::prices(files).ok()?;
    let model = config::resolve(&config::Flags::default(), &config::process_env, files, root)
        .map(|settings| settings.llm.model)
        .unwrap_or_default();
    session_cost(&session.records, &model, &prices)
        .total
        .cost_usd
}

/// Exit code: the session asked for does not exist, or the query is ambiguous.
const EXIT_USAGE: u8 = 2;
/// Exit code: the sessions could not be read or removed.
const EXIT_FAILED: u8 = 1;

/// `wright sessions` and its subcommands.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    command: SessionsCommand,
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    /// List this project's sessions, most recent activity first.
    List {
        /// List the sessions of every project.
        #[arg(long)]
        all: bool,
    },
    /// Show a session's transcript: each round's message, steps, tool results, and the usage
    /// (prompt-cache reads and writes included) with its cost.
    Show {
        /// Print the session's records as JSON lines instead.
        #[arg(long)]
        json: bool,
        /// The session's id (six or more characters of it will do) or name.
        #[arg(value_name = "ID|NAME")]
        session: String,
    },
    /// Delete a session's file (asks nothing; prints what it removed).
    Rm {
        /// The session's id (six or more characters of it will do) or name.
        #[arg(value_name = "ID|NAME")]
        session: String,
    },
}

/// Runs `wright sessions ...` for the project at `root`; returns the exit code.
pub fn run(root: &Path, args: &SessionsArgs) -> u8 {
    let env = |name: &str| std::env::var(name).ok();
    let home = match config::wright_home(&env) {
        Ok(home) => home,
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    let store = SessionStore::new(&home, root);
    let result = match &args.command {
        SessionsCommand::List { all: false } => store
            .summaries()
            .and_then(|list| Ok((list, store.damaged()?)))
            .map(|(list, damaged)| print_list(&list, &damaged)),
        SessionsCommand::List { all: true } => SessionStore::all_summaries(&home)
            .and_then(|list| Ok((list, SessionStore::all_damaged(&home)?)))
            .map(|(list, damaged)| print_list(&list, &damaged)),
        SessionsCommand::Show { json, session } => find(&store, session).map(|found| {
            for warning in &found.warnings {
                eprintln!("wright: warning: {warning}");
            }
            if *json {
                print(&records_json(&found));
            } else {
                // Defaults when the settings cannot be read: the transcript shows regardless.
                let settings_files =
                    config::load_files(root, &config::process_env).unwrap_or_default();
                let children = store.children(&found.meta.id).unwrap_or_default();
                let checkpointed = found
                    .records
                    .iter()
                    .any(|r| matches!(r, Record::Checkpoint(_)));
                let store = checkpointed
                    .then(|| {
                        checkpoints::open(&home, root, &config::checkpoint_config(&settings_files))
                            .ok()
                    })
                    .flatten();
                let files = |from: &str, to: &str| {
                    let store = store.as_ref()?;
                    let (from, to) = (
                        CheckpointId::parse(from).ok()?,
                        CheckpointId::parse(to).ok()?,
                    );
                    let changed = store.changes(&from, Some(&to)).ok()?;
                    Some(if changed.is_empty() {
                        "none".to_string()
                    } else {
                        changed
                            .iter()
                            .map(|change| path_change(change).to_string())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                };
                if let (Some(parent), Some(agent)) = (&found.meta.parent, &found.meta.agent) {
                    print(&format!(
                        "Sub-agent `{agent}` of session {parent}: {}\n\n",
                        found.meta.task.as_deref().unwrap_or("")
                    ));
                }
                let cost_usd = cost_usd(root, &found, &settings_files);
                print(&transcript_with_files(&found, &Local, &files, cost_usd));
                print(&children_list(&children));
            }
        }),
        SessionsCommand::Rm { session } => store.remove(session).map(|removed| {
            print(&format!(
                "Removed session {}{} ({}, last active {}): {}\n",
                removed.meta.id,
                removed
                    .meta
                    .name
                    .as_deref()
                    .map(|name| format!(" \"{name}\""))
                    .unwrap_or_default(),
                plural(removed.rounds, "round"),
                local_time(removed.last_activity, &Local),
                removed.path.display()
            ));
            remove_unneeded_checkpoints(&home, root, &store);
        }),
    };
    match result {
        Ok(()) => 0,
        Err(e) => fail(&e),
    }
}

/// Reports the session `--resume [ID|NAME]` or `--continue` picks: its id on stdout, or that
/// there is none to go on with. `Err` carries the exit code after the error was reported.
pub fn report_selection(
    root: &Path,
    resume: Option<Option<String>>,
    continue_latest: bool,
) -> Result<(), u8> {
    let env = |name: &str| std::env::var(name).ok();
    let home = config::wright_home(&env).map_err(|e| {
        eprintln!("wright: {e}");
        EXIT_USAGE
    })?;
    let store = SessionStore::new(&home, root);
    match session::select(&store, resume, continue_latest) {
        Ok(Some(found)) => {
            print(&format!("{}\n", found.meta.id));
            Ok(())
        }
        Ok(None) => {
            eprintln!("wright: this project has no session yet; a new one would start.");
            Ok(())
        }
        Err(e) => Err(fail(&e)),
    }
}

/// The sub-agents a session ran, one line each, for the end of `sessions show`; nothing when
/// it ran none.
fn children_list(children: &[SessionSummary]) -> String {
    if children.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\nSub-agents ({}; `wright sessions show ID` shows one):\n",
        children.len()
    );
    for child in children {
        text.push_str(&format!(
            "  {}  {}  {:?}  {}, {} tokens\n",
            child.meta.id,
            child.meta.agent.as_deref().unwrap_or("?"),
            child.meta.task.as_deref().unwrap_or(""),
            plural(child.rounds, "round"),
            child.tokens
        ));
    }
    text
}

/// The session `query` names, or an error saying none does.
fn find(store: &SessionStore, query: &str) -> Result<LoadedSession, StoreError> {
    store.find(query)?.ok_or_else(|| StoreError::NotFound {
        query: query.to_string(),
        dir: store.dir().to_path_buf(),
    })
}

/// Reports `error` on stderr and gives the exit code for it.
fn fail(error: &StoreError) -> u8 {
    eprintln!("wright: {error}");
    match error {
        StoreError::NotFound { .. } => {
            eprintln!("`wright sessions list` shows this project's sessions.");
            EXIT_USAGE
        }
        StoreError::Ambiguous { .. } | StoreError::BadName { .. } => EXIT_USAGE,
        _ => EXIT_FAILED,
    }
}

/// Writes `text` to stdout; a closed pipe (`wright sessions show X | head`) is not an error.
fn print(text: &str) {
    let text = crate::terminal::for_stdout(text);
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn print_list(summaries: &[SessionSummary], damaged: &[DamagedSession]) {
    if summaries.is_empty() && damaged.is_empty() {
        eprintln!("wright: no sessions yet.");
        return;
    }
    if !summaries.is_empty() {
        print(&session_table(summaries, &Local));
    }
    print(&damaged_list(damaged));
}

/// The session files that cannot be loaded, each with its path and why, and what to do.
fn damaged_list(damaged: &[DamagedSession]) -> String {
    if damaged.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{} cannot be loaded (the first line, the session's meta record, cannot be read); \
         move the file away or repair its first line:\n",
        plural(damaged.len(), "damaged session file")
    );
    for file in damaged {
        out.push_str(&format!(
            "  DAMAGED  {}  {}: {}\n",
            file.id(),
            file.path.display(),
            file.problem
        ));
    }
    out
}

/// The meta line and every record of a session as JSON lines (`sessions show --json`).
fn records_json(session: &LoadedSession) -> String {
    std::iter::once(Record::Meta(session.meta.clone()))
        .chain(session.records.iter().cloned())
        .filter_map(|record| serde_json::to_string(&record).ok())
        .map(|line| line + "\n")
        .collect()
}
