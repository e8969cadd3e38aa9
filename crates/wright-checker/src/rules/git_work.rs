//! git commands that throw away local work — uncommitted changes, untracked files, stashes,
//! branches and the reflog that could bring them back (`git reset --hard`, `git clean -f`,
//! `git checkout -- file`, `git branch -D`, …) — told apart from the everyday ones that only
//! read or move (`git reset --soft HEAD~1`, `git checkout main`, `git restore --staged`).

use std::path::Path;

use super::git::GitCommand;
use super::{Report, Rule, Site};
use crate::argv::split;
use crate::paths::normalize;
use crate::script::{Cwd, Word};

/// `git checkout` options that take the next word as their value.
const CHECKOUT_VALUE_OPTIONS: &[&str] = &["-b", "-B", "--orphan", "--conflict"];

/// `git checkout` options that create a branch: the operand is then a start point, not a path.
const CHECKOUT_NEW_BRANCH: &[&str] = &["-b", "-B", "--orphan"];

/// File names without an extension that a single `git checkout NAME` most likely means.
const EXTENSIONLESS_FILES: &[&str] = &[
    "Makefile",
    "Dockerfile",
    "README",
    "LICENSE",
    "Gemfile",
    "Rakefile",
    "Procfile",
    "Justfile",
];

/// Longest file extension a checkout operand is read as a file by.
const MAX_EXTENSION_CHARS: usize = 6;

/// What `git checkout` of paths does.
const OVERWRITES: &str =
    "overwrites files of the work tree, throwing away their uncommitted changes";

/// Reports `git SUBCOMMAND …` that throws away local work.
pub(super) fn discard(site: &Site<'_>, git: &GitCommand<'_>, report: &mut Report) {
    let args = git.args;
    let what = match git.subcommand.text() {
        "reset" => reset(args, &site.command.cwd),
        "checkout" => checkout(args, &site.command.cwd),
        "switch" => switch(args),
        "restore" => restore(args),
        "clean" => clean(args),
        "stash" => stash(args),
        "branch" => branch(args),
        "worktree" => worktree(args),
        "rm" => remove(args),
        "reflog" => reflog(args),
        "gc" => gc(args),
        "update-ref" => update_ref(args),
        "filter-branch" | "filter-repo" => Some("rewrites the whole history of the repository"),
        _ => None,
    };
    if let Some(what) = what {
        site.find(
            report,
            Rule::DiscardGitWork,
            format!("{} {what}; git cannot bring it back.", site.quoted()),
        );
    }
}

/// `git reset --hard` / `--merge` overwrite the work tree, and `git reset [COMMIT] [--] PATH…`
/// overwrites what was staged for the paths (issue 12 counts it as discarding work: a
/// partly staged file loses its staged part); `--soft`, `--keep` (which stops rather than lose
/// changes) and a plain `git reset [COMMIT]` keep both.
fn reset(args: &[Word], cwd: &Cwd) -> Option<&'static str> {
    let parsed = split(args, &[]);
    if parsed.has("--hard", None) || parsed.has("--merge", None) {
        return Some("throws away the uncommitted changes of the work tree and the index");
    }
    if parsed.has("--soft", None) || parsed.has("--keep", None) || parsed.has("--patch", Some('p'))
    {
        return None;
    }
    const UNSTAGES: &str = "resets what is staged for the paths it names, throwing away the \
                            staged changes that the work tree does not also hold";
    let mut operands: Vec<&Word> = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text();
        if word.dynamic || !text.starts_with('-') {
            operands.push(word);
        } else if text == "--" {
            return words.next().map(|_| UNSTAGES);
        } else if text.starts_with("--pathspec-from-file") {
            return Some(UNSTAGES);
        }
    }
    let names_paths = operands.len() > 1
        || operands
            .first()
            .is_some_and(|word| !word.dynamic && names_a_path(word, cwd));
    names_paths.then_some(UNSTAGES)
}

/// `git checkout` throws away changes when forced or when given paths: `-- PATH`, `.`, a glob,
/// or operands that name files; switching to a branch or creating one keeps them.
fn checkout(args: &[Word], cwd: &Cwd) -> Option<&'static str> {
    let mut operands: Vec<&Word> = Vec::new();
    let mut new_branch = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text();
        if word.dynamic || !text.starts_with('-') || text == "-" {
            operands.push(word);
        } else if text == "--" {
            // Everything after `--` is a path.
            return words.next().map(|_| OVERWRITES);
        } else if text == "-f" || text == "--force" {
            return Some("switches branches discarding every uncommitted change (`--force`)");
        } else if CHECKOUT_VALUE_OPTIONS.contains(&text) {
            new_branch |= CHECKOUT_NEW_BRANCH.contains(&text);
            words.next();
        } else if text.starts_with("--orphan=") {
            new_branch = true;
        } else if !text.starts_with("--") && text[1..].contains('f') {
            return Some("switches branches discarding every uncommitted change (`-f`)");
        } else if !text.starts_with("--") && text[1..].contains(['b', 'B']) {
            new_branch = true;
            words.next();
        }
    }
    if new_branch {
        return None;
    }
    let names_paths =
        operands.len() > 1 || operands.first().is_some_and(|word| names_a_path(word, cwd));
    names_paths.then_some(OVERWRITES)
}

