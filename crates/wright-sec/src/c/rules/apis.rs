//! Risky library calls: insecure temporary files, command execution (judged by what the
//! command is made of), the `atoi` family, `rand`, `strtok`, permissive file modes,
//! writes to system files, legacy network and non-reentrant time APIs, `getenv` results
//! used unchecked, and I/O and pthread calls whose result is dropped.

use crate::c::model::{Call, Event};
use crate::c::parse::text;
use crate::c::values::{Content, Values, strip};
use crate::c::{Report, Rule};

const TMPFILE: &[&str] = &[
    "tmpnam", "tmpnam_r", "tempnam", "_tempnam", "mktemp", "_mktemp", "_wmktemp", "_wtmpnam",
];
const SHELL: &[&str] = &[
    "system",
    "_wsystem",
    "popen",
    "_popen",
    "_wpopen",
    "wpopen",
    "WinExec",
    "ShellExecute",
    "ShellExecuteA",
    "ShellExecuteW",
];
const EXEC: &[&str] = &[
    "execl", "execlp", "execle", "execv", "execvp", "execve", "execvpe", "_execl", "_execlp",
    "_execv", "_execvp", "_wexecl", "_wexecv",
];
const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "cmd",
    "cmd.exe",
    "powershell",
    "powershell.exe",
];
const ATOI: &[&str] = &["atoi", "atol", "atoll", "atof", "_wtoi", "_wtol", "_ttoi"];
const RAND: &[&str] = &[
    "rand", "srand", "random", "srandom", "drand48", "lrand48", "mrand48", "rand_r",
];
const SECRET_WORDS: &[&str] = &[
    "key", "token", "passw", "secret", "salt", "nonce", "session", "crypt", "iv",
];
const TIME: &[&str] = &["asctime", "ctime", "localtime", "gmtime"];
const INET: &[&str] = &["inet_addr", "inet_aton", "inet_ntoa", "gethostbyname"];
const SENSITIVE_PATHS: &[&str] = &[
    "/etc/",
    "/bin/",
    "/sbin/",
    "/usr/",
    "/boot/",
    "/dev/",
    "/proc/",
    "/sys/",
    "/root/",
    "/var/log/",
];
/// I/O calls whose result must be looked at, and how sure a dropped result is a flaw.
const IO: &[(&str, f32)] = &[
    ("read", 0.7),
    ("write", 0.65),
    ("fread", 0.7),
    ("fwrite", 0.65),
    ("fgets", 0.7),
    ("fgetws", 0.7),
    ("recv", 0.7),
    ("recvfrom", 0.7),
    ("send", 0.6),
    ("pread", 0.7),
    ("pwrite", 0.65),
    ("fscanf", 0.5),
    ("scanf", 0.5),
    ("sscanf", 0.45),
    ("fopen", 0.7),
    ("open", 0.7),
    ("setuid", 0.8),
    ("setgid", 0.8),
    ("seteuid", 0.8),
    ("setresuid", 0.8),
    ("chdir", 0.65),
    ("chroot", 0.8),
    ("mkstemp", 0.7),
    ("close", 0.4),
    ("fclose", 0.4),
    ("fflush", 0.4),
    ("fputs", 0.45),
    ("fputc", 0.4),
    ("puts", 0.4),
    ("putc", 0.4),
    ("remove", 0.5),
    ("rename", 0.5),
    ("unlink", 0.5),
    ("fseek", 0.5),
];
/// Calls that open, create or remove the file their argument names, by argument index.
const PATH_OPENERS: &[(&str, usize)] = &[
    ("fopen", 0),
    ("freopen", 0),
    ("open", 0),
    ("open64", 0),
    ("openat", 1),
    ("creat", 0),
    ("remove", 0),
    ("unlink", 0),
    ("rename", 0),
    ("_wfopen", 0),
    ("_open", 0),
    ("CreateFileA", 0),
    ("CreateFileW", 0),
    ("opendir", 0),
    ("truncate", 0),
];
const PTHREAD_CHECKED: &[&str] = &[
    "pthread_create",
    "pthread_join",
    "pthread_detach",
    "pthread_mutex_init",
    "pthread_cond_init",
    "pthread_attr_init",
    "pthread_key_create",
    "pthread_setspecific",
    "pthread_rwlock_init",
    "pthread_mutexattr_init",
];

fn rule(
    category: &'static str,
    pattern: &'static str,
    description: &'static str,
    suggestion: &'static str,
) -> Rule {
    Rule {
        category,
        pattern,
        description,
        suggestion,
    }
}

