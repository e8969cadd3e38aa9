//! The ToolResultCompressor (spec A3, C1, D2): the history form of a tool result.
//!
//! The model sees a tool's full observation (`text`) during the round it ran in; history keeps
//! only `{"status", "data", "error"?, "checks"?}` with `data` shrunk by a rule per tool (spec
//! A3) and each failed check (issue 13) cut to its command, exit code and last output lines. `text`,
//! `stats` and `context` are dropped (C1: the text is what `data` summarises, the stats are of
//! no use to the model, the arguments are already in the assistant's `Action:`). `status`, and
//! for a failure `error.code` and `error.message` in full, are always kept, whatever the data
//! looks like. Markers such as `truncated`, `applied`, `fallback` and `modified_externally` are
//! kept wherever the tool set them.
//!
//! The rules are pure functions of `(tool, result)`. Each tool's rule reads the data through
//! its history form, a type whose fields are those of the tool's data (see [`crate::data`]) and
//! of its history form together, all optional: the same type reads what the tool returned and
//! what an earlier compression kept, so history can be compressed again. A field missing from
//! the data is left out; data of an unexpected shape falls back to the default rule; nothing
//! here panics.
//!
//! # Tiers
//!
//! | | [`Standard`](CompressionLevel::Standard) | [`Tight`](CompressionLevel::Tight) |
//! |---|---|---|
//! | Read: lines of the current range | 500 | 100 |
//! | Grep: match lines / files / counts | 5 | 3 |
//! | Glob, LS, Definitions: entries; RepoMap: files | 10 | 5 |
//! | Edit, MultiEdit: diff kept whole up to / else first lines | 50 / 20 | 25 / 10 |
//! | Write: head of a created / overwritten file | 50 / 20 | 25 / 10 |
//! | Bash: last stdout / stderr lines | 5 / 20 | 2 / 5 |
//! | BashOutput, KillBash, a background job's end: last output lines | 5 | 2 |
//! | a failed `[checks]` command: last output lines | 20 | 5 |
//! | Bash command, Grep and Bash line characters | 200 | 100 |
//! | Read, diff and Write line characters | 2000 | 500 |
//! | other tools: string chars / array items / depth | 2000 / 20 / 8 | 1000 / 10 / 4 |
//!
//! `Standard` is what every step is written to history with, a Read's content then cut further
//! to the session's `read_history_lines` ([`cap_read_content`]). `Tight` is for when the retained
//! rounds alone pass the compaction threshold (DESIGN §9.3); it accepts results that are
//! already compressed at `Standard` (their tool messages are all history still has) and gives
//! the same shapes with smaller limits. Compressing twice at the same level changes nothing.

mod bash;
mod checks;
mod fallback;
mod files;
mod jobs;
mod search;

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use wright_protocol::{HistoryResult, ToolResult};

/// Spec A3: Read keeps at most 500 lines of the current range ("上限 500 行，仅当前区间").
/// The `read_history_lines` setting may lower it ([`cap_read_content`]), never raise it.
pub const READ_MAX_LINES: usize = 500;
/// Spec A3: Grep keeps a summary and at most 5 match lines with file and line number.
const GREP_MAX_LINES: usize = 5;
/// Spec A3: Glob and LS keep their counts and the first 10 entries ("前 5-10 项").
const LIST_MAX_ENTRIES: usize = 10;
/// Spec A3: an Edit/MultiEdit diff of at most 50 lines is kept whole (snippets of 20-50 lines).
const DIFF_WHOLE_LINES: usize = 50;
/// Spec A3: a larger diff keeps only a summary and its first 20 lines ("大 diff 仅保留摘要").
const DIFF_HEAD_LINES: usize = 20;
/// Spec A3: a file Write created keeps its first 50 lines ("新文件保留前 20-50 行").
const CREATED_HEAD_LINES: usize = 50;
/// Spec A3: a file Write overwrote keeps its first 20 lines; the model had it already.
const OVERWRITTEN_HEAD_LINES: usize = 20;
/// Spec A3: Bash keeps the last 20 lines of stderr ("stderr 末尾 20 行").
const STDERR_TAIL_LINES: usize = 20;
/// Spec A3: Bash keeps only a summary of stdout ("stdout 仅摘要"): its size and last 5 lines.
const STDOUT_TAIL_LINES: usize = 5;
/// Characters of a Bash command kept; the full command is in the assistant's `Action:`.
const COMMAND_CHARS: usize = 200;
/// Characters of one Grep match text or one Bash output line kept.
const SHORT_LINE_CHARS: usize = 200;
/// Characters of one line of a Read, diff or Write snippet kept (Read's own cut).
const SNIPPET_LINE_CHARS: usize = 2000;
/// Spec D2 default rule ("默认回退策略"): longer strings are cut in the middle.
const DEFAULT_STRING_CHARS: usize = 2000;
/// Spec D2 default rule: longer arrays keep their first items and a `… N more` note.
const DEFAULT_ARRAY_ITEMS: usize = 20;
/// Spec D2 default rule: containers nested deeper than this are replaced by a size note.
const DEFAULT_DEPTH: usize = 8;

