//! The seccomp filter of confined commands: the system calls a command may not make at all, or
//! not with certain arguments — typing into a terminal, changing mounts, opening files by
//! handle, x32 calls, and the network when it is off (issues 6 and 12).
//!
//! Only the program is built here, in wright, before the fork; the child installs it (see
//! `restrict_child` in the parent module).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use super::SandboxError;

/// The `ioctl` requests that put input into a terminal, refused to every confined command
/// (issue 12: a command must not type into the shell that started wright). `TIOCSTI`
/// pushes a byte into a terminal's input; `TIOCLINUX` can paste a virtual console's
/// selection into it.
// `libc::Ioctl` is `c_ulong` with glibc but `c_int` with musl, so the casts are needed there.
#[allow(clippy::unnecessary_cast)]
const TERMINAL_INPUT_IOCTLS: [u64; 2] = [libc::TIOCSTI as u64, libc::TIOCLINUX as u64];

/// The system calls that change mounts or join another namespace: a confined command may
/// not make them (issue 12: the read-only paths of its mount namespace must stay so; root
/// could otherwise unmount them, or join wright's namespace with `setns`).
const MOUNT_CALLS: [libc::c_long; 11] = [
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_setns,
];

/// The system calls that open a file by its handle rather than by a path, refused to every
/// confined command (issue 12). `open_by_handle_at` opens the file through whichever mount
/// of the same file system it is given, so root (it needs `CAP_DAC_READ_SEARCH`) could open
/// a read-only bound protected path for writing through the writable project above it, and
/// Landlock, which sees the path of that mount, would let it. `name_to_handle_at` only names
/// a file and stays allowed.
const FILE_HANDLE_CALLS: [libc::c_long; 1] = [libc::SYS_open_by_handle_at];

/// `__X32_SYSCALL_BIT`: on x86_64, a system call number with this bit set is one of the x32
/// ABI, which the kernel reports with the same architecture as x86_64's own calls.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Where `struct seccomp_data` holds the system call number.
const SECCOMP_DATA_NR_OFFSET: u32 = 0;

/// The seccomp program every confined command runs under. `ioctl` fails with `EPERM` for
/// the requests in [`TERMINAL_INPUT_IOCTLS`], so a command cannot type into a terminal it
/// can open (issue 12). Only the low 32 bits of the request are compared, as the kernel
/// reads them, so setting high bits does not slip past.
///
/// With `network` off, `socket` and `socketpair` also fail with `EPERM` for every family
/// but `AF_UNIX`, and so does `io_uring_setup` (io_uring can open sockets without the
/// `socket` call). Without an inet socket there is nothing to connect, bind or send with,
/// loopback included.
///
/// Every call that changes mounts or enters another process's namespaces fails with `EPERM`
/// too (see [`MOUNT_CALLS`]), and so does opening a file by handle ([`FILE_HANDLE_CALLS`]),
/// so a command cannot undo or go around the read-only paths of its namespace, even as root.
///
/// On x86_64 every x32 call fails with `EPERM` (see [`x32_guard`]). A call made for another
/// architecture (the 32-bit ABI) kills the process, so the filter cannot be side-stepped
/// that way either.
pub(super) fn command_filter(arch: TargetArch, network: bool) -> Result<BpfProgram, SandboxError> {
    let request_is = |request: u64| -> Result<SeccompRule, SandboxError> {
        Ok(SeccompRule::new(vec![SeccompCondition::new(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            request,
        )?])?)
    };
    let mut rules = BTreeMap::from([(
        libc::SYS_ioctl,
        TERMINAL_INPUT_IOCTLS
            .iter()
            .map(|&request| request_is(request))
            .collect::<Result<Vec<_>, _>>()?,
    )]);
    for call in MOUNT_CALLS.into_iter().chain(FILE_HANDLE_CALLS) {
        // No condition: every call matches.
        rules.insert(call, vec![]);
    }
    if !network {
        let not_unix = || -> Result<SeccompRule, SandboxError> {
            Ok(SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                libc::AF_UNIX as u64,
            )?])?)
        };
        rules.insert(libc::SYS_socket, vec![not_unix()?]);
        rules.insert(libc::SYS_socketpair, vec![not_unix()?]);
        // No condition: every call matches.
        rules.insert(libc::SYS_io_uring_setup, vec![]);
    }
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, refused(), arch)?;
    let program: BpfProgram = filter.try_into()?;
    Ok(match arch {
        TargetArch::x86_64 => x32_guard().into_iter().chain(program).collect(),
        _ => program,
    })
}

