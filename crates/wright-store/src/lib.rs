//! wright's sessions on disk (DESIGN §7).
//!
//! A session is one JSONL file, `$WRIGHT_HOME/sessions/<project-key>/<session-id>.jsonl`, with one
//! [`Record`] per line: the session's [`SessionMeta`] first, then messages, usage, compactions
//! and round ends, appended and flushed as they happen so that a crash loses at most the step in
//! flight. Nothing is ever rewritten or deleted: compaction appends a record saying what it
//! archived. A torn last line (a crash mid-write) is skipped with a warning, never an error.
//!
//! This crate only stores and loads records; what they mean for the conversation (rounds,
//! archives, summaries) is `wright-core`'s business.

mod record;
mod store;

pub use record::{CompactionRecord, Record, RoundStatus, SessionMeta};
pub use store::{
    LoadedSession, SessionFile, SessionStore, StoreError, default_home, load, project_key,
};
