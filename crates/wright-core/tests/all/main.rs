//! wright-core's integration tests, as modules of one binary so that the crate and its
//! dependencies are linked once rather than once per file.

// Helpers, not tests, so `allow-unwrap-in-tests` does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod approval;
mod ask_user;
mod background_jobs;
mod compaction_window;
mod cost;
mod plan_mode;
mod react_roundtrip;
mod rendered_request;
mod repo_map;
mod subagents;
mod window;
