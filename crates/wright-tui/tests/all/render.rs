//! Snapshots of what the interactive terminal renders, as plain text and as a style dump.

use std::time::Duration;

use pretty_assertions::assert_eq;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolError, ToolStatus};
use wright_tui::render::{
    StatusInfo, Theme, ToolLineState, ToolOutcome, diff, error, markdown, status_line, thought,
    to_ansi, to_plain, tool_call_line,
};

const ANSWER: &str = r#"# Fixing the parser

The bug is in `parse_args`: it **drops** the last argument when the input ends without a
newline, so *every* call with a trailing token loses it.

## Steps

1. Read `src/args.rs` to find the loop.
2. Change the bound:
   - from `i < n - 1`
   - to `i < n`
3. Run the tests.

```rust
fn parse_args(input: &str) -> Vec<&str> {
    // Split on white space.
    input.split_whitespace().collect()
}
```

See [the docs](https://doc.rust-lang.org/std/) for more.
"#;

const BLOCKS: &str = r#"> A quoted remark that is long enough to need wrapping onto a second line.

- [x] done item
- [ ] open item

| Tool | Calls | Share |
|:-----|------:|:-----:|
| Read | 12 | 60% |
| Bash | 8 | 40% |

---

Plain <https://example.com> autolink and ~~struck~~ text.
"#;

/// Each styled span as `[fg:Green,bold]text[/]`; unstyled spans as their text.
fn dump(lines: &[Line<'_>]) -> String {
    let mut out = String::new();
    for line in lines {
        for span in &line.spans {
            let style = line.style.patch(span.style);
            let parts = style_parts(style);
            if parts.is_empty() {
                out.push_str(&span.content);
            } else {
                out.push_str(&format!("[{}]{}[/]", parts.join(","), span.content));
            }
        }
        out.push('\n');
    }
    out
}

fn style_parts(style: Style) -> Vec<String> {
    let color = |c: Color| match c {
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        c => format!("{c:?}"),
    };
    let mut parts = Vec::new();
    if let Some(fg) = style.fg {
        parts.push(format!("fg:{}", color(fg)));
    }
    if let Some(bg) = style.bg {
        parts.push(format!("bg:{}", color(bg)));
    }
    for (modifier, name) in [
        (Modifier::BOLD, "bold"),
        (Modifier::DIM, "dim"),
        (Modifier::ITALIC, "italic"),
        (Modifier::UNDERLINED, "underlined"),
        (Modifier::CROSSED_OUT, "crossed_out"),
        (Modifier::REVERSED, "reversed"),
    ] {
        if style.add_modifier.contains(modifier) {
            parts.push(name.to_string());
        }
    }
    parts
}

fn has_no_styles(lines: &[Line<'_>]) -> bool {
    lines.iter().all(|line| {
        line.style == Style::default() && line.spans.iter().all(|s| s.style == Style::default())
    })
}

#[test]
fn markdown_answer_plain_text() {
    insta::assert_snapshot!(to_plain(&markdown(ANSWER, 60, &Theme::COLOR)));
}

#[test]
fn markdown_answer_styles() {
    insta::assert_snapshot!(dump(&markdown(ANSWER, 60, &Theme::COLOR)));
}

#[test]
fn markdown_answer_without_colour_keeps_markdown_marks() {
    insta::assert_snapshot!(to_plain(&markdown(ANSWER, 60, &Theme::PLAIN)));
}

#[test]
fn markdown_blocks_plain_text() {
    insta::assert_snapshot!(to_plain(&markdown(BLOCKS, 40, &Theme::COLOR)));
}

#[test]
fn markdown_blocks_styles() {
    insta::assert_snapshot!(dump(&markdown(BLOCKS, 40, &Theme::COLOR)));
}

#[test]
fn an_unclosed_fence_renders_as_code() {
    let streaming = "Here it is:\n\n```python\ndef f(x):\n    return x";
    insta::assert_snapshot!(dump(&markdown(streaming, 40, &Theme::COLOR)));
}

#[test]
fn markdown_lines_never_exceed_the_width() {
    let text = format!(
        "{ANSWER}\n{BLOCKS}\n\nUnicode: naïve café 日本語のテキストを折り返す 🦀🦀🦀 \
         supercalifragilisticexpialidocious-and-then-some"
    );
    // Below this, the indents of nested lists alone can fill a line.
    for width in 10..=80 {
        for line in markdown(&text, width, &Theme::COLOR) {
            assert!(
                line.width() <= usize::from(width),
                "width {width}: {:?} is {} wide",
                to_plain(std::slice::from_ref(&line)),
                line.width()
            );
        }
    }
}

#[test]
fn wrapping_keeps_every_character_of_multi_byte_text() {
    let text = "naïve café 日本語のテキストを折り返す 🦀🦀 Ünïcödé";
    for width in 2..=30 {
        let plain = to_plain(&markdown(text, width, &Theme::COLOR));
        let words: String = plain.split_whitespace().collect();
        let expected: String = text.split_whitespace().collect();
        assert_eq!(words, expected, "width {width}");
    }
}

#[test]
fn wrapping_breaks_at_word_boundaries() {
    let lines = markdown("alpha beta gamma delta epsilon", 12, &Theme::COLOR);
    assert_eq!(to_plain(&lines), "alpha beta\ngamma delta\nepsilon\n");
}

#[test]
fn list_items_wrap_with_a_hanging_indent() {
    let lines = markdown(
        "- one two three four five\n  - six seven eight",
        12,
        &Theme::PLAIN,
    );
    assert_eq!(
        to_plain(&lines),
        "• one two\n  three four\n  five\n  ◦ six\n    seven\n    eight\n"
    );
}

#[test]
fn code_lines_wider_than_the_width_are_broken_not_cut() {
    let lines = markdown("```sh\ncargo test --workspace\n```", 10, &Theme::COLOR);
    assert_eq!(to_plain(&lines), "cargo test\n --workspa\nce\n");
}

#[test]
fn an_autolink_shows_its_url_once() {
    let lines = markdown("see <https://example.com>", 80, &Theme::COLOR);
    assert_eq!(to_plain(&lines), "see https://example.com\n");
}

#[test]
fn an_empty_list_item_still_shows_its_marker() {
    assert_eq!(
        to_plain(&markdown("1. a\n2.", 80, &Theme::COLOR)),
        "1. a\n2.\n"
    );
}

#[test]
fn blank_lines_inside_a_quote_keep_the_bar() {
    let lines = markdown("> one\n>\n> two", 80, &Theme::COLOR);
    assert_eq!(to_plain(&lines), "│ one\n│\n│ two\n");
}

#[test]
fn an_unclosed_fence_without_colour_still_gets_its_fences() {
    let lines = markdown("```rust\nfn main() {", 80, &Theme::PLAIN);
    assert_eq!(to_plain(&lines), "```rust\nfn main() {\n```\n");
}

#[test]
fn no_color_yields_no_styles_anywhere() {
    let plain = Theme::PLAIN;
    let mut lines = markdown(ANSWER, 60, &plain);
    lines.extend(markdown(BLOCKS, 40, &plain));
    lines.extend(diff(DIFF, &plain));
    lines.extend(thought("thinking", &plain));
    lines.extend(error("failed", &plain));
    lines.extend(tool_lines(&plain));
    lines.push(status_line(&status(), &plain));
    assert!(has_no_styles(&lines));
    assert_eq!(to_ansi(&lines), to_plain(&lines));
}

#[test]
fn colour_output_has_styles() {
    assert!(!has_no_styles(&markdown(ANSWER, 60, &Theme::COLOR)));
}

#[test]
fn escape_sequences_in_model_output_are_neutralised() {
    let lines = markdown("evil \x1b[2J text", 40, &Theme::COLOR);
    assert!(!to_plain(&lines).contains('\x1b'));
}

const DIFF: &str = "\
diff --git a/src/a.rs b/src/a.rs
index 3b18e51..a9f3c2d 100644
--- a/src/a.rs
+++ b/src/a.rs
@@ -1,5 +1,6 @@ fn main() {
 fn main() {
-    let n = args.len() - 1;
+    let n = args.len();
+    // Every argument counts.
     for i in 0..n {
 \t\tprintln!(\"{i}\");
     }
";

#[test]
fn diff_plain_text() {
    insta::assert_snapshot!(to_plain(&diff(DIFF, &Theme::COLOR)));
}

#[test]
fn diff_styles() {
    insta::assert_snapshot!(dump(&diff(DIFF, &Theme::COLOR)));
}

fn success(data: Value, ms: u64) -> ToolLineState {
    ToolLineState::Done {
        result: ToolOutcome {
            status: ToolStatus::Success,
            data,
            error: None,
        },
        elapsed: Duration::from_millis(ms),
    }
}

fn failure(code: ErrorCode, message: &str) -> ToolLineState {
    ToolLineState::Done {
        result: ToolOutcome {
            status: ToolStatus::Error,
            data: Value::Null,
            error: Some(ToolError {
                code,
                message: message.to_string(),
            }),
        },
        elapsed: Duration::from_millis(3),
    }
}

/// One line of each shape, with the `data` each tool in wright-tools returns.
fn tool_lines(theme: &Theme) -> Vec<Line<'static>> {
    let calls: Vec<(&str, Value, ToolLineState)> = vec![
        (
            "Read",
            json!({"file_path": "/project/src/lib.rs"}),
            success(
                json!({"file_path": "src/lib.rs", "offset": 1, "limit": 200, "lines_shown": 200, "total_lines": 812}),
                4,
            ),
        ),
        (
            "Read",
            json!({"file_path": "Cargo.toml"}),
            success(
                json!({"file_path": "Cargo.toml", "offset": 1, "lines_shown": 40, "total_lines": 40}),
                2,
            ),
        ),
        (
            "Bash",
            json!({"command": "cargo test"}),
            success(
                json!({"command": "cargo test", "exit_code": 0, "signal": null, "timed_out": false}),
                3_240,
            ),
        ),
        (
            "Bash",
            json!({"command": "cargo build --workspace --all-targets --all-features --message-format short"}),
            success(json!({"exit_code": 101, "signal": null}), 61_500),
        ),
        (
            "Edit",
            json!({"file_path": "src/a.rs"}),
            success(
                json!({"file_path": "src/a.rs", "replacements": 1, "added": 3, "removed": 1}),
                5,
            ),
        ),
        (
            "Write",
            json!({"file_path": "src/new.rs"}),
            success(
                json!({"file_path": "src/new.rs", "action": "created", "lines": 40}),
                5,
            ),
        ),
        (
            "MultiEdit",
            json!({"file_path": "src/a.rs"}),
            success(
                json!({"file_path": "src/a.rs", "edits_applied": 3, "replacements": 4, "added": 10, "removed": 4}),
                5,
            ),
        ),
        (
            "Grep",
            json!({"pattern": "fn main", "output_mode": "content"}),
            success(
                json!({"mode": "content", "total_matches": 12, "total_files": 4}),
                20,
            ),
        ),
        (
            "Grep",
            json!({"pattern": "TODO", "path": "src"}),
            success(
                json!({"mode": "files_with_matches", "files": ["src/a.rs"], "total_files": 1}),
                20,
            ),
        ),
        (
            "Glob",
            json!({"pattern": "**/*.rs"}),
            success(json!({"pattern": "**/*.rs", "total": 120}), 9),
        ),
        (
            "LS",
            json!({"path": "src"}),
            success(
                json!({"path": "src", "dirs": 3, "files": 12, "total": 15}),
                1,
            ),
        ),
        (
            "TodoWrite",
            json!({"todos": []}),
            success(json!({"total": 5, "completed": 2}), 1),
        ),
        (
            "WebFetch",
            json!({"url": "https://example.com/a/very/long/path/that/goes/on/and/on", "max_bytes": 10000}),
            success(json!({}), 800),
        ),
        (
            "Read",
            json!({"file_path": "nope.rs"}),
            failure(ErrorCode::NotFound, "no such file"),
        ),
        (
            "Bash",
            json!({"command": "cargo test"}),
            ToolLineState::Running {
                spinner_frame: 12,
                elapsed: Duration::from_millis(1_200),
            },
        ),
        (
            "TodoWrite",
            json!({}),
            ToolLineState::Running {
                spinner_frame: 0,
                elapsed: Duration::from_millis(0),
            },
        ),
    ];
    calls
        .into_iter()
        .map(|(tool, args, state)| tool_call_line(tool, &args, state, theme))
        .collect()
}

#[test]
fn tool_lines_plain_text() {
    insta::assert_snapshot!(to_plain(&tool_lines(&Theme::COLOR)));
}

#[test]
fn tool_lines_styles() {
    insta::assert_snapshot!(dump(&tool_lines(&Theme::COLOR)));
}

fn status() -> StatusInfo {
    StatusInfo {
        model: "gpt-4.1".to_string(),
        context_tokens: 12_300,
        context_window: 200_000,
        round_tokens: 4_100,
        cost_usd: Some(0.0123),
    }
}

#[test]
fn status_line_reads_as_specified() {
    assert_eq!(
        to_plain(&[status_line(&status(), &Theme::COLOR)]),
        "gpt-4.1 · context 12.3k/200k (6%) · round 4.1k tokens · $0.012\n"
    );
}

#[test]
fn status_line_leaves_out_an_unknown_cost() {
    let info = StatusInfo {
        cost_usd: None,
        ..status()
    };
    assert_eq!(
        to_plain(&[status_line(&info, &Theme::COLOR)]),
        "gpt-4.1 · context 12.3k/200k (6%) · round 4.1k tokens\n"
    );
}

#[test]
fn status_line_styles() {
    insta::assert_snapshot!(dump(&[status_line(&status(), &Theme::COLOR)]));
}
