//! The protected paths of a command (issue 12), enforced by the kernel: the command runs in a
//! mount namespace of its own where each protected path is bound read-only onto itself and
//! each directory above one is bound onto itself (a mount point cannot be renamed or removed).
//! Landlock alone cannot do this: it grants rights to whole hierarchies and cannot take a
//! subdirectory back out of a writable root.
//!
//! wright itself, and everything outside the command, keeps seeing the paths writable: the
//! namespace is the command's (and its children's) only, and it does not send its mounts back
//! (`/` is made a slave first). As root the namespace is made directly; otherwise inside a user
//! namespace that maps only the user to itself, so the command keeps its identity.
//!
//! Like the rest of the sandbox, everything that allocates happens before the fork; in the
//! child only `unshare`, `open`/`write`/`close` on `/proc/self` and `mount` are called.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One bind mount, ready to be made in the child.
#[derive(Debug)]
struct Bind {
    path: CString,
    /// Remount it read-only, keeping these flags of the mount it lies on (a user namespace
    /// may not clear them).
    read_only: Option<libc::c_ulong>,
}

/// A mount namespace to enter between fork and exec.
#[derive(Debug)]
pub(super) struct Namespace {
    binds: Vec<Bind>,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// The directory the command starts in, entered again once the mounts are made.
    cwd: Option<CString>,
}

impl Namespace {
    /// The namespace that pins `pins` and makes `read_only` read-only, in that order, for a
    /// command that starts in `cwd`; `None` when there is nothing to do. Fails when a path
    /// cannot be named to the kernel (a NUL byte) or its file system cannot be asked for its
    /// flags.
    pub(super) fn new(
        pins: &[PathBuf],
        read_only: &[PathBuf],
        cwd: Option<&Path>,
    ) -> io::Result<Option<Self>> {
        if pins.is_empty() && read_only.is_empty() {
            return Ok(None);
        }
        let mut binds = Vec::with_capacity(pins.len() + read_only.len());
        for pin in pins {
            binds.push(Bind {
                path: c_path(pin)?,
                read_only: None,
            });
        }
        for path in read_only {
            let c = c_path(path)?;
            let flags = locked_flags(&c)?;
            binds.push(Bind {
                path: c,
                read_only: Some(flags),
            });
        }
        // SAFETY: getuid and getgid cannot fail and touch no memory of ours.
        #[allow(unsafe_code)]
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Ok(Some(Self {
            binds,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            cwd: cwd.map(c_path).transpose()?,
        }))
    }

    /// Enters the namespace: called in the forked child before it restricts itself further.
    /// Makes system calls only and allocates nothing.
    #[allow(unsafe_code)]
    pub(super) fn enter(&self) -> io::Result<()> {
        // SAFETY (every call below): plain system calls on NUL-terminated strings and byte
        // buffers this value owns, alive for the whole call.
        if unsafe { libc::unshare(libc::CLONE_NEWNS) } != 0 {
            let err = io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EPERM) {
                return Err(err);
            }
            // Not privileged: a user namespace gives the rights to mount in a namespace of
            // the command's own, and the command keeps its user and group.
            if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
                return Err(io::Error::last_os_error());
            }
            // wright is non-dumpable (issue 12), which makes its `/proc/self` files root's:
            // the id maps could not be written. Dumpable only for these writes; `execve` makes
            // the command dumpable anyway.
            unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) };
            let written = write_proc(c"/proc/self/setgroups", b"deny")
                .and_then(|()| write_proc(c"/proc/self/uid_map", &self.uid_map))
                .and_then(|()| write_proc(c"/proc/self/gid_map", &self.gid_map));
            unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
            written?;
        }
        mount(None, c"/", libc::MS_REC | libc::MS_SLAVE)?;
        for bind in &self.binds {
            mount(Some(&bind.path), &bind.path, libc::MS_BIND | libc::MS_REC)?;
            if let Some(flags) = bind.read_only {
                let remount = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | flags;
                mount(None, &bind.path, remount)?;
            }
        }
        // The working directory was entered before the mounts were made (the child changes
        // to it before it runs this), so it is the directory under any mount made above it,
        // where the read-only mounts below are not seen: enter it again by its path.
        if let Some(cwd) = &self.cwd
            && unsafe { libc::chdir(cwd.as_ptr()) } != 0
        {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Whether commands can be given a namespace here: a child enters one that makes the temporary
/// directory read-only, then exits. `Err` says why not.
#[allow(unsafe_code)]
pub(super) fn probe() -> Result<(), String> {
    let dir = std::env::temp_dir()
        .canonicalize()
        .map_err(|err| format!("the temporary directory cannot be used: {err}"))?;
    let namespace = Namespace::new(&[], &[dir], None)
        .map_err(|err| err.to_string())?
        .ok_or("nothing to probe")?;
    // SAFETY: the child only makes the system calls of `enter` and `_exit`, which are
    // async-signal-safe, so forking a process with other threads is sound.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("cannot fork: {}", io::Error::last_os_error()));
    }
    if pid == 0 {
        let code = match namespace.enter() {
            Ok(()) => 0,
            Err(err) => err.raw_os_error().unwrap_or(libc::EIO).clamp(1, 255),
        };
        // SAFETY: ends the child at once, without running anything of the parent's.
        unsafe { libc::_exit(code) };
    }
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: waits for the child just forked; `status` is a valid place to write.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        if waited == pid {
            break;
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(format!("cannot wait for the probe: {err}"));
        }
    }
    match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
        Some(0) => Ok(()),
        Some(errno) => Err(format!(
            "a mount namespace cannot be made here ({})",
            io::Error::from_raw_os_error(errno)
        )),
        None => Err("the mount namespace probe was killed".into()),
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} has a NUL byte", path.display()),
        )
    })
}

/// The flags of the mount `path` lies on that a remount must keep: a user namespace may not
/// clear `nosuid`, `nodev`, `noexec` or change how access times are kept.
#[allow(unsafe_code)]
fn locked_flags(path: &CString) -> io::Result<libc::c_ulong> {
    // SAFETY: statvfs fills the zeroed struct it is given for a NUL-terminated path.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Ok(pairs
        .iter()
        .filter(|(st, _)| stat.f_flag & st != 0)
        .fold(0, |flags, (_, ms)| flags | ms))
}

#[allow(unsafe_code)]
fn mount(
    source: Option<&CString>,
    target: &std::ffi::CStr,
    flags: libc::c_ulong,
) -> io::Result<()> {
    let source = source.map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: NUL-terminated strings or null, as mount(2) takes them; no data argument.
    let done = unsafe {
        libc::mount(
            source,
            target.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    };
    match done {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Writes `bytes` to a `/proc/self` file in one `write`, as the kernel wants id maps written.
#[allow(unsafe_code)]
fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a live buffer.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    let err = io::Error::last_os_error();
    unsafe { libc::close(fd) };
    match usize::try_from(written) {
        Ok(n) if n == bytes.len() => Ok(()),
        _ => Err(err),
    }
}
