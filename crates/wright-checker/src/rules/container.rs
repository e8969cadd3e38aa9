//! Containers that are the host in disguise: `docker run` (or `create`, podman, nerdctl) with
//! `--privileged`, the host's process, user or IPC namespace (`--pid=host`), all or the
//! administrative capabilities, or the host's root, system directories or Docker socket
//! mounted in (`-v /:/host`, `-v /var/run/docker.sock:/var/run/docker.sock`). Whatever runs
//! inside is root on the machine, so they are `privilege`'s, like `sudo`. So are the other
//! doors to root: `docker exec --privileged`, talking to the Docker socket directly (`curl
//! --unix-socket /var/run/docker.sock …`), entering another process's namespaces (`nsenter`)
//! and giving a program capabilities (`setcap cap_setuid+ep …`).
//!
//! Ordinary containers stay allowed: the project or a named volume mounted (`-v
//! "$PWD":/app`, `-v pgdata:/var/lib/postgresql/data`), `--network host`, `-p 8080:80`.

use std::path::Path;

use super::{Report, Rule, Site};
use crate::argv::split;
use crate::paths::system_dir;

/// `docker run`/`create` options that take a value.
const RUN_VALUES: &[&str] = &[
    "-v",
    "--volume",
    "--mount",
    "-e",
    "--env",
    "--env-file",
    "-p",
    "--publish",
    "--name",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--entrypoint",
    "--network",
    "--net",
    "--pid",
    "--ipc",
    "--uts",
    "--userns",
    "--cap-add",
    "--cap-drop",
    "--device",
    "--security-opt",
    "-l",
    "--label",
    "-h",
    "--hostname",
    "--platform",
    "--restart",
    "-m",
    "--memory",
    "--cpus",
    "--add-host",
    "--dns",
    "--tmpfs",
    "--gpus",
];

/// Host directories that, mounted into a container, hand it the machine (besides
/// [`system_dir`]'s and `/`).
const HOST_SOCKETS_AND_ROOTS: &[&str] = &[
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd",
    "/var/run",
    "/run",
    "/root",
    "/home",
    "/var",
];

/// Capabilities that make a container's root the host's.
const HOST_CAPABILITIES: &[&str] = &[
    "ALL",
    "SYS_ADMIN",
    "SYS_MODULE",
    "SYS_PTRACE",
    "SYS_RAWIO",
    "DAC_READ_SEARCH",
];

