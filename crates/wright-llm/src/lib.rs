//! Model providers for wright: one [`LlmClient`] that sends a conversation to a model and
//! returns its reply as a [`Completion`], reporting deltas as [`StreamEvent`]s on the way.
//!
//! Two wire formats are spoken (DESIGN §6): OpenAI Chat Completions (OpenAI and every
//! compatible server) and Anthropic Messages. The client streams by default, retries failures
//! that may heal (connection errors, 408/409/429/5xx, streams cut or stalled mid-way) with
//! exponential backoff and `Retry-After`, and continues replies cut by the output-token
//! limit.
//!
//! This crate knows nothing about prompts, tools or the agent loop: its messages are plain
//! text, and it does not interpret what the model writes. Under native tool calling a request
//! may offer [`ToolDefinition`]s ([`LlmClient::complete_with_tools`]) and messages may carry
//! [`NativeToolCall`]s and their results; they are passed through as data, their arguments
//! never parsed or checked.

#![warn(missing_docs)]

mod anthropic;
mod chat;
mod client;
mod config;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod openai;
mod overflow;
mod retry;
mod sse;
mod tool_calls;
mod window;

pub use chat::{ChatMessage, ChatRequest, ChatRole, Completion, FinishReason, StreamEvent};
pub use client::LlmClient;
pub use config::{
    DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_OUTPUT_TOKENS,
    DEFAULT_OPENAI_BASE_URL, DEFAULT_REQUEST_TIMEOUT, DEFAULT_RETRY_BASE_DELAY,
    DEFAULT_STREAM_IDLE_TIMEOUT, LlmConfig, MAX_CONTINUATIONS, MAX_REPLY_BYTES_PER_TOKEN,
    MIN_MAX_REPLY_BYTES, ProviderKind,
};
pub use error::LlmError;
pub use wright_protocol::{NativeToolCall, ToolDefinition};
