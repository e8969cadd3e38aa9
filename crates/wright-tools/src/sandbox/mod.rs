//! Confinement of Bash commands (issue 6): on Linux, Landlock limits where a command may write,
//! a mount namespace makes the protected paths read-only ([`crate::protect`], issue 12), and a
//! seccomp filter (`seccomp`) keeps commands from typing into a terminal (issue 12), from
//! undoing or going around the namespace, and can take the network away; elsewhere commands run
//! unconfined and say so.
//!
//! Only Bash is confined here. The file tools run inside wright and are kept to the project by
//! path resolution ([`crate::ToolContext::resolve`]); `docs/sandbox.md` says what is and is not
//! confined.
//!
//! Everything that can fail or allocate — opening the writable paths, building the Landlock
//! ruleset, compiling the seccomp program, preparing the mounts — happens in wright before the
//! fork. Between fork and exec the child makes system calls and nothing else (see
//! `restrict_child`).

#[cfg(target_os = "linux")]
mod namespace;
#[cfg(target_os = "linux")]
mod seccomp;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::process::Command;

use crate::protect::ProtectedPath;

/// What Bash commands may do (issue 6; the sandbox settings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// Whether commands are confined at all. Default: true.
    pub enabled: bool,
    /// Paths commands may write besides the project, the `allow_outside_project` roots and the
    /// temporary directory (e.g. `~/.cargo` for a `cargo build` that downloads crates). A path
    /// that does not exist when a command starts is skipped. Default: none.
    pub writable: Vec<PathBuf>,
    /// Whether commands may open network sockets, loopback included. Unix domain sockets work
    /// either way. Default: true.
    pub network: bool,
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            writable: Vec::new(),
            network: true,
        }
    }
}

/// How Bash commands are confined on this machine under a [`SandboxPolicy`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStatus {
    /// Commands run confined as the policy asks.
    Confined,
    /// The policy turns confinement off (`enabled: false`).
    Disabled,
    /// Commands run confined in part; `reason` says what is not.
    Partial {
        /// What the kernel or the platform lacks, e.g. "this kernel's Landlock … cannot …".
        reason: String,
    },
    /// Commands run unconfined; `reason` says why.
    NotConfined {
        /// Why, e.g. "this kernel does not support Landlock (…)".
        reason: String,
    },
}

impl SandboxStatus {
    /// The one-line note for the user and the model when commands are less confined than the
    /// policy asks (`commands are not confined: <why>`); `None` when they are confined as asked
    /// or the policy turned confinement off.
    pub fn note(&self) -> Option<String> {
        match self {
            Self::Confined | Self::Disabled => None,
            Self::Partial { reason } => {
                Some(format!("commands are only partly confined: {reason}"))
            }
            Self::NotConfined { reason } => Some(format!("commands are not confined: {reason}")),
        }
    }
}

