//! How stored sessions read in a terminal: the table of `wright sessions list` and the
//! transcript of `wright sessions show`. Pure functions of the records; times are shown in the
//! time zone given, so tests can pin it.

use std::fmt::Write as _;

use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;
use wright_core::cost::{cache_note, format_usd};
use wright_core::rewind::round_states;
use wright_core::stored::rounds;
use wright_protocol::text::{self, first_line, plural};
use wright_protocol::{HistoryResult, Message, Role, Usage};
use wright_store::{CompactionRecord, LoadedSession, Record, RoundStatus, SessionSummary};

/// How times are shown: local, to the second, sortable.
const TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S";
/// Longest tool-result line in a transcript, in characters.
const MAX_RESULT_LINE: usize = 160;
/// Longest string value quoted in a tool-result line, in characters.
const MAX_FACT_CHARS: usize = 60;
/// Data fields named first in a tool-result line: what the tool worked on and how it went.
const LEADING_FACTS: [&str; 8] = [
    "file_path",
    "path",
    "pattern",
    "command",
    "action",
    "exit_code",
    "signal",
    "timed_out",
];
/// Data fields never shown in a tool-result line: bodies of text (even one line of them is
/// not a fact) and noise to a reader.
const HIDDEN_FACTS: [&str; 8] = [
    "content",
    "head",
    "diff",
    "stdout_tail",
    "stderr_tail",
    "stdout_chars",
    "stderr_chars",
    "mtime",
];

/// The table `wright sessions list` prints, one session per row, times in `tz`.
pub fn session_table<Tz: TimeZone>(summaries: &[SessionSummary], tz: &Tz) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let header = ["ID", "NAME", "ROUNDS", "TOKENS", "LAST ACTIVITY", "PROJECT"];
    let rows: Vec<[String; 6]> = summaries
        .iter()
        .map(|s| {
            [
                s.meta.id.clone(),
                s.meta.name.clone().unwrap_or_else(|| "-".to_string()),
                s.rounds.to_string(),
                thousands(s.tokens),
                local_time(s.last_activity, tz),
                s.meta.project_root.clone(),
            ]
        })
        .collect();
    let mut widths = header.map(|title| title.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut push_row = |cells: [&str; 6]| {
        let mut line = String::new();
        for (column, (cell, width)) in cells.iter().zip(widths).enumerate() {
            let _ = match column {
                // Counts are right-aligned; the last column is not padded.
                2 | 3 => write!(line, "{cell:>width$}  "),
                5 => write!(line, "{cell}"),
                _ => write!(line, "{cell:<width$}  "),
            };
        }
        out.push_str(line.trim_end());
        out.push('\n');
    };
    push_row(header);
    for row in &rows {
        push_row(row.each_ref().map(String::as_str));
    }
    out
}

/// A session as people read it: a header, then each round with its time, the user's message,
/// the assistant's steps and one line per tool result; compactions where they happened; the
/// usage totals at the end. Times are shown in `tz`.
#[cfg(test)]
pub fn transcript<Tz: TimeZone>(session: &LoadedSession, tz: &Tz) -> String
where
    Tz::Offset: std::fmt::Display,
{
    transcript_with_files(session, tz, &|_, _| None, None)
}

