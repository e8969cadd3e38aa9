//! Administering the machine: the firewall, kernel modules and settings, users and passwords,
//! mounts and swap, system services (`systemctl stop`, `service nginx restart`) and the
//! system's own daemons (`killall sshd`). Without root these commands fail; when wright itself runs as root (as in a
//! container) they change the whole system. They are asked about whoever runs wright: nothing
//! an ordinary developer runs day to day is among them, so the rule needs no root flag and has
//! no false alarms, while their reading forms (`iptables -L`, `mount`, `sysctl -a`) are allowed.

use super::{Report, Rule, Site};
use crate::argv::split;
use crate::script::Word;

/// Firewalls driven like iptables: options that change rules.
const IPTABLES: &[&str] = &[
    "iptables",
    "ip6tables",
    "iptables-legacy",
    "ip6tables-legacy",
    "iptables-nft",
    "ip6tables-nft",
    "ebtables",
    "arptables",
];

/// iptables options that change the rule set (short ones may come in a cluster, `-nF`).
const IPTABLES_CHANGES: &[&str] = &[
    "--append",
    "--delete",
    "--insert",
    "--replace",
    "--flush",
    "--delete-chain",
    "--policy",
    "--new-chain",
    "--rename-chain",
    "--zero",
];

/// Short iptables options that change the rule set.
const IPTABLES_SHORT_CHANGES: &[char] = &['A', 'D', 'I', 'R', 'F', 'X', 'P', 'N', 'E', 'Z'];

/// nft commands that change the rule set.
const NFT_CHANGES: &[&str] = &[
    "flush", "delete", "add", "insert", "replace", "create", "destroy", "reset",
];

/// Programs that manage users, groups and passwords.
const USER_TOOLS: &[&str] = &[
    "useradd", "userdel", "usermod", "adduser", "deluser", "groupadd", "groupdel", "groupmod",
    "addgroup", "delgroup", "gpasswd", "passwd", "chpasswd", "chage", "chsh", "vipw", "vigr",
    "visudo", "newusers",
];

/// Programs that load or unload kernel modules.
const MODULE_TOOLS: &[&str] = &["insmod", "rmmod", "modprobe"];

/// `systemctl` subcommands that only read; every other one (`stop`, `disable`, `mask`,
/// `restart`, `kill`, `isolate`, `enable`, `start`, …) changes what runs. The power ones
/// (`poweroff`, `reboot`) are the `power` rule's.
const SYSTEMCTL_READS: &[&str] = &[
    "status",
    "show",
    "cat",
    "help",
    "list-units",
    "list-unit-files",
    "list-sockets",
    "list-timers",
    "list-jobs",
    "list-dependencies",
    "list-machines",
    "list-automounts",
    "list-paths",
    "is-active",
    "is-enabled",
    "is-failed",
    "is-system-running",
    "get-default",
    "show-environment",
];

/// `systemctl` options that take a value.
const SYSTEMCTL_VALUES: &[&str] = &[
    "-t",
    "--type",
    "-p",
    "--property",
    "-s",
    "--signal",
    "-H",
    "--host",
    "-M",
    "--machine",
    "-n",
    "--lines",
    "-o",
    "--output",
    "--state",
    "--root",
    "--kill-whom",
    "--job-mode",
];

/// `launchctl` subcommands that load, start, stop or remove jobs.
const LAUNCHCTL_CHANGES: &[&str] = &[
    "load",
    "unload",
    "bootstrap",
    "bootout",
    "enable",
    "disable",
    "kickstart",
    "kill",
    "start",
    "stop",
    "remove",
    "submit",
    "config",
];

/// Daemons the system (or the desktop) runs: signalling them by name (`killall sshd`,
/// `pkill -9 dockerd`) takes down logins, containers, networking or the session.
const SYSTEM_DAEMONS: &[&str] = &[
    "init",
    "systemd",
    "launchd",
    "sshd",
    "dockerd",
    "containerd",
    "kubelet",
    "dbus-daemon",
    "dbus-broker",
    "NetworkManager",
    "wpa_supplicant",
    "systemd-journald",
    "systemd-logind",
    "systemd-udevd",
    "systemd-resolved",
    "systemd-networkd",
    "rsyslogd",
    "syslogd",
    "cron",
    "crond",
    "udevd",
    "polkitd",
    "Xorg",
    "Xwayland",
    "gnome-shell",
    "plasmashell",
    "gdm",
    "sddm",
    "lightdm",
    "agetty",
    "getty",
    "WindowServer",
    "loginwindow",
];

