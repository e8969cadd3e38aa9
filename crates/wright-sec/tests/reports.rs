//! The three reports of a real scan: JSON with its field order and summary, Markdown with its
//! overview and one section per issue (hostile names and evidence escaped), and SARIF 2.1.0
//! validated against the official schema (`tests/data/sarif-schema-2.1.0.json`).

// Helpers, not tests, so `allow-unwrap-in-tests` does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_sec::report::{json as json_report, markdown, sarif};
use wright_sec::{Finding, Issue, Language, Scan, ScanOptions, Severity, Summary};

/// A scan of a small tree: two Rust files with findings, one clean, one vendored.
fn scanned() -> (tempfile::TempDir, Scan) {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "src/ffi.rs",
        "pub fn first(p: *const i32) -> i32 {\n    unsafe { *p }\n}\n",
    );
    write(
        "src/io.rs",
        "fn f() {\n    let _ = std::fs::remove_file(\"x\");\n}\n",
    );
    write(
        "src/clean.rs",
        "pub fn add(a: u8, b: u8) -> u8 {\n    a.wrapping_add(b)\n}\n",
    );
    write("vendor/dep/lib.rs", "fn g() { unsafe { *q } }\n");
    let scan = wright_sec::scan(dir.path(), &ScanOptions::default(), &|_, _| {}).unwrap();
    (dir, scan)
}

fn issue(gid: usize, file: &str, line: u32, evidence: &str, confidence: f32) -> Issue {
    let finding = Finding {
        language: Language::Rust,
        category: "unsafe_usage".into(),
        pattern: "unsafe_block".into(),
        file: file.into(),
        line,
        evidence: evidence.into(),
        description: "unsafe code".into(),
        suggestion: "write a `// SAFETY:` comment".into(),
        confidence,
    };
    Issue {
        gid,
        severity: finding.severity(),
        finding,
    }
}

#[test]
fn the_scan_numbers_issues_by_file_then_line_and_skips_vendored_code() {
    let (_dir, scan) = scanned();
    let got: Vec<(usize, &str, u32, &str)> = scan
        .issues
        .iter()
        .map(|i| {
            (
                i.gid,
                i.finding.file.as_str(),
                i.finding.line,
                i.finding.pattern.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, "src/ffi.rs", 1, "raw_pointer"),
            (2, "src/ffi.rs", 2, "raw_pointer_deref"),
            (3, "src/ffi.rs", 2, "unsafe_block"),
            (4, "src/io.rs", 2, "ignored_result"),
        ]
    );
    assert_eq!(scan.summary.scanned_files, 3);
}

