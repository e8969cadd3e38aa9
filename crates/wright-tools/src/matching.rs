//! Finding an edit's `old_string` in a file: exactly first, then down a ladder of tolerances.
//!
//! Models copy `old_string` from what they read, and they lose trailing spaces, get the
//! indentation wrong, or "fix" typographic quotes. Like codex's `seek_sequence`, each rung
//! compares whole lines a little more loosely than the one before:
//!
//! 1. [`Rung::TrailingWhitespace`]: trailing whitespace on each line is ignored;
//! 2. [`Rung::Indentation`]: leading whitespace too, and `new_string` is re-indented by the
//!    difference so the replacement keeps the file's indentation;
//! 3. [`Rung::UnicodePunctuation`]: typographic quotes, dashes and non-breaking spaces count as
//!    their ASCII forms.
//!
//! A rung is used only when it finds exactly one place; several places are an ambiguity the
//! model must resolve, never a guess.

use std::borrow::Cow;
use std::ops::Range;

/// How loosely `old_string` was matched, strictest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rung {
    /// Byte for byte.
    Exact,
    /// Line by line, ignoring trailing whitespace.
    TrailingWhitespace,
    /// Line by line, ignoring leading and trailing whitespace.
    Indentation,
    /// Line by line, ignoring surrounding whitespace and Unicode quote/dash/space variants.
    UnicodePunctuation,
}

impl Rung {
    /// The tolerant rungs, tried in this order when there is no exact match.
    const FALLBACKS: [Rung; 3] = [
        Rung::TrailingWhitespace,
        Rung::Indentation,
        Rung::UnicodePunctuation,
    ];

    /// The name reported as the result's `fallback`; `None` for an exact match.
    pub(crate) fn fallback_name(self) -> Option<&'static str> {
        match self {
            Rung::Exact => None,
            Rung::TrailingWhitespace => Some("trailing_whitespace"),
            Rung::Indentation => Some("indentation"),
            Rung::UnicodePunctuation => Some("unicode_punctuation"),
        }
    }

    /// How the rung matched, for messages: "ignoring trailing whitespace".
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Rung::Exact => "exactly",
            Rung::TrailingWhitespace => "ignoring trailing whitespace",
            Rung::Indentation => "ignoring indentation",
            Rung::UnicodePunctuation => "ignoring indentation and Unicode quotes/dashes",
        }
    }

    /// One line as this rung compares it.
    fn normalise(self, line: &str) -> Cow<'_, str> {
        match self {
            Rung::Exact => Cow::Borrowed(line),
            Rung::TrailingWhitespace => Cow::Borrowed(line.trim_end()),
            Rung::Indentation => Cow::Borrowed(line.trim()),
            Rung::UnicodePunctuation => ascii_punctuation(line.trim()),
        }
    }
}

/// The outcome of one successful replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replaced {
    /// The whole text after the replacement.
    pub(crate) text: String,
    /// How many places were replaced.
    pub(crate) replacements: usize,
    /// The rung that matched.
    pub(crate) rung: Rung,
}

/// Why `old_string` could not be replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MatchError {
    /// No rung found it.
    NoMatch,
    /// The first rung that found it found it in several places, starting on these 1-based lines.
    Ambiguous { rung: Rung, lines: Vec<usize> },
}

/// Replaces `old` by `new` in `text`, exactly or by the first tolerant rung with one match.
///
/// `old` and `new` must already use the file's line endings. `replace_all` replaces every
/// exact match; tolerant rungs never replace more than one place.
pub(crate) fn replace(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, MatchError> {
    let exact: Vec<Range<usize>> = text
        .match_indices(old)
        .map(|(start, found)| start..start + found.len())
        .collect();
    match exact.len() {
        0 => {}
        1 => return Ok(splice(text, &exact, new, Rung::Exact)),
        _ if replace_all => return Ok(splice(text, &exact, new, Rung::Exact)),
        _ => {
            let starts: Vec<usize> = exact.iter().map(|r| r.start).collect();
            return Err(MatchError::Ambiguous {
                rung: Rung::Exact,
                lines: line_numbers(text, &starts),
            });
        }
    }
    let lines = Lines::of(text);
    let pattern = Pattern::of(old);
    for rung in Rung::FALLBACKS {
        let found = pattern.find(&lines, rung);
        match found.as_slice() {
            [] => {}
            [first] => {
                let region = pattern.region(&lines, *first);
                let to = lines.indent(first + pattern.first_non_blank());
                let new = reindent(new, pattern.indent(), to);
                return Ok(splice(text, &[region], &new, rung));
            }
            many => {
                return Err(MatchError::Ambiguous {
                    rung,
                    lines: many.iter().map(|i| i + 1).collect(),
                });
            }
        }
    }
    Err(MatchError::NoMatch)
}

/// `text` with each of the ascending, disjoint `ranges` replaced by `new`.
fn splice(text: &str, ranges: &[Range<usize>], new: &str, rung: Rung) -> Replaced {
    let mut out = String::with_capacity(text.len() + ranges.len() * new.len());
    let mut at = 0;
    for range in ranges {
        out.push_str(&text[at..range.start]);
        out.push_str(new);
        at = range.end;
    }
    out.push_str(&text[at..]);
    Replaced {
        text: out,
        replacements: ranges.len(),
        rung,
    }
}

/// The 1-based line of each ascending byte offset in `text`.
pub(crate) fn line_numbers(text: &str, offsets: &[usize]) -> Vec<usize> {
    let mut line = 1;
    let mut at = 0;
    offsets
        .iter()
        .map(|&offset| {
            line += text.as_bytes()[at..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            at = offset;
            line
        })
        .collect()
}

/// The file's lines as byte ranges.
struct Lines<'a> {
    text: &'a str,
    /// Per line: its content (without `\n`; a `\r` before it stays, the rungs trim it) and the
    /// end of its terminator.
    spans: Vec<(Range<usize>, usize)>,
}

impl<'a> Lines<'a> {
    fn of(text: &'a str) -> Self {
        let mut spans = Vec::new();
        let mut start = 0;
        for piece in text.split_inclusive('\n') {
            let next = start + piece.len();
            let content_end = if piece.ends_with('\n') {
                next - 1
            } else {
                next
            };
            spans.push((start..content_end, next));
            start = next;
        }
        Self { text, spans }
    }

    fn line(&self, index: usize) -> &'a str {
        let text = self.text;
        self.spans.get(index).map_or("", |(r, _)| &text[r.clone()])
    }

    /// The indentation of line `index`.
    fn indent(&self, index: usize) -> &'a str {
        leading_whitespace(self.line(index))
    }
}

