//! wright's sessions on disk (DESIGN §7).
//!
//! A session is one JSONL file, `$WRIGHT_HOME/sessions/<project-key>/<session-id>.jsonl`, with one
//! [`Record`] per line: the session's [`SessionMeta`] first, then messages, usage, compactions
//! and round ends, appended and flushed as they happen so that a crash loses at most the step in
//! flight. Nothing in a file is ever rewritten: compaction appends a record saying what it
//! archived. A torn last line (a crash mid-write) is skipped with a warning, never an error, as is
//! a line over [`MAX_RECORD_BYTES`] (a record that large is refused, never written), and
//! a file only appears under its session name once its meta line is complete, so a crash at any
//! moment leaves every session loadable. A file whose meta line is damaged some other way is
//! listed as damaged, never skipped in silence. A named session is created under a lock, so
//! processes opening the same new name at once make one session of it; a process that finds
//! the session's file held by another (running a round in it) can wait for it, to a bound,
//! and then continue the session with what the other wrote. Whole sessions are listed, found by id, id prefix or
//! name, and removed on request.
//!
//! It also keeps the memory that lasts across sessions ([`memory`], issue 17): one small
//! JSON-lines file per scope, rewritten whole under a lock.
//!
//! This crate only stores and loads records; what they mean for the conversation (rounds,
//! archives, summaries) is `wright-core`'s business.

mod catalog;
mod lines;
pub mod memory;
mod record;
mod store;
mod wait;

pub use catalog::{MIN_ID_PREFIX, SessionSummary};
pub use lines::MAX_RECORD_BYTES;
pub use record::{
    CheckpointKind, CheckpointRecord, CommitRecord, CompactionRecord, Record, RewindRecord,
    RoundStatus, SessionMeta, UsageKind,
};
pub use store::{
    DamagedSession, LoadedSession, NamedSession, SessionFile, SessionStore, StoreError,
    default_home, legacy_project_key, load, project_key,
};
pub use wait::{BusySession, NamedSessionFile};
