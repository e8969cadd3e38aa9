//! The JSON report: `{"issues": [Issue…], "summary": Summary}` (jarvis-sec's A7.5), each issue
//! `{gid, language, category, pattern, file, line, evidence, description, suggestion,
//! confidence, severity}` in that order, confidences to two decimals.

use serde::Serialize;

use crate::finding::Issue;
use crate::report::{Summary, rounded};

/// The report as serialised.
#[derive(Debug, Serialize)]
struct Report<'a> {
    issues: Vec<Issue>,
    summary: &'a Summary,
}

/// The JSON report of `issues` and `summary`, pretty-printed, ending with a newline.
pub fn render(issues: &[Issue], summary: &Summary) -> Result<String, serde_json::Error> {
    let issues = issues
        .iter()
        .map(|issue| {
            let mut issue = issue.clone();
            issue.finding.confidence = rounded(issue.finding.confidence);
            issue
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&Report { issues, summary })?;
    text.push('\n');
    Ok(text)
}
