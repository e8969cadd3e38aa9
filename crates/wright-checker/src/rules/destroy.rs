//! Destroying single files outside the project, where neither git nor the project can bring them
//! back: shredding (anywhere but the project), truncating, deleting (`rm ~/notes.txt`; recursive
//! deletes are `recursive-delete`'s) or overwriting with `>`, and clearing the shell's history.
//!
//! Files in the system's temporary directory are scratch and stay allowed (`rm -f /tmp/out.log`,
//! `cargo test > /tmp/log`), as do appends (`>> ~/notes.txt`, judged by `persistence` when the
//! file is a startup or credential file) and targets that cannot be known (`rm "$f"`). Files in
//! system directories are `system-write`'s.

use super::system::{absolute_paths, written};
use super::{Finding, Report, Rule, Site, quote};
use crate::argv::split;
use crate::paths::{Place, place, system_dir};
use crate::script::{Env, Redirect, Word};

/// Programs that overwrite a file's content before deleting it, so nothing can recover it.
const SHREDDERS: &[&str] = &["shred", "srm", "wipe"];

/// Value options of `shred`, `srm`, `wipe` and `truncate`.
const VALUE_OPTIONS: &[&str] = &["-n", "--iterations", "-s", "--size", "-r", "--reference"];

/// The first path of `word` that lies outside the project and the temporary directory, and not
/// in a system directory.
fn outside(word: &Word, cwd: &crate::script::Cwd, env: Env<'_>) -> Option<String> {
    absolute_paths(word, cwd)
        .into_iter()
        .find(|path| {
            place(path, env.root, env.home) == Place::Outside && system_dir(path).is_none()
        })
        .map(|path| path.display().to_string())
}

/// The rules of this module for one command.
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    let parsed = split(site.args(), VALUE_OPTIONS);
    let cwd = &site.command.cwd;
    let what = match program {
        _ if SHREDDERS.contains(&program) => parsed
            .operands
            .iter()
            .find(|word| {
                let paths = absolute_paths(word, cwd);
                paths.is_empty()
                    || paths
                        .iter()
                        .any(|p| place(p, site.env.root, site.env.home) != Place::Inside)
            })
            .map(|word| format!("overwrites {} beyond recovery", word.text())),
        "truncate" => parsed
            .operands
            .iter()
            .find_map(|w| outside(w, cwd, site.env))
            .map(|path| format!("cuts {path} short, losing what it held")),
        "rm" | "unlink"
            if !(parsed.has("--recursive", Some('r')) || parsed.has("--recursive", Some('R'))) =>
        {
            parsed
                .operands
                .iter()
                .find_map(|w| outside(w, cwd, site.env))
                .map(|path| format!("deletes {path}"))
        }
        "history" if parsed.has("-c", Some('c')) || parsed.has("-d", Some('d')) => {
            Some("clears the shell's history".to_string())
        }
        "journalctl"
            if site
                .args()
                .iter()
                .any(|w| w.text().starts_with("--vacuum-")) =>
        {
            Some("deletes the system's journal (its logs)".to_string())
        }
        "set"
            if site
                .args()
                .windows(2)
                .any(|w| w[0].is("+o") && w[1].is("history")) =>
        {
            Some("turns the shell's history off".to_string())
        }
        _ if written(program, site.args())
            .iter()
            .flat_map(|w| absolute_paths(w, cwd))
            .any(|p| is_history_file(&p)) =>
        {
            Some("replaces or deletes the shell's history".to_string())
        }
        _ => None,
    };
    if let Some(what) = what {
        site.find(
            report,
            Rule::FileDestroy,
            format!(
                "{} {what}, outside the project, where git cannot bring it back.",
                site.quoted()
            ),
        );
    }
}

/// Files where shells and REPLs keep their history.
const HISTORY_FILES: &[&str] = &[
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".sh_history",
    ".history",
    ".local/share/fish/fish_history",
];

fn is_history_file(path: &std::path::Path) -> bool {
    HISTORY_FILES.iter().any(|name| path.ends_with(name))
}

/// Assignments that turn the shell's history off: `export HISTFILE=/dev/null`, `unset
/// HISTFILE`, `HISTSIZE=0`.
pub(super) fn history_off(script: &crate::script::Script, report: &mut Report) {
    for text in &script.history_off {
        report.findings.push(Finding::new(
            Rule::FileDestroy,
            format!(
                "{} turns the shell's history off, hiding what runs from the user.",
                quote(text)
            ),
            vec![text.clone()],
        ));
    }
}

/// `> FILE` (not `>>`) onto a file outside the project: what it held is gone.
pub(super) fn redirect(redirect: &Redirect, env: Env<'_>, report: &mut Report) {
    if redirect.text.contains(">>") {
        return;
    }
    if let Some(path) = outside(&redirect.target, &redirect.cwd, env) {
        report.findings.push(Finding::new(
            Rule::FileDestroy,
            format!(
                "{} overwrites {path}, outside the project, where git cannot bring it back.",
                quote(&redirect.text)
            ),
            vec![redirect.text.clone()],
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Cwd;
    use crate::words::synthetic_words as words;
    use std::path::Path;

    #[test]
    fn only_paths_outside_the_project_and_temp_are_outside() {
        let env = Env {
            root: Path::new("/home/ann/proj"),
            home: Some(Path::new("/home/ann")),
            tmpdir: true,
        };
        let cwd = Cwd::Known(vec!["/home/ann/proj".into()]);
        let judged = |path: &str| outside(&words(path)[0], &cwd, env);
        assert_eq!(
            judged("/home/ann/notes.txt").as_deref(),
            Some("/home/ann/notes.txt")
        );
        assert_eq!(
            judged("../other/a.db").as_deref(),
            Some("/home/ann/other/a.db")
        );
        assert_eq!(judged("out.log"), None);
        assert_eq!(judged("/tmp/out.log"), None);
        assert_eq!(judged("/etc/hosts"), None);
        assert_eq!(judged("/dev/null"), None);
    }
}
