//! Breaking styled lines at the terminal's width, so that what goes into the scrollback takes
//! exactly the rows the viewport's arithmetic expects.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `line` cut into lines of at most `width` columns, between characters; a character wider
/// than the rest of a line starts the next one. An empty line stays one empty line.
pub fn wrap_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let style = line.style;
    let alignment = line.alignment;
    let finish = |spans: Vec<Span<'static>>| {
        let mut out = Line::from(spans).style(style);
        out.alignment = alignment;
        out
    };
    let mut lines = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                if !piece.is_empty() {
                    current.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                lines.push(finish(std::mem::take(&mut current)));
                used = 0;
            }
            piece.push(c);
            used += w;
        }
        if !piece.is_empty() {
            current.push(Span::styled(piece, span.style));
        }
    }
    lines.push(finish(current));
    lines
}

/// Rows `text` takes when broken between characters at `width` columns (each line at least
/// one row).
pub fn rows(text: &str, width: usize) -> usize {
    let width = width.max(1);
    text.split('\n')
        .map(|line| {
            let mut rows = 1;
            let mut used = 0;
            for c in line.chars() {
                let w = c.width().unwrap_or(0);
                if used + w > width && used > 0 {
                    rows += 1;
                    used = 0;
                }
                used += w;
            }
            rows
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use ratatui::style::{Color, Style};

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_line_that_fits_is_unchanged() {
        let line = Line::from("hello");
        assert_eq!(wrap_line(line.clone(), 10), vec![line]);
    }

    #[test]
    fn a_long_line_breaks_at_the_width_and_keeps_styles() {
        let red = Style::new().fg(Color::Red);
        let line = Line::from(vec![Span::raw("abcd"), Span::styled("efgh", red)]);
        let wrapped = wrap_line(line, 3);
        assert_eq!(texts(&wrapped), ["abc", "def", "gh"]);
        assert_eq!(wrapped[1].spans[1], Span::styled("ef", red));
    }

    #[test]
    fn a_wide_character_never_straddles_two_lines() {
        assert_eq!(texts(&wrap_line(Line::from("ab漢"), 3)), ["ab", "漢"]);
    }

    #[test]
    fn rows_counts_wrapped_and_empty_lines() {
        assert_eq!(rows("abcdef\n\nx", 3), 4);
        assert_eq!(rows("", 3), 1);
    }
}
