//! Listing, finding and removing sessions: summaries, id prefixes, names, ambiguity, locks.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use pretty_assertions::assert_eq;
use serde_json::json;
use tempfile::TempDir;
use wright_store::{DamagedSession, SessionMeta, SessionStore, SessionSummary, StoreError, load};

const PROJECT: &str = "/work/app";

fn time(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn meta(id: &str, name: Option<&str>, created: &str) -> SessionMeta {
    SessionMeta {
        id: id.to_string(),
        name: name.map(str::to_string),
        project_root: PROJECT.to_string(),
        created_at: time(created),
        environment: None,
        agents: None,
        memory: None,
        parent: None,
        agent: None,
        task: None,
    }
}

fn user(at: &str, text: &str) -> serde_json::Value {
    json!({"type": "message", "at": at, "message": {"role": "user", "content": text}})
}

fn assistant(at: &str, text: &str) -> serde_json::Value {
    json!({"type": "message", "at": at, "message": {"role": "assistant", "content": text}})
}

fn usage(at: &str, total: u64) -> serde_json::Value {
    json!({"type": "usage", "at": at,
           "usage": {"prompt_tokens": total - 1, "completion_tokens": 1, "total_tokens": total}})
}

fn round_end(at: &str) -> serde_json::Value {
    json!({"type": "round_end", "at": at, "status": "finished"})
}

/// Writes a session file by hand, as a store would have: the meta line, then `records`.
fn write_session(
    store: &SessionStore,
    meta: &SessionMeta,
    records: &[serde_json::Value],
) -> PathBuf {
    std::fs::create_dir_all(store.dir()).unwrap();
    let mut text = json!({"type": "meta", "id": meta.id, "name": meta.name,
                          "project_root": meta.project_root, "created_at": meta.created_at})
    .to_string();
    text.push('\n');
    for record in records {
        text.push_str(&record.to_string());
        text.push('\n');
    }
    let path = store.dir().join(format!("{}.jsonl", meta.id));
    std::fs::write(&path, text).unwrap();
    path
}

fn store(home: &TempDir) -> SessionStore {
    SessionStore::new(home.path(), Path::new(PROJECT))
}

fn found_id(store: &SessionStore, query: &str) -> Option<String> {
    store.find(query).unwrap().map(|session| session.meta.id)
}

#[test]
fn a_summary_counts_rounds_tokens_and_the_last_activity() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let meta = meta("aaaaaaaa-0001", Some("feature"), "2026-11-22T08:00:00Z");
    let path = write_session(
        &store,
        &meta,
        &[
            user("2026-11-22T08:00:01Z", "one"),
            usage("2026-11-22T08:00:02Z", 100),
            assistant("2026-11-22T08:00:02Z", "answer one"),
            round_end("2026-11-22T08:00:02Z"),
            user("2026-11-22T09:00:00Z", "two"),
            usage("2026-11-22T09:00:05Z", 250),
            round_end("2026-11-22T09:00:06Z"),
        ],
    );
    assert_eq!(
        store.summaries().unwrap(),
        vec![SessionSummary {
            meta,
            path,
            rounds: 2,
            last_activity: time("2026-11-22T09:00:06Z"),
            tokens: 350,
        }]
    );
}

#[test]
fn a_session_without_messages_was_last_active_when_created() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    write_session(
        &store,
        &meta("aaaaaaaa-0001", None, "2026-11-22T08:00:00Z"),
        &[usage("2026-11-22T08:00:00Z", 5)],
    );
    let summary = &store.summaries().unwrap()[0];
    assert_eq!(
        (summary.rounds, summary.tokens, summary.last_activity),
        (0, 5, time("2026-11-22T08:00:00Z"))
    );
}

#[test]
fn an_empty_session_no_process_holds_is_removed_when_sessions_are_listed() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    // Left behind by a wright killed before the first message.
    let orphan = write_session(
        &store,
        &meta("aaaaaaaa-0001", None, "2026-11-22T08:00:00Z"),
        &[],
    );
    // Still being used by a live wright, which holds its lock.
    let (live, _lock) = store.create(None).unwrap();
    let ids: Vec<String> = store
        .summaries()
        .unwrap()
        .into_iter()
        .map(|s| s.meta.id)
        .collect();
    assert_eq!(ids, vec![live.id.clone()]);
    assert!(!orphan.exists());
    assert_eq!(store.latest().unwrap().unwrap().meta.id, live.id);
}