/// How hard tool results are compressed (see the tiers in the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompressionLevel {
    /// The spec A3 limits, used when each step is written to history.
    #[default]
    Standard,
    /// About half of every limit, for retained history that alone passes the compaction
    /// threshold (DESIGN §9.3).
    Tight,
}

/// The limits of one [`CompressionLevel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    read_lines: usize,
    grep_lines: usize,
    list_entries: usize,
    diff_whole_lines: usize,
    diff_head_lines: usize,
    created_head_lines: usize,
    overwritten_head_lines: usize,
    stdout_tail_lines: usize,
    stderr_tail_lines: usize,
    command_chars: usize,
    short_line_chars: usize,
    snippet_line_chars: usize,
    string_chars: usize,
    /// A sub-agent's answer (the Task tool): what the parent keeps instead of every
    /// observation the child made, so it is kept longer than other strings.
    answer_chars: usize,
    array_items: usize,
    depth: usize,
}

impl Limits {
    const STANDARD: Self = Self {
        read_lines: READ_MAX_LINES,
        grep_lines: GREP_MAX_LINES,
        list_entries: LIST_MAX_ENTRIES,
        diff_whole_lines: DIFF_WHOLE_LINES,
        diff_head_lines: DIFF_HEAD_LINES,
        created_head_lines: CREATED_HEAD_LINES,
        overwritten_head_lines: OVERWRITTEN_HEAD_LINES,
        stdout_tail_lines: STDOUT_TAIL_LINES,
        stderr_tail_lines: STDERR_TAIL_LINES,
        command_chars: COMMAND_CHARS,
        short_line_chars: SHORT_LINE_CHARS,
        snippet_line_chars: SNIPPET_LINE_CHARS,
        string_chars: DEFAULT_STRING_CHARS,
        answer_chars: 4 * DEFAULT_STRING_CHARS,
        array_items: DEFAULT_ARRAY_ITEMS,
        depth: DEFAULT_DEPTH,
    };

    /// DESIGN §9.3: roughly half of every standard limit; Read goes down to a fifth, since
    /// its 500 lines dominate any history they are in.
    const TIGHT: Self = Self {
        read_lines: 100,
        grep_lines: 3,
        list_entries: 5,
        diff_whole_lines: 25,
        diff_head_lines: 10,
        created_head_lines: 25,
        overwritten_head_lines: 10,
        stdout_tail_lines: 2,
        stderr_tail_lines: 5,
        command_chars: 100,
        short_line_chars: 100,
        snippet_line_chars: 500,
        string_chars: 1000,
        answer_chars: 2000,
        array_items: 10,
        depth: 4,
    };

    fn of(level: CompressionLevel) -> Self {
        match level {
            CompressionLevel::Standard => Self::STANDARD,
            CompressionLevel::Tight => Self::TIGHT,
        }
    }
}

/// The history form of a tool result: `{"status", "data": <compressed>, "error"?: {code,
/// message}}`, at the [`Standard`](CompressionLevel::Standard) level.
pub fn compress(tool: &str, result: &ToolResult) -> Value {
    compress_with(tool, result, CompressionLevel::Standard)
}

