//! The history form of tool results (spec A3, C1): one rule per tool, the default rule, the
//! fields that are always kept or always dropped, and the tight tier (DESIGN §9.3).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolResult, ToolStatus};
use wright_tools::{
    CompressionLevel, cap_read_content, compress, compress_to_string, compress_to_string_with,
    compress_with,
};

/// A successful result as the registry returns it: full text, stats and context included.
fn success(data: Value) -> ToolResult {
    let mut result = ToolResult::success("FULL-OBSERVATION-TEXT", data);
    result.stats = json!({"duration_ms": 12345});
    result.context = json!({"CONTEXT-ARGUMENT": true});
    result
}

/// The compressed `data` of a successful result.
fn data(tool: &str, raw: Value) -> Value {
    compress(tool, &success(raw))["data"].clone()
}

fn tight(tool: &str, raw: Value) -> Value {
    compress_with(tool, &success(raw), CompressionLevel::Tight)["data"].clone()
}

fn lines(value: &Value) -> Vec<&str> {
    value.as_str().unwrap().lines().collect()
}

fn read_data(total: usize) -> Value {
    let content: Vec<String> = (1..=total)
        .map(|n| format!("{n:>6}\tline number {n}"))
        .collect();
    json!({
        "file_path": "src/big.rs", "offset": 1, "limit": 2000, "lines_shown": total,
        "total_lines": total, "content": content.join("\n"), "mtime": 1_700_000_000.5,
        "truncated": false, "long_lines_cut": 0, "modified_externally": false,
    })
}

fn grep_content(matches: usize) -> Value {
    let items: Vec<Value> = (1..=matches)
        .map(|n| json!({"file": format!("src/f{}.rs", n % 4), "line": n * 10, "text": format!("fn main() {{ {n} }}")}))
        .collect();
    json!({"pattern": "fn main", "mode": "content", "matches": items,
           "total_matches": matches, "total_files": 4, "truncated": false})
}

fn diff_data(diff_lines: usize) -> Value {
    let mut diff = String::from("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,150 +1,148 @@\n");
    for n in 3..diff_lines {
        diff.push_str(&format!("{}line {n}\n", if n % 2 == 0 { '+' } else { '-' }));
    }
    json!({
        "file_path": "src/lib.rs", "replacements": 1, "fallback": null, "applied": true,
        "changed_ranges": [[1, 150]], "diff": diff, "diff_lines": diff_lines,
        "added": 200, "removed": 140,
    })
}

fn bash_data(stdout_lines: usize, stderr_lines: usize) -> Value {
    let stdout: String = (1..=stdout_lines).map(|n| format!("out-{n}\n")).collect();
    let stderr: String = (1..=stderr_lines).map(|n| format!("err-{n}\n")).collect();
    json!({
        "command": "cargo test", "exit_code": 101, "signal": null,
        "stdout_chars": stdout.len(), "stderr_chars": stderr.len(),
        "stdout": stdout, "stderr": stderr, "timed_out": false,
    })
}

/// One realistic `data` per tool, for the tests that run over every tool.
fn samples() -> Vec<(&'static str, Value)> {
    let entries: Vec<Value> = (0..30)
        .map(|n| json!({"name": format!("e{n:02}"), "kind": if n < 3 { "dir" } else { "file" }, "size": 10}))
        .collect();
    let files: Vec<String> = (0..30).map(|n| format!("src/m{n:02}.rs")).collect();
    vec![
        ("Read", read_data(800)),
        ("Grep", grep_content(30)),
        (
            "Glob",
            json!({"pattern": "**/*.rs", "path": ".", "files": files, "total": 30, "truncated": false}),
        ),
        (
            "LS",
            json!({"path": ".", "entries": entries, "total": 30, "dirs": 3, "files": 27, "truncated": false}),
        ),
        ("Edit", diff_data(300)),
        ("MultiEdit", {
            let mut data = diff_data(30);
            data["edits"] = json!([{"replacements": 1, "fallback": "trailing_whitespace"}]);
            data["edits_applied"] = json!(1);
            data
        }),
        ("Write", {
            let head: Vec<String> = (1..=50).map(|n| format!("line {n}")).collect();
            json!({"file_path": "new.rs", "action": "created", "lines": 80, "bytes": 700,
                   "head": head.join("\n"), "truncated": true})
        }),
        ("Bash", bash_data(40, 100)),
        (
            "TodoWrite",
            json!({"todos": [], "total": 0, "recap": "no todos (list cleared)"}),
        ),
        (
            "mcp__github__search",
            json!({"items": files, "body": "x".repeat(5000)}),
        ),
    ]
}

