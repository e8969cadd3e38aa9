//! What an edit changed: the unified diff, its size, and the changed line ranges of the new file.

use std::time::Duration;

use similar::{DiffTag, TextDiff};

/// Lines of context around each change in the diff, as `diff -u` and git show them.
const CONTEXT_RADIUS: usize = 3;
/// Past this the diff algorithm settles for a coarser (still correct) diff: huge rewrites must
/// not stall the tool.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);
/// Changed ranges named in the summary line; `data` keeps all of them.
const MAX_LISTED_RANGES: usize = 10;
/// Lines of the diff shown in the observation text; `data` keeps all of it.
pub(crate) const MAX_TEXT_DIFF_LINES: usize = 200;

/// The diff between a file's old and new content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiffReport {
    /// Unified diff with `a/<path>` and `b/<path>` headers.
    pub(crate) diff: String,
    /// Lines in `diff`.
    pub(crate) diff_lines: usize,
    /// Lines added and removed.
    pub(crate) added: usize,
    pub(crate) removed: usize,
    /// Changed lines of the new file, 1-based inclusive `[start, end]`, ascending and merged. A
    /// pure deletion is reported as the line just before it.
    pub(crate) changed_ranges: Vec<[usize; 2]>,
}

impl DiffReport {
    /// Compares `old` and `new` (both with `\n` line endings) of the file shown as `path`.
    pub(crate) fn new(old: &str, new: &str, path: &str) -> Self {
        let diff = TextDiff::configure()
            .timeout(DIFF_TIMEOUT)
            .diff_lines(old, new);
        let (mut added, mut removed) = (0, 0);
        let mut ranges: Vec<[usize; 2]> = Vec::new();
        let new_len = diff.new_len();
        for op in diff.ops() {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                continue;
            }
            removed += old_range.len();
            added += new_range.len();
            let range = if new_range.is_empty() {
                let line = new_range.start.clamp(1, new_len.max(1));
                [line, line]
            } else {
                [new_range.start + 1, new_range.end]
            };
            match ranges.last_mut() {
                Some(last) if range[0] <= last[1] + 1 => last[1] = last[1].max(range[1]),
                _ => ranges.push(range),
            }
        }
        if new_len == 0 {
            ranges.clear();
        }
        let diff = diff
            .unified_diff()
            .context_radius(CONTEXT_RADIUS)
            .header(&format!("a/{path}"), &format!("b/{path}"))
            .to_string();
        Self {
            diff_lines: diff.lines().count(),
            diff,
            added,
            removed,
            changed_ranges: ranges,
        }
    }

    /// The diff for the observation text: at most [`MAX_TEXT_DIFF_LINES`] lines, then a marker
    /// saying how many were left out.
    pub(crate) fn capped(&self) -> String {
        if self.diff_lines <= MAX_TEXT_DIFF_LINES {
            return self.diff.trim_end().to_string();
        }
        let shown: Vec<&str> = self.diff.lines().take(MAX_TEXT_DIFF_LINES).collect();
        format!(
            "{}\n… [diff truncated: {} more lines; Read the file to see the result]",
            shown.join("\n"),
            self.diff_lines - MAX_TEXT_DIFF_LINES
        )
    }

    /// `lines 10-14, 30 changed` (empty when nothing is left of the file).
    pub(crate) fn describe_ranges(&self) -> String {
        let mut ranges: Vec<String> = self
            .changed_ranges
            .iter()
            .take(MAX_LISTED_RANGES)
            .map(|[start, end]| match start == end {
                true => start.to_string(),
                false => format!("{start}-{end}"),
            })
            .collect();
        let more = self.changed_ranges.len().saturating_sub(MAX_LISTED_RANGES);
        if more > 0 {
            ranges.push(format!("and {more} more places"));
        }
        match ranges.as_slice() {
            [] => String::new(),
            [one] if !one.contains('-') => format!("line {one} changed"),
            _ => format!("lines {} changed", ranges.join(", ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_replaced_line_is_a_one_line_range_with_a_unified_diff() {
        let report = DiffReport::new("a\nb\nc\n", "a\nB\nc\n", "x.txt");
        assert_eq!(
            report,
            DiffReport {
                diff: "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n".into(),
                diff_lines: 7,
                added: 1,
                removed: 1,
                changed_ranges: vec![[2, 2]],
            }
        );
        assert_eq!(report.describe_ranges(), "line 2 changed");
    }

    #[test]
    fn ranges_are_in_new_file_lines_and_deletions_point_before_them() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "1\nx\ny\n2\n3\n4\n5\n6\n7\n8\n10\n";
        let report = DiffReport::new(old, new, "n");
        assert_eq!(report.changed_ranges, vec![[2, 3], [10, 10]]);
        assert_eq!(report.describe_ranges(), "lines 2-3, 10 changed");
        assert_eq!((report.added, report.removed), (2, 1));
    }

    #[test]
    fn many_ranges_are_cut_in_the_summary() {
        let old: String = (0..30).map(|n| format!("{n}\n\n")).collect();
        let new = old.replace('1', "x");
        let report = DiffReport::new(&old, &new, "n");
        assert_eq!(
            report.describe_ranges(),
            "lines 3, 21, 23, 25, 27, 29, 31, 33, 35, 37, and 2 more places changed"
        );
    }

    #[test]
    fn a_long_diff_is_capped_in_the_text() {
        let old: String = (0..500).map(|n| format!("{n}\n")).collect();
        let new: String = (0..500).map(|n| format!("{n}!\n")).collect();
        let report = DiffReport::new(&old, &new, "n");
        let capped = report.capped();
        assert_eq!(capped.lines().count(), MAX_TEXT_DIFF_LINES + 1);
        assert!(
            capped.ends_with("Read the file to see the result]"),
            "{capped}"
        );
    }
}