/// The same as [`compress`], serialised as compact JSON for a history `tool` message.
pub fn compress_to_string(tool: &str, result: &ToolResult) -> String {
    compress_to_string_with(tool, result, CompressionLevel::Standard)
}

/// The same as [`compress_with`], serialised as compact JSON for a history `tool` message,
/// keys in the order of spec E1 ([`HistoryResult::to_json`]).
pub fn compress_to_string_with(tool: &str, result: &ToolResult, level: CompressionLevel) -> String {
    history_result(tool, result, level).to_json()
}

/// The history form of a tool result at `level`. `tool` picks the rule (spec A3); any tool
/// without one (MCP, added later, unknown) gets the default rule. `result` may itself be a
/// compressed result read back from history, to compress it harder.
pub fn compress_with(tool: &str, result: &ToolResult, level: CompressionLevel) -> Value {
    serde_json::to_value(history_result(tool, result, level)).unwrap_or_default()
}

/// A stored Read history form (a history `tool` message's JSON, as [`compress_to_string`]
/// wrote it) with its content cut to the first `max_lines` lines of the window — at most
/// [`READ_MAX_LINES`], the spec A3 cap — for the `read_history_lines` setting, which keeps
/// less of each Read in history so that a session's prompt grows, and is re-billed, less.
/// With 0 lines the form keeps no content, only where the window sits (`file_path`,
/// `offset`, `lines_shown`, `total_lines`, `mtime`) and `content_lines_dropped`: the model
/// reads the file again when it needs the lines. `None` when `stored` is not a successful
/// Read's history form.
pub fn cap_read_content(stored: &str, max_lines: usize) -> Option<String> {
    let mut form: HistoryResult = serde_json::from_str(stored).ok()?;
    let limits = Limits {
        read_lines: max_lines.min(READ_MAX_LINES),
        ..Limits::STANDARD
    };
    form.data = files::read(&form.data, &limits)?;
    Some(form.to_json())
}

/// The history form as its type. C1: the error is kept in full, whatever the level; it says
/// what to do next.
fn history_result(tool: &str, result: &ToolResult, level: CompressionLevel) -> HistoryResult {
    HistoryResult {
        status: result.status,
        data: compress_data(tool, &result.data, &Limits::of(level)),
        error: result.error.clone(),
        checks: checks::checks(&result.checks, &Limits::of(level)),
        jobs_ended: jobs::ended(&result.jobs_ended, &Limits::of(level)),
    }
}

/// `data` by the rule of `tool`, or by the default rule when it has none or the data is not
/// of the shape its rule expects.
fn compress_data(tool: &str, data: &Value, limits: &Limits) -> Value {
    if data.is_null() {
        return Value::Null;
    }
    let by_tool = match tool {
        "Read" => files::read(data, limits),
        "Write" => files::write(data, limits),
        "Edit" | "MultiEdit" => files::edit(data, limits),
        "Grep" => search::grep(data, limits),
        "Glob" => search::glob(data, limits),
        "LS" => search::ls(data, limits),
        "Definitions" => crate::definitions::compressed(data, limits.list_entries),
        "RepoMap" => crate::repomap::compressed(data, limits.list_entries),
        "Bash" => bash::bash(data, limits),
        "BashOutput" | "KillBash" => jobs::job(data, limits),
        "TodoWrite" => crate::todo_write::compressed_recap(data),
        "Task" => Some(task_answers(data, limits)),
        _ if tool.starts_with("mcp__") => Some(mcp_content(data, limits)),
        _ => None,
    };
    by_tool.unwrap_or_else(|| fallback::shrink(data, limits))
}

