//! The SARIF 2.1.0 report, for GitHub code scanning and IDEs: one run whose driver is
//! `wright sec`, one rule per pattern (`rust/unwrap`, `c/strcpy`), one result per issue with
//! its level (high → error, medium → warning, low → note), location (relative to
//! `%SRCROOT%`), `properties {category, confidence, gid}` and a fingerprint of its signature.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::finding::{Issue, Severity};
use crate::report::rounded;

/// The schema the log names (the OASIS standard's, errata 01).
pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The base id locations are relative to.
pub const SRCROOT: &str = "%SRCROOT%";
/// The key of the one partial fingerprint each result carries.
pub const FINGERPRINT_KEY: &str = "wrightSignature/v1";

#[derive(Debug, Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run; 1],
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_uri_base_ids: Option<BTreeMap<&'static str, ArtifactLocation>>,
    results: Vec<SarifResult>,
}

#[derive(Debug, Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'static str>,
    version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: String,
    short_description: Message,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Debug, Serialize)]
struct RuleProperties {
    category: String,
}

#[derive(Debug, Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Debug, Serialize)]
struct Message {
    text: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: [Location; 1],
    partial_fingerprints: BTreeMap<&'static str, String>,
    properties: ResultProperties,
}

#[derive(Debug, Serialize)]
struct ResultProperties {
    category: String,
    confidence: f32,
    gid: usize,
    severity: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    snippet: Message,
}

/// The SARIF level of a severity.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

/// The rule id of an issue: its language family and pattern, `rust/unwrap`, `c/strcpy`.
pub fn rule_id(issue: &Issue) -> String {
    let family = match issue.finding.language {
        crate::Language::Rust => "rust",
        crate::Language::C | crate::Language::Cpp => "c",
    };
    format!("{family}/{}", issue.finding.pattern)
}

/// The SARIF log of `issues`. `src_root`, an absolute directory, becomes `%SRCROOT%` (the
/// issues' files are relative to it); without it, readers resolve the paths themselves.
pub fn render(issues: &[Issue], src_root: Option<&Path>) -> Result<String, serde_json::Error> {
    let mut rules: Vec<Rule> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut results = Vec::with_capacity(issues.len());
    for issue in issues {
        let f = &issue.finding;
        let id = rule_id(issue);
        let rule_index = match index.get(&id) {
            Some(i) => {
                if let Some(rule) = rules.get_mut(*i) {
                    // A rule's default level: the highest its results reach.
                    if level_rank(rule.default_configuration.level)
                        < level_rank(level(issue.severity))
                    {
                        rule.default_configuration.level = level(issue.severity);
                    }
                }
                *i
            }
            None => {
                rules.push(Rule {
                    id: id.clone(),
                    name: f.pattern.clone(),
                    short_description: Message {
                        text: rule_description(issue),
                    },
                    default_configuration: Configuration {
                        level: level(issue.severity),
                    },
                    properties: RuleProperties {
                        category: f.category.clone(),
                    },
                });
                index.insert(id.clone(), rules.len() - 1);
                rules.len() - 1
            }
        };
        results.push(SarifResult {
            rule_id: id,
            rule_index,
            level: level(issue.severity),
            message: Message {
                text: format!("{}. Suggestion: {}", f.description, f.suggestion),
            },
            locations: [Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation {
                        uri: uri_path(&f.file),
                        uri_base_id: Some(SRCROOT),
                    },
                    region: Region {
                        start_line: f.line.max(1),
                        snippet: Message {
                            text: f.evidence.clone(),
                        },
                    },
                },
            }],
            partial_fingerprints: BTreeMap::from([(FINGERPRINT_KEY, fingerprint(&f.signature()))]),
            properties: ResultProperties {
                category: f.category.clone(),
                confidence: rounded(f.confidence),
                gid: issue.gid,
                severity: issue.severity.name(),
            },
        });
    }
    let original_uri_base_ids = src_root.filter(|p| p.is_absolute()).map(|root| {
        BTreeMap::from([(
            SRCROOT,
            ArtifactLocation {
                uri: file_uri(root),
                uri_base_id: None,
            },
        )])
    });
    let repository = env!("CARGO_PKG_REPOSITORY");
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "wright sec",
                    information_uri: (!repository.is_empty()).then_some(repository),
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            original_uri_base_ids,
            results,
        }],
    };
    let mut text = serde_json::to_string_pretty(&log)?;
    text.push('\n');
    Ok(text)
}

fn level_rank(level: &str) -> u8 {
    match level {
        "error" => 2,
        "warning" => 1,
        _ => 0,
    }
}

/// A rule's description: the Rust rule table's where it has one (issues may carry a sharper
/// sentence of their own), else the first issue's.
fn rule_description(issue: &Issue) -> String {
    crate::rust::rules::RULES
        .iter()
        .find(|r| {
            issue.finding.language == crate::Language::Rust && r.pattern == issue.finding.pattern
        })
        .map_or_else(
            || issue.finding.description.clone(),
            |r| r.description.to_string(),
        )
}

/// A 64-bit FNV-1a hash of `text`, as 16 hex digits: stable across runs and platforms.
pub fn fingerprint(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// A relative path as a URI reference: each byte outside the unreserved set and `/`
/// percent-encoded (spaces, `#`, `?`, `%`, non-ASCII).
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `file:///abs/dir/` for an absolute directory (the trailing slash makes it a base).
fn file_uri(dir: &Path) -> String {
    let path = dir.to_string_lossy().replace('\\', "/");
    let path = path.trim_end_matches('/');
    let lead = if path.starts_with('/') { "" } else { "/" };
    format!("file://{lead}{}/", uri_path(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_path("src/a b#1%.rs"), "src/a%20b%231%25.rs");
        assert_eq!(uri_path("é.c"), "%C3%A9.c");
        assert_eq!(file_uri(Path::new("/w/x y")), "file:///w/x%20y/");
    }

    #[test]
    fn fingerprints_are_stable_hex() {
        assert_eq!(fingerprint(""), "cbf29ce484222325");
        assert_eq!(fingerprint("rust|a.rs|1|unwrap").len(), 16);
        assert_ne!(
            fingerprint("rust|a.rs|1|unwrap"),
            fingerprint("rust|a.rs|2|unwrap")
        );
    }
}
