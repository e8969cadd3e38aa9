//! The TodoWrite tool: replaces the agent's todo list, and the todo recap that closes every
//! request (spec A3: history keeps only the recap).
//!
//! Two shapes of list are read: wright's own, `{"id", "content", "status"}`, which the schema
//! advertises, and the shape many models were trained on (Claude Code's), `{"content",
//! "status", "activeForm"}`, without ids: a missing id is numbered by the item's place in the
//! list, and `activeForm` is ignored like any unknown field.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use wright_protocol::{TodoItem, TodoStatus, ToolError, ToolResult};

use crate::args::{Typed, invalid, schema_of};
use crate::data::{TodoData, to_value};
use crate::{Prepared, Tool, ToolContext, ToolKind};

const SHAPE: &str = r#"{"todos": [{"id"?: string, "content": string, "status": "pending"|"in_progress"|"completed"}, ...]}"#;

/// Replaces the todo list kept in the [`ToolContext`] with the one the model sends.
#[derive(Debug, Clone, Copy, Default)]
pub struct TodoWriteTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct TodoWriteArgs {
    todos: Vec<TodoArg>,
}

/// One item as the model sends it: a [`TodoItem`] whose id may be left out.
#[derive(Debug, Deserialize, JsonSchema)]
struct TodoArg {
    /// The item's identifier; when left out, its place in the list ("1", "2", …).
    id: Option<String>,
    /// What is to be done.
    content: String,
    /// Where it stands.
    status: TodoStatus,
}

/// The list with every id filled in: an item without one gets its place in the list, or the
/// next number after it that no other item uses, so a generated id never repeats a given one.
fn with_ids(todos: Vec<TodoArg>) -> Vec<TodoItem> {
    let given: HashSet<String> = todos.iter().filter_map(|t| t.id.clone()).collect();
    let mut generated = HashSet::new();
    todos
        .into_iter()
        .enumerate()
        .map(|(index, todo)| {
            let id = todo.id.unwrap_or_else(|| {
                let mut n = index + 1;
                while given.contains(&n.to_string()) || generated.contains(&n) {
                    n += 1;
                }
                generated.insert(n);
                n.to_string()
            });
            TodoItem {
                id,
                content: todo.content,
                status: todo.status,
            }
        })
        .collect()
}

impl Tool for TodoWriteTool {
    fn name(&self) -> &'static str {
        "TodoWrite"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/todo_write.md")
    }

    fn schema(&self) -> Value {
        schema_of::<TodoWriteArgs>()
    }

    /// It changes only the agent's own list, but two lists sent at once would race.
    fn concurrency_safe(&self) -> bool {
        false
    }

    /// Spec A3 keeps only the recap of a todo list in history: the stored action says what the
    /// list was in one line, and the current list closes every request.
    fn history_args(&self, args: &Value) -> Option<Value> {
        /// What the recap needs of an item, whatever else the model wrote in it.
        #[derive(Deserialize)]
        struct Item {
            #[serde(default)]
            content: String,
            status: TodoStatus,
        }
        #[derive(Deserialize)]
        struct Listed {
            todos: Vec<Item>,
        }
        let listed = Listed::deserialize(args).ok()?;
        let todos: Vec<TodoItem> = listed
            .todos
            .into_iter()
            .map(|item| TodoItem {
                id: String::new(),
                content: item.content,
                status: item.status,
            })
            .collect();
        let recap = one_line_recap(&todos);
        Some(
            json!({ "todos": format!("[{recap}; trimmed in history: the current list closes the request]") }),
        )
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Typed::prepare("TodoWrite", args, SHAPE, |args, ctx| {
            Box::pin(std::future::ready(todo_write(args, ctx)))
        })
    }
}