/// What a service manager command would change, if it changes something.
fn service_changes(program: &str, args: &[Word]) -> Option<&'static str> {
    let parsed = split(args, SYSTEMCTL_VALUES);
    let verb = parsed.operands.first().map(|w| w.text());
    let starts_or_stops = "starts, stops, restarts or disables a system service";
    match program {
        "systemctl" => verb
            .filter(|v| {
                !SYSTEMCTL_READS.contains(v) && !super::system::POWER_SUBCOMMANDS.contains(v)
            })
            .map(|_| starts_or_stops),
        "service" | "rc-service" => {
            let action = parsed.operands.get(1).map(|w| w.text());
            action.filter(|a| *a != "status").map(|_| starts_or_stops)
        }
        "sv" => verb
            .filter(|v| !matches!(*v, "status" | "s" | "check"))
            .map(|_| starts_or_stops),
        "launchctl" => verb
            .filter(|v| LAUNCHCTL_CHANGES.contains(v))
            .map(|_| "loads, starts, stops or removes a launchd job"),
        "update-rc.d" => verb.map(|_| "changes which services start at boot"),
        "rc-update" => verb
            .filter(|v| !matches!(*v, "show" | "-s"))
            .map(|_| "changes which services start at boot"),
        "chkconfig" => {
            (parsed.operands.len() >= 2).then_some("changes which services start at boot")
        }
        "pkill" | "killall" => {
            let names = split(args, super::system::KILL_VALUE_OPTIONS).operands;
            names
                .iter()
                .any(|w| {
                    let name = w.text().trim_start_matches('^').trim_end_matches('$');
                    !w.dynamic && SYSTEM_DAEMONS.contains(&name)
                })
                .then_some("stops a daemon the system runs")
        }
        _ => None,
    }
}

/// An init script run with an action (`/etc/init.d/nginx stop`).
fn init_script_changes(argv: &[Word]) -> Option<&'static str> {
    let script = argv.first()?;
    let is_init_script = !script.dynamic
        && ["/etc/init.d/", "/etc/rc.d/"]
            .iter()
            .any(|dir| script.text().starts_with(dir));
    let action = argv.get(1)?;
    (is_init_script && !action.is("status"))
        .then_some("starts, stops, restarts or disables a system service")
}

/// What a machine-administration command would change, if it changes something.
fn changes(program: &str, args: &[Word]) -> Option<&'static str> {
    if let Some(what) = service_changes(program, args) {
        return Some(what);
    }
    let parsed = split(args, &[]);
    let has = |long: &str, short: Option<char>| parsed.has(long, short);
    let operand = |word: &str| parsed.operands.iter().any(|w| w.is(word));
    match program {
        _ if IPTABLES.contains(&program) => {
            let short = parsed.flags.iter().any(|f| {
                !f.starts_with("--") && f[1..].chars().any(|c| IPTABLES_SHORT_CHANGES.contains(&c))
            });
            (short || IPTABLES_CHANGES.iter().any(|o| has(o, None)))
                .then_some("changes the firewall rules")
        }
        "iptables-restore" | "ip6tables-restore" => Some("replaces the firewall rules"),
        "nft" => (has("--file", Some('f')) || NFT_CHANGES.iter().any(|c| operand(c)))
            .then_some("changes the firewall rules"),
        "ufw" => {
            (!operand("status") && !parsed.operands.is_empty()).then_some("changes the firewall")
        }
        "firewall-cmd" => parsed
            .flags
            .iter()
            .copied()
            .chain(parsed.values.iter().map(|(name, _)| name.as_str()))
            .any(|f| !(f.starts_with("--list") || f.starts_with("--get") || f == "--state"))
            .then_some("changes the firewall"),
        "modprobe" if has("--dry-run", Some('n')) || has("--show-depends", Some('D')) => None,
        "modprobe" if has("--showconfig", Some('c')) || has("--show-config", None) => None,
        _ if MODULE_TOOLS.contains(&program) => Some("loads or unloads kernel modules"),
        "passwd" if has("--status", Some('S')) => None,
        "chage" if has("--list", Some('l')) => None,
        _ if USER_TOOLS.contains(&program) => Some("changes the system's users or passwords"),
        "sysctl" => {
            let writes = has("--write", Some('w'))
                || has("--load", Some('p'))
                || has("--system", None)
                || parsed.operands.iter().any(|w| w.text().contains('='));
            writes.then_some("changes kernel settings")
        }
        "mount" => (!parsed.operands.is_empty() || has("--all", Some('a')))
            .then_some("mounts a file system"),
        "umount" => Some("unmounts a file system"),
        "swapon" if has("--show", None) || has("--summary", Some('s')) => None,
        "swapoff" | "swapon" => Some("turns swap space off or on"),
        "setenforce" => Some("switches SELinux enforcement"),
        "crontab" => has("--remove", Some('r')).then_some("deletes every cron job of the user"),
        _ => removes_packages(program, &parsed).then_some("removes system packages"),
    }
}

