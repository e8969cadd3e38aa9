//! The agent's todo list (TodoWrite), which feeds the todo recap at the end of each request.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a todo item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on; at most one item at a time.
    InProgress,
    /// Done.
    Completed,
}

/// One item of the todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TodoItem {
    /// The model's identifier for the item.
    pub id: String,
    /// What is to be done.
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
}
