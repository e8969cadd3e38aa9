//! Checks after edits (issue 13, `[checks]`): commands from the settings, each for a file
//! pattern, run after a step that edited matching files, so the model sees at once what its
//! edit broke.
//!
//! ```toml
//! [checks]
//! "*.rs" = "cargo check -q --message-format short"
//! "*.py" = "ruff check --quiet {files}"   # {files}: the edited files it matches, shell-quoted
//! timeout_secs = 120                       # for each check; default 120
//! ```
//!
//! A pattern is a glob matched gitignore-style against the project-relative path: one with no
//! `/` matches the file's name at any depth (`*.rs` matches `src/main.rs`), one with a `/` is
//! anchored at the project root (`src/*.rs`, `/build.rs`); `*` does not cross `/`, `**` does.
//!
//! Only the file tools (Write, Edit, MultiEdit) name what they changed; a Bash command does
//! not, so checks do not run after Bash. A step that failed runs none. Each check whose
//! pattern matches an edited file runs once per step (two patterns with the same command run
//! it once), in the order of the settings, as `bash -c` in the project root, confined exactly
//! like a Bash command ([`wright_tools::run_confined_command`]). A failing check's output is
//! added to the step's observation as a note; a passing check adds nothing.
//!
//! This module holds the matching and the text; the round runs the checks
//! (`round/tool_call.rs`).

use std::time::Duration;

use globset::{GlobBuilder, GlobMatcher};
use wright_protocol::{CheckFailure, ToolResult};
use wright_tools::CommandRun;
use wright_tools::data::ToolData;

/// How long a check may run unless `[checks] timeout_secs` says otherwise; as long as a Bash
/// command without a timeout of its own.
pub const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(120);

/// What a check command's `{files}` is replaced with: the edited files its pattern matched.
const FILES_PLACEHOLDER: &str = "{files}";

/// Lines of a failed check's output the observation keeps: the last ones, where compilers
/// and linters sum up.
const OBSERVATION_MAX_LINES: usize = 200;

/// Bytes of a failed check's output the observation keeps, at most.
const OBSERVATION_MAX_BYTES: usize = 16 * 1024;

/// One configured check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckSpec {
    /// The file pattern, e.g. `*.rs`.
    pub pattern: String,
    /// The shell command, possibly with `{files}`.
    pub command: String,
}

/// A check whose pattern does not compile.
#[derive(Debug, thiserror::Error)]
#[error("invalid `[checks]` pattern {pattern:?}: {message}")]
pub struct CheckError {
    /// The pattern as configured.
    pub pattern: String,
    /// What the glob compiler said.
    pub message: String,
}

#[derive(Debug, Clone)]
struct Check {
    matcher: GlobMatcher,
    command: String,
}

/// The configured checks; the default has none.
#[derive(Debug, Clone)]
pub struct Checks {
    checks: Vec<Check>,
    timeout: Duration,
}

impl Default for Checks {
    fn default() -> Self {
        Self {
            checks: Vec::new(),
            timeout: DEFAULT_CHECK_TIMEOUT,
        }
    }
}

impl Checks {
    /// Checks from their specs, in order, each run with at most `timeout`; fails on a pattern
    /// that does not compile.
    pub fn new(specs: Vec<CheckSpec>, timeout: Duration) -> Result<Self, CheckError> {
        let checks = specs
            .into_iter()
            .map(|spec| {
                Ok(Check {
                    matcher: matcher(&spec.pattern)?,
                    command: spec.command,
                })
            })
            .collect::<Result<_, CheckError>>()?;
        Ok(Self { checks, timeout })
    }

    /// Whether no check is configured.
    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// How long each check may run.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The commands to run after a step that edited `edited` (project-relative paths, `/`
    /// between components): one per check whose pattern matches one of them, `{files}` filled
    /// in with those it matches, each command once, in the order of the settings.
    pub fn due(&self, edited: &[String]) -> Vec<String> {
        let mut commands: Vec<String> = Vec::new();
        for check in &self.checks {
            let matched: Vec<&str> = edited
                .iter()
                .map(String::as_str)
                .filter(|path| check.matcher.is_match(path))
                .collect();
            if matched.is_empty() {
                continue;
            }
            let command = fill_files(&check.command, &matched);
            if !commands.contains(&command) {
                commands.push(command);
            }
        }
        commands
    }
}