/// Whether a system package manager removes packages (`apt-get remove`, `dpkg --purge`,
/// `dnf erase`, `rpm -e`, `pacman -R`, `apk del`, `zypper rm`): what the system needs can go
/// with them. Installing stays allowed (containers do it all the time), and so do language
/// package managers (`pip uninstall`, `npm uninstall`).
fn removes_packages(program: &str, parsed: &crate::argv::Args<'_>) -> bool {
    let verb = parsed.operands.first().map(|w| w.text()).unwrap_or("");
    let short = |letter: char| {
        parsed
            .flags
            .iter()
            .any(|f| !f.starts_with("--") && f[1..].contains(letter))
    };
    match program {
        "apt" | "apt-get" | "aptitude" => {
            matches!(verb, "remove" | "purge" | "autoremove" | "autopurge")
        }
        "dpkg" => {
            parsed.has("--remove", None) || parsed.has("--purge", None) || short('r') || short('P')
        }
        "yum" | "dnf" | "microdnf" | "tdnf" => matches!(verb, "remove" | "erase" | "autoremove"),
        "rpm" => parsed.has("--erase", None) || short('e'),
        "pacman" => {
            parsed.has("--remove", None) || parsed.flags.iter().any(|f| f.starts_with("-R"))
        }
        "apk" => verb == "del",
        "zypper" => matches!(verb, "remove" | "rm"),
        "snap" => verb == "remove",
        _ => false,
    }
}

/// Reports a command that administers the machine (see the module doc).
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    let what = changes(program, site.args()).or_else(|| init_script_changes(site.invocation.argv));
    if let Some(what) = what {
        site.find(
            report,
            Rule::SystemAdmin,
            format!(
                "{} {what}: administering the machine, which as root affects everything on it.",
                site.quoted()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::synthetic_words as words;

    fn changed(command: &str) -> bool {
        let argv = words(command);
        changes(argv[0].text(), &argv[1..]).is_some()
    }

    #[test]
    fn removing_system_packages_is_a_change_and_installing_is_not() {
        for command in [
            "apt-get remove -y --purge systemd",
            "apt purge nginx",
            "apt-get -y autoremove",
            "dpkg --purge --force-all libc6",
            "dpkg -r bash",
            "yum erase openssh",
            "dnf remove -y kernel",
            "rpm -e --nodeps glibc",
            "pacman -Rns linux",
            "apk del musl",
            "zypper rm sudo",
        ] {
            assert!(changed(command), "{command}");
        }
        for command in [
            "apt-get install -y curl",
            "apt update",
            "dpkg -l",
            "rpm -qa",
            "rpm -ivh x.rpm",
            "pacman -Syu",
            "apk add git",
            "dnf install gcc",
        ] {
            assert!(!changed(command), "{command}");
        }
    }

    #[test]
    fn changing_forms_are_told_from_reading_forms() {
        for command in [
            "iptables -F",
            "iptables -t nat -X",
            "iptables -P INPUT DROP",
            "ip6tables --flush",
            "nft flush ruleset",
            "modprobe -r e1000",
            "sysctl -w net.ipv4.ip_forward=1",
            "sysctl kernel.panic=1",
            "mount /dev/sdb1 /mnt",
            "swapoff -a",
            "passwd root",
            "crontab -r",
        ] {
            assert!(changed(command), "{command}");
        }
        for command in [
            "iptables -L -n",
            "iptables -nvL",
            "iptables -S",
            "nft list ruleset",
            "modprobe -n e1000",
            "sysctl -a",
            "sysctl net.ipv4.ip_forward",
            "mount",
            "mount -l",
            "swapon --show",
            "passwd -S ann",
            "crontab -l",
            "ufw status",
        ] {
            assert!(!changed(command), "{command}");
        }
    }
}