/// An MCP tool's result (issue 15): the head of its text within the Read cap (lines and
/// characters), with a note of what was left; its other fields by the default rule.
fn mcp_content(data: &Value, limits: &Limits) -> Value {
    let mut kept = fallback::shrink(data, limits);
    if let (Some(content), Value::Object(fields)) = (data["content"].as_str(), &mut kept) {
        // A result compressed before ends with the note of what it kept: the lines it
        // counted then are the ones counted now, so compressing again changes nothing.
        let (body, total_before) = match kept_note(content) {
            Some((body, total)) => (body, Some(total)),
            None => (content, None),
        };
        let lines = Lines::head(body, limits.read_lines, limits.snippet_line_chars);
        let total = total_before.unwrap_or(lines.total);
        let mut head = lines.text;
        if let Some((cut, _)) = head.char_indices().nth(limits.answer_chars) {
            head.truncate(cut);
        }
        let kept_lines = head.lines().count();
        if kept_lines < total || head.len() < body.trim_end().len() {
            head.push_str(&format!("\n… [{kept_lines} of {total} lines kept]"));
        }
        fields.insert("content".into(), Value::String(head));
    }
    kept
}

/// The text before an [`mcp_content`] note (`… [K of N lines kept]`) ending `content`, and
/// its N.
fn kept_note(content: &str) -> Option<(&str, usize)> {
    let (body, note) = content.rsplit_once("\n… [")?;
    let total = note
        .strip_suffix(" lines kept]")?
        .split_once(" of ")?
        .1
        .parse()
        .ok()?;
    Some((body, total))
}

/// A Task result (one task's fields, or `{"tasks": [...]}`) with each `answer` cut to
/// [`Limits::answer_chars`] and the rest by the default rule.
fn task_answers(data: &Value, limits: &Limits) -> Value {
    let answer = |task: &Value| {
        let mut kept = fallback::shrink(task, limits);
        if let (Some(answer), Value::Object(fields)) = (task["answer"].as_str(), &mut kept) {
            fields.insert(
                "answer".into(),
                Value::String(cut_middle(answer, limits.answer_chars).into_owned()),
            );
        }
        kept
    };
    match data.get("tasks").and_then(Value::as_array) {
        Some(tasks) => serde_json::json!({"tasks": tasks.iter().map(answer).collect::<Vec<_>>()}),
        None => answer(data),
    }
}

/// A field a tool may set to `null`: absent (`None`), `null` (`Some(None)`) or a value. History
/// keeps a `null` the tool wrote (`"fallback": null` says the exact match worked).
type Nullable<T> = Option<Option<T>>;

/// Reads a present field, `null` included, as `Some`; with `#[serde(default)]` an absent one
/// stays `None`.
fn nullable<'de, D, T>(deserializer: D) -> Result<Nullable<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// `line` cut to `max` characters, with `… [+N chars]` saying how much went.
fn cut_line(line: &str, max: usize) -> Cow<'_, str> {
    match line.char_indices().nth(max) {
        None => Cow::Borrowed(line),
        Some((cut, _)) => {
            let dropped = line[cut..].chars().count();
            Cow::Owned(format!("{}… [+{dropped} chars]", &line[..cut]))
        }
    }
}

/// What opens and closes the note [`cut_middle`] leaves in place of what it cut.
const CUT_OPEN: &str = " … [";
const CUT_CLOSE: &str = " chars cut] … ";

/// `text` cut to at most `max` characters by dropping its middle, with a note saying how much
/// went: the start and the end of a log or a document are what tell most.
///
/// A text cut before is cut again as if it were whole, its note counting every character
/// dropped, so cutting is stable: cutting to the same `max` twice changes nothing, and
/// cutting to a smaller `max` gives what cutting the original would have.
fn cut_middle(text: &str, max: usize) -> Cow<'_, str> {
    let (head, earlier, tail) = match split_cut(text) {
        Some((head, earlier, tail)) if earlier > 0 => (head, earlier, tail),
        _ => (text, 0, ""),
    };
    let (head_total, tail_total) = (head.chars().count(), tail.chars().count());
    // The note is text from outside (a tool's output): its count is not trusted not to
    // overflow.
    let total = head_total
        .saturating_add(earlier)
        .saturating_add(tail_total);
    if text.chars().count() <= max {
        return Cow::Borrowed(text);
    }
    let note_chars = CUT_OPEN.chars().count() + CUT_CLOSE.chars().count();
    let keep = max.saturating_sub(note_chars + total.to_string().len());
    // Without an earlier cut, head and tail both come from the whole text.
    let (head, tail) = if earlier == 0 {
        (text, text)
    } else {
        (head, tail)
    };
    let head_chars = (keep / 2).min(head_total);
    let tail_chars = if earlier == 0 {
        keep - keep / 2
    } else {
        (keep - keep / 2).min(tail_total)
    };
    let head = take_chars(head, head_chars);
    let tail = last_chars(tail, tail_chars);
    let dropped = total.saturating_sub(head_chars + tail_chars);
    Cow::Owned(format!("{head}{CUT_OPEN}{dropped}{CUT_CLOSE}{tail}"))
}

