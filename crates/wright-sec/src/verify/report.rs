//! The verified report: the candidates the agents confirmed, with their reasons and a score,
//! and how many were rejected or could not be verified.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Cluster;
use super::verdict::Verdict;
use crate::finding::Issue;
use crate::report::TOP_RISK_FILES;
use crate::scan::Scan;

/// A confirmed issue: the scan's finding and the agent's reasons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifiedIssue {
    #[serde(flatten)]
    pub issue: Issue,
    pub preconditions: String,
    pub trigger_path: String,
    pub consequences: String,
    pub suggestions: String,
    /// confidence × the severity's weight (3, 2, 1), to two decimals.
    pub score: f32,
}

/// The counts a verified report opens with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifiedSummary {
    /// Confirmed issues.
    pub total: usize,
    pub by_language: BTreeMap<String, usize>,
    pub by_category: BTreeMap<String, usize>,
    /// The files with the highest summed score, at most ten.
    pub top_risk_files: Vec<(String, f32)>,
    pub scanned_files: usize,
    pub scanned_root: String,
    /// The direct scan's findings, all given to agents.
    pub candidates: usize,
    pub confirmed: usize,
    pub rejected: usize,
    /// In clusters whose agent failed: reported as the scan found them, unverified.
    pub unverified: usize,
    pub clusters: usize,
    pub clusters_failed: usize,
    /// Taken from the progress log of an earlier run (`--resume`), with no model call.
    pub clusters_resumed: usize,
    /// Every cluster failed: the report is the direct scan's.
    pub fallback: bool,
}

/// The verified report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifiedReport {
    pub issues: Vec<VerifiedIssue>,
    /// Candidates of failed clusters, as the scan found them.
    pub unverified: Vec<Issue>,
    pub summary: VerifiedSummary,
}

impl VerifiedReport {
    /// The report of `scan` whose clusters ended as `outcomes` says: `Some(verdicts)` for a
    /// cluster that finished, `None` for one that failed; `resumed` clusters came from the
    /// progress log.
    pub fn build(
        scan: &Scan,
        outcomes: &[(Cluster, Option<Vec<Verdict>>)],
        resumed: usize,
    ) -> Self {
        let mut issues = Vec::new();
        let mut unverified = Vec::new();
        let mut rejected = 0;
        let mut failed = 0;
        for (cluster, verdicts) in outcomes {
            let candidates = cluster
                .gids
                .iter()
                .filter_map(|gid| scan.issues.iter().find(|issue| issue.gid == *gid));
            let Some(verdicts) = verdicts else {
                failed += 1;
                unverified.extend(candidates.cloned());
                continue;
            };
            for issue in candidates {
                match verdicts.iter().find(|v| v.gid == issue.gid && v.has_risk) {
                    Some(verdict) => issues.push(VerifiedIssue {
                        issue: issue.clone(),
                        preconditions: verdict.preconditions.clone(),
                        trigger_path: verdict.trigger_path.clone(),
                        consequences: verdict.consequences.clone(),
                        suggestions: verdict.suggestions.clone(),
                        score: score(issue),
                    }),
                    None => rejected += 1,
                }
            }
        }
        issues.sort_by_key(|v| v.issue.gid);
        unverified.sort_by_key(|issue| issue.gid);
        let mut by_language = BTreeMap::new();
        let mut by_category = BTreeMap::new();
        let mut by_file: BTreeMap<&str, f32> = BTreeMap::new();
        for verified in &issues {
            let finding = &verified.issue.finding;
            *by_language
                .entry(finding.language.group().to_string())
                .or_insert(0) += 1;
            *by_category.entry(finding.category.clone()).or_insert(0) += 1;
            *by_file.entry(finding.file.as_str()).or_insert(0.0) += verified.score;
        }
        let mut top: Vec<(String, f32)> = by_file
            .into_iter()
            .map(|(file, score)| (file.to_string(), round2(score)))
            .collect();
        top.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(TOP_RISK_FILES);
        let summary = VerifiedSummary {
            total: issues.len(),
            by_language,
            by_category,
            top_risk_files: top,
            scanned_files: scan.summary.scanned_files,
            scanned_root: scan.summary.scanned_root.clone(),
            candidates: scan.issues.len(),
            confirmed: issues.len(),
            rejected,
            unverified: unverified.len(),
            clusters: outcomes.len(),
            clusters_failed: failed,
            clusters_resumed: resumed,
            fallback: !outcomes.is_empty() && failed == outcomes.len(),
        };
        VerifiedReport {
            issues,
            unverified,
            summary,
        }
    }
}

