//! The Rust rules on their labelled fixtures (`tests/fixtures/rust/<pattern>/{bad,good}_N.rs`):
//! each flawed file yields its pattern, each fixed one nothing at medium or above; and the
//! rules on hand-made snippets, one behaviour per test.

// Helpers, not tests, so `allow-unwrap-in-tests` does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use wright_sec::scan::SourceFile;
use wright_sec::{Finding, Language, Severity};

/// Patterns whose flawed fixtures must be found at medium or above; the others (unwrap,
/// expect, raw pointer types) are low by design and only need to be found.
const MEDIUM_OR_ABOVE: &[&str] = &[
    "unsafe_block",
    "raw_pointer_deref",
    "transmute",
    "maybe_uninit",
    "extern_c",
    "unsafe_impl_send_sync",
    "ignored_result",
    "mem_forget",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust")
}

/// The findings in `text`, as if it were the file `path`.
fn check_at(path: &str, text: &str) -> Vec<Finding> {
    wright_sec::rust::check(&SourceFile {
        language: Language::Rust,
        path: path.into(),
        text: text.into(),
    })
}

fn check(text: &str) -> Vec<Finding> {
    check_at("src/lib.rs", text)
}

fn patterns(findings: &[Finding]) -> Vec<(u32, String)> {
    findings
        .iter()
        .map(|f| (f.line, f.pattern.clone()))
        .collect()
}

fn confidence_of(findings: &[Finding], pattern: &str) -> f32 {
    findings
        .iter()
        .find(|f| f.pattern == pattern)
        .map(|f| f.confidence)
        .unwrap_or_else(|| panic!("no {pattern} in {findings:#?}"))
}

/// Every fixture: `(pattern, file name, text)`.
fn fixture_files() -> Vec<(String, String, String)> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(fixtures()).unwrap() {
        let dir = dir.unwrap().path();
        let pattern = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            files.push((
                pattern.clone(),
                name,
                std::fs::read_to_string(&file).unwrap(),
            ));
        }
    }
    files.sort();
    files
}

#[test]
fn every_rust_rule_has_flawed_and_fixed_fixtures() {
    let files = fixture_files();
    for rule in wright_sec::rust::rules::RULES {
        let of = |prefix: &str| {
            files
                .iter()
                .filter(|(p, name, _)| p == rule.pattern && name.starts_with(prefix))
                .count()
        };
        assert!(of("bad_") >= 1, "no bad fixture for {}", rule.pattern);
        assert!(of("good_") >= 1, "no good fixture for {}", rule.pattern);
    }
}

#[test]
fn each_flawed_fixture_yields_its_pattern() {
    for (pattern, name, text) in fixture_files() {
        if !name.starts_with("bad_") {
            continue;
        }
        let findings = check_at(&format!("{pattern}/{name}"), &text);
        let hit = findings.iter().filter(|f| f.pattern == pattern);
        let best = hit.map(Finding::severity).max();
        assert!(
            best.is_some(),
            "{pattern}/{name}: nothing found: {findings:#?}"
        );
        if MEDIUM_OR_ABOVE.contains(&pattern.as_str()) {
            assert!(
                best >= Some(Severity::Medium),
                "{pattern}/{name}: found only at {best:?}: {findings:#?}"
            );
        }
    }
}

#[test]
fn no_fixed_fixture_yields_anything_at_medium_or_above() {
    for (pattern, name, text) in fixture_files() {
        if !name.starts_with("good_") {
            continue;
        }
        let findings = check_at(&format!("{pattern}/{name}"), &text);
        let loud: Vec<_> = findings
            .iter()
            .filter(|f| f.severity() >= Severity::Medium)
            .collect();
        assert!(loud.is_empty(), "{pattern}/{name}: {loud:#?}");
    }
}

#[test]
fn comments_strings_and_doc_examples_never_match() {
    let text = r#"
/// ```
/// let x = unsafe { std::mem::transmute::<f32, u32>(1.0) };
/// y.unwrap();
/// ```
pub fn f() -> &'static str {
    // unsafe { *p } and mem::forget(x) in a comment
    /* let _ = file.write_all(b); */
    "unsafe impl Send for X {} .unwrap() extern \"C\" {}"
}
"#;
    assert_eq!(patterns(&check(text)), []);
}