#[test]
fn summaries_are_ordered_by_last_activity_newest_first() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    // Created first, but used last.
    write_session(
        &store,
        &meta("aaaaaaaa-0001", Some("old"), "2026-11-20T08:00:00Z"),
        &[user("2026-11-23T08:00:00Z", "back to it")],
    );
    write_session(
        &store,
        &meta("bbbbbbbb-0002", Some("new"), "2026-11-21T08:00:00Z"),
        &[round_end("2026-11-21T08:00:00Z")],
    );
    write_session(
        &store,
        &meta("cccccccc-0003", None, "2026-11-22T08:00:00Z"),
        &[round_end("2026-11-22T08:00:00Z")],
    );
    let names: Vec<Option<String>> = store
        .summaries()
        .unwrap()
        .into_iter()
        .map(|s| s.meta.name)
        .collect();
    assert_eq!(names, vec![Some("old".into()), None, Some("new".into())]);
    assert_eq!(store.latest().unwrap().unwrap().meta.id, "aaaaaaaa-0001");
}

#[test]
fn all_summaries_cover_every_project_under_home() {
    let home = TempDir::new().unwrap();
    let here = store(&home);
    let there = SessionStore::new(home.path(), Path::new("/work/other"));
    write_session(
        &here,
        &meta("aaaaaaaa-0001", Some("here"), "2026-11-20T08:00:00Z"),
        &[round_end("2026-11-20T08:00:00Z")],
    );
    let mut other = meta("bbbbbbbb-0002", Some("there"), "2026-11-21T08:00:00Z");
    other.project_root = "/work/other".into();
    write_session(&there, &other, &[round_end("2026-11-21T08:00:00Z")]);
    let all: Vec<(String, String)> = SessionStore::all_summaries(home.path())
        .unwrap()
        .into_iter()
        .map(|s| (s.meta.name.unwrap(), s.meta.project_root))
        .collect();
    assert_eq!(
        all,
        vec![
            ("there".to_string(), "/work/other".to_string()),
            ("here".to_string(), PROJECT.to_string())
        ]
    );
    assert_eq!(here.summaries().unwrap().len(), 1);
}

#[test]
fn no_sessions_directory_means_no_sessions() {
    let home = TempDir::new().unwrap();
    assert_eq!(store(&home).summaries().unwrap(), vec![]);
    assert_eq!(SessionStore::all_summaries(home.path()).unwrap(), vec![]);
    assert!(store(&home).latest().unwrap().is_none());
}

#[test]
fn find_takes_a_full_id_or_a_prefix_of_six_characters() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (created, _file) = store.create(None).unwrap();
    assert_eq!(found_id(&store, &created.id), Some(created.id.clone()));
    assert_eq!(found_id(&store, &created.id[..6]), Some(created.id.clone()));
    assert_eq!(
        found_id(&store, &created.id[..6].to_uppercase()),
        Some(created.id.clone()),
        "ids are matched without regard to case"
    );
    assert_eq!(
        found_id(&store, &created.id[..5]),
        None,
        "too short to be an id"
    );
    assert_eq!(found_id(&store, "ffffffff"), None);
}

#[test]
fn find_by_name_returns_the_newest_session_of_that_name() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    write_session(
        &store,
        &meta("aaaaaaaa-0001", Some("fix"), "2026-11-20T08:00:00Z"),
        &[],
    );
    write_session(
        &store,
        &meta("bbbbbbbb-0002", Some("fix"), "2026-11-21T08:00:00Z"),
        &[],
    );
    write_session(
        &store,
        &meta("cccccccc-0003", Some("other"), "2026-11-22T08:00:00Z"),
        &[],
    );
    assert_eq!(found_id(&store, "fix"), Some("bbbbbbbb-0002".into()));
    assert_eq!(found_id(&store, "missing"), None);
    assert_eq!(found_id(&store, "../escape"), None, "not a name, not an id");
}

