//! The Markdown report (jarvis-sec's `format_markdown_report`, A7.3): a title with the root,
//! the files scanned and the total; overview tables by language, by category and of the files
//! most at risk; then one section per issue.
//!
//! Everything that comes from the scanned tree — file names, evidence — is escaped, so a
//! hostile file name or line cannot open a table, a heading, a link or raw HTML: text is
//! backslash-escaped, evidence sits in a code span whose backtick fence is longer than any run
//! of backticks inside it.

use std::fmt::Write as _;

use crate::finding::Issue;
use crate::report::{Summary, rounded};

/// The Markdown report of `issues` and `summary`.
pub fn render(issues: &[Issue], summary: &Summary) -> String {
    let mut out = String::new();
    out.push_str("# wright sec report (direct scan)\n\n");
    let _ = writeln!(out, "- Root: {}", code(&summary.scanned_root));
    let _ = writeln!(out, "- Files scanned: {}", summary.scanned_files);
    let _ = writeln!(out, "- Issues: {}", summary.total);
    out.push_str("\n## Overview\n\n### By language\n\n");
    table(
        &mut out,
        ["Language", "Issues"],
        summary.by_language.iter().map(|(k, v)| (k.as_str(), *v)),
    );
    out.push_str("\n### By category\n\n");
    table(
        &mut out,
        ["Category", "Issues"],
        summary.by_category.iter().map(|(k, v)| (k.as_str(), *v)),
    );
    out.push_str("\n### Top risk files\n\n");
    table(
        &mut out,
        ["File", "Issues"],
        summary
            .top_risk_files
            .iter()
            .map(|f| (f.file.as_str(), f.issues)),
    );
    out.push_str("\n## Issues\n");
    if issues.is_empty() {
        out.push_str("\nNo issues found.\n");
    }
    for issue in issues {
        let f = &issue.finding;
        let _ = writeln!(
            out,
            "\n### [{}] {}:{} ({}, {})\n",
            issue.gid,
            text(&f.file),
            f.line,
            f.language.name(),
            text(&f.category)
        );
        let _ = writeln!(out, "- Pattern: {}", code(&f.pattern));
        let _ = writeln!(out, "- Evidence: {}", code(&f.evidence));
        let _ = writeln!(out, "- Description: {}", prose(&f.description));
        let _ = writeln!(out, "- Suggestion: {}", prose(&f.suggestion));
        let _ = writeln!(out, "- Confidence: {:.2}", rounded(f.confidence));
        let _ = writeln!(out, "- Severity: {}", issue.severity.name());
    }
    out
}

/// A two-column table; `(none)` when there are no rows.
fn table<'a>(out: &mut String, head: [&str; 2], rows: impl Iterator<Item = (&'a str, usize)>) {
    let mut rows = rows.peekable();
    if rows.peek().is_none() {
        out.push_str("(none)\n");
        return;
    }
    let _ = writeln!(out, "| {} | {} |\n| --- | ---: |", head[0], head[1]);
    for (name, count) in rows {
        let _ = writeln!(out, "| {} | {count} |", text(name));
    }
}

/// The characters that mean something somewhere in (GitHub-flavoured) Markdown: emphasis,
/// code, links, headings, lists, tables, HTML, entities, autolinks.
const MARKDOWN_SPECIAL: &str = "\\`*_{}[]()<>#+-.!|~&=:";

/// Untrusted text on one line (line breaks as spaces, other control characters as U+FFFD),
/// with every character in [`MARKDOWN_SPECIAL`] backslash-escaped.
pub fn text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in one_line(raw).chars() {
        if MARKDOWN_SPECIAL.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Untrusted text as an inline code span: fenced by one more backtick than the longest run
/// inside, padded with spaces when it starts or ends with a backtick. Shown verbatim.
pub fn code(raw: &str) -> String {
    let raw = one_line(raw);
    if raw.is_empty() {
        return "(empty)".into();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in raw.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if raw.starts_with('`') || raw.ends_with('`') || raw.starts_with(' ') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{raw}{pad}{fence}")
}

/// A rule's own sentence (it may hold `code spans`), on one line, with `<` and `>` escaped so
/// that nothing in it reads as HTML.
fn prose(raw: &str) -> String {
    one_line(raw).replace('<', "\\<").replace('>', "\\>")
}

/// `raw` with line breaks and other control characters turned into spaces / U+FFFD.
fn one_line(raw: &str) -> String {
    raw.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn code_spans_outgrow_the_backticks_inside() {
        assert_eq!(code("strcpy(d, s);"), "`strcpy(d, s);`");
        assert_eq!(code("a ``b`` c"), "```a ``b`` c```");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("line\nbreak"), "`line break`");
    }

    #[test]
    fn text_escapes_markdown_punctuation_and_line_breaks() {
        assert_eq!(
            text("a|b*c_[d](e)\n# f"),
            "a\\|b\\*c\\_\\[d\\]\\(e\\) \\# f"
        );
        assert_eq!(text("<script>"), "\\<script\\>");
    }
}
