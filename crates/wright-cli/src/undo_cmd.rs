//! `wright undo` and `wright diff` (issue 13): take back what a session's rounds did to the
//! project's files and to its conversation, or show it as a diff. The undo itself is
//! `wright_core::undo`'s (the interactive `/undo` carries it out the same way); the snapshots
//! are `wright-checkpoint`'s, through [`checkpoints::for_undo`].

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use wright_core::checkpoint::Checkpoints;
use wright_core::rewind::{UndoError, diff_range};
use wright_core::undo::{
    Overwrites, UndoRequest, UndoScope, UndoStep, carry_out, overwrites, report,
};
use wright_store::{LoadedSession, SessionStore, load};

use crate::checkpoints;
use crate::config;

/// Exit code: the session or round asked for does not exist, or the undo was refused.
const EXIT_USAGE: u8 = 2;
/// Exit code: the undo or the diff failed.
const EXIT_FAILED: u8 = 1;

/// `wright undo`'s arguments.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The session (name or id; default: the project's most recent).
    #[arg(long, value_name = "NAME|ID")]
    session: Option<String>,
    /// Undo from round N on (default: the session's last round not undone).
    #[arg(long, value_name = "N", conflicts_with = "redo")]
    round: Option<u32>,
    /// Restore the files only; the conversation keeps its rounds.
    #[arg(long, conflicts_with = "conversation_only")]
    files_only: bool,
    /// Rewind the conversation only; the files stay as they are.
    #[arg(long)]
    conversation_only: bool,
    /// Overwrite files changed since the agent last touched them.
    #[arg(long)]
    force: bool,
    /// Take back the last undo: its files and its rounds come back.
    #[arg(long)]
    redo: bool,
}

/// `wright diff`'s arguments.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The session (name or id; default: the project's most recent).
    #[arg(long, value_name = "NAME|ID")]
    session: Option<String>,
    /// Only what round N changed.
    #[arg(long, value_name = "N")]
    round: Option<u32>,
}

/// A failure, reported on stderr, with its exit code.
struct Failure(u8, String);

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Self(EXIT_USAGE, message.into())
    }

    fn failed(message: impl std::fmt::Display) -> Self {
        Self(EXIT_FAILED, message.to_string())
    }
}

fn finish(result: Result<(), Failure>) -> u8 {
    match result {
        Ok(()) => 0,
        Err(Failure(code, message)) => {
            eprintln!("wright: {message}");
            code
        }
    }
}

/// Runs `wright undo` in the project at `root`; returns the exit code.
pub fn undo(root: &Path, args: &UndoArgs) -> u8 {
    finish(undo_result(root, args))
}

/// Runs `wright diff` in the project at `root`; returns the exit code.
pub fn diff(root: &Path, args: &DiffArgs) -> u8 {
    finish(diff_result(root, args))
}

/// The state directory and the session asked for.
fn session(root: &Path, query: Option<&str>) -> Result<(PathBuf, LoadedSession), Failure> {
    let env = |name: &str| std::env::var(name).ok();
    let home = config::wright_home(&env).map_err(|e| Failure::usage(e.to_string()))?;
    let store = SessionStore::new(&home, root);
    let found = match query {
        Some(query) => store.find(query),
        None => store.latest(),
    }
    .map_err(Failure::failed)?;
    let loaded = found.ok_or_else(|| Failure::usage(missing_session(&home, &store, query)))?;
    Ok((home, loaded))
}

/// Why no session was found, with what there is to choose from: this project's sessions, or
/// where a session of that name or id lives when it is another project's (its directory gone
/// when the project moved).
fn missing_session(home: &Path, store: &SessionStore, query: Option<&str>) -> String {
    let ours = store.summaries().unwrap_or_default();
    let Some(query) = query else {
        return "this project has no session yet".to_string();
    };
    if !ours.is_empty() {
        let list: Vec<String> = ours
            .iter()
            .map(|s| {
                let name = s.meta.name.as_deref().unwrap_or("-");
                format!("  {}  {name}  ({} rounds)", s.meta.id, s.rounds)
            })
            .collect();
        return format!(
            "no session {query:?} in this project; its sessions are:\n{}",
            list.join("\n")
        );
    }
    let elsewhere = SessionStore::all_summaries(home)
        .unwrap_or_default()
        .into_iter()
        .find(|s| s.meta.name.as_deref() == Some(query) || s.meta.id.starts_with(query));
    match elsewhere {
        Some(s) if !Path::new(&s.meta.project_root).exists() => format!(
            "session {query:?} was run in {}, which no longer exists: if the project moved, \
             its sessions and checkpoints stay with the old path; undo there after moving it \
             back",
            s.meta.project_root
        ),
        Some(s) => format!(
            "session {query:?} belongs to the project at {}; run `wright -C {} undo`",
            s.meta.project_root, s.meta.project_root
        ),
        None => format!("no session {query:?} in this project, which has no sessions"),
    }
}

