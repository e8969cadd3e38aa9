//! Draws the viewport under the scrollback: what is live (streaming text, running tools), the
//! approval question, the prompt, completions, and a footer with the status or a hint.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use wright_protocol::ActionKind;

use super::input::Composer;
use super::state::{App, Choosing, Mode};
use super::transcript::{clean, styled};
use super::wrap;
use crate::render::palette::{BOLD, DIM, WARNING};
use crate::render::{self, SPINNER_FRAMES};

/// Columns before the prompt's text (`› `).
const PROMPT_WIDTH: u16 = 2;

impl App {
    /// Rows the viewport needs now.
    pub fn viewport_height(&self) -> u16 {
        let rows = self.upper_rows(usize::from(self.width.max(1))).len() + self.lower_rows();
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// What goes above the rule, one entry per row: the live lines, then the question.
    fn upper_rows(&self, width: usize) -> Vec<Line<'static>> {
        self.live()
            .into_iter()
            .chain(self.question_lines())
            .flat_map(|line| wrap::wrap_line(line, width))
            .collect()
    }

    /// Rows from the rule down: the rule, the prompt, completions, the footer.
    fn lower_rows(&self) -> usize {
        let composer = usize::from(self.prompt_composer().rows(self.text_width()));
        let completion = self.completion.as_ref().map_or(0, |c| c.candidates.len());
        1 + composer + completion + 1
    }

    fn text_width(&self) -> u16 {
        self.width.saturating_sub(PROMPT_WIDTH).max(1)
    }

    /// The composer the keys go to: the reason for a denial, the answer to the model's
    /// question, or the prompt.
    fn prompt_composer(&self) -> &Composer {
        match &self.mode {
            Mode::Asking(_, question) => question.reason.as_ref().unwrap_or(&self.composer),
            Mode::Answering(_, answering) => answering.picker.field().unwrap_or(&self.composer),
            Mode::PlanReady(picker) => picker.field().unwrap_or(&self.composer),
            _ => &self.composer,
        }
    }

    /// Draws the viewport into `frame`.
    pub fn render(&self, frame: &mut Frame) {
        let area = frame.area();
        let width = usize::from(area.width.max(1));
        let mut y = area.y;
        let bottom = area.bottom();
        let put = |frame: &mut Frame, lines: Vec<Line<'static>>, y: &mut u16| {
            for line in lines {
                for row in wrap::wrap_line(line, width) {
                    if *y >= bottom {
                        return;
                    }
                    frame.render_widget(Paragraph::new(row), Rect::new(area.x, *y, area.width, 1));
                    *y += 1;
                }
            }
        };
        // On a short screen the oldest live rows give way, never the prompt.
        let mut upper = self.upper_rows(width);
        let room = usize::from(area.height).saturating_sub(self.lower_rows());
        let excess = upper.len().saturating_sub(room);
        upper.drain(..excess);
        put(frame, upper, &mut y);
        let rule = "─".repeat(width);
        put(frame, vec![styled(rule, DIM, &self.theme)], &mut y);

        let composer = self.prompt_composer();
        let rows = composer.rows(self.text_width());
        let marker = match &self.mode {
            Mode::Asking(_, question) if question.reason.is_some() => "✗ ",
            Mode::Answering(_, answering) if answering.picker.field().is_some() => "✎ ",
            Mode::PlanReady(picker) if picker.field().is_some() => "✎ ",
            _ => "› ",
        };
        let marker_area = Rect::new(area.x, y, PROMPT_WIDTH.min(area.width), 1);
        if y < bottom {
            frame.render_widget(
                Paragraph::new(
                    self.theme
                        .finish_line(Line::from(Span::styled(marker, BOLD))),
                ),
                marker_area,
            );
        }
        let text_area = Rect::new(
            area.x + PROMPT_WIDTH.min(area.width),
            y,
            self.text_width(),
            rows.min(bottom.saturating_sub(y)),
        );
        composer.render(text_area, frame.buffer_mut());
        y += text_area.height;

