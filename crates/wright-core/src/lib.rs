//! The wright agent.
//!
//! This crate turns a user's request into a finished round: it assembles each request with the
//! ContextBuilder ([`context`]: L1 system prompt, L2 CODE_LAW.md, AGENTS.md, CLAUDE.md and
//! rules ([`instructions`], [`rules`]), L3 history, the user's input, the round's scratchpad,
//! the todo recap), streams the model's reply through the ReAct parser,
//! runs the tools the model asks for, and reports every step as an
//! [`Event`](wright_protocol::Event). It owns the ReAct text protocol ([`react`]) and the round
//! loop ([`Agent`]; a round that stops without an answer says why with a [`RoundError`]), asks
//! for [`approval`] before commands and file changes the mode does not allow, puts the model's
//! own questions to the user ([`ask_user`]), runs the user's [`hooks`] around tool calls, and
//! accounts for what the model calls [`cost`]. Front ends open
//! sessions and build their agents through [`session`]; what the records of a stored session
//! mean as rounds is [`stored`]. It does not talk HTTP itself (that is `wright-llm`), run tools
//! itself (that is `wright-tools`), store records itself (that is `wright-store`), or draw
//! anything (that is `wright-tui` and `wright-cli`).

pub mod approval;
pub mod ask_user;
pub mod checkpoint;
pub mod checks;
pub mod code_law;
pub mod commit;
pub mod compaction;
pub mod context;
pub mod cost;
pub mod environment;
mod error;
pub mod history;
pub mod hooks;
pub mod init;
pub mod instructions;
pub mod memory;
pub mod mention;
pub mod plan;
pub mod prompt;
pub mod react;
pub mod rewind;
mod round;
pub mod rules;
pub mod session;
#[cfg(test)]
mod spec_map;
pub mod stored;
pub mod subagent;
pub mod summarize;
mod summary;
pub mod tiers;
pub mod trim;
pub mod undo;

pub use error::RoundError;
pub use round::{
    Agent, AgentConfig, DEFAULT_MAX_STEPS, MAX_MALFORMED_REPLIES, RoundOutcome, ToolProtocol,
    UnknownToolProtocol,
};
pub use summary::result_summary;
