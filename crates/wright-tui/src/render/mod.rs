//! Styled lines for everything the interactive terminal shows: Markdown answers, unified
//! diffs, one-line tool calls and results, the status line.
//!
//! Every function here is pure: it takes text (and a [`Theme`]) and returns ratatui
//! [`Line`]s, which the application either draws into its viewport or writes out with
//! [`to_ansi`] / [`to_plain`]. Nothing here touches the terminal. All text from outside (model
//! output, tool arguments, file contents) has its control characters replaced, so it can never
//! smuggle escape sequences into the terminal.

mod ansi;
mod diff;
mod highlight;
mod markdown;
mod status;
mod text;
mod tool_line;

use std::ffi::OsStr;
use std::io::IsTerminal;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

pub use ansi::{to_ansi, to_plain};
pub use diff::diff;
pub use markdown::markdown;
pub use status::{StatusInfo, status_line};
pub use tool_line::{SPINNER_FRAMES, ToolLineState, ToolOutcome, tool_call_line};

/// Whether to use colour and styles.
///
/// Without colour, lines carry no styles at all (not even bold), and Markdown keeps a few of
/// its own marks (`#` before headings, backticks around inline code, fences around code blocks)
/// so that structure the styles would have shown is still visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Use colours and text attributes.
    pub color: bool,
}

impl Theme {
    /// Colours and styles.
    pub const COLOR: Theme = Theme { color: true };
    /// No styles at all.
    pub const PLAIN: Theme = Theme { color: false };

    /// The theme for this process: plain when `NO_COLOR` is set (to anything but the empty
    /// string, per <https://no-color.org>) or stdout is not a terminal.
    pub fn detect() -> Theme {
        Theme::decide(
            std::env::var_os("NO_COLOR").as_deref(),
            std::io::stdout().is_terminal(),
        )
    }

    /// The decision [`Theme::detect`] makes, from the value of `NO_COLOR` and whether stdout
    /// is a terminal.
    pub fn decide(no_color: Option<&OsStr>, stdout_is_terminal: bool) -> Theme {
        let no_color = no_color.is_some_and(|value| !value.is_empty());
        Theme {
            color: stdout_is_terminal && !no_color,
        }
    }

    /// `lines` as they should be shown: unchanged with colour, stripped of every style without.
    pub(crate) fn finish(self, mut lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
        if !self.color {
            lines.iter_mut().for_each(strip_styles);
        }
        lines
    }

    /// [`Theme::finish`] for one line.
    pub(crate) fn finish_line(self, mut line: Line<'static>) -> Line<'static> {
        if !self.color {
            strip_styles(&mut line);
        }
        line
    }
}

fn strip_styles(line: &mut Line<'static>) {
    line.style = Style::default();
    for span in &mut line.spans {
        span.style = Style::default();
    }
}

/// The few styles shared by several renderers; each renderer names its own beyond these.
pub(crate) mod palette {
    use super::{Color, Modifier, Style};

    /// Secondary text: URLs, separators, quote bars, thoughts.
    pub(crate) const DIM: Style = Style::new().add_modifier(Modifier::DIM);
    /// Emphasis for names and headers.
    pub(crate) const BOLD: Style = Style::new().add_modifier(Modifier::BOLD);
    /// Failures.
    pub(crate) const ERROR: Style = Style::new().fg(Color::Red);
    /// Additions (diff `+` lines, `+N` counts).
    pub(crate) const ADDED: Style = Style::new().fg(Color::Green);
    /// Removals (diff `-` lines, `−N` counts).
    pub(crate) const REMOVED: Style = Style::new().fg(Color::Red);
    /// Something that worked but deserves a look (a non-zero exit code, a nearly full context).
    pub(crate) const WARNING: Style = Style::new().fg(Color::Yellow);
}

/// The model's reasoning, dimmed and in italics, one line per line of `text`.
pub fn thought(text: &str, theme: &Theme) -> Vec<Line<'static>> {
    const THOUGHT: Style = Style::new()
        .add_modifier(Modifier::DIM)
        .add_modifier(Modifier::ITALIC);
    styled_lines(text, THOUGHT, theme)
}

/// An error message, in red, one line per line of `message`.
pub fn error(message: &str, theme: &Theme) -> Vec<Line<'static>> {
    styled_lines(message, palette::ERROR, theme)
}

/// Each line of `text` (control characters replaced, tabs expanded) as one line in `style`.
fn styled_lines(text: &str, style: Style, theme: &Theme) -> Vec<Line<'static>> {
    let lines = text
        .lines()
        .map(|line| Line::from(Span::styled(text::clean_line(line), style)))
        .collect();
    theme.finish(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn no_color_set_to_anything_turns_colour_off() {
        assert_eq!(Theme::decide(Some(OsStr::new("1")), true), Theme::PLAIN);
    }

    #[test]
    fn empty_no_color_is_ignored() {
        assert_eq!(Theme::decide(Some(OsStr::new("")), true), Theme::COLOR);
    }

    #[test]
    fn output_that_is_not_a_terminal_is_plain() {
        assert_eq!(Theme::decide(None, false), Theme::PLAIN);
    }

    #[test]
    fn thought_keeps_one_line_per_input_line() {
        let lines = thought("first\nsecond", &Theme::COLOR);
        assert_eq!(to_plain(&lines), "first\nsecond\n");
        assert!(
            lines
                .iter()
                .all(|l| l.spans[0].style.add_modifier == Modifier::DIM | Modifier::ITALIC)
        );
    }

    #[test]
    fn error_is_red_with_colour_and_unstyled_without() {
        let red = error("boom", &Theme::COLOR);
        assert_eq!(red[0].spans[0].style.fg, Some(Color::Red));
        let plain = error("boom", &Theme::PLAIN);
        assert_eq!(plain[0].spans[0].style, Style::default());
    }
}
