//! Running the `git` binary on the shadow repository, with every setting that could make it
//! read the project's own repository or run a program fixed in advance.
//!
//! Git reads configuration from the system, the user's home, the repository and the
//! environment (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`, ...), and configuration can name
//! programs to run (hooks, `core.fsmonitor`, filters, diff drivers, pagers). Here the repository
//! is the shadow one this crate made, the system and global files are off, `HOME` is the state
//! directory, every inherited `GIT_*` variable is removed, and the settings that name programs
//! are given on the command line, where nothing can override them.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::error::{CheckpointError, MAX_STDERR_BYTES};

/// Settings given to every git command (`-c`), in this order. Those naming programs keep a
/// hostile configuration from running anything; the others keep the snapshot byte for byte
/// (no line-ending conversion, real modes and links) and fast (the index's untracked cache and
/// parallel stat), and stop git from collecting garbage on its own.
const FIXED_SETTINGS: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.fileMode=true",
    "core.symlinks=true",
    "core.ignoreCase=false",
    "core.quotePath=false",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "core.untrackedCache=true",
    "core.preloadIndex=true",
    "core.pager=cat",
    "index.threads=true",
    "gc.auto=0",
    "maintenance.auto=false",
    "commit.gpgSign=false",
    "user.name=wright",
    "user.email=wright@localhost",
    "advice.addEmbeddedRepo=false",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.relative=false",
];

/// The shadow repository: its git directory and index, and the project it describes.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    git_dir: PathBuf,
    work_tree: PathBuf,
    index: PathBuf,
    home: PathBuf,
}

impl Git {
    /// A runner for the shadow repository at `git_dir` over `work_tree`, with `home` (the
    /// state directory) as `HOME`.
    pub(crate) fn new(git_dir: PathBuf, work_tree: PathBuf, home: PathBuf) -> Self {
        let index = git_dir.join("index");
        Self {
            git_dir,
            work_tree,
            index,
            home,
        }
    }

    /// The shadow repository's git directory.
    pub(crate) fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new("git");
        for (name, _) in std::env::vars_os() {
            if name.as_encoded_bytes().starts_with(b"GIT_") {
                command.env_remove(name);
            }
        }
        command
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.work_tree)
            .env("GIT_INDEX_FILE", &self.index)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", &self.home)
            .env("LC_ALL", "C")
            .current_dir(&self.work_tree)
            .stdin(Stdio::null());
        for setting in FIXED_SETTINGS {
            command.arg("-c").arg(setting);
        }
        command.args(args);
        command
    }

    /// Runs `git args` and returns its standard output; a non-zero exit is an error.
    pub(crate) fn run<I, S>(&self, args: I) -> Result<Vec<u8>, CheckpointError>
    where
        I: IntoIterator<Item = S> + Clone,
        S: AsRef<OsStr>,
    {
        self.run_with_input(args, None)
    }

    /// Runs `git args` with `input` on its standard input.
    pub(crate) fn run_with_input<I, S>(
        &self,
        args: I,
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, CheckpointError>
    where
        I: IntoIterator<Item = S> + Clone,
        S: AsRef<OsStr>,
    {
        let described = describe(args.clone());
        let mut command = self.command(args);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        if input.is_some() {
            command.stdin(Stdio::piped());
        }
        let mut child = spawn(&mut command)?;
        if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
            // Written from a thread, so that a large input cannot deadlock against git's
            // output filling its pipe.
            let input = input.to_vec();
            let writer = std::thread::spawn(move || stdin.write_all(&input));
            let output = wait(child, &described)?;
            let _ = writer.join();
            return Ok(output);
        }
        wait(child, &described)
    }

    /// Starts `git args` with piped standard input and output, for streaming commands
    /// (`cat-file --batch`).
    pub(crate) fn spawn_piped<I, S>(&self, args: I) -> Result<Child, CheckpointError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = self.command(args);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        spawn(&mut command)
    }

    /// Runs `git init --bare` for the shadow directory (which must not exist yet as a
    /// repository).
    pub(crate) fn init(&self) -> Result<(), CheckpointError> {
        let mut command = self.command(["init", "--bare", "--quiet"]);
        command.arg(&self.git_dir);
        command.env_remove("GIT_WORK_TREE");
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = spawn(&mut command)?;
        wait(child, "init --bare").map(|_| ())
    }
}

fn spawn(command: &mut Command) -> Result<Child, CheckpointError> {
    command.spawn().map_err(|err| {
        if err.kind() == std::io::ErrorKind::NotFound {
            CheckpointError::GitMissing
        } else {
            CheckpointError::Io {
                action: "starting",
                path: PathBuf::from("git"),
                source: err,
            }
        }
    })
}

/// Waits for `child`, returning its standard output or the error naming `described`.
pub(crate) fn wait(child: Child, described: &str) -> Result<Vec<u8>, CheckpointError> {
    let output = child
        .wait_with_output()
        .map_err(CheckpointError::io("waiting for", "git"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(failure(described, &output.status, &output.stderr))
    }
}

/// The error for a git command that exited with `status` and printed `stderr`.
pub(crate) fn failure(
    described: &str,
    status: &std::process::ExitStatus,
    stderr: &[u8],
) -> CheckpointError {
    let cut = &stderr[..stderr.len().min(MAX_STDERR_BYTES)];
    CheckpointError::Git {
        command: described.to_string(),
        status: status.to_string(),
        stderr: String::from_utf8_lossy(cut).trim().to_string(),
    }
}

/// A command's arguments as one line, for errors.
pub(crate) fn describe<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    args.into_iter()
        .map(|arg| arg.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads everything from `reader` (a child's pipe).
pub(crate) fn read_all(mut reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    Ok(bytes)
}
