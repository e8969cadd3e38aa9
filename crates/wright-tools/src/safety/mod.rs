//! The dangerous-command checker (issue 6, "Safety"): run before every Bash command, in every
//! approval mode, it refuses commands that could do damage nothing can undo, saying why and
//! what to do instead.
//!
//! # How a command is read
//!
//! The command is parsed with tree-sitter-bash and every simple command in it is found, wherever
//! it sits: lists, pipelines, subshells, blocks, loops, functions, `$(…)`, `<(…)`. Words are
//! unquoted and `~`, `$HOME`, `$PWD`, `$(pwd)` and variables assigned earlier in the same
//! command are expanded; `cd DIR &&` is followed, so relative paths are judged from the right
//! directory. Wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, …) are peeled off to find the
//! program that runs. Command strings another shell runs — `bash -c '…'`, `sh -c`, `eval`,
//! `su -c`, `watch`, `alias` bodies, a heredoc or here-string fed to a shell, `echo '…' | sh`,
//! the strings interpreter one-liners hand to `system(…)` — are checked the same way, up to
//! four strings deep. When tree-sitter has to recover from a syntax error, the command is
//! also split at every unquoted `;`, `&`, `|` and newline and each piece checked on its own, so
//! a confused parse cannot hide a command. What nests deeper than the walk follows is refused.
//!
//! # What is refused
//!
//! Rules that cannot be overridden (see [`UNOVERRIDABLE_RULES`]), because nothing undoes them:
//! - `catastrophic-delete`: a recursive delete (`rm -r`, `find … -delete`, `rsync --delete`)
//!   or `mv` of `/`, a top-level directory other than `/tmp`, the home directory, a directory
//!   holding the project (`..`), a system directory or its direct children (`/usr/lib`);
//! - `fork-bomb`: a function that starts copies of itself in a pipe or the background, an
//!   endless loop starting background jobs, interpreter code forking in a loop;
//! - `disk-wipe`: `mkfs`/`fdisk`/`wipefs -a`/… on a device, `dd of=/dev/sda`, `> /dev/sda`;
//! - `system-permissions`: `chmod -R`/`chown -R` of `/`, home or a system directory.
//!
//! Rules that an `allow` pattern can override:
//! - `recursive-delete`: a recursive delete outside the project, of the whole project, of
//!   `.git`, or of a target that cannot be known (`rm -rf "$X"/`, `xargs rm -rf` fed by
//!   anything but a listing of the project);
//! - `recursive-permissions`: `chmod -R`/`chown -R` outside the project;
//! - `disk-format`: `mkfs` and partitioners on something that is not a device;
//! - `power`: `shutdown`, `reboot`, `halt`, `systemctl poweroff`, `kill -9 -1`, …;
//! - `pipe-to-shell`: downloaded or decoded text run as code (`curl … | sh`, `bash <(curl …)`,
//!   `eval "$(wget -O- …)"`, `base64 -d | sh`);
//! - `system-write`: writes into `/etc`, `/boot`, `/usr`, `/bin`, `/dev`, … by redirection or by
//!   the programs that write files (`tee`, `cp`, `sed -i`, `dd of=`, …);
//! - `force-push`: `git push --force` or `--delete` of a protected branch;
//! - `privilege`: `sudo`, `doas`, `su`, `pkexec`;
//! - `nesting` and `unparsable`: what cannot be checked.
//!
//! A `deny` pattern refuses a command (rule `denied`) whatever the builtin rules say.
//!
//! # Limits
//!
//! The checker reads the command, not the programs it runs: a script file (`bash cleanup.sh`),
//! a Makefile target, or interpreter code beyond its literal `system(…)` strings and
//! `rmtree(…)`-style calls is not looked into. Downloading a script to a file and then running
//! it is not refused. Paths are judged lexically (symlinks are not followed), and commands run
//! elsewhere (`ssh host …`, `docker run … sh -c …`) are not checked.

mod argv;
mod parse;
mod paths;
mod policy;
mod rules;
mod script;
mod words;

use std::fmt;
use std::path::Path;

pub use policy::{CommandPolicy, DEFAULT_PROTECTED_BRANCHES};

use rules::{Finding, Rule};
use script::{Cwd, Env, Scope, Script};

/// The rules an `allow` pattern cannot override: what they refuse cannot be undone.
pub const UNOVERRIDABLE_RULES: [&str; 5] = [
    "catastrophic-delete",
    "fork-bomb",
    "disk-wipe",
    "system-permissions",
    "denied",
];

/// How many command strings deep (`bash -c "eval '…'"`) the checker follows.
const MAX_NESTING: usize = 4;

/// Most command strings checked for one command (loop variables can multiply them).
const MAX_SCRIPTS: usize = 256;

/// Why a command was not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The rule that refused it, e.g. `catastrophic-delete`.
    pub rule: &'static str,
    /// What the command would have done, quoting it.
    pub reason: String,
    /// What to do instead.
    pub instead: String,
}

