//! wright's end-to-end tests: the real `wright` binary in a temporary project against the
//! scripted provider. They are modules of one test binary so that the crate and its
//! dependencies are linked once rather than once per file.

// Helpers, not tests, so `allow-unwrap-in-tests` does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents;
mod approval;
mod ask_user;
mod background;
mod check;
mod checks;
mod code_index;
mod commit;
mod common;
mod confinement;
mod context;
mod crash;
mod exec;
mod hooks;
mod init;
mod interactive;
mod interactive_commit;
mod interactive_init;
mod interactive_plan;
mod interactive_undo;
mod interrupt;
mod interrupted_step;
mod lifetime;
mod mcp;
mod memory;
mod native_tools;
mod plan;
mod prompt_cache;
mod rules;
mod sec;
mod sec_verify;
mod secrets;
mod sessions;
mod tool_cmd;
mod undo;