/// Whether the single operand of `git checkout` reads as a path rather than a branch, tag or
/// commit: `.`, a glob, `./x`, a file name with an extension (`main.rs`, not `v1.2.0`), or
/// something that exists in the directory the command runs in.
fn names_a_path(word: &Word, cwd: &Cwd) -> bool {
    if word.dynamic {
        return false;
    }
    let text = word.text();
    if word.glob || text == "." || text.starts_with("./") || text.starts_with("../") {
        return true;
    }
    if text.starts_with(':') || text.starts_with('/') {
        return true;
    }
    let name = text.rsplit('/').next().unwrap_or(text);
    if EXTENSIONLESS_FILES.contains(&name) {
        return true;
    }
    let has_extension = name.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && !extension.is_empty()
            && extension.len() <= MAX_EXTENSION_CHARS
            && extension.chars().all(|c| c.is_ascii_alphanumeric())
            && extension.chars().any(|c| c.is_ascii_alphabetic())
    });
    has_extension
        || matches!(cwd, Cwd::Known(dirs) if dirs.iter().any(|dir| exists(&normalize(dir, text))))
}

/// Whether `path` exists (without following a final symlink).
fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// `git switch -f` / `--discard-changes`.
fn switch(args: &[Word]) -> Option<&'static str> {
    let parsed = split(
        args,
        &["-c", "-C", "--create", "--force-create", "--orphan"],
    );
    (parsed.has("--force", Some('f')) || parsed.has("--discard-changes", None))
        .then_some("switches branches discarding every uncommitted change")
}

/// `git restore PATH…` restores the work tree unless only `--staged` is given.
fn restore(args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, &["-s", "--source"]);
    let worktree = parsed.has("--worktree", Some('W'));
    let staged = parsed.has("--staged", Some('S'));
    let paths = !parsed.operands.is_empty() || parsed.has_prefix("--pathspec-from-file");
    (paths && (worktree || !staged)).then_some(OVERWRITES)
}

/// `git clean -f…` (not a dry run) deletes untracked files, which git never had.
fn clean(args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, &["-e", "--exclude"]);
    (parsed.has("--force", Some('f')) && !parsed.has("--dry-run", Some('n')))
        .then_some("deletes the untracked files of the work tree")
}

/// `git stash drop` / `clear`.
fn stash(args: &[Word]) -> Option<&'static str> {
    let subcommand = args.iter().find(|w| !w.text().starts_with('-'))?;
    (subcommand.is("drop") || subcommand.is("clear")).then_some("deletes stashed changes")
}

/// `git branch -d` / `-D` / `--delete`.
fn branch(args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, &[]);
    (parsed.has("--delete", Some('d')) || parsed.has("--delete", Some('D')))
        .then_some("deletes a local branch and the commits only it holds")
}

/// `git worktree remove --force`: deletes a work tree with its uncommitted changes.
fn worktree(args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, &[]);
    let removes = parsed.operands.first().is_some_and(|w| w.is("remove"));
    (removes && parsed.has("--force", Some('f')))
        .then_some("deletes a work tree together with its uncommitted changes")
}

/// `git rm -f` of the work tree (not `--cached`): deletes files with their uncommitted changes.
fn remove(args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, &["--pathspec-from-file"]);
    (parsed.has("--force", Some('f')) && !parsed.has("--cached", None))
        .then_some("deletes files together with their uncommitted changes (`--force`)")
}

/// `git reflog expire` / `delete`: the record that lets lost commits be found again.
fn reflog(args: &[Word]) -> Option<&'static str> {
    let subcommand = args.iter().find(|w| !w.text().starts_with('-'))?;
    (subcommand.is("expire") || subcommand.is("delete"))
        .then_some("deletes reflog entries, the record that lets lost commits be found again")
}

/// `git gc --prune=now` / `--prune=all`: deletes unreachable commits at once.
fn gc(args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, &[]);
    let now = parsed
        .value_of(&["--prune"])
        .is_some_and(|w| w.is("now") || w.is("all"));
    now.then_some("deletes unreachable commits at once, instead of after two weeks")
}

/// `git update-ref -d REF`.
fn update_ref(args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, &["-m"]);
    parsed
        .has("-d", None)
        .then_some("deletes a ref, and the commits only it holds")
}
