//! Syntax highlighting of code blocks: syntect with bat's syntaxes and themes (two-face).

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme as SyntectTheme};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;
use two_face::theme::EmbeddedThemeName;

use super::text::clean_piece;

/// The colour scheme for code: dark, like most terminals, and with enough contrast for the
/// sixteen-colour names used everywhere else.
const CODE_THEME: EmbeddedThemeName = EmbeddedThemeName::Base16OceanDark;

/// Fence tokens that name a language by neither a file extension nor a syntax name.
const LANGUAGE_ALIASES: &[(&str, &str)] = &[
    ("shell", "sh"),
    ("console", "sh"),
    ("zsh", "sh"),
    ("shellsession", "sh"),
    ("jsonc", "json"),
    ("text", "txt"),
    ("plaintext", "txt"),
];

/// bat's syntaxes; loading them takes about 2 ms, so it happens once.
fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(two_face::syntax::extra_newlines)
}

fn theme() -> &'static SyntectTheme {
    static THEME: OnceLock<SyntectTheme> = OnceLock::new();
    THEME.get_or_init(|| two_face::theme::extra().get(CODE_THEME).clone())
}

/// The language named by a fence's info string (`rust`, `rust,ignore`, `{.python}`, `sh
/// title="x"`): its first word, without attribute punctuation.
pub(crate) fn language_token(info: &str) -> &str {
    info.split(|c: char| c.is_whitespace() || c == ',')
        .next()
        .unwrap_or("")
        .trim_matches(|c| matches!(c, '{' | '}' | '.'))
}

fn find_syntax(language: &str) -> &'static SyntaxReference {
    let set = syntaxes();
    let token = LANGUAGE_ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(language))
        .map_or(language, |(_, name)| name);
    (!token.is_empty())
        .then(|| set.find_syntax_by_token(token))
        .flatten()
        .unwrap_or_else(|| set.find_syntax_plain_text())
}

/// `code`, one entry per line, coloured as `language` (plain text when the language is
/// unknown or empty). Lines keep their indentation; tabs are expanded and control characters
/// replaced. Background colours are left to the terminal.
pub(crate) fn highlight(code: &str, language: &str) -> Vec<Vec<Span<'static>>> {
    let mut highlighter = HighlightLines::new(find_syntax(language), theme());
    let mut lines = Vec::new();
    for line in LinesWithEndings::from(code) {
        let mut column = 0;
        let spans = match highlighter.highlight_line(line, syntaxes()) {
            Ok(pieces) => pieces
                .into_iter()
                .map(|(style, text)| Span::styled(clean_piece(text, &mut column), convert(style)))
                .filter(|span| !span.content.is_empty())
                .collect(),
            // A grammar that fails on this line (a regex limit): show it uncoloured.
            Err(_) => vec![Span::raw(clean_piece(line, &mut column))],
        };
        lines.push(spans);
    }
    lines
}

/// `code` one entry per line, without colour.
pub(crate) fn plain(code: &str) -> Vec<Vec<Span<'static>>> {
    code.lines()
        .map(|line| vec![Span::raw(clean_piece(line, &mut 0))])
        .collect()
}

/// A syntect style as a ratatui one: the foreground and the font style.
fn convert(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b));
    for (font, modifier) in [
        (FontStyle::BOLD, Modifier::BOLD),
        (FontStyle::ITALIC, Modifier::ITALIC),
        (FontStyle::UNDERLINE, Modifier::UNDERLINED),
    ] {
        if style.font_style.contains(font) {
            out = out.add_modifier(modifier);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn text(lines: &[Vec<Span<'_>>]) -> Vec<String> {
        lines
            .iter()
            .map(|spans| spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn language_token_is_the_first_word_of_the_info_string() {
        assert_eq!(language_token("rust,ignore"), "rust");
        assert_eq!(language_token("sh title=\"x\""), "sh");
        assert_eq!(language_token("{.python}"), "python");
        assert_eq!(language_token(""), "");
    }

    #[test]
    fn known_languages_get_several_colours() {
        let lines = highlight("fn main() {}\n", "rust");
        let colours: std::collections::HashSet<_> = lines[0].iter().map(|s| s.style.fg).collect();
        assert!(colours.len() > 1, "{lines:?}");
    }

    #[test]
    fn unknown_languages_are_plain_text_with_the_text_intact() {
        let lines = highlight("a\tb\nc", "no-such-language");
        assert_eq!(text(&lines), ["a   b", "c"]);
    }

    #[test]
    fn aliases_find_the_shell_syntax() {
        assert_eq!(find_syntax("console").name, find_syntax("sh").name);
        assert_ne!(find_syntax("sh").name, "Plain Text");
    }
}
