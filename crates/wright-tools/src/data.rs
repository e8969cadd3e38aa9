//! The structured `data` of each built-in tool's result, as types: the tools build their
//! results from these, and whoever reads a result — result summaries in wright-core, the
//! terminal's tool lines — reads it through [`ToolData::of`] instead of by string keys.
//!
//! On the wire (`ToolResult::data`, session files, `--json` events) each is a plain JSON
//! object. Reading is lenient: a missing field takes its default, so results stored by an
//! older wright still read. The history form the compressor makes of them is another shape
//! (spec A3), with its own rules in [`crate::compress`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wright_protocol::{JobStatus, TodoItem};

/// A Read: the lines shown and where they sit in the file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReadData {
    /// The file, as shown (relative to the project root when inside it).
    pub file_path: String,
    /// The first line shown, 1-based.
    pub offset: usize,
    /// The most lines that were asked for.
    pub limit: usize,
    /// How many lines are shown.
    pub lines_shown: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// The lines shown, without line numbers.
    pub content: String,
    /// The file's mtime in seconds since the epoch (milliseconds kept), when known.
    pub mtime: Option<f64>,
    /// Whether lines after the range were left out.
    pub truncated: bool,
    /// Lines cut to the line-length cap.
    pub long_lines_cut: usize,
    /// Bytes that were not UTF-8 and are shown as U+FFFD; absent when there were none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_utf8_bytes: Option<usize>,
    /// Whether the file changed on disk since the agent last saw it (spec A8/C4).
    pub modified_externally: bool,
}

/// Whether a Write made a new file or replaced one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteAction {
    /// The file did not exist.
    #[default]
    Created,
    /// The file's content was replaced.
    Overwritten,
}

impl WriteAction {
    /// `created` or `overwritten`.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteAction::Created => "created",
            WriteAction::Overwritten => "overwritten",
        }
    }
}

/// A Write: what was written, with its first lines.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WriteData {
    /// The file, as shown.
    pub file_path: String,
    /// Created or overwritten.
    pub action: WriteAction,
    /// Lines written.
    pub lines: usize,
    /// Bytes written.
    pub bytes: usize,
    /// The first lines of the content.
    pub head: String,
    /// Whether `head` is not the whole content.
    pub truncated: bool,
    /// The unified diff from the old content (capped), for the user's screen only: history
    /// drops it. Absent for a binary file that was replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// How one edit of a MultiEdit matched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EditOutcome {
    /// Places replaced.
    pub replacements: usize,
    /// The rung of the matching ladder that matched, when not the exact one.
    pub fallback: Option<String>,
}

/// An Edit or MultiEdit: what changed, as a diff and as ranges.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EditData {
    /// The file, as shown.
    pub file_path: String,
    /// Places replaced, over all edits.
    pub replacements: usize,
    /// The first fallback rung any edit needed, if any.
    pub fallback: Option<String>,
    /// Always true for a successful edit (spec A3 keeps the marker).
    pub applied: bool,
    /// Changed lines of the new file, 1-based inclusive `[start, end]`.
    pub changed_ranges: Vec<[usize; 2]>,
    /// The unified diff.
    pub diff: String,
    /// Lines in `diff`.
    pub diff_lines: usize,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// MultiEdit only: each edit's outcome, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits: Option<Vec<EditOutcome>>,
    /// MultiEdit only: how many edits were applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits_applied: Option<usize>,
}

/// What an LS entry is. A symlink is reported as a `symlink`, not as what it points to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A directory.
    Dir,
    /// A file.
    #[default]
    File,
    /// A symbolic link.
    Symlink,
}

/// One entry of an LS listing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LsEntry {
    /// The entry's name.
    pub name: String,
    /// Directory, file or symlink.
    pub kind: EntryKind,
    /// Bytes, for files only.
    pub size: Option<u64>,
    /// Where a symlink points: shown in the text only, not kept in `data`.
    #[serde(skip)]
    pub target: Option<String>,
}

/// An LS: the directory's entries, directories first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LsData {
    /// The directory, as shown.
    pub path: String,
    /// The entries listed (at most the cap).
    pub entries: Vec<LsEntry>,
    /// Entries in the directory.
    pub total: usize,
    /// Of which directories.
    pub dirs: usize,
    /// Of which not directories.
    pub files: usize,
    /// Whether entries past the cap were left out.
    pub truncated: bool,
}

/// A Glob: the matching files, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GlobData {
    /// The pattern as given.
    pub pattern: String,
    /// The directory searched, as shown.
    pub path: String,
    /// The files listed (at most the cap).
    pub files: Vec<String>,
    /// Files that matched.
    pub total: usize,
    /// Whether files past the cap were left out.
    pub truncated: bool,
}

/// A file and its number of matching lines (Grep's `count` mode).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrepCount {
    /// The file, as shown.
    pub file: String,
    /// Matching lines in it.
    pub count: u64,
}

/// One matching line (Grep's `content` mode).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrepMatch {
    /// The file, as shown.
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// The line.
    pub text: String,
}

/// A Grep, in one of its three output modes: exactly one of `files`, `counts` and `matches` is
/// present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrepData {
    /// The pattern as given.
    pub pattern: String,
    /// `files_with_matches`, `count` or `content`.
    pub mode: String,
    /// `files_with_matches`: the files, newest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    /// `count`: matching lines per file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Vec<GrepCount>>,
    /// `content`: the matching lines shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches: Option<Vec<GrepMatch>>,
    /// Matching lines in all (not known in `files_with_matches` mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
    /// Files with a match.
    pub total_files: usize,
    /// Whether the output was cut.
    pub truncated: bool,
}

