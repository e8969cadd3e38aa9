//! How `wright exec` shows a round: readable progress on stderr with the answer alone on stdout,
//! or one JSON event per line on stdout (`--json`).

use std::io::{self, IsTerminal, Write};

use wright_core::cost::{CostReport, cache_note, format_usd};
use wright_core::summarize::{SUMMARY_TIMEOUT_MESSAGE, summary_failed_message};
use wright_protocol::{ActionKind, ApprovalVerdict, Event, ToolStatus, Usage};

/// Longest tool-argument preview on a tool-call line, in characters.
const MAX_ARGS_PREVIEW: usize = 100;
/// Lines of a command or diff shown under an approval request.
const MAX_APPROVAL_PREVIEW_LINES: usize = 40;

const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// Receives every event of a round.
pub trait Renderer: Send {
    /// Shows one event.
    fn event(&mut self, event: &Event);

    /// Shows what the round cost, given the session's cost before and after it. Only people
    /// are shown this; JSON readers add up the `usage` events themselves.
    fn cost(&mut self, before: &CostReport, after: &CostReport) {
        let _ = (before, after);
    }
}

/// JSON lines on stdout. A closed pipe (`wright exec --json | head`) stops output quietly.
#[derive(Debug, Default)]
pub struct JsonRenderer {
    closed: bool,
}

impl Renderer for JsonRenderer {
    fn event(&mut self, event: &Event) {
        if self.closed {
            return;
        }
        let mut out = io::stdout().lock();
        let written = serde_json::to_writer(&mut out, event)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if written.is_err() {
            self.closed = true;
        }
    }
}

/// Progress for people on stderr; the answer alone on stdout.
#[derive(Debug)]
pub struct HumanRenderer {
    color: bool,
    /// Whether stderr's cursor is at the start of a line.
    at_line_start: bool,
    /// Whether stderr is a terminal: text written there has its control characters escaped.
    terminal: bool,
}

impl HumanRenderer {
    /// A renderer that colours its output when stderr is a terminal.
    pub fn new() -> Self {
        let terminal = io::stderr().is_terminal();
        Self {
            color: terminal && std::env::var_os("NO_COLOR").is_none(),
            at_line_start: true,
            terminal,
        }
    }

