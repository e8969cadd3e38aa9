//! DESIGN §9.2: large string arguments of Write/Edit/MultiEdit actions are trimmed in the
//! assistant message stored in history, with the same snippet limits as their results — the
//! model wrote them once and the file now holds them; carrying them in every later request
//! would only cost tokens.

use serde_json::Value;
use wright_protocol::{NativeToolCall, ToolCall};
use wright_tools::{Tool, ToolKind};

use crate::react::{Action, action_start};

/// Spec A3: Edit/Write snippets keep 20–50 lines; an argument keeps its first 20.
pub const MAX_ARG_LINES: usize = 20;
/// Longest argument kept whole, in characters.
pub const MAX_ARG_CHARS: usize = 2_000;

/// The step text as history stores it: the thought as written, then the action with the
/// arguments the tool keeps for history ([`Tool::history_args`]: TodoWrite's recap), or with
/// large content arguments trimmed when the tool edits files (their string arguments carry
/// file content). Other tools' steps, and calls of no known tool, are returned unchanged.
pub fn history_step_text(text: &str, call: &ToolCall, tool: Option<&dyn Tool>) -> String {
    let Some(tool) = tool else {
        return text.to_string();
    };
    let args = tool.history_args(&call.args).or_else(|| {
        let mut args = call.args.clone();
        (tool.kind() == ToolKind::Edit && trim_value(&mut args)).then_some(args)
    });
    let Some(args) = args else {
        return text.to_string();
    };
    let thought = action_start(text).map_or("", |start| &text[..start]);
    let action = Action::Tool(ToolCall {
        tool: call.tool.clone(),
        args,
    });
    format!("{thought}{}", action.to_text())
}

/// A native tool call (issue 19) as history stores it, by the rule of [`history_step_text`]:
/// the arguments the tool keeps for history, or its large content arguments trimmed when it
/// edits files. Arguments that are not JSON keep their first [`MAX_ARG_CHARS`] characters (a
/// reply cut by the output limit may hold a whole file's worth); calls of no known tool are
/// kept as sent.
pub fn history_call(call: &NativeToolCall, tool: Option<&dyn Tool>) -> NativeToolCall {
    let Ok(mut args) = serde_json::from_str::<Value>(&call.arguments) else {
        let chars = call.arguments.chars().count();
        let arguments = if chars > MAX_ARG_CHARS {
            let head: String = call.arguments.chars().take(MAX_ARG_CHARS).collect();
            format!("{head}… [not JSON; trimmed in history: {chars} characters in all]")
        } else {
            call.arguments.clone()
        };
        return NativeToolCall {
            arguments,
            ..call.clone()
        };
    };
    let kept = tool.and_then(|tool| {
        let args = match tool.history_args(&args) {
            Some(args) => args,
            None if tool.kind() == ToolKind::Edit && trim_value(&mut args) => args,
            None => return None,
        };
        serde_json::to_string(&args).ok()
    });
    match kept {
        Some(arguments) => NativeToolCall {
            arguments,
            ..call.clone()
        },
        None => call.clone(),
    }
}

/// Trims every long string inside `value`; says whether anything was trimmed.
fn trim_value(value: &mut Value) -> bool {
    match value {
        Value::String(text) => match trimmed(text) {
            Some(short) => {
                *text = short;
                true
            }
            None => false,
        },
        // Every element is visited: no short-circuit, all long strings get trimmed.
        Value::Array(items) => items.iter_mut().map(trim_value).filter(|t| *t).count() > 0,
        Value::Object(map) => map.values_mut().map(trim_value).filter(|t| *t).count() > 0,
        _ => false,
    }
}

