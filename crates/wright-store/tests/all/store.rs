//! Session files: create, append, reload, survive torn lines, refuse a second writer.

use std::io::Write;
use std::path::Path;

use chrono::Utc;
use pretty_assertions::assert_eq;
use tempfile::TempDir;
use wright_protocol::{Message, Usage};
use wright_store::{
    NamedSession, NamedSessionFile, Record, RoundStatus, SessionStore, StoreError, UsageKind,
    default_home, legacy_project_key, load, project_key,
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
        file.path().starts_with(
            home.path()
                .join("sessions")
                .join(project_key(Path::new("/work/my project")))
        )
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
    let (older, file) = store.create(Some("same")).unwrap();
    drop(file);
    // Two sessions of one name, as wright before named creation was locked could leave.
    let mut newer = older.clone();
    // Sorts after any UUID v7 made now, as a newer session's id would.
    newer.id = "ffffffff-ffff-7fff-bfff-ffffffffffff".into();
    let line = serde_json::to_string(&Record::Meta(newer.clone())).unwrap();
    std::fs::write(store.dir().join(format!("{}.jsonl", newer.id)), line + "\n").unwrap();
    store.create(Some("other")).unwrap();
    assert_eq!(store.find_named("same").unwrap().unwrap().meta, newer);
    assert!(store.find_named("missing").unwrap().is_none());
}

#[test]
fn creating_a_name_that_exists_is_refused_and_names_the_session() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (first, file) = store.create(Some("taken")).unwrap();
    drop(file);
    let error = store.create(Some("taken")).unwrap_err();
    assert!(
        matches!(&error, StoreError::NameTaken { name, id } if name == "taken" && *id == first.id),
        "{error}"
    );
    assert_eq!(store.list().unwrap().len(), 1);
}

#[test]
fn open_named_finds_the_session_or_creates_it_once() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let NamedSession::Created(created, file) = store.open_named("work").unwrap() else {
        panic!("a new name was found");
    };
    drop(file);
    let NamedSession::Stored(found) = store.open_named("work").unwrap() else {
        panic!("an existing name was created again");
    };
    assert_eq!(found.meta, created);
}

#[test]
fn processes_opening_one_new_name_at_once_make_one_session_of_it() {
    const OPENERS: usize = 8;
    // The race is short; trying it often makes an unlocked store lose it reliably.
    const TRIES: usize = 40;
    for _ in 0..TRIES {
        let home = TempDir::new().unwrap();
        let barrier = std::sync::Barrier::new(OPENERS);
        // Each thread has its own store and files, as separate processes would: the locks
        // are per open file, so threads of one process contend for them like processes do.
        let ids: Vec<String> = std::thread::scope(|scope| {
            let openers: Vec<_> = (0..OPENERS)
                .map(|_| {
                    scope.spawn(|| {
                        let store = store(&home);
                        barrier.wait();
                        match store.open_named("race").unwrap() {
                            NamedSession::Created(meta, file) => {
                                write_a_record(file);
                                meta.id
                            }
                            NamedSession::Stored(found) => found.meta.id,
                        }
                    })
                })
                .collect();
            openers.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let sessions = store(&home).list().unwrap();
        assert_eq!(sessions.len(), 1, "{sessions:#?}");
        assert!(ids.iter().all(|id| *id == sessions[0].meta.id), "{ids:?}");
    }
}

/// Writes a record through `file`, as a round would, and closes it.
fn write_a_record(mut file: wright_store::SessionFile) {
    file.append(&message("mine")).unwrap();
}

#[test]
fn a_damaged_session_file_stops_a_new_name_and_is_named() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    std::fs::create_dir_all(store.dir()).unwrap();
    let damaged = store
        .dir()
        .join("0190aaaa-0000-7000-8000-000000000001.jsonl");
    std::fs::write(
        &damaged,
        "garbage\n{\"type\":\"round_end\",\"at\":\"2026-11-22T08:00:00Z\",\"status\":\"failed\"}\n",
    )
    .unwrap();
    let error = store.create(Some("work")).unwrap_err();
    let StoreError::Damaged {
        name,
        damaged: files,
        ..
    } = &error
    else {
        panic!("expected Damaged, got {error:?}");
    };
    assert_eq!(name, "work");
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, damaged);
    let message = error.to_string();
    assert!(
        message.contains(&damaged.display().to_string()),
        "{message}"
    );
    assert!(message.contains("line 1"), "{message}");
    assert!(
        message.contains("Move the damaged file out of"),
        "{message}"
    );
    assert!(store.list().unwrap().is_empty(), "nothing was created");
    // An unnamed session cannot be mistaken for it.
    store.create(None).unwrap();
}

