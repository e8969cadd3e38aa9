//! Text measured in terminal columns: cleaning outside text, clipping, and wrapping styled
//! spans to a width.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns between tab stops when a tab is expanded.
const TAB_STOP: usize = 4;

/// What replaces a control character (or a bidi override) in text from outside.
const REPLACEMENT: char = '\u{FFFD}';

/// The ellipsis that ends clipped text.
pub(crate) const ELLIPSIS: char = '…';

/// Columns `text` takes in a terminal.
pub(crate) fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// Columns `c` takes; 0 for characters that take none.
pub(crate) fn char_width(c: char) -> usize {
    UnicodeWidthChar::width(c).unwrap_or(0)
}

/// Whether `c` could change what the terminal does rather than print: C0/C1 controls and the
/// bidirectional overrides that reorder text on screen.
fn is_terminal_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// One line of outside text made safe to print: tabs expanded to the next tab stop, control
/// characters replaced with `�`, a stray `\r` dropped.
pub(crate) fn clean_line(line: &str) -> String {
    let mut column = 0;
    clean_piece(line, &mut column)
}

/// [`clean_line`] for a piece of a line that starts at `column`, which is advanced past it (so
/// that tab stops line up across the differently styled pieces of one line).
pub(crate) fn clean_piece(piece: &str, column: &mut usize) -> String {
    let mut out = String::with_capacity(piece.len());
    for c in piece.chars() {
        match c {
            '\t' => {
                let spaces = TAB_STOP - *column % TAB_STOP;
                out.extend(std::iter::repeat_n(' ', spaces));
                *column += spaces;
            }
            '\r' | '\n' => {}
            c if is_terminal_control(c) => {
                out.push(REPLACEMENT);
                *column += char_width(REPLACEMENT);
            }
            c => {
                out.push(c);
                *column += char_width(c);
            }
        }
    }
    out
}

/// Prose made safe to wrap: tabs become spaces, control characters other than `\n` (a hard
/// break) are replaced with `�`.
pub(crate) fn clean_prose(text: &str) -> String {
    text.chars()
        .filter(|&c| c != '\r')
        .map(|c| match c {
            '\n' => '\n',
            '\t' => ' ',
            c if is_terminal_control(c) => REPLACEMENT,
            c => c,
        })
        .collect()
}

/// `text` cut to at most `max` columns, ending in `…` when anything was cut. Never splits a
/// character.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    let budget = max.saturating_sub(char_width(ELLIPSIS));
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = char_width(c);
        if used + w > budget {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push(ELLIPSIS);
    out
}

/// Drops the white space that ends `spans` (a line of only a prefix: `│ ` becomes `│`).
pub(crate) fn trim_end(spans: &mut Vec<Span<'static>>) {
    while let Some(last) = spans.last_mut() {
        let trimmed = last.content.trim_end();
        if trimmed.is_empty() {
            spans.pop();
        } else {
            if trimmed.len() < last.content.len() {
                last.content = trimmed.to_string().into();
            }
            break;
        }
    }
}

/// What wrapping sees in a run of styled text.
enum Token {
    /// Characters that stay together, each piece with its own style.
    Word(Vec<(String, Style)>),
    /// One space, which disappears where a line breaks.
    Space(Style),
    /// A hard line break.
    Break,
}

/// Whether a line may break at `c`: white space, but not the no-break spaces.
fn is_breakable_space(c: char) -> bool {
    c.is_whitespace() && !matches!(c, '\u{A0}' | '\u{2007}' | '\u{202F}')
}

/// Splits spans into words, spaces and hard breaks; a word may cross span boundaries
/// (`**bold**text` is one word).
fn tokenize(spans: &[Span<'_>]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word: Vec<(String, Style)> = Vec::new();
    for span in spans {
        for c in span.content.chars() {
            if c == '\n' || is_breakable_space(c) {
                if !word.is_empty() {
                    tokens.push(Token::Word(std::mem::take(&mut word)));
                }
                tokens.push(if c == '\n' {
                    Token::Break
                } else {
                    Token::Space(span.style)
                });
                continue;
            }
            match word.last_mut() {
                Some((text, style)) if *style == span.style => text.push(c),
                _ => word.push((c.to_string(), span.style)),
            }
        }
    }
    if !word.is_empty() {
        tokens.push(Token::Word(word));
    }
    tokens
}

/// Builds lines no wider than a width, each starting with a prefix.
struct LineBuilder<'p> {
    width: usize,
    first_prefix: &'p [Span<'static>],
    rest_prefix: &'p [Span<'static>],
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    /// Columns of `current` after its prefix.
    used: usize,
    /// Whether anything but the prefix is on the current line.
    has_content: bool,
}