/// [`transcript`] with, under each round that changed files, the paths it added, modified
/// and deleted: `files(first, end)` says what changed between the round's first checkpoint
/// and its end one (`+new ~changed -deleted`), `None` when that cannot be told. Rounds that
/// `wright undo` undid are marked. `cost_usd` is what the session's calls cost, shown with
/// the usage when known (see `wright_core::cost::session_cost`).
pub fn transcript_with_files<Tz: TimeZone>(
    session: &LoadedSession,
    tz: &Tz,
    files: &dyn Fn(&str, &str) -> Option<String>,
    cost_usd: Option<f64>,
) -> String
where
    Tz::Offset: std::fmt::Display,
{
    let meta = &session.meta;
    let summary = SessionSummary::of(session);
    let mut out = String::new();
    let name = meta
        .name
        .as_deref()
        .map(|name| format!(" \"{name}\""))
        .unwrap_or_default();
    let _ = writeln!(out, "Session {}{name}", meta.id);
    let _ = writeln!(out, "Project: {}", meta.project_root);
    let _ = writeln!(
        out,
        "Created {}; {}, last activity {}",
        local_time(meta.created_at, tz),
        plural(summary.rounds, "round"),
        local_time(summary.last_activity, tz)
    );
    let mut number = 0;
    // A round with a request and no end yet: its end, or the next request, says how it went.
    let mut open = false;
    let mut usage = Usage::default();
    let mut calls = 0;
    for (round, state) in rounds(&session.records).zip(round_states(&session.records)) {
        for record in &round.usage {
            if let Record::Usage { usage: call, .. } = record {
                usage.add(call);
                calls += 1;
            }
        }
        for compaction in &round.compactions {
            compaction_lines(&mut out, compaction, tz);
        }
        if let Some(request) = round.request {
            if open {
                out.push_str(UNENDED_ROUND);
            }
            number += 1;
            open = true;
            let _ = writeln!(
                out,
                "\n── Round {number} · {} ──",
                local_time(request.at, tz)
            );
            for line in request.message.content.lines() {
                let _ = writeln!(out, "> {line}");
            }
            if state.undone {
                out.push_str("(undone)\n");
            }
            out.push('\n');
        }
        for step in &round.steps {
            if let Some(reply) = step.reply {
                reply_lines(&mut out, reply.message);
            }
            if let Some(result) = step.result {
                let tool = result.message.metadata.tool_name.as_deref();
                let _ = writeln!(out, "  ↳ {}", tool_line(tool, &result.message.content));
            }
        }
        if let (Some(first), Some(end)) = (state.first_checkpoint(), state.end_checkpoint())
            && let Some(changed) = files(&first.id, &end.id)
        {
            let _ = writeln!(out, "  files: {changed}");
        }
        if let Some(end) = round.end {
            if open {
                let how = match end.status {
                    RoundStatus::Finished => "finished",
                    RoundStatus::Failed => "failed",
                    RoundStatus::Interrupted => "interrupted",
                };
                let _ = writeln!(out, "({how} at {})", local_time(end.at, tz));
            }
            open = false;
        }
    }
    if open {
        out.push_str(UNENDED_ROUND);
    }
    out.push('\n');
    out.push_str(&usage_line(&usage, calls, cost_usd));
    out
}

/// A model reply (or a summary message, in older files) as the transcript shows it.
fn reply_lines(out: &mut String, message: &Message) {
    if message.role == Role::Summary {
        let _ = writeln!(out, "[summary of earlier rounds]");
    }
    // A native reply's tool calls show as the action lines text mode writes.
    let _ = writeln!(
        out,
        "{}",
        wright_core::context::assistant_text(message).trim_end()
    );
}

/// Where a compaction happened, and its summary or why there is none.
fn compaction_lines<Tz: TimeZone>(out: &mut String, compaction: &CompactionRecord, tz: &Tz)
where
    Tz::Offset: std::fmt::Display,
{
    let _ = writeln!(
        out,
        "\n── Compaction · {}: {} archived ──",
        local_time(compaction.at, tz),
        plural(compaction.archived_rounds, "earlier round")
    );
    match (&compaction.summary, compaction.timed_out, &compaction.error) {
        (Some(text), _, _) => {
            for line in text.lines() {
                let _ = writeln!(out, "  | {line}");
            }
        }
        (None, true, _) => out.push_str("  (no summary: the summary call timed out)\n"),
        (None, false, Some(error)) => {
            let _ = writeln!(out, "  (no summary: {error})");
        }
        (None, false, None) => out.push_str("  (no summary)\n"),
    }
}

/// Marks a round with no end record: wright stopped (or is still running) mid-round.
const UNENDED_ROUND: &str = "(the round did not end: wright stopped before it finished)\n";

/// `Usage: 3 model calls, 1,234 tokens (1,000 in, 200 cached, 100 written to cache; 234 out),
/// cost $0.0042`: the cache counts when the provider reported them, the cost when known.
fn usage_line(usage: &Usage, calls: usize, cost_usd: Option<f64>) -> String {
    if calls == 0 {
        return "Usage: none reported\n".to_string();
    }
    let cached = cache_note(usage, thousands)
        .map(|note| format!(", {note}"))
        .unwrap_or_default();
    let cost = cost_usd
        .map(|cost| format!(", cost {}", format_usd(cost)))
        .unwrap_or_default();
    format!(
        "Usage: {}, {} tokens ({} in{cached}; {} out){cost}\n",
        plural(calls, "model call"),
        thousands(usage.total_tokens),
        thousands(usage.prompt_tokens),
        thousands(usage.completion_tokens),
    )
}

/// One line for a compressed tool result (spec C1: `{"status", "data", "error"?}`): the tool,
/// the status, and the error or the data's short facts.
pub fn tool_line(tool: Option<&str>, compressed: &str) -> String {
    let tool = tool.unwrap_or("observation");
    let Ok(result) = serde_json::from_str::<HistoryResult>(compressed) else {
        return clip(
            &format!("{tool}: {}", first_line(compressed)),
            MAX_RESULT_LINE,
        );
    };
    let status = result.status.as_str();
    let facts = match &result.error {
        Some(error) => format!("{}: {}", error.code, first_line(&error.message)),
        None => data_facts(&result.data),
    };
    let line = if facts.is_empty() {
        format!("{tool} · {status}")
    } else {
        format!("{tool} · {status} · {facts}")
    };
    clip(&line, MAX_RESULT_LINE)
}