#[test]
fn an_unsafe_block_dereferencing_a_raw_pointer_without_safety_comment_is_high() {
    let findings = check("fn f(p: *const u8) -> u8 {\n    unsafe { *p }\n}\n");
    assert_eq!(confidence_of(&findings, "unsafe_block"), 0.85);
    assert_eq!(confidence_of(&findings, "raw_pointer_deref"), 0.8);
    assert_eq!(confidence_of(&findings, "raw_pointer"), 0.35);
}

#[test]
fn a_safety_comment_above_lowers_the_unsafe_findings() {
    let findings = check(
        "fn f(p: *const u8) -> u8 {\n    // SAFETY: p points into a live buffer\n    // (see the caller).\n    unsafe { *p }\n}\n",
    );
    assert_eq!(confidence_of(&findings, "unsafe_block"), 0.55);
    assert_eq!(confidence_of(&findings, "raw_pointer_deref"), 0.5);
}

#[test]
fn a_safety_comment_in_a_string_justifies_nothing() {
    let findings = check(
        "fn f(p: *const u8) -> u8 {\n    let s = \"// SAFETY: fine\";\n    unsafe { *p }\n}\n",
    );
    assert_eq!(confidence_of(&findings, "unsafe_block"), 0.85);
}

#[test]
fn a_null_check_before_the_dereference_lowers_it() {
    let findings = check(
        "fn f(p: *const u8) -> u8 {\n    if p.is_null() { return 0; }\n    unsafe { *p }\n}\n",
    );
    assert_eq!(confidence_of(&findings, "raw_pointer_deref"), 0.55);
}

#[test]
fn a_plain_unsafe_block_is_medium_and_one_with_unchecked_calls_high() {
    let plain = check("fn f() { unsafe { libc_call() } }\n");
    assert_eq!(confidence_of(&plain, "unsafe_block"), 0.6);
    let unchecked =
        check("fn f(v: &[u8]) -> &[u8] { unsafe { std::slice::from_raw_parts(v.as_ptr(), 9) } }\n");
    assert_eq!(confidence_of(&unchecked, "unsafe_block"), 0.85);
}

#[test]
fn test_code_is_lowered_by_attribute_and_by_path() {
    let text = "fn a() { x.unwrap(); }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn b() { y.unwrap(); }\n}\n#[test]\nfn c() { unsafe { *p } }\n";
    let findings = check(text);
    let unwraps: Vec<(u32, f32)> = findings
        .iter()
        .filter(|f| f.pattern == "unwrap")
        .map(|f| (f.line, f.confidence))
        .collect();
    assert_eq!(unwraps, [(1, 0.45), (5, 0.15)]);
    assert_eq!(confidence_of(&findings, "unsafe_block"), 0.3);
    let in_tests_dir = check_at("tests/it.rs", "fn a() { x.unwrap(); }\n");
    assert_eq!(confidence_of(&in_tests_dir, "unwrap"), 0.15);
    let test_module_file = check_at("src/parser/tests.rs", "fn a() { x.unwrap(); }\n");
    assert_eq!(confidence_of(&test_module_file, "unwrap"), 0.15);
    let inner = check("#![cfg(test)]\nfn a() { x.unwrap(); }\nfn b() { y.unwrap(); }\n");
    let lowered: Vec<f32> = inner.iter().map(|f| f.confidence).collect();
    assert_eq!(lowered, [0.15, 0.15]);
}

#[test]
fn unwrap_after_a_test_of_the_same_value_and_on_a_lock_is_lower() {
    let findings = check(
        "fn f(x: Option<u8>, m: &Mutex<u8>) {\n    if x.is_some() { x.unwrap(); }\n    m.lock().unwrap();\n    z.unwrap();\n}\n",
    );
    let got: Vec<(u32, f32)> = findings
        .iter()
        .filter(|f| f.pattern == "unwrap")
        .map(|f| (f.line, f.confidence))
        .collect();
    assert_eq!(got, [(2, 0.25), (3, 0.25), (4, 0.45)]);
}

#[test]
fn unwrap_and_expect_inside_macro_arguments_are_found() {
    let findings = check(
        "fn f() {\n    println!(\"{}\", a.unwrap());\n    assert!(b.expect(\"b\") > 0);\n}\n",
    );
    assert_eq!(
        patterns(&findings),
        [(2, "unwrap".into()), (3, "expect".into())]
    );
}

#[test]
fn unwrap_or_and_friends_are_not_unwrap() {
    let findings =
        check("fn f() { a.unwrap_or(1); b.unwrap_or_default(); c.expect_err(\"x\"); }\n");
    assert_eq!(patterns(&findings), []);
}