#[test]
fn an_ambiguous_prefix_is_an_error_listing_the_candidates() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    write_session(
        &store,
        &meta("abcdef01-0001", Some("one"), "2026-11-20T08:00:00Z"),
        &[],
    );
    write_session(
        &store,
        &meta("abcdef02-0002", None, "2026-11-21T08:00:00Z"),
        &[],
    );
    let error = store.find("abcdef").unwrap_err();
    match &error {
        StoreError::Ambiguous { prefix, candidates } => {
            assert_eq!(prefix, "abcdef");
            assert_eq!(
                candidates,
                &vec![
                    "abcdef01-0001 (one)".to_string(),
                    "abcdef02-0002".to_string()
                ]
            );
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
    assert!(error.to_string().contains("abcdef01-0001 (one)"), "{error}");
    assert_eq!(found_id(&store, "abcdef02"), Some("abcdef02-0002".into()));
}

#[test]
fn a_name_wins_over_an_id_prefix_like_a_git_ref() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    write_session(
        &store,
        &meta("abcdef01-0001", None, "2026-11-20T08:00:00Z"),
        &[],
    );
    write_session(
        &store,
        &meta("bbbbbbbb-0002", Some("abcdef"), "2026-11-21T08:00:00Z"),
        &[],
    );
    assert_eq!(found_id(&store, "abcdef"), Some("bbbbbbbb-0002".into()));
}

#[test]
fn remove_deletes_the_file_and_says_what_it_was() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (created, file) = store.create(Some("done")).unwrap();
    drop(file);
    let removed = store.remove("done").unwrap();
    assert_eq!(removed.meta, created);
    assert!(!removed.path.exists());
    assert!(store.find(&created.id).unwrap().is_none());
}

#[test]
fn remove_refuses_a_session_another_process_is_writing() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (_, file) = store.create(Some("busy")).unwrap();
    let error = store.remove("busy").unwrap_err();
    assert!(matches!(error, StoreError::Locked { .. }), "{error}");
    assert!(file.path().exists());
}

#[test]
fn removing_an_unknown_session_is_not_found() {
    let home = TempDir::new().unwrap();
    let error = store(&home).remove("nothing").unwrap_err();
    assert!(matches!(error, StoreError::NotFound { .. }), "{error}");
    assert!(error.to_string().contains("\"nothing\""), "{error}");
}

#[test]
fn a_created_session_is_complete_under_its_name_and_leaves_nothing_else() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (created, file) = store.create(Some("fresh")).unwrap();
    assert_eq!(
        file.path(),
        store.dir().join(format!("{}.jsonl", created.id))
    );
    assert_eq!(load(file.path()).unwrap().meta, created);
    // The session, and the hidden lock taken to create a named one: no partial file.
    let mut files: Vec<String> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        vec![".names.lock".to_string(), format!("{}.jsonl", created.id)]
    );
}

#[test]
fn files_that_are_not_sessions_are_left_out_of_the_list() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    write_session(
        &store,
        &meta("aaaaaaaa-0001", None, "2026-11-20T08:00:00Z"),
        &[user("2026-11-20T08:00:01Z", "hi")],
    );
    // A crash while creating a session leaves at most a partial file under another name.
    std::fs::write(
        store.dir().join(".bbbbbbbb-0002.jsonl.partial"),
        "{\"type\":\"me",
    )
    .unwrap();
    let empty = store.dir().join("cccccccc-0003.jsonl");
    std::fs::write(&empty, "").unwrap();
    let ids: Vec<String> = store
        .summaries()
        .unwrap()
        .into_iter()
        .map(|s| s.meta.id)
        .collect();
    assert_eq!(ids, vec!["aaaaaaaa-0001".to_string()]);
    // A session file that cannot be loaded is left out of the summaries, not forgotten.
    assert_eq!(
        store.damaged().unwrap(),
        vec![DamagedSession {
            path: empty,
            problem: "the file is empty".into()
        }]
    );
}

