//! The direct scan: the files under a root, each parsed and checked by its language's rules,
//! in parallel over the cores; the findings numbered in report order.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::finding::{Finding, Issue, Language};
use crate::report::Summary;

/// Directories never scanned, wherever they are (vendored and generated code).
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "build",
    "out",
    "target",
    "third_party",
    "vendor",
    "node_modules",
];

/// Files larger than this are skipped (generated tables, amalgamations): reported in
/// [`Scan::skipped`].
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// What to scan.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// The languages whose files are read; all three when empty.
    pub languages: Vec<Language>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        Self {
            languages: vec![Language::C, Language::Cpp, Language::Rust],
        }
    }
}

/// One source file, as the rules see it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub language: Language,
    /// Relative to the scanned root, `/` between parts: what findings name.
    pub path: String,
    pub text: String,
}

/// The result of a direct scan.
#[derive(Debug, Clone)]
pub struct Scan {
    /// The findings, numbered 1..N by file, then line.
    pub issues: Vec<Issue>,
    pub summary: Summary,
    /// Files left out, with why (too large, binary, unreadable).
    pub skipped: Vec<(String, String)>,
}

/// Why a scan could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("`{0}` does not exist")]
    Missing(PathBuf),
    #[error("could not read `{path}`: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Scans the files under `root` (a directory or one file). `progress` is told
/// `(files done, files in all)` as files finish, from any thread.
pub fn scan(
    root: &Path,
    options: &ScanOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Scan, ScanError> {
    if !root.exists() {
        return Err(ScanError::Missing(root.to_path_buf()));
    }
    let files = collect(root, options);
    let total = files.len();
    let done = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let found: Mutex<Vec<Finding>> = Mutex::new(Vec::new());
    let skipped: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(total.max(1)) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some((path, rel, language)) = files.get(index) else {
                        break;
                    };
                    match read(path) {
                        Ok(text) => {
                            let file = SourceFile {
                                language: *language,
                                path: rel.clone(),
                                text,
                            };
                            let findings = check(&file);
                            lock(&found).extend(findings);
                        }
                        Err(why) => lock(&skipped).push((rel.clone(), why)),
                    }
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                }
            });
        }
    });
    let mut findings = found.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut skipped = skipped.into_inner().unwrap_or_else(|e| e.into_inner());
    skipped.sort();
    findings.sort_by(|a, b| {
        (a.file.as_str(), a.line, a.pattern.as_str()).cmp(&(
            b.file.as_str(),
            b.line,
            b.pattern.as_str(),
        ))
    });
    let issues: Vec<Issue> = findings
        .into_iter()
        .enumerate()
        .map(|(i, finding)| Issue {
            gid: i + 1,
            severity: finding.severity(),
            finding,
        })
        .collect();
    let summary = Summary::of(&issues, total, &root.display().to_string());
    Ok(Scan {
        issues,
        summary,
        skipped,
    })
}

/// Runs the rules of `file`'s language on it.
pub fn check(file: &SourceFile) -> Vec<Finding> {
    match file.language {
        Language::C | Language::Cpp => crate::c::check(file),
        Language::Rust => crate::rust::check(file),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The files to scan: `(path, relative name, language)`, sorted by name.
fn collect(root: &Path, options: &ScanOptions) -> Vec<(PathBuf, String, Language)> {
    let wanted =
        |language: Language| options.languages.is_empty() || options.languages.contains(&language);
    let mut files = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && entry.depth() > 0
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIPPED_DIRS.contains(&name)))
        })
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Some(language) = Language::of_path(path).filter(|l| wanted(*l)) else {
            continue;
        };
        let rel = if path == root {
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        } else {
            path.strip_prefix(root)
                .unwrap_or(path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        };
        files.push((path.to_path_buf(), rel, language));
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    files
}

/// A file's text; `Err` says why it is left out.
fn read(path: &Path) -> Result<String, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > MAX_FILE_BYTES {
        return Err(format!(
            "larger than {} MiB",
            MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if bytes.contains(&0) {
        return Err("binary (contains NUL bytes)".into());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn vendored_generated_and_ignored_directories_are_not_scanned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in [
            "src/a.c",
            "src/b.rs",
            "include/c.hpp",
            "vendor/x.c",
            "third_party/y.c",
            "target/debug/z.rs",
            "build/gen.c",
            "node_modules/m/n.c",
            "deep/out/o.c",
            "ignored/i.c",
            "README.md",
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "int x;\n").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        let names: Vec<String> = collect(root, &ScanOptions::default())
            .into_iter()
            .map(|(_, rel, _)| rel)
            .collect();
        assert_eq!(names, ["include/c.hpp", "src/a.c", "src/b.rs"]);
        let only_rust = ScanOptions {
            languages: vec![Language::Rust],
        };
        let names: Vec<String> = collect(root, &only_rust)
            .into_iter()
            .map(|(_, rel, _)| rel)
            .collect();
        assert_eq!(names, ["src/b.rs"]);
    }

    #[test]
    fn binary_and_huge_files_are_skipped_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bin.c"), b"int\0x;").unwrap();
        let scan = scan(dir.path(), &ScanOptions::default(), &|_, _| {}).unwrap();
        assert_eq!(scan.summary.scanned_files, 1);
        assert_eq!(scan.skipped.len(), 1);
        assert!(scan.skipped[0].1.contains("binary"));
    }

    #[test]
    fn a_missing_root_is_an_error() {
        let error = scan(
            Path::new("/nonexistent/wright-sec"),
            &ScanOptions::default(),
            &|_, _| {},
        );
        assert!(matches!(error, Err(ScanError::Missing(_))));
    }
}
