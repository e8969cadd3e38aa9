//! Session files: create, append, reload, survive torn lines, refuse a second writer.

use std::io::Write;
use std::path::Path;

use chrono::Utc;
use pretty_assertions::assert_eq;
use tempfile::TempDir;
use wright_protocol::{Message, Usage};
use wright_store::{
    Record, RoundStatus, SessionStore, StoreError, UsageKind, default_home, load, project_key,
};

fn store(home: &TempDir) -> SessionStore {
    SessionStore::new(home.path(), Path::new("/work/my project"))
}

fn message(text: &str) -> Record {
    Record::Message {
        at: Utc::now(),
        message: Message::user(text),
    }
}

#[test]
fn appended_records_load_back_in_order() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (meta, mut file) = store.create(Some("feature-x")).unwrap();
    let records = vec![
        message("first"),
        Record::Usage {
            at: Utc::now(),
            usage: Usage {
                prompt_tokens: 10,
                completion_tokens: 2,
                total_tokens: 12,
                ..Usage::default()
            },
            kind: UsageKind::Step,
            model: Some("m".into()),
            local_estimate: Some(12),
        },
        Record::RoundEnd {
            at: Utc::now(),
            status: RoundStatus::Finished,
        },
    ];
    for record in &records {
        file.append(record).unwrap();
    }
    let loaded = load(file.path()).unwrap();
    assert_eq!(loaded.meta, meta);
    assert_eq!(loaded.records, records);
    assert!(loaded.warnings.is_empty());
    assert!(
        file.path()
            .starts_with(home.path().join("sessions").join("-work-my-project"))
    );
}

#[test]
fn a_torn_last_line_is_skipped_with_a_warning_and_the_next_record_starts_a_new_line() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (_, mut file) = store.create(Some("s")).unwrap();
    file.append(&message("kept")).unwrap();
    let path = file.path().to_path_buf();
    drop(file);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(br#"{"type":"message","at":"2026-11-22T08:00:00Z","mess"#)
        .unwrap();

    let loaded = store.find_named("s").unwrap().unwrap();
    assert_eq!(
        loaded.records,
        vec![message_text_only(&loaded.records[0], "kept")]
    );
    assert_eq!(loaded.warnings.len(), 1);
    assert!(
        loaded.warnings[0].contains("line 3"),
        "{:?}",
        loaded.warnings
    );

    let mut file = store.open_for_append(&loaded).unwrap();
    file.append(&message("after the crash")).unwrap();
    let reloaded = load(&path).unwrap();
    assert_eq!(reloaded.records.len(), 2);
    assert_eq!(reloaded.warnings.len(), 1);
}

fn message_text_only(record: &Record, text: &str) -> Record {
    match record {
        Record::Message { at, .. } => Record::Message {
            at: *at,
            message: Message::user(text),
        },
        other => other.clone(),
    }
}

#[test]
fn find_named_returns_the_newest_session_of_that_name() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (_, older) = store.create(Some("same")).unwrap();
    drop(older);
    let (newer, _file) = store.create(Some("same")).unwrap();
    store.create(Some("other")).unwrap();
    assert_eq!(store.find_named("same").unwrap().unwrap().meta, newer);
    assert!(store.find_named("missing").unwrap().is_none());
}

#[test]
fn a_second_writer_is_refused() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (_, _first) = store.create(Some("busy")).unwrap();
    let loaded = store.find_named("busy").unwrap().unwrap();
    assert!(matches!(
        store.open_for_append(&loaded),
        Err(StoreError::Locked { .. })
    ));
}

#[test]
fn bad_names_are_refused() {
    let home = TempDir::new().unwrap();
    let error = store(&home).create(Some("../escape")).unwrap_err();
    assert!(
        error.to_string().contains("invalid session name"),
        "{error}"
    );
}

#[test]
fn a_file_without_meta_is_not_a_session() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("x.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"round_end\",\"at\":\"2026-11-22T08:00:00Z\",\"status\":\"failed\"}\n",
    )
    .unwrap();
    assert!(matches!(load(&path), Err(StoreError::Invalid { .. })));
}

#[test]
fn project_keys_and_home_are_readable_paths() {
    assert_eq!(
        project_key(Path::new("/home/ann/src/app.rs")),
        "-home-ann-src-app.rs"
    );
    let env = |name: &str| (name == "HOME").then(|| "/home/ann".to_string());
    assert_eq!(
        default_home(&env).unwrap(),
        Path::new("/home/ann/.local/share/wright")
    );
    let env = |name: &str| match name {
        "HOME" => Some("/home/ann".to_string()),
        "XDG_DATA_HOME" => Some("/data".to_string()),
        _ => None,
    };
    assert_eq!(default_home(&env).unwrap(), Path::new("/data/wright"));
}
