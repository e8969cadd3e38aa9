//! Opening the session a command works in: `--session NAME` continues the newest session of
//! that name in this project (or creates it); without a name, each `exec` starts a new one.

use wright_core::history::HistoryManager;
use wright_store::{LoadedSession, SessionStore, StoreError};

/// A session ready for a round.
pub struct OpenSession {
    /// The session's id.
    pub id: String,
    /// Its history, written through to its file.
    pub history: HistoryManager,
    /// Lines of the file that could not be read.
    pub warnings: Vec<String>,
}

/// Continues the session called `name`, or creates it; creates an unnamed one without a name.
pub fn open(store: &SessionStore, name: Option<&str>) -> Result<OpenSession, StoreError> {
    if let Some(name) = name
        && let Some(loaded) = store.find_named(name)?
    {
        let file = store.open_for_append(&loaded)?;
        return Ok(OpenSession {
            id: loaded.meta.id.clone(),
            history: HistoryManager::replay(&loaded.records, Some(file)),
            warnings: loaded.warnings,
        });
    }
    let (meta, file) = store.create(name)?;
    Ok(OpenSession {
        id: meta.id,
        history: HistoryManager::new(Some(file)),
        warnings: Vec::new(),
    })
}

/// The session `wright context` looks at: the one named, or the project's newest.
pub fn find(store: &SessionStore, name: Option<&str>) -> Result<Option<LoadedSession>, StoreError> {
    match name {
        Some(name) => store.find_named(name),
        None => Ok(store.list()?.pop()),
    }
}