/// A compressed result read back from history, as the core does before compressing harder.
fn from_history(stored: &Value) -> ToolResult {
    ToolResult {
        status: serde_json::from_value(stored["status"].clone()).unwrap(),
        data: stored["data"].clone(),
        error: stored
            .get("error")
            .map(|e| serde_json::from_value(e.clone()).unwrap()),
        text: String::new(),
        stats: Value::Null,
        context: Value::Null,
        checks: Vec::new(),
        jobs_ended: Vec::new(),
    }
}

#[test]
fn read_of_800_lines_keeps_exactly_the_first_500() {
    let compressed = data("Read", read_data(800));
    let content = lines(&compressed["content"]);
    assert_eq!(content.len(), 500);
    assert_eq!(content[499], "   500\tline number 500");
    let mut rest = compressed.clone();
    rest["content"] = Value::Null;
    assert_eq!(
        rest,
        json!({
            "file_path": "src/big.rs", "offset": 1, "lines_shown": 800, "total_lines": 800,
            "mtime": 1_700_000_000.5, "truncated": false, "modified_externally": false,
            "content": null, "content_truncated": true, "content_lines_dropped": 300,
        })
    );
}

#[test]
fn a_stored_read_capped_lower_keeps_its_first_lines_and_counts_every_dropped_one() {
    let stored = compress_to_string("Read", &success(read_data(800)));
    let capped: Value = serde_json::from_str(&cap_read_content(&stored, 50).unwrap()).unwrap();
    let content = lines(&capped["data"]["content"]);
    assert_eq!(content.len(), 50);
    assert_eq!(content[49], "    50\tline number 50");
    assert_eq!(capped["data"]["content_lines_dropped"], json!(750));
    assert_eq!(capped["data"]["content_truncated"], json!(true));
    assert_eq!(capped["data"]["lines_shown"], json!(800));
}

#[test]
fn a_read_capped_at_zero_lines_keeps_where_its_window_was_and_no_content() {
    let stored = compress_to_string("Read", &success(read_data(800)));
    let capped = cap_read_content(&stored, 0).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&capped).unwrap(),
        json!({"status": "success", "data": {
            "file_path": "src/big.rs", "offset": 1, "lines_shown": 800, "total_lines": 800,
            "mtime": 1_700_000_000.5, "truncated": false, "modified_externally": false,
            "content_truncated": true, "content_lines_dropped": 800,
        }})
    );
    // The tight tier, applied to it later, keeps the count.
    let again = compress_with(
        "Read",
        &from_history(&serde_json::from_str(&capped).unwrap()),
        CompressionLevel::Tight,
    );
    assert_eq!(again["data"]["content_lines_dropped"], json!(800));
    assert_eq!(again["data"].get("content"), None);
}

#[test]
fn a_cap_above_the_spec_limit_keeps_the_spec_limit() {
    let stored = compress_to_string("Read", &success(read_data(800)));
    assert_eq!(
        cap_read_content(&stored, 10_000).as_deref(),
        Some(stored.as_str())
    );
    let failed = r#"{"status":"error","data":null,"error":{"code":"not_found","message":"gone"}}"#;
    assert_eq!(cap_read_content(failed, 0), None);
}

#[test]
fn a_short_read_is_kept_whole_without_a_cut_marker() {
    let raw = read_data(3);
    let compressed = data("Read", raw.clone());
    assert_eq!(compressed["content"], raw["content"]);
    assert!(compressed.get("content_truncated").is_none());
}