/// A Bash command: how it ended and what it printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BashData {
    /// The command as run.
    pub command: String,
    /// The exit code; for a signal, 128 + its number, as shells report it. `None` when
    /// unknown.
    pub exit_code: Option<i32>,
    /// The signal that killed it, e.g. `SIGKILL`.
    pub signal: Option<String>,
    /// Standard output as shown (a long one has its middle cut).
    pub stdout: String,
    /// Standard error as shown.
    pub stderr: String,
    /// Characters the command wrote to standard output.
    pub stdout_chars: usize,
    /// Characters the command wrote to standard error.
    pub stderr_chars: usize,
    /// Whether it was stopped at its timeout.
    pub timed_out: bool,
    /// The id of the background job it was started as (`run_in_background`, issue 14): the
    /// call returned at once, and the rest of this is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
}

/// A BashOutput or a KillBash (issue 14): a background job, how it stands, and what it
/// printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JobData {
    /// The job's id, e.g. `b1`.
    pub id: String,
    /// The command as it was started.
    pub command: String,
    /// Running, exited or killed.
    pub status: JobStatus,
    /// Its exit code once it has ended (128 + the signal's number for a signal).
    pub exit_code: Option<i32>,
    /// The signal that ended it, e.g. `SIGTERM`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// What stopped it, when it did not end on its own: `KillBash`, `timeout`, `session_end`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// Seconds since it started (until it ended).
    pub runtime_secs: f64,
    /// BashOutput: what it printed since the last read (the lines matching the filter), cut
    /// in the middle when long. KillBash: the last lines it printed.
    pub output: String,
    /// Characters of `output` before it was cut.
    pub output_chars: usize,
    /// BashOutput: bytes it printed since the last read that were dropped before this one
    /// (a job keeps its last 1 MiB).
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_bytes: u64,
    /// BashOutput: the filter the lines were read through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A TodoWrite: the new list and its counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TodoData {
    /// The whole list, in order.
    pub todos: Vec<TodoItem>,
    /// Items in the list.
    pub total: usize,
    /// Of which completed.
    pub completed: usize,
    /// Of which in progress.
    pub in_progress: usize,
    /// Of which pending.
    pub pending: usize,
    /// The one-line recap history keeps (spec A3).
    pub recap: String,
}

/// The data of a built-in tool's result, by tool.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolData {
    /// Read.
    Read(ReadData),
    /// Write.
    Write(WriteData),
    /// Edit and MultiEdit.
    Edit(EditData),
    /// LS.
    Ls(LsData),
    /// Glob.
    Glob(GlobData),
    /// Grep.
    Grep(GrepData),
    /// Bash.
    Bash(BashData),
    /// BashOutput and KillBash.
    Job(JobData),
    /// TodoWrite.
    Todo(TodoData),
}

impl ToolData {
    /// The `data` of a result of the tool called `tool`, read as that tool's type; `None` for
    /// another tool (MCP, unknown), `null` data (an error), or data not of the tool's shape.
    pub fn of(tool: &str, data: &Value) -> Option<Self> {
        Some(match tool {
            "Read" => ToolData::Read(read_object(data)?),
            "Write" => ToolData::Write(read_object(data)?),
            "Edit" | "MultiEdit" => ToolData::Edit(read_object(data)?),
            "LS" => ToolData::Ls(read_object(data)?),
            "Glob" => ToolData::Glob(read_object(data)?),
            "Grep" => ToolData::Grep(read_object(data)?),
            "Bash" => ToolData::Bash(read_object(data)?),
            "BashOutput" | "KillBash" => ToolData::Job(read_object(data)?),
            "TodoWrite" => ToolData::Todo(read_object(data)?),
            _ => return None,
        })
    }
}

/// `data` read as `T`, or `None` when it is not a JSON object or a field has another type.
pub(crate) fn read_object<T: serde::de::DeserializeOwned>(data: &Value) -> Option<T> {
    if !data.is_object() {
        return None;
    }
    T::deserialize(data).ok()
}

/// `data` as JSON for a [`ToolResult`](wright_protocol::ToolResult).
pub(crate) fn to_value(data: &impl Serialize) -> Value {
    // Plain structs of strings, numbers and lists always serialise.
    serde_json::to_value(data).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn data_of_another_tool_or_shape_is_not_read() {
        assert_eq!(ToolData::of("mcp__x__y", &json!({"a": 1})), None);
        assert_eq!(ToolData::of("Bash", &Value::Null), None);
        assert_eq!(ToolData::of("Bash", &json!({"exit_code": "zero"})), None);
    }

    #[test]
    fn missing_fields_take_their_defaults() {
        assert_eq!(
            ToolData::of("Bash", &json!({"exit_code": 2})),
            Some(ToolData::Bash(BashData {
                exit_code: Some(2),
                ..BashData::default()
            }))
        );
    }

    #[test]
    fn a_multi_edit_reads_as_an_edit_with_its_per_edit_outcomes() {
        let data = json!({"file_path": "a", "edits": [{"replacements": 2, "fallback": null}], "edits_applied": 1});
        let Some(ToolData::Edit(edit)) = ToolData::of("MultiEdit", &data) else {
            panic!("not an edit");
        };
        assert_eq!(edit.edits_applied, Some(1));
        assert_eq!(edit.edits.unwrap()[0].replacements, 2);
    }
}
