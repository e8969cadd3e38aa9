//! Lines turned back into text: plain, or with ANSI escapes for a terminal.

use std::fmt::Write as _;

use crossterm::style::{ContentStyle, StyledContent};
use ratatui::backend::IntoCrossterm;
use ratatui::style::Style;
use ratatui::text::Line;

/// The text of `lines` without any style, each line ending in `\n`.
///
/// For output that is not a terminal, and for tests.
pub fn to_plain(lines: &[Line<'_>]) -> String {
    let mut out = String::new();
    for line in lines {
        for span in &line.spans {
            out.push_str(&span.content);
        }
        out.push('\n');
    }
    out
}

/// `lines` with their styles as ANSI escape sequences, each line ending in `\n`.
///
/// Every styled span sets its style and resets it after itself, so nothing leaks into what
/// the terminal prints next. Alignment is ignored. In raw mode a terminal does not return the
/// cursor on `\n`; draw into the viewport (or `insert_before`) there instead.
pub fn to_ansi(lines: &[Line<'_>]) -> String {
    let mut out = String::new();
    for line in lines {
        for span in &line.spans {
            let style = line.style.patch(span.style);
            if style == Style::default() {
                out.push_str(&span.content);
            } else {
                let style: ContentStyle = style.into_crossterm();
                // Writing into a `String` cannot fail.
                let _ = write!(out, "{}", StyledContent::new(style, &span.content));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use ratatui::style::Stylize;
    use ratatui::text::Span;

    #[test]
    fn to_plain_drops_styles_and_ends_each_line() {
        let lines = [
            Line::from(vec![Span::raw("a "), Span::raw("b").bold()]),
            Line::default(),
        ];
        assert_eq!(to_plain(&lines), "a b\n\n");
    }

    #[test]
    fn to_ansi_wraps_styled_spans_in_escapes_and_resets_after_them() {
        let lines = [Line::from(vec![
            Span::raw("a "),
            Span::raw("b").red().bold(),
        ])];
        assert_eq!(to_ansi(&lines), "a \u{1b}[38;5;1m\u{1b}[1mb\u{1b}[0m\n");
    }

    #[test]
    fn to_ansi_of_unstyled_lines_is_the_plain_text() {
        let lines = [Line::from("just text")];
        assert_eq!(to_ansi(&lines), to_plain(&lines));
    }
}
