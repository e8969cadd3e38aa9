//! Layer L2 (spec A1, C5): the project's rules in `CODE_LAW.md` at the project root, name
//! matched without regard to case, re-read for every request and never stored in history.
//! The repository may be hostile: the file is read only inside the project, only as a regular
//! file, without blocking ([`read_project_file`]), and the caller masks secrets in it as in
//! tool output.

use std::path::{Path, PathBuf};

use wright_tools::project_file::{ProjectFileError, read_project_file};
use wright_tools::secrets::SecretMasker;

/// The file name, compared case-insensitively (spec C5).
pub const CODE_LAW_FILE: &str = "code_law.md";

/// Largest part of the file that is sent; the rest is cut with a visible note.
pub const MAX_CODE_LAW_BYTES: usize = 64 * 1024;

/// The project rules as they go into a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLaw {
    /// The file's name as it is on disk (`CODE_LAW.md`, `code_law.md`, ...).
    pub file_name: String,
    /// Its text, cut to [`MAX_CODE_LAW_BYTES`] with a note when longer.
    pub text: String,
    /// Whether it was cut.
    pub truncated: bool,
}

/// A CODE_LAW.md that is there but cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {source}", path.display())]
pub struct CodeLawError {
    /// The file.
    pub path: PathBuf,
    /// Why it cannot be read.
    #[source]
    pub source: ProjectFileError,
}

/// Reads the project's CODE_LAW.md, if it has one, with secrets masked by `masker` as in tool
/// output. A file that cannot be read is reported as an error for the caller to show; it never
/// stops a round.
pub fn load(project_root: &Path, masker: &SecretMasker) -> Result<Option<CodeLaw>, CodeLawError> {
    read_named(project_root, project_root, CODE_LAW_FILE, masker)
}

/// The name of the file called `name` in any case in `dir` (the upper-case spelling first
/// when there are several, for a stable choice), if there is one. Directories are not it;
/// anything else is (a FIFO or a link out is then reported by the read, not silently left
/// out). A hostile directory may hold millions of entries: a bounded number is looked at.
pub(crate) fn name_in_any_case(dir: &Path, name: &str) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .take(MAX_DIR_ENTRIES)
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| !t.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|found| found.eq_ignore_ascii_case(name))
        .collect();
    names.sort();
    names.into_iter().next()
}

/// Reads the file named `lower_name` (compared case-insensitively) in `dir`, if there is one,
/// as [`load`] reads CODE_LAW.md: only a regular file whose real path is inside `bound` (the
/// project, the git root above it, or wright's user settings directory), never blocking, cut
/// to [`MAX_CODE_LAW_BYTES`] with a visible note, secrets masked.
pub(crate) fn read_named(
    bound: &Path,
    dir: &Path,
    lower_name: &str,
    masker: &SecretMasker,
) -> Result<Option<CodeLaw>, CodeLawError> {
    let Some(file_name) = name_in_any_case(dir, lower_name) else {
        return Ok(None);
    };
    let path = dir.join(&file_name);
    let (text, truncated) =
        read_bounded(bound, &path, &file_name).map_err(|source| CodeLawError {
            path: path.clone(),
            source,
        })?;
    Ok(Some(CodeLaw {
        file_name,
        text: masker.mask(&text).into_owned(),
        truncated,
    }))
}

/// At most this many entries of a directory are looked at for an instruction file.
pub(crate) const MAX_DIR_ENTRIES: usize = 4096;

/// The text of `path` (real path inside `bound`, a regular file), cut to
/// [`MAX_CODE_LAW_BYTES`] with a note naming `shown_name`; whether it was cut. Secrets are
/// not masked here.
pub(crate) fn read_bounded(
    bound: &Path,
    path: &Path,
    shown_name: &str,
) -> Result<(String, bool), ProjectFileError> {
    let mut bytes = read_project_file(bound, path, MAX_CODE_LAW_BYTES as u64)?;
    let truncated = bytes.len() > MAX_CODE_LAW_BYTES;
    bytes.truncate(MAX_CODE_LAW_BYTES);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if truncated {
        // A cut in the middle of a UTF-8 sequence shows as one replacement character; drop it.
        if text.ends_with('\u{FFFD}') {
            text.pop();
        }
        text.push_str(&format!(
            "\n\n[{shown_name} is longer than {} KiB; the rest was cut.]",
            MAX_CODE_LAW_BYTES / 1024
        ));
    }
    Ok((text, truncated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn absent_file_is_nothing() {
        let dir = tempfile::TempDir::new().unwrap();
        assert_eq!(load(dir.path(), &SecretMasker::disabled()).unwrap(), None);
    }

    #[test]
    fn any_case_of_the_name_is_found() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("Code_Law.MD"), "Use tabs.").unwrap();
        let law = load(dir.path(), &SecretMasker::disabled())
            .unwrap()
            .unwrap();
        assert_eq!(law.file_name, "Code_Law.MD");
        assert_eq!(law.text, "Use tabs.");
        assert!(!law.truncated);
    }

    #[test]
    fn a_link_out_of_the_project_or_a_fifo_is_refused_with_the_reason() {
        let outside = tempfile::TempDir::new().unwrap();
        std::fs::write(outside.path().join("credentials"), "aws_secret=1").unwrap();
        let dir = tempfile::TempDir::new().unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("credentials"),
            dir.path().join("CODE_LAW.md"),
        )
        .unwrap();
        let error = load(dir.path(), &SecretMasker::disabled())
            .unwrap_err()
            .to_string();
        assert!(error.contains("leads out of the project"), "{error}");
        std::fs::remove_file(dir.path().join("CODE_LAW.md")).unwrap();
        nix::unistd::mkfifo(
            &dir.path().join("CODE_LAW.md"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .unwrap();
        let error = load(dir.path(), &SecretMasker::disabled())
            .unwrap_err()
            .to_string();
        assert!(error.contains("not a regular file"), "{error}");
    }

    #[test]
    fn secrets_in_the_rules_are_masked_as_in_tool_output() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(
            dir.path().join("CODE_LAW.md"),
            "Deploy with AKIAIOSFODNN7EXAMPLE.",
        )
        .unwrap();
        let masker = SecretMasker::new(&wright_tools::secrets::SecretPolicy::default()).unwrap();
        let law = load(dir.path(), &masker).unwrap().unwrap();
        assert!(!law.text.contains("AKIAIOSFODNN7EXAMPLE"), "{}", law.text);
        assert!(law.text.starts_with("Deploy with "));
    }

    #[test]
    fn a_huge_file_is_cut_with_a_visible_note() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("CODE_LAW.md"), "x".repeat(100_000)).unwrap();
        let law = load(dir.path(), &SecretMasker::disabled())
            .unwrap()
            .unwrap();
        assert!(law.truncated);
        assert!(law.text.starts_with(&"x".repeat(MAX_CODE_LAW_BYTES)));
        assert!(law.text.ends_with("the rest was cut.]"));
    }
}