/// What about `docker run ARGS` hands the container the host, if anything.
fn escapes(args: &[crate::script::Word]) -> Option<String> {
    let parsed = split(args, RUN_VALUES);
    if parsed.has("--privileged", None) {
        return Some("runs a privileged container: root in it is root on this machine".into());
    }
    for (name, value) in &parsed.values {
        let text = value.text();
        let lower = text.to_ascii_lowercase();
        match name.as_str() {
            "--pid" | "--ipc" | "--userns" | "--uts" if lower == "host" => {
                return Some(format!("shares the host's {} namespace", &name[2..]));
            }
            "--cap-add" => {
                let cap = lower.trim_start_matches("cap_").to_ascii_uppercase();
                if HOST_CAPABILITIES.contains(&cap.as_str()) {
                    return Some(format!("gives the container the {cap} capability"));
                }
            }
            "--security-opt" if lower.contains("unconfined") || lower.contains("disable") => {
                return Some(format!("turns the container's confinement off ({text})"));
            }
            "-v" | "--volume" | "--mount" => {
                let source = if name == "--mount" {
                    text.split(',')
                        .find_map(|kv| kv.strip_prefix("source=").or(kv.strip_prefix("src=")))
                        .unwrap_or("")
                } else {
                    text.split(':').next().unwrap_or("")
                };
                if host_place(source) {
                    return Some(format!("mounts the host's {source} into the container"));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether mounting `source` gives a container the host: `/`, a system directory, the Docker
/// socket, `/root`, `/home`, `/var`, `/run`.
fn host_place(source: &str) -> bool {
    if !source.starts_with('/') {
        return false;
    }
    let trimmed = source.trim_end_matches('/');
    let path = Path::new(if trimmed.is_empty() { "/" } else { trimmed });
    // A system directory's own subdirectories (`/usr/share/fonts`) mounted read-only are common;
    // the directory itself is the system.
    let system = system_dir(path).is_some_and(|dir| path == Path::new(dir) || dir == "/");
    system || HOST_SOCKETS_AND_ROOTS.iter().any(|p| path == Path::new(p))
}

/// The rule for one command: a container run with the host handed to it.
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    if let Some(what) = host_door(program, site.args()) {
        site.find(
            report,
            Rule::Privilege,
            format!("{} {what}.", site.quoted()),
        );
    }
    if !matches!(program, "docker" | "podman" | "nerdctl") {
        return;
    }
    let args = site.args();
    let parsed = split(args, &["-H", "--host", "-c", "--context", "--config"]);
    let mut operands = parsed.operands.iter();
    let verb = parsed.operands.first().map(|w| w.text());
    let exec_at = args.iter().position(|w| w.is("exec"));
    if let (Some("exec"), Some(at)) = (verb, exec_at) {
        let exec_args = split(&args[at + 1..], RUN_VALUES);
        if exec_args.has("--privileged", None) {
            site.find(
                report,
                Rule::Privilege,
                format!(
                    "{} runs a command with every capability of the host in the container.",
                    site.quoted()
                ),
            );
        }
    }
    let run = match operands.next().map(|w| w.text()) {
        Some("run" | "create") => true,
        Some("container") => matches!(operands.next().map(|w| w.text()), Some("run" | "create")),
        _ => false,
    };
    if !run {
        return;
    }
    let start = args
        .iter()
        .position(|w| w.is("run") || w.is("create"))
        .map_or(args.len(), |i| i + 1);
    // The image comes first among the operands; the command after it is the container's.
    let run_args = &args[start..];
    let parsed_run = split(run_args, RUN_VALUES);
    let image_at = parsed_run
        .operands
        .first()
        .and_then(|image| run_args.iter().position(|w| std::ptr::eq(w, *image)))
        .unwrap_or(run_args.len());
    if let Some(what) = escapes(&run_args[..image_at]) {
        site.find(
            report,
            Rule::Privilege,
            format!("{} {what}.", site.quoted()),
        );
    }
}

/// Container engines' sockets: whoever talks to them directly commands the engine, as root.
const ENGINE_SOCKETS: &[&str] = &["docker.sock", "podman.sock", "containerd.sock", "crio.sock"];

/// What a command outside a container engine does that hands out root: entering another
/// process's namespaces, giving a program capabilities, or talking to an engine's socket.
fn host_door(program: &str, args: &[crate::script::Word]) -> Option<&'static str> {
    let parsed = split(args, &["--unix-socket", "-t", "--target"]);
    match program {
        "nsenter" => Some("enters the namespaces of another process (the host's, with `-t 1`)"),
        "setcap" if !parsed.has("-v", None) && !parsed.operands.is_empty() => {
            Some("gives a program capabilities that let it act as root")
        }
        "curl" | "wget" | "http" | "xh" | "socat" | "nc" | "ncat" => {
            let socket = parsed
                .value_of(&["--unix-socket"])
                .into_iter()
                .chain(parsed.operands.iter().copied())
                .any(|w| ENGINE_SOCKETS.iter().any(|s| w.text().contains(s)));
            socket.then_some("talks to the container engine's socket, which commands it as root")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_root_system_dirs_and_docker_socket_are_host_places() {
        for source in [
            "/",
            "/etc",
            "/var/run/docker.sock",
            "/root",
            "/usr/",
            "/proc",
        ] {
            assert!(host_place(source), "{source}");
        }
        for source in [
            "./data",
            "pgdata",
            "/home/ann/proj",
            "/tmp/x",
            "/usr/share/fonts",
        ] {
            assert!(!host_place(source), "{source}");
        }
    }
}