#[test]
fn grep_content_keeps_a_summary_and_five_lines_with_file_and_line() {
    assert_eq!(
        data("Grep", grep_content(30)),
        json!({
            "mode": "content",
            "summary": "30 matches in 4 files for `fn main`",
            "matches": [
                "src/f1.rs:10: fn main() { 1 }",
                "src/f2.rs:20: fn main() { 2 }",
                "src/f3.rs:30: fn main() { 3 }",
                "src/f0.rs:40: fn main() { 4 }",
                "src/f1.rs:50: fn main() { 5 }",
            ],
            "more": 25,
            "total_matches": 30,
            "total_files": 4,
            "truncated": false,
        })
    );
}

#[test]
fn a_long_grep_line_is_cut() {
    let raw = json!({"pattern": "x", "mode": "content", "total_matches": 1, "total_files": 1,
                     "matches": [{"file": "a.min.js", "line": 1, "text": "x".repeat(5000)}]});
    let line = data("Grep", raw)["matches"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        line.starts_with(&format!("a.min.js:1: {}…", "x".repeat(200))),
        "{line}"
    );
    assert!(line.ends_with("[+4800 chars]"), "{line}");
}

#[test]
fn grep_files_and_count_modes_keep_five_items() {
    let files: Vec<String> = (0..12).map(|n| format!("f{n}.rs")).collect();
    let raw = json!({"pattern": "todo!", "mode": "files_with_matches", "files": files,
                     "total_files": 12, "truncated": false});
    let compressed = data("Grep", raw);
    assert_eq!(compressed["summary"], "12 files match `todo!`");
    assert_eq!(
        compressed["files"],
        json!(["f0.rs", "f1.rs", "f2.rs", "f3.rs", "f4.rs"])
    );
    assert_eq!(compressed["more"], 7);

    let counts: Vec<Value> = (0..8)
        .map(|n| json!({"file": format!("f{n}.rs"), "count": n + 1}))
        .collect();
    let raw = json!({"pattern": "x", "mode": "count", "counts": counts,
                     "total_matches": 36, "total_files": 8, "truncated": false});
    let compressed = data("Grep", raw);
    assert_eq!(compressed["summary"], "36 matches in 8 files for `x`");
    assert_eq!(
        compressed["counts"],
        json!(["f0.rs:1", "f1.rs:2", "f2.rs:3", "f3.rs:4", "f4.rs:5"])
    );
}

#[test]
fn glob_keeps_the_first_ten_paths_and_says_how_many_more() {
    let (_, raw) = samples().swap_remove(2);
    let compressed = data("Glob", raw);
    assert_eq!(compressed["files"].as_array().unwrap().len(), 10);
    assert_eq!(compressed["files"][9], "src/m09.rs");
    assert_eq!(compressed["more"], 20);
    assert_eq!(compressed["pattern"], "**/*.rs");
    assert_eq!(compressed["total"], 30);
}

#[test]
fn ls_keeps_ten_entries_as_names_without_sizes() {
    let (_, raw) = samples().swap_remove(3);
    let compressed = data("LS", raw);
    assert_eq!(
        compressed,
        json!({
            "path": ".", "total": 30, "dirs": 3, "files": 27, "truncated": false,
            "entries": ["e00/", "e01/", "e02/", "e03", "e04", "e05", "e06", "e07", "e08", "e09"],
            "more": 20,
        })
    );
}

#[test]
fn a_large_diff_keeps_a_summary_and_its_first_20_lines() {
    let raw = diff_data(300);
    let compressed = data("Edit", raw.clone());
    let diff = lines(&compressed["diff"]);
    assert_eq!(diff.len(), 20);
    assert_eq!(
        diff,
        raw["diff"]
            .as_str()
            .unwrap()
            .lines()
            .take(20)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        compressed["diff_summary"],
        "diff of 300 lines: +200 -140; first 20 lines kept"
    );
    assert_eq!(compressed["diff_truncated"], true);
    for (key, expected) in [
        ("file_path", json!("src/lib.rs")),
        ("changed_ranges", json!([[1, 150]])),
        ("replacements", json!(1)),
        ("fallback", Value::Null),
        ("applied", json!(true)),
        ("added", json!(200)),
        ("removed", json!(140)),
    ] {
        assert_eq!(compressed[key], expected, "{key}");
    }
}

