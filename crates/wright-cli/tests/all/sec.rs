//! `wright sec scan`: the real binary on a temporary tree of C and Rust files — one line per
//! issue or the JSON, Markdown and SARIF reports, vendored and ignored directories skipped,
//! exit 0 (nothing at or above --min-severity), 1 (something) or 2 (usage error).

use crate::common::{Project, Run};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// A raw pointer dereferenced with no SAFETY comment: high.
const UNSAFE_DEREF: &str = "pub fn first(p: *const i32) -> i32 {\n    unsafe { *p }\n}\n";
/// Only an unwrap: low.
const UNWRAP_ONLY: &str = "pub fn port(s: &str) -> u16 {\n    s.parse().unwrap()\n}\n";
/// Nothing to say.
const CLEAN_RUST: &str = "pub fn add(a: u8, b: u8) -> u8 {\n    a.wrapping_add(b)\n}\n";
/// C that the C rules may or may not flag; these tests only count it as scanned.
const SOME_C: &str = "#include <string.h>\nvoid f(char *d, const char *s) { strcpy(d, s); }\n";

/// `wright sec scan ARGS`, low findings included unless ARGS set `--min-severity`.
fn sec(project: &Project, args: &[&str]) -> Run {
    let mut command = project.bare_command();
    command.args(["sec", "scan"]).args(args);
    if !args.contains(&"--min-severity") {
        command.args(["--min-severity", "low"]);
    }
    Run::from(command.output().unwrap())
}

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn sec_scan_prints_one_line_per_issue_and_exits_1() {
    let project = Project::new();
    project.write("src/ffi.rs", UNSAFE_DEREF);
    project.write("src/clean.rs", CLEAN_RUST);
    let run = sec(&project, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", run.stdout);
    assert!(
        lines[0].starts_with("src/ffi.rs:1: low unsafe_usage/raw_pointer: "),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("src/ffi.rs:2: high unsafe_usage/raw_pointer_deref: "),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("src/ffi.rs:2: high unsafe_usage/unsafe_block: "));
    assert!(
        lines[3].starts_with("wright sec: 2 files scanned in ")
            && lines[3].ends_with(": 3 issues (2 high, 0 medium, 1 low)"),
        "{}",
        lines[3]
    );
}

#[test]
fn sec_scan_of_a_clean_tree_exits_0() {
    let project = Project::new();
    project.write("src/lib.rs", CLEAN_RUST);
    let run = sec(&project, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.ends_with(": 0 issues\n"), "{}", run.stdout);
}

#[test]
fn sec_scan_min_severity_filters_the_issues_and_sets_the_exit_status() {
    let project = Project::new();
    project.write("src/lib.rs", UNWRAP_ONLY);
    let low = sec(&project, &[]);
    assert_eq!(low.code, Some(1), "{}", low.stderr);
    assert!(
        low.stdout
            .contains("src/lib.rs:2: low error_handling/unwrap: ")
    );
    let medium = sec(&project, &["--min-severity", "medium", "--json", "-"]);
    assert_eq!(medium.code, Some(0), "{}", medium.stderr);
    let report = json_of(&medium);
    assert_eq!(report["issues"], serde_json::json!([]));
    assert_eq!(report["summary"]["total"], 0);
    // Medium is the default: low findings are hints, asked for.
    let default = Run::from(
        project
            .bare_command()
            .args(["sec", "scan"])
            .output()
            .unwrap(),
    );
    assert_eq!(default.code, Some(0), "{}", default.stderr);
    assert!(
        default.stdout.ends_with(": 0 issues\n"),
        "{}",
        default.stdout
    );
}

#[test]
fn sec_scan_skips_vendored_generated_and_ignored_directories() {
    let project = Project::new();
    project.write("src/lib.rs", UNWRAP_ONLY);
    project.write("src/native.c", SOME_C);
    for dir in [
        "vendor/dep",
        "third_party/x",
        "target/debug",
        "node_modules/m",
        "build",
        "generated",
    ] {
        project.write(&format!("{dir}/bad.rs"), UNSAFE_DEREF);
        project.write(&format!("{dir}/bad.c"), SOME_C);
    }
    project.write(".gitignore", "generated/\n");
    let run = sec(&project, &["--json", "-"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let report = json_of(&run);
    assert_eq!(report["summary"]["scanned_files"], 2);
    let files: Vec<&str> = report["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap())
        .collect();
    assert!(files.iter().all(|f| f.starts_with("src/")), "{files:?}");
}

#[test]
fn sec_scan_lang_chooses_the_files_read() {
    let project = Project::new();
    project.write("a.rs", UNSAFE_DEREF);
    project.write("b.c", SOME_C);
    project.write("c.cpp", SOME_C);
    project.write("d.h", SOME_C);
    let scanned = |lang: &str| {
        let run = sec(&project, &["--lang", lang, "--json", "-"]);
        json_of(&run)["summary"]["scanned_files"].as_u64().unwrap()
    };
    assert_eq!(scanned("rust"), 1);
    assert_eq!(scanned("c"), 2);
    assert_eq!(scanned("c,cpp"), 3);
    assert_eq!(scanned("c,cpp,rust"), 4);
    let rust_only = sec(&project, &["--lang", "rust", "--json", "-"]);
    assert!(
        json_of(&rust_only)["issues"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["language"] == "rust")
    );
}

#[test]
fn sec_scan_writes_the_three_reports_and_each_parses() {
    let project = Project::new();
    project.write("src/ffi.rs", UNSAFE_DEREF);
    project.write("src/native.c", SOME_C);
    let run = sec(
        &project,
        &[
            "--json",
            "out/report.json",
            "--md",
            "out/report.md",
            "--sarif",
            "out/report.sarif",
        ],
    );
    // The reports' directory does not exist: a usage error, nothing half written.
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot write out/report.json"),
        "{}",
        run.stderr
    );
    std::fs::create_dir(project.path().join("out")).unwrap();
    let run = sec(
        &project,
        &[
            "--json",
            "out/report.json",
            "--md",
            "out/report.md",
            "--sarif",
            "out/report.sarif",
        ],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("wright sec: 2 files scanned in "),
        "{}",
        run.stderr
    );
    let read = |name: &str| std::fs::read_to_string(project.path().join(name)).unwrap();
    let report: Value = serde_json::from_str(&read("out/report.json")).unwrap();
    let total = report["summary"]["total"].as_u64().unwrap();
    assert!(total >= 3, "{report:#}");
    assert_eq!(report["issues"][0]["gid"], 1);
    let markdown = read("out/report.md");
    assert!(markdown.starts_with("# wright sec report (direct scan)\n"));
    assert_eq!(markdown.matches("\n### [").count() as u64, total);
    let sarif: Value = serde_json::from_str(&read("out/report.sarif")).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["runs"][0]["results"].as_array().unwrap().len() as u64,
        total
    );
    let uri =
        &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(uri["uriBaseId"], "%SRCROOT%");
}

#[test]
fn sec_scan_usage_errors_exit_2() {
    let project = Project::new();
    project.write("src/lib.rs", UNSAFE_DEREF);
    for args in [
        &["--lang", "go"][..],
        &["--min-severity", "urgent"],
        &["does/not/exist"],
        &["--json", "-", "--md", "-"],
        &["--bogus"],
    ] {
        let run = sec(&project, args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

#[test]
fn sec_scan_takes_a_path_and_one_file() {
    let project = Project::new();
    project.write("src/ffi.rs", UNSAFE_DEREF);
    project.write("other/lib.rs", UNWRAP_ONLY);
    let run = sec(&project, &["other", "--json", "-"]);
    let report = json_of(&run);
    assert_eq!(report["summary"]["scanned_files"], 1);
    assert_eq!(report["issues"][0]["file"], "lib.rs");
    let run = sec(&project, &["src/ffi.rs", "--sarif", "-"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
    let base = sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(base.ends_with("/src/"), "{base}");
}

/// The C rules and the Rust rules in one report.
#[test]
fn sec_scan_reports_c_issues_with_the_rust_ones() {
    let project = Project::new();
    project.write("src/ffi.rs", UNSAFE_DEREF);
    project.write("src/native.c", SOME_C);
    let run = sec(&project, &["--json", "-"]);
    let report = json_of(&run);
    assert_eq!(
        report["summary"]["by_language"]["c/cpp"]
            .as_u64()
            .map(|n| n >= 1),
        Some(true)
    );
    assert!(
        report["issues"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["file"] == "src/native.c" && i["pattern"] == "strcpy"),
        "{report:#}"
    );
}
