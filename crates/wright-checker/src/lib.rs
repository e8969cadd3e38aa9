//! The dangerous-command checker: judges a shell command before it runs — **allow**, **ask**
//! (only the user may let it run) or **refuse** (it never runs) — naming the rule that decided,
//! why, and what to do instead.
//!
//! A pure function of the command, the project root, the home directory and the user's
//! [`CommandPolicy`]: [`check`] runs nothing and reads nothing but the project's `.git/HEAD`
//! and where the symlinks in delete targets (and `git checkout` operands) lead.
//! wright's Bash tool asks it before every command, in every approval mode; `wright check`
//! prints its verdicts for commands the user types.
//!
//! This crate is not for running commands, confining them (the sandbox lives with the Bash
//! tool), or asking the user (the approval gate in wright-core turns an `ask` into a question,
//! or into a refusal in `auto` mode).
//!
//! # How a command is read
//!
//! The command is parsed with tree-sitter-bash and every simple command in it is found, wherever
//! it sits: lists, pipelines, subshells, blocks, loops, functions, `$(…)`, `<(…)`. Words are
//! unquoted and `~`, `$HOME`, `$PWD`, `$(pwd)`, `$(git rev-parse --show-toplevel)` (the
//! project root: the checker is given the repository's root), `${TMPDIR:-/tmp}` and variables
//! and arrays assigned earlier in the same command are expanded; `cd DIR &&` (also `builtin cd`, `command cd`) is followed, so relative
//! paths are judged from the right directory. A command word split from a known value
//! (`c="rm -rf /"; $c`, after `IFS=_`) is split as the shell would and judged as the command it
//! makes; so is a list as the command word (`"$@"` after `set -- …`, `"${cmd[@]}"` after
//! `cmd=(…)`), and an unknown one is asked about (but for `"$@"` in a function's body).
//! Wrappers (`sudo`, `env`, `nice`, `timeout`, `xargs`, `parallel`, `uv run`, …) are
//! peeled off to find the program that runs; what `xargs -I`/`-J` and GNU `parallel` run once
//! per input is checked with each input put in (`::: ~ /`, or `echo`/`printf`/a heredoc on
//! their stdin), and an input that cannot be known stands in as an unknown value. Command
//! strings another shell runs — `bash -c '…'`, `sh -c`,
//! `eval`, `su -c`, `watch`, `alias` bodies, `bash -c "$(cat <<EOF … EOF)"`, a heredoc or
//! here-string fed to a shell, `echo '…' | sh` — are checked the same way, up to four strings
//! deep, with the unknown values pasted into them standing as unknown code. Interpreter
//! code — `python -c`, `node -e`, `deno eval`, `ruby -e`, `perl -e`, `lua -e`, and code fed
//! to an interpreter on stdin (`python3 <<EOF`, `python - <<'PY'`, here-strings, `echo … |
//! node`, `deno run -`, `lua -`) —
//! is read for the commands it runs (`os.system`, `subprocess.run([…])`, `execSync`,
//! `spawnSync('rm', […])`, `system`, backquotes, `%x{}`, `qx{}`), which are checked as shell
//! commands, and for what it deletes (`shutil.rmtree`, `fs.rmSync(…, {recursive: true})`,
//! `FileUtils.rm_rf`, `rmtree`, `os.remove`, `unlink`), judged like `rm -rf PATH` or `rm PATH`
//! (a path joined from a literal and a computed leaf, `os.path.join('/etc', f)`, or a
//! `glob("/etc/*.conf")`, is judged as the glob `/etc/*`; a delete of a computed path, as in
//! `p.unlink()` or `os.remove(os.path.join(r, f))`, in code that names `/`, a system directory
//! or the home directory — `os.walk('/etc')`, `Path.home().rglob('*')`, `$ENV{HOME}` — is
//! asked about as `recursive-delete`). awk's program is read for the
//! commands `system("…")`, `print | "…"` and `"…" | getline` run (a computed
//! value in `system("rm -rf " $0)` stays unknown). When tree-sitter has to recover from a
//! syntax error, the command is
//! also split at every unquoted `;`, `&`, `|` and newline and each piece checked on its own, so
//! a confused parse cannot hide a command. What nests deeper than the walk follows is asked
//! about.
//!
//! # What is refused, and what is asked
//!
//! Rules that refuse and cannot be overridden (see [`UNOVERRIDABLE_RULES`]), because nothing
//! undoes them:
//! - `catastrophic-delete`: a recursive delete (`rm -r`, `find … -delete`, `rsync --delete`)
//!   or `mv` of `/`, a top-level directory other than `/tmp`, the home directory, a directory
//!   holding the project (`..`), a system directory or its direct children (`/usr/lib`);
//! - `fork-bomb`: a function that starts copies of itself in a pipe or the background, an
//!   endless loop starting background jobs, interpreter code forking in a loop;
//! - `disk-wipe`: `mkfs`/`fdisk`/`wipefs -a`/… on a device, `dd of=/dev/sda`, `> /dev/sda`;
//! - `system-permissions`: `chmod -R`/`chown -R` of `/`, home or a system directory.
//!
//! Rules that ask: the user decides, and an `allow` pattern lets the command through without
//! asking:
//! - `recursive-delete`: a recursive delete outside the project (deleting strictly inside the
//!   system temporary directory — `/tmp/x`, `"$TMPDIR"/x`, `"$(mktemp -d)"`, an entry named by
//!   a literal start and values that cannot hold a `/` (`/tmp/pytest-of-$USER`, `build-$$`;
//!   `/tmp/$X` and `/tmp/build-$X` are asked about) — is allowed, as
//!   the sandbox lets commands write there; `/tmp` itself and `/tmp/*` are not), of the whole
//!   project, of
//!   `.git`, or of a target that cannot be known (`rm -rf "$X"/`, `xargs rm -rf` fed by
//!   anything but a listing inside the project; `find . | xargs rm -rf` and `ls | xargs rm -rf`
//!   list all of it, as `find . -delete` deletes all of it — only `find`'s own primaries count,
//!   not the words of an `-exec` command, and `-type` and `-name '*'` narrow nothing; a plain
//!   `rm` fed such a listing, `find . -type f | xargs rm -f` or `| parallel -0 rm`, deletes
//!   every file and is asked about too, and so is any delete fed a listing outside the project,
//!   `find ~ -type f | xargs rm -f`, as `file-destroy`);
//! - `recursive-permissions`: `chmod -R`/`chown -R` outside the project;
//! - `disk-format`: `mkfs` and partitioners on something that is not a device;
//! - `power`: `shutdown`, `reboot`, `halt`, `systemctl poweroff`, `kill -9 -1`, and `pkill`/
//!   `killall` of every process (`pkill -f .`, `pkill -u ann`, `pkill -v x`; a developer's
//!   `pkill -f 'node server.js'` names what it stops and is allowed), `killall5`, `kill` of
//!   every listed process (`kill -9 $(ps -e -o pid=)`, `kill $(pgrep .)`), …;
//! - `pipe-to-shell`: downloaded or decoded text run as code (`curl … | sh`, `bash <(curl …)`,
//!   `eval "$(wget -O- …)"`, `base64 -d | sh`), also a file downloaded and run in the same
//!   command (`curl -o x.sh URL && bash x.sh`, `wget URL -O b && chmod +x b && ./b`,
//!   `curl URL > x.sh; sh x.sh`);
//! - `system-write`: writes into `/etc`, `/boot`, `/usr`, `/bin`, `/dev`, `/var/log`,
//!   `/var/lib`, … by redirection or by the programs that write, delete or change files (`tee`,
//!   `cp`, `sed -i`, `dd of=`, `rm`, `chmod`, `chown`, …), one file being enough, or by a
//!   delete fed a listing of them (`find /etc -name '*.conf' | xargs rm`);
//! - `force-push`: `git push --force` or `--delete` of a protected branch;
//! - `discard-git-work`: git commands that throw away local work — `git reset --hard`/`--merge`,
//!   `git checkout -- PATH`/`.`/`-f`, `git switch -f`, `git restore` of the work tree,
//!   `git clean -f`, `git stash drop`/`clear`, `git branch -d`/`-D`, `git worktree remove
//!   --force`, deleting a remote branch, `git reflog expire`, `git gc --prune=now` (unstaging,
//!   `git reset --soft`, switching or creating branches, `git stash pop` stay allowed);
//! - `system-admin`: administering the machine — the firewall (`iptables -F`, `nft flush
//!   ruleset`), kernel modules and settings (`insmod`, `modprobe`, `sysctl -w`), users and
//!   passwords (`userdel`, `passwd`), mounts and swap (`mount`, `umount`, `swapoff`), services
//!   (`systemctl stop|disable|mask|restart|kill|isolate|start|enable`, `service X stop`,
//!   `/etc/init.d/X restart`, `launchctl unload`; `status`, `show`, `cat`, `is-active`,
//!   `list-units` are allowed) and the system's daemons by name (`killall sshd`,
//!   `pkill dockerd`), and removing system packages (`apt-get remove|purge|autoremove`,
//!   `dpkg -r|-P`, `dnf|yum remove`, `rpm -e`, `pacman -R`, `apk del`, `zypper rm`; installing
//!   is allowed, as are `pip|npm|cargo uninstall`). Without
//!   root they fail; when wright runs as root (in a container) they change the whole system, so
//!   they are asked about whoever runs wright; their reading forms (`iptables -L`, `mount`)
//!   are allowed;
//! - `infra-destroy`: destroying infrastructure and data outside the project — Docker volumes
//!   and every container or image at once (`docker volume prune`, `docker system prune -a`,
//!   `docker rm -f $(docker ps -aq)`, `docker compose down -v`), `terraform destroy`/`apply
//!   -destroy`, `pulumi destroy`, `kubectl delete`/`drain`, `kubectl scale --replicas=0`,
//!   `helm uninstall`, cloud storage and
//!   resources (`aws s3 rm`/`rb`, `aws … delete-*`/`terminate-*`, `gsutil rm`, `gcloud …
//!   delete`, `az … delete`), databases (`dropdb`, `DROP`/`TRUNCATE`/`DELETE FROM` without
//!   `WHERE` given to `psql`/`mysql`/`sqlite3`/… as options or on stdin, also through `docker
//!   exec`), `redis-cli flushall`, MongoDB's `dropDatabase()`, frameworks' database resets
//!   (`rails db:drop|db:reset`, `rake db:drop`, `prisma migrate reset`, `manage.py flush`,
//!   `php artisan migrate:fresh|db:wipe`, `mix ecto.reset`, `dotnet ef database drop`). Their
//!   neighbours stay allowed:
//!   `docker compose down`, removing one named container or image, plain `docker system prune`,
//!   `terraform plan`, `kubectl get`/`apply`;
//! - `persistence`: writing (redirection, `tee`, `cp`/`mv`/`ln`/`install` onto, `sed -i`, …)
//!   shell startup files (`~/.bashrc`, `~/.profile`, `~/.zshrc`, fish's config), anything in
//!   `~/.ssh`, `~/.aws`, `~/.gnupg`, autostart and user-service directories, credentials and
//!   user-wide settings (`~/.gitconfig`, `~/.npmrc`, `~/.pypirc`, `~/.netrc`,
//!   `~/.docker/config.json`, `~/.config/wright/`); `git config --global`/`--system` writes
//!   (reads are allowed); the repository's settings git runs as programs (`git config
//!   core.fsmonitor|core.hooksPath|core.sshCommand|core.pager|core.editor|credential.helper`,
//!   `alias.x '!…'`, `filter.*.smudge|clean|process`, `diff.*.textconv`); installing a
//!   crontab; letting others write there (`chmod 777 ~/.ssh`); a program from outside the
//!   project linked or copied into `~/.local/bin` or `~/bin` (`ln -sf /tmp/evil
//!   ~/.local/bin/git`; installing the project's own build there is allowed). Reading them,
//!   `mkdir -p ~/.ssh` and tightening `chmod` are allowed;
//! - `file-destroy`: destroying single files outside the project and the temporary directory —
//!   `shred`/`srm`/`wipe` (of anything but project files), `truncate`, non-recursive `rm` and
//!   `unlink`, overwriting with `>` (appending with `>>` is allowed) — and clearing or turning
//!   off the shell's history (`history -c`/`-d`, `ln -sf /dev/null ~/.bash_history`,
//!   `export HISTFILE=/dev/null`, `unset HISTFILE`, `HISTSIZE=0`, `set +o history`) or the
//!   system's journal (`journalctl --vacuum-time=1s`);
//! - `privilege`: `sudo`, `doas`, `su`, `pkexec`, and containers handed the host (`docker
//!   run --privileged`, `--pid=host`, `--cap-add=SYS_ADMIN`, `-v /:/host`, the Docker socket or
//!   a system directory mounted in, `docker exec --privileged`), and the other doors to root:
//!   `nsenter`, `setcap`, talking to the Docker socket (`curl --unix-socket
//!   /var/run/docker.sock …`); `-v "$PWD":/app`, named volumes, `--network host` stay
//!   allowed;
//! - `exfiltration`: sending secrets over the network — a sender (`curl -d/-F/-T/--data*`,
//!   `wget --post-file/--post-data`, `nc`, `socat`, `telnet`, `ssh` fed on stdin, `scp`/`rsync`/
//!   `rclone`/`aws s3 cp` to another machine, `gh gist create`, DNS lookups) given a secret
//!   file (`~/.ssh` keys, `~/.aws`, `~/.netrc`, `~/.docker/config.json`, `~/.kube/config`,
//!   `/etc/shadow`, `/proc/*/environ`, the project's `.env`, …), the environment (`env`,
//!   `printenv`, `set`), a token command's output (`gh auth token`) or a secret-named variable
//!   (`$OPENAI_API_KEY`) as its payload or in its URL, by argument, redirection, pipe or `$(…)`;
//!   and reverse shells (`nc -e /bin/sh`, `bash -i >& /dev/tcp/…`, `socat exec:… tcp:…`, a
//!   socket joined to a shell in interpreter code), and `ssh -R` (a port on another machine
//!   leading back into this one). Credentials where services expect them
//!   stay allowed: headers (`-H "Authorization: Bearer $TOKEN"`), `-u`, the user part of a URL;
//!   so do public keys (`cat ~/.ssh/id_rsa.pub | ssh host …`) and `env | grep PATH`;
//! - `word-splitting`: a command word assembled from a value that cannot be known;
//! - `unknown-code`: command text only known when it runs, run as code — an unknown value
//!   pasted into a command string (`eval "$X"`, `bash -c "$c"`, also from the environment),
//!   a command word holding text read from a file or input (`c=$(cat cmd.txt); $c`, `read -r
//!   c; $c`, `$(cat cmd.txt)`, `mapfile`), awk's `system()` of a computed value, unknown lines
//!   fed to `parallel` or `xargs -I{} {}`. A program the environment names (`$CC -o x x.c`,
//!   `"$EDITOR" f`) or a program prints (`eval "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`)
//!   is trusted like running it; `printf -v c FORMAT ARGS` with known arguments is judged as
//!   the text it makes;
//! - `nesting` and `unparsable`: what cannot be checked.
//!
//! A `deny` pattern refuses a command (rule `denied`) whatever the builtin rules and the allow
//! patterns say.
//!
//! # Read-only commands
//!
//! [`read_only`] answers another question about a command: can it only read? Plan mode and
//! read-only sub-agents run Bash commands only when it says so, and without asking, so it is
//! an allowlist: reading programs (`ls`, `cat`, `grep`, `rg`, `find`, `jq`, `git log`, …) with
//! the arguments that keep them reading (`sed` without `-i` and without `w`/`e` in its script,
//! `awk` without `system()` or redirections in its program, `find` without `-delete`, `sort`
//! without `-o`, `git branch` only listing), wrappers judged by the command they run, output
//! only to `/dev/null`, no arguments only known when the command runs where they could be a
//! writing option, no variables that change what programs run (`PATH`, `GIT_*`), and nothing
//! that contacts another machine. Everything else is refused, with the first part to blame.
//!
//! # Limits
//!
//! The checker reads the command, not the programs it runs: a script file (`bash cleanup.sh`),
//! a Makefile target, or interpreter code beyond the literal arguments of its command-running
//! and deleting calls (a path held in a variable or computed, `shutil.rmtree(d)`) is not
//! looked into (but a computed delete in code that names a system or the home directory is
//! asked about). A script downloaded by an earlier command and run now is not seen. Paths are
//! judged as written and, for delete targets, also where their symlinks lead on disk when the
//! command is checked (`rm -rf link/` where `link` points out of the project is judged where it
//! points; `rm -rf link` only removes the link): a link created by the same command, or changed
//! before it runs, is not seen. `$TMPDIR` is taken to be the temporary directory unless the
//! command could set it. Commands run elsewhere (`ssh host …`, `docker run … sh -c …`) are not
//! checked, except that `docker exec`/`docker compose exec` of a database tool is read by the
//! `infra-destroy` rule.

