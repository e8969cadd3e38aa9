//! One fully rendered request, every layer present, as a snapshot: what the model is shown.

use chrono::{TimeZone, Utc};
use serde_json::json;
use wright_core::ToolProtocol;
use wright_core::code_law::CodeLaw;
use wright_core::context::{ContextBuilder, ScratchStep};
use wright_core::history::SummaryEntry;
use wright_core::instructions::Instructions;
use wright_core::mention::preprocess;
use wright_core::prompt::system_prompt;
use wright_core::tiers::tool_message;
use wright_llm::ChatRole;
use wright_protocol::{Message, MessageMetadata, TodoItem, TodoStatus, ToolResult};
use wright_tools::{ToolRegistry, compress_to_string, todo_recap};

fn render(request: &wright_llm::ChatRequest) -> String {
    let mut out = format!("===== system =====\n{}\n", request.system_text());
    for message in &request.messages {
        let role = match message.role {
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        };
        out.push_str(&format!("\n===== {role} =====\n{}\n", message.content));
    }
    out.push_str(&format!("\n===== stop =====\n{:?}\n", request.stop));
    out
}

#[test]
fn a_request_with_every_layer_renders_as_the_spec_orders_it() {
    let tools = ToolRegistry::builtin();
    let system = system_prompt(&tools);
    let law = Instructions::from_code_law(&CodeLaw {
        file_name: "CODE_LAW.md".into(),
        text: "- Never use `unwrap()` outside tests.\n- Keep functions under 50 lines.".into(),
        truncated: false,
    });
    let at = Utc.with_ymd_and_hms(2026, 11, 22, 8, 0, 0).unwrap();
    let summaries = [SummaryEntry {
        text: "## 📌 Archived Session Summary\n*(Contains context from 2026-11-22T08:00:00Z to 2026-11-22T09:00:00Z)*\n\n### 🎯 Objectives & Status\n* **Original Goal**: Add login".into(),
        start_time: at,
        cutoff_time: at,
    }];
    let read = ToolResult::success(
        "     1\tfn login() {}\n[lines 1-1 of 1]",
        json!({"file_path": "src/auth.rs", "offset": 1, "limit": 2000, "lines_shown": 1,
               "total_lines": 1, "content": "     1\tfn login() {}\n", "mtime": 1763798400.0,
               "truncated": false}),
    );
    let mut tool = tool_message(&compress_to_string("Read", &read));
    tool.metadata = MessageMetadata {
        tool_name: Some("Read".into()),
        step: Some(1),
        ..MessageMetadata::default()
    };
    let history = vec![
        Message::user("Where is login?"),
        Message::assistant(
            "Thought: Look at auth.\nAction: Read[{\"file_path\": \"src/auth.rs\"}]",
        ),
        tool,
        Message::assistant("Thought: Found it.\nAction: Finish[`login` is in src/auth.rs:1.]"),
    ];
    let input = preprocess("Add a logout next to it in @src/auth.rs", &|p| {
        p == "src/auth.rs"
    })
    .text;
    let scratchpad = [ScratchStep {
        assistant: "Thought: Read it first.\nAction: Read[{\"file_path\": \"src/auth.rs\"}]".into(),
        observation: "     1\tfn login() {}\n[lines 1-1 of 1]".into(),
        compressed: String::new(),
        ..ScratchStep::default()
    }];
    let recap = todo_recap(&[
        TodoItem {
            id: "1".into(),
            content: "Read auth.rs".into(),
            status: TodoStatus::Completed,
        },
        TodoItem {
            id: "2".into(),
            content: "Add logout".into(),
            status: TodoStatus::InProgress,
        },
    ]);
    let request = ContextBuilder {
        system: &system,
        instructions: Some(&law),
        summaries: &summaries,
        history: &history,
        input: &input,
        scratchpad: &scratchpad,
        todo_recap: recap.as_deref(),
        protocol: ToolProtocol::Text,
    }
    .request();
    insta::assert_snapshot!(render(&request));
}