#[test]
fn a_named_session_that_loads_is_found_even_beside_a_damaged_file() {
    let home = TempDir::new().unwrap();
    let store = store(&home);
    let (created, file) = store.create(Some("work")).unwrap();
    drop(file);
    std::fs::write(
        store
            .dir()
            .join("0190aaaa-0000-7000-8000-000000000001.jsonl"),
        "{\n",
    )
    .unwrap();
    let NamedSession::Stored(found) = store.open_named("work").unwrap() else {
        panic!("created a second session of one name");
    };
    assert_eq!(found.meta, created);
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
    let key = project_key(Path::new("/home/ann/src/app.rs"));
    assert!(key.starts_with("-home-ann-src-app.rs-"), "{key}");
    assert_eq!(key, project_key(Path::new("/home/ann/src/app.rs")));
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

/// Waits for `receiver` to say something, failing the test after a generous deadline.
fn wait_for<T>(receiver: &std::sync::mpsc::Receiver<T>) -> T {
    receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .unwrap()
}

#[test]
fn a_second_opener_waits_for_the_first_then_continues_its_session() {
    let home = TempDir::new().unwrap();
    let (meta, mut first) = store(&home).create(Some("work")).unwrap();
    first.append(&message("first round")).unwrap();
    let (busy_tx, busy_rx) = std::sync::mpsc::channel();
    let (loaded, mut second) = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            let opened = store(&home).open_named_for_append(
                "work",
                std::time::Duration::from_secs(600),
                &mut |busy| busy_tx.send(busy.clone()).unwrap(),
            );
            match opened.unwrap() {
                NamedSessionFile::Stored(loaded, file) => (loaded, file),
                NamedSessionFile::Created(..) => panic!("a second session of one name"),
            }
        });
        let busy = wait_for(&busy_rx);
        assert_eq!(
            (busy.name.as_str(), busy.id.as_str()),
            ("work", meta.id.as_str())
        );
        // The first process ends its round after the second started waiting.
        first.append(&message("end of the first round")).unwrap();
        drop(first);
        waiter.join().unwrap()
    });
    assert_eq!(loaded.meta, meta);
    assert_eq!(loaded.records.len(), 2, "{:?}", loaded.records);
    second.append(&message("second round")).unwrap();
    drop(second);
    let texts: Vec<String> = load(&loaded.path)
        .unwrap()
        .records
        .iter()
        .map(|record| match record {
            Record::Message { message, .. } => message.content.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        texts,
        ["first round", "end of the first round", "second round"]
    );
    assert!(busy_rx.try_recv().is_err(), "told more than once");
}

#[test]
fn a_session_held_past_the_wait_is_in_use() {
    let home = TempDir::new().unwrap();
    let (_, _held) = store(&home).create(Some("work")).unwrap();
    let mut told = 0;
    let error = store(&home)
        .open_named_for_append("work", std::time::Duration::from_millis(50), &mut |_| {
            told += 1
        })
        .unwrap_err();
    assert!(matches!(error, StoreError::Locked { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("is in use by another wright process")
    );
    assert_eq!(told, 1);
}

#[test]
fn a_session_removed_while_waited_for_is_looked_up_again() {
    let home = TempDir::new().unwrap();
    let (meta, first) = store(&home).create(Some("work")).unwrap();
    let (busy_tx, busy_rx) = std::sync::mpsc::channel();
    let opened = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            store(&home)
                .open_named_for_append("work", std::time::Duration::from_secs(600), &mut |_| {
                    busy_tx.send(()).unwrap()
                })
                .unwrap()
        });
        wait_for(&busy_rx);
        // Removed as an orphan (or by `sessions rm`) before the waiter could lock it.
        std::fs::remove_file(first.path()).unwrap();
        drop(first);
        waiter.join().unwrap()
    });
    let NamedSessionFile::Created(created, _file) = opened else {
        panic!("continued a removed session: {opened:?}");
    };
    assert_ne!(created.id, meta.id);
    assert_eq!(created.name.as_deref(), Some("work"));
}

#[test]
fn projects_whose_paths_read_alike_keep_their_sessions_apart() {
    let (a, b) = (Path::new("/x/a-b"), Path::new("/x/a/b"));
    assert_eq!(legacy_project_key(a), legacy_project_key(b));
    assert_ne!(project_key(a), project_key(b));
    let long = Path::new("/p").join("deep".repeat(100));
    assert!(project_key(&long).chars().count() <= 100 + 17);

    let home = tempfile::tempdir().unwrap();
    let (first, _) = SessionStore::new(home.path(), a)
        .create(Some("one"))
        .unwrap();
    let second = SessionStore::new(home.path(), b);
    assert_eq!(second.find_named("one").unwrap().map(|s| s.meta.id), None);
    assert_eq!(
        SessionStore::new(home.path(), a)
            .find_named("one")
            .unwrap()
            .map(|s| s.meta.id),
        Some(first.id)
    );
}

#[test]
fn sessions_under_the_old_shared_key_move_to_their_own_project() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = (Path::new("/x/a-b"), Path::new("/x/a/b"));
    // Sessions as an older wright wrote them: both projects in one directory.
    let legacy = home.path().join("sessions").join(legacy_project_key(a));
    let mut ids = Vec::new();
    for (root, name) in [(a, "mine"), (b, "theirs")] {
        let store = SessionStore::new(home.path(), root);
        let (meta, file) = store.create(Some(name)).unwrap();
        drop(file);
        std::fs::create_dir_all(&legacy).unwrap();
        let file_name = format!("{}.jsonl", meta.id);
        std::fs::rename(store.dir().join(&file_name), legacy.join(&file_name)).unwrap();
        std::fs::remove_dir_all(store.dir()).unwrap();
        ids.push(meta.id);
    }
    let mine = SessionStore::new(home.path(), a);
    assert_eq!(
        mine.find_named("mine").unwrap().map(|s| s.meta.id),
        Some(ids[0].clone())
    );
    assert_eq!(mine.find_named("theirs").unwrap().map(|s| s.meta.id), None);
    let theirs = SessionStore::new(home.path(), b);
    assert_eq!(
        theirs.find_named("theirs").unwrap().map(|s| s.meta.id),
        Some(ids[1].clone())
    );
}
