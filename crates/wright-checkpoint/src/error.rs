//! The one error type of the crate: what failed, on which path or git command, and git's words.

use std::path::PathBuf;

/// Git's standard error is kept up to this many bytes in an error (the start says what went
/// wrong; a long tail is usually a list of paths).
pub const MAX_STDERR_BYTES: usize = 4096;

/// Why a checkpoint operation failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The `git` binary could not be started: checkpoints need it on `PATH`.
    #[error("checkpoints need the `git` program, and it was not found on PATH")]
    GitMissing,

    /// The project's root directory is not there (moved or deleted since the store was opened).
    #[error("the project {} is not there any more (moved or deleted?)", path.display())]
    ProjectMissing {
        /// The project root the store was opened for.
        path: PathBuf,
    },

    /// A git command ran and failed.
    #[error("`git {command}` failed ({status}): {stderr}")]
    Git {
        /// The command's arguments, as run (without the fixed safety settings).
        command: String,
        /// Its exit status.
        status: String,
        /// Its standard error, cut to [`MAX_STDERR_BYTES`].
        stderr: String,
    },

    /// A git command printed something this crate does not understand.
    #[error("`git {command}` printed something unexpected: {detail}")]
    GitOutput {
        /// The command's arguments.
        command: String,
        /// What was wrong with its output.
        detail: String,
    },

    /// Reading or writing a file or directory failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done ("writing", "removing", ...).
        action: &'static str,
        /// The path it was done to.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },

    /// A checkpoint id that is not a commit hash (40 or 64 hexadecimal digits).
    #[error("`{0}` is not a checkpoint id (a commit hash of 40 or 64 hexadecimal digits)")]
    BadId(String),

    /// A well-formed id that is no snapshot of this store (never taken here, or pruned).
    #[error("checkpoint {0} is not in this project's store (never taken here, or pruned)")]
    UnknownCheckpoint(String),

    /// A snapshot's manifest could not be read.
    #[error("the manifest of checkpoint {id} is damaged: {detail}")]
    BadManifest {
        /// The snapshot.
        id: String,
        /// What is wrong with it.
        detail: String,
    },

    /// A path in a snapshot that a restore will not write: it would leave the project, go
    /// into a `.git` directory, or pass through a symbolic link or a file.
    #[error("refusing to restore {}: {reason}", path.display())]
    UnsafePath {
        /// The path, relative to the project.
        path: PathBuf,
        /// Why it is refused.
        reason: &'static str,
    },
}

impl CheckpointError {
    /// An [`CheckpointError::Io`] for `action` on `path`.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io {
            action,
            path,
            source,
        }
    }
}
