//! The built-in registry as the core and the CLI use it.

use pretty_assertions::assert_eq;
use serde_json::json;
use wright_protocol::{ErrorCode, ToolCall};
use wright_tools::{ToolContext, ToolRegistry};

/// Spec: each tool prompt is concise; together they must not crowd the system prompt.
const MAX_DESCRIPTION_BYTES_PER_TOOL: usize = 1_100;

#[test]
fn descriptions_hold_every_tool_with_one_example_each() {
    let registry = ToolRegistry::builtin();
    let descriptions = registry.descriptions();
    assert!(descriptions.starts_with("## Read\n"));
    for name in registry.names() {
        assert!(descriptions.contains(&format!("## {name}\n")), "{name}");
        let example = format!("Action: {name}[{{");
        assert_eq!(descriptions.matches(&example).count(), 1, "{name}");
        let description = registry.get(name).unwrap().description();
        assert!(
            description.len() <= MAX_DESCRIPTION_BYTES_PER_TOOL,
            "{name}: {} bytes",
            description.len()
        );
    }
}

#[test]
fn definitions_carry_each_offered_tool_with_its_description_and_schema() {
    let registry = ToolRegistry::builtin();
    let definitions = registry.definitions_where(|t| t.name() == "Read" || t.name() == "Grep");
    let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["Read", "Grep"]);
    let read = registry.get("Read").unwrap();
    assert_eq!(definitions[0].description, read.description().trim());
    assert_eq!(definitions[0].parameters, read.schema());
    assert_eq!(
        registry.definitions_where(|_| true).len(),
        registry.names().len()
    );
}

#[test]
fn get_finds_tools_by_exact_name() {
    let registry = ToolRegistry::builtin();
    assert_eq!(registry.get("Read").map(|t| t.name()), Some("Read"));
    assert!(registry.get("read").is_none());
}

#[tokio::test]
async fn unknown_tool_names_the_valid_ones() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let call = ToolCall {
        tool: "Grpe".into(),
        args: json!({"pattern": "x"}),
    };
    let result = ToolRegistry::builtin().run(&call, &ctx).await;
    let error = result.error.unwrap();
    assert_eq!(error.code, ErrorCode::UnknownTool);
    assert!(
        error.message.contains("Read, Write, Edit"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn stats_and_context_are_filled() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let args = json!({"file_path": "a.txt", "extra": true});
    let call = ToolCall {
        tool: "Read".into(),
        args: args.clone(),
    };
    let result = ToolRegistry::builtin().run(&call, &ctx).await;
    assert!(result.is_success(), "{}", result.text);
    assert_eq!(result.context, args);
    assert!(result.stats["duration_ms"].is_u64());
}
