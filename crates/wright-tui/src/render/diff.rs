//! Unified diffs as coloured lines: additions green, removals red, hunk headers cyan, file
//! headers bold.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::Theme;
use super::palette::{ADDED, BOLD, DIM, REMOVED};
use super::text::clean_line;

const HUNK_HEADER: Style = Style::new().fg(Color::Cyan);

/// How lines that start file headers in `git diff` output begin.
const FILE_HEADERS: &[&str] = &[
    "diff ",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "dissimilarity index",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "Binary files",
];

/// Lines of the current hunk not seen yet, from its `@@ -a,b +c,d @@` header. Counting them is
/// what tells a removed line `--- x` from the `--- a/file` header of the next file.
#[derive(Debug, Default)]
struct HunkLeft {
    old: usize,
    new: usize,
}

impl HunkLeft {
    fn is_open(&self) -> bool {
        self.old > 0 || self.new > 0
    }

    /// The counts of a hunk header; when they cannot be read, the hunk runs until a line that
    /// is not part of any hunk.
    fn parse(header: &str) -> HunkLeft {
        let count = |marker: char| -> Option<usize> {
            let range = header
                .split_whitespace()
                .find_map(|word| word.strip_prefix(marker))?;
            match range.split_once(',') {
                Some((_, count)) => count.parse().ok(),
                None => range.parse::<usize>().ok().map(|_| 1),
            }
        };
        match (count('-'), count('+')) {
            (Some(old), Some(new)) => HunkLeft { old, new },
            _ => HunkLeft {
                old: usize::MAX,
                new: usize::MAX,
            },
        }
    }
}

/// Renders a unified diff (as `git diff` or `diff -u` print it), one line per line; tabs are
/// expanded and control characters replaced.
pub fn diff(unified: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut hunk = HunkLeft::default();
    let lines = unified
        .lines()
        .map(|raw| {
            let style = classify(raw, &mut hunk);
            Line::from(Span::styled(clean_line(raw), style))
        })
        .collect();
    theme.finish(lines)
}

/// The style of one diff line, keeping count of where the current hunk ends.
fn classify(line: &str, hunk: &mut HunkLeft) -> Style {
    if hunk.is_open() {
        match line.chars().next() {
            Some('+') => {
                hunk.new = hunk.new.saturating_sub(1);
                return ADDED;
            }
            Some('-') => {
                hunk.old = hunk.old.saturating_sub(1);
                return REMOVED;
            }
            // Some tools strip the space that starts an empty context line.
            Some(' ') | None => {
                hunk.old = hunk.old.saturating_sub(1);
                hunk.new = hunk.new.saturating_sub(1);
                return Style::default();
            }
            Some('\\') => return DIM,
            // A line that belongs to no hunk: the counts were wrong.
            Some(_) => *hunk = HunkLeft::default(),
        }
    }
    if line.starts_with("@@") {
        *hunk = HunkLeft::parse(line);
        HUNK_HEADER
    } else if FILE_HEADERS.iter().any(|header| line.starts_with(header)) {
        BOLD
    } else if line.starts_with('\\') {
        DIM
    } else {
        Style::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn styles(unified: &str) -> Vec<Style> {
        diff(unified, &Theme::COLOR)
            .iter()
            .map(|line| line.spans[0].style)
            .collect()
    }

    #[test]
    fn a_removed_line_that_looks_like_a_header_is_still_a_removal() {
        let unified = "--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n--- old\n keep\n";
        assert_eq!(
            styles(unified),
            [BOLD, BOLD, HUNK_HEADER, REMOVED, Style::default()]
        );
    }

    #[test]
    fn the_next_file_header_after_a_hunk_is_bold() {
        let unified = "@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n";
        assert_eq!(styles(unified), [HUNK_HEADER, REMOVED, ADDED, BOLD, BOLD]);
    }

    #[test]
    fn hunk_counts_default_to_one() {
        let unified = "@@ -3 +3,2 @@\n-a\n+b\n+c\n";
        assert_eq!(styles(unified), [HUNK_HEADER, REMOVED, ADDED, ADDED]);
    }

    #[test]
    fn no_newline_marker_is_dim() {
        let unified = "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n";
        assert_eq!(styles(unified), [HUNK_HEADER, REMOVED, DIM, ADDED]);
    }
}
