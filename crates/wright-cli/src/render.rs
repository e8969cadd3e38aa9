//! How `wright exec` shows a round: readable progress on stderr with the answer alone on stdout,
//! or one JSON event per line on stdout (`--json`).

use std::io::{self, IsTerminal, Write};

use wright_core::summarize::SUMMARY_TIMEOUT_MESSAGE;
use wright_protocol::{Event, ToolStatus, Usage};

/// Longest tool-argument preview on a tool-call line, in characters.
const MAX_ARGS_PREVIEW: usize = 100;

const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// Receives every event of a round.
pub trait Renderer: Send {
    /// Shows one event.
    fn event(&mut self, event: &Event);
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
}

impl HumanRenderer {
    /// A renderer that colours its output when stderr is a terminal.
    pub fn new() -> Self {
        Self {
            color: io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            at_line_start: true,
        }
    }

    fn paint(&self, style: &str, text: &str) -> String {
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
            } => {
                let text = match (timed_out, summary, error) {
                    (true, _, _) => SUMMARY_TIMEOUT_MESSAGE.to_string(),
                    (false, Some(_), _) => {
                        format!("✓ archived {archived_rounds} rounds into a summary")
                    }
                    (false, None, error) => format!(
                        "Summary generation failed ({}), keeping recent history only.",
                        error.as_deref().unwrap_or("no summary returned")
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
                let mut out = io::stdout().lock();
                let _ = writeln!(out, "{answer}");
                let _ = out.flush();
            }
            Event::Error { message, .. } => {
                let line = self.paint(RED, &format!("error: {message}"));
                self.line(&line);
            }
        }
    }
}

/// `tokens: 1200 in (1000 cached), 85 out`.
fn usage_line(usage: &Usage) -> String {
    let cached = usage
        .cached_prompt_tokens
        .map(|n| format!(" ({n} cached)"))
        .unwrap_or_default();
    format!(
        "tokens: {} in{cached}, {} out",
        usage.prompt_tokens, usage.completion_tokens
    )
}

fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_line_mentions_cached_tokens_only_when_known() {
        let mut usage = Usage {
            prompt_tokens: 1200,
            completion_tokens: 85,
            total_tokens: 1285,
            ..Usage::default()
        };
        assert_eq!(usage_line(&usage), "tokens: 1200 in, 85 out");
        usage.cached_prompt_tokens = Some(1000);
        assert_eq!(usage_line(&usage), "tokens: 1200 in (1000 cached), 85 out");
    }

    #[test]
    fn clip_keeps_short_text_and_marks_cut_text() {
        assert_eq!(clip("abc", 5), "abc");
        assert_eq!(clip("abcdef", 3), "abc…");
    }
}