mod argv;
mod parse;
mod paths;
mod policy;
mod readonly;
mod rules;
mod script;
mod words;

use std::fmt;
use std::path::Path;

pub use policy::{CommandPolicy, DEFAULT_PROTECTED_BRANCHES};
pub use readonly::read_only;

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

/// The rule named by a verdict that no rule flagged.
pub const NO_RULE: &str = "none";

/// The rule named by a verdict that an `allow` pattern let through.
pub const ALLOW_PATTERN_RULE: &str = "allow-pattern";

/// What may happen to a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// It may run (in `ask` mode the user is still asked, as for every command).
    Allow,
    /// Only the user may let it run: they are asked even in `auto-edit` mode, and in `auto`
    /// mode, where no one is asked, it is refused.
    Ask,
    /// It never runs, whoever approves it.
    Refuse,
}

impl Decision {
    /// The decision as `wright check` prints it: `allow`, `ask` or `refuse`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Refuse => "refuse",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The checker's judgement of one command: what may happen to it, the rule that decided, why,
/// and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Allow, ask or refuse.
    pub decision: Decision,
    /// The rule that decided, e.g. `catastrophic-delete`; [`NO_RULE`] when nothing flagged the
    /// command, [`ALLOW_PATTERN_RULE`] when an `allow` pattern let it through.
    pub rule: &'static str,
    /// What the command would do, quoting it (for an allowed command, why it is allowed).
    pub reason: String,
    /// What to do instead; empty for an allowed command.
    pub instead: String,
}

