//! What a round looks like: each agent [`Event`] becomes lines for the scrollback (thoughts,
//! tool results, diffs, the answer, errors) or for the live area under them (the line being
//! streamed, running tools with a spinner, compaction in progress).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use wright_core::summarize::{SUMMARY_TIMEOUT_MESSAGE, summary_failed_message};
use wright_protocol::text::plural;
use wright_protocol::{
    ActionKind, ApprovalVerdict, ErrorCode, Event, FailureCode, ToolError, ToolStatus,
};
use wright_tools::data::ToolData;

use crate::render::palette::{ADDED, BOLD, DIM, ERROR, WARNING};
use crate::render::{self, SPINNER_FRAMES, Theme, ToolLineState, ToolOutcome};

/// Lines of a diff shown under a file change; the rest is counted.
pub const MAX_DIFF_LINES: usize = 80;
/// Lines of a held reply shown in the live area while it streams.
const HELD_LINES_SHOWN: usize = 3;
/// How long one spinner frame shows.
const SPINNER_FRAME: Duration = Duration::from_millis(100);

/// How the text of the current model reply is being shown.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum StreamMode {
    /// Nothing but blank lines yet.
    #[default]
    Undecided,
    /// It starts with `Thought`: each line goes to the scrollback as it completes.
    Thought,
    /// It does not: it may be the answer itself (a reply without `Action:`), which is shown
    /// once, as Markdown. Its lines wait in the live area until the reply turns out to be a
    /// step (then they are thought) or the answer.
    Held,
}

/// The text of one model reply as it streams.
#[derive(Debug, Default)]
struct ReplyText {
    mode: StreamMode,
    partial: String,
    held: Vec<String>,
}

impl ReplyText {
    fn push(&mut self, text: &str, theme: &Theme, out: &mut Vec<Line<'static>>) {
        self.partial.push_str(text);
        while let Some(newline) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=newline).collect();
            self.line(line.trim_end_matches(['\n', '\r']), theme, out);
        }
    }

    fn line(&mut self, line: &str, theme: &Theme, out: &mut Vec<Line<'static>>) {
        if self.mode == StreamMode::Undecided {
            if line.trim().is_empty() {
                return;
            }
            let starts_with_thought = line
                .trim_start()
                .get(..7)
                .is_some_and(|word| word.eq_ignore_ascii_case("thought"));
            self.mode = if starts_with_thought {
                StreamMode::Thought
            } else {
                StreamMode::Held
            };
        }
        match self.mode {
            StreamMode::Held => self.held.push(line.to_string()),
            _ => out.extend(render::thought(line, theme)),
        }
    }

    /// The reply was a step: everything in it was thought.
    fn flush_as_thought(&mut self, theme: &Theme, out: &mut Vec<Line<'static>>) {
        for line in self.held.drain(..) {
            out.extend(render::thought(&line, theme));
        }
        let partial = std::mem::take(&mut self.partial);
        out.extend(render::thought(&partial, theme));
        *self = Self::default();
    }

    /// The reply was the answer: what was held is the answer, shown by the caller.
    fn end_as_answer(&mut self, theme: &Theme, out: &mut Vec<Line<'static>>) {
        if self.mode == StreamMode::Thought {
            let partial = std::mem::take(&mut self.partial);
            out.extend(render::thought(&partial, theme));
        }
        *self = Self::default();
    }

    /// What the live area shows of it.
    fn live(&self, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines: Vec<Line<'static>> = Vec::new();
        let skip = self.held.len().saturating_sub(HELD_LINES_SHOWN);
        for line in &self.held[skip..] {
            lines.extend(render::thought(line, theme));
        }
        if !self.partial.trim().is_empty() {
            lines.extend(render::thought(&self.partial, theme));
        }
        lines
    }
}

#[derive(Debug, Clone)]
struct RunningTool {
    step: u32,
    tool: String,
    args: Value,
    started: Instant,
}

