//! The project's own repository, through the `git` binary, as the user's git would use it
//! (their settings, their hooks): where HEAD is, what HEAD and the index hold for a path, and
//! a commit of chosen paths made through a temporary index, so the user's staged entries of
//! other paths are never part of it and never change.
//!
//! How a commit keeps the user's index: the temporary index (`GIT_INDEX_FILE`, in a temporary
//! directory) is read from HEAD, the agent's paths are added to it, and `git commit` runs with
//! it, hooks and all. Only after the commit are the real index's entries of exactly those paths
//! reset to the new HEAD (`git reset -q -- PATHS`); every other entry — the user's staged
//! files — is left as it was. Paths whose real index entry differed from HEAD (the user had
//! staged something there) are never handed here: the caller skips them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use wright_protocol::text::take_chars;

/// Characters of a failing `git commit`'s output (the hook's) that are reported.
pub const MAX_HOOK_OUTPUT_CHARS: usize = 4000;

/// Why the project's repository cannot take a commit now, or a git command failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    /// The project is not in a git work tree (or `git` is not installed).
    #[error("the project is not a git repository")]
    NotARepository,
    /// HEAD names no branch.
    #[error("HEAD is detached (no branch to commit on)")]
    DetachedHead,
    /// A merge, rebase, cherry-pick, revert or bisect is in progress.
    #[error("a {0} is in progress")]
    InProgress(&'static str),
    /// A git command failed.
    #[error("`git {command}` failed: {output}")]
    Failed {
        /// The command, without `git`.
        command: String,
        /// What it wrote, cut to [`MAX_HOOK_OUTPUT_CHARS`].
        output: String,
    },
}

/// What `git rev-parse --git-path` names for each operation that must not be committed into.
const IN_PROGRESS: [(&str, &str); 6] = [
    ("MERGE_HEAD", "merge"),
    ("rebase-merge", "rebase"),
    ("rebase-apply", "rebase"),
    ("CHERRY_PICK_HEAD", "cherry-pick"),
    ("REVERT_HEAD", "revert"),
    ("BISECT_LOG", "bisect"),
];

/// The project's repository, seen from the project root.
#[derive(Debug, Clone)]
pub struct Repository {
    root: PathBuf,
}

impl Repository {
    /// The repository whose work tree holds `root`, if it can take a commit now: on a branch,
    /// with no merge, rebase or the like in progress. Returns the branch too.
    pub fn open(root: &Path) -> Result<(Self, String), GitError> {
        let repo = Self {
            root: root.to_path_buf(),
        };
        match repo.git(["rev-parse", "--is-inside-work-tree"]) {
            Ok(out) if out.trim() == "true" => {}
            _ => return Err(GitError::NotARepository),
        }
        let branch = repo
            .git(["symbolic-ref", "-q", "--short", "HEAD"])
            .map_err(|_| GitError::DetachedHead)?
            .trim()
            .to_string();
        for (path, what) in IN_PROGRESS {
            let at = repo.git(["rev-parse", "--git-path", path])?;
            if repo.root.join(at.trim()).exists() {
                return Err(GitError::InProgress(what));
            }
        }
        Ok((repo, branch))
    }

    /// HEAD's commit; `None` on a branch with no commit yet.
    pub fn head(&self) -> Option<String> {
        self.git(["rev-parse", "-q", "--verify", "HEAD^{commit}"])
            .ok()
            .map(|s| s.trim().to_string())
    }

    /// The blob HEAD holds at `path` (relative to the project root), with its mode.
    pub fn head_entry(&self, path: &Path) -> Result<Option<(String, String)>, GitError> {
        if self.head().is_none() {
            return Ok(None);
        }
        let out = self.git_os(&[os("ls-tree"), os("-z"), os("HEAD"), os("--"), path.into()])?;
        // `MODE TYPE OID\tPATH\0`
        Ok(out.split('\0').find_map(|line| {
            let (meta, _) = line.split_once('\t')?;
            let mut parts = meta.split(' ');
            let mode = parts.next()?;
            let oid = parts.nth(1)?;
            Some((mode.to_string(), oid.to_string()))
        }))
    }