#[test]
fn a_small_diff_is_kept_whole_with_the_multiedit_markers() {
    let (_, raw) = samples().swap_remove(5);
    let compressed = data("MultiEdit", raw.clone());
    assert_eq!(
        compressed["diff"].as_str().unwrap(),
        raw["diff"].as_str().unwrap().trim_end()
    );
    assert!(compressed.get("diff_summary").is_none());
    assert_eq!(compressed["edits_applied"], 1);
    assert_eq!(compressed["edits"][0]["fallback"], "trailing_whitespace");
}

#[test]
fn write_keeps_50_lines_of_a_new_file_and_20_of_an_overwritten_one() {
    let (_, mut raw) = samples().swap_remove(6);
    let created = data("Write", raw.clone());
    assert_eq!(lines(&created["head"]).len(), 50);
    assert_eq!(created["action"], "created");
    assert_eq!(created["truncated"], true);
    assert_eq!(
        (created["lines"].clone(), created["bytes"].clone()),
        (json!(80), json!(700))
    );

    raw["action"] = json!("overwritten");
    raw["truncated"] = json!(false);
    let overwritten = data("Write", raw);
    assert_eq!(lines(&overwritten["head"]).len(), 20);
    assert_eq!(
        overwritten["truncated"], true,
        "the head no longer shows it all"
    );
}

#[test]
fn bash_keeps_the_last_20_stderr_lines_and_only_a_summary_of_stdout() {
    let mut raw = bash_data(40, 100);
    raw["command"] = json!("c".repeat(300));
    let compressed = data("Bash", raw);
    let stderr = lines(&compressed["stderr_tail"]);
    assert_eq!(stderr.len(), 20);
    assert_eq!((stderr[0], stderr[19]), ("err-81", "err-100"));
    assert_eq!(
        lines(&compressed["stdout_tail"]),
        ["out-36", "out-37", "out-38", "out-39", "out-40"]
    );
    assert_eq!(
        compressed["command"],
        format!("{}… [+100 chars]", "c".repeat(200))
    );
    assert!(compressed.get("stdout").is_none() && compressed.get("stderr").is_none());
    for key in [
        "exit_code",
        "signal",
        "timed_out",
        "stdout_chars",
        "stderr_chars",
    ] {
        assert!(compressed.get(key).is_some(), "{key}");
    }
    assert_eq!(
        (
            compressed["stdout_lines"].clone(),
            compressed["stderr_lines"].clone()
        ),
        (json!(40), json!(100))
    );
}

#[test]
fn a_timed_out_bash_keeps_its_error_and_its_compressed_output() {
    let mut result = ToolResult::error(ErrorCode::Timeout, "the command did not finish");
    result.data = bash_data(3, 0);
    result.data["timed_out"] = json!(true);
    let compressed = compress("Bash", &result);
    assert_eq!(compressed["status"], "error");
    assert_eq!(
        compressed["error"],
        json!({"code": "timeout", "message": "the command did not finish"})
    );
    assert_eq!(compressed["data"]["timed_out"], true);
    assert_eq!(compressed["data"]["stdout_tail"], "out-1\nout-2\nout-3");
    assert!(
        compressed["data"].get("stderr_tail").is_none(),
        "no stderr, no tail"
    );
}

#[test]
fn other_tools_get_long_strings_and_arrays_cut() {
    let (tool, raw) = samples().pop().unwrap();
    let compressed = data(tool, raw);
    let items = compressed["items"].as_array().unwrap();
    assert_eq!(items.len(), 21);
    assert_eq!(items[20], "… 10 more");
    let body = compressed["body"].as_str().unwrap();
    let kept = body.chars().filter(|c| *c == 'x').count();
    assert!(
        body.contains(&format!(" … [{} chars cut] … ", 5000 - kept)),
        "{body}"
    );
    assert!(body.chars().count() <= 2000 && kept > 1900, "{body}");
}