/// `old_string` split into lines for the tolerant rungs.
struct Pattern<'a> {
    lines: Vec<&'a str>,
    /// `old_string` ended with a newline: the match takes the last line's terminator too.
    ends_with_newline: bool,
}

impl<'a> Pattern<'a> {
    fn of(old: &'a str) -> Self {
        let body = old.strip_suffix('\n');
        Self {
            lines: body.unwrap_or(old).split('\n').collect(),
            ends_with_newline: body.is_some(),
        }
    }

    /// The first file line of every place where the pattern matches at `rung`.
    fn find(&self, lines: &Lines<'_>, rung: Rung) -> Vec<usize> {
        let wanted: Vec<Cow<'_, str>> = self.lines.iter().map(|l| rung.normalise(l)).collect();
        // Blank lines match blank lines anywhere: such a pattern says nothing about the place.
        if wanted.iter().all(|l| l.is_empty()) || wanted.len() > lines.spans.len() {
            return Vec::new();
        }
        let have: Vec<Cow<'_, str>> = (0..lines.spans.len())
            .map(|i| rung.normalise(lines.line(i)))
            .collect();
        (0..=have.len() - wanted.len())
            .filter(|&i| have[i..i + wanted.len()] == wanted[..])
            .collect()
    }

    /// The bytes the pattern covers when it matches from line `first`.
    fn region(&self, lines: &Lines<'_>, first: usize) -> Range<usize> {
        let last = first + self.lines.len() - 1;
        let start = lines.spans.get(first).map_or(0, |(r, _)| r.start);
        let end = lines.spans.get(last).map_or(start, |(r, next)| {
            if self.ends_with_newline {
                *next
            } else {
                // Keep the `\r` of a CRLF line: the pattern's own line ends without one.
                let line = &lines.text[r.clone()];
                r.start + line.strip_suffix('\r').unwrap_or(line).len()
            }
        });
        start..end
    }

    fn first_non_blank(&self) -> usize {
        self.lines
            .iter()
            .position(|l| !l.trim().is_empty())
            .unwrap_or(0)
    }

    /// The indentation of the pattern's first non-blank line.
    fn indent(&self) -> &'a str {
        leading_whitespace(
            self.lines
                .get(self.first_non_blank())
                .copied()
                .unwrap_or(""),
        )
    }
}

fn leading_whitespace(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// `new` re-indented by the difference between `from` (the indentation `old_string` had) and
/// `to` (the indentation the file has at the matched place). Blank lines are left alone.
fn reindent<'a>(new: &'a str, from: &str, to: &str) -> Cow<'a, str> {
    if from == to {
        return Cow::Borrowed(new);
    }
    let shift = |line: &str| -> String {
        if line.trim().is_empty() {
            line.to_string()
        } else if let Some(extra) = to.strip_prefix(from) {
            format!("{extra}{line}")
        } else if let Some(surplus) = from.strip_prefix(to) {
            // Remove up to the surplus' length of leading whitespace, whole characters only
            // (the whitespace may be multi-byte, e.g. U+200A).
            let strip = leading_whitespace(line)
                .char_indices()
                .map(|(at, c)| at + c.len_utf8())
                .take_while(|&end| end <= surplus.len())
                .last()
                .unwrap_or(0);
            line[strip..].to_string()
        } else if let Some(rest) = line.strip_prefix(from) {
            // Tabs against spaces: swap the common prefix.
            format!("{to}{rest}")
        } else {
            line.to_string()
        }
    };
    Cow::Owned(new.split('\n').map(shift).collect::<Vec<_>>().join("\n"))
}