/// Turns a session's events into lines.
#[derive(Debug)]
pub struct Transcript {
    theme: Theme,
    reply: ReplyText,
    reasoning: ReplyText,
    running: Vec<RunningTool>,
    compacting: Option<(Instant, String)>,
    /// Steps whose change was shown as a diff when approval was asked.
    previewed: HashSet<u32>,
    /// The step whose tool waits for approval (not running yet: no spinner).
    awaiting: Option<u32>,
}

impl Transcript {
    /// An empty transcript drawn with `theme`.
    pub fn new(theme: Theme) -> Self {
        Self {
            theme,
            reply: ReplyText::default(),
            reasoning: ReplyText {
                mode: StreamMode::Thought,
                ..ReplyText::default()
            },
            running: Vec::new(),
            compacting: None,
            previewed: HashSet::new(),
            awaiting: None,
        }
    }

    /// Adds the lines `event` puts into the scrollback to `out`; `width` is the terminal's.
    pub fn event(&mut self, event: &Event, now: Instant, width: u16, out: &mut Vec<Line<'static>>) {
        let theme = self.theme;
        match event {
            Event::SessionStarted { .. } | Event::Usage { .. } => {}
            Event::RoundStarted { prompt } => {
                self.previewed.clear();
                out.push(Line::default());
                out.extend(user_prompt(prompt, &theme));
            }
            Event::AssistantDelta { text } => {
                self.end_reasoning(out);
                self.reply.push(text, &theme, out);
            }
            Event::ReasoningDelta { text } => self.reasoning.push(text, &theme, out),
            Event::ToolCall { step, tool, args } => {
                self.end_reasoning(out);
                self.reply.flush_as_thought(&theme, out);
                self.running.push(RunningTool {
                    step: *step,
                    tool: tool.clone(),
                    args: args.clone(),
                    started: now,
                });
            }
            Event::ApprovalRequested {
                step,
                tool,
                kind,
                preview,
                concern,
            } => {
                out.extend(approval_preview(tool, *kind, preview, &theme));
                if let Some(concern) = concern {
                    out.push(styled(
                        format!("  ⚠ the safety check flags this ({})", clean(concern)),
                        ERROR.patch(BOLD),
                        &theme,
                    ));
                }
                if *kind == ActionKind::FileChange {
                    self.previewed.insert(*step);
                }
                self.awaiting = Some(*step);
            }
            Event::ApprovalDecided {
                step,
                decision,
                reason,
            } => {
                self.awaiting = None;
                // The tool runs from now on, not from when it was asked for.
                if let Some(running) = self.running.iter_mut().find(|r| r.step == *step) {
                    running.started = now;
                }
                let (text, style) = match decision {
                    ApprovalVerdict::Once => ("  ✓ allowed once".to_string(), ADDED),
                    ApprovalVerdict::Always => (
                        "  ✓ allowed for the rest of this session".to_string(),
                        ADDED,
                    ),
                    ApprovalVerdict::Denied => match reason {
                        Some(reason) => (format!("  ✗ denied: {reason}"), ERROR),
                        None => ("  ✗ denied".to_string(), ERROR),
                    },
                };
                out.push(styled(text, style, &theme));
            }
            Event::ToolResult {
                step,
                tool,
                status,
                summary,
                data,
                error,
            } => {
                let position = self.running.iter().position(|r| r.step == *step);
                let running = position.map(|i| self.running.remove(i));
                let (args, elapsed) = running.map_or((Value::Null, Duration::ZERO), |r| {
                    (r.args, now.saturating_duration_since(r.started))
                });
                let result = ToolOutcome {
                    status: *status,
                    data: data.clone(),
                    // Events from before the error travelled with the result carry only the
                    // summary.
                    error: (*status == ToolStatus::Error)
                        .then(|| error.clone().unwrap_or_else(|| tool_error(summary))),
                };
                let done = ToolLineState::Done { result, elapsed };
                out.push(render::tool_call_line(tool, &args, done, &theme));
                let diff = match ToolData::of(tool, data) {
                    Some(ToolData::Edit(edit)) => Some(edit.diff),
                    Some(ToolData::Write(write)) => write.diff,
                    _ => None,
                };
                // Calls of one native reply share a step: each preview covers its own call.
                let previewed = self.previewed.remove(step);
                if *status == ToolStatus::Success
                    && !previewed
                    && let Some(diff) = diff.filter(|d| !d.trim().is_empty())
                {
                    out.extend(capped_diff(&diff, &theme));
                }
            }
            Event::CheckStarted { .. } => {}
            Event::CheckFinished {
                command,
                passed,
                exit_code,
                ..
            } => {
                let (text, style) = match (passed, exit_code) {
                    (true, _) => (format!("  ✓ check passed: {command}"), ADDED),
                    (false, Some(code)) => {
                        (format!("  ✗ check failed (exit {code}): {command}"), ERROR)
                    }
                    (false, None) => (format!("  ✗ check failed: {command}"), ERROR),
                };
                out.push(styled(text, style, &theme));
            }
            Event::Subagent {
                agent,
                description,
                event,
                ..
            } => subagent_lines(&subagent_name(agent, description), event, &theme, out),
            Event::FormatError { message, .. } => {
                self.reply.flush_as_thought(&theme, out);
                out.push(styled(
                    format!("⚠ the model's reply did not follow the format: {message}"),
                    WARNING,
                    &theme,
                ));
            }
            Event::Retry {
                attempt,
                max_attempts,
                reason,
                delay_ms,
            } => {
                // The reply is sent again from its start.
                self.reply = ReplyText::default();
                let seconds = *delay_ms as f64 / 1000.0;
                out.push(styled(
                    format!(
                        "⟳ {reason}; retrying in {seconds:.1} s (attempt {attempt}/{max_attempts})"
                    ),
                    WARNING,
                    &theme,
                ));
            }
            Event::Continuation { attempt } => out.push(styled(
                format!(
                    "… the reply hit the output limit; asking the model to continue ({attempt})"
                ),
                DIM,
                &theme,
            )),
            Event::CompactionStarted {
                estimated_tokens,
                threshold,
            } => {
                let what = if estimated_tokens >= threshold {
                    format!(
                        "Compacting history (about {} tokens, threshold {}): summarising older rounds",
                        tokens(*estimated_tokens),
                        tokens(*threshold)
                    )
                } else {
                    "Compacting history: summarising older rounds".to_string()
                };
                self.compacting = Some((now, what));
            }
            Event::CompactionFinished {
                archived_rounds,
                summary,
                timed_out,
                error,
                tokens_before,
                tokens_after,
            } => {
                self.compacting = None;
                let sizes = format!(
                    "{} archived; history about {} → {} tokens",
                    plural(u64::from(*archived_rounds), "round"),
                    tokens(*tokens_before),
                    tokens(*tokens_after)
                );
                let line = if *timed_out {
                    styled(
                        format!("⚠ {SUMMARY_TIMEOUT_MESSAGE} ({sizes})"),
                        WARNING,
                        &theme,
                    )
                } else if let Some(error) = error.as_ref().filter(|_| summary.is_none()) {
                    let message = summary_failed_message(error, *archived_rounds);
                    styled(format!("⚠ {message}"), WARNING, &theme)
                } else {
                    styled(format!("✓ Compacted: {sizes}"), ADDED, &theme)
                };
                out.push(line);
            }
            Event::Warning { message } => {
                out.push(styled(format!("⚠ {message}"), WARNING, &theme));
            }
            Event::RoundFinished { answer, .. } => {
                self.end_reasoning(out);
                self.reply.end_as_answer(&theme, out);
                self.running.clear();
                out.push(Line::default());
                out.extend(render::markdown(answer, width, &theme));
            }
            Event::Error { code, message } => {
                self.end_reasoning(out);
                self.reply.flush_as_thought(&theme, out);
                self.running.clear();
                self.compacting = None;
                self.awaiting = None;
                if *code == FailureCode::Interrupted {
                    out.push(styled("⏹ Interrupted.".to_string(), WARNING, &theme));
                } else {
                    out.extend(render::error(message, &theme));
                }
            }
        }
    }

