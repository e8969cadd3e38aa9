//! What the examples share: the source files under a directory.

use std::path::{Path, PathBuf};

/// Every file under `dir`, sorted by name, hidden entries skipped, appended to `out`.
pub fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            files(&entry.path(), out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}
