//! The checkpoint store against the real `git`, on projects in temporary directories.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fixture;
mod incremental;
mod restore;
mod safety;
mod store;