/// The head, the count of dropped characters and the tail of a text [`cut_middle`] cut.
fn split_cut(text: &str) -> Option<(&str, usize, &str)> {
    let open = text.find(CUT_OPEN)?;
    let rest = &text[open + CUT_OPEN.len()..];
    let close = rest.find(CUT_CLOSE)?;
    let dropped = rest[..close].parse().ok()?;
    Some((&text[..open], dropped, &rest[close + CUT_CLOSE.len()..]))
}

use wright_protocol::text::{last_chars, take_chars};

/// Some lines of a text, each cut to a maximum length.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Lines {
    /// The kept lines, `\n`-separated.
    text: String,
    /// Lines in the whole text.
    total: usize,
    /// Lines left out.
    dropped: usize,
    /// Kept lines that were cut.
    cut: usize,
}

impl Lines {
    /// The first `max` lines of `text`.
    fn head(text: &str, max: usize, line_chars: usize) -> Self {
        let total = text.lines().count();
        Self::keep(text.lines().take(max), total, line_chars)
    }

    /// The last `max` lines of `text`.
    fn tail(text: &str, max: usize, line_chars: usize) -> Self {
        let total = text.lines().count();
        Self::keep(
            text.lines().skip(total.saturating_sub(max)),
            total,
            line_chars,
        )
    }

