//! `git push --force` (or a delete) aimed at a protected branch, and how a `git` command line
//! is split at its subcommand (for this rule and [`super::git_work`]).

use std::path::{Path, PathBuf};

use super::{Report, Rule, Site};
use crate::argv::split;
use crate::policy::wildcard_match;
use crate::script::{Cwd, Word};

/// git's own options that take a value, before the subcommand.
const GIT_VALUE_OPTIONS: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
    "--config-env",
    "--super-prefix",
];

/// What a push is said to hit when the checked-out branch cannot be read.
const UNREAD_BRANCH: &str = "the current branch (which could not be read)";

/// What `git push --all` / `--mirror` hit.
const EVERY_BRANCH: &str = "every branch";

/// `git push` options that take a value.
const PUSH_VALUE_OPTIONS: &[&str] = &["-o", "--push-option", "--repo", "--receive-pack", "--exec"];

/// A `git` command line split at its subcommand: `git -C dir -c k=v SUBCOMMAND ARGS…`.
pub(super) struct GitCommand<'w> {
    /// The subcommand (`push`, `reset`, …).
    pub subcommand: &'w Word,
    /// The words after the subcommand.
    pub args: &'w [Word],
    /// The directory given with `-C`, if any.
    pub repo_dir: Option<&'w Word>,
    /// The values of `-c NAME=VALUE` options.
    pub configs: Vec<&'w Word>,
}

/// Splits the words after `git` at the subcommand, skipping git's own options; `None` when
/// there is no subcommand (`git --version`).
pub(super) fn subcommand(args: &[Word]) -> Option<GitCommand<'_>> {
    let mut i = 0;
    let mut repo_dir = None;
    let mut configs = Vec::new();
    while let Some(word) = args.get(i) {
        let text = word.text();
        if text == "-C" {
            repo_dir = args.get(i + 1);
        }
        if text == "-c" {
            configs.extend(args.get(i + 1));
        }
        if GIT_VALUE_OPTIONS.contains(&text) {
            i += 2;
        } else if text.starts_with('-') && !word.dynamic {
            i += 1;
        } else {
            break;
        }
    }
    let subcommand = args.get(i)?;
    Some(GitCommand {
        subcommand,
        args: args.get(i + 1..).unwrap_or(&[]),
        repo_dir,
        configs,
    })
}

/// `git -c alias.NAME='!COMMAND' …`: a shell alias is a command string git hands to a shell.
pub(super) fn aliases(site: &Site<'_>, git: &GitCommand<'_>, report: &mut Report) {
    for config in &git.configs {
        let Some((name, value)) = config.text().split_once('=') else {
            continue;
        };
        if let Some(script) = value.strip_prefix('!')
            && name.to_ascii_lowercase().starts_with("alias.")
        {
            site.nest(report, &Word::synthetic(script.to_string(), config.dynamic));
        }
    }
}

/// `git [options] push …` that rewrites or deletes a protected branch; deleting a branch that
/// is not protected is `discard-git-work`.
pub(super) fn push(site: &Site<'_>, git: &GitCommand<'_>, report: &mut Report) {
    if !git.subcommand.is("push") {
        return;
    }
    let repo_dir = git.repo_dir;
    let parsed = split(git.args, PUSH_VALUE_OPTIONS);
    if parsed.has("--dry-run", Some('n')) {
        return;
    }
    // `--force-if-includes` alone forces nothing: it only qualifies `--force-with-lease`.
    let force = parsed.has("--force", Some('f')) || parsed.has_prefix("--force-with-lease");
    let delete = parsed.has("--delete", Some('d'));
    let everything =
        parsed.has("--mirror", None) || parsed.has("--all", None) || parsed.has("--branches", None);
    let refspecs: Vec<&Word> = parsed.operands.iter().skip(1).copied().collect();

    let mut hits: Vec<(String, &'static str)> = Vec::new();
    if everything && (force || parsed.has("--mirror", None)) {
        hits.push((EVERY_BRANCH.into(), "force-pushes"));
    }
    if refspecs.is_empty() && !everything && force {
        let branch = current_branch(site, repo_dir).unwrap_or_else(|| UNREAD_BRANCH.into());
        hits.push((branch, "force-pushes"));
    }
    for refspec in refspecs {
        let text = refspec.text();
        let forced = force || text.starts_with('+');
        let text = text.trim_start_matches('+');
        let (source, destination) = match text.split_once(':') {
            Some((source, destination)) => (source, destination),
            None => (text, text),
        };
        let deletes = delete || (source.is_empty() && !destination.is_empty());
        if !(forced || deletes) {
            continue;
        }
        let destination = match destination {
            "HEAD" | "@" => current_branch(site, repo_dir).unwrap_or_else(|| UNREAD_BRANCH.into()),
            other => other.trim_start_matches("refs/heads/").to_string(),
        };
        hits.push((
            destination,
            if deletes { "deletes" } else { "force-pushes" },
        ));
    }
    for (branch, what) in hits {
        let unknown = branch == UNREAD_BRANCH || branch == EVERY_BRANCH;
        let protected = unknown
            || branch.contains('*')
            || site
                .policy
                .protected_branches
                .iter()
                .any(|p| wildcard_match(p, &branch));
        if !protected || site.policy.protected_branches.is_empty() {
            if what == "deletes" {
                site.find(
                    report,
                    Rule::DiscardGitWork,
                    format!(
                        "{} deletes the remote branch {branch}, and whatever only it holds.",
                        site.quoted()
                    ),
                );
            }
            continue;
        }
        let protected_list = site.policy.protected_branches.join(", ");
        site.find(
            report,
            Rule::ForcePush,
            format!(
                "{} {what} {branch}, and the protected branches ({protected_list}) must not \
                 lose history.",
                site.quoted()
            ),
        );
    }
}

/// The branch checked out where the command runs (`-C DIR`, else its working directory),
/// read from `.git/HEAD`; `None` when detached or unreadable.
fn current_branch(site: &Site<'_>, repo_dir: Option<&Word>) -> Option<String> {
    let cwd = match &site.command.cwd {
        Cwd::Known(dirs) if dirs.len() == 1 => dirs[0].clone(),
        _ => return None,
    };
    let start = match repo_dir {
        Some(dir) if dir.dynamic => return None,
        Some(dir) => crate::paths::normalize(&cwd, dir.text()),
        None => cwd,
    };
    let git_dir = git_dir(&start)?;
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

/// The `.git` directory of the repository holding `start` (following a worktree's `.git`
/// file).
fn git_dir(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            return Some(dir.join(target));
        }
    }
    None
}
