//! wright's interactive terminal.
//!
//! `wright` with no arguments opens an interactive session in the current project: an input
//! area that stays responsive while the model streams, rendered inline below the terminal's own
//! scrollback (not a full-screen takeover). [`render`] turns what happens (Markdown answers,
//! diffs, tool calls, the status line) into styled lines; [`app`] is the session itself: the
//! agent in its own task, the input, approvals, slash commands, and the loop between them.
//! Entry point: [`app::run`] with a [`app::Launch`] the command line resolves.

pub mod app;
pub mod render;