/// A confirmed issue's score: confidence × severity weight, to two decimals.
pub fn score(issue: &Issue) -> f32 {
    round2(issue.finding.confidence * issue.severity.weight())
}

fn round2(x: f32) -> f32 {
    (x * 100.0).round() / 100.0
}

/// Text for a Markdown table cell or a line: no line breaks, no `|`.
fn cell(text: &str) -> String {
    text.replace(['\n', '\r'], " ").replace('|', "\\|")
}

/// Text in a code span whatever backticks it holds.
fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let mut fence = "`".to_string();
    while text.contains(fence.as_str()) {
        fence.push('`');
    }
    format!("{fence} {text} {fence}")
}

/// The verified report as Markdown: the counts, then one section per confirmed issue, then
/// the unverified candidates.
pub fn verified_markdown(report: &VerifiedReport) -> String {
    let s = &report.summary;
    let mut md = String::from("# wright sec: verified security report\n\n");
    if s.fallback {
        md.push_str(
            "**Verification failed for every cluster: the issues below are the direct scan's, \
             unverified.**\n\n",
        );
    }
    md.push_str(&format!(
        "- Root: {}\n- Files scanned: {}\n- Candidates: {}\n- Confirmed: {}\n- Rejected: {}\n\
         - Unverified: {}\n- Clusters: {} ({} failed, {} resumed)\n\n",
        code(&s.scanned_root),
        s.scanned_files,
        s.candidates,
        s.confirmed,
        s.rejected,
        s.unverified,
        s.clusters,
        s.clusters_failed,
        s.clusters_resumed
    ));
    if !s.by_category.is_empty() {
        md.push_str("## Overview\n\n| Language | Confirmed |\n|---|---|\n");
        for (language, n) in &s.by_language {
            md.push_str(&format!("| {} | {n} |\n", cell(language)));
        }
        md.push_str("\n| Category | Confirmed |\n|---|---|\n");
        for (category, n) in &s.by_category {
            md.push_str(&format!("| {} | {n} |\n", cell(category)));
        }
        md.push_str("\n| File | Score |\n|---|---|\n");
        for (file, score) in &s.top_risk_files {
            md.push_str(&format!("| {} | {score:.2} |\n", cell(file)));
        }
        md.push('\n');
    }
    md.push_str("## Confirmed issues\n\n");
    if report.issues.is_empty() {
        md.push_str("None.\n\n");
    }
    for verified in &report.issues {
        let issue = &verified.issue;
        let f = &issue.finding;
        md.push_str(&format!(
            "### [{}] {}:{} ({}, {})\n\n- Pattern: {}\n- Evidence: {}\n- Description: {}\n\
             - Preconditions: {}\n- Trigger path: {}\n- Consequences: {}\n- Suggestions: {}\n\
             - Confidence: {:.2}\n- Severity: {}\n- Score: {:.2}\n\n",
            issue.gid,
            cell(&f.file),
            f.line,
            f.language.name(),
            cell(&f.category),
            code(&f.pattern),
            code(&f.evidence),
            cell(&f.description),
            cell(&verified.preconditions),
            cell(&verified.trigger_path),
            cell(&verified.consequences),
            cell(&verified.suggestions),
            f.confidence,
            issue.severity.name(),
            verified.score
        ));
    }
    if !report.unverified.is_empty() {
        md.push_str("## Unverified candidates\n\n");
        for issue in &report.unverified {
            let f = &issue.finding;
            md.push_str(&format!(
                "- [{}] {}:{} ({}, {}): {} — {}\n",
                issue.gid,
                cell(&f.file),
                f.line,
                cell(&f.category),
                cell(&f.pattern),
                code(&f.evidence),
                cell(&f.description)
            ));
        }
        md.push('\n');
    }
    md
}

