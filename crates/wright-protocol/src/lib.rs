//! Plain data shared by every wright crate.
//!
//! This crate holds the vocabulary the others speak: conversation [`Message`]s, the
//! [`ToolCall`] a model asks for and the [`ToolResult`] a tool returns, token [`Usage`], and the
//! [`Event`] stream that `wright exec --json` prints, and for native tool calling the
//! [`ToolDefinition`]s a model call offers and the [`NativeToolCall`]s a model makes. It does no I/O and knows nothing about
//! providers, tools or the terminal; everything here is serde data.

mod event;
mod job;
mod message;
mod native;
pub mod text;
mod todo;
mod tool;
mod usage;

pub use event::{ActionKind, ApprovalVerdict, Event, FailureCode, UsageCall};
pub use job::{JobEnded, JobStatus};
pub use message::{Message, MessageMetadata, Role};
pub use native::{NativeToolCall, ToolDefinition};
pub use todo::{TodoItem, TodoStatus};
pub use tool::{
    CheckFailure, ErrorCode, HistoryResult, ToolCall, ToolError, ToolResult, ToolStatus,
};
pub use usage::Usage;