#[test]
fn deep_nesting_in_other_tools_is_replaced_by_its_size() {
    let mut deep = json!({"leaf": [1, 2, 3]});
    for _ in 0..10 {
        deep = json!({ "inner": deep });
    }
    let compressed = data("SomeMcpTool", deep).to_string();
    assert!(compressed.contains(r#""inner":"{1 keys}""#), "{compressed}");
}

#[test]
fn text_stats_and_context_never_reach_history() {
    for (tool, raw) in samples() {
        for result in [success(raw.clone()), {
            let mut failed = ToolResult::error(ErrorCode::Io, "disk full");
            failed.stats = json!({"duration_ms": 1});
            failed.context = json!({"CONTEXT-ARGUMENT": 1});
            failed
        }] {
            let compressed = compress(tool, &result);
            let keys: Vec<&String> = compressed.as_object().unwrap().keys().collect();
            assert!(
                keys.iter()
                    .all(|k| ["status", "data", "error"].contains(&k.as_str())),
                "{tool}: {keys:?}"
            );
            let json = compress_to_string(tool, &result);
            for dropped in ["FULL-OBSERVATION-TEXT", "CONTEXT-ARGUMENT", "duration_ms"] {
                assert!(!json.contains(dropped), "{tool}: {dropped} in {json}");
            }
        }
    }
}

#[test]
fn status_and_the_full_error_survive_every_rule_and_level() {
    let message = format!("{}END", "why it failed and what to do. ".repeat(170));
    assert!(message.len() >= 5000);
    let mut tools: Vec<(&str, Value)> = samples();
    tools.push(("NoSuchTool", json!("a bare string")));
    tools.push(("Read", json!([1, 2, 3])));
    tools.push(("Bash", json!({"stdout": 42})));
    for (tool, raw) in tools {
        for level in [CompressionLevel::Standard, CompressionLevel::Tight] {
            let ok = compress_with(tool, &success(raw.clone()), level);
            assert_eq!(ok["status"], "success", "{tool}");
            assert!(ok.get("error").is_none(), "{tool}");

            for data in [Value::Null, raw.clone()] {
                let mut failed = ToolResult::error(ErrorCode::StaleFile, message.clone());
                failed.data = data;
                let compressed = compress_with(tool, &failed, level);
                assert_eq!(compressed["status"], "error", "{tool}");
                assert_eq!(
                    compressed["error"],
                    json!({"code": "stale_file", "message": message}),
                    "{tool}"
                );
            }
        }
    }
}

#[test]
fn compressed_json_is_compact_and_reads_back_as_the_value() {
    for (tool, raw) in samples() {
        let result = success(raw);
        let json = compress_to_string(tool, &result);
        assert!(!json.contains("\n  "), "{tool}: not compact");
        assert_eq!(
            serde_json::from_str::<Value>(&json).unwrap(),
            compress(tool, &result)
        );
    }
}

#[test]
fn the_history_string_puts_status_first_as_in_spec_e1() {
    let mut failed = ToolResult::error(ErrorCode::NotFound, "no such file");
    failed.data = json!({"path": "x"});
    assert_eq!(
        compress_to_string("LS", &failed),
        r#"{"status":"error","data":{"path":"x"},"error":{"code":"not_found","message":"no such file"}}"#
    );
    let tight = compress_to_string_with("Read", &success(read_data(1)), CompressionLevel::Tight);
    assert!(
        tight.starts_with(r#"{"status":"success","data":{"content":"#),
        "{tight}"
    );
}

#[test]
fn compressing_a_compressed_result_again_changes_nothing() {
    for (tool, raw) in samples() {
        let once = compress(tool, &success(raw));
        assert_eq!(compress(tool, &from_history(&once)), once, "{tool}");
    }
}

#[test]
fn tight_tier_roughly_halves_the_limits() {
    assert_eq!(lines(&tight("Read", read_data(800))["content"]).len(), 100);
    assert_eq!(tight("Read", read_data(800))["content_lines_dropped"], 700);
    assert_eq!(
        tight("Grep", grep_content(30))["matches"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let all = samples();
    assert_eq!(
        tight("Glob", all[2].1.clone())["files"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    assert_eq!(
        tight("LS", all[3].1.clone())["entries"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    let edit = tight("Edit", diff_data(300));
    assert_eq!(lines(&edit["diff"]).len(), 10);
    assert_eq!(
        edit["diff_summary"],
        "diff of 300 lines: +200 -140; first 10 lines kept"
    );
    let bash = tight("Bash", bash_data(40, 100));
    assert_eq!(
        lines(&bash["stderr_tail"]),
        ["err-96", "err-97", "err-98", "err-99", "err-100"]
    );
    assert_eq!(lines(&bash["stdout_tail"]).len(), 2);
    assert_eq!(lines(&tight("Write", all[6].1.clone())["head"]).len(), 25);
}

#[test]
fn tightening_history_gives_what_tightening_the_full_result_gives() {
    for (tool, raw) in samples() {
        let standard = compress(tool, &success(raw.clone()));
        let from_history = compress_with(tool, &from_history(&standard), CompressionLevel::Tight);
        let direct = compress_with(tool, &success(raw), CompressionLevel::Tight);
        assert_eq!(from_history, direct, "{tool}");
    }
}

#[test]
fn missing_fields_are_left_out_and_error_results_without_data_stay_small() {
    assert_eq!(
        data("Read", json!({"file_path": "a.rs"})),
        json!({"file_path": "a.rs"})
    );
    assert_eq!(
        data("Grep", json!({"mode": "content"})),
        json!({"mode": "content", "summary": "grep results"})
    );
    let failed = ToolResult::error(ErrorCode::NotFound, "file not found: a.rs");
    assert_eq!(
        compress("Read", &failed),
        json!({"status": "error", "data": null, "error": {"code": "not_found", "message": "file not found: a.rs"}})
    );
    assert_eq!(failed.status, ToolStatus::Error);
}

/// The rules read the data the real tools return, not just the hand-built samples above.
#[tokio::test]
async fn results_of_the_real_tools_compress_by_their_rules() {
    use wright_protocol::ToolCall;
    use wright_tools::{ToolContext, ToolRegistry};

    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let big: String = (1..=800).map(|n| format!("line number {n}\n")).collect();
    std::fs::write(dir.path().join("big.txt"), big).unwrap();
    let registry = ToolRegistry::builtin();
    let calls = [
        (
            "Read",
            json!({"file_path": "big.txt"}),
            "content_lines_dropped",
        ),
        (
            "Grep",
            json!({"pattern": "number 7", "output_mode": "content"}),
            "summary",
        ),
        ("Glob", json!({"pattern": "*.txt"}), "files"),
        ("LS", json!({}), "entries"),
        (
            "Write",
            json!({"file_path": "new.txt", "content": "a\nb\n"}),
            "head",
        ),
        (
            "Edit",
            json!({"file_path": "new.txt", "old_string": "a", "new_string": "c"}),
            "diff",
        ),
        (
            "Bash",
            json!({"command": "echo out; echo err >&2"}),
            "stderr_tail",
        ),
    ];
    for (tool, args, key) in calls {
        let call = ToolCall {
            tool: tool.into(),
            args,
        };
        let result = registry.run(&call, &ctx).await;
        assert!(result.is_success(), "{tool}: {}", result.text);
        let compressed = compress(tool, &result);
        assert!(
            compressed["data"].get(key).is_some(),
            "{tool}: {compressed}"
        );
    }
}

#[test]
fn a_stream_that_printed_nothing_keeps_its_count_when_compressed_again() {
    let once = compress("Bash", &success(bash_data(3, 0)));
    assert_eq!(once["data"]["stderr_lines"], 0);
    assert_eq!(once["data"].get("stderr_tail"), None);
    for level in [CompressionLevel::Standard, CompressionLevel::Tight] {
        let again = compress_with("Bash", &from_history(&once), level);
        assert_eq!(again["data"]["stderr_lines"], 0, "{level:?}");
    }
}

#[test]
fn data_not_of_the_tools_shape_gets_the_default_rule() {
    let long = "y".repeat(5000);
    for (tool, field) in [("Bash", "stdout"), ("Read", "content"), ("Grep", "files")] {
        let shrunk = data(tool, json!({ field: 42, "note": long }));
        assert_eq!(shrunk[field], 42, "{tool}");
        let note = shrunk["note"].as_str().unwrap();
        assert!(note.contains("chars cut"), "{tool}: {note}");
    }
}