#[test]
fn the_json_report_has_issues_in_field_order_and_the_summary() {
    let (dir, scan) = scanned();
    let text = json_report::render(&scan.issues, &scan.summary).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = value["issues"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    // serde_json's map is sorted unless `preserve_order`; check the text's order instead.
    let first = text.find("\"gid\"").unwrap();
    let order: Vec<usize> = [
        "\"gid\"",
        "\"language\"",
        "\"category\"",
        "\"pattern\"",
        "\"file\"",
        "\"line\"",
        "\"evidence\"",
        "\"description\"",
        "\"suggestion\"",
        "\"confidence\"",
        "\"severity\"",
    ]
    .iter()
    .map(|k| text[first..].find(k).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert_eq!(keys.len(), 11);
    assert_eq!(
        value["issues"][2],
        json!({
            "gid": 3,
            "language": "rust",
            "category": "unsafe_usage",
            "pattern": "unsafe_block",
            "file": "src/ffi.rs",
            "line": 2,
            "evidence": "unsafe { *p }",
            "description": scan.issues[2].finding.description,
            "suggestion": scan.issues[2].finding.suggestion,
            "confidence": 0.85,
            "severity": "high",
        })
    );
    assert_eq!(
        value["summary"],
        json!({
            "total": 4,
            "by_language": {"rust": 4},
            "by_category": {"error_handling": 1, "unsafe_usage": 3},
            "top_risk_files": [
                {"file": "src/ffi.rs", "issues": 3},
                {"file": "src/io.rs", "issues": 1},
            ],
            "scanned_files": 3,
            "scanned_root": dir.path().display().to_string(),
        })
    );
}

#[test]
fn json_confidences_are_rounded_to_two_decimals() {
    let issues = [issue(1, "a.rs", 1, "x", 0.85 + 0.05 + 0.05)];
    let summary = Summary::of(&issues, 1, ".");
    let text = json_report::render(&issues, &summary).unwrap();
    assert!(text.contains("\"confidence\": 0.95,"), "{text}");
}

#[test]
fn the_markdown_report_has_the_overview_then_one_section_per_issue() {
    let (_dir, scan) = scanned();
    let text = markdown::render(&scan.issues, &scan.summary);
    assert!(text.starts_with("# wright sec report (direct scan)\n"));
    for needle in [
        "- Files scanned: 3\n",
        "- Issues: 4\n",
        "### By language\n\n| Language | Issues |\n| --- | ---: |\n| rust | 4 |\n",
        "| error\\_handling | 1 |\n| unsafe\\_usage | 3 |\n",
        "| src/ffi\\.rs | 3 |\n",
        "\n### [3] src/ffi\\.rs:2 (rust, unsafe\\_usage)\n\n- Pattern: `unsafe_block`\n- Evidence: `unsafe { *p }`\n",
        "- Confidence: 0.85\n- Severity: high\n",
        "### [4] src/io\\.rs:2 (rust, error\\_handling)",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert_eq!(text.matches("\n### [").count(), 4);
}

#[test]
fn hostile_file_names_and_evidence_cannot_break_the_markdown() {
    let issues = [issue(
        1,
        "x\n# pwned | <img src=x onerror=alert(1)>.rs",
        3,
        "a ``` b `` c\n## not a heading <script>",
        0.9,
    )];
    let summary = Summary::of(&issues, 1, "/r`oot");
    let text = markdown::render(&issues, &summary);
    // No line of the report starts a heading or HTML except the report's own.
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(
        headings,
        [
            "# wright sec report (direct scan)",
            "## Overview",
            "### By language",
            "### By category",
            "### Top risk files",
            "## Issues",
            "### [1] x \\# pwned \\| \\<img src\\=x onerror\\=alert\\(1\\)\\>\\.rs:3 (rust, unsafe\\_usage)",
        ]
    );
    assert!(
        text.contains("- Evidence: ````a ``` b `` c ## not a heading <script>````\n"),
        "{text}"
    );
    assert!(text.contains("- Root: ``/r`oot``\n"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with('<')));
}

fn sarif_validator() -> jsonschema::Validator {
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn assert_valid_sarif(text: &str) -> Value {
    let value: Value = serde_json::from_str(text).unwrap();
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "invalid SARIF: {errors:#?}\n{text}");
    value
}

#[test]
fn the_sarif_log_is_valid_against_the_official_schema() {
    let (dir, scan) = scanned();
    let root = dir.path().canonicalize().unwrap();
    let text = sarif::render(&scan.issues, Some(&root)).unwrap();
    let value = assert_valid_sarif(&text);
    assert_eq!(value["version"], "2.1.0");
    let run = &value["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "wright sec");
    let rules: Vec<(&str, &str)> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap(),
                r["defaultConfiguration"]["level"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            ("rust/raw_pointer", "note"),
            ("rust/raw_pointer_deref", "error"),
            ("rust/unsafe_block", "error"),
            ("rust/ignored_result", "warning"),
        ]
    );
    let result = &run["results"][2];
    assert_eq!(result["ruleId"], "rust/unsafe_block");
    assert_eq!(result["ruleIndex"], 2);
    assert_eq!(result["level"], "error");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"],
        json!({"uri": "src/ffi.rs", "uriBaseId": "%SRCROOT%"})
    );
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert_eq!(
        result["properties"],
        json!({"category": "unsafe_usage", "confidence": 0.85, "gid": 3, "severity": "high"})
    );
    assert_eq!(
        result["partialFingerprints"]["wrightSignature/v1"],
        sarif::fingerprint("rust|src/ffi.rs|2|unsafe_block")
    );
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
}

#[test]
fn an_empty_sarif_log_and_odd_file_names_are_valid_too() {
    assert_valid_sarif(&sarif::render(&[], None).unwrap());
    let issues = [issue(1, "dir with space/ü#1?.rs", 1, "", 0.1)];
    let value = assert_valid_sarif(&sarif::render(&issues, None).unwrap());
    assert_eq!(
        value["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "dir%20with%20space/%C3%BC%231%3F.rs"
    );
    assert_eq!(value["runs"][0]["results"][0]["level"], "note");
}

#[test]
fn severity_maps_to_sarif_levels() {
    assert_eq!(sarif::level(Severity::High), "error");
    assert_eq!(sarif::level(Severity::Medium), "warning");
    assert_eq!(sarif::level(Severity::Low), "note");
}

#[test]
fn the_schema_check_rejects_a_broken_log() {
    let (_dir, scan) = scanned();
    let mut value: Value =
        serde_json::from_str(&sarif::render(&scan.issues, None).unwrap()).unwrap();
    value["runs"][0]["results"][0]["level"] = json!("fatal");
    value["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    assert_eq!(sarif_validator().iter_errors(&value).count(), 2);
}
