//! The scan's reports: the summary (jarvis-sec's A7.3), JSON ([`json`]), Markdown
//! ([`markdown`]) and SARIF 2.1.0 ([`sarif`]).

pub mod json;
pub mod markdown;
pub mod sarif;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::finding::Issue;

/// A confidence as reports show it: two decimals (0.95, not 0.95000005).
pub fn rounded(confidence: f32) -> f32 {
    (confidence * 100.0).round() / 100.0
}

/// How many files `top_risk_files` names.
pub const TOP_RISK_FILES: usize = 10;

/// The counts a report opens with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub total: usize,
    /// By `c/cpp` and `rust`.
    pub by_language: BTreeMap<String, usize>,
    pub by_category: BTreeMap<String, usize>,
    /// The files with the most issues (at most [`TOP_RISK_FILES`]), most first.
    pub top_risk_files: Vec<RiskFile>,
    pub scanned_files: usize,
    pub scanned_root: String,
}

/// A file and how many issues it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RiskFile {
    pub file: String,
    pub issues: usize,
}

impl Summary {
    /// The summary of `issues`, found in `scanned_files` files under `scanned_root`.
    pub fn of(issues: &[Issue], scanned_files: usize, scanned_root: &str) -> Summary {
        let mut by_language = BTreeMap::new();
        let mut by_category = BTreeMap::new();
        let mut by_file: BTreeMap<&str, usize> = BTreeMap::new();
        for issue in issues {
            *by_language
                .entry(issue.finding.language.group().to_string())
                .or_insert(0) += 1;
            *by_category
                .entry(issue.finding.category.clone())
                .or_insert(0) += 1;
            *by_file.entry(issue.finding.file.as_str()).or_insert(0) += 1;
        }
        let mut files: Vec<RiskFile> = by_file
            .into_iter()
            .map(|(file, issues)| RiskFile {
                file: file.to_string(),
                issues,
            })
            .collect();
        // Most issues first; the same count by name.
        files.sort_by(|a, b| b.issues.cmp(&a.issues).then_with(|| a.file.cmp(&b.file)));
        files.truncate(TOP_RISK_FILES);
        Summary {
            total: issues.len(),
            by_language,
            by_category,
            top_risk_files: files,
            scanned_files,
            scanned_root: scanned_root.to_string(),
        }
    }
}