#[test]
fn ignored_results_of_io_calls_are_medium_and_others_low() {
    let findings = check(
        "fn f() {\n    let _ = file.sync_all();\n    let _ = tx.send(1);\n    w.flush().ok();\n    let _guard = lock();\n    let x = y.ok();\n}\n",
    );
    let got: Vec<(u32, f32)> = findings
        .iter()
        .filter(|f| f.pattern == "ignored_result")
        .map(|f| (f.line, f.confidence))
        .collect();
    assert_eq!(got, [(2, 0.65), (3, 0.45), (4, 0.65)]);
}

#[test]
fn unsafe_impl_send_and_sync_are_found_by_any_path() {
    let findings = check(
        "unsafe impl Send for A {}\nunsafe impl core::marker::Sync for B {}\nimpl Clone for C {}\nunsafe impl GlobalAlloc for D {}\n",
    );
    assert_eq!(
        patterns(&findings),
        [
            (1, "unsafe_impl_send_sync".into()),
            (2, "unsafe_impl_send_sync".into())
        ]
    );
}

#[test]
fn extern_blocks_are_low_and_extern_rust_is_not_ffi() {
    let findings =
        check("extern \"C\" {\n    fn abs(x: i32) -> i32;\n}\nextern \"Rust\" { fn g(); }\n");
    assert_eq!(patterns(&findings), [(1, "extern_c".into())]);
    assert_eq!(confidence_of(&findings, "extern_c"), 0.5);
}

#[test]
fn transmute_is_found_bare_qualified_and_with_turbofish() {
    let findings = check(
        "use std::mem::transmute;\nfn f() {\n    unsafe { transmute::<u32, f32>(1) };\n    unsafe { core::mem::transmute_copy(&x) };\n}\n",
    );
    let lines: Vec<u32> = findings
        .iter()
        .filter(|f| f.pattern == "transmute")
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, [3, 4]);
}

#[test]
fn each_finding_carries_its_line_as_evidence() {
    let findings = check("fn f() {\n        let _ = std::fs::remove_file(\"x\");\n}\n");
    assert_eq!(findings.len(), 1);
    let finding = &findings[0];
    assert_eq!(finding.evidence, "let _ = std::fs::remove_file(\"x\");");
    assert_eq!(finding.category, "error_handling");
    assert_eq!(finding.file, "src/lib.rs");
    assert_eq!(finding.language, Language::Rust);
}

#[test]
fn hostile_input_never_panics() {
    let deep_blocks = format!(
        "fn f() {{ {} x.unwrap(); {} }}",
        "{".repeat(50_000),
        "}".repeat(50_000)
    );
    let deep_parens = format!(
        "fn f() {{ let a = {}1{}; }}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let deep_unsafe = format!(
        "fn f() {{ {} *p {} }}",
        "unsafe {".repeat(5_000),
        "}".repeat(5_000)
    );
    let garbage: String = (0..200_000u32)
        .map(|i| char::from_u32(i % 0x2FF + 1).unwrap_or('?'))
        .collect();
    let lossy =
        String::from_utf8_lossy(&[0xff, 0xfe, b'u', b'n', b's', 0xc3, b'{', b'*']).into_owned();
    for text in [
        deep_blocks,
        deep_parens,
        deep_unsafe,
        garbage,
        lossy,
        "unsafe {".into(),
        "".into(),
    ] {
        let _ = check(&text);
    }
}

#[test]
fn the_rule_table_has_unique_patterns() {
    let mut names: Vec<&str> = wright_sec::rust::rules::RULES
        .iter()
        .map(|r| r.pattern)
        .collect();
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count);
}

#[test]
fn a_pointer_from_a_function_of_the_file_is_known_raw_in_any_order() {
    let findings = check(
        "fn read() -> u8 {\n    let p = unsafe { make() };\n    unsafe { *p }\n}\nextern \"C\" { fn make() -> *mut u8; }\n",
    );
    assert_eq!(confidence_of(&findings, "raw_pointer_deref"), 0.8);
}

#[test]
fn an_unsafe_extern_fn_using_a_pointer_unchecked_is_medium_not_high() {
    let safe = check("#[no_mangle]\npub extern \"C\" fn f(p: *const u8) -> u8 { unsafe { *p } }\n");
    assert_eq!(confidence_of(&safe, "extern_c"), 0.85);
    let callback = check("unsafe extern \"C\" fn cb(p: *const u8) -> u8 { unsafe { *p } }\n");
    assert_eq!(confidence_of(&callback, "extern_c"), 0.65);
}