fn todo_write(args: TodoWriteArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let todos = with_ids(args.todos);
    validate(&todos)?;
    let counts = Counts::of(&todos);
    let recap = one_line_recap(&todos);
    let text = if todos.is_empty() {
        "Todo list cleared.".to_string()
    } else {
        let mut text = format!("Todo list updated: {recap}\n");
        text.push_str(&checklist(todos.iter()));
        text
    };
    let data = TodoData {
        todos: todos.clone(),
        total: todos.len(),
        completed: counts.completed,
        in_progress: counts.in_progress,
        pending: counts.pending,
        recap,
    };
    ctx.set_todos(todos);
    Ok(ToolResult::success(text, to_value(&data)))
}

/// Refuses blank ids or content, duplicate ids, and more than one item in progress; the list
/// is kept as it was.
fn validate(todos: &[TodoItem]) -> Result<(), ToolError> {
    if let Some(index) = todos.iter().position(|t| t.id.trim().is_empty()) {
        let problem = format!(
            "todo {} has an empty `id`; give it an id or leave `id` out",
            index + 1
        );
        return Err(invalid("TodoWrite", &problem, SHAPE));
    }
    if let Some(todo) = todos.iter().find(|t| t.content.trim().is_empty()) {
        let problem = format!(
            "todo `{}` has empty `content`; say what is to be done",
            todo.id
        );
        return Err(invalid("TodoWrite", &problem, SHAPE));
    }
    let mut seen = HashSet::new();
    let mut duplicates: Vec<&str> = Vec::new();
    for todo in todos {
        if !seen.insert(todo.id.as_str()) && !duplicates.contains(&todo.id.as_str()) {
            duplicates.push(&todo.id);
        }
    }
    if !duplicates.is_empty() {
        let verb = if duplicates.len() == 1 { "is" } else { "are" };
        let problem = format!(
            "ids must be unique, but {} {verb} used more than once",
            quoted(&duplicates)
        );
        return Err(invalid("TodoWrite", &problem, SHAPE));
    }
    let in_progress: Vec<&str> = todos
        .iter()
        .filter(|t| t.status == TodoStatus::InProgress)
        .map(|t| t.id.as_str())
        .collect();
    if in_progress.len() > 1 {
        let problem = format!(
            "at most one todo may be in_progress, but {} are ({}); keep one in_progress and make \
             the others pending or completed",
            in_progress.len(),
            quoted(&in_progress)
        );
        return Err(invalid("TodoWrite", &problem, SHAPE));
    }
    Ok(())
}

