//! wright-tools' integration tests, as modules of one binary so that the crate and its
//! dependencies are linked once rather than once per file.

// Helpers, not tests, so `allow-unwrap-in-tests` does not reach them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod background;
mod bash;
mod common;
mod compress;
mod confinement;
mod corpus_robustness;
mod definitions;
mod edit;
mod glob;
mod grep;
mod guard;
mod ls;
mod multi_edit;
mod preview;
mod protected;
mod read;
mod read_only;
mod registry;
mod repomap;
mod sandbox;
mod todo_write;
mod write;
