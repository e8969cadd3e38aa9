//! Damage to the machine rather than to files: writes into system directories and onto disk
//! devices, formatting and partitioning, and the power state.

use std::path::{Path, PathBuf};

use super::{Report, Rule, Site, quote};
use crate::argv::{Args, split};
use crate::paths::{is_disk_device, is_harmless_device, normalize, system_dir};
use crate::script::{Cwd, Redirect, Word};

/// Tools that partition, format or wipe disks (besides `mkfs*` and `newfs*`).
const DISK_TOOLS: &[&str] = &[
    "fdisk",
    "sfdisk",
    "cfdisk",
    "gdisk",
    "sgdisk",
    "cgdisk",
    "parted",
    "wipefs",
    "blkdiscard",
    "mkswap",
    "mke2fs",
    "mkdosfs",
    "mkntfs",
    "mkexfatfs",
    "cryptsetup",
    "diskutil",
];

/// `cryptsetup` and `diskutil` subcommands that destroy data (the others only inspect).
const DESTRUCTIVE_SUBCOMMANDS: &[&str] = &[
    "luksFormat",
    "erase",
    "luksErase",
    "eraseDisk",
    "eraseVolume",
    "partitionDisk",
    "zeroDisk",
    "randomDisk",
    "secureErase",
    "reformat",
];

/// Commands that shut the machine down or restart it.
const POWER_COMMANDS: &[&str] = &["shutdown", "reboot", "halt", "poweroff"];

/// `systemctl` / `loginctl` subcommands that change the power state.
pub(super) const POWER_SUBCOMMANDS: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "soft-reboot",
    "rescue",
    "emergency",
];

/// Where a write lands, and what that means.
fn judge_write(site_text: &str, word: &Word, cwd: &Cwd) -> Option<(Rule, String)> {
    for path in absolute_paths(word, cwd) {
        if is_disk_device(&path) {
            return Some((
                Rule::DiskWipe,
                format!(
                    "{site_text} writes straight to the disk device {}, destroying what it holds.",
                    path.display()
                ),
            ));
        }
        if is_harmless_device(&path) {
            continue;
        }
        if let Some(dir) = system_dir(&path) {
            return Some((
                Rule::SystemWrite,
                format!(
                    "{site_text} writes to {}, a system location ({dir}).",
                    path.display()
                ),
            ));
        }
    }
    None
}

/// The absolute paths a word may name, run in `cwd`: none when it cannot be known (a dynamic
/// word, a relative path in an unknown directory).
pub(super) fn absolute_paths(word: &Word, cwd: &Cwd) -> Vec<PathBuf> {
    if word.dynamic {
        return Vec::new();
    }
    word.values
        .iter()
        .flat_map(|value| -> Vec<PathBuf> {
            match cwd {
                _ if value.starts_with('/') => vec![normalize(Path::new("/"), value)],
                Cwd::Known(dirs) => dirs.iter().map(|dir| normalize(dir, value)).collect(),
                Cwd::Unknown => Vec::new(),
            }
        })
        .collect()
}

/// `> FILE`, `>> FILE`, `&> FILE` into a system location or a disk.
pub(super) fn redirect(redirect: &Redirect, report: &mut Report) {
    if let Some((rule, reason)) =
        judge_write(&quote(&redirect.text), &redirect.target, &redirect.cwd)
    {
        report.findings.push(super::Finding::new(
            rule,
            reason,
            vec![redirect.text.clone()],
        ));
    }
}

/// The rules of this module for one command.
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    disk(site, program, report);
    power(site, program, report);
    for word in written(program, site.args()) {
        if let Some((rule, reason)) = judge_write(&site.quoted(), &word, &site.command.cwd) {
            site.find(report, rule, reason);
        }
    }
}

