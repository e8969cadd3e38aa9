//! What every tool call gets: the project root, the Ctrl-C token, the mtime record (spec A8),
//! the policy the dangerous-command checker applies to Bash, and confinement (issue 6): which
//! paths the file tools may touch, how they write without being redirected, and Bash's sandbox.

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, TodoItem, ToolError};

use crate::background::Jobs;
use crate::guard;
use crate::protect::{self, ProtectedPath};
use crate::sandbox::{Sandbox, SandboxPolicy, SandboxStatus};
use wright_checker::CommandPolicy;

/// The environment of every tool call.
///
/// Cloning is cheap and the clones share the cancellation token and the mtime record, so a
/// clone handed to a task sees the same "last read" times as the original.
#[derive(Debug, Clone)]
pub struct ToolContext {
    root: PathBuf,
    cancel: CancellationToken,
    /// Spec C4: `{path: last_mtime}` of the files this session read or wrote, in memory only.
    mtimes: Arc<Mutex<HashMap<PathBuf, SystemTime>>>,
    /// The todo list TodoWrite keeps; read by the core for the todo recap.
    todos: Arc<Mutex<Vec<TodoItem>>>,
    /// Whether Edit/MultiEdit may change a file the agent has not read (see
    /// [`ToolContext::allowing_unread_edits`]).
    unread_edits: bool,
    /// The settings' allow/deny rules and protected branches for Bash commands.
    command_policy: Arc<CommandPolicy>,
    /// The user's home directory, which `~` and `$HOME` in a Bash command stand for.
    home: Option<PathBuf>,
    /// Canonical directories outside the project the tools may use too (`allow_outside_project`).
    extra_roots: Arc<[PathBuf]>,
    /// How Bash commands are confined.
    sandbox: Arc<Sandbox>,
    /// The same policy with the network off, for a read-only context (made on first use).
    read_only_sandbox: Arc<OnceLock<Sandbox>>,
    /// Paths outside the project's own the agent may not change (see
    /// [`ToolContext::with_protected`]).
    protected: Arc<[ProtectedPath]>,
    /// The user's global git settings files, protected and read for what they name.
    git_globals: Arc<[PathBuf]>,
    /// The protected paths as the guard last recorded them ([`crate::guard`]), for the check
    /// after a command and before the next one.
    guard_snapshot: Arc<Mutex<Option<guard::Snapshot>>>,
    /// Whether nothing may be changed (plan mode, read-only agents; see
    /// [`ToolContext::with_read_only`]).
    read_only: bool,
    /// Where a running call reports events of its own (a Task call, its sub-agents' steps).
    events: Option<tokio::sync::mpsc::UnboundedSender<wright_protocol::Event>>,
    /// The session's background commands (issue 14).
    jobs: Jobs,
    /// Where code intelligence caches what it parsed (`$WRIGHT_HOME/cache/code`); no cache
    /// when `None`.
    code_cache: Option<PathBuf>,
    /// Whether [`crate::warm_code_index`] may index the project in the background.
    code_warm_up: bool,
    /// The files this round is about, most recent last: those the user's input mentions and
    /// those read or written since (RepoMap leans towards them).
    round_files: Arc<Mutex<Vec<PathBuf>>>,
}

/// Files [`ToolContext::round_files`] keeps at most.
const MAX_ROUND_FILES: usize = 32;