        if let Some(completion) = &self.completion {
            let label_width = completion
                .candidates
                .iter()
                .map(|c| c.label.chars().count())
                .max()
                .unwrap_or(0);
            let lines = completion
                .candidates
                .iter()
                .enumerate()
                .map(|(i, candidate)| {
                    let style = if i == completion.selected {
                        Style::new().add_modifier(Modifier::REVERSED)
                    } else {
                        Style::new()
                    };
                    let pad = label_width.saturating_sub(candidate.label.chars().count());
                    let mut spans = vec![
                        Span::raw("  "),
                        Span::styled(clean(&candidate.label), style),
                        Span::raw(" ".repeat(pad)),
                    ];
                    if !candidate.detail.is_empty() {
                        spans.push(Span::styled(format!("  {}", candidate.detail), DIM));
                    }
                    self.theme.finish_line(Line::from(spans))
                })
                .collect();
            put(frame, lines, &mut y);
        }
        put(frame, vec![self.footer()], &mut y);
    }

    /// The question under an action waiting for approval.
    pub(super) fn question_lines(&self) -> Vec<Line<'static>> {
        if let Mode::Choosing(_, choosing) = &self.mode {
            return self.choice_lines(choosing);
        }
        if let Mode::Answering(_, answering) = &self.mode {
            return answering.picker.lines(&self.theme);
        }
        if let Mode::PlanReady(picker) = &self.mode {
            return picker.lines(&self.theme);
        }
        let Mode::Asking(_, question) = &self.mode else {
            return Vec::new();
        };
        if question.reason.is_some() {
            return vec![styled(
                "Denied. Tell the model why (optional), then Enter; Esc to skip".to_string(),
                WARNING,
                &self.theme,
            )];
        }
        let kind = match question.request.kind {
            ActionKind::Command => "commands",
            ActionKind::FileChange => "file changes",
            ActionKind::External => "calls of this tool",
        };
        let key = |k: &'static str| Span::styled(k, BOLD);
        let line = Line::from(vec![
            Span::styled(format!("Allow {}? ", question.request.tool), WARNING),
            key("y"),
            Span::raw(" yes  "),
            key("a"),
            Span::raw(format!(" always ({kind}, this session)  ")),
            key("n"),
            Span::raw(" no"),
        ]);
        vec![self.theme.finish_line(line)]
    }

    /// A choice: its title, then one row per option, the selected one reversed.
    fn choice_lines(&self, choosing: &Choosing) -> Vec<Line<'static>> {
        let mut lines: Vec<Line<'static>> = choosing
            .choice
            .title
            .iter()
            .map(|line| styled(clean(line), WARNING, &self.theme))
            .collect();
        for (i, (key, text)) in choosing.choice.options.iter().enumerate() {
            let style = if i == choosing.selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            let mut spans = vec![Span::raw(if i == choosing.selected {
                "› "
            } else {
                "  "
            })];
            if let Some(key) = key {
                spans.push(Span::styled(key.to_string(), BOLD));
                spans.push(Span::raw(" "));
            }
            spans.push(Span::styled(clean(text), style));
            lines.push(self.theme.finish_line(Line::from(spans)));
        }
        lines
    }

    /// The last row: a hint, or the session's mode (unless it is `ask`) and then the agent at
    /// work or the status.
    pub(super) fn footer(&self) -> Line<'static> {
        if let Some((hint, _)) = &self.hint {
            return styled(hint.clone(), WARNING, &self.theme);
        }
        let activity = self.activity();
        let Some(mode) = self.session_mode.span() else {
            return activity;
        };
        let mut spans = vec![mode, Span::styled(" · ", DIM)];
        spans.extend(activity.spans);
        self.theme.finish_line(Line::from(spans))
    }

    /// The agent at work, or the status.
    fn activity(&self) -> Line<'static> {
        let queued = match self.queued.len() {
            0 => String::new(),
            n => format!(" · {n} queued"),
        };
        match &self.mode {
            Mode::Busy(busy)
            | Mode::Asking(busy, _)
            | Mode::Choosing(busy, _)
            | Mode::Answering(busy, _) => {
                let elapsed = self.now.saturating_duration_since(busy.started);
                let frame = usize::try_from(elapsed.as_millis() / 100).unwrap_or(0);
                let what = if busy.stopping {
                    "stopping…".to_string()
                } else {
                    format!(
                        "working {:.0} s · Ctrl-C to stop{queued}",
                        elapsed.as_secs_f64().floor()
                    )
                };
                let line = Line::from(vec![
                    Span::styled(SPINNER_FRAMES[frame % SPINNER_FRAMES.len()], DIM),
                    Span::styled(format!(" {what}"), DIM),
                ]);
                self.theme.finish_line(line)
            }
            Mode::Idle | Mode::PlanReady(_) => match &self.status {
                Some(status) => render::status_line(status, &self.theme),
                None => styled(
                    "Enter send · Alt-Enter new line · @ mention a file · /help".to_string(),
                    DIM,
                    &self.theme,
                ),
            },
        }
    }
}