/// The files a command writes, deletes or changes, as far as its arguments say.
pub(super) fn written(program: &str, args: &[Word]) -> Vec<Word> {
    let operands = |value_options: &[&str]| -> Vec<Word> {
        split(args, value_options)
            .operands
            .into_iter()
            .cloned()
            .collect()
    };
    let last_and_target = |parsed: Args<'_>| -> Vec<Word> {
        let mut out: Vec<Word> = parsed
            .operands
            .last()
            .map(|w| (*w).clone())
            .into_iter()
            .collect();
        out.extend(parsed.value_of(&["-t", "--target-directory"]).cloned());
        out
    };
    match program {
        "rm" | "rmdir" | "unlink" | "tee" | "chattr" => operands(&[]),
        "mkdir" | "mkfifo" | "mknod" => operands(&["-m", "--mode"]),
        "touch" => operands(&["-d", "-t", "-r", "--reference", "--date"]),
        "shred" => operands(&["-n", "--iterations", "-s", "--size"]),
        "mv" => operands(&["-t", "--target-directory", "-S", "--suffix"]),
        "truncate" => operands(&["-s", "--size", "-r", "--reference"]),
        "setfacl" => operands(&["-m", "-x", "-M", "-X", "--modify", "--remove"]),
        "chmod" | "chown" | "chgrp" => {
            let parsed = split(args, &["--from"]);
            super::delete::permission_targets(&parsed)
                .into_iter()
                .cloned()
                .collect()
        }
        "cp" | "ln" | "install" | "rsync" | "scp" => last_and_target(split(
            args,
            &[
                "-t",
                "--target-directory",
                "-S",
                "--suffix",
                "-m",
                "--mode",
                "-o",
                "--owner",
                "-g",
                "--group",
                "-e",
            ],
        )),
        "sed" => {
            let parsed = split(args, &["-e", "--expression", "-f", "--file", "-l"]);
            let in_place = parsed.has("--in-place", Some('i')) || parsed.has_prefix("--in-place");
            let script_given = parsed
                .value_of(&["-e", "--expression", "-f", "--file"])
                .is_some();
            let skip = usize::from(!script_given);
            if in_place {
                parsed.operands.into_iter().skip(skip).cloned().collect()
            } else {
                Vec::new()
            }
        }
        "perl" => {
            let parsed = split(args, &["-e", "-E", "-I", "-M", "-m"]);
            if parsed
                .flags
                .iter()
                .any(|f| !f.starts_with("--") && f.contains('i'))
            {
                parsed.operands.into_iter().cloned().collect()
            } else {
                Vec::new()
            }
        }
        "dd" => args
            .iter()
            .filter_map(|w| w.text().strip_prefix("of="))
            .map(|path| Word::synthetic(path.to_string(), false))
            .collect(),
        "curl" => split(args, &["-o", "--output"])
            .value_of(&["-o", "--output"])
            .cloned()
            .into_iter()
            .collect(),
        "wget" => split(args, &["-O", "--output-document"])
            .value_of(&["-O", "--output-document"])
            .cloned()
            .into_iter()
            .collect(),
        "sort" => split(args, &["-o", "--output"])
            .value_of(&["-o", "--output"])
            .cloned()
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// `mkfs`, `fdisk`, `wipefs -a`, … : a disk device among the operands is a disaster; anything
/// else (an image file) is refused but can be allowed.
fn disk(site: &Site<'_>, program: &str, report: &mut Report) {
    let is_tool = program.starts_with("mkfs")
        || program.starts_with("newfs")
        || DISK_TOOLS.contains(&program);
    if !is_tool {
        return;
    }
    let args = split(
        site.args(),
        &["-t", "-L", "-b", "-n", "-o", "--offset", "-O", "-U"],
    );
    let only_reads = match program {
        "fdisk" | "sfdisk" | "gdisk" | "sgdisk" | "parted" => {
            args.has("--list", Some('l'))
                || args.has("--print", Some('p'))
                || args.operands.iter().any(|w| w.is("print"))
        }
        "wipefs" => !(args.has("--all", Some('a')) || args.value_of(&["-o", "--offset"]).is_some()),
        "cryptsetup" | "diskutil" => !args
            .operands
            .iter()
            .any(|w| DESTRUCTIVE_SUBCOMMANDS.contains(&w.text())),
        _ => false,
    };
    if only_reads {
        return;
    }
    let device = args.operands.iter().find_map(|word| {
        word.values
            .iter()
            .find(|v| is_disk_device(&normalize(Path::new("/"), v)) && v.starts_with('/'))
    });
    match device {
        Some(device) => site.find(
            report,
            Rule::DiskWipe,
            format!(
                "{} formats, partitions or wipes the disk device {device}, destroying what it holds.",
                site.quoted()
            ),
        ),
        None => site.find(
            report,
            Rule::DiskFormat,
            format!("{} formats, partitions or wipes a disk (`{program}`).", site.quoted()),
        ),
    }
}

/// Shutting down, rebooting, suspending; `kill -9 -1` (every process) and `kill 1` (init).
fn power(site: &Site<'_>, program: &str, report: &mut Report) {
    let args = site.args();
    let first_operand = || {
        args.iter()
            .find(|w| !w.text().starts_with('-'))
            .map(Word::text)
    };
    let stops_machine = match program {
        _ if POWER_COMMANDS.contains(&program) => true,
        "init" | "telinit" => matches!(first_operand(), Some("0" | "6")),
        "systemctl" | "loginctl" => first_operand().is_some_and(|s| POWER_SUBCOMMANDS.contains(&s)),
        _ => false,
    };
    if stops_machine {
        site.find(
            report,
            Rule::Power,
            format!(
                "{} would shut down, restart or suspend the machine.",
                site.quoted()
            ),
        );
    }
    if program == "killall5" {
        site.find(
            report,
            Rule::Power,
            format!(
                "{} signals every process but the kernel's and its own session's.",
                site.quoted()
            ),
        );
    }
    if program == "kill" {
        // `kill -9 $(ps -e -o pid=)`, or `ps -e -o pid= | xargs kill -9`.
        let piped = site
            .command
            .upstream
            .clone()
            .filter(|_| site.invocation.args_from_stdin);
        let listed = args
            .iter()
            .map(|w| w.subs.clone())
            .chain(piped)
            .find_map(|range| {
                let commands = site.script.commands.get(range).unwrap_or(&[]);
                commands.iter().find(|c| lists_every_process(&c.argv))
            });
        if let Some(listing) = listed {
            site.find(
                report,
                Rule::Power,
                format!(
                    "{} signals every process that {} lists: every process you may signal.",
                    site.quoted(),
                    super::quote(&listing.text)
                ),
            );
        }
    }
    if let Some(whom) = kills_broadly(program, args) {
        site.find(
            report,
            Rule::Power,
            format!("{} signals {whom}.", site.quoted()),
        );
    }
    if program == "kill" && kills_everything(args) {
        site.find(
            report,
            Rule::Power,
            format!(
                "{} signals every process you may signal (pid -1) or init (pid 1).",
                site.quoted()
            ),
        );
    }
}

/// Whom `pkill ARGS` / `killall ARGS` signal when that is every process (of a user): a
/// pattern that matches every name (`pkill -f .`, `killall -r '.*'`), no pattern but a user,
/// group, session or terminal (`pkill -u ann`, `killall -u ann`), or `pkill -v` (every process
/// but the ones named). A developer's `pkill -f 'node server.js'` names what it stops and is
/// not flagged; stopping system daemons by name is `system-admin`.
fn kills_broadly(program: &str, args: &[Word]) -> Option<&'static str> {
    if !matches!(program, "pkill" | "killall") {
        return None;
    }
    let parsed = split(args, KILL_VALUE_OPTIONS);
    let selects_owner = parsed.value_of(KILL_OWNER_OPTIONS).is_some();
    let regex = program == "pkill" || parsed.has("--regexp", Some('r'));
    let matches_all = parsed
        .operands
        .iter()
        .any(|w| !w.dynamic && regex && MATCH_ALL_PATTERNS.contains(&w.text()));
    if program == "pkill" && parsed.has("--inverse", Some('v')) {
        Some("every process but the ones it names")
    } else if matches_all {
        Some("every process it may signal (its pattern matches any name)")
    } else if parsed.operands.is_empty() && selects_owner {
        Some("every process of a user, group, session or terminal")
    } else {
        None
    }
}