impl ToolContext {
    /// A context for the project at `project_root`, which is canonicalised (symlinks resolved)
    /// so that containment checks compare like with like. Fails if the root does not exist or
    /// is not a directory.
    pub fn new(project_root: &Path) -> io::Result<Self> {
        let root = project_root.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("project root {} is not a directory", root.display()),
            ));
        }
        Ok(Self {
            root,
            cancel: CancellationToken::new(),
            mtimes: Arc::default(),
            todos: Arc::default(),
            unread_edits: false,
            command_policy: Arc::default(),
            home: home_dir(),
            extra_roots: Arc::new([]),
            sandbox: Arc::new(Sandbox::new(SandboxPolicy::default())),
            read_only_sandbox: Arc::default(),
            protected: Arc::new([]),
            git_globals: protect::global_configs(
                std::env::var_os("XDG_CONFIG_HOME")
                    .map(PathBuf::from)
                    .as_deref(),
                home_dir().as_deref(),
            )
            .into(),
            guard_snapshot: Arc::default(),
            read_only: false,
            events: None,
            jobs: Jobs::default(),
            code_cache: None,
            code_warm_up: false,
            round_files: Arc::default(),
        })
    }

    /// Caches code intelligence's parses under `dir` (made on first use).
    pub fn with_code_cache(mut self, dir: Option<PathBuf>) -> Self {
        self.code_cache = dir;
        self
    }

    /// Lets [`crate::warm_code_index`] index the project in the background, or not.
    pub fn with_code_warm_up(mut self, warm_up: bool) -> Self {
        self.code_warm_up = warm_up;
        self
    }

    /// Whether the project's code may be indexed in the background.
    pub fn code_warm_up(&self) -> bool {
        self.code_warm_up && self.code_cache.is_some()
    }

    /// Where code intelligence caches its parses, if anywhere.
    pub fn code_cache(&self) -> Option<&Path> {
        self.code_cache.as_deref()
    }

    /// Starts a round about `mentioned` (absolute paths of the files the user's input names):
    /// forgets the files of the round before.
    pub fn start_round(&self, mentioned: Vec<PathBuf>) {
        let mut files = self
            .round_files
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        files.clear();
        for path in mentioned {
            note_round_file(&mut files, path);
        }
    }

    /// The files this round is about, most recent last (see [`start_round`](Self::start_round)).
    pub fn round_files(&self) -> Vec<PathBuf> {
        self.round_files
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Makes the context read-only, or not (plan mode, read-only sub-agents; issue 14): the
    /// registry refuses the tools that edit files, Bash runs only commands
    /// [`wright_checker::read_only`] judges read-only — without approval, as reads — and confines
    /// them where nothing but the temporary directory may be written. Clones made after this
    /// share it.
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Whether the context is read-only (see [`with_read_only`](Self::with_read_only)).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Also keeps `paths` from being changed by the tools (issue 12), wherever they lie: the
    /// file tools refuse them with `protected` and Bash commands see them read-only. For
    /// the front end's own files — the user's settings, `$WRIGHT_HOME`, hook scripts.
    pub fn with_protected(mut self, paths: Vec<ProtectedPath>) -> Self {
        self.protected = paths.into();
        self
    }

    /// What the tools may not change now (issue 12): the project's `.git/config`,
    /// `.git/hooks` and `.wright/` (those that exist), then the paths given to
    /// [`with_protected`](Self::with_protected); in a read-only context, also the project and
    /// the extra roots (so that commands see them read-only even where they lie in the
    /// temporary directory, which stays writable).
    pub fn protected_paths(&self) -> Vec<ProtectedPath> {
        let mut paths = protect::protected_paths(
            &self.root,
            self.home.as_deref(),
            &self.git_globals,
            &self.protected,
        );
        paths.extend(self.read_only_roots());
        paths
    }

    /// The protected paths with a last symbolic link not followed (the link itself), for the
    /// guard.
    pub(crate) fn named_protected_paths(&self) -> Vec<ProtectedPath> {
        let mut paths = protect::named_protected_paths(
            &self.root,
            self.home.as_deref(),
            &self.git_globals,
            &self.protected,
        );
        paths.extend(self.read_only_roots());
        paths
    }

    /// The project and the extra roots, protected in a read-only context; none otherwise.
    fn read_only_roots(&self) -> Vec<ProtectedPath> {
        if !self.read_only {
            return Vec::new();
        }
        std::iter::once(&self.root)
            .chain(self.extra_roots.iter())
            .map(|root| ProtectedPath {
                path: root.clone(),
                why: "the project, which nothing may change in plan mode or a read-only agent"
                    .to_string(),
            })
            .collect()
    }

    /// The guard's last record, shared by the clones of this context.
    pub(crate) fn last_guard_snapshot(&self) -> MutexGuard<'_, Option<guard::Snapshot>> {
        self.guard_snapshot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Also allows the directories `roots` (`allow_outside_project`) to every tool: paths in
    /// them resolve, can be written, and Bash commands may write there. Each root is
    /// canonicalised; one that does not exist or is not a directory is an error naming it.
    pub fn with_extra_roots(mut self, roots: Vec<PathBuf>) -> io::Result<Self> {
        let mut canonical = Vec::with_capacity(roots.len());
        for root in roots {
            let path = root.canonicalize().map_err(|err| {
                io::Error::new(
                    err.kind(),
                    format!(
                        "allow_outside_project: {} cannot be used: {err}",
                        root.display()
                    ),
                )
            })?;
            if !path.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!(
                        "allow_outside_project: {} is not a directory",
                        root.display()
                    ),
                ));
            }
            canonical.push(path);
        }
        self.extra_roots = canonical.into();
        Ok(self)
    }

    /// The canonical `allow_outside_project` directories.
    pub fn extra_roots(&self) -> &[PathBuf] {
        &self.extra_roots
    }

    /// Confines Bash commands as `policy` says instead of the default (confined, network on).
    pub fn with_sandbox(mut self, policy: SandboxPolicy) -> Self {
        self.sandbox = Arc::new(Sandbox::new(policy));
        self.read_only_sandbox = Arc::default();
        self
    }

    /// The policy Bash commands are confined by.
    pub fn sandbox_policy(&self) -> &SandboxPolicy {
        self.sandbox().policy()
    }

    /// How Bash commands are confined on this machine (probed once per context), for the CLI
    /// to tell the user once; [`SandboxStatus::note`] gives the line to print.
    pub fn sandbox_status(&self) -> &SandboxStatus {
        self.sandbox().status()
    }

    /// The sandbox commands run in here: in a read-only context, the policy's with the
    /// network off (a command judged read-only runs unasked; it must not be able to send what
    /// it reads anywhere, nor change anything a server keeps).
    pub(crate) fn sandbox(&self) -> &Sandbox {
        if !self.read_only {
            return &self.sandbox;
        }
        self.read_only_sandbox.get_or_init(|| {
            Sandbox::new(SandboxPolicy {
                network: false,
                ..self.sandbox.policy().clone()
            })
        })
    }

    /// The protected path `abs` (a resolved path) is or lies under, if any.
    pub(crate) fn protection_of(&self, abs: &Path) -> Option<ProtectedPath> {
        self.protected_paths()
            .into_iter()
            .find(|protected| protected.covers(abs))
    }

    /// The directories a Bash command may write under: the project, the extra roots, the
    /// temporary directory (`std::env::temp_dir()` and `/tmp`) and the sandbox policy's
    /// writable paths; in a read-only context, the temporary directory alone.
    pub(crate) fn writable_roots(&self) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        if !self.read_only {
            roots.push(self.root.clone());
            roots.extend(self.extra_roots.iter().cloned());
        }
        roots.push(std::env::temp_dir());
        #[cfg(unix)]
        roots.push(PathBuf::from("/tmp"));
        if !self.read_only {
            roots.extend(self.sandbox_policy().writable.iter().cloned());
        }
        roots
    }

    /// Checks Bash commands with `policy` (the `[bash]` settings) instead of the default one.
    pub fn with_command_policy(mut self, policy: CommandPolicy) -> Self {
        self.command_policy = Arc::new(policy);
        self
    }

    /// The policy the dangerous-command checker applies to Bash commands.
    pub fn command_policy(&self) -> &CommandPolicy {
        &self.command_policy
    }

    /// The user's home directory (`$HOME`, canonicalised when it exists), if known.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Uses `cancel` (cancelled on Ctrl-C) instead of the context's own token.
    pub fn with_cancellation(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Calls in this context report events of their own to `events` (the round shows them
    /// while the call runs).
    pub fn with_events(
        mut self,
        events: tokio::sync::mpsc::UnboundedSender<wright_protocol::Event>,
    ) -> Self {
        self.events = Some(events);
        self
    }

    /// Reports `event` from inside a running call, if anyone listens.
    pub fn emit(&self, event: wright_protocol::Event) {
        if let Some(events) = &self.events {
            let _ = events.send(event);
        }
    }

    /// The context of a sub-agent this context's agent runs (issue 14): the same project,
    /// confinement, policy, protected paths and cancellation (Ctrl-C stops the child too), but
    /// background commands, a todo list and a record of read files of its own — what the child read, the parent has
    /// not seen, so the parent may not edit it unread on the child's account.
    pub fn for_child(&self) -> Self {
        Self {
            mtimes: Arc::default(),
            todos: Arc::default(),
            // The child's round listens for its own calls' events.
            events: None,
            // Its background commands are its own (the parent's reminders stay the parent's),
            // and end with it.
            jobs: Jobs::default(),
            round_files: Arc::default(),
            ..self.clone()
        }
    }

    /// Lets Edit and MultiEdit change files the agent has not read in this context, for one-off
    /// calls where no Read can come first (`wright tool Edit …`). A file read and then modified
    /// on disk is still refused.
    pub fn allowing_unread_edits(mut self) -> Self {
        self.unread_edits = true;
        self
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The token that is cancelled when the user interrupts; long-running tools watch it.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Resolves a model-given path to an absolute path inside the project (or an extra root).
    ///
    /// Relative paths are taken from the root; absolute paths are allowed only if they lie
    /// inside it or an extra root. Symlinks of the existing prefix of the path are resolved, so
    /// `..` escapes, absolute paths elsewhere and symlinks pointing out are all refused with
    /// `path_outside_project`. A target that does not exist yet is fine (for a later Write).
    ///
    /// The check is made now; a write made later goes through
    /// [`write_file_atomically`](Self::write_file_atomically), which does not follow a symlink
    /// swapped in meanwhile.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        if path.trim().is_empty() {
            return Err(ToolError {
                code: ErrorCode::InvalidArguments,
                message: "the path is empty; give a path relative to the project root".into(),
            });
        }
        let resolved = walk(self.root.clone(), Path::new(path), 0);
        if self.containing_root(&resolved).is_some() {
            return Ok(resolved);
        }
        let allowed = match self.extra_roots.is_empty() {
            true => "only paths inside the project can be used".to_string(),
            false => format!(
                "only paths inside the project or under {} (allow_outside_project) can be used",
                self.extra_roots
                    .iter()
                    .map(|root| root.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(ToolError {
            code: ErrorCode::PathOutsideProject,
            message: format!(
                "{path} resolves to {}, which is outside the project root; {allowed}",
                resolved.display()
            ),
        })
    }

    /// The allowed root `abs` lies in: the project root or an extra root (the deepest, when
    /// one is inside another).
    fn containing_root(&self, abs: &Path) -> Option<&Path> {
        std::iter::once(&self.root)
            .chain(self.extra_roots.iter())
            .filter(|root| abs.starts_with(root))
            .max_by_key(|root| root.components().count())
            .map(PathBuf::as_path)
    }

    /// Writes `bytes` to `abs`, a path [`resolve`](Self::resolve) gave, atomically (a temporary
    /// file beside it, then a rename), creating missing directories.
    ///
    /// Race-safe on Unix: the directories are opened one by one from the root holding `abs`
    /// without following symlinks, and the file is created and renamed relative to the last
    /// one. A directory swapped for a symlink after `resolve` checked the path makes the write
    /// fail instead of landing outside; a file swapped for a symlink is replaced, not followed.
    /// A path outside every allowed root is refused with `PermissionDenied`.
    pub async fn write_file_atomically(&self, abs: &Path, bytes: Vec<u8>) -> io::Result<()> {
        let root = self
            .containing_root(abs)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{} is outside the project", abs.display()),
                )
            })?
            .to_path_buf();
        let abs = abs.to_path_buf();
        tokio::task::spawn_blocking(move || confined::write(&root, &abs, &bytes))
            .await
            .map_err(io::Error::other)?
    }

    /// The path shown to the model: relative to the root, with `/` separators (`.` for the
    /// root itself). A path outside the root is shown as it is.
    pub fn display_path(&self, abs: &Path) -> String {
        match abs.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
            Ok(relative) => relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => abs.display().to_string(),
        }
    }

    /// The session's background commands (Bash `run_in_background`), shared by the clones of
    /// this context.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// The current todo list (empty until TodoWrite is called).
    pub fn todos(&self) -> Vec<TodoItem> {
        self.todos
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the todo list.
    pub fn set_todos(&self, todos: Vec<TodoItem>) {
        *self.todos.lock().unwrap_or_else(PoisonError::into_inner) = todos;
    }

    /// Records the file's current mtime as "seen by the agent", so the next Read does not call
    /// the change external (DESIGN §9.4: the agent's own writes are not external). A file that
    /// cannot be stat'ed is forgotten.
    pub fn record_mtime(&self, abs: &Path) {
        note_round_file(
            &mut self
                .round_files
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
            abs.to_path_buf(),
        );
        let mut mtimes = self.mtimes.lock().unwrap_or_else(PoisonError::into_inner);
        match std::fs::metadata(abs).and_then(|m| m.modified()) {
            Ok(mtime) => {
                mtimes.insert(abs.to_path_buf(), mtime);
            }
            Err(_) => {
                mtimes.remove(abs);
            }
        }
    }

    /// How the file's current `mtime` compares with the one the agent last saw (DESIGN §9.4).
    pub fn freshness(&self, abs: &Path, mtime: SystemTime) -> Freshness {
        let mtimes = self.mtimes.lock().unwrap_or_else(PoisonError::into_inner);
        match mtimes.get(abs) {
            None => Freshness::Unseen,
            Some(seen) if *seen == mtime => Freshness::Unchanged,
            Some(_) => Freshness::Modified,
        }
    }

    /// Allows editing `abs` (whose current mtime is `mtime`) only if the agent has read or
    /// written it in this session and it has not changed on disk since (DESIGN §9.4): an edit
    /// built on a stale view would silently undo someone else's change. Both refusals have code
    /// `stale_file`; `display` is the path shown in the message.
    pub fn check_fresh(
        &self,
        abs: &Path,
        mtime: SystemTime,
        display: &str,
    ) -> Result<(), ToolError> {
        let message = match self.freshness(abs, mtime) {
            Freshness::Unchanged => return Ok(()),
            Freshness::Unseen if self.unread_edits => return Ok(()),
            Freshness::Unseen => format!(
                "you have not read {display} in this session; Read it before editing it, so \
                 that old_string is copied from its current content"
            ),
            Freshness::Modified => format!(
                "{display} was modified since you last read it. Read it again before editing it."
            ),
        };
        Err(ToolError {
            code: ErrorCode::StaleFile,
            message,
        })
    }

    /// Stores `mtime` as the last seen mtime of `abs` and says whether it differs from the one
    /// recorded before (spec A8). The first sighting of a file is not a change.
    pub(crate) fn observe_mtime(&self, abs: &Path, mtime: SystemTime) -> bool {
        note_round_file(
            &mut self
                .round_files
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
            abs.to_path_buf(),
        );
        let mut mtimes = self.mtimes.lock().unwrap_or_else(PoisonError::into_inner);
        mtimes
            .insert(abs.to_path_buf(), mtime)
            .is_some_and(|previous| previous != mtime)
    }
}