/// The rules of this family on one call.
pub(super) fn check_call<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    call: &Call<'t>,
    report: &mut Report<'_>,
) {
    let name = call.name.as_str();
    let node = call.node;
    if TMPFILE.contains(&name) {
        report.add(node, &rule("insecure_tmpfile", "insecure_tmpfile", "The temporary file's name is chosen before the file is created: another process can create or link it first (race, symlink attack).", "Use mkstemp (or tmpfile), which creates and opens the file in one step."), 0.85, "");
    }
    if SHELL.contains(&name) || EXEC.contains(&name) {
        command(v, event, call, report);
    }
    if ATOI.contains(&name) {
        // Lower when the number is looked at (compared, tested) afterwards.
        let assigned = node.parent().and_then(|p| match p.kind() {
            "assignment_expression" => p.child_by_field_name("left"),
            "init_declarator" => p.child_by_field_name("declarator"),
            _ => None,
        });
        let checked = assigned.is_some_and(|var| {
            let var = text(var, v.source);
            v.f.events_of(var).any(|e| {
                e.at > event.at
                    && matches!(&e.kind, crate::c::model::Kind::Check { var: c, .. } if c == var)
            })
        });
        report.add(node, &rule("input_validation", "atoi_family", "atoi and its family cannot report errors or overflow: bad input becomes 0 or an undefined value.", "Use strtol/strtoul/strtod with errno and end-pointer checks, and check the range."), if checked { 0.45 } else { 0.6 }, "");
    }
    if RAND.contains(&name) {
        let context = format!(
            "{} {}",
            v.f.name,
            node.parent().map_or("", |p| text(p, v.source))
        )
        .to_ascii_lowercase();
        let secret = SECRET_WORDS.iter().any(|w| context.contains(w));
        report.add(node, &rule("crypto", "rand_insecure", "rand/srand are predictable: not for keys, tokens, salts or anything an attacker must not guess.", "Use a cryptographic source: getrandom(), arc4random(), /dev/urandom, or the platform's CSPRNG."), if secret { 0.8 } else { 0.55 }, "");
    }
    if name == "strtok" || name == "wcstok" && call.args.len() == 2 {
        report.add(node, &rule("thread_safety", "strtok_nonreentrant", "strtok keeps hidden state: not reentrant or thread-safe, and it modifies its input.", "Use strtok_r (or strsep)."), 0.6, "");
    }
    permissions(v, call, report);
    if let Some((_, index)) = PATH_OPENERS.iter().find(|(n, _)| *n == name)
        && let Some(path) = call.args.get(*index)
        && v.content(*path, event) == Content::Tainted
    {
        report.add(node, &rule("input_validation", "path_traversal", "A file path comes from outside the program: `../` or an absolute path reaches files it should not.", "Allow-list the names, or resolve the path (realpath) and check it stays under the intended directory."), 0.8, "");
    }
    if matches!(
        name,
        "dlopen"
            | "LoadLibrary"
            | "LoadLibraryA"
            | "LoadLibraryW"
            | "LoadLibraryExA"
            | "LoadLibraryExW"
    ) && let Some(path) = call.args.first()
        && v.content(*path, event) == Content::Tainted
    {
        report.add(
            node,
            &rule(
                "input_validation",
                "untrusted_library_load",
                "A library path comes from outside the program: it can load an attacker's code.",
                "Load only fixed, absolute library paths.",
            ),
            0.8,
            "",
        );
    }
    if name == "fopen" || name == "freopen" {
        let path = call
            .args
            .first()
            .map(|a| text(strip(*a), v.source).trim_matches('"').to_string())
            .unwrap_or_default();
        let mode = call.args.get(1).map(|a| text(*a, v.source)).unwrap_or("");
        if SENSITIVE_PATHS.iter().any(|p| path.starts_with(p)) && mode.contains(['w', 'a', '+']) {
            report.add(node, &rule("insecure_permissions", "fopen_write_sensitive", "A system file is opened for writing.", "Write to the application's own files; change system files through their tools, with the least privilege."), 0.65, "");
        }
    }
    if TIME.contains(&name) {
        report.add(
            node,
            &rule(
                "thread_safety",
                "time_api_not_threadsafe",
                "This time function returns a pointer to shared static storage: not thread-safe.",
                "Use the reentrant form (localtime_r, gmtime_r, asctime_r, ctime_r) or strftime.",
            ),
            0.45,
            "",
        );
    }
    if INET.contains(&name) {
        report.add(node, &rule("network_api", "inet_legacy", "A legacy address API: IPv4 only, and inet_addr cannot tell an error from 255.255.255.255.", "Use inet_pton/inet_ntop or getaddrinfo, and check the result."), 0.4, "");
    }
    if name == "getenv" || name == "secure_getenv" {
        let in_call = node.parent().is_some_and(|p| p.kind() == "argument_list");
        if in_call {
            report.add(node, &rule("input_validation", "getenv_unchecked", "getenv's result (NULL when unset, attacker-controlled when set) is used directly.", "Check for NULL and validate the value before using it."), 0.6, "");
        }
    }
    if call.discarded && !call.voided {
        if let Some((_, confidence)) = IO.iter().find(|(n, _)| *n == name) {
            report.add(node, &rule("error_handling", "io_call", "The result of this I/O call is ignored: a failure or short read/write goes unnoticed.", "Check the return value (and errno) and handle failure and partial transfers."), *confidence, "");
        }
        if PTHREAD_CHECKED.contains(&name) {
            report.add(node, &rule("error_handling", "pthread_ret_unchecked", "The pthread call's result is ignored: a failure (no thread, no mutex) goes unnoticed.", "Check the return value (0 on success) and handle the error."), 0.6, "");
        }
    }
}

