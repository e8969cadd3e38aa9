//! Replacing a file's content atomically: a temporary file beside it, then a rename (DESIGN §5).
//!
//! A reader (the user's editor, a compiler) sees either the old content or the new one, never a
//! half-written file, and a crash mid-write leaves the original untouched.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically, off the async runtime (see [`write_atomic`]).
pub(crate) async fn write_file_atomically(path: PathBuf, bytes: Vec<u8>) -> io::Result<()> {
    tokio::task::spawn_blocking(move || write_atomic(&path, &bytes))
        .await
        .map_err(io::Error::other)?
}

/// Writes `bytes` to a temporary file in `path`'s directory and renames it over `path`.
///
/// An existing file keeps its permissions (an executable script stays executable); a new file
/// gets the usual `0o666` minus the umask rather than the temporary file's private `0o600`. The
/// parent directory must exist. On failure the temporary file is removed.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} has no parent directory", path.display()),
        )
    })?;
    let existing = std::fs::metadata(path).ok().filter(|meta| meta.is_file());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".wright-").suffix(".tmp");
    #[cfg(unix)]
    if existing.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // Passed to open(2), so the umask applies as it would for any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(bytes)?;
    if let Some(meta) = existing {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|err| err.error)?;
    Ok(())
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