/// `` `a`, `b` ``: ids as the model wrote them.
fn quoted(ids: &[&str]) -> String {
    ids.iter()
        .map(|id| format!("`{id}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How many items stand where.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    completed: usize,
    in_progress: usize,
    pending: usize,
}

impl Counts {
    fn of(todos: &[TodoItem]) -> Self {
        let mut counts = Self::default();
        for todo in todos {
            match todo.status {
                TodoStatus::Completed => counts.completed += 1,
                TodoStatus::InProgress => counts.in_progress += 1,
                TodoStatus::Pending => counts.pending += 1,
            }
        }
        counts
    }

    /// `1 completed, 1 in progress, 1 pending`, leaving out the empty states.
    fn describe(self, in_progress_content: Option<&str>) -> String {
        let mut parts = Vec::new();
        if self.completed > 0 {
            parts.push(format!("{} completed", self.completed));
        }
        if self.in_progress > 0 {
            let mut part = format!("{} in progress", self.in_progress);
            if let Some(content) = in_progress_content {
                part.push_str(&format!(" ({content:?})"));
            }
            parts.push(part);
        }
        if self.pending > 0 {
            parts.push(format!("{} pending", self.pending));
        }
        parts.join(", ")
    }
}

/// `3 todos: 1 completed, 1 in progress ("Fix the parser"), 1 pending`; `no todos` for an
/// empty list.
fn one_line_recap(todos: &[TodoItem]) -> String {
    if todos.is_empty() {
        return "no todos (list cleared)".to_string();
    }
    let current = todos
        .iter()
        .find(|t| t.status == TodoStatus::InProgress)
        .map(|t| t.content.as_str());
    format!(
        "{}: {}",
        todo_count(todos.len()),
        Counts::of(todos).describe(current)
    )
}

/// `1 todo`, `3 todos`.
fn todo_count(n: usize) -> String {
    match n {
        1 => "1 todo".to_string(),
        n => format!("{n} todos"),
    }
}

/// The checklist marker of a status: `[x]` completed, `[>]` in progress, `[ ]` pending.
fn marker(status: TodoStatus) -> &'static str {
    match status {
        TodoStatus::Completed => "[x]",
        TodoStatus::InProgress => "[>]",
        TodoStatus::Pending => "[ ]",
    }
}

/// One line per item: `[>] Fix the parser (id: 2)`, newline-separated.
fn checklist<'a>(todos: impl Iterator<Item = &'a TodoItem>) -> String {
    todos
        .map(|t| format!("{} {} (id: {})", marker(t.status), t.content.trim(), t.id))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The todo recap that closes every request while a list exists, or `None` for an empty list.
///
/// A header line with the counts, then the item in progress, the pending items and the
/// completed ones, each on its own line with its status marker and id (the model needs the
/// ids to send the whole list back with TodoWrite).
pub fn todo_recap(todos: &[TodoItem]) -> Option<String> {
    if todos.is_empty() {
        return None;
    }
    let counts = Counts::of(todos);
    let in_state = |status| todos.iter().filter(move |t: &&TodoItem| t.status == status);
    let ordered = in_state(TodoStatus::InProgress)
        .chain(in_state(TodoStatus::Pending))
        .chain(in_state(TodoStatus::Completed));
    Some(format!(
        "Todo list, {}: {}\n{}",
        todo_count(todos.len()),
        counts.describe(None),
        checklist(ordered)
    ))
}

/// The history form of a TodoWrite result's `data` (spec A3: the recap only), or `None` if it
/// holds neither a recap nor a readable list.
pub(crate) fn compressed_recap(data: &Value) -> Option<Value> {
    /// What history needs of a [`TodoData`]: its recap, or the list to make one from.
    #[derive(Deserialize)]
    struct Seen {
        recap: Option<String>,
        todos: Option<Vec<TodoItem>>,
    }
    let seen: Seen = crate::data::read_object(data)?;
    let recap = match (seen.recap, seen.todos) {
        (Some(recap), _) => recap,
        (None, Some(todos)) => one_line_recap(&todos),
        (None, None) => return None,
    };
    Some(json!({ "recap": recap }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn item(id: &str, content: &str, status: TodoStatus) -> TodoItem {
        TodoItem {
            id: id.into(),
            content: content.into(),
            status,
        }
    }

    #[test]
    fn one_line_recap_names_the_item_in_progress() {
        let todos = [
            item("1", "Write tests", TodoStatus::Completed),
            item("2", "Fix the parser", TodoStatus::InProgress),
            item("3", "Update docs", TodoStatus::Pending),
        ];
        assert_eq!(
            one_line_recap(&todos),
            r#"3 todos: 1 completed, 1 in progress ("Fix the parser"), 1 pending"#
        );
    }

    #[test]
    fn one_line_recap_leaves_out_empty_states() {
        let todos = [item("a", "Plan", TodoStatus::Pending)];
        assert_eq!(one_line_recap(&todos), "1 todo: 1 pending");
    }

    #[test]
    fn compressed_recap_prefers_the_stored_recap_and_can_rebuild_it() {
        assert_eq!(
            compressed_recap(&json!({"recap": "r", "todos": []})),
            Some(json!({"recap": "r"}))
        );
        assert_eq!(
            compressed_recap(&json!({"todos": [{"id": "1", "content": "x", "status": "pending"}]})),
            Some(json!({"recap": "1 todo: 1 pending"}))
        );
        assert_eq!(compressed_recap(&json!({"other": 1})), None);
    }
}
