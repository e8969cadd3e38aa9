//! One line per tool call: what is being done while it runs, what came of it when done.
//!
//! `Read src/lib.rs (1–200 of 812 lines)`, `Bash cargo test — exit 0, 3.2 s`,
//! `⠋ Bash cargo test … 1.2 s`, and in red `Read nope.rs — not_found: no such file`. The
//! outcomes are read from each tool's `data` (see `wright-tools`); a field that is missing
//! just leaves the outcome out.

use std::time::Duration;

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use wright_protocol::{JobStatus, ToolError, ToolResult, ToolStatus};
use wright_tools::data::{BashData, EditData, ReadData, ToolData};

use super::Theme;
use super::palette::{ADDED, BOLD, DIM, ERROR, REMOVED, WARNING};
use super::text::{clean_line, clip};

/// The frames of the spinner before a running tool; the application advances the frame.
pub const SPINNER_FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// Columns for what a tool works on (a command, a path, a pattern, unknown arguments).
const SUBJECT_BUDGET: usize = 60;
/// Columns for an error message after its code.
const ERROR_BUDGET: usize = 100;
/// Between the call and its outcome.
const SEPARATOR: &str = " — ";

const SPINNER: Style = Style::new().fg(Color::Cyan);

/// Where a tool call is.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolLineState {
    /// Still running.
    Running {
        /// Counts up; taken modulo [`SPINNER_FRAMES`].
        spinner_frame: usize,
        /// Since the call started.
        elapsed: Duration,
    },
    /// Finished.
    Done {
        /// What it returned.
        result: ToolOutcome,
        /// How long it ran.
        elapsed: Duration,
    },
}

/// The parts of a tool's result that its line shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// Success or error.
    pub status: ToolStatus,
    /// The tool's structured result.
    pub data: Value,
    /// Why it failed, when it did.
    pub error: Option<ToolError>,
}

impl From<&ToolResult> for ToolOutcome {
    fn from(result: &ToolResult) -> Self {
        Self {
            status: result.status,
            data: result.data.clone(),
            error: result.error.clone(),
        }
    }
}

/// The line for a call of `tool` with `args` (the arguments the model gave).
pub fn tool_call_line(
    tool: &str,
    args: &Value,
    status: ToolLineState,
    theme: &Theme,
) -> Line<'static> {
    let name = clean_line(tool);
    let line = match status {
        ToolLineState::Running {
            spinner_frame,
            elapsed,
        } => {
            let frame = SPINNER_FRAMES[spinner_frame % SPINNER_FRAMES.len()];
            let mut spans = vec![Span::styled(frame, SPINNER), Span::raw(" ")];
            spans.extend(call(&name, &subject(tool, args, None), BOLD, Style::new()));
            spans.push(Span::styled(format!(" … {}", seconds(elapsed)), DIM));
            Line::from(spans)
        }
        ToolLineState::Done { result, elapsed } => {
            let data = ToolData::of(tool, &result.data);
            let subject = subject(tool, args, data.as_ref());
            match (&result.status, &result.error) {
                (ToolStatus::Success, _) => {
                    let mut spans = call(&name, &subject, BOLD, Style::new());
                    if tool == "AskUser" {
                        spans.extend(answer(&result.data));
                    } else {
                        spans.extend(outcome(tool, data.as_ref(), elapsed));
                    }
                    Line::from(spans)
                }
                (ToolStatus::Error, error) => {
                    let mut spans = call(&name, &subject, BOLD.patch(ERROR), ERROR);
                    let reason = error.as_ref().map_or_else(
                        || "failed".to_string(),
                        |e| {
                            let message = clean_line(e.message.lines().next().unwrap_or(""));
                            clip(&format!("{}: {message}", e.code), ERROR_BUDGET)
                        },
                    );
                    spans.push(Span::styled(format!("{SEPARATOR}{reason}"), ERROR));
                    Line::from(spans)
                }
            }
        }
    };
    theme.finish_line(line)
}

/// `Name subject`, or `Name` alone when there is no subject.
fn call(name: &str, subject: &str, name_style: Style, subject_style: Style) -> Vec<Span<'static>> {
    let mut spans = vec![Span::styled(name.to_string(), name_style)];
    if !subject.is_empty() {
        spans.push(Span::styled(format!(" {subject}"), subject_style));
    }
    spans
}