    fn keep<'a>(lines: impl Iterator<Item = &'a str>, total: usize, line_chars: usize) -> Self {
        let mut kept = Vec::new();
        let mut cut = 0;
        for line in lines {
            let shown = cut_line(line, line_chars);
            if matches!(shown, Cow::Owned(_)) {
                cut += 1;
            }
            kept.push(shown);
        }
        Self {
            dropped: total - kept.len(),
            text: kept.join("\n"),
            total,
            cut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn cut_line_keeps_short_lines_and_counts_what_it_drops() {
        assert_eq!(cut_line("short", 10), "short");
        assert_eq!(cut_line("ééééé", 2), "éé… [+3 chars]");
    }

    #[test]
    fn cut_middle_keeps_both_ends_within_the_limit() {
        let text = "a".repeat(50) + &"b".repeat(50);
        let cut = cut_middle(&text, 40);
        assert_eq!(
            cut,
            format!("{} … [81 chars cut] … {}", "a".repeat(9), "b".repeat(10))
        );
        assert_eq!(cut.chars().count(), 39);
        assert_eq!(cut_middle("abc", 4), "abc");
    }

    #[test]
    fn a_sub_agents_answer_is_kept_longer_than_other_strings() {
        let answer = "x".repeat(6_000);
        let task =
            serde_json::json!({"agent": "explore", "answer": answer, "note": "y".repeat(6_000)});
        let result = ToolResult::success("", task.clone());
        let kept = compress("Task", &result);
        assert_eq!(kept["data"]["answer"], answer, "6,000 characters fit");
        assert!(kept["data"]["note"].as_str().unwrap().chars().count() <= DEFAULT_STRING_CHARS);
        let long = ToolResult::success("", serde_json::json!({"answer": "z".repeat(20_000)}));
        let cut = compress("Task", &long)["data"]["answer"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            cut.chars().count() <= 4 * DEFAULT_STRING_CHARS,
            "{}",
            cut.len()
        );
        let many = ToolResult::success("", serde_json::json!({"tasks": [task.clone(), task]}));
        let kept = compress("Task", &many);
        assert_eq!(kept["data"]["tasks"][1]["answer"], answer);
        let tight = compress_with("Task", &many, CompressionLevel::Tight);
        assert!(
            tight["data"]["tasks"][0]["answer"]
                .as_str()
                .unwrap()
                .chars()
                .count()
                <= 2000
        );
    }

    #[test]
    fn an_mcp_results_history_keeps_the_head_of_its_text() {
        let text: String = (1..=800).map(|i| format!("row {i}\n")).collect();
        let result = ToolResult::success(
            text.clone(),
            serde_json::json!({"server": "db", "tool": "query", "content": text}),
        );
        let kept = compress("mcp__db__query", &result);
        let content = kept["data"]["content"].as_str().unwrap();
        assert!(content.starts_with("row 1\nrow 2\n"), "{content}");
        assert!(
            content.contains("row 500\n… [500 of 800 lines kept]"),
            "{content}"
        );
        assert!(!content.contains("row 501"));
        assert_eq!(kept["data"]["server"], "db");
        let short = ToolResult::success(
            "one line",
            serde_json::json!({"server": "db", "tool": "query", "content": "one line"}),
        );
        assert_eq!(
            compress("mcp__db__query", &short)["data"]["content"],
            "one line"
        );
        // Compressing the history form again changes nothing, the tight tier only cuts more.
        let once = ToolResult::success("", kept["data"].clone());
        assert_eq!(compress("mcp__db__query", &once)["data"], kept["data"]);
        let tight = compress_with("mcp__db__query", &once, CompressionLevel::Tight);
        let tight = tight["data"]["content"].as_str().unwrap();
        assert!(
            tight.ends_with("row 100\n… [100 of 800 lines kept]"),
            "{tight}"
        );
    }

    #[test]
    fn cut_middle_is_stable_when_cutting_again() {
        let text: String = ('a'..='z').cycle().take(500).collect();
        let once = cut_middle(&text, 100);
        assert_eq!(cut_middle(&once, 100), once);
        assert_eq!(cut_middle(&once, 60), cut_middle(&text, 60));
    }

    #[test]
    fn cut_middle_survives_notes_it_did_not_write() {
        let fake = format!("a … [{} chars cut] … {}", usize::MAX, "b".repeat(100));
        assert!(cut_middle(&fake, 50).chars().count() <= 50);
        let zero = format!("a … [0 chars cut] … {}", "b".repeat(100));
        assert!(cut_middle(&zero, 50).chars().count() <= 50);
    }

    #[test]
    fn head_and_tail_count_what_they_leave_out() {
        let text = "1\n2\n3\n4\n";
        assert_eq!(
            Lines::head(text, 2, 10),
            Lines {
                text: "1\n2".into(),
                total: 4,
                dropped: 2,
                cut: 0
            }
        );
        assert_eq!(Lines::tail(text, 3, 10).text, "2\n3\n4");
        assert_eq!(Lines::tail(text, 9, 10).dropped, 0);
    }

    #[test]
    fn tight_limits_are_smaller_than_standard_ones() {
        let (s, t) = (Limits::STANDARD, Limits::TIGHT);
        for (standard, tight) in [
            (s.read_lines, t.read_lines),
            (s.grep_lines, t.grep_lines),
            (s.list_entries, t.list_entries),
            (s.diff_whole_lines, t.diff_whole_lines),
            (s.diff_head_lines, t.diff_head_lines),
            (s.created_head_lines, t.created_head_lines),
            (s.overwritten_head_lines, t.overwritten_head_lines),
            (s.stdout_tail_lines, t.stdout_tail_lines),
            (s.stderr_tail_lines, t.stderr_tail_lines),
            (s.command_chars, t.command_chars),
            (s.short_line_chars, t.short_line_chars),
            (s.snippet_line_chars, t.snippet_line_chars),
            (s.string_chars, t.string_chars),
            (s.array_items, t.array_items),
            (s.depth, t.depth),
        ] {
            assert!(tight < standard && tight > 0, "{tight} vs {standard}");
        }
    }
}
