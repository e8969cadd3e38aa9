//! Choosing the stored session a command looks at or goes on with: `wright context --session
//! NAME` (or the most recent), `--resume [ID|NAME]` and `--continue`. Opening it is
//! `wright_core::session::Sessions`' (`exec --session NAME` uses `Sessions::open`).

use wright_store::{LoadedSession, SessionStore, StoreError};

/// The session `wright context` looks at: the one named, or the project's most recent.
pub fn find(store: &SessionStore, name: Option<&str>) -> Result<Option<LoadedSession>, StoreError> {
    match name {
        Some(name) => store.find_named(name),
        None => store.latest(),
    }
}

/// The session `--resume [ID|NAME]` or `--continue` asks for; `None` means start a new one.
///
/// `resume` is `Some(Some(query))` for `--resume ID|NAME` (a full id, a name, or an id prefix of
/// at least six characters; see [`SessionStore::find`]), `Some(None)` for a bare `--resume`,
/// which like `--continue` takes the session with the most recent activity. A query that finds
/// nothing is an error; a project without sessions continues into a new one.
pub fn select(
    store: &SessionStore,
    resume: Option<Option<String>>,
    continue_latest: bool,
) -> Result<Option<LoadedSession>, StoreError> {
    match resume {
        Some(Some(query)) => match store.find(&query)? {
            Some(session) => Ok(Some(session)),
            None => Err(StoreError::NotFound {
                query,
                dir: store.dir().to_path_buf(),
            }),
        },
        Some(None) => store.latest(),
        None if continue_latest => store.latest(),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::Path;
    use tempfile::TempDir;

    fn selected(
        store: &SessionStore,
        resume: Option<Option<&str>>,
        continue_latest: bool,
    ) -> Option<String> {
        select(
            store,
            resume.map(|r| r.map(str::to_string)),
            continue_latest,
        )
        .unwrap()
        .map(|session| session.meta.id)
    }

    #[test]
    fn no_flag_starts_a_new_session() {
        let home = TempDir::new().unwrap();
        let store = SessionStore::new(home.path(), Path::new("/p"));
        store.create(Some("a")).unwrap();
        assert_eq!(selected(&store, None, false), None);
    }

    #[test]
    fn continue_and_a_bare_resume_take_the_most_recent_session() {
        let home = TempDir::new().unwrap();
        let store = SessionStore::new(home.path(), Path::new("/p"));
        assert_eq!(
            selected(&store, None, true),
            None,
            "nothing to continue yet"
        );
        let (older, mut file) = store.create(Some("older")).unwrap();
        store.create(Some("newer")).unwrap();
        // The older session was used last.
        file.append(&wright_store::Record::RoundEnd {
            at: chrono::Utc::now() + chrono::Duration::seconds(5),
            status: wright_store::RoundStatus::Finished,
        })
        .unwrap();
        assert_eq!(selected(&store, None, true), Some(older.id.clone()));
        assert_eq!(selected(&store, Some(None), false), Some(older.id));
    }

    #[test]
    fn resume_takes_an_id_prefix_or_a_name_and_fails_on_neither() {
        let home = TempDir::new().unwrap();
        let store = SessionStore::new(home.path(), Path::new("/p"));
        let (named, _file) = store.create(Some("feature")).unwrap();
        assert_eq!(
            selected(&store, Some(Some("feature")), false),
            Some(named.id.clone())
        );
        assert_eq!(
            selected(&store, Some(Some(&named.id[..8])), false),
            Some(named.id.clone())
        );
        let error = select(&store, Some(Some("nope".into())), false).unwrap_err();
        assert!(matches!(error, StoreError::NotFound { .. }), "{error}");
    }
}
