//! Replacing a file's content atomically: a temporary file beside it, then a rename (DESIGN §5).
//!
//! A reader (the user's editor, a compiler) sees either the old content or the new one, never a
//! half-written file, and a crash mid-write leaves the original untouched. On Unix both steps are
//! made relative to an open directory, so that the tools' confined write
//! ([`crate::ToolContext::write_file_atomically`]) cannot be redirected by a symlink.

use std::io::{self, Write};
#[cfg(any(test, not(unix)))]
use std::path::Path;

/// Writes `bytes` to the file `name` in the open directory `dir`: a temporary file created there
/// (never through a symlink), then `renameat` over `name`. When `name` is a symlink the link
/// itself is replaced, not its target.
///
/// An existing file keeps its permissions (an executable script stays executable); a new file
/// gets the usual `0o666` minus the umask rather than the temporary file's private `0o600`. On
/// failure the temporary file is removed.
#[cfg(unix)]
pub(crate) fn write_atomic_in(
    dir: &std::os::fd::OwnedFd,
    name: &std::ffi::OsStr,
    bytes: &[u8],
) -> io::Result<()> {
    use nix::fcntl::{AtFlags, renameat};
    use nix::sys::stat::{Mode, SFlag, fchmod, fstatat};
    use nix::unistd::{UnlinkatFlags, unlinkat};

    let existing_mode = fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .ok()
        .filter(|stat| SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG)
        .map(|stat| Mode::from_bits_truncate(stat.st_mode));
    // Passed to open(2), so the umask applies as it would for any new file.
    let create_mode = match existing_mode {
        Some(_) => Mode::from_bits_truncate(0o600),
        None => Mode::from_bits_truncate(0o666),
    };
    let (temp_name, file) = create_temporary(dir, create_mode)?;
    let written = (|| -> io::Result<()> {
        let mut file = std::fs::File::from(file);
        file.write_all(bytes)?;
        if let Some(mode) = existing_mode {
            fchmod(&file, mode)?;
        }
        file.sync_all()?;
        renameat(dir, temp_name.as_str(), dir, name)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = unlinkat(dir, temp_name.as_str(), UnlinkatFlags::NoRemoveDir);
    }
    written
}

/// Creates a new, empty temporary file in `dir` (`O_EXCL`, so never an existing file or link).
#[cfg(unix)]
fn create_temporary(
    dir: &std::os::fd::OwnedFd,
    mode: nix::sys::stat::Mode,
) -> io::Result<(String, std::os::fd::OwnedFd)> {
    use nix::errno::Errno;
    use nix::fcntl::{OFlag, openat};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Attempts before giving up on finding a free name.
    const ATTEMPTS: u32 = 100;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let flags =
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    for _ in 0..ATTEMPTS {
        let name = format!(
            ".wright-{}-{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        match openat(dir, name.as_str(), flags, mode) {
            Ok(file) => return Ok((name, file)),
            Err(Errno::EEXIST) => continue,
            Err(err) => return Err(err.into()),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free name for a temporary file",
    ))
}

/// Writes `bytes` to `path` atomically, following the directories of `path` as they are (the
/// tools write through [`crate::ToolContext::write_file_atomically`] instead). The parent
/// directory must exist.
#[cfg(any(test, not(unix)))]
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} has no parent directory", path.display()),
        )
    })?;
    #[cfg(unix)]
    {
        use nix::fcntl::{OFlag, open};
        use nix::sys::stat::Mode;
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} has no file name", path.display()),
            )
        })?;
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let dir = open(dir, flags, Mode::empty())?;
        write_atomic_in(&dir, name, bytes)
    }
    #[cfg(not(unix))]
    {
        let existing = std::fs::metadata(path).ok().filter(|meta| meta.is_file());
        let mut temp = tempfile::Builder::new()
            .prefix(".wright-")
            .suffix(".tmp")
            .tempfile_in(dir)?;
        temp.write_all(bytes)?;
        if let Some(meta) = existing {
            temp.as_file().set_permissions(meta.permissions())?;
        }
        temp.as_file().sync_all()?;
        temp.persist(path).map_err(|err| err.error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_the_content_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(entries(dir.path()), vec!["a.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
        write_atomic(&path, b"#!/bin/sh\necho hi\n").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o751);
    }

    /// The process umask as Linux reports it, without changing it.
    #[cfg(target_os = "linux")]
    fn umask() -> u32 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
        u32::from_str_radix(line["Umask:".len()..].trim(), 8).unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_new_file_gets_the_usual_mode_not_the_temporary_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        write_atomic(&path, b"x").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o666 & !umask());
    }

    #[test]
    fn a_missing_directory_is_an_error_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing/a.txt");
        assert!(write_atomic(&path, b"x").is_err());
        assert_eq!(entries(dir.path()), Vec::<String>::new());
    }
}