/// What the tool works on, clipped to [`SUBJECT_BUDGET`]; the shown path in the tool's data
/// is preferred to the path the model gave.
fn subject(tool: &str, args: &Value, data: Option<&ToolData>) -> String {
    let arg = |key: &str| args.get(key).and_then(Value::as_str);
    let shown = |path: &str| Some(path.to_string()).filter(|p| !p.is_empty());
    let text = match tool {
        "Read" | "Edit" | "MultiEdit" | "Write" => {
            let from_data = match data {
                Some(ToolData::Read(read)) => shown(&read.file_path),
                Some(ToolData::Edit(edit)) => shown(&edit.file_path),
                Some(ToolData::Write(write)) => shown(&write.file_path),
                _ => None,
            };
            from_data.unwrap_or_else(|| arg("file_path").unwrap_or("").to_string())
        }
        "Bash" => arg("command")
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        "Grep" | "Glob" => {
            let pattern = arg("pattern").unwrap_or("");
            let pattern = if tool == "Grep" {
                format!("\"{pattern}\"")
            } else {
                pattern.to_string()
            };
            match arg("path") {
                Some(path) if !path.is_empty() && path != "." => format!("{pattern} in {path}"),
                _ => pattern,
            }
        }
        "LS" => match data {
            Some(ToolData::Ls(ls)) if !ls.path.is_empty() => ls.path.clone(),
            _ => arg("path").unwrap_or(".").to_string(),
        },
        "TodoWrite" => String::new(),
        "AskUser" => arg("question").unwrap_or("").to_string(),
        _ => match args {
            Value::Null => String::new(),
            Value::Object(map) if map.is_empty() => String::new(),
            args => args.to_string(),
        },
    };
    clip(&clean_line(&text), SUBJECT_BUDGET)
}

/// `n thing` or `n things`.
use wright_protocol::text::count;

/// `+3 −1`, in green and red.
fn added_removed(edit: &EditData) -> Vec<Span<'static>> {
    vec![
        Span::raw(", "),
        Span::styled(format!("+{}", edit.added), ADDED),
        Span::raw(" "),
        Span::styled(format!("\u{2212}{}", edit.removed), REMOVED),
    ]
}

/// What came of a successful call, with its separator; empty when its data does not say.
fn outcome(tool: &str, data: Option<&ToolData>, elapsed: Duration) -> Vec<Span<'static>> {
    let separated = |spans: Vec<Span<'static>>| {
        let mut out = vec![Span::styled(SEPARATOR, DIM)];
        out.extend(spans);
        out
    };
    if let Some(ToolData::Bash(BashData {
        job_id: Some(id), ..
    })) = data
    {
        return separated(vec![Span::raw(format!("started {}", clean_line(id)))]);
    }
    if tool == "Bash" {
        let exit = match data {
            Some(ToolData::Bash(bash)) => bash_exit(bash),
            _ => bash_exit(&BashData::default()),
        };
        return separated(vec![exit, Span::raw(format!(", {}", seconds(elapsed)))]);
    }
    let Some(data) = data else {
        return Vec::new();
    };
    let spans = match data {
        ToolData::Read(read) => return vec![read_range(read)],
        ToolData::Edit(edit) => {
            let mut spans = vec![Span::raw(match edit.edits_applied {
                Some(edits) => count(edits, "edit", "edits"),
                None => count(edit.replacements, "replacement", "replacements"),
            })];
            spans.extend(added_removed(edit));
            spans
        }
        ToolData::Write(write) => vec![Span::raw(format!(
            "{}, {}",
            write.action.as_str(),
            count(write.lines, "line", "lines")
        ))],
        ToolData::Grep(grep) => {
            let files = grep.total_files;
            let text = match grep.total_matches {
                _ if files == 0 => "no matches".to_string(),
                Some(matches) => format!(
                    "{} in {}",
                    count(matches, "match", "matches"),
                    count(files, "file", "files")
                ),
                None => count(files, "file", "files"),
            };
            vec![Span::raw(text)]
        }
        ToolData::Glob(glob) => match glob.total {
            0 => vec![Span::raw("no files")],
            total => vec![Span::raw(count(total, "file", "files"))],
        },
        ToolData::Ls(ls) => match (ls.dirs, ls.files) {
            (0, 0) => vec![Span::raw("empty")],
            (dirs, files) => vec![Span::raw(format!(
                "{}, {}",
                count(dirs, "dir", "dirs"),
                count(files, "file", "files")
            ))],
        },
        ToolData::Todo(todo) => vec![Span::raw(format!("{}/{} done", todo.completed, todo.total))],
        ToolData::Job(job) => {
            let status = match (job.status, job.exit_code) {
                (JobStatus::Exited, Some(code)) => format!("{} exited {code}", job.id),
                (status, _) => format!("{} {status}", job.id),
            };
            vec![Span::raw(clean_line(&status))]
        }
        ToolData::Bash(_) => return Vec::new(),
    };
    separated(spans)
}

