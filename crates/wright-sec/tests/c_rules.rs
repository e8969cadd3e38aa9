//! The C/C++ rules on the labelled fixtures: every `bad_N` file (first line
//! `expect: pattern …`) must yield each pattern it names — at medium severity or above,
//! except for the rules that are low by design — and every `good_N` file (first line
//! `fixed: pattern …`) must yield none of the patterns it names at medium or above.
//! Prints detection and false-alarm rates per family.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wright_sec::finding::{Finding, Language, Severity};
use wright_sec::scan::{SourceFile, check};

/// Rules whose findings are low severity by design (the seed's table says so).
const LOW_RULES: &[&str] = &["inet_legacy", "time_api_not_threadsafe"];

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/c");
    let mut files = Vec::new();
    for family in std::fs::read_dir(&root).unwrap() {
        let family = family.unwrap().path();
        for file in std::fs::read_dir(&family).unwrap() {
            files.push(file.unwrap().path());
        }
    }
    files.sort();
    files
}

/// The patterns the fixture's first line names after `label:`.
fn labelled(text: &str, label: &str) -> Vec<String> {
    let first = text.lines().next().unwrap_or("");
    let (_, rest) = first.split_once(label).unwrap_or(("", ""));
    rest.trim_end_matches("*/")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn findings(path: &Path) -> (String, Vec<Finding>) {
    let text = std::fs::read_to_string(path).unwrap();
    let file = SourceFile {
        language: Language::of_path(path).unwrap(),
        path: path.file_name().unwrap().to_string_lossy().into_owned(),
        text: text.clone(),
    };
    (text, check(&file))
}

fn shown(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| {
            format!(
                "  {}:{} {} ({:.2})",
                f.file, f.line, f.pattern, f.confidence
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Default)]
struct Rates {
    bad: usize,
    detected: usize,
    good: usize,
    false_alarms: usize,
    any_medium_in_good: usize,
}

#[test]
fn every_fixture_gets_what_its_label_says() {
    let mut failures = Vec::new();
    let mut families: BTreeMap<String, Rates> = BTreeMap::new();
    for path in fixtures() {
        let family = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (text, found) = findings(&path);
        println!("{family}/{name}\n{}", shown(&found));
        let rates = families.entry(family.clone()).or_default();
        if name.starts_with("bad") {
            rates.bad += 1;
            let expected = labelled(&text, "expect:");
            assert!(!expected.is_empty(), "{family}/{name} names no pattern");
            let missing: Vec<&String> = expected
                .iter()
                .filter(|p| {
                    !found.iter().any(|f| {
                        &f.pattern == *p
                            && (LOW_RULES.contains(&p.as_str()) || f.severity() >= Severity::Medium)
                    })
                })
                .collect();
            if missing.is_empty() {
                rates.detected += 1;
            } else {
                failures.push(format!(
                    "{family}/{name}: missing {missing:?}; found:\n{}",
                    shown(&found)
                ));
            }
        } else {
            rates.good += 1;
            let fixed = labelled(&text, "fixed:");
            let alarms: Vec<&Finding> = found
                .iter()
                .filter(|f| fixed.contains(&f.pattern) && f.severity() >= Severity::Medium)
                .collect();
            if found.iter().any(|f| f.severity() >= Severity::Medium) {
                rates.any_medium_in_good += 1;
            }
            if !alarms.is_empty() {
                rates.false_alarms += 1;
                failures.push(format!(
                    "{family}/{name}: false alarm; found:\n{}",
                    shown(&found)
                ));
            }
        }
    }
    println!(
        "{:<18} {:>9} {:>12} {:>22}",
        "family", "detected", "false alarm", "any ≥ medium in good"
    );
    let mut total = Rates::default();
    for (family, r) in &families {
        println!(
            "{family:<18} {:>4}/{:<4} {:>7}/{:<4} {:>12}/{:<4}",
            r.detected, r.bad, r.false_alarms, r.good, r.any_medium_in_good, r.good
        );
        total.bad += r.bad;
        total.detected += r.detected;
        total.good += r.good;
        total.false_alarms += r.false_alarms;
        total.any_medium_in_good += r.any_medium_in_good;
    }
    println!(
        "{:<18} {:>4}/{:<4} {:>7}/{:<4} {:>12}/{:<4}",
        "total",
        total.detected,
        total.bad,
        total.false_alarms,
        total.good,
        total.any_medium_in_good,
        total.good
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
