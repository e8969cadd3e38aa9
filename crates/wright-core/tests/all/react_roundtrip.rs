//! Property: any action wright serialises parses back to the same value.

use proptest::prelude::*;
use serde_json::{Map, Value};
use wright_core::react::{Action, Reply, parse_reply};
use wright_protocol::ToolCall;

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Strings heavy in the characters that could end an action early.
        "[\\[\\]{}\"\\\\ \n\tA-Za-z0-9é😀:]{0,20}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_\\]\"]{1,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-z_\\]\"]{1,8}", json_value(), 0..6)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>()))
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        ("[A-Z][A-Za-z]{0,10}", json_object())
            .prop_filter("Finish is not a tool", |(name, _)| name != "Finish")
            .prop_map(|(tool, args)| Action::Tool(ToolCall { tool, args })),
        "[\\[\\]{}\"\\\\ \n\tA-Za-z0-9é😀:]{0,40}".prop_map(Action::Finish),
    ]
}

proptest! {
    #[test]
    fn serialised_actions_parse_back_unchanged(action in action(), thought in "[A-Za-z ,.]{0,40}") {
        let reply = format!("Thought: {thought}\n{}", action.to_text());
        match parse_reply(&reply) {
            Reply::Step { action: parsed, text } => {
                prop_assert_eq!(parsed, action);
                prop_assert_eq!(text, reply.trim());
            }
            other => prop_assert!(false, "did not parse back: {:?}", other),
        }
    }
}