/// The home directory from the environment, canonicalised like the project root so that the
/// two compare; `None` when unset or empty.
fn home_dir() -> Option<PathBuf> {
    let name = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    let home = PathBuf::from(std::env::var_os(name).filter(|h| !h.is_empty())?);
    Some(home.canonicalize().unwrap_or(home))
}

/// How a file on disk compares with the agent's last look at it ([`ToolContext::freshness`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// The agent has neither read nor written the file in this session.
    Unseen,
    /// The file's mtime is the one recorded when the agent last read or wrote it.
    Unchanged,
    /// The file changed on disk since the agent last read or wrote it.
    Modified,
}

/// Writing under an allowed root without following symlinks that appear after the check.
mod confined {
    use std::io;
    use std::path::{Component, Path};

    /// Writes `bytes` to `abs` (below `root`) through directories opened without following
    /// symlinks; see [`super::ToolContext::write_file_atomically`].
    #[cfg(unix)]
    pub(super) fn write(root: &Path, abs: &Path, bytes: &[u8]) -> io::Result<()> {
        use nix::fcntl::{OFlag, open};
        use nix::sys::stat::Mode;

        let (parents, name) = split(root, abs)?;
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        // The root itself is canonical and trusted; everything below it is checked.
        let mut dir = open(root, flags, Mode::empty())?;
        let mut path = root.to_path_buf();
        for parent in parents {
            path.push(parent);
            dir = open_subdirectory(&dir, parent, &path)?;
        }
        crate::atomic::write_atomic_in(&dir, name, bytes)
    }