/// The project's checkpoint store, for the project the session ran in.
fn checkpoint_store(
    home: &Path,
    root: &Path,
    loaded: &LoadedSession,
) -> Result<Arc<dyn Checkpoints>, Failure> {
    let recorded = Path::new(&loaded.meta.project_root);
    if !recorded.is_dir() {
        return Err(Failure::failed(format!(
            "the project of session {} is no longer where it was ({}); \
             its checkpoints cannot be restored elsewhere",
            loaded.meta.id,
            recorded.display()
        )));
    }
    let env = config::process_env;
    let files = config::load_files(root, &env).map_err(|e| Failure::usage(e.to_string()))?;
    Ok(checkpoints::for_undo(
        home,
        recorded,
        &config::checkpoint_config(&files),
    ))
}

fn undo_error(error: UndoError) -> Failure {
    let mut message = error.to_string();
    if let UndoError::UnknownRound { choices, .. } = &error {
        if choices.is_empty() {
            message.push_str("; no round can be undone");
        } else {
            message.push_str("; rounds to choose from:");
            for (number, request) in choices {
                message.push_str(&format!("\n  {number:>3}  {request}"));
            }
        }
    }
    Failure::usage(message)
}

/// Refuses to overwrite files changed after the agent last touched them, unless `force`.
fn check_untouched(
    store: &dyn Checkpoints,
    records: &[wright_store::Record],
    step: &UndoStep,
    force: bool,
) -> Result<(), Failure> {
    match overwrites(store, records, step).map_err(Failure::failed)? {
        Overwrites::Nothing => Ok(()),
        Overwrites::Unknown => {
            eprintln!(
                "wright: note: the session's last round did not end, so changes made since its \
                 last step cannot be told apart from the agent's"
            );
            Ok(())
        }
        Overwrites::UserChanges(_) if force => Ok(()),
        Overwrites::UserChanges(changed) => {
            let mut message = String::from(
                "these files changed after the agent last touched them, and undoing would \
                 overwrite them:",
            );
            for change in &changed {
                message.push_str(&format!("\n  {change}"));
            }
            message.push_str("\n`--force` undoes anyway (`wright undo --redo` can take it back).");
            Err(Failure::usage(message))
        }
    }
}

fn undo_result(root: &Path, args: &UndoArgs) -> Result<(), Failure> {
    let (home, found) = session(root, args.session.as_deref())?;
    let env_store = SessionStore::new(&home, root);
    // Locked, then read again: what another wright appended before the lock counts.
    let mut file = env_store.open_for_append(&found).map_err(Failure::failed)?;
    let loaded = load(&found.path).map_err(Failure::failed)?;
    let records = &loaded.records;
    let request = if args.redo {
        UndoRequest::Redo
    } else {
        UndoRequest::Undo(args.round)
    };
    let scope = if args.files_only {
        UndoScope::FilesOnly
    } else if args.conversation_only {
        UndoScope::ConversationOnly
    } else {
        UndoScope::Both
    };
    let step = UndoStep::plan(records, request, scope).map_err(undo_error)?;
    let store = if step.restores_files() {
        let store = checkpoint_store(&home, root, &loaded)?;
        check_untouched(store.as_ref(), records, &step, args.force)?;
        Some(store)
    } else {
        None
    };
    let done = carry_out(&step, store.as_deref()).map_err(Failure::failed)?;
    if let Some(record) = &done.record {
        file.append(record).map_err(Failure::failed)?;
    }
    print(&report(&step, &done, "`wright undo --redo`"));
    Ok(())
}

fn diff_result(root: &Path, args: &DiffArgs) -> Result<(), Failure> {
    let (home, loaded) = session(root, args.session.as_deref())?;
    let Some(range) = diff_range(&loaded.records, args.round).map_err(undo_error)? else {
        eprintln!("wright: no file changes were recorded there");
        return Ok(());
    };
    let what = match args.round {
        Some(round) => format!("round {round}"),
        None => format!("session {}", loaded.meta.id),
    };
    match &range.to {
        Some(_) => eprintln!("wright: {what}: from before its first change to its end"),
        None => eprintln!(
            "wright: {what}: from before its first change to the project as it is now \
             (the round did not end)"
        ),
    }
    let store = checkpoint_store(&home, root, &loaded)?;
    let text = store
        .diff(&range.from, range.to.as_deref())
        .map_err(Failure::failed)?;
    if text.is_empty() {
        eprintln!("wright: nothing changed");
    }
    print(&text);
    Ok(())
}

/// Writes `text` to stdout; a closed pipe is not an error.
fn print(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
