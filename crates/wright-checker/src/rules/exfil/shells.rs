//! Reverse and bind shells: a shell handed to whoever is at the other end of a connection, by
//! `nc -e`, `socat exec:`, `/dev/tcp` redirections, a shell piped into `nc`, or interpreter
//! code joining a socket to a shell; and interpreter code sending secrets.

use super::super::{Report, Rule, Site};
use crate::argv::{self, split};
use crate::script::{SimpleCommand, Word};

/// Shells, as the programs a reverse shell hands the connection to.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash",
];

/// Programs that send their standard input over a raw connection.
const SOCKET_TOOLS: &[&str] = &["nc", "ncat", "netcat", "telnet", "socat", "openssl"];
/// `nc -e /bin/sh`, `ncat --exec`, `socat exec:… tcp:…`, `bash -i >& /dev/tcp/…`, `sh -i |
/// nc …`: a shell whoever is at the other end of a connection can type into.
pub(super) fn reverse_shell(site: &Site<'_>, program: &str, report: &mut Report) {
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

/// Whether the command's input or output is a `/dev/tcp` or `/dev/udp` connection to another
/// machine. Loopback (`/dev/tcp/127.0.0.1/5432`, `localhost`) stays on this one: waiting for a
/// local server's port that way is an everyday idiom.
fn redirects_to_socket(command: &SimpleCommand) -> bool {
    command.inputs.iter().chain(&command.outputs).any(|w| {
        let text = w.text();
        let host = text
            .strip_prefix("/dev/tcp/")
            .or_else(|| text.strip_prefix("/dev/udp/"))
            .map(|rest| rest.split('/').next().unwrap_or(""));
        host.is_some_and(|host| w.dynamic || !crate::paths::is_loopback_host(host))
    })
}

/// `exec 5<>/dev/tcp/host/80`: the shell itself keeps a connection open, to read commands from
/// or to send to.
pub(in crate::rules) fn opened_socket(site: &Site<'_>, report: &mut Report) {
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
pub(in crate::rules) fn interpreter_code(site: &Site<'_>, code: &str, report: &mut Report) {
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