fn trimmed(text: &str) -> Option<String> {
    let lines = text.lines().count();
    if lines <= MAX_ARG_LINES && text.chars().count() <= MAX_ARG_CHARS {
        return None;
    }
    let mut kept: String = text
        .lines()
        .take(MAX_ARG_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    if kept.chars().count() > MAX_ARG_CHARS {
        kept = kept.chars().take(MAX_ARG_CHARS).collect();
    }
    let dropped = lines.saturating_sub(MAX_ARG_LINES);
    Some(format!(
        "{kept}\n… [trimmed in history: {dropped} more lines, {} characters in all; the file holds the full text]",
        text.chars().count()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn native_arguments_that_are_not_json_keep_their_head_in_history() {
        let long = format!(
            "{{\"file_path\": \"a\", \"content\": \"{}",
            "x".repeat(10_000)
        );
        let kept = history_call(&NativeToolCall::new("c", "Write", long), None);
        assert!(kept.arguments.chars().count() < MAX_ARG_CHARS + 80);
        assert!(
            kept.arguments
                .ends_with("… [not JSON; trimmed in history: 10031 characters in all]"),
            "{}",
            kept.arguments
        );
        let short = NativeToolCall::new("c", "Write", "{bad");
        assert_eq!(history_call(&short, None), short);
    }
    use wright_tools::ToolRegistry;

    fn call(tool: &str, args: Value) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            args,
        }
    }

    /// The step text history stores for `call` written as `text`, by the built-in tools.
    fn stored(text: &str, call: &ToolCall) -> String {
        let tools = ToolRegistry::builtin();
        history_step_text(text, call, tools.get(&call.tool))
    }

    #[test]
    fn a_large_write_is_trimmed_to_twenty_lines_and_keeps_its_thought() {
        let content: String = (1..=300).map(|i| format!("line {i}\n")).collect();
        let call = call("Write", json!({"file_path": "a.txt", "content": content}));
        let text = format!(
            "Thought: write it\n{}",
            Action::Tool(call.clone()).to_text()
        );
        let stored = stored(&text, &call);
        assert!(stored.starts_with("Thought: write it\nAction: Write["));
        assert!(stored.contains("line 20\\n…"), "{stored}");
        assert!(!stored.contains("line 21\\n"));
        assert!(stored.contains("280 more lines"));
        assert!(stored.len() < text.len() / 3);
    }

    #[test]
    fn small_edits_and_other_tools_are_stored_as_written() {
        let edit = call(
            "Edit",
            json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
        );
        let text = "Thought: t\nAction: Edit[{\"file_path\":\"a\",\"old_string\":\"x\",\"new_string\":\"y\"}]";
        assert_eq!(stored(text, &edit), text);
        let bash = call("Bash", json!({"command": "x\n".repeat(500)}));
        assert_eq!(stored("anything", &bash), "anything");
        let unknown = call("NoSuchTool", json!({"content": "x\n".repeat(500)}));
        assert_eq!(stored("anything", &unknown), "anything");
    }

    #[test]
    fn multi_edit_strings_inside_the_edits_array_are_trimmed() {
        let long = "z\n".repeat(200);
        let call = call(
            "MultiEdit",
            json!({"file_path": "a", "edits": [{"old_string": "short", "new_string": long}]}),
        );
        let stored = stored(&Action::Tool(call.clone()).to_text(), &call);
        assert!(stored.contains("\"old_string\":\"short\""));
        assert!(stored.contains("180 more lines"));
    }

    #[test]
    fn a_todo_write_keeps_only_its_recap_in_history() {
        let items: Vec<Value> = (1..=12)
            .map(|i| {
                let status = match i {
                    1..=4 => "completed",
                    5 => "in_progress",
                    _ => "pending",
                };
                json!({"id": i.to_string(), "content": format!("step number {i} of the plan"), "status": status})
            })
            .collect();
        let call = call("TodoWrite", json!({ "todos": items }));
        let text = format!("Thought: plan\n{}", Action::Tool(call.clone()).to_text());
        let stored = stored(&text, &call);
        assert!(
            stored.starts_with("Thought: plan\nAction: TodoWrite["),
            "{stored}"
        );
        assert!(stored.contains("12 todos"), "{stored}");
        assert!(stored.contains("step number 5 of the plan"), "{stored}");
        assert!(!stored.contains("step number 6"), "{stored}");
        assert!(stored.len() < text.len() / 4, "{stored}");
    }
}
