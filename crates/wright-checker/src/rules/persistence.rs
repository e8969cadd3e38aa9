//! Writes that plant something the user's own tools will later run or trust: shell startup
//! files, autostart entries and user services, SSH keys and cloud or registry credentials, the
//! user-wide settings of git, npm, pip and wright; `git config --global`/`--system` writes;
//! installing a crontab.
//!
//! Reading these files (`cat ~/.bashrc`), copying from them (`cp ~/.ssh/id_ed25519.pub .`),
//! creating `~/.ssh` and tightening its permissions (`chmod 600 ~/.ssh/config`) stay allowed;
//! so do the same names inside the project (a dotfiles repository).

use std::path::{Path, PathBuf};

use super::git::GitCommand;
use super::system::{absolute_paths, written};
use super::{Finding, Report, Rule, Site, quote};
use crate::argv::split;
use crate::script::{Env, Redirect};

/// Files in the home directory that shells, git, package managers and cloud tools read (and
/// run, or trust) on their own.
const PLANTED_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".mkshrc",
    ".xinitrc",
    ".xprofile",
    ".xsessionrc",
    ".pam_environment",
    ".gitconfig",
    ".git-credentials",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".netrc",
    ".pgpass",
    ".my.cnf",
    ".curlrc",
    ".docker/config.json",
    ".kube/config",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraformrc",
    ".pip/pip.conf",
    ".config/pip/pip.conf",
    ".config/gh/hosts.yml",
];

/// Directories in the home directory whose every file is read that way: SSH keys and
/// `authorized_keys`, cloud credentials, autostart entries, user services, fish and git
/// settings, wright's own settings.
const PLANTED_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".config/gcloud",
    ".config/autostart",
    ".config/systemd/user",
    ".local/share/systemd/user",
    ".config/environment.d",
    ".config/fish",
    ".config/git",
    ".config/wright",
    "Library/LaunchAgents",
];

/// Programs among [`written`]'s that only create, delete or change the metadata of files:
/// they plant nothing (deleting is `file-destroy`'s).
const NOT_PLANTING: &[&str] = &[
    "chmod", "chown", "chgrp", "touch", "mkdir", "mkfifo", "mknod", "setfacl", "chattr", "rm",
    "rmdir", "unlink", "shred", "truncate",
];

/// Programs that copy their sources into a target directory under the same names.
const COPIERS: &[&str] = &["cp", "mv", "ln", "install", "rsync", "scp"];

/// `git config` options that take a value.
const GIT_CONFIG_VALUES: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment"];

/// The planted file or directory `path` is or lies in, if any (see the module doc).
fn planted(path: &Path, env: Env<'_>) -> Option<PathBuf> {
    let home = env.home?;
    if path.starts_with(env.root) {
        return None;
    }
    let rel = path.strip_prefix(home).ok()?;
    let hit = PLANTED_FILES.iter().any(|f| rel == Path::new(f))
        || PLANTED_DIRS.iter().any(|d| rel.starts_with(d));
    hit.then(|| path.to_path_buf())
}

/// `> FILE` or `>> FILE` onto a planted file.
pub(super) fn redirect(redirect: &Redirect, env: Env<'_>, report: &mut Report) {
    let hit = absolute_paths(&redirect.target, &redirect.cwd)
        .into_iter()
        .find_map(|path| planted(&path, env));
    if let Some(path) = hit {
        report.findings.push(Finding::new(
            Rule::Persistence,
            reason(&quote(&redirect.text), &path),
            vec![redirect.text.clone()],
        ));
    }
}

fn reason(quoted: &str, path: &Path) -> String {
    format!(
        "{quoted} writes to {}, which your shell, git, ssh or other tools read and trust on \
         their own, outside the project.",
        path.display()
    )
}

/// The rules of this module for one command: its writes, and `crontab`.
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    if program == "crontab" {
        let parsed = split(site.args(), &["-u"]);
        if !(parsed.has("--list", Some('l')) || parsed.has("--remove", Some('r'))) {
            site.find(
                report,
                Rule::Persistence,
                format!(
                    "{} installs or edits a crontab: commands cron runs on its own, again and \
                     again.",
                    site.quoted()
                ),
            );
        }
        return;
    }
    if program == "chmod" {
        opened_to_others(site, report);
    }
    if NOT_PLANTING.contains(&program) {
        return;
    }
    let args = site.args();
    let targets = written(program, args);
    let mut paths: Vec<PathBuf> = Vec::new();
    for target in &targets {
        for path in absolute_paths(target, &site.command.cwd) {
            if COPIERS.contains(&program) {
                // `cp bashrc.sh ~/.bashrc` names the file; `cp .bashrc ~` names its directory.
                let names = args
                    .iter()
                    .filter(|w| !w.dynamic && !w.text().starts_with('-'))
                    .filter_map(|w| Path::new(w.text()).file_name());
                paths.extend(names.map(|name| path.join(name)));
            }
            paths.push(path);
        }
    }
    if let Some(path) = paths.iter().find_map(|p| planted(p, site.env)) {
        site.find(report, Rule::Persistence, reason(&site.quoted(), &path));
        return;
    }
    if COPIERS.contains(&program) {
        path_hijack(site, &paths, report);
    }
}