/// The user's answer to the model's question (AskUser's `data.answer`: one answer, or the
/// choices picked), with its separator; empty when the data does not say.
fn answer(data: &Value) -> Vec<Span<'static>> {
    let text = match data.get("answer") {
        Some(Value::String(answer)) => answer.clone(),
        Some(Value::Array(chosen)) => chosen
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("; "),
        _ => return Vec::new(),
    };
    vec![
        Span::styled(SEPARATOR, DIM),
        Span::raw(clip(&clean_line(&text), SUBJECT_BUDGET)),
    ]
}

/// ` (1–200 of 812 lines)`, ` (812 lines)` when the whole file was shown, ` (empty)`.
fn read_range(read: &ReadData) -> Span<'static> {
    let (total, first, shown) = (read.total_lines, read.offset, read.lines_shown);
    let text = if total == 0 {
        "empty".to_string()
    } else if first == 1 && shown == total {
        count(total, "line", "lines")
    } else {
        let last = (first + shown).saturating_sub(1);
        format!("{first}\u{2013}{last} of {}", count(total, "line", "lines"))
    };
    Span::styled(format!(" ({text})"), DIM)
}

/// `exit 0`; a non-zero code in yellow; `killed by SIGKILL` for a signal.
fn bash_exit(bash: &BashData) -> Span<'static> {
    if let Some(signal) = &bash.signal {
        return Span::styled(format!("killed by {}", clean_line(signal)), WARNING);
    }
    match bash.exit_code {
        Some(0) => Span::raw("exit 0"),
        Some(code) => Span::styled(format!("exit {code}"), WARNING),
        None => Span::raw("exit unknown"),
    }
}

/// `3.2 s` under a minute, `2 min 05 s` from there.
fn seconds(elapsed: Duration) -> String {
    let tenths = elapsed.as_millis() / 100;
    if tenths < 600 {
        format!("{}.{} s", tenths / 10, tenths % 10)
    } else {
        let secs = elapsed.as_secs();
        format!("{} min {:02} s", secs / 60, secs % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn seconds_has_one_decimal_under_a_minute_then_minutes() {
        assert_eq!(seconds(Duration::from_millis(3_249)), "3.2 s");
        assert_eq!(seconds(Duration::from_millis(59_999)), "59.9 s");
        assert_eq!(seconds(Duration::from_secs(125)), "2 min 05 s");
    }

    #[test]
    fn a_question_shows_with_its_answer() {
        let args = serde_json::json!({"question": "On or off?", "choices": ["on", "off"]});
        let done = |data: Value| ToolLineState::Done {
            result: ToolOutcome {
                status: ToolStatus::Success,
                data,
                error: None,
            },
            elapsed: Duration::from_secs(3),
        };
        let line = |data| {
            crate::render::to_plain(&[tool_call_line("AskUser", &args, done(data), &Theme::PLAIN)])
        };
        assert_eq!(
            line(serde_json::json!({"answer": "off"})),
            "AskUser On or off? — off\n"
        );
        assert_eq!(
            line(serde_json::json!({"answer": ["on", "off"]})),
            "AskUser On or off? — on; off\n"
        );
    }

    #[test]
    fn a_multi_line_command_is_shown_on_one_line() {
        let args = serde_json::json!({"command": "cd x &&\n  cargo test"});
        assert_eq!(subject("Bash", &args, None), "cd x && cargo test");
    }

    /// The text of the spans `outcome` gives for a result of `tool` with `data`.
    fn outcome_text(tool: &str, data: serde_json::Value) -> String {
        let data = ToolData::of(tool, &data);
        outcome(tool, data.as_ref(), Duration::from_millis(1_500))
            .iter()
            .map(|span| span.content.as_ref())
            .collect()
    }

    #[test]
    fn a_background_start_shows_its_job_and_a_look_at_it_its_status() {
        let started = serde_json::json!({"command": "npm run dev", "job_id": "b2"});
        assert!(
            outcome_text("Bash", started).ends_with("started b2"),
            "the job, not an exit code"
        );
        let exited = serde_json::json!({"id": "b2", "status": "exited", "exit_code": 0});
        assert!(outcome_text("BashOutput", exited).ends_with("b2 exited 0"));
        let killed = serde_json::json!({"id": "b2", "status": "killed", "exit_code": 143});
        assert!(outcome_text("KillBash", killed).ends_with("b2 killed"));
    }

    #[test]
    fn a_read_of_the_whole_file_gives_just_its_length() {
        let data = serde_json::json!({"offset": 1, "lines_shown": 40, "total_lines": 40});
        let Some(ToolData::Read(read)) = ToolData::of("Read", &data) else {
            panic!("not a Read");
        };
        assert_eq!(read_range(&read).content, " (40 lines)");
    }
}
