//! The project walk that Glob and Grep share: ripgrep's filters, a parallel walk that Ctrl-C
//! stops, and the blocking-thread plumbing around it.
//!
//! The filters follow ripgrep's defaults with one change: `.gitignore` files are honoured even
//! when the project has no `.git` directory (users expect a fresh checkout or a copied tree to
//! be searched like a repository). Hidden files are skipped unless a caller asks for them, and
//! `.git` itself is never walked. Symlinks are not followed, so a link out of the project is
//! never read.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use ignore::{DirEntry, WalkBuilder, WalkState};
use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, ToolError};

use crate::{ToolContext, failure};

/// The name of the directory no tool lists or searches.
pub(crate) const GIT_DIR: &str = ".git";

/// A walker over `dir` with the project's filters (see the module doc).
pub(crate) fn project_walker(dir: &Path, include_hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(dir);
    builder
        .hidden(!include_hidden)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.depth() == 0 || entry.file_name() != GIT_DIR);
    builder
}

/// Ctrl-C as blocking work sees it: an atomic flag, cheap enough to ask for every file and
/// every matching line (`CancellationToken::is_cancelled` takes a lock, which threads searching
/// in parallel would fight over). [`run_blocking`] raises it.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// Asks the work to stop.
    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the work should stop.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for work outside this crate.
    pub fn as_atomic(&self) -> &AtomicBool {
        &self.0
    }
}

/// Raises the flag when dropped: blocking work never outlives the call that started it.
struct RaiseOnDrop(StopFlag);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.raise();
    }
}

/// Walks in parallel and calls a per-thread visitor for every regular file.
///
/// `make_visitor` runs once per walker thread, so a visitor can own per-thread state (a
/// searcher, buffers). The walk stops at the next entry once `stop` is raised. Entries the
/// walker cannot read (permissions, races with deletion) are skipped, as ripgrep does.
pub(crate) fn visit_files<'s, V>(
    walker: &WalkBuilder,
    stop: &'s StopFlag,
    mut make_visitor: impl FnMut() -> V,
) where
    V: FnMut(&DirEntry) + Send + 's,
{
    walker.build_parallel().run(|| {
        let mut visit = make_visitor();
        Box::new(move |entry: Result<DirEntry, ignore::Error>| {
            if stop.is_raised() {
                return WalkState::Quit;
            }
            if let Ok(entry) = entry
                && entry.file_type().is_some_and(|kind| kind.is_file())
            {
                visit(&entry);
            }
            WalkState::Continue
        })
    });
}

/// Runs blocking work (a walk, a directory read) on tokio's blocking pool, raising its
/// [`StopFlag`] when `cancel` is cancelled or this future is dropped.
///
/// Work that was stopped ends with the `interrupted` error whatever it returned; a token that
/// is already cancelled does not start the work at all.
pub(crate) async fn run_blocking<T, W>(
    tool: &str,
    cancel: &CancellationToken,
    work: W,
) -> Result<T, ToolError>
where
    T: Send + 'static,
    W: FnOnce(&StopFlag) -> Result<T, ToolError> + Send + 'static,
{
    if cancel.is_cancelled() {
        return Err(interrupted(tool));
    }
    let stop = StopFlag::default();
    let guard = RaiseOnDrop(stop.clone());
    let worker_stop = stop.clone();
    let mut handle = tokio::task::spawn_blocking(move || work(&worker_stop));
    let joined = tokio::select! {
        joined = &mut handle => joined,
        () = cancel.cancelled() => {
            stop.raise();
            handle.await
        }
    };
    drop(guard);
    if cancel.is_cancelled() {
        return Err(interrupted(tool));
    }
    joined.unwrap_or_else(|err| {
        Err(failure(
            ErrorCode::Other,
            format!("{tool} stopped unexpectedly: {err}"),
        ))
    })
}

/// The `interrupted` error for a tool the user stopped with Ctrl-C (same words as the
/// registry's, so the model sees one message whichever noticed first).
pub(crate) fn interrupted(tool: &str) -> ToolError {
    failure(
        ErrorCode::Interrupted,
        format!("{tool} was interrupted by the user before it finished"),
    )
}

/// Resolves the optional `path` argument of a tool that searches a directory tree (the project
/// root when absent) and checks that it exists. Returns the absolute path and its metadata.
pub(crate) fn resolve_existing(
    ctx: &ToolContext,
    path: Option<&str>,
) -> Result<(PathBuf, std::fs::Metadata), ToolError> {
    let abs = match path {
        None => ctx.root().to_path_buf(),
        Some(path) if path.trim().is_empty() || path.trim() == "." => ctx.root().to_path_buf(),
        Some(path) => ctx.resolve(path)?,
    };
    match std::fs::metadata(&abs) {
        Ok(meta) => Ok((abs, meta)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(failure(
            ErrorCode::NotFound,
            format!(
                "path not found: {}; paths are relative to the project root",
                path.unwrap_or(".")
            ),
        )),
        Err(err) => Err(failure(
            ErrorCode::Io,
            format!("cannot access {}: {err}", ctx.display_path(&abs)),
        )),
    }
}

/// A file found by a walk, with its modification time for newest-first ordering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Absolute path.
    pub path: PathBuf,
    /// `None` when the file could not be stat'ed (it then sorts last).
    pub mtime: Option<SystemTime>,
}

impl Found {
    /// The file at `path`, stat'ed now.
    pub fn stat(path: PathBuf) -> Self {
        let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        Self { path, mtime }
    }
}

/// Sorts newest first; equal times (and unknown ones, which go last) by path, so the order is
/// the same on every run.
pub(crate) fn sort_newest_first(files: &mut [Found]) {
    files.sort_unstable_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| a.path.cmp(&b.path)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::time::Duration;

    fn found(path: &str, secs: Option<u64>) -> Found {
        Found {
            path: PathBuf::from(path),
            mtime: secs.map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s)),
        }
    }

    #[tokio::test]
    async fn cancelling_raises_the_flag_and_the_work_ends_interrupted() {
        let cancel = CancellationToken::new();
        let user = cancel.clone();
        let work = run_blocking("Walk", &cancel, move |stop: &StopFlag| {
            user.cancel();
            while !stop.is_raised() {
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok(())
        });
        let result = tokio::time::timeout(Duration::from_secs(10), work)
            .await
            .unwrap();
        assert_eq!(result.unwrap_err().code, ErrorCode::Interrupted);
    }

    #[tokio::test]
    async fn dropping_the_call_raises_the_flag() {
        let cancel = CancellationToken::new();
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let work = run_blocking("Walk", &cancel, move |stop: &StopFlag| {
            let _ = started_tx.send(());
            while !stop.is_raised() {
                std::thread::sleep(Duration::from_millis(1));
            }
            seen_tx.send(()).unwrap();
            Ok(())
        });
        tokio::select! {
            _ = work => panic!("the work cannot end before the flag is raised"),
            _ = started_rx => {}
        }
        seen_rx.recv_timeout(Duration::from_secs(10)).unwrap();
    }

    #[test]
    fn newest_first_breaks_ties_by_path_and_puts_unknown_times_last() {
        let mut files = vec![
            found("c", None),
            found("b", Some(1)),
            found("a", Some(1)),
            found("d", Some(5)),
        ];
        sort_newest_first(&mut files);
        let order: Vec<_> = files.iter().map(|f| f.path.to_string_lossy()).collect();
        assert_eq!(order, vec!["d", "a", "b", "c"]);
    }
}
