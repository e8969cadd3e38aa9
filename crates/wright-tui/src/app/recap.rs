//! What a resumed session said before (issue 5): its last rounds, each as the request, one
//! line per tool call and the answer, so the user sees where the conversation stands.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use wright_core::stored::{self, StoredRound};
use wright_protocol::{HistoryResult, ToolStatus};
use wright_store::{Record, RoundStatus};

use wright_protocol::text::plural;

use super::transcript::clean;
use crate::render::Theme;
use crate::render::palette::{DIM, ERROR};

/// Rounds shown when a session is resumed.
pub const RECAP_ROUNDS: usize = 3;
/// Lines of an answer shown; the rest is summed up.
const ANSWER_LINES: usize = 4;

/// One line of a recap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecapLine {
    /// The user's request.
    Prompt(String),
    /// A tool call, with its error code when it failed.
    Tool {
        /// The tool's name.
        name: String,
        /// Its error code, if it failed.
        failed: Option<String>,
    },
    /// The model's answer.
    Answer(String),
    /// The round ended without an answer.
    Ended(RoundStatus),
}

/// The last rounds of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recap {
    /// Rounds before the ones shown.
    pub earlier_rounds: usize,
    /// The lines of the rounds shown.
    pub lines: Vec<RecapLine>,
}

/// The recap of the last `keep` rounds of `records`.
pub fn recap(records: &[Record], keep: usize) -> Recap {
    let mut rounds: Vec<Vec<RecapLine>> = Vec::new();
    for round in stored::rounds(records) {
        let lines = round_lines(&round);
        match round.request {
            Some(request) => rounds.push(
                std::iter::once(RecapLine::Prompt(request.message.content.clone()))
                    .chain(lines)
                    .collect(),
            ),
            // A round that stopped before its request was stored (or messages before the
            // first request) came after the round before it: told with that one.
            None => {
                if let Some(last) = rounds.last_mut() {
                    last.extend(lines);
                }
            }
        }
    }
    let earlier_rounds = rounds.len().saturating_sub(keep);
    Recap {
        earlier_rounds,
        lines: rounds.into_iter().skip(earlier_rounds).flatten().collect(),
    }
}

/// A round's lines after its request: one per tool result, the answer, and how it ended
/// unless it finished.
fn round_lines(round: &StoredRound<'_>) -> Vec<RecapLine> {
    let tools = round
        .steps
        .iter()
        .filter_map(|step| step.result)
        .map(|result| {
            let message = result.message;
            RecapLine::Tool {
                name: message
                    .metadata
                    .tool_name
                    .clone()
                    .unwrap_or_else(|| "tool".to_string()),
                failed: error_code(&message.content),
            }
        });
    let ended = round
        .end
        .map(|end| end.status)
        .filter(|status| *status != RoundStatus::Finished);
    tools
        .chain(round.answer().map(RecapLine::Answer))
        .chain(ended.map(RecapLine::Ended))
        .collect()
}

/// The error code of a tool message's stored result (`{"status": "error", "error": {"code"}}`).
fn error_code(content: &str) -> Option<String> {
    let json = content.strip_prefix("[tool]").unwrap_or(content).trim();
    let stored: HistoryResult = serde_json::from_str(json).ok()?;
    if stored.status != ToolStatus::Error {
        return None;
    }
    Some(
        stored
            .error
            .map_or("error", |error| error.code.as_str())
            .to_string(),
    )
}

