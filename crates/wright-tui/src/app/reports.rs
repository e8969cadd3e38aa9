//! The reports the interactive session shows on request (`/context`, `/sessions`), written by
//! whoever launches it — the command line renders them as its own subcommands do, so both read
//! the same.

use std::path::Path;

use wright_core::compaction::ContextSettings;
use wright_store::{LoadedSession, SessionSummary};

/// Writes the reports the interactive session shows; handed over in [`Launch`](super::Launch).
pub trait Reports: Send {
    /// `/context`: what the next request of `session` (the one the user is in, as stored)
    /// would hold in the project at `root`, layer by layer, under `settings`.
    fn context(
        &self,
        root: &Path,
        session: Option<&LoadedSession>,
        settings: &ContextSettings,
    ) -> String;

    /// `/sessions`: the table of this project's sessions, most recent activity first.
    fn session_table(&self, summaries: &[SessionSummary]) -> String;
}
