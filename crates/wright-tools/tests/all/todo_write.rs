//! The TodoWrite tool through the registry, and the todo recap the core closes requests with.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, TodoItem, TodoStatus, ToolCall, ToolResult};
use wright_tools::{ToolContext, ToolRegistry, compress, todo_recap};

use crate::common::project;

async fn todo_write(ctx: &ToolContext, todos: Value) -> ToolResult {
    let call = ToolCall {
        tool: "TodoWrite".into(),
        args: json!({ "todos": todos }),
    };
    ToolRegistry::builtin().run(&call, ctx).await
}

fn item(id: &str, content: &str, status: TodoStatus) -> TodoItem {
    TodoItem {
        id: id.into(),
        content: content.into(),
        status,
    }
}

fn three() -> Value {
    json!([
        {"id": "1", "content": "Write tests", "status": "completed"},
        {"id": "2", "content": "Fix the parser", "status": "in_progress"},
        {"id": "3", "content": "Update docs", "status": "pending"},
    ])
}

/// The error code and message of a failed call.
fn refusal(result: &ToolResult) -> (ErrorCode, &str) {
    let error = result.error.as_ref().expect("an error result");
    (error.code, error.message.as_str())
}

#[tokio::test]
async fn a_list_is_rendered_as_a_checklist_with_counts() {
    let (_dir, ctx) = project();
    let result = todo_write(&ctx, three()).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(
        result.text,
        "Todo list updated: 3 todos: 1 completed, 1 in progress (\"Fix the parser\"), 1 pending\n\
         [x] Write tests (id: 1)\n\
         [>] Fix the parser (id: 2)\n\
         [ ] Update docs (id: 3)"
    );
    assert_eq!(
        result.data,
        json!({
            "todos": three(),
            "total": 3,
            "completed": 1,
            "in_progress": 1,
            "pending": 1,
            "recap": "3 todos: 1 completed, 1 in progress (\"Fix the parser\"), 1 pending",
        })
    );
}

#[tokio::test]
async fn each_call_replaces_the_whole_list() {
    let (_dir, ctx) = project();
    todo_write(&ctx, three()).await;
    let second = json!([{"id": "9", "content": "Ship it", "status": "pending"}]);
    let result = todo_write(&ctx, second).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(ctx.todos(), vec![item("9", "Ship it", TodoStatus::Pending)]);
}

#[tokio::test]
async fn an_empty_list_clears_it() {
    let (_dir, ctx) = project();
    todo_write(&ctx, three()).await;
    let result = todo_write(&ctx, json!([])).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.text, "Todo list cleared.");
    assert_eq!(result.data["total"], 0);
    assert_eq!(ctx.todos(), vec![]);
}

#[tokio::test]
async fn two_items_in_progress_are_refused_by_id_and_the_list_is_kept() {
    let (_dir, ctx) = project();
    todo_write(&ctx, three()).await;
    let result = todo_write(
        &ctx,
        json!([
            {"id": "a", "content": "One", "status": "in_progress"},
            {"id": "b", "content": "Two", "status": "in_progress"},
        ]),
    )
    .await;
    let (code, message) = refusal(&result);
    assert_eq!(code, ErrorCode::InvalidArguments);
    assert!(
        message.contains("at most one todo may be in_progress, but 2 are (`a`, `b`)"),
        "{message}"
    );
    assert_eq!(ctx.todos().len(), 3, "a refused call changes nothing");
}

#[tokio::test]
async fn duplicate_ids_are_refused_by_name() {
    let (_dir, ctx) = project();
    let result = todo_write(
        &ctx,
        json!([
            {"id": "x", "content": "One", "status": "pending"},
            {"id": "x", "content": "Two", "status": "pending"},
        ]),
    )
    .await;
    let (code, message) = refusal(&result);
    assert_eq!(code, ErrorCode::InvalidArguments);
    assert!(
        message.contains("ids must be unique, but `x` is used more than once"),
        "{message}"
    );
    assert_eq!(ctx.todos(), vec![]);
}

#[tokio::test]
async fn empty_content_is_refused() {
    let (_dir, ctx) = project();
    let result = todo_write(
        &ctx,
        json!([{"id": "1", "content": "  ", "status": "pending"}]),
    )
    .await;
    let (code, message) = refusal(&result);
    assert_eq!(code, ErrorCode::InvalidArguments);
    assert!(
        message.contains("todo `1` has empty `content`"),
        "{message}"
    );
}