    /// `text` (from the model, a tool or a file) coloured with `style`, its own control
    /// characters escaped on a terminal.
    fn paint(&self, style: &str, text: &str) -> String {
        let text = crate::terminal::for_stream(text, self.terminal);
        if self.color {
            format!("{style}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    /// Writes streamed text to stderr, remembering where the line ends.
    fn stream(&mut self, style: &str, text: &str) {
        if text.is_empty() {
            return;
        }
        let painted = self.paint(style, text);
        let mut err = io::stderr().lock();
        let _ = err.write_all(painted.as_bytes());
        let _ = err.flush();
        self.at_line_start = text.ends_with('\n');
    }

    /// Writes a whole line to stderr, starting a new line first if needed.
    fn line(&mut self, text: &str) {
        let mut err = io::stderr().lock();
        if !self.at_line_start {
            let _ = err.write_all(b"\n");
        }
        let _ = writeln!(err, "{text}");
        self.at_line_start = true;
    }
}

impl Default for HumanRenderer {
    fn default() -> Self {
        Self::new()
    }
}

impl Renderer for HumanRenderer {
    fn cost(&mut self, before: &CostReport, after: &CostReport) {
        if let Some(text) = cost_line(before, after) {
            let line = self.paint(DIM, &text);
            self.line(&line);
        }
    }

    fn event(&mut self, event: &Event) {
        match event {
            Event::SessionStarted { .. } | Event::RoundStarted { .. } | Event::Usage { .. } => {}
            Event::AssistantDelta { text } => self.stream(DIM, text),
            Event::ReasoningDelta { text } => self.stream(DIM, text),
            Event::ToolCall { tool, args, .. } => {
                let preview = clip(&args.to_string(), MAX_ARGS_PREVIEW);
                let line = self.paint(YELLOW, &format!("→ {tool} {preview}"));
                self.line(&line);
            }
            Event::ToolResult {
                status, summary, ..
            } => {
                let line = match status {
                    ToolStatus::Success => self.paint(GREEN, &format!("  ✓ {summary}")),
                    ToolStatus::Error => self.paint(RED, &format!("  ✗ {summary}")),
                };
                self.line(&line);
            }
            Event::ApprovalRequested {
                tool,
                kind,
                preview,
                concern,
                ..
            } => {
                let what = match kind {
                    ActionKind::Command => "command",
                    ActionKind::FileChange => "file change",
                    ActionKind::External => "a tool from an MCP server",
                };
                let line = self.paint(YELLOW, &format!("? {tool} needs approval ({what}):"));
                self.line(&line);
                let preview = indented_preview(preview, MAX_APPROVAL_PREVIEW_LINES);
                let preview = crate::terminal::for_stream(&preview, self.terminal).into_owned();
                self.line(&preview);
                if let Some(concern) = concern {
                    let line =
                        self.paint(RED, &format!("  ⚠ the safety check flags this ({concern})"));
                    self.line(&line);
                }
            }
            Event::ApprovalDecided {
                decision, reason, ..
            } => {
                let line = match decision {
                    ApprovalVerdict::Once => self.paint(GREEN, "  ✓ approved once"),
                    ApprovalVerdict::Always => {
                        self.paint(GREEN, "  ✓ approved for the rest of the session")
                    }
                    ApprovalVerdict::Denied => {
                        let reason = reason.as_deref().map(|r| format!(": {r}"));
                        let text = format!("  ✗ denied{}", reason.unwrap_or_default());
                        self.paint(RED, &text)
                    }
                };
                self.line(&line);
            }
            Event::CheckStarted { command, .. } => {
                let line = self.paint(DIM, &format!("  ⧗ check: {command}"));
                self.line(&line);
            }
            Event::CheckFinished {
                command,
                passed,
                exit_code,
                timed_out,
                ..
            } => {
                let line = match (passed, timed_out, exit_code) {
                    (true, _, _) => self.paint(GREEN, &format!("  ✓ check passed: {command}")),
                    (false, true, _) => self.paint(RED, &format!("  ✗ check timed out: {command}")),
                    (false, false, Some(code)) => {
                        self.paint(RED, &format!("  ✗ check failed (exit {code}): {command}"))
                    }
                    (false, false, None) => {
                        self.paint(RED, &format!("  ✗ check failed: {command}"))
                    }
                };
                self.line(&line);
            }
            Event::FormatError { message, .. } => {
                let line = self.paint(RED, &format!("  ✗ format error: {message}"));
                self.line(&line);
            }
            Event::Retry {
                attempt,
                max_attempts,
                reason,
                delay_ms,
            } => {
                let seconds = *delay_ms as f64 / 1000.0;
                let text = format!(
                    "⟳ {reason}; retrying in {seconds:.1}s (attempt {attempt}/{max_attempts})"
                );
                let line = self.paint(YELLOW, &text);
                self.line(&line);
            }
            Event::Continuation { attempt } => {
                let text = format!(
                    "… the reply hit the output token limit; asking the model to continue ({attempt})"
                );
                let line = self.paint(DIM, &text);
                self.line(&line);
            }
            Event::CompactionStarted {
                estimated_tokens,
                threshold,
            } => {
                let text = format!(
                    "⧗ compacting history: about {estimated_tokens} tokens ≥ threshold {threshold}; summarising older rounds…"
                );
                let line = self.paint(YELLOW, &text);
                self.line(&line);
            }
            Event::CompactionFinished {
                archived_rounds,
                summary,
                timed_out,
                error,
                tokens_before,
                tokens_after,
            } => {
                let text = match (timed_out, summary, error) {
                    (true, _, _) => SUMMARY_TIMEOUT_MESSAGE.to_string(),
                    (false, Some(_), _) => {
                        format!(
                            "✓ archived {archived_rounds} rounds into a summary (history ~{tokens_before} → ~{tokens_after} tokens)"
                        )
                    }
                    (false, None, error) => summary_failed_message(
                        error.as_deref().unwrap_or("no summary returned"),
                        *archived_rounds,
                    ),
                };
                let line = self.paint(YELLOW, &text);
                self.line(&line);
            }
            Event::Warning { message } => {
                let line = self.paint(YELLOW, &format!("warning: {message}"));
                self.line(&line);
            }
            Event::RoundFinished { answer, usage, .. } => {
                let line = self.paint(DIM, &usage_line(usage));
                self.line(&line);
                let answer = crate::terminal::for_stdout(answer);
                let mut out = io::stdout().lock();
                let _ = writeln!(out, "{answer}");
                let _ = out.flush();
            }
            Event::Error { message, .. } => {
                let line = self.paint(RED, &format!("error: {message}"));
                self.line(&line);
            }
            Event::Subagent {
                agent,
                description,
                event,
                ..
            } => {
                let name = format!("{agent} ({})", clip(description, MAX_TASK_CHARS));
                self.subagent(&name, event)
            }
        }
    }
}

/// The longest task description shown beside a sub-agent's steps.
const MAX_TASK_CHARS: usize = 40;

impl HumanRenderer {
    /// A sub-agent's step under the Task call that runs it: each tool it calls and what came
    /// of it, what it asks approval for, its warnings and its failure, prefixed with its name.
    fn subagent(&mut self, agent: &str, event: &Event) {
        let (color, text) = match event {
            Event::ToolCall { tool, args, .. } => {
                let preview = clip(&args.to_string(), MAX_ARGS_PREVIEW);
                (DIM, format!("  ↳ {agent} → {tool} {preview}"))
            }
            Event::ToolResult {
                status, summary, ..
            } => match status {
                ToolStatus::Success => (DIM, format!("  ↳ {agent}   ✓ {summary}")),
                ToolStatus::Error => (RED, format!("  ↳ {agent}   ✗ {summary}")),
            },
            Event::ApprovalRequested { tool, .. } => {
                (YELLOW, format!("  ↳ {agent}: {tool} needs approval"))
            }
            Event::ApprovalDecided {
                decision: ApprovalVerdict::Denied,
                reason,
                ..
            } => (
                RED,
                format!(
                    "  ↳ {agent}: denied{}",
                    reason
                        .as_deref()
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default()
                ),
            ),
            Event::Warning { message } => (YELLOW, format!("  ↳ {agent}: warning: {message}")),
            Event::Error { message, .. } => (RED, format!("  ↳ {agent}: error: {message}")),
            Event::Subagent {
                agent: inner,
                description,
                event,
                ..
            } => {
                let name = format!("{agent} › {inner} ({})", clip(description, MAX_TASK_CHARS));
                return self.subagent(&name, event);
            }
            _ => return,
        };
        let line = self.paint(color, &text);
        self.line(&line);
    }
}

/// `cost: $0.0042 this round, $0.1234 this session`, when every call of the session has a
/// price (configured or built in) and the round made calls.
fn cost_line(before: &CostReport, after: &CostReport) -> Option<String> {
    let session = after.total.cost_usd?;
    let round = session - before.total.cost_usd?;
    (after.total.calls > before.total.calls).then(|| {
        format!(
            "cost: {} this round, {} this session",
            format_usd(round),
            format_usd(session)
        )
    })
}

/// `preview`'s first `max_lines` lines, indented under the question, and how many more there are.
fn indented_preview(preview: &str, max_lines: usize) -> String {
    let mut lines: Vec<String> = preview
        .lines()
        .take(max_lines)
        .map(|line| format!("    {line}"))
        .collect();
    let more = preview.lines().count().saturating_sub(max_lines);
    match more {
        0 => {}
        1 => lines.push("    … 1 more line".to_string()),
        more => lines.push(format!("    … {more} more lines")),
    }
    lines.join("\n")
}

/// `tokens: 1200 in (1000 cached, 100 written to cache), 85 out`.
fn usage_line(usage: &Usage) -> String {
    let cached = cache_note(usage, |n| n.to_string())
        .map(|note| format!(" ({note})"))
        .unwrap_or_default();
    format!(
        "tokens: {} in{cached}, {} out",
        usage.prompt_tokens, usage.completion_tokens
    )
}

fn clip(text: &str, max_chars: usize) -> String {
    wright_protocol::text::clip(text, max_chars).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_line_mentions_cache_reads_and_writes_only_when_known() {
        let mut usage = Usage {
            prompt_tokens: 1200,
            completion_tokens: 85,
            total_tokens: 1285,
            ..Usage::default()
        };
        assert_eq!(usage_line(&usage), "tokens: 1200 in, 85 out");
        usage.cached_prompt_tokens = Some(1000);
        assert_eq!(usage_line(&usage), "tokens: 1200 in (1000 cached), 85 out");
        usage.cache_creation_tokens = Some(100);
        assert_eq!(
            usage_line(&usage),
            "tokens: 1200 in (1000 cached, 100 written to cache), 85 out"
        );
    }

    #[test]
    fn the_cost_line_shows_the_round_and_the_session_when_priced() {
        use wright_core::cost::KindCost;
        let report = |calls: u64, cost_usd: Option<f64>| CostReport {
            total: KindCost {
                calls,
                cost_usd,
                ..KindCost::default()
            },
            ..CostReport::default()
        };
        assert_eq!(
            cost_line(&report(2, Some(0.25)), &report(3, Some(0.5))).as_deref(),
            Some("cost: $0.2500 this round, $0.5000 this session")
        );
        assert_eq!(cost_line(&report(2, None), &report(3, None)), None);
        assert_eq!(
            cost_line(&report(2, Some(0.25)), &report(2, Some(0.25))),
            None,
            "a round without calls shows nothing"
        );
    }

    #[test]
    fn long_approval_previews_are_cut_and_indented() {
        assert_eq!(indented_preview("a\nb", 5), "    a\n    b");
        assert_eq!(
            indented_preview("a\nb\nc", 2),
            "    a\n    b\n    … 1 more line"
        );
    }

    #[test]
    fn clip_keeps_short_text_and_marks_cut_text() {
        assert_eq!(clip("abc", 5), "abc");
        assert_eq!(clip("abcdef", 3), "abc…");
    }
}