/// Whether a chmod mode lets the group or others write (`777`, `0666`, `o+w`, `a+rwx`, `+w`).
fn loosens(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        return digits.iter().rev().take(2).any(|d| d & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let (who, rest) = clause.split_at(clause.find(['+', '=']).unwrap_or(clause.len()));
        rest.contains('w') && (who.is_empty() || who.contains(['g', 'o', 'a']))
    })
}

/// `chmod 777 ~/.ssh`: lets other users write where the user's keys, credentials or startup
/// files are (tightening, `chmod 600 ~/.ssh/config`, is allowed).
fn opened_to_others(site: &Site<'_>, report: &mut Report) {
    let parsed = split(site.args(), &[]);
    let Some(mode) = parsed.operands.first().filter(|w| !w.dynamic) else {
        return;
    };
    if !loosens(mode.text()) {
        return;
    }
    let planted_target = super::delete::permission_targets(&parsed)
        .into_iter()
        .flat_map(|w| absolute_paths(w, &site.command.cwd))
        .find_map(|p| {
            planted(&p, site.env).or_else(|| (Some(p.as_path()) == site.env.home).then_some(p))
        });
    if let Some(path) = planted_target {
        site.find(
            report,
            Rule::Persistence,
            format!(
                "{} lets other users write {}, where they could plant keys or commands.",
                site.quoted(),
                path.display()
            ),
        );
    }
}

/// The user's own directories on `$PATH`, in the home directory.
const PATH_DIRS: &[&str] = &[".local/bin", "bin"];

/// A copy or link into a directory on the user's `$PATH` (`ln -sf /tmp/evil ~/.local/bin/git`)
/// of something from outside the project: it runs whenever the user types its name. Installing
/// what the project built (`cp target/release/tool ~/.local/bin/`) is allowed.
fn path_hijack(site: &Site<'_>, targets: &[PathBuf], report: &mut Report) {
    let Some(home) = site.env.home else {
        return;
    };
    let into_path = targets
        .iter()
        .any(|t| PATH_DIRS.iter().any(|d| t.starts_with(home.join(d))));
    if !into_path {
        return;
    }
    let operands: Vec<&crate::script::Word> = site
        .args()
        .iter()
        .filter(|w| w.dynamic || !w.text().starts_with('-'))
        .collect();
    let sources = operands.split_last().map_or(&[][..], |(_, rest)| rest);
    let foreign = sources.iter().any(|source| {
        let paths = absolute_paths(source, &site.command.cwd);
        paths.is_empty() || paths.iter().any(|p| !p.starts_with(site.env.root))
    });
    if foreign {
        site.find(
            report,
            Rule::Persistence,
            format!(
                "{} puts a program from outside the project on your $PATH, where it runs \
                 whenever its name is typed.",
                site.quoted()
            ),
        );
    }
}

/// `git config --global NAME VALUE` and other writes to the user's or the system's git
/// settings (`--system`, `--file ~/.gitconfig`); reads (`--get`, `--list`, a name alone) are
/// allowed.
pub(super) fn git_config(site: &Site<'_>, git: &GitCommand<'_>, report: &mut Report) {
    if !git.subcommand.is("config") {
        return;
    }
    let parsed = split(git.args, GIT_CONFIG_VALUES);
    let file_planted = parsed.value_of(&["-f", "--file"]).is_some_and(|file| {
        absolute_paths(file, &site.command.cwd)
            .iter()
            .any(|p| planted(p, site.env).is_some())
    });
    let scope = if parsed.has("--global", None) {
        "your git settings (--global)"
    } else if parsed.has("--system", None) {
        "the machine's git settings (--system)"
    } else if file_planted {
        "your git settings (--file)"
    } else {
        runs_programs(site, &parsed, report);
        return;
    };
    if config_writes(&parsed) {
        site.find(
            report,
            Rule::Persistence,
            format!(
                "{} changes {scope}, which every repository of yours uses.",
                site.quoted()
            ),
        );
    }
}