#[test]
fn a_session_whose_meta_line_is_garbage_is_listed_as_damaged_with_the_reason() {
    let home = TempDir::new().unwrap();
    let here = store(&home);
    let there = SessionStore::new(home.path(), Path::new("/work/other"));
    write_session(
        &here,
        &meta("aaaaaaaa-0001", Some("fine"), "2026-11-20T08:00:00Z"),
        &[user("2026-11-20T08:00:01Z", "hi")],
    );
    let garbage = write_session(
        &there,
        &meta("bbbbbbbb-0002", Some("broken"), "2026-11-21T08:00:00Z"),
        &[user("2026-11-21T08:00:01Z", "hi")],
    );
    let text = std::fs::read_to_string(&garbage).unwrap();
    std::fs::write(&garbage, format!("#!garbage{}", &text[1..])).unwrap();

    let damaged = SessionStore::all_damaged(home.path()).unwrap();
    assert_eq!(damaged.len(), 1, "{damaged:?}");
    assert_eq!(damaged[0].path, garbage);
    assert_eq!(damaged[0].id(), "bbbbbbbb-0002");
    assert!(
        damaged[0].problem.starts_with("line 1: expected value"),
        "{}",
        damaged[0].problem
    );
    assert_eq!(there.damaged().unwrap(), damaged);
    assert_eq!(here.damaged().unwrap(), vec![]);
    assert_eq!(SessionStore::all_summaries(home.path()).unwrap().len(), 1);
}

#[test]
fn a_sub_agents_session_is_listed_under_its_parent_only() {
    let home = tempfile::tempdir().unwrap();
    let store = store(&home);
    let (parent, mut parent_file) = store.create(None).unwrap();
    let record = serde_json::from_value(user("2026-01-01T00:00:00Z", "look around")).unwrap();
    parent_file.append(&record).unwrap();
    drop(parent_file);
    let (child, child_file) = store
        .create_child(&parent.id, "explore", "find the parser")
        .unwrap();
    drop(child_file);

    // Listing and --continue see the parent alone.
    let listed: Vec<String> = store
        .summaries()
        .unwrap()
        .into_iter()
        .map(|s| s.meta.id)
        .collect();
    assert_eq!(listed, vec![parent.id.clone()]);
    assert_eq!(store.latest().unwrap().unwrap().meta.id, parent.id);

    let children = store.children(&parent.id).unwrap();
    assert_eq!(children.len(), 1);
    let meta = &children[0].meta;
    assert_eq!(meta.id, child.id);
    assert_eq!(meta.parent.as_deref(), Some(parent.id.as_str()));
    assert_eq!(meta.agent.as_deref(), Some("explore"));
    assert_eq!(meta.task.as_deref(), Some("find the parser"));
    // Found by its id, so `sessions show` can open it.
    assert_eq!(found_id(&store, &child.id), Some(child.id.clone()));

    // A prefix of the parent's id finds the parent, not "ambiguous" with its child (UUID v7
    // ids made close together share their first digits).
    assert_eq!(found_id(&store, &parent.id[..8]), Some(parent.id.clone()));

    // Removing the parent removes its sub-agents' sessions, and theirs.
    let (grandchild, file) = store.create_child(&child.id, "explore", "deeper").unwrap();
    drop(file);
    assert_eq!(
        found_id(&store, &grandchild.id),
        Some(grandchild.id.clone())
    );
    store.remove(&parent.id).unwrap();
    assert_eq!(found_id(&store, &child.id), None);
    assert_eq!(found_id(&store, &grandchild.id), None);
    assert!(store.children(&parent.id).unwrap().is_empty());
    assert!(store.children(&child.id).unwrap().is_empty());
}

#[test]
fn a_parent_id_that_is_not_an_id_names_no_directory() {
    let home = tempfile::tempdir().unwrap();
    let store = store(&home);
    for bad in ["", "..", "../../etc", "a/b", "not-hex-zz"] {
        assert_eq!(store.tasks_dir(bad), None, "{bad:?}");
        assert!(store.create_child(bad, "explore", "x").is_err(), "{bad:?}");
        assert!(store.children(bad).unwrap().is_empty());
    }
}