/// The glob of a pattern, gitignore-style: a pattern without `/` (but a trailing one) matches
/// at any depth; a leading `/` anchors at the root and is dropped.
fn matcher(pattern: &str) -> Result<GlobMatcher, CheckError> {
    let trimmed = pattern.trim();
    let glob = match trimmed.strip_prefix('/') {
        Some(anchored) => anchored.to_string(),
        None if trimmed.trim_end_matches('/').contains('/') => trimmed.to_string(),
        None => format!("**/{trimmed}"),
    };
    GlobBuilder::new(&glob)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| CheckError {
            pattern: pattern.to_string(),
            message: e.kind().to_string(),
        })
}

/// `command` with every `{files}` replaced by `files`, each shell-quoted.
fn fill_files(command: &str, files: &[&str]) -> String {
    if !command.contains(FILES_PLACEHOLDER) {
        return command.to_string();
    }
    let quoted: Vec<String> = files
        .iter()
        .map(|file| shlex::try_quote(file).map_or_else(|_| format!("'{file}'"), |q| q.into_owned()))
        .collect();
    command.replace(FILES_PLACEHOLDER, &quoted.join(" "))
}

/// The project-relative paths a successful Write, Edit or MultiEdit changed; none for other
/// tools (Bash does not say what it changed) and for files outside the project.
pub(crate) fn edited_files(tool: &str, result: &ToolResult) -> Vec<String> {
    if !result.is_success() {
        return Vec::new();
    }
    let path = match ToolData::of(tool, &result.data) {
        Some(ToolData::Write(data)) => data.file_path,
        Some(ToolData::Edit(data)) => data.file_path,
        _ => return Vec::new(),
    };
    if path.starts_with('/') || path == ".." || path.starts_with("../") {
        return Vec::new();
    }
    vec![path]
}

/// What a check that did not pass leaves for the model: `None` when it passed.
pub(crate) fn failure(command: &str, run: &CommandRun, timeout: Duration) -> Option<CheckFailure> {
    if run.passed() || run.interrupted {
        return None;
    }
    let mut output = observation_output(&run.output);
    if run.timed_out {
        let note = format!(
            "[the check did not finish within {} s and was stopped]",
            timeout.as_secs()
        );
        output = if output.is_empty() {
            note
        } else {
            format!("{output}\n{note}")
        };
    }
    Some(CheckFailure {
        command: command.to_string(),
        exit_code: run.exit_code.filter(|_| !run.timed_out),
        timed_out: run.timed_out,
        output,
        output_lines: None,
    })
}

/// The note a failed check adds to the step's observation.
pub(crate) fn failure_note(failure: &CheckFailure) -> String {
    let how = match (failure.timed_out, failure.exit_code) {
        (true, _) => "timed out".to_string(),
        (false, Some(code)) => format!("exit {code}"),
        (false, None) => "did not exit normally".to_string(),
    };
    let output = failure.output.trim_end();
    let output = if output.is_empty() {
        "(it printed nothing)"
    } else {
        output
    };
    format!("Check failed: {} ({how}):\n{output}", failure.command)
}

/// The last [`OBSERVATION_MAX_LINES`] lines of `output`, at most [`OBSERVATION_MAX_BYTES`],
/// with a first line saying how many lines were cut.
fn observation_output(output: &str) -> String {
    let lines: Vec<&str> = output.trim_end().lines().collect();
    let mut first = lines.len().saturating_sub(OBSERVATION_MAX_LINES);
    let mut bytes: usize = lines[first..].iter().map(|line| line.len() + 1).sum();
    while bytes > OBSERVATION_MAX_BYTES && first + 1 < lines.len() {
        bytes -= lines[first].len() + 1;
        first += 1;
    }
    let mut kept = lines[first..].join("\n");
    if kept.len() > OBSERVATION_MAX_BYTES {
        // One line longer than the cap: its end.
        let mut cut = kept.len() - OBSERVATION_MAX_BYTES;
        while !kept.is_char_boundary(cut) {
            cut += 1;
        }
        kept = format!("…{}", &kept[cut..]);
    }
    match first {
        0 => kept,
        cut => format!("[… {cut} earlier lines cut]\n{kept}"),
    }
}

#[cfg(test)]
mod tests;