    /// Opens the directory `name` in `dir` (creating it when missing) without following a
    /// symlink; `path` is its full path, for the message.
    #[cfg(unix)]
    fn open_subdirectory(
        dir: &std::os::fd::OwnedFd,
        name: &std::ffi::OsStr,
        path: &Path,
    ) -> io::Result<std::os::fd::OwnedFd> {
        use nix::errno::Errno;
        use nix::fcntl::{AtFlags, OFlag, openat};
        use nix::sys::stat::{Mode, SFlag, fstatat, mkdirat};

        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let opened = match openat(dir, name, flags, Mode::empty()) {
            Err(Errno::ENOENT) => match mkdirat(dir, name, Mode::from_bits_truncate(0o777)) {
                Ok(()) | Err(Errno::EEXIST) => openat(dir, name, flags, Mode::empty()),
                Err(err) => Err(err),
            },
            other => other,
        };
        // Linux says ENOTDIR for a symlink opened with O_DIRECTORY | O_NOFOLLOW, others ELOOP.
        let is_symlink = || {
            fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW).is_ok_and(|stat| {
                SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK
            })
        };
        opened.map_err(|errno| match errno {
            Errno::ELOOP | Errno::ENOTDIR if is_symlink() => io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is now a symbolic link, which could lead outside the project; it is not \
                     followed and nothing was written",
                    path.display()
                ),
            ),
            errno => io::Error::from(errno),
        })
    }

    /// Elsewhere: the directories are created, then the path is checked once more just before
    /// the write (a small window remains; see docs/sandbox.md).
    #[cfg(not(unix))]
    pub(super) fn write(root: &Path, abs: &Path, bytes: &[u8]) -> io::Result<()> {
        let (_, _) = split(root, abs)?;
        let parent = abs.parent().unwrap_or(root);
        std::fs::create_dir_all(parent)?;
        if !parent.canonicalize()?.starts_with(root) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} now leads outside the project", parent.display()),
            ));
        }
        crate::atomic::write_atomic(abs, bytes)
    }

    /// The directories of `abs` below `root`, and its file name.
    fn split<'a>(
        root: &Path,
        abs: &'a Path,
    ) -> io::Result<(Vec<&'a std::ffi::OsStr>, &'a std::ffi::OsStr)> {
        let invalid = || {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a file path below {}",
                    abs.display(),
                    root.display()
                ),
            )
        };
        let mut names = Vec::new();
        for component in abs.strip_prefix(root).map_err(|_| invalid())?.components() {
            match component {
                Component::Normal(name) => names.push(name),
                _ => return Err(invalid()),
            }
        }
        let name = names.pop().ok_or_else(invalid)?;
        Ok((names, name))
    }
}