impl<'p> LineBuilder<'p> {
    fn new(width: usize, first: &'p [Span<'static>], rest: &'p [Span<'static>]) -> Self {
        Self {
            width,
            first_prefix: first,
            rest_prefix: rest,
            lines: Vec::new(),
            current: first.to_vec(),
            used: 0,
            has_content: false,
        }
    }

    /// Columns left for text on a line: at least one, so that text always makes progress.
    fn room(&self) -> usize {
        let prefix = if self.lines.is_empty() {
            self.first_prefix
        } else {
            self.rest_prefix
        };
        let prefix: usize = prefix.iter().map(Span::width).sum();
        self.width.saturating_sub(prefix).max(1)
    }

    fn push(&mut self, text: &str, style: Style) {
        self.used += width(text);
        self.has_content = true;
        let past_prefix = self.current.len() > self.prefix_len();
        match self.current.last_mut() {
            Some(last) if past_prefix && last.style == style => {
                last.content.to_mut().push_str(text)
            }
            _ => self.current.push(Span::styled(text.to_string(), style)),
        }
    }

    fn prefix_len(&self) -> usize {
        if self.lines.is_empty() {
            self.first_prefix.len()
        } else {
            self.rest_prefix.len()
        }
    }

    fn end_line(&mut self) {
        let mut line = std::mem::replace(&mut self.current, self.rest_prefix.to_vec());
        if !self.has_content {
            trim_end(&mut line);
        }
        self.lines.push(Line::from(line));
        self.used = 0;
        self.has_content = false;
    }

    /// Places a word, breaking it between characters only when it is wider than a whole line.
    fn word(&mut self, pieces: &[(String, Style)], pending_space: Option<Style>) {
        let word_width: usize = pieces.iter().map(|(text, _)| width(text)).sum();
        let space = usize::from(pending_space.is_some() && self.has_content);
        if self.has_content && self.used + space + word_width > self.room() {
            self.end_line();
        } else if let (Some(style), true) = (pending_space, self.has_content) {
            self.push(" ", style);
        }
        if word_width <= self.room() - self.used.min(self.room()) {
            for (text, style) in pieces {
                self.push(text, *style);
            }
            return;
        }
        for (text, style) in pieces {
            for c in text.chars() {
                let w = char_width(c);
                if self.has_content && self.used + w > self.room() {
                    self.end_line();
                }
                let mut buf = [0; 4];
                self.push(c.encode_utf8(&mut buf), *style);
            }
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        if self.has_content || self.lines.is_empty() {
            self.end_line();
        }
        self.lines
    }
}

/// Word-wraps `spans` into lines of at most `width` columns (prefix included); the first line
/// starts with `first_prefix`, the others with `rest_prefix` (a hanging indent). Breaks at
/// spaces; a word wider than a whole line is broken between characters, never inside one. A
/// `\n` in the text is a hard break.
pub(crate) fn wrap(
    spans: &[Span<'_>],
    width: usize,
    first_prefix: &[Span<'static>],
    rest_prefix: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut builder = LineBuilder::new(width, first_prefix, rest_prefix);
    let mut pending_space = None;
    for token in tokenize(spans) {
        match token {
            Token::Word(pieces) => {
                builder.word(&pieces, pending_space.take());
            }
            Token::Space(style) => pending_space = Some(style),
            Token::Break => {
                builder.end_line();
                pending_space = None;
            }
        }
    }
    builder.finish()
}

/// Cuts one line of `spans` into lines of at most `width` columns between characters (spaces
/// are kept: this is for code, where they matter); the first line starts with `first_prefix`,
/// the others with `rest_prefix`.
pub(crate) fn break_chars(
    spans: &[Span<'_>],
    width: usize,
    first_prefix: &[Span<'static>],
    rest_prefix: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut builder = LineBuilder::new(width, first_prefix, rest_prefix);
    for span in spans {
        for c in span.content.chars() {
            let w = char_width(c);
            if builder.has_content && builder.used + w > builder.room() {
                builder.end_line();
            }
            let mut buf = [0; 4];
            builder.push(c.encode_utf8(&mut buf), span.style);
        }
    }
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::to_plain;
    use pretty_assertions::assert_eq;

    fn wrapped(text: &str, width: usize) -> String {
        to_plain(&wrap(&[Span::raw(text.to_string())], width, &[], &[]))
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        assert_eq!(
            wrapped("the quick brown fox jumps", 10),
            "the quick\nbrown fox\njumps\n"
        );
    }

    #[test]
    fn wrap_breaks_a_word_wider_than_the_line_between_characters() {
        assert_eq!(wrapped("abcdefghij xy", 4), "abcd\nefgh\nij\nxy\n");
    }

    #[test]
    fn wrap_never_splits_a_wide_character() {
        // Each of these takes two columns: three fit in 7, never half of one.
        let lines = wrap(&[Span::raw("日本語のテキスト")], 7, &[], &[]);
        assert_eq!(to_plain(&lines), "日本語\nのテキ\nスト\n");
        assert!(lines.iter().all(|line| line.width() <= 7));
    }

    #[test]
    fn wrap_keeps_a_hanging_indent() {
        let lines = wrap(
            &[Span::raw("one two three four")],
            9,
            &[Span::raw("• ")],
            &[Span::raw("  ")],
        );
        assert_eq!(to_plain(&lines), "• one two\n  three\n  four\n");
    }

    #[test]
    fn wrap_treats_newline_as_a_hard_break() {
        assert_eq!(wrapped("a\nb", 80), "a\nb\n");
    }

    #[test]
    fn wrap_keeps_a_word_made_of_several_styles_together() {
        let spans = [
            Span::raw("xx "),
            Span::styled("bold", Style::new().bold()),
            Span::raw("tail"),
        ];
        let lines = wrap(&spans, 9, &[], &[]);
        assert_eq!(to_plain(&lines), "xx\nboldtail\n");
    }

    #[test]
    fn break_chars_keeps_spaces_and_respects_the_width() {
        let lines = break_chars(&[Span::raw("let x =  1;")], 5, &[], &[]);
        assert_eq!(to_plain(&lines), "let x\n =  1\n;\n");
    }

    #[test]
    fn clip_ends_in_an_ellipsis_within_the_width() {
        assert_eq!(clip("cargo test --workspace", 10), "cargo tes…");
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("日本語のテキスト", 6), "日本…");
    }

    #[test]
    fn clean_line_expands_tabs_to_tab_stops_and_replaces_escapes() {
        assert_eq!(clean_line("a\tb\x1b[31m"), "a   b\u{FFFD}[31m");
    }
}