/// Why a command could not be confined as the policy asks; the command is then not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SandboxError {
    /// Building the Landlock ruleset failed.
    #[cfg(target_os = "linux")]
    #[error("cannot build the Landlock rules: {0}")]
    Landlock(#[from] landlock::RulesetError),
    /// Compiling the seccomp filter failed.
    #[cfg(target_os = "linux")]
    #[error("cannot build the seccomp filter: {0}")]
    Seccomp(#[from] seccompiler::BackendError),
    /// Preparing the read-only paths failed.
    #[cfg(target_os = "linux")]
    #[error("cannot prepare the read-only paths: {0}")]
    Mounts(#[from] std::io::Error),
}

/// A context's sandbox: its policy, its status (found once), and whether the note about it was
/// given. Shared by the clones of a context.
#[derive(Debug)]
pub(crate) struct Sandbox {
    policy: SandboxPolicy,
    status: OnceLock<SandboxStatus>,
    noted: AtomicBool,
}

impl Sandbox {
    pub(crate) fn new(policy: SandboxPolicy) -> Self {
        Self {
            policy,
            status: OnceLock::new(),
            noted: AtomicBool::new(false),
        }
    }

    pub(crate) fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// How commands are confined here, probed on first use.
    pub(crate) fn status(&self) -> &SandboxStatus {
        self.status.get_or_init(|| probe(&self.policy))
    }

    /// The status note, the first time it is asked for only (issue 6: "say so once").
    pub(crate) fn first_note(&self) -> Option<String> {
        let note = self.status().note()?;
        (!self.noted.swap(true, Ordering::Relaxed)).then_some(note)
    }

    /// Whether commands get the existing protected paths bound read-only (the policy confines
    /// and this machine gives mount namespaces): then a command cannot change them, only
    /// create those that are missing or swap a symbolic link ([`crate::guard`]).
    pub(crate) fn binds_protected_paths(&self) -> bool {
        self.policy.enabled && platform::namespaces_work()
    }

    /// Makes `command` run confined: it may write only under `roots` (the project, the extra
    /// roots, the temporary directory and the policy's writable paths, as
    /// `ToolContext::writable_roots` gives them) and the devices every command needs (`/dev/null`, ttys, …), and not to the `protected` paths there; it cannot
    /// make device nodes, push input into a terminal, change mounts or open files by handle,
    /// and uses the network only if the policy allows it. Does nothing when the policy is
    /// disabled.
    pub(crate) fn confine(
        &self,
        command: &mut Command,
        roots: &[PathBuf],
        protected: &[ProtectedPath],
    ) -> Result<(), SandboxError> {
        if !self.policy.enabled {
            return Ok(());
        }
        // The probe, run once, says whether read-only paths can be had here; the status says
        // so when they cannot.
        let protected = match self.binds_protected_paths() {
            true => protected,
            false => &[],
        };
        platform::confine(&self.policy, command, roots, protected)
    }
}

/// The status under `policy` on this machine.
fn probe(policy: &SandboxPolicy) -> SandboxStatus {
    if !policy.enabled {
        return SandboxStatus::Disabled;
    }
    platform::probe(policy)
}

#[cfg(target_os = "linux")]
mod platform {
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::path::PathBuf;

    use landlock::{
        ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
        RulesetCreatedAttr, path_beneath_rules,
    };
    use seccompiler::{BpfProgram, TargetArch};
    use tokio::process::Command;

    use super::namespace::{self, Namespace};
    use super::seccomp::command_filter;
    use super::{SandboxError, SandboxPolicy, SandboxStatus};
    use crate::protect::{ProtectedPath, mount_plan};

    /// The filesystem rights handled: those of Landlock ABI 3 (Linux 6.2), the first that also
    /// stops truncating files. Later rights (device ioctls, connecting to Unix sockets) are left
    /// alone: they are not writes, and handling them would break terminals and local daemons.
    const FS_ABI: ABI = ABI::V3;
    /// The network rights handled when the network is off: TCP bind and connect (ABI 4).
    const NET_ABI: ABI = ABI::V4;
    /// Devices (and device directories) a command needs to write whatever the policy:
    /// redirections to `/dev/null`, terminals, random numbers, POSIX shared memory.
    const DEVICES: &[&str] = &[
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/tty",
        "/dev/random",
        "/dev/urandom",
        "/dev/ptmx",
        "/dev/pts",
        "/dev/shm",
    ];

    pub(super) fn probe(policy: &SandboxPolicy) -> SandboxStatus {
        let mut gaps = Vec::new();
        if !policy.network && target_arch().is_none() {
            gaps.push(format!(
                "the network cannot be turned off on {}",
                std::env::consts::ARCH
            ));
        }
        if !landlock_supports(ABI::V1) {
            let mut reason = "this kernel does not support Landlock (Linux 5.13 or later with \
                              Landlock enabled is needed), so commands can write wherever you can"
                .to_string();
            for gap in gaps {
                reason.push_str("; ");
                reason.push_str(&gap);
            }
            return SandboxStatus::NotConfined { reason };
        }
        if let Err(reason) = namespace_probe() {
            gaps.push(format!(
                "commands can change git's settings and hooks and wright's own settings, \
                 because {reason}"
            ));
        }
        if !landlock_supports(FS_ABI) {
            gaps.insert(
                0,
                "this kernel's Landlock (before Linux 6.2) cannot stop commands from truncating \
                 files outside the project"
                    .to_string(),
            );
        }
        match gaps.is_empty() {
            true => SandboxStatus::Confined,
            false => SandboxStatus::Partial {
                reason: gaps.join("; "),
            },
        }
    }

    /// Whether commands can get a mount namespace with read-only paths here, probed once per
    /// process.
    fn namespace_probe() -> &'static Result<(), String> {
        static PROBE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
        PROBE.get_or_init(namespace::probe)
    }

    /// Whether read-only paths can be had here (see [`namespace_probe`]).
    pub(super) fn namespaces_work() -> bool {
        namespace_probe().is_ok()
    }

    /// Whether the kernel enforces every filesystem right of `abi`.
    fn landlock_supports(abi: ABI) -> bool {
        Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(abi))
            .and_then(|ruleset| ruleset.create())
            .is_ok()
    }

    /// The architecture the seccomp filter is compiled for, if seccompiler knows this one.
    fn target_arch() -> Option<TargetArch> {
        TargetArch::try_from(std::env::consts::ARCH).ok()
    }

    pub(super) fn confine(
        policy: &SandboxPolicy,
        command: &mut Command,
        roots: &[PathBuf],
        protected: &[ProtectedPath],
    ) -> Result<(), SandboxError> {
        let ruleset = landlock_ruleset(policy, roots)?;
        // Without a known architecture there is no filter: the status says the network stays
        // on (Landlock still stops TCP), and commands have no controlling terminal anyway.
        let filter = target_arch()
            .map(|arch| command_filter(arch, policy.network))
            .transpose()?;
        let writable = roots.to_vec();
        // Only what exists can be bound.
        let present: Vec<ProtectedPath> = protected
            .iter()
            .filter(|p| p.path.exists())
            .cloned()
            .collect();
        let (pins, read_only) = mount_plan(&present, &writable);
        let cwd = command.as_std().get_current_dir().map(PathBuf::from);
        let namespace = Namespace::new(&pins, &read_only, cwd.as_deref())?;
        restrict_child(command, namespace, ruleset, filter);
        Ok(())
    }

    /// The Landlock ruleset, created in wright: read and execute everywhere, write only under
    /// `roots` and the devices. `None` when the kernel has no Landlock
    /// (best effort: commands then run unconfined, as the status says).
    fn landlock_ruleset(
        policy: &SandboxPolicy,
        roots: &[PathBuf],
    ) -> Result<Option<OwnedFd>, SandboxError> {
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(FS_ABI))?;
        if !policy.network {
            // No rule allows a port, so every TCP bind and connect is refused.
            ruleset = ruleset.handle_access(AccessNet::from_all(NET_ABI))?;
        }
        let writable = roots
            .iter()
            .map(PathBuf::as_path)
            .chain(DEVICES.iter().map(std::path::Path::new));
        let created = ruleset
            .create()?
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(FS_ABI)))?
            // Missing paths are skipped; files (the devices) get only the file rights.
            .add_rules(path_beneath_rules(writable, writable_access()))?;
        Ok(created.into())
    }

    /// The rights granted under the writable paths: every handled right but making character
    /// and block devices (issue 12: root could make a node for a disk in the project or the
    /// temporary directory and write the raw device past every other rule). Both stay handled,
    /// so no confined command can make a device node anywhere. Nothing ordinary needs them:
    /// FIFOs, sockets, files, directories and symlinks are rights of their own.
    fn writable_access() -> BitFlags<AccessFs> {
        AccessFs::from_all(FS_ABI) & !(AccessFs::MakeChar | AccessFs::MakeBlock)
    }

    /// Has the child restrict itself between fork and exec: it enters its mount namespace
    /// (while it may still mount), then `PR_SET_NO_NEW_PRIVS` (required by both, and it keeps
    /// setuid programs from escaping), then the Landlock ruleset, then the seccomp filter. Any
    /// failure aborts the spawn, so a command never runs less confined than the status says.
    #[allow(unsafe_code)]
    fn restrict_child(
        command: &mut Command,
        namespace: Option<Namespace>,
        ruleset: Option<OwnedFd>,
        filter: Option<BpfProgram>,
    ) {
        let restrict = move || -> io::Result<()> {
            if let Some(namespace) = &namespace {
                namespace.enter()?;
            }
            // SAFETY (all three calls): plain system calls with valid arguments; the ruleset fd
            // is owned by this closure, so it is open until the command has been spawned.
            if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(fd) = &ruleset {
                let flags: libc::c_uint = 0;
                let done = unsafe {
                    libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), flags)
                };
                if done != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(program) = &filter {
                // Makes only `prctl` and `seccomp` calls; its error values own no memory.
                seccompiler::apply_filter(program).map_err(|_| io::Error::last_os_error())?;
            }
            Ok(())
        };
        // SAFETY: the closure runs in the forked child, where only async-signal-safe calls are
        // allowed. It makes system calls on memory prepared before the fork and builds
        // `io::Error`s from errno, which does not allocate; it takes no lock and touches
        // nothing shared with other threads.
        unsafe {
            command.pre_exec(restrict);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod platform {
    use std::path::PathBuf;

    use tokio::process::Command;

    use super::{SandboxError, SandboxPolicy, SandboxStatus};
    use crate::protect::ProtectedPath;

    pub(super) fn namespaces_work() -> bool {
        false
    }

    pub(super) fn probe(_: &SandboxPolicy) -> SandboxStatus {
        SandboxStatus::NotConfined {
            reason: format!(
                "commands are confined only on Linux, and this is {}",
                std::env::consts::OS
            ),
        }
    }

    pub(super) fn confine(
        _: &SandboxPolicy,
        _: &mut Command,
        _: &[PathBuf],
        _: &[ProtectedPath],
    ) -> Result<(), SandboxError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn sandbox_with(status: SandboxStatus) -> Sandbox {
        let sandbox = Sandbox::new(SandboxPolicy::default());
        sandbox.status.set(status).unwrap();
        sandbox
    }

    #[test]
    fn the_default_policy_confines_with_the_network_on() {
        assert_eq!(
            SandboxPolicy::default(),
            SandboxPolicy {
                enabled: true,
                writable: vec![],
                network: true,
            }
        );
    }

    #[test]
    fn a_disabled_policy_has_the_disabled_status_and_no_note() {
        let sandbox = Sandbox::new(SandboxPolicy {
            enabled: false,
            ..SandboxPolicy::default()
        });
        assert_eq!(sandbox.status(), &SandboxStatus::Disabled);
        assert_eq!(sandbox.first_note(), None);
    }

    #[test]
    fn the_not_confined_note_is_given_once() {
        let sandbox = sandbox_with(SandboxStatus::NotConfined {
            reason: "no Landlock".into(),
        });
        assert_eq!(
            sandbox.first_note().as_deref(),
            Some("commands are not confined: no Landlock")
        );
        assert_eq!(sandbox.first_note(), None);
    }

    #[test]
    fn a_partial_status_says_what_is_missing() {
        let status = SandboxStatus::Partial {
            reason: "no truncate".into(),
        };
        assert_eq!(
            status.note().as_deref(),
            Some("commands are only partly confined: no truncate")
        );
    }

    #[test]
    fn confined_commands_get_no_note() {
        assert_eq!(sandbox_with(SandboxStatus::Confined).first_note(), None);
    }
}
