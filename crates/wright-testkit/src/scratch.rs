//! A place for test files that the Bash sandbox does not open for writing.

use std::path::{Path, PathBuf};

/// A directory that neither the project, the temporary directory nor `/tmp` contains, so that
/// only a test's settings can make it writable to a confined command: `preferred` (pass
/// `env!("CARGO_TARGET_TMPDIR")`) unless it lies under a temporary directory (as a checkout
/// cloned into `/tmp` makes it), else `/var/tmp`, else the home directory. `None` when none of
/// them exists.
pub fn outside_temporary_dirs(preferred: &Path) -> Option<PathBuf> {
    let temporary: Vec<PathBuf> = [std::env::temp_dir(), PathBuf::from("/tmp")]
        .iter()
        .filter_map(|dir| dir.canonicalize().ok())
        .collect();
    let candidates = [
        Some(preferred.to_path_buf()),
        Some(PathBuf::from("/var/tmp")),
        std::env::var_os("HOME").map(PathBuf::from),
    ];
    candidates
        .into_iter()
        .flatten()
        .filter_map(|dir| dir.canonicalize().ok())
        .find(|dir| !temporary.iter().any(|tmp| dir.starts_with(tmp)))
}
