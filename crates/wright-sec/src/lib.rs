//! `wright sec` (issue 16): a security scanner for C, C++ and Rust, after seed 002's
//! jarvis-sec. The direct scan parses each file with tree-sitter, so comments, strings and
//! `#if 0` blocks never match, and runs the rules of [`c`] and [`rust`] on the tree, with
//! simple facts within a function to cut false alarms. The result is a [`Scan`]: numbered
//! [`Issue`]s and a [`Summary`], written as JSON, Markdown or SARIF by [`report`].
//!
//! Not for: running a model (the verification of each finding by a read-only agent lives in
//! the CLI, which has the agent machinery), or anything outside the tree it is given.

pub mod c;
pub mod finding;
pub mod report;
pub mod rust;
pub mod scan;
pub mod verify;

pub use finding::{Finding, Issue, Language, Severity};
pub use report::Summary;
pub use scan::{Scan, ScanError, ScanOptions, scan};
