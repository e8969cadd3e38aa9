//! A scripted fake model provider for tests.
//!
//! [`TestServer`] is a real HTTP/1.1 server on 127.0.0.1 that speaks both provider wire
//! formats wright talks to — OpenAI Chat Completions (paths ending in `/chat/completions`)
//! and Anthropic Messages (paths ending in `/v1/messages`) — and OpenAI Responses (paths
//! ending in `/responses`, so that Codex CLI can be benchmarked), streamed (SSE) or not. It hands
//! out the responses of a [`Script`] one per request, in order, and records every request
//! so a test can assert on what the client sent. Scripted responses can also misbehave the
//! ways real providers do: error statuses with `Retry-After`, slow heads, slow streams,
//! streams cut before any event or cut or stalled mid-message, and arbitrary raw SSE. Replies
//! can make native tool calls ([`ScriptedResponse::tool_calls`]) in any format. Fixed
//! JSON documents can be served at other paths (a local server's `/props`, `/v1/models`,
//! `/api/show`).
//!
//! ```no_run
//! use wright_testkit::{Script, ScriptedResponse, TestServer};
//!
//! let server = TestServer::start(Script::new(vec![
//!     ScriptedResponse::status(429, "slow down").with_header("Retry-After", "1"),
//!     ScriptedResponse::text("Thought: done\nAction: Finish[ok]").with_usage(10, 5),
//! ]))?;
//! // Point a provider client at `server.url()`, run it, then:
//! assert!(server.requests().len() <= 2);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! The `wright-testkit serve SCRIPT.json` binary runs the same server so a person can try
//! wright without an API key.
//!
//! It is **not** a provider emulator: it does not read the prompt, count tokens, call
//! tools, or validate requests beyond routing them. Every reply is exactly what the
//! script says. It only ever binds 127.0.0.1.

mod anthropic;
mod http;
pub mod mcp_server;
mod openai;
#[cfg(target_os = "linux")]
pub mod processes;
mod responses;
pub mod scratch;
mod script;
mod server;
mod wire;

pub use http::RecordedRequest;
pub use script::{Document, Route, Script, ScriptedResponse, ScriptedToolCall, ScriptedUsage};
pub use server::{ServerOptions, TestServer};
