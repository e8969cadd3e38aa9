//! wright-testkit's integration tests, as modules of one binary so that the crate and its
//! dependencies are linked once rather than once per file.

// Helpers, not tests, so `allow-unwrap-in-tests` does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic;
mod binary;
mod common;
mod openai;
mod responses;
mod server;