/// `text` with typographic quotes, dashes and non-breaking spaces replaced by ASCII.
fn ascii_punctuation(text: &str) -> Cow<'_, str> {
    let ascii = |c: char| match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2007}' | '\u{202F}' => ' ',
        other => other,
    };
    if text.chars().all(|c| ascii(c) == c) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().map(ascii).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn replaced(text: &str, old: &str, new: &str) -> (String, Rung) {
        let r = replace(text, old, new, false).unwrap();
        (r.text, r.rung)
    }

    #[test]
    fn reindenting_over_multibyte_whitespace_cuts_whole_characters() {
        // Found by fuzzing: the new text's indentation is a 3-byte hair space (U+200A), and
        // the surplus to remove is 1 byte; slicing at byte 1 panicked.
        assert_eq!(reindent(" a\n\u{200a}b", "  ", " "), "a\n\u{200a}b");
        assert_eq!(reindent("\u{200a}\u{200a}b", "    ", ""), "\u{200a}b");
    }

    #[test]
    fn exact_match_replaces_inside_a_line() {
        assert_eq!(
            replaced("let x = 1;\n", "x = 1", "x = 2"),
            ("let x = 2;\n".to_string(), Rung::Exact)
        );
    }

    #[test]
    fn several_exact_matches_are_ambiguous_with_their_lines() {
        let text = "a\nfoo\nb\nfoo\n";
        assert_eq!(
            replace(text, "foo", "bar", false),
            Err(MatchError::Ambiguous {
                rung: Rung::Exact,
                lines: vec![2, 4]
            })
        );
        let all = replace(text, "foo", "bar", true).unwrap();
        assert_eq!(
            (all.text.as_str(), all.replacements),
            ("a\nbar\nb\nbar\n", 2)
        );
    }

    #[test]
    fn rung_trailing_whitespace_ignores_spaces_at_line_ends() {
        let text = "fn a() {  \n    x();\t\n}\n";
        assert_eq!(
            replaced(text, "fn a() {\n    x();\n}\n", "fn a() {\n    y();\n}\n"),
            (
                "fn a() {\n    y();\n}\n".to_string(),
                Rung::TrailingWhitespace
            )
        );
    }

    #[test]
    fn rung_indentation_reindents_new_string_to_the_file() {
        let text = "impl A {\n        fn a() {\n            x();\n        }\n}\n";
        let old = "fn a() {\n    x();\n}";
        let new = "fn a() {\n    y();\n\n    z();\n}";
        assert_eq!(
            replaced(text, old, new),
            (
                "impl A {\n        fn a() {\n            y();\n\n            z();\n        }\n}\n"
                    .to_string(),
                Rung::Indentation
            )
        );
    }

    #[test]
    fn rung_indentation_can_also_remove_indentation() {
        let text = "fn a() {\n  x();\n}\n";
        let (out, rung) = replaced(text, "      x();", "      y();\n      z();");
        assert_eq!(rung, Rung::Indentation);
        assert_eq!(out, "fn a() {\n  y();\n  z();\n}\n");
    }

    #[test]
    fn rung_unicode_punctuation_equates_typographic_and_ascii_forms() {
        let text = "say(\u{201C}it\u{2019}s\u{201D});\n// a \u{2013} b\u{00A0}c\n";
        let (out, rung) = replaced(
            text,
            "say(\"it's\");\n// a - b c",
            "say(\"it is\");\n// a - b c",
        );
        assert_eq!(rung, Rung::UnicodePunctuation);
        assert_eq!(out, "say(\"it is\");\n// a - b c\n");
    }

    #[test]
    fn a_tolerant_rung_with_several_matches_is_ambiguous() {
        let text = "x();  \ny();\nx();\t\n";
        assert_eq!(
            replace(text, "x(); \n", "z();\n", true),
            Err(MatchError::Ambiguous {
                rung: Rung::TrailingWhitespace,
                lines: vec![1, 3]
            })
        );
    }

    #[test]
    fn nothing_close_is_no_match() {
        assert_eq!(replace("a\nb\n", "c", "d", false), Err(MatchError::NoMatch));
    }

    #[test]
    fn a_blank_pattern_never_matches_loosely() {
        assert_eq!(
            replace("a\n\nb\n", "  \n", "x", false),
            Err(MatchError::NoMatch)
        );
    }

    #[test]
    fn crlf_lines_keep_their_endings_under_a_tolerant_rung() {
        let text = "a  \r\nb\r\nc\r\n";
        let (out, rung) = replaced(text, "a\r\nb", "x\r\ny");
        assert_eq!(rung, Rung::TrailingWhitespace);
        assert_eq!(out, "x\r\ny\r\nc\r\n");
    }

    #[test]
    fn line_numbers_count_from_one() {
        assert_eq!(line_numbers("a\nb\nc", &[0, 2, 4]), vec![1, 2, 3]);
    }
}