/// `key=value` for the data's scalar fields, the leading ones first; bodies of text (file
/// content, diffs, output tails), zero counts, `false` and `null` are left out, long strings
/// are cut.
fn data_facts(data: &Value) -> String {
    let Value::Object(map) = data else {
        return match data {
            Value::Null => String::new(),
            other => fact_value(other).unwrap_or_default(),
        };
    };
    let leading = LEADING_FACTS
        .iter()
        .filter_map(|key| map.get_key_value(*key));
    let rest = map
        .iter()
        .filter(|(key, _)| !LEADING_FACTS.contains(&key.as_str()));
    leading
        .chain(rest)
        .filter(|(key, _)| !HIDDEN_FACTS.contains(&key.as_str()))
        // A zero count says nothing (`stderr_lines=0`), but `exit_code=0` does.
        .filter(|(key, value)| LEADING_FACTS.contains(&key.as_str()) || value.as_u64() != Some(0))
        .filter_map(|(key, value)| Some(format!("{key}={}", fact_value(value)?)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn fact_value(value: &Value) -> Option<String> {
    match value {
        Value::Bool(true) => Some("true".to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.contains(char::is_control) => Some(clip(s, MAX_FACT_CHARS)),
        _ => None,
    }
}

/// `text` cut to `max` characters, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    text::clip(text, max).into_owned()
}

pub fn local_time<Tz: TimeZone>(at: DateTime<Utc>, tz: &Tz) -> String
where
    Tz::Offset: std::fmt::Display,
{
    at.with_timezone(tz).format(TIME_FORMAT).to_string()
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;
    use wright_protocol::{Message, MessageMetadata};
    use wright_store::{CompactionRecord, SessionMeta};

    fn at(time: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(&format!("2026-11-22T{time}Z"))
            .unwrap()
            .with_timezone(&Utc)
    }

    fn message(time: &str, message: Message) -> Record {
        Record::Message {
            at: at(time),
            message,
        }
    }

    fn tool(name: &str, content: &str) -> Message {
        Message {
            role: Role::Tool,
            content: content.to_string(),
            metadata: MessageMetadata {
                tool_name: Some(name.to_string()),
                step: Some(1),
                ..MessageMetadata::default()
            },
        }
    }

    fn usage(time: &str, prompt: u64, completion: u64) -> Record {
        serde_json::from_value(serde_json::json!({
            "type": "usage", "at": at(time),
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion, "cached_prompt_tokens": 10}
        }))
        .unwrap()
    }

    fn end(time: &str, status: RoundStatus) -> Record {
        Record::RoundEnd {
            at: at(time),
            status,
        }
    }

    fn session(records: Vec<Record>) -> LoadedSession {
        LoadedSession {
            meta: SessionMeta {
                id: "0199aaaa-bbbb".into(),
                name: Some("notes".into()),
                project_root: "/work/app".into(),
                created_at: at("08:00:00"),
                environment: None,
                agents: None,
                memory: None,
                parent: None,
                agent: None,
                task: None,
            },
            path: PathBuf::from("/state/sessions/-work-app/0199aaaa-bbbb.jsonl"),
            records,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_transcript_shows_rounds_steps_tool_lines_compactions_and_usage() {
        let read = r#"{"status":"success","data":{"content":"     1\thello","file_path":"notes.txt","lines_shown":1,"mtime":1.5,"total_lines":1,"truncated":false}}"#;
        let failed = r#"{"status":"error","error":{"code":"timeout","message":"the command ran past 2s\nkilled"}}"#;
        let records = vec![
            message("08:00:01", Message::user("what is in the notes?")),
            usage("08:00:02", 1000, 20),
            message(
                "08:00:02",
                Message::assistant(
                    "Thought: read them\nAction: Read[{\"file_path\": \"notes.txt\"}]",
                ),
            ),
            message("08:00:02", tool("Read", read)),
            usage("08:00:03", 1100, 15),
            message(
                "08:00:03",
                Message::assistant("Thought: done\nAction: Finish[It says hello.]"),
            ),
            end("08:00:03", RoundStatus::Finished),
            Record::Compaction(CompactionRecord {
                at: at("08:10:00"),
                archived_end: 4,
                archived_rounds: 1,
                summary: Some("## Goal\nread the notes".into()),
                timed_out: false,
                error: None,
                start_time: at("08:00:01"),
                cutoff_time: at("08:00:03"),
            }),
            message("08:10:01", Message::user("run it\ntwice")),
            message(
                "08:10:02",
                Message::assistant("Action: Bash[{\"command\": \"sleep 9\"}]"),
            ),
            message("08:10:04", tool("Bash", failed)),
            end("08:10:05", RoundStatus::Interrupted),
            message("08:11:00", Message::user("again")),
        ];
        let expected = "\
Session 0199aaaa-bbbb \"notes\"
Project: /work/app
Created 2026-11-22 08:00:00; 3 rounds, last activity 2026-11-22 08:11:00

── Round 1 · 2026-11-22 08:00:01 ──
> what is in the notes?

Thought: read them
Action: Read[{\"file_path\": \"notes.txt\"}]
  ↳ Read · success · file_path=notes.txt, lines_shown=1, total_lines=1
Thought: done
Action: Finish[It says hello.]
(finished at 2026-11-22 08:00:03)

── Compaction · 2026-11-22 08:10:00: 1 earlier round archived ──
  | ## Goal
  | read the notes

── Round 2 · 2026-11-22 08:10:01 ──
> run it
> twice

Action: Bash[{\"command\": \"sleep 9\"}]
  ↳ Bash · error · timeout: the command ran past 2s
(interrupted at 2026-11-22 08:10:05)

── Round 3 · 2026-11-22 08:11:00 ──
> again

(the round did not end: wright stopped before it finished)

Usage: 2 model calls, 2,135 tokens (2,100 in, 20 cached; 35 out)
";
        assert_eq!(transcript(&session(records), &Utc), expected);
    }

    #[test]
    fn a_session_without_usage_says_none_was_reported() {
        let text = transcript(&session(vec![]), &Utc);
        assert!(
            text.ends_with("0 rounds, last activity 2026-11-22 08:00:00\n\nUsage: none reported\n"),
            "{text}"
        );
    }

    #[test]
    fn the_usage_line_adds_cache_writes_and_the_cost_when_known() {
        let usage = Usage {
            prompt_tokens: 1_300,
            completion_tokens: 50,
            total_tokens: 1_350,
            cached_prompt_tokens: Some(1_000),
            cache_creation_tokens: Some(200),
        };
        assert_eq!(
            usage_line(&usage, 2, Some(0.0021)),
            "Usage: 2 model calls, 1,350 tokens (1,300 in, 1,000 cached, 200 written to cache; \
             50 out), cost $0.0021\n"
        );
        let plain = Usage {
            cached_prompt_tokens: None,
            cache_creation_tokens: None,
            ..usage
        };
        assert_eq!(
            usage_line(&plain, 1, None),
            "Usage: 1 model call, 1,350 tokens (1,300 in; 50 out)\n"
        );
    }

    #[test]
    fn tool_lines_lead_with_what_the_tool_worked_on_and_skip_long_text() {
        let bash = r#"{"status":"success","data":{"command":"cargo test","exit_code":0,"stderr_chars":0,"stderr_lines":0,"stdout_chars":300,"stdout_lines":40,"stdout_tail":"ok\nok","timed_out":false}}"#;
        assert_eq!(
            tool_line(Some("Bash"), bash),
            "Bash · success · command=cargo test, exit_code=0, stdout_lines=40"
        );
        let format_error = r#"{"status":"error","error":{"code":"invalid_arguments","message":"your action could not be read: bad json"}}"#;
        assert_eq!(
            tool_line(None, format_error),
            "observation · error · invalid_arguments: your action could not be read: bad json"
        );
        assert_eq!(tool_line(Some("X"), "not json\nat all"), "X: not json");
    }

    #[test]
    fn the_table_aligns_columns_and_right_aligns_counts() {
        let summaries = vec![
            SessionSummary {
                meta: session(vec![]).meta,
                path: PathBuf::from("/a.jsonl"),
                rounds: 12,
                last_activity: at("09:30:00"),
                tokens: 1_234_567,
            },
            SessionSummary {
                meta: SessionMeta {
                    id: "0199cccc-dddd".into(),
                    name: None,
                    project_root: "/work/other".into(),
                    created_at: at("07:00:00"),
                    environment: None,
                    agents: None,
                    memory: None,
                    parent: None,
                    agent: None,
                    task: None,
                },
                path: PathBuf::from("/b.jsonl"),
                rounds: 1,
                last_activity: at("07:00:05"),
                tokens: 0,
            },
        ];
        assert_eq!(
            session_table(&summaries, &Utc),
            "\
ID             NAME   ROUNDS     TOKENS  LAST ACTIVITY        PROJECT
0199aaaa-bbbb  notes      12  1,234,567  2026-11-22 09:30:00  /work/app
0199cccc-dddd  -           1          0  2026-11-22 07:00:05  /work/other
"
        );
    }
}