/// How many dangling symlinks deep `resolve` follows (the kernel's own limit is 40).
const MAX_SYMLINK_DEPTH: u32 = 40;

/// Applies `path` to `base`, component by component, resolving symlinks as it goes.
///
/// Invariant: the result is the canonical form of its longest existing prefix followed by
/// components that do not exist (and so cannot be symlinks), which makes popping on `..` correct
/// even when an earlier component was a symlink. A dangling symlink is followed through its
/// target, so a link to a not-yet-existing file outside the project is still caught.
fn walk(base: PathBuf, path: &Path, depth: u32) -> PathBuf {
    let mut resolved = base;
    for component in path.components() {
        match component {
            // Pushing a root or prefix replaces the whole path: absolute paths start afresh.
            Component::Prefix(_) | Component::RootDir => resolved.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                let next = resolved.join(name);
                resolved = match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.is_symlink() => match next.canonicalize() {
                        Ok(target) => target,
                        Err(_) if depth < MAX_SYMLINK_DEPTH => match std::fs::read_link(&next) {
                            Ok(target) => walk(resolved, &target, depth + 1),
                            Err(_) => next,
                        },
                        Err(_) => next,
                    },
                    // Not a symlink below a canonical prefix, or not there: already final.
                    _ => next,
                };
            }
        }
    }
    resolved
}