#[cfg(test)]
mod tests {
    use super::super::{clusters, tests::issue};
    use super::*;
    use crate::report::Summary;
    use pretty_assertions::assert_eq;

    fn scan(issues: Vec<Issue>) -> Scan {
        let summary = Summary::of(&issues, 2, "/p");
        Scan {
            issues,
            summary,
            skipped: Vec::new(),
        }
    }

    fn verdict(gid: usize, has_risk: bool) -> Verdict {
        Verdict {
            gid,
            has_risk,
            preconditions: "input longer than 16 bytes".into(),
            trigger_path: "main → copy".into(),
            consequences: "stack overflow".into(),
            suggestions: "bound it".into(),
        }
    }

    #[test]
    fn confirmed_rejected_and_unverified_are_counted_and_scored() {
        let scan = scan(vec![
            issue(1, "a.c", 1),
            issue(2, "a.c", 2),
            issue(3, "b.c", 3),
        ]);
        let clusters = clusters(&scan.issues, 50);
        let outcomes = vec![
            (
                clusters[0].clone(),
                Some(vec![verdict(1, true), verdict(2, false)]),
            ),
            (clusters[1].clone(), None),
        ];
        let report = VerifiedReport::build(&scan, &outcomes, 1);
        assert_eq!(report.issues.len(), 1);
        assert_eq!(report.issues[0].issue.gid, 1);
        // 0.9 × 3 (high).
        assert_eq!(report.issues[0].score, 2.7);
        let s = &report.summary;
        assert_eq!(
            (
                s.confirmed,
                s.rejected,
                s.unverified,
                s.clusters_failed,
                s.clusters_resumed
            ),
            (1, 1, 1, 1, 1)
        );
        assert!(!s.fallback);
        assert_eq!(s.top_risk_files, vec![("a.c".to_string(), 2.7)]);
        let md = verified_markdown(&report);
        assert!(md.contains("### [1] a.c:1 (c, unsafe_api)"), "{md}");
        assert!(md.contains("- Trigger path: main → copy"), "{md}");
        assert!(
            md.contains("## Unverified candidates\n\n- [3] b.c:3"),
            "{md}"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["issues"][0]["gid"], 1);
        assert_eq!(json["issues"][0]["trigger_path"], "main → copy");
        assert_eq!(json["issues"][0]["severity"], "high");
    }

    #[test]
    fn every_cluster_failing_is_a_fallback() {
        let scan = scan(vec![issue(1, "a.c", 1)]);
        let outcomes = vec![(clusters(&scan.issues, 50)[0].clone(), None)];
        let report = VerifiedReport::build(&scan, &outcomes, 0);
        assert!(report.summary.fallback);
        assert!(verified_markdown(&report).contains("Verification failed for every cluster"));
    }

    #[test]
    fn hostile_text_cannot_break_the_markdown() {
        let mut hostile = issue(1, "a.c", 1);
        hostile.finding.evidence = "x` ``\n# injected".into();
        let scan = scan(vec![hostile]);
        let mut v = verdict(1, true);
        v.trigger_path = "a\n## not a heading | cell".into();
        let outcomes = vec![(clusters(&scan.issues, 50)[0].clone(), Some(vec![v]))];
        let md = verified_markdown(&VerifiedReport::build(&scan, &outcomes, 0));
        assert!(!md.contains("\n# injected"), "{md}");
        assert!(!md.contains("\n## not a heading"), "{md}");
        assert!(md.contains("``` x` `` # injected ```"), "{md}");
    }
}