/// `pkill` and `killall` options that take a value.
pub(super) const KILL_VALUE_OPTIONS: &[&str] = &[
    "-u",
    "-U",
    "-g",
    "-G",
    "-P",
    "-s",
    "-t",
    "-F",
    "-o",
    "-y",
    "--euid",
    "--uid",
    "--user",
    "--pgroup",
    "--group",
    "--parent",
    "--session",
    "--terminal",
    "--pidfile",
    "--signal",
    "--ns",
    "--nslist",
    "--older-than",
    "--younger-than",
];

/// `pkill`/`killall` options that select processes by owner, group, session or terminal.
const KILL_OWNER_OPTIONS: &[&str] = &[
    "-u",
    "-U",
    "-g",
    "-G",
    "-t",
    "--euid",
    "--uid",
    "--user",
    "--pgroup",
    "--group",
    "--terminal",
];

/// Regular expressions that match every process name.
const MATCH_ALL_PATTERNS: &[&str] = &["", ".", ".*", ".+", "^", "$", "^.*$", "^.*", ".*$"];

/// Whether `argv` lists every process's id: `ps -e`/`-A`/`ax`/`aux` (unfiltered), `pgrep`
/// with a pattern matching every name (`pgrep .`), `pidof` of nothing in particular.
fn lists_every_process(argv: &[Word]) -> bool {
    let invocation = crate::argv::unwrap(argv);
    let Some(program) = invocation.argv.first().and_then(crate::argv::program) else {
        return false;
    };
    let args = &invocation.argv[1..];
    match program {
        "ps" => {
            let parsed = split(
                args,
                &["-o", "-O", "--format", "-p", "-C", "-u", "-U", "-G"],
            );
            let selected = parsed.value_of(&["-p", "-C", "-u", "-U", "-G"]).is_some();
            let all = parsed.has("-e", Some('e'))
                || parsed.has("-A", Some('A'))
                || parsed
                    .operands
                    .iter()
                    .any(|w| w.text().contains('a') && w.text().contains('x'))
                || parsed.flags.iter().any(|f| *f == "ax" || *f == "aux");
            all && !selected
        }
        "pgrep" => kills_broadly("pkill", args).is_some(),
        _ => false,
    }
}

