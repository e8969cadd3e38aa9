//! Administering the machine: the firewall, kernel modules and settings, users and passwords,
//! mounts and swap. Without root these commands fail; when wright itself runs as root (as in a
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

/// What a machine-administration command would change, if it changes something.
fn changes(program: &str, args: &[Word]) -> Option<&'static str> {
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
        _ => None,
    }
}

/// Reports a command that administers the machine (see the module doc).
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    if let Some(what) = changes(program, site.args()) {
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
