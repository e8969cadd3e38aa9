//! Files wright reads from the project on its own, not because the model asked: the project's
//! `CODE_LAW.md` and its settings. A repository may be hostile, so such a file is read the way
//! the file tools read: only inside the project (a link out of it is refused, with the reason),
//! only a regular file (a FIFO or a device would block or never end), opened without following
//! a last link and without blocking, and at most `max_bytes` of it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Why a project file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ProjectFileError {
    /// The file, or a link on the way to it, leads out of the project.
    #[error("it leads out of the project (to {}); wright reads only files inside it", target.display())]
    Outside {
        /// Where it leads.
        target: PathBuf,
    },
    /// Not a regular file (a FIFO, a device, a directory, a socket).
    #[error("it is not a regular file")]
    NotRegular,
    /// It could not be opened or read.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// The first `max_bytes + 1` bytes of `path` (so a caller can tell it was longer), read as the
/// module documentation says, for the project at `root`.
pub fn read_project_file(
    root: &Path,
    path: &Path,
    max_bytes: u64,
) -> Result<Vec<u8>, ProjectFileError> {
    let root = root.canonicalize()?;
    let target = path.canonicalize()?;
    if !target.starts_with(&root) {
        return Err(ProjectFileError::Outside { target });
    }
    let file = open_no_follow(&target)?;
    if !file.metadata()?.is_file() {
        return Err(ProjectFileError::NotRegular);
    }
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Opens `path` for reading without following a link in its last component and without
/// blocking (a FIFO with no writer would otherwise wait forever).
fn open_no_follow(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_file_or_a_link_inside_the_project_is_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/rules.md"), "Use tabs.").unwrap();
        symlink("docs/rules.md", dir.path().join("CODE_LAW.md")).unwrap();
        let bytes = read_project_file(dir.path(), &dir.path().join("CODE_LAW.md"), 100).unwrap();
        assert_eq!(bytes, b"Use tabs.");
        let cut = read_project_file(dir.path(), &dir.path().join("docs/rules.md"), 3).unwrap();
        assert_eq!(cut, b"Use ");
    }

    #[test]
    fn a_link_out_of_the_project_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("credentials"), "SECRET").unwrap();
        let dir = tempfile::tempdir().unwrap();
        symlink(
            outside.path().join("credentials"),
            dir.path().join("CODE_LAW.md"),
        )
        .unwrap();
        let error = read_project_file(dir.path(), &dir.path().join("CODE_LAW.md"), 100);
        assert!(
            matches!(error, Err(ProjectFileError::Outside { .. })),
            "{error:?}"
        );
        symlink("/dev/stdin", dir.path().join("stdin.md")).unwrap();
        let error = read_project_file(dir.path(), &dir.path().join("stdin.md"), 100);
        assert!(error.is_err(), "{error:?}");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("CODE_LAW.md");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let error = read_project_file(dir.path(), &fifo, 100);
        assert!(
            matches!(error, Err(ProjectFileError::NotRegular)),
            "{error:?}"
        );
    }
}