/// What a refused call gets: `EPERM`, "Operation not permitted".
fn refused() -> SeccompAction {
    SeccompAction::Errno(libc::EPERM as u32)
}

/// The instructions put before seccompiler's program on x86_64: every call numbered from
/// [`X32_SYSCALL_BIT`] up fails with `EPERM`, whatever it is (issue 12). seccompiler compares
/// plain numbers, so without this the x32 numbers of the calls above (`ioctl` is 514 there,
/// the others their x86_64 number with the bit set) would not match their rules and be
/// allowed on a kernel with x32 enabled. Confined commands lose x32 programs, which are rare.
///
/// seccompiler's program follows unchanged (its jumps are relative, and it loads what it
/// compares itself), so calls below the bit, and the architecture check that kills 32-bit
/// calls, are as before. Numbers from the bit up that mean nothing (a negative number, a
/// 32-bit call's) get `EPERM` here rather than `ENOSYS` or the kill: refused either way.
fn x32_guard() -> BpfProgram {
    let code = |code: u32| code as u16;
    vec![
        sock_filter {
            code: code(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS),
            jt: 0,
            jf: 0,
            k: SECCOMP_DATA_NR_OFFSET,
        },
        // From the bit up: on to the next instruction (refuse); below: skip it.
        sock_filter {
            code: code(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K),
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        sock_filter {
            code: code(libc::BPF_RET | libc::BPF_K),
            jt: 0,
            jf: 0,
            k: u32::from(refused()),
        },
    ]
}

#[cfg(test)]
mod tests {
    //! The program is run here by a small classic-BPF interpreter (the instructions seccompiler
    //! and [`x32_guard`] emit), since the kernel running the tests may have x32 turned off and
    //! answer `ENOSYS` to x32 calls with or without the filter.

    use super::*;
    use pretty_assertions::assert_eq;

    /// `AUDIT_ARCH_X86_64`: what the kernel reports as the architecture of x86_64 and x32 calls.
    const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
    /// `AUDIT_ARCH_I386`: the architecture of 32-bit x86 calls.
    const AUDIT_ARCH_I386: u32 = 3 | 0x4000_0000;

    /// A call as the filter sees it (`struct seccomp_data`, in this machine's byte order).
    fn seccomp_data(arch: u32, nr: u32, args: &[u64]) -> Vec<u8> {
        let mut data = Vec::with_capacity(64);
        data.extend(nr.to_ne_bytes());
        data.extend(arch.to_ne_bytes());
        data.extend(0u64.to_ne_bytes());
        for i in 0..6 {
            data.extend(args.get(i).copied().unwrap_or(0).to_ne_bytes());
        }
        data
    }

    /// Runs `program` on `data` and returns the action, as the kernel would.
    fn run(program: &[sock_filter], data: &[u8]) -> u32 {
        let word = |k: u32| {
            let at = k as usize;
            u32::from_ne_bytes(data[at..at + 4].try_into().unwrap())
        };
        let (mut a, mut pc) = (0u32, 0usize);
        loop {
            let insn = &program[pc];
            pc += 1;
            let jump = |taken: bool| usize::from(if taken { insn.jt } else { insn.jf });
            match u32::from(insn.code) {
                c if c == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS => a = word(insn.k),
                c if c == libc::BPF_ALU | libc::BPF_AND | libc::BPF_K => a &= insn.k,
                c if c == libc::BPF_JMP | libc::BPF_JA => pc += insn.k as usize,
                c if c == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K => pc += jump(a == insn.k),
                c if c == libc::BPF_JMP | libc::BPF_JGT | libc::BPF_K => pc += jump(a > insn.k),
                c if c == libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K => pc += jump(a >= insn.k),
                c if c == libc::BPF_RET | libc::BPF_K => return insn.k,
                other => panic!("instruction {other:#x} is not interpreted here"),
            }
        }
    }

    fn allowed() -> u32 {
        u32::from(SeccompAction::Allow)
    }

    fn eperm() -> u32 {
        u32::from(refused())
    }

    fn host() -> TargetArch {
        TargetArch::try_from(std::env::consts::ARCH).unwrap()
    }

    /// The action for the call `nr` with `args`, made through x86_64's own ABI.
    fn on_x86_64(network: bool, nr: u32, args: &[u64]) -> u32 {
        let program = command_filter(TargetArch::x86_64, network).unwrap();
        run(&program, &seccomp_data(AUDIT_ARCH_X86_64, nr, args))
    }

    fn nr(call: libc::c_long) -> u32 {
        call.try_into().unwrap()
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn ordinary_calls_pass_and_the_ruled_ones_are_refused() {
        let tcgets = u64::from(libc::TCGETS as u32);
        let tiocsti = TERMINAL_INPUT_IOCTLS[0];
        let inet = libc::AF_INET as u64;
        let unix = libc::AF_UNIX as u64;
        let cases = [
            (
                "getpid",
                on_x86_64(false, nr(libc::SYS_getpid), &[]),
                allowed(),
            ),
            (
                "ioctl TCGETS",
                on_x86_64(true, nr(libc::SYS_ioctl), &[0, tcgets]),
                allowed(),
            ),
            (
                "ioctl TIOCSTI",
                on_x86_64(true, nr(libc::SYS_ioctl), &[0, tiocsti]),
                eperm(),
            ),
            ("mount", on_x86_64(true, nr(libc::SYS_mount), &[]), eperm()),
            (
                "open_by_handle_at",
                on_x86_64(true, nr(libc::SYS_open_by_handle_at), &[]),
                eperm(),
            ),
            (
                "name_to_handle_at",
                on_x86_64(true, nr(libc::SYS_name_to_handle_at), &[]),
                allowed(),
            ),
            (
                "socket inet, on",
                on_x86_64(true, nr(libc::SYS_socket), &[inet]),
                allowed(),
            ),
            (
                "socket inet, off",
                on_x86_64(false, nr(libc::SYS_socket), &[inet]),
                eperm(),
            ),
            (
                "socket unix, off",
                on_x86_64(false, nr(libc::SYS_socket), &[unix]),
                allowed(),
            ),
        ];
        for (call, action, expected) in cases {
            assert_eq!(action, expected, "{call}");
        }
    }

    /// Each call the filter has a rule for, under its x32 number (x32's own `ioctl` is 514),
    /// and a harmless one (`getpid`), with arguments the rules would let through and ones they
    /// would not: all refused.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_x32_call_is_refused_on_x86_64() {
        const X32_IOCTL: u32 = 514;
        let inet = libc::AF_INET as u64;
        let unix = libc::AF_UNIX as u64;
        let mut calls: Vec<(u32, Vec<u64>)> = vec![
            (X32_IOCTL, vec![0, TERMINAL_INPUT_IOCTLS[0]]),
            (X32_IOCTL, vec![0, TERMINAL_INPUT_IOCTLS[1]]),
            (nr(libc::SYS_ioctl), vec![0, TERMINAL_INPUT_IOCTLS[0]]),
            (nr(libc::SYS_socket), vec![inet]),
            (nr(libc::SYS_socket), vec![unix]),
            (nr(libc::SYS_socketpair), vec![inet]),
            (nr(libc::SYS_io_uring_setup), vec![]),
            (nr(libc::SYS_getpid), vec![]),
        ];
        for call in MOUNT_CALLS.into_iter().chain(FILE_HANDLE_CALLS) {
            calls.push((nr(call), vec![]));
        }
        for network in [true, false] {
            for (call, args) in &calls {
                let number = X32_SYSCALL_BIT | call;
                assert_eq!(
                    on_x86_64(network, number, args),
                    eperm(),
                    "x32 call {number:#x} {args:?}, network {network}"
                );
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_32_bit_x86_call_still_kills_the_process() {
        let program = command_filter(TargetArch::x86_64, true).unwrap();
        let getpid_i386 = 20;
        assert_eq!(
            run(&program, &seccomp_data(AUDIT_ARCH_I386, getpid_i386, &[])),
            libc::SECCOMP_RET_KILL_PROCESS
        );
    }

    #[test]
    fn other_architectures_get_seccompilers_program_alone() {
        let arch = match host() {
            TargetArch::x86_64 => TargetArch::aarch64,
            other => other,
        };
        let program = command_filter(arch, true).unwrap();
        assert_ne!(program[..3], x32_guard()[..]);
    }
}
