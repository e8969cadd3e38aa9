//! Small text helpers every crate needs and none should write again: cutting text to a number
//! of characters without splitting one, the first line worth showing, and counted nouns.
//!
//! Lengths here are in characters (Unicode scalar values), the unit of the spec's limits; the
//! terminal, which needs display columns, has its own width-aware cutting.

use std::borrow::Cow;
use std::fmt::Display;

/// The ellipsis [`clip`] ends a cut text with.
pub const ELLIPSIS: char = '…';

/// The first `max` characters of `text` (all of it when shorter), never splitting a character.
pub fn take_chars(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(cut, _)| &text[..cut])
}

/// The last `max` characters of `text` (all of it when shorter).
pub fn last_chars(text: &str, max: usize) -> &str {
    let skip = text.chars().count().saturating_sub(max);
    text.char_indices()
        .nth(skip)
        .map_or("", |(start, _)| &text[start..])
}

/// `text` cut to `max` characters with [`ELLIPSIS`] after them when anything was cut.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    let kept = take_chars(text, max);
    if kept.len() == text.len() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{kept}{ELLIPSIS}"))
    }
}

/// The first line of `text` that is not blank, trimmed; empty when there is none.
pub fn first_line(text: &str) -> &str {
    text.lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("")
        .trim()
}

/// `1 file`, `3 files`: `n` and the noun, with an `s` unless `n` is 1.
pub fn plural<N: Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `1 match`, `3 matches`: `n` and `one` or `many`, for nouns without a plain `s`.
pub fn count<N: Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    if n == N::from(1) {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `text` fit to write to a terminal: every control character but newline and tab is shown
/// escaped (`\x1b`, `\u{9b}`), so that text from a model or a file cannot move the cursor,
/// clear the screen, set the window title or write the clipboard (OSC 52).
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let is_hidden = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !is_hidden(c) => shown.push(c),
            c if u32::from(c) < 0x80 => shown.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => shown.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_but_newline_and_tab_are_shown_escaped() {
        assert!(matches!(escape_controls("plain\ttext\n"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("\u{1b}]52;c;ZWNobw==\u{7}x\u{9b}2J"),
            "\\x1b]52;c;ZWNobw==\\x07x\\u{9b}2J"
        );
    }
    use pretty_assertions::assert_eq;

    #[test]
    fn cutting_counts_characters_not_bytes() {
        assert_eq!(take_chars("héllo", 2), "hé");
        assert_eq!(take_chars("hé", 5), "hé");
        assert_eq!(last_chars("日本語です", 2), "です");
        assert_eq!(last_chars("ab", 5), "ab");
        assert_eq!(take_chars("", 3), "");
    }

    #[test]
    fn clip_marks_a_cut_and_borrows_what_fits() {
        assert_eq!(clip("日本語です", 3), "日本語…");
        assert!(matches!(clip("short", 5), Cow::Borrowed("short")));
    }

    #[test]
    fn the_first_line_skips_blank_ones() {
        assert_eq!(first_line("\n  \n  error: x  \nmore"), "error: x");
        assert_eq!(first_line(" \n"), "");
    }

    #[test]
    fn counts_take_the_plural_unless_one() {
        assert_eq!(plural(1u8, "file"), "1 file");
        assert_eq!(plural(0usize, "file"), "0 files");
        assert_eq!(count(3u32, "match", "matches"), "3 matches");
        assert_eq!(count(1u64, "match", "matches"), "1 match");
    }
}
