//! wright's interactive terminal.
//!
//! `wright` with no arguments opens an interactive session in the current project: an input
//! area that stays responsive while the model streams, rendered inline below the terminal's own
//! scrollback (not a full-screen takeover). [`render`] turns what happens (Markdown answers,
//! diffs, tool calls, the status line) into styled lines; the application loop drives the agent
//! and the input.

pub mod render;