#[tokio::test]
async fn an_unknown_status_is_named_with_the_expected_shape() {
    let (_dir, ctx) = project();
    let result = todo_write(&ctx, json!([{"id": "1", "content": "x", "status": "done"}])).await;
    let (code, message) = refusal(&result);
    assert_eq!(code, ErrorCode::InvalidArguments);
    assert!(message.contains("field `todos[0].status`"), "{message}");
    assert!(
        message.contains(r#""status": "pending"|"in_progress"|"completed""#),
        "{message}"
    );
}

#[test]
fn the_recap_puts_the_item_in_progress_first_then_pending_then_completed() {
    let todos = [
        item("1", "Write tests", TodoStatus::Completed),
        item("2", "Update docs", TodoStatus::Pending),
        item("3", "Fix the parser", TodoStatus::InProgress),
        item("4", "Release", TodoStatus::Pending),
    ];
    assert_eq!(
        todo_recap(&todos).unwrap(),
        "Todo list, 4 todos: 1 completed, 1 in progress, 2 pending\n\
         [>] Fix the parser (id: 3)\n\
         [ ] Update docs (id: 2)\n\
         [ ] Release (id: 4)\n\
         [x] Write tests (id: 1)"
    );
}

#[test]
fn there_is_no_recap_without_a_list() {
    assert_eq!(todo_recap(&[]), None);
}

#[tokio::test]
async fn history_keeps_only_the_recap() {
    let (_dir, ctx) = project();
    let result = todo_write(&ctx, three()).await;
    assert_eq!(
        compress("TodoWrite", &result),
        json!({
            "status": "success",
            "data": {"recap": "3 todos: 1 completed, 1 in progress (\"Fix the parser\"), 1 pending"},
        })
    );
}

#[test]
fn the_tool_comes_before_bash_with_a_short_prompt_and_one_example() {
    let registry = ToolRegistry::builtin();
    let names = registry.names();
    let todo = names.iter().position(|name| *name == "TodoWrite").unwrap();
    assert_eq!(&names[todo..todo + 2], ["TodoWrite", "Bash"]);
    let description = registry.get("TodoWrite").unwrap().description();
    assert!(description.len() <= 800, "{} bytes", description.len());
    assert_eq!(
        description
            .matches("Action: TodoWrite[{\"todos\": [")
            .count(),
        1
    );
    assert!(description.contains("exactly one item `in_progress`"));
}

#[tokio::test]
async fn the_shape_without_ids_is_numbered_in_order_and_active_form_is_ignored() {
    let (_dir, ctx) = project();
    let result = todo_write(
        &ctx,
        json!([
            {"content": "Write tests", "status": "completed", "activeForm": "Writing tests"},
            {"content": "Fix the parser", "status": "in_progress", "activeForm": "Fixing the parser"},
            {"content": "Update docs", "status": "pending", "activeForm": "Updating docs"},
        ]),
    )
    .await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(
        ctx.todos(),
        vec![
            item("1", "Write tests", TodoStatus::Completed),
            item("2", "Fix the parser", TodoStatus::InProgress),
            item("3", "Update docs", TodoStatus::Pending),
        ]
    );
    assert_eq!(result.data["todos"], three());
}

#[tokio::test]
async fn wright_s_own_shape_keeps_the_ids_it_was_given() {
    let (_dir, ctx) = project();
    let result = todo_write(
        &ctx,
        json!([
            {"id": "b", "content": "Second", "status": "pending"},
            {"id": "a", "content": "First", "status": "in_progress"},
        ]),
    )
    .await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(
        ctx.todos(),
        vec![
            item("b", "Second", TodoStatus::Pending),
            item("a", "First", TodoStatus::InProgress),
        ]
    );
}

#[tokio::test]
async fn in_a_mixed_list_generated_ids_never_repeat_a_given_one() {
    let (_dir, ctx) = project();
    let result = todo_write(
        &ctx,
        json!([
            {"content": "One", "status": "completed"},
            {"id": "1", "content": "Two", "status": "pending", "activeForm": "Doing two"},
            {"content": "Three", "status": "pending"},
            {"id": "x", "content": "Four", "status": "pending"},
        ]),
    )
    .await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(
        ctx.todos(),
        vec![
            item("2", "One", TodoStatus::Completed),
            item("1", "Two", TodoStatus::Pending),
            item("3", "Three", TodoStatus::Pending),
            item("x", "Four", TodoStatus::Pending),
        ]
    );
}

#[test]
fn the_schema_advertises_wright_s_shape_with_the_id_optional() {
    let schema = ToolRegistry::builtin().get("TodoWrite").unwrap().schema();
    let item = &schema["properties"]["todos"]["items"];
    let mut properties: Vec<&str> = item["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    properties.sort_unstable();
    assert_eq!(properties, ["content", "id", "status"]);
    assert_eq!(item["required"], json!(["content", "status"]));
}