/// Adds `path` to the round's files as the most recent, keeping at most [`MAX_ROUND_FILES`].
fn note_round_file(files: &mut Vec<PathBuf>, path: PathBuf) {
    files.retain(|p| *p != path);
    files.push(path);
    if files.len() > MAX_ROUND_FILES {
        files.remove(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn project() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/nested")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
        let ctx = ToolContext::new(dir.path()).unwrap();
        (dir, ctx)
    }

    fn code(result: Result<PathBuf, ToolError>) -> ErrorCode {
        result.unwrap_err().code
    }

    #[test]
    fn root_is_canonicalised() {
        let (dir, _) = project();
        let ctx = ToolContext::new(&dir.path().join("src/../src/..")).unwrap();
        assert_eq!(ctx.root(), dir.path().canonicalize().unwrap());
    }

    #[test]
    fn a_file_is_not_a_project_root() {
        let (dir, _) = project();
        assert!(ToolContext::new(&dir.path().join("src/main.rs")).is_err());
    }

    #[test]
    fn relative_path_resolves_under_the_root() {
        let (_dir, ctx) = project();
        assert_eq!(
            ctx.resolve("src/main.rs").unwrap(),
            ctx.root().join("src/main.rs")
        );
        assert_eq!(
            ctx.resolve("./src/./main.rs").unwrap(),
            ctx.root().join("src/main.rs")
        );
    }

    #[test]
    fn dot_dot_inside_the_project_is_fine() {
        let (_dir, ctx) = project();
        assert_eq!(
            ctx.resolve("src/nested/../main.rs").unwrap(),
            ctx.root().join("src/main.rs")
        );
    }

    #[test]
    fn missing_target_inside_the_root_resolves() {
        let (_dir, ctx) = project();
        assert_eq!(
            ctx.resolve("src/new/dir/../file.rs").unwrap(),
            ctx.root().join("src/new/file.rs")
        );
    }

    #[test]
    fn dot_dot_escape_is_refused() {
        let (_dir, ctx) = project();
        assert_eq!(
            code(ctx.resolve("../outside.txt")),
            ErrorCode::PathOutsideProject
        );
        assert_eq!(
            code(ctx.resolve("src/../../x")),
            ErrorCode::PathOutsideProject
        );
    }

    #[test]
    fn absolute_path_inside_is_allowed_and_outside_refused() {
        let (_dir, ctx) = project();
        let inside = ctx.root().join("src/main.rs");
        assert_eq!(ctx.resolve(&inside.to_string_lossy()).unwrap(), inside);
        assert_eq!(
            code(ctx.resolve("/etc/passwd")),
            ErrorCode::PathOutsideProject
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_pointing_out_is_refused() {
        let (_dir, ctx) = project();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), ctx.root().join("out")).unwrap();
        assert_eq!(code(ctx.resolve("out")), ErrorCode::PathOutsideProject);
        assert_eq!(
            code(ctx.resolve("out/new.txt")),
            ErrorCode::PathOutsideProject
        );
    }

    #[cfg(unix)]
    #[test]
    fn dangling_symlink_pointing_out_is_refused() {
        let (_dir, ctx) = project();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("not-yet.txt");
        std::os::unix::fs::symlink(&target, ctx.root().join("later.txt")).unwrap();
        assert_eq!(
            code(ctx.resolve("later.txt")),
            ErrorCode::PathOutsideProject
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_inside_the_project_resolves_to_its_target() {
        let (_dir, ctx) = project();
        std::os::unix::fs::symlink("src/nested", ctx.root().join("link")).unwrap();
        assert_eq!(
            ctx.resolve("link/../main.rs").unwrap(),
            ctx.root().join("src/main.rs")
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loop_does_not_hang() {
        let (_dir, ctx) = project();
        std::os::unix::fs::symlink("b", ctx.root().join("a")).unwrap();
        std::os::unix::fs::symlink("a", ctx.root().join("b")).unwrap();
        assert!(ctx.resolve("a").unwrap().starts_with(ctx.root()));
    }

    #[test]
    fn empty_path_is_invalid() {
        let (_dir, ctx) = project();
        assert_eq!(code(ctx.resolve("  ")), ErrorCode::InvalidArguments);
    }

    #[test]
    fn display_path_is_relative_with_slashes() {
        let (_dir, ctx) = project();
        assert_eq!(
            ctx.display_path(&ctx.root().join("src").join("main.rs")),
            "src/main.rs"
        );
        assert_eq!(ctx.display_path(ctx.root()), ".");
    }

    #[test]
    fn first_sighting_is_not_a_change_but_a_new_mtime_is() {
        let (_dir, ctx) = project();
        let path = ctx.root().join("src/main.rs");
        let t0 = SystemTime::UNIX_EPOCH;
        let t1 = t0 + std::time::Duration::from_secs(1);
        assert!(!ctx.observe_mtime(&path, t0));
        assert!(!ctx.observe_mtime(&path, t0));
        assert!(ctx.observe_mtime(&path, t1));
        assert!(!ctx.observe_mtime(&path, t1));
    }

    #[test]
    fn freshness_tells_unseen_unchanged_and_modified_apart() {
        let (_dir, ctx) = project();
        let path = ctx.root().join("src/main.rs");
        let t0 = SystemTime::UNIX_EPOCH;
        let t1 = t0 + std::time::Duration::from_secs(1);
        assert_eq!(ctx.freshness(&path, t0), Freshness::Unseen);
        ctx.observe_mtime(&path, t0);
        assert_eq!(ctx.freshness(&path, t0), Freshness::Unchanged);
        assert_eq!(ctx.freshness(&path, t1), Freshness::Modified);
    }

    #[test]
    fn a_childs_context_has_its_own_reads_and_todos_and_shares_the_cancellation() {
        let (_dir, parent) = project();
        let path = parent.root().join("src/main.rs");
        let t0 = SystemTime::UNIX_EPOCH;
        parent.observe_mtime(&path, t0);
        parent.set_todos(vec![TodoItem {
            id: "1".into(),
            content: "parent's".into(),
            status: wright_protocol::TodoStatus::Pending,
        }]);
        let child = parent.for_child();
        assert_eq!(child.freshness(&path, t0), Freshness::Unseen);
        assert!(child.todos().is_empty());
        child.observe_mtime(&path, t0);
        child.set_todos(Vec::new());
        assert_eq!(parent.todos().len(), 1);
        assert_eq!(child.root(), parent.root());
        parent.cancellation().cancel();
        assert!(child.cancellation().is_cancelled());
    }

    #[test]
    fn check_fresh_refuses_unseen_and_modified_files_as_stale() {
        let (_dir, ctx) = project();
        let path = ctx.root().join("src/main.rs");
        let t0 = SystemTime::UNIX_EPOCH;
        let t1 = t0 + std::time::Duration::from_secs(1);
        let unseen = ctx.check_fresh(&path, t0, "src/main.rs").unwrap_err();
        assert_eq!(unseen.code, ErrorCode::StaleFile);
        assert!(
            unseen.message.contains("Read it before editing"),
            "{}",
            unseen.message
        );
        ctx.observe_mtime(&path, t0);
        assert_eq!(ctx.check_fresh(&path, t0, "src/main.rs"), Ok(()));
        let modified = ctx
            .clone()
            .allowing_unread_edits()
            .check_fresh(&path, t1, "src/main.rs")
            .unwrap_err();
        assert_eq!(
            modified.message,
            "src/main.rs was modified since you last read it. Read it again before editing it."
        );
    }

    #[test]
    fn allowing_unread_edits_lets_unseen_files_pass() {
        let (_dir, ctx) = project();
        let ctx = ctx.allowing_unread_edits();
        let path = ctx.root().join("src/main.rs");
        assert_eq!(
            ctx.check_fresh(&path, SystemTime::UNIX_EPOCH, "src/main.rs"),
            Ok(())
        );
    }

    #[test]
    fn the_command_policy_defaults_and_can_be_replaced() {
        let (_dir, ctx) = project();
        assert_eq!(ctx.command_policy(), &CommandPolicy::default());
        let policy = CommandPolicy::new(vec!["cargo test*".into()], vec![], vec![]);
        let ctx = ctx.with_command_policy(policy.clone());
        assert_eq!(ctx.command_policy(), &policy);
        assert_eq!(ctx.clone().command_policy(), &policy);
    }

    #[test]
    fn a_read_only_context_lets_commands_write_only_the_temporary_directory() {
        let (_dir, ctx) = project();
        let extra = tempfile::tempdir().unwrap();
        let ctx = ctx
            .with_extra_roots(vec![extra.path().to_path_buf()])
            .unwrap()
            .with_sandbox(SandboxPolicy {
                writable: vec![PathBuf::from("/opt/cache")],
                ..SandboxPolicy::default()
            });
        let roots = ctx.writable_roots();
        assert!(roots.contains(&ctx.root().to_path_buf()));
        assert!(roots.contains(&PathBuf::from("/opt/cache")));
        let read_only = ctx.with_read_only(true);
        let mut expected = vec![std::env::temp_dir()];
        if cfg!(unix) {
            expected.push(PathBuf::from("/tmp"));
        }
        assert_eq!(read_only.writable_roots(), expected);
        let protected: Vec<PathBuf> = read_only
            .protected_paths()
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert!(protected.contains(&read_only.root().to_path_buf()));
        assert!(protected.contains(&read_only.extra_roots()[0]));
    }

    #[test]
    fn a_read_only_context_takes_the_network_away_and_gives_it_back() {
        let (_dir, ctx) = project();
        assert!(ctx.sandbox_policy().network, "on by default");
        let read_only = ctx.with_read_only(true);
        assert!(!read_only.sandbox_policy().network);
        assert!(read_only.sandbox_policy().enabled);
        let again = read_only.with_read_only(false);
        assert!(again.sandbox_policy().network);
    }

    #[test]
    fn clones_share_the_mtime_record() {
        let (_dir, ctx) = project();
        let path = ctx.root().join("src/main.rs");
        let clone = ctx.clone();
        clone.record_mtime(&path);
        let recorded = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert!(!ctx.observe_mtime(&path, recorded));
    }
}