/// The repository's settings whose values git runs as programs (`core.fsmonitor`,
/// `core.hooksPath`, `alias.x = !…`, filters, diff drivers, credential helpers), lowercased:
/// set by the agent, they run outside the sandbox the next time anyone uses git here.
fn program_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let exact = [
        "core.fsmonitor",
        "core.hookspath",
        "core.sshcommand",
        "core.pager",
        "core.editor",
        "core.askpass",
        "sequence.editor",
        "credential.helper",
        "gpg.program",
        "gpg.ssh.program",
        "uploadpack.packobjectshook",
    ];
    let ends = [
        ".clean",
        ".smudge",
        ".process",
        ".textconv",
        ".driver",
        ".command",
    ];
    exact.contains(&key.as_str())
        || (key.starts_with("filter.") || key.starts_with("diff.") || key.starts_with("merge."))
            && ends.iter().any(|e| key.ends_with(e))
        || key.starts_with("credential.") && key.ends_with(".helper")
        || key.starts_with("pager.")
}

/// A local `git config` write of a setting git runs as a program (see [`program_key`]); an
/// alias is one when its value starts with `!`.
fn runs_programs(site: &Site<'_>, parsed: &crate::argv::Args<'_>, report: &mut Report) {
    let unsets = parsed.has("--unset", None)
        || parsed.has("--unset-all", None)
        || parsed.operands.first().is_some_and(|w| w.is("unset"));
    if !config_writes(parsed) || unsets {
        return;
    }
    let operands = &parsed.operands;
    let (key, value) = match operands.first().map(|w| w.text()) {
        Some("set") => (operands.get(1), operands.get(2)),
        _ => (operands.first(), operands.get(1)),
    };
    let Some(key) = key.map(|w| w.text()) else {
        return;
    };
    let alias = key.to_ascii_lowercase().starts_with("alias.")
        && value.is_some_and(|v| v.dynamic || v.text().trim_start().starts_with('!'));
    if program_key(key) || alias {
        site.find(
            report,
            Rule::Persistence,
            format!(
                "{} sets `{key}`, which git runs as a program the next time anyone uses git in \
                 this repository, outside the sandbox.",
                site.quoted()
            ),
        );
    }
}

/// Whether `git config ARGS` writes: a writing subcommand or option, or a name and a value.
fn config_writes(parsed: &crate::argv::Args<'_>) -> bool {
    let has = |long: &str| parsed.has(long, None) || parsed.has_prefix(&format!("{long}="));
    match parsed.operands.first().map(|w| w.text()) {
        Some("set" | "unset" | "rename-section" | "remove-section" | "edit") => return true,
        Some("get" | "list") => return false,
        _ => {}
    }
    let reads = [
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
    ]
    .iter()
    .any(|o| has(o))
        || parsed.has("--list", Some('l'))
        || has("--get-colorbool");
    let writes = [
        "--unset",
        "--unset-all",
        "--add",
        "--replace-all",
        "--rename-section",
        "--remove-section",
    ]
    .iter()
    .any(|o| has(o))
        || parsed.has("--edit", Some('e'));
    writes || (!reads && parsed.operands.len() >= 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::synthetic_words as words;

    #[test]
    fn git_config_writes_are_told_from_reads() {
        let writes = |args: &str| config_writes(&split(&words(args), GIT_CONFIG_VALUES));
        assert!(writes("--global user.name Ann"));
        assert!(writes("--global --unset user.email"));
        assert!(writes("--global --add safe.directory *"));
        assert!(writes("--global set core.editor vim"));
        assert!(!writes("--global --get user.name"));
        assert!(!writes("--global user.name"));
        assert!(!writes("--global --list"));
        assert!(!writes("--global -l"));
        assert!(!writes("get --global user.email"));
    }

    #[test]
    fn planted_paths_are_the_home_dotfiles_outside_the_project() {
        let env = Env {
            root: Path::new("/home/ann/proj"),
            home: Some(Path::new("/home/ann")),
            tmpdir: true,
        };
        let hit = |path: &str| planted(Path::new(path), env).is_some();
        assert!(hit("/home/ann/.bashrc"));
        assert!(hit("/home/ann/.ssh/authorized_keys"));
        assert!(hit("/home/ann/.ssh"));
        assert!(hit("/home/ann/.config/systemd/user/x.service"));
        assert!(!hit("/home/ann/proj/.bashrc"));
        assert!(!hit("/home/ann/.bashrc.bak"));
        assert!(!hit("/home/ann/.local/bin/tool"));
        assert!(!hit("/etc/profile"));
    }
}