    /// The index's entry for `path` (relative to the project root), with its mode; `None` when
    /// the index does not hold it. A conflicted path gives its first stage.
    pub fn index_entry(&self, path: &Path) -> Result<Option<(String, String)>, GitError> {
        let out = self.git_os(&[os("ls-files"), os("-s"), os("-z"), os("--"), path.into()])?;
        // `MODE OID STAGE\tPATH\0`
        Ok(out.split('\0').find_map(|line| {
            let (meta, _) = line.split_once('\t')?;
            let mut parts = meta.split(' ');
            Some((parts.next()?.to_string(), parts.next()?.to_string()))
        }))
    }

    /// Stages `paths` (relative to the project root) as they are in the work tree on top of
    /// HEAD, in a temporary index; `Ok(None)` when they hold no change from HEAD.
    pub fn stage(&self, paths: &[PathBuf]) -> Result<Option<Staged>, GitError> {
        let temp = tempfile::tempdir().map_err(|e| GitError::Failed {
            command: "read-tree".into(),
            output: format!("cannot make a temporary directory: {e}"),
        })?;
        let index = temp.path().join("index");
        let staged = |args: &[OsString]| self.run(args, Some(&index));
        match self.head() {
            Some(_) => staged(&[os("read-tree"), os("HEAD")])?,
            None => staged(&[os("read-tree"), os("--empty")])?,
        };
        let mut add = vec![os("add"), os("-A"), os("--")];
        add.extend(paths.iter().map(|p| p.as_os_str().to_os_string()));
        staged(&add)?;
        let names = staged(&[os("diff"), os("--cached"), os("--name-only")])?;
        if names.trim().is_empty() {
            return Ok(None);
        }
        let diff = staged(&[
            os("diff"),
            os("--cached"),
            os("--no-color"),
            os("--no-ext-diff"),
            os("--stat"),
            os("--patch"),
        ])?;
        Ok(Some(Staged {
            repo: self.clone(),
            paths: paths.to_vec(),
            temp,
            diff,
        }))
    }

    fn git<const N: usize>(&self, args: [&str; N]) -> Result<String, GitError> {
        let args: Vec<OsString> = args.iter().map(|a| os(a)).collect();
        self.run(&args, None)
    }

    fn git_os(&self, args: &[OsString]) -> Result<String, GitError> {
        self.run(args, None)
    }

    /// Runs git in the project root, with `index` as its index when given.
    fn run(&self, args: &[OsString], index: Option<&Path>) -> Result<String, GitError> {
        let mut command = Command::new("git");
        command
            .args(args)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .env_remove("GIT_INDEX_FILE");
        if let Some(index) = index {
            command.env("GIT_INDEX_FILE", index);
        }
        let shown = || {
            args.iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let output: Output = command.output().map_err(|e| GitError::Failed {
            command: shown(),
            output: format!("cannot run git: {e}"),
        })?;
        if !output.status.success() {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            let text = text.trim();
            let cut = take_chars(text, MAX_HOOK_OUTPUT_CHARS);
            let mut output = cut.to_string();
            if cut.len() < text.len() {
                output.push_str("\n[… output cut …]");
            }
            return Err(GitError::Failed {
                command: shown(),
                output,
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// The agent's paths staged in a temporary index, ready to commit.
pub struct Staged {
    repo: Repository,
    paths: Vec<PathBuf>,
    temp: tempfile::TempDir,
    /// `git diff --cached --stat --patch` of what the commit would hold.
    pub diff: String,
}

impl Staged {
    /// Commits the staged paths with `message` (`git commit`, so the repository's hooks run),
    /// then sets the real index's entries of those paths to the new commit's. Returns the
    /// commit's id.
    pub fn commit(self, message: &str) -> Result<String, GitError> {
        let index = self.temp.path().join("index");
        let message_file = self.temp.path().join("message");
        std::fs::write(&message_file, message).map_err(|e| GitError::Failed {
            command: "commit".into(),
            output: format!("cannot write the message: {e}"),
        })?;
        self.repo.run(
            &[
                os("commit"),
                os("-q"),
                os("--cleanup=strip"),
                os("-F"),
                message_file.into_os_string(),
            ],
            Some(&index),
        )?;
        let commit = self.repo.head().ok_or_else(|| GitError::Failed {
            command: "commit".into(),
            output: "HEAD has no commit after committing".into(),
        })?;
        let mut reset = vec![os("reset"), os("-q"), os("--")];
        reset.extend(self.paths.iter().map(|p| p.as_os_str().to_os_string()));
        self.repo.run(&reset, None)?;
        Ok(commit)
    }
}

fn os(text: &str) -> OsString {
    OsString::from(text)
}
