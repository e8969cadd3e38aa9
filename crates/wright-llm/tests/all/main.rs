//! wright-llm's integration tests, as modules of one binary so that the crate and its
//! dependencies are linked once rather than once per file.

mod anthropic;
mod common;
mod continuation;
mod limits;
mod native;
mod openai;
mod retries;
mod window;