impl Refusal {
    /// Whether an `allow` pattern in the settings could let the command through.
    pub fn overridable(&self) -> bool {
        !UNOVERRIDABLE_RULES.contains(&self.rule)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the safety check refused this command (rule `{}`): {} Instead, {}.",
            self.rule, self.reason, self.instead
        )?;
        if self.overridable() {
            write!(
                f,
                " Only the user can allow it, with an `allow` pattern under [bash] in \
                 .wright/config.toml."
            )
        } else {
            write!(f, " This rule cannot be turned off.")
        }
    }
}

/// Checks one Bash command before it runs in `project_root` (canonical) for a user whose home
/// is `home`. `Ok` means no rule refuses it.
pub fn check(
    command: &str,
    project_root: &Path,
    home: Option<&Path>,
    policy: &CommandPolicy,
) -> Result<(), Refusal> {
    let mut checker = Checker {
        env: Env {
            root: project_root,
            home,
        },
        policy,
        findings: Vec::new(),
        scripts: 0,
    };
    checker.script(
        command,
        Cwd::Known(vec![project_root.to_path_buf()]),
        0,
        true,
    );
    checker.verdict()
}

struct Checker<'a> {
    env: Env<'a>,
    policy: &'a CommandPolicy,
    findings: Vec<Finding>,
    /// Command strings checked so far.
    scripts: usize,
}

impl Checker<'_> {
    /// Checks `text` running in `cwd`, `depth` command strings deep. `fallback`: also check its
    /// pieces when the parse had to recover from an error.
    fn script(&mut self, text: &str, cwd: Cwd, depth: usize, fallback: bool) {
        self.scripts += 1;
        if depth > MAX_NESTING || self.scripts > MAX_SCRIPTS {
            self.findings.push(Finding::new(
                Rule::Nesting,
                format!(
                    "{} nests command strings too deeply (or too many) to be checked.",
                    rules::quote(text)
                ),
                vec![text.to_string()],
            ));
            return;
        }
        let script = match parse::parse(text, self.env, Scope::at(cwd.clone())) {
            Ok(script) => script,
            Err(error) => {
                self.findings.push(Finding::new(
                    Rule::Unparsable,
                    format!("{} cannot be checked: {error}.", rules::quote(text)),
                    vec![text.to_string()],
                ));
                return;
            }
        };
        if script.too_deep {
            self.findings.push(Finding::new(
                Rule::Nesting,
                format!("{} nests too deeply to be checked.", rules::quote(text)),
                vec![text.to_string()],
            ));
        }
        self.deny(&script, text);
        let report = rules::check(&script, self.env, self.policy);
        self.findings.extend(report.findings);
        for nested in report.nested {
            self.script(&nested.text, nested.cwd, depth + 1, true);
        }
        if script.has_error && fallback {
            for piece in pieces(text) {
                if piece.trim() != text.trim() {
                    self.script(piece, cwd.clone(), depth, false);
                }
            }
        }
    }

    /// Refuses what a `deny` pattern matches: the whole text, a pipeline, or one command.
    fn deny(&mut self, script: &Script, text: &str) {
        if self.policy.deny.is_empty() {
            return;
        }
        let mut candidates = vec![text.to_string()];
        candidates.extend(script.pipelines.iter().map(|p| p.text.clone()));
        for command in &script.commands {
            candidates.push(command.text.clone());
            candidates.push(rules::words_text(&command.argv));
            candidates.push(rules::words_text(argv::unwrap(&command.argv).argv));
        }
        let denied = candidates
            .iter()
            .find_map(|c| self.policy.denying(c).map(|p| (c, p)));
        if let Some((command, pattern)) = denied {
            self.findings.push(Finding::new(
                Rule::Denied,
                format!(
                    "{} matches the deny pattern `{pattern}` in the settings.",
                    rules::quote(command)
                ),
                vec![command.clone()],
            ));
        }
    }

    /// The refusal to give, if any: a rule nothing overrides first, then a deny pattern, then
    /// the first other rule no allow pattern overrides.
    fn verdict(self) -> Result<(), Refusal> {
        let findings = &self.findings;
        let chosen = findings
            .iter()
            .find(|f| !f.rule.overridable() && f.rule != Rule::Denied)
            .or_else(|| findings.iter().find(|f| f.rule == Rule::Denied))
            .or_else(|| {
                findings
                    .iter()
                    .find(|f| !f.sources.iter().any(|s| self.policy.allows(s)))
            });
        match chosen {
            None => Ok(()),
            Some(finding) => Err(Refusal {
                rule: finding.rule.id(),
                reason: finding.reason.clone(),
                instead: finding.instead.clone(),
            }),
        }
    }
}

/// `text` cut at every `;`, `&`, `|`, newline, parenthesis and backquote outside quotes: the
/// pieces checked on their own when the parse went wrong.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') | (None, '\\') => escaped = true,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ';' | '&' | '|' | '\n' | '(' | ')' | '`') => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            (None, _) => {}
        }
    }
    out.push(&text[start..]);
    out.retain(|piece| !piece.trim().is_empty());
    out
}

#[cfg(test)]
mod tests;