    fn end_reasoning(&mut self, out: &mut Vec<Line<'static>>) {
        let theme = self.theme;
        self.reasoning.flush_as_thought(&theme, out);
        self.reasoning.mode = StreamMode::Thought;
    }

    /// The live area: the reply being streamed, compaction in progress, running tools.
    pub fn live(&self, now: Instant) -> Vec<Line<'static>> {
        let theme = self.theme;
        let mut lines = self.reasoning.live(&theme);
        lines.extend(self.reply.live(&theme));
        if let Some((started, what)) = &self.compacting {
            let elapsed = now.saturating_duration_since(*started);
            let frame = spinner_frame(elapsed);
            lines.push(theme.finish_line(Line::from(vec![
                Span::styled(SPINNER_FRAMES[frame % SPINNER_FRAMES.len()], WARNING),
                Span::raw(format!(" {what}… {:.1} s", elapsed.as_secs_f64())),
            ])));
        }
        for tool in self
            .running
            .iter()
            .filter(|r| Some(r.step) != self.awaiting)
        {
            let elapsed = now.saturating_duration_since(tool.started);
            let state = ToolLineState::Running {
                spinner_frame: spinner_frame(elapsed),
                elapsed,
            };
            lines.push(render::tool_call_line(
                &tool.tool, &tool.args, state, &theme,
            ));
        }
        lines
    }
}