/// The recap drawn: dim, with the requests in bold and failures in red.
pub fn render(recap: &Recap, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if recap.lines.is_empty() {
        return lines;
    }
    if recap.earlier_rounds > 0 {
        lines.push(Line::from(Span::styled(
            format!(
                "… {} before these",
                plural(recap.earlier_rounds as u64, "earlier round")
            ),
            DIM,
        )));
    }
    for line in &recap.lines {
        match line {
            RecapLine::Prompt(prompt) => {
                lines.push(Line::default());
                let first = prompt.lines().next().unwrap_or("");
                let more = prompt.lines().count() > 1;
                lines.push(Line::from(vec![
                    Span::styled("› ", DIM),
                    Span::styled(
                        format!("{}{}", clean(first), if more { " …" } else { "" }),
                        Style::new().add_modifier(Modifier::BOLD),
                    ),
                ]));
            }
            RecapLine::Tool { name, failed: None } => {
                lines.push(Line::from(Span::styled(format!("  ✓ {name}"), DIM)));
            }
            RecapLine::Tool {
                name,
                failed: Some(code),
            } => {
                lines.push(Line::from(Span::styled(
                    format!("  ✗ {name} ({code})"),
                    ERROR,
                )));
            }
            RecapLine::Answer(answer) => {
                let all: Vec<&str> = answer.trim().lines().collect();
                for text in all.iter().take(ANSWER_LINES) {
                    lines.push(Line::from(Span::styled(format!("  {}", clean(text)), DIM)));
                }
                if all.len() > ANSWER_LINES {
                    lines.push(Line::from(Span::styled(
                        format!(
                            "  … {} more",
                            plural((all.len() - ANSWER_LINES) as u64, "line")
                        ),
                        DIM,
                    )));
                }
            }
            RecapLine::Ended(status) => {
                let how = match status {
                    RoundStatus::Interrupted => "interrupted",
                    RoundStatus::Failed => "failed",
                    RoundStatus::Finished => "finished",
                };
                lines.push(Line::from(Span::styled(format!("  ({how})"), DIM)));
            }
        }
    }
    lines.push(Line::default());
    theme.finish(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use wright_protocol::Role;

    const AT: &str = "2026-11-22T08:00:00Z";

    fn message(role: Role, content: &str, tool: Option<&str>) -> Record {
        let mut message = json!({"role": role, "content": content});
        if let Some(tool) = tool {
            message["metadata"] = json!({"tool_name": tool});
        }
        serde_json::from_value(json!({"type": "message", "at": AT, "message": message})).unwrap()
    }

    fn end(status: RoundStatus) -> Record {
        serde_json::from_value(json!({"type": "round_end", "at": AT, "status": status})).unwrap()
    }

    fn round(n: usize) -> Vec<Record> {
        vec![
            message(Role::User, &format!("question {n}\nmore detail"), None),
            message(
                Role::Assistant,
                "Thought: look\nAction: Read[{\"file_path\": \"a\"}]",
                None,
            ),
            message(
                Role::Tool,
                r#"{"status":"success","data":{"file_path":"a"}}"#,
                Some("Read"),
            ),
            message(
                Role::Assistant,
                &format!("Thought: done\nAction: Finish[answer {n}]"),
                None,
            ),
            end(RoundStatus::Finished),
        ]
    }

    #[test]
    fn the_last_rounds_are_kept_with_their_tools_and_answers() {
        let mut records: Vec<Record> = (1..=5).flat_map(round).collect();
        records.push(message(Role::User, "last one", None));
        records.push(message(
            Role::Tool,
            r#"{"status":"error","data":{},"error":{"code":"refused","message":"no"}}"#,
            Some("Bash"),
        ));
        records.push(end(RoundStatus::Interrupted));
        let recap = recap(&records, 3);
        assert_eq!(recap.earlier_rounds, 3);
        assert_eq!(
            recap.lines,
            vec![
                RecapLine::Prompt("question 4\nmore detail".into()),
                RecapLine::Tool {
                    name: "Read".into(),
                    failed: None
                },
                RecapLine::Answer("answer 4".into()),
                RecapLine::Prompt("question 5\nmore detail".into()),
                RecapLine::Tool {
                    name: "Read".into(),
                    failed: None
                },
                RecapLine::Answer("answer 5".into()),
                RecapLine::Prompt("last one".into()),
                RecapLine::Tool {
                    name: "Bash".into(),
                    failed: Some("refused".into())
                },
                RecapLine::Ended(RoundStatus::Interrupted),
            ]
        );
    }

    #[test]
    fn the_recap_is_drawn_compactly() {
        let records: Vec<Record> = (1..=4).flat_map(round).collect();
        let text: Vec<String> = render(&recap(&records, 2), &Theme::PLAIN)
            .iter()
            .map(|line| line.to_string())
            .collect();
        assert_eq!(
            text,
            vec![
                "… 2 earlier rounds before these",
                "",
                "› question 3 …",
                "  ✓ Read",
                "  answer 3",
                "",
                "› question 4 …",
                "  ✓ Read",
                "  answer 4",
                "",
            ]
        );
    }

    fn summary_and_compaction() -> Vec<Record> {
        let usage = json!({"type": "usage", "at": AT, "kind": "summary",
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}});
        let compaction = json!({"type": "compaction", "at": AT, "archived_end": 2,
            "archived_rounds": 1, "start_time": AT, "cutoff_time": AT});
        vec![
            serde_json::from_value(usage).unwrap(),
            serde_json::from_value(compaction).unwrap(),
        ]
    }

    #[test]
    fn what_happens_between_rounds_is_told_with_the_round_before() {
        let interrupted =
            r#"{"status":"error","data":null,"error":{"code":"interrupted","message":"stopped"}}"#;
        let mut records = vec![
            message(Role::Assistant, "stray before any request", None),
            message(Role::Tool, r#"{"status":"success"}"#, Some("Bash")),
            message(Role::User, "first", None),
            message(Role::Assistant, "Action: Bash[{\"command\": \"ls\"}]", None),
            message(Role::Tool, r#"{"status":"success"}"#, Some("Bash")),
        ];
        // The first round was left open; a compaction ran before the second.
        records.extend(summary_and_compaction());
        records.extend([
            message(Role::User, "second", None),
            message(Role::Summary, "an old summary", None),
            message(Role::Assistant, "Action: Finish[two]", None),
            end(RoundStatus::Finished),
            // A compaction interrupted before the next request was stored.
            end(RoundStatus::Interrupted),
            message(Role::User, "third", None),
            message(
                Role::Assistant,
                "Action: Read[{\"file_path\": \"x\"}]",
                None,
            ),
        ]);
        // Compacted before the cut-off step was repaired.
        records.extend(summary_and_compaction());
        records.extend([
            message(Role::Tool, interrupted, Some("Read")),
            end(RoundStatus::Interrupted),
            message(Role::User, "fourth", None),
            message(Role::Assistant, "Action: Finish[four]", None),
            end(RoundStatus::Failed),
            message(Role::Assistant, "late Action: Finish[x]", None),
        ]);
        records.extend(summary_and_compaction());
        records.push(message(Role::User, "fifth", None));
        let tool = |name: &str, failed: Option<&str>| RecapLine::Tool {
            name: name.into(),
            failed: failed.map(str::to_string),
        };
        assert_eq!(
            recap(&records, 10).lines,
            vec![
                RecapLine::Prompt("first".into()),
                tool("Bash", None),
                RecapLine::Prompt("second".into()),
                RecapLine::Answer("two".into()),
                RecapLine::Ended(RoundStatus::Interrupted),
                RecapLine::Prompt("third".into()),
                tool("Read", Some("interrupted")),
                RecapLine::Ended(RoundStatus::Interrupted),
                RecapLine::Prompt("fourth".into()),
                RecapLine::Answer("four".into()),
                RecapLine::Ended(RoundStatus::Failed),
                RecapLine::Answer("late Action: Finish[x]".into()),
                RecapLine::Prompt("fifth".into()),
            ]
        );
    }

    #[test]
    fn a_new_session_has_no_recap() {
        assert_eq!(recap(&[], 3), Recap::default());
        assert!(render(&Recap::default(), &Theme::PLAIN).is_empty());
    }
}