/// `system`, `popen`, `exec*`: sure when the command holds outside data, unsure when it
/// is built from literals only.
fn command<'t>(v: &Values<'_, 't>, event: &Event<'t>, call: &Call<'t>, report: &mut Report<'_>) {
    let name = call.name.as_str();
    let args: Vec<_> = if EXEC.contains(&name) {
        let program = call
            .args
            .first()
            .map(|p| text(strip(*p), v.source).trim_matches('"').to_string())
            .unwrap_or_default();
        let base = program.rsplit(['/', '\\']).next().unwrap_or("");
        if !SHELLS.contains(&base)
            && call
                .args
                .first()
                .is_some_and(|p| matches!(strip(*p).kind(), "string_literal"))
        {
            // A fixed program given separate arguments: no shell to inject into.
            report.add(call.node, &command_rule(), 0.35, "");
            return;
        }
        call.args.iter().collect()
    } else {
        call.args
            .iter()
            .take(if name.starts_with("ShellExecute") {
                4
            } else {
                1
            })
            .collect()
    };
    let content = args
        .iter()
        .map(|a| v.content(**a, event))
        .max()
        .unwrap_or(Content::Literal);
    let confidence = match content {
        Content::Tainted | Content::Args => 0.9,
        Content::Data => 0.8,
        Content::Unknown => 0.75,
        Content::Param => 0.7,
        Content::Literal => 0.35,
    };
    report.add(call.node, &command_rule(), confidence, "");
}

fn command_rule() -> Rule {
    rule(
        "command_exec",
        "command_exec",
        "A command is run through the shell or exec: data that reaches it can run other commands.",
        "Avoid the shell: run a fixed program with an argument vector (execv), and validate or allow-list any data passed to it.",
    )
}

/// `open(…, O_CREAT, mode)`, `creat`, `chmod`, `mkdir` with world-writable modes; `umask(0)`.
fn permissions<'t>(v: &Values<'_, 't>, call: &Call<'t>, report: &mut Report<'_>) {
    let name = call.name.as_str();
    let mode_index = match name {
        "open" | "open64" => {
            let flags = call.args.get(1).map_or("", |f| text(*f, v.source));
            if !flags.contains("O_CREAT") {
                return;
            }
            2
        }
        "openat" => 3,
        "creat" | "chmod" | "mkdir" | "fchmod" => 1,
        "umask" => 0,
        _ => return,
    };
    let Some(mode) = call
        .args
        .get(mode_index)
        .and_then(|m| crate::c::macros::parse_int(text(strip(*m), v.source)))
    else {
        return;
    };
    let (pattern, bad) = match name {
        "umask" => ("umask_permissive", mode & 0o022 == 0),
        "open" | "open64" | "openat" | "creat" => ("open_permissive_perms", mode & 0o002 != 0),
        _ => ("permissive_perms", mode & 0o002 != 0),
    };
    if bad {
        report.add(
            call.node,
            &rule(
                "insecure_permissions",
                pattern,
                "World-writable permissions: any local user can change or replace the file.",
                "Use owner-only modes (0600 for files, 0700 for directories) or at most 0644/0755.",
            ),
            0.85,
            &format!("Mode {mode:o}."),
        );
    }
}