fn spinner_frame(elapsed: Duration) -> usize {
    usize::try_from(elapsed.as_millis() / SPINNER_FRAME.as_millis()).unwrap_or(0)
}

/// The user's message as it opens a round: `› ` before the first line.
fn user_prompt(prompt: &str, theme: &Theme) -> Vec<Line<'static>> {
    let style = Style::new().add_modifier(Modifier::BOLD);
    let lines = prompt
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let marker = if i == 0 { "› " } else { "  " };
            Line::from(vec![
                Span::styled(marker, DIM),
                Span::styled(clean(line), style),
            ])
        })
        .collect();
    theme.finish(lines)
}

/// What an action waiting for approval would do: the command, or the diff.
fn approval_preview(
    tool: &str,
    kind: ActionKind,
    preview: &str,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let question = match kind {
        ActionKind::Command => format!("? {tool} wants to run a command:"),
        ActionKind::FileChange => format!("? {tool} wants to change a file:"),
        ActionKind::External => format!("? {tool} (a tool from an MCP server) wants to run:"),
    };
    let mut lines = vec![styled(question, WARNING.patch(BOLD), theme)];
    match kind {
        ActionKind::Command | ActionKind::External => {
            let first = if kind == ActionKind::Command {
                "  $ "
            } else {
                "  › "
            };
            for (i, line) in preview.lines().enumerate() {
                let marker = if i == 0 { first } else { "    " };
                lines.push(theme.finish_line(Line::from(vec![
                    Span::styled(marker, DIM),
                    Span::styled(clean(line), BOLD),
                ])));
            }
        }
        ActionKind::FileChange => lines.extend(capped_diff(preview, theme)),
    }
    lines
}

/// A diff, cut at [`MAX_DIFF_LINES`] with a note of how many lines were left out.
fn capped_diff(diff: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = render::diff(diff, theme);
    let more = lines.len().saturating_sub(MAX_DIFF_LINES);
    if more > 0 {
        lines.truncate(MAX_DIFF_LINES);
        lines.push(styled(
            format!("… {}", plural(more as u64, "more line")),
            DIM,
            theme,
        ));
    }
    lines
}

/// The error of a failed tool, read back from its one-line summary (`code: message`).
fn tool_error(summary: &str) -> ToolError {
    let (code, message) = summary.split_once(": ").unwrap_or(("", summary));
    let code = serde_json::from_value::<ErrorCode>(Value::String(code.to_string()))
        .unwrap_or(ErrorCode::Other);
    let message = if code == ErrorCode::Other {
        summary
    } else {
        message
    };
    ToolError {
        code,
        message: message.to_string(),
    }
}

