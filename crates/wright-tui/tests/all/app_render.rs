//! What the interactive session draws, through the real inline viewport on ratatui's
//! `TestBackend`: the scrollback it writes (diffs, Markdown answers) and the viewport under it.

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use serde_json::json;
use wright_protocol::{ActionKind, Event, ToolStatus, Usage};
use wright_tui::app::{App, FileIndex, InputHistory, Reply, Screen};
use wright_tui::render::{StatusInfo, Theme};

const WIDTH: u16 = 60;
const HEIGHT: u16 = 30;

/// An app on a fresh screen, with the prompt drawn once.
fn session() -> (App, Screen<TestBackend>) {
    let app = App::new(
        Theme::PLAIN,
        WIDTH,
        InputHistory::in_memory(Vec::new()),
        FileIndex::of(&[]),
    );
    let screen = Screen::new(TestBackend::new(WIDTH, HEIGHT), 3).unwrap();
    (app, screen)
}

/// Hands `replies` to the app, writes its output and draws, as the event loop does.
fn show(app: &mut App, screen: &mut Screen<TestBackend>, replies: Vec<Reply>) {
    for reply in replies {
        app.handle_reply(reply);
    }
    screen.insert(app.take_output()).unwrap();
    screen
        .draw(app.viewport_height(), |frame| app.render(frame))
        .unwrap();
}

/// The terminal's rows (scrollback first, then the screen), trailing spaces and blank rows at
/// the end removed.
fn terminal_text(screen: &Screen<TestBackend>) -> String {
    screen.with_backend(|backend| {
        let mut rows = rows(backend.scrollback());
        rows.extend(rows_of(backend.buffer()));
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        rows.join("\n")
    })
}

fn rows(buffer: &Buffer) -> Vec<String> {
    rows_of(buffer)
}

fn rows_of(buffer: &Buffer) -> Vec<String> {
    let area = buffer.area;
    (area.top()..area.bottom())
        .map(|y| {
            let row: String = (area.left()..area.right())
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect();
            row.trim_end().to_string()
        })
        .collect()
}

fn event(event: Event) -> Reply {
    Reply::Event(event)
}

#[test]
fn an_edit_is_shown_as_its_diff_under_the_tool_line() {
    let (mut app, mut screen) = session();
    app.submit("rename the greeting".into());
    let diff = "--- a/src/greet.rs\n+++ b/src/greet.rs\n@@ -1,3 +1,3 @@\n fn greet() {\n-    println!(\"hello\");\n+    println!(\"hello, world\");\n }\n";
    show(
        &mut app,
        &mut screen,
        vec![
            event(Event::RoundStarted {
                prompt: "rename the greeting".into(),
            }),
            event(Event::AssistantDelta {
                text: "Thought: change the string.\n".into(),
            }),
            event(Event::ToolCall {
                step: 1,
                tool: "Edit".into(),
                args: json!({"file_path": "src/greet.rs", "old_string": "hello", "new_string": "hello, world"}),
            }),
            event(Event::ToolResult {
                step: 1,
                tool: "Edit".into(),
                status: ToolStatus::Success,
                summary: "edited".into(),
                data: json!({"file_path": "src/greet.rs", "replacements": 1, "added": 1, "removed": 1, "diff": diff}),
                error: None,
            }),
        ],
    );
    insta::assert_snapshot!(terminal_text(&screen));
}

#[test]
fn the_answer_is_rendered_as_markdown_then_the_status() {
    let (mut app, mut screen) = session();
    app.submit("explain".into());
    let answer = "## Summary\n\nThe parser had an **off-by-one** in `parse_range`:\n\n1. the end was exclusive\n2. the test expected it inclusive\n\n```rust\nlet end = start + len;\n```\n";
    show(
        &mut app,
        &mut screen,
        vec![
            event(Event::RoundStarted {
                prompt: "explain".into(),
            }),
            event(Event::RoundFinished {
                answer: answer.into(),
                steps: 1,
                usage: Usage::default(),
            }),
            Reply::Done(Some(StatusInfo {
                model: "test-model".into(),
                context_tokens: 12_300,
                context_window: 200_000,
                round_tokens: 4_100,
                cost_usd: Some(0.012),
            })),
        ],
    );
    insta::assert_snapshot!(terminal_text(&screen));
}

#[test]
fn a_command_waiting_for_approval_shows_the_command_and_the_question() {
    let (mut app, mut screen) = session();
    app.submit("clean up".into());
    let request = wright_core::approval::ApprovalRequest {
        step: 1,
        tool: "Bash".into(),
        args: json!({"command": "rm -rf target"}),
        kind: ActionKind::Command,
        preview: "rm -rf target".into(),
        concern: None,
    };
    let (answer, _answered) = tokio::sync::oneshot::channel();
    show(
        &mut app,
        &mut screen,
        vec![
            event(Event::ToolCall {
                step: 1,
                tool: "Bash".into(),
                args: request.args.clone(),
            }),
            event(Event::ApprovalRequested {
                step: 1,
                tool: "Bash".into(),
                kind: ActionKind::Command,
                preview: request.preview.clone(),
                concern: None,
            }),
            Reply::Approval(request, answer),
        ],
    );
    insta::assert_snapshot!(terminal_text(&screen));
}
