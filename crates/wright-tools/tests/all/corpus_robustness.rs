//! Issue 6, "Robustness": every file of a mixed corpus — binary, invalid UTF-8, huge lines,
//! empty, odd encodings and line endings — goes through Read, Grep and Edit. Each call either
//! works or fails with a stable code and a message a person can act on; none panics, and a
//! file is never changed by a call that failed.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult, ToolStatus};
use wright_tools::{ToolContext, ToolRegistry};

/// The corpus: name → bytes, plus a string that occurs in it where there is one.
fn corpus() -> Vec<(&'static str, Vec<u8>, Option<&'static str>)> {
    let mut text_then_nul = "fn main() {}\n".repeat(800).into_bytes();
    text_then_nul.extend_from_slice(b"\0\0binary tail");
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend((0..=255u8).cycle().take(4096));
    let mut huge_line = "x".repeat(5 * 1024 * 1024).into_bytes();
    huge_line.extend_from_slice(b" needle\n");
    let utf16: Vec<u8> = "\u{feff}hello utf-16\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    vec![
        ("empty.txt", Vec::new(), None),
        ("only_newlines.txt", b"\n\n\n\n\n".to_vec(), None),
        (
            "no_final_newline.txt",
            b"alpha\nbeta".to_vec(),
            Some("beta"),
        ),
        ("crlf.txt", b"one\r\ntwo\r\nthree\r\n".to_vec(), Some("two")),
        (
            "bom.txt",
            b"\xef\xbb\xbfwith bom\nsecond\n".to_vec(),
            Some("second"),
        ),
        ("lone_cr.txt", b"old\rmac\rline\r".to_vec(), Some("mac")),
        (
            "invalid_utf8.txt",
            b"valid start\n\xff\xfe\xfd broken \xc3\x28 bytes\nvalid end\n".to_vec(),
            Some("valid end"),
        ),
        (
            "latin1.txt",
            b"caf\xe9 cr\xe8me br\xfbl\xe9e\n".to_vec(),
            Some("cr"),
        ),
        ("utf16.txt", utf16, Some("hello")),
        ("nul_bytes.bin", b"\0\x01\x02\x03\0\0\xff".to_vec(), None),
        ("text_then_nul.rs", text_then_nul, Some("fn main")),
        ("image.png", png, None),
        ("huge_line.txt", huge_line, Some("needle")),
        (
            "long_lines.txt",
            format!("{}\nshort\n", "y".repeat(10_000)).into_bytes(),
            Some("short"),
        ),
        (
            "emoji.md",
            "# 🚀 title\n\nZWJ 👩‍💻 text\n".as_bytes().to_vec(),
            Some("title"),
        ),
    ]
}

async fn run(ctx: &ToolContext, tool: &str, args: Value) -> ToolResult {
    let call = ToolCall {
        tool: tool.into(),
        args,
    };
    ToolRegistry::builtin().run(&call, ctx).await
}

/// An error result has a known code and a message long enough to say something.
fn check_error_is_clear(what: &str, result: &ToolResult) {
    if result.status == ToolStatus::Error {
        let error = result
            .error
            .as_ref()
            .unwrap_or_else(|| panic!("{what}: an error without its code"));
        assert_ne!(error.code, ErrorCode::Other, "{what}: {}", error.message);
        assert!(
            error.message.len() >= 15,
            "{what}: a message too short to act on: {:?}",
            error.message
        );
        assert!(!result.text.is_empty(), "{what}: no observation");
    }
}

#[tokio::test]
async fn every_file_of_a_mixed_corpus_goes_through_read_grep_and_edit_without_harm() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let corpus = corpus();
    for (name, bytes, _) in &corpus {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let mut outcomes: BTreeMap<String, String> = BTreeMap::new();

    for (name, bytes, present) in &corpus {
        let unchanged = |what: &str| {
            assert_eq!(
                &std::fs::read(dir.path().join(name)).unwrap(),
                bytes,
                "{what} changed {name}"
            );
        };

        for args in [
            json!({"file_path": name}),
            json!({"file_path": name, "offset": 2, "limit": 1}),
            json!({"file_path": name, "offset": 1_000_000}),
        ] {
            let what = format!("Read {args}");
            let result = run(&ctx, "Read", args).await;
            check_error_is_clear(&what, &result);
            unchanged(&what);
            outcomes.insert(
                format!("{name} {what}"),
                result.error.map_or("ok".into(), |e| e.code.to_string()),
            );
        }

        for pattern in [present.unwrap_or("zzz-absent"), "zzz-absent", "[a-z]+"] {
            let what = format!("Grep {pattern:?}");
            let args = json!({"pattern": pattern, "path": name, "output_mode": "content"});
            let result = run(&ctx, "Grep", args).await;
            check_error_is_clear(&what, &result);
            assert!(
                result.text.len() < 200_000,
                "{what} on {name}: {} bytes shown",
                result.text.len()
            );
        }

        let mut edits = vec![("zzz-absent", "x")];
        if let Some(present) = present {
            edits.push((present, "REPLACED"));
        }
        for (old, new) in edits {
            let what = format!("Edit {old:?}");
            let before = std::fs::read(dir.path().join(name)).unwrap();
            let args = json!({"file_path": name, "old_string": old, "new_string": new});
            let result = run(&ctx, "Edit", args).await;
            check_error_is_clear(&what, &result);
            let after = std::fs::read(dir.path().join(name)).unwrap();
            match result.status {
                ToolStatus::Error => assert_eq!(after, before, "a failed {what} changed {name}"),
                ToolStatus::Success => {
                    assert_ne!(after, before, "{what} on {name} said it worked");
                    assert!(
                        String::from_utf8_lossy(&after).contains(new),
                        "{what} on {name}"
                    );
                    // Put the file back for the next calls.
                    std::fs::write(dir.path().join(name), &before).unwrap();
                    let _ = run(&ctx, "Read", json!({"file_path": name})).await;
                }
            }
        }
    }

    // Files that are not UTF-8 text are refused as such rather than shown as garbage (Latin-1
    // and UTF-16 included: Read does not guess encodings); a line past the end of a file is a
    // bad offset, not an empty success.
    for name in [
        "nul_bytes.bin",
        "image.png",
        "invalid_utf8.txt",
        "latin1.txt",
        "utf16.txt",
    ] {
        assert_eq!(
            outcomes[&format!("{name} Read {}", json!({"file_path": name}))],
            "binary_file"
        );
    }
}

#[tokio::test]
async fn reading_past_the_end_says_how_long_the_file_is() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    std::fs::write(dir.path().join("short.txt"), "a\nb\n").unwrap();
    let result = run(
        &ctx,
        "Read",
        json!({"file_path": "short.txt", "offset": 10}),
    )
    .await;
    let error = result.error.unwrap();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert!(error.message.contains('2'), "{}", error.message);
}