/// The lines a sub-agent's event adds under the Task call that runs it (issue 14): each of its
/// tool results on one line, what it asks approval for, warnings and its failure; `agent`
/// names it with its task (`explore (find the parser)`, or `general (…) › explore (…)` for a
/// sub-agent's own), so tasks running side by side can be told apart.
fn subagent_lines(agent: &str, event: &Event, theme: &Theme, out: &mut Vec<Line<'static>>) {
    let agent = clean(agent);
    match event {
        Event::ToolResult {
            tool,
            status,
            summary,
            ..
        } => {
            let (mark, style) = match status {
                ToolStatus::Success => ("✓", DIM),
                ToolStatus::Error => ("✗", ERROR),
            };
            out.push(styled(
                format!("  ↳ {agent}: {} {mark} {}", clean(tool), clean(summary)),
                style,
                theme,
            ));
        }
        Event::ApprovalRequested {
            tool,
            kind,
            preview,
            concern,
            ..
        } => {
            out.push(styled(format!("  ↳ {agent} asks:"), BOLD, theme));
            out.extend(approval_preview(tool, *kind, preview, theme));
            if let Some(concern) = concern {
                out.push(styled(
                    format!("  ⚠ the safety check flags this ({})", clean(concern)),
                    ERROR.patch(BOLD),
                    theme,
                ));
            }
        }
        Event::ApprovalDecided {
            decision, reason, ..
        } => {
            let text = match (decision, reason) {
                (ApprovalVerdict::Denied, Some(reason)) => format!("denied: {}", clean(reason)),
                (ApprovalVerdict::Denied, None) => "denied".to_string(),
                (ApprovalVerdict::Once, _) => "allowed once".to_string(),
                (ApprovalVerdict::Always, _) => "allowed for the rest of its task".to_string(),
            };
            out.push(styled(format!("  ↳ {agent}: {text}"), DIM, theme));
        }
        Event::Warning { message } => out.push(styled(
            format!("  ↳ {agent}: ⚠ {}", clean(message)),
            WARNING,
            theme,
        )),
        Event::Error { message, .. } => out.push(styled(
            format!("  ↳ {agent}: ✗ {}", clean(message)),
            ERROR,
            theme,
        )),
        Event::Subagent {
            agent: inner,
            description,
            event,
            ..
        } => subagent_lines(
            &format!("{agent} › {}", subagent_name(inner, description)),
            event,
            theme,
            out,
        ),
        _ => {}
    }
}

/// `explore (find the parser)`: a sub-agent and its task, the task cut to a few words.
pub(crate) fn subagent_name(agent: &str, description: &str) -> String {
    format!(
        "{agent} ({})",
        wright_protocol::text::clip(description, MAX_TASK_CHARS)
    )
}

/// The longest task description shown beside a sub-agent's steps.
const MAX_TASK_CHARS: usize = 40;

/// A one-span line in `style`.
pub fn styled(text: String, style: Style, theme: &Theme) -> Line<'static> {
    theme.finish_line(Line::from(Span::styled(clean(&text), style)))
}

/// `text` without control characters (it may come from the model or a file).
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// `950`, `12.3k`, `200k`, `1.2M`, as the status line writes token counts.
pub fn tokens(n: u64) -> String {
    let scaled = |unit: u64, suffix: &str| {
        let tenths = (u128::from(n) * 10 + u128::from(unit / 2)) / u128::from(unit);
        match tenths % 10 {
            0 => format!("{}{suffix}", tenths / 10),
            tenth => format!("{}.{tenth}{suffix}", tenths / 10),
        }
    };
    match n {
        0..1_000 => n.to_string(),
        1_000..999_950 => scaled(1_000, "k"),
        _ => scaled(1_000_000, "M"),
    }
}

#[cfg(test)]
mod tests;