/// Whether `kill ARGS` targets pid -1 or 1. The first option is the signal; after it (or after
/// `--`) a negative number is a process group, and -1 means every process.
fn kills_everything(args: &[Word]) -> bool {
    let mut signal_given = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text();
        let pid = match text {
            "--" => {
                return words.any(|w| w.is("-1") || w.is("1"));
            }
            "-s" | "-n" | "--signal" => {
                words.next();
                signal_given = true;
                continue;
            }
            "-l" | "-L" | "--list" | "--table" => return false,
            _ if text.starts_with('-') && !signal_given => {
                signal_given = true;
                continue;
            }
            _ => text,
        };
        if pid == "-1" || pid == "1" {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::synthetic_words as words;

    #[test]
    fn kill_targets_every_process_only_with_pid_minus_one_or_one() {
        assert!(kills_everything(&words("-9 -1")));
        assert!(kills_everything(&words("-s KILL -1")));
        assert!(kills_everything(&words("-- -1")));
        assert!(kills_everything(&words("1")));
        assert!(!kills_everything(&words("-1 1234")));
        assert!(!kills_everything(&words("-9 1234")));
        assert!(!kills_everything(&words("-l")));
    }

    #[test]
    fn written_files_are_the_operands_that_the_program_changes() {
        let texts = |program: &str, args: &str| -> Vec<String> {
            written(program, &words(args))
                .iter()
                .map(|w| w.text().to_string())
                .collect()
        };
        assert_eq!(texts("cp", "-r /etc/hosts backup/"), vec!["backup/"]);
        assert_eq!(texts("sed", "-i s/a/b/ /etc/hosts"), vec!["/etc/hosts"]);
        assert_eq!(texts("sed", "s/a/b/ /etc/hosts"), Vec::<String>::new());
        assert_eq!(texts("chmod", "644 /etc/passwd"), vec!["/etc/passwd"]);
        assert_eq!(
            texts("dd", "if=/dev/zero of=/dev/sda bs=1M"),
            vec!["/dev/sda"]
        );
        assert_eq!(texts("tee", "-a /etc/hosts"), vec!["/etc/hosts"]);
    }
}