impl Verdict {
    /// Whether the command may run without the user's say-so.
    pub fn is_allowed(&self) -> bool {
        self.decision == Decision::Allow
    }

    /// What the model is told when the command is not run because of this verdict: the rule,
    /// the reason, what to do instead, and whether the user could allow it.
    pub fn refusal_message(&self) -> String {
        let mut message = format!(
            "the safety check refused this command (rule `{}`): {} Instead, {}.",
            self.rule, self.reason, self.instead
        );
        match self.decision {
            Decision::Ask => message.push_str(
                " Only the user can allow it, with an `allow` pattern under [bash] in \
                 .wright/config.toml.",
            ),
            Decision::Refuse | Decision::Allow => {
                message.push_str(" This rule cannot be turned off.")
            }
        }
        message
    }

    fn allowed(rule: &'static str, reason: String) -> Self {
        Self {
            decision: Decision::Allow,
            rule,
            reason,
            instead: String::new(),
        }
    }
}

impl fmt::Display for Verdict {
    /// `DECISION (rule RULE): REASON`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (rule {}): {}", self.decision, self.rule, self.reason)
    }
}

/// Judges one Bash command before it runs in `project_root` (canonical) for a user whose home
/// is `home`, under the user's `policy`. Nothing is run; only the project's `.git/HEAD` is read
/// (to know the branch a bare `git push --force` pushes), and symlinks in delete targets are
/// resolved (without opening anything).
pub fn check(
    command: &str,
    project_root: &Path,
    home: Option<&Path>,
    policy: &CommandPolicy,
) -> Verdict {
    let mut checker = Checker {
        env: Env {
            root: project_root,
            home,
            tmpdir: script::trusts_tmpdir(command),
        },
        policy,
        findings: Vec::new(),
        scripts: 0,
    };
    checker.script(
        command,
        Cwd::Known(vec![project_root.to_path_buf()]),
        &[],
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
    /// Checks `text` running in `cwd`, `depth` command strings deep, with the unknown values
    /// `spliced` into it by the shell that handed it over. `fallback`: also check its pieces
    /// when the parse had to recover from an error.
    fn script(&mut self, text: &str, cwd: Cwd, spliced: &[String], depth: usize, fallback: bool) {
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
            Ok(script) => Script {
                spliced: spliced.to_vec(),
                ..script
            },
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
            self.script(&nested.text, nested.cwd, &nested.spliced, depth + 1, true);
        }
        if script.has_error && fallback {
            for piece in pieces(text) {
                if piece.trim() != text.trim() {
                    self.script(piece, cwd.clone(), spliced, depth, false);
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

    /// The verdict: a rule nothing overrides refuses first, then a deny pattern; then the
    /// first other finding no allow pattern covers asks; findings all covered are allowed by
    /// their pattern.
    fn verdict(self) -> Verdict {
        let findings = &self.findings;
        let refusing = findings
            .iter()
            .find(|f| !f.rule.overridable() && f.rule != Rule::Denied)
            .or_else(|| findings.iter().find(|f| f.rule == Rule::Denied));
        if let Some(finding) = refusing {
            return finding.verdict(Decision::Refuse);
        }
        let uncovered = findings
            .iter()
            .find(|f| !f.sources.iter().any(|s| self.policy.allows(s)));
        if let Some(finding) = uncovered {
            return finding.verdict(Decision::Ask);
        }
        let covered = findings.iter().find_map(|f| {
            f.sources
                .iter()
                .find_map(|s| self.policy.allowing(s))
                .map(|pattern| (f, pattern))
        });
        match covered {
            Some((finding, pattern)) => Verdict::allowed(
                ALLOW_PATTERN_RULE,
                format!(
                    "the allow pattern `{pattern}` in the settings lets it through the rule `{}` \
                     ({})",
                    finding.rule.id(),
                    finding.reason.trim_end_matches('.')
                ),
            ),
            None => Verdict::allowed(NO_RULE, "no rule flags this command".to_string()),
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
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_issue12;
