//! Snapshots, changes, diffs, ids, pruning and the store's errors.

use std::path::PathBuf;
use std::time::Duration;

use pretty_assertions::assert_eq;
use wright_checkpoint::{
    ChangeKind, CheckpointError, CheckpointId, CheckpointSettings, CheckpointStore, FileChange,
};

use crate::fixture::{CAP, Fixture};

fn change(path: &str, kind: ChangeKind, directory: bool) -> FileChange {
    FileChange {
        path: path.into(),
        kind,
        directory,
    }
}

#[test]
fn a_snapshot_of_an_unchanged_project_reuses_the_last_id() {
    let fixture = Fixture::new(false).with_typical_files();
    let first = fixture.store.snapshot("one").unwrap();

    let second = fixture.store.snapshot("two").unwrap();

    assert_eq!(second, first);
}

#[test]
fn a_snapshot_after_a_change_gets_a_new_id() {
    let fixture = Fixture::new(false).with_typical_files();
    let first = fixture.store.snapshot("one").unwrap();
    fixture.chmod("secret.env", 0o640);

    let second = fixture.store.snapshot("two").unwrap();

    assert_ne!(second.id, first.id);
}

#[test]
fn files_over_the_cap_are_listed_as_skipped() {
    let fixture = Fixture::new(false);
    fixture.write("small.txt", b"small\n");
    fixture.write("media/huge.bin", &vec![0; CAP as usize + 1]);
    fixture.write("exact.bin", &vec![0; CAP as usize]);

    let snapshot = fixture.store.snapshot("start").unwrap();

    assert_eq!(snapshot.skipped, vec![PathBuf::from("media/huge.bin")]);
}

#[test]
fn a_file_that_grows_past_the_cap_leaves_the_next_snapshot() {
    let fixture = Fixture::new(false);
    fixture.write("grows.bin", b"small\n");
    let first = fixture.store.snapshot("start").unwrap();
    fixture.write("grows.bin", &vec![1; CAP as usize + 1]);

    let second = fixture.store.snapshot("grown").unwrap();

    assert_eq!(second.skipped, vec![PathBuf::from("grows.bin")]);
    assert_eq!(
        fixture.store.changes(&first.id, Some(&second.id)).unwrap(),
        vec![change("grows.bin", ChangeKind::Deleted, false)]
    );
}

#[test]
fn changes_list_every_kind_of_change() {
    let fixture = Fixture::new(false).with_typical_files();
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.change_everything();

    let changes = fixture.store.changes(&snapshot.id, None).unwrap();

    assert_eq!(
        changes,
        vec![
            change("data.bin", ChangeKind::Modified, false),
            change("keep_empty", ChangeKind::Deleted, true),
            change("main-link", ChangeKind::Modified, false),
            change("new-link", ChangeKind::Added, false),
            change("new.txt", ChangeKind::Added, false),
            change("new_empty", ChangeKind::Added, true),
            change("new_empty/deeper", ChangeKind::Added, true),
            change("old_dir/old.txt", ChangeKind::Deleted, false),
            change("run.sh", ChangeKind::ModeChanged, false),
            change("secret.env", ChangeKind::ModeChanged, false),
            change("src/main.rs", ChangeKind::Modified, false),
            change("src/util/extra.rs", ChangeKind::Added, false),
            change("tool.py", ChangeKind::Added, false),
        ]
    );
}

#[test]
fn the_diff_shows_text_changes_and_names_binary_ones() {
    let fixture = Fixture::new(true).with_typical_files();
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.write("src/main.rs", b"fn main() {}\n");
    fixture.write("data.bin", &[255, 254, 0, 0, 7]);

    let diff = fixture.store.diff(&snapshot.id, None).unwrap();

    let lines: Vec<&str> = diff
        .lines()
        .filter(|line| !line.starts_with("index "))
        .collect();
    assert_eq!(
        lines,
        vec![
            "diff --git a/data.bin b/data.bin",
            "Binary files a/data.bin and b/data.bin differ",
            "diff --git a/src/main.rs b/src/main.rs",
            "--- a/src/main.rs",
            "+++ b/src/main.rs",
            "@@ -1,3 +1 @@",
            "-fn main() {",
            "-    println!(\"hello\");",
            "-}",
            "+fn main() {}",
        ]
    );
}

#[test]
fn the_diff_between_two_snapshots_ignores_the_project_now() {
    let fixture = Fixture::new(false);
    fixture.write("a.txt", b"one\n");
    let first = fixture.store.snapshot("one").unwrap();
    fixture.write("a.txt", b"two\n");
    let second = fixture.store.snapshot("two").unwrap();
    fixture.write("a.txt", b"three\n");

    let diff = fixture.store.diff(&first.id, Some(&second.id)).unwrap();

    assert!(diff.contains("-one\n+two\n"), "{diff}");
}

#[test]
fn an_id_that_is_not_a_hash_is_refused() {
    let error = CheckpointId::parse("--output=/tmp/x").unwrap_err();

    assert_eq!(
        error.to_string(),
        "`--output=/tmp/x` is not a checkpoint id (a commit hash of 40 or 64 hexadecimal digits)"
    );
}

#[test]
fn an_id_of_another_store_is_unknown() {
    let fixture = Fixture::new(false).with_typical_files();
    let id = CheckpointId::parse(&"ab".repeat(20)).unwrap();

    let error = fixture.store.restore(&id).unwrap_err();

    assert!(
        matches!(&error, CheckpointError::UnknownCheckpoint(unknown) if *unknown == "ab".repeat(20)),
        "{error:?}"
    );
}

#[test]
fn a_project_that_is_gone_is_a_clear_error() {
    let fixture = Fixture::new(false);
    let missing = fixture.root().join("not-there");

    let error = CheckpointStore::open(
        &fixture.state.path().join("other"),
        &missing,
        CheckpointSettings::default(),
    )
    .unwrap_err();

    assert!(
        matches!(&error, CheckpointError::ProjectMissing { path } if *path == missing),
        "{error:?}"
    );
}

#[test]
fn a_project_removed_after_opening_is_a_clear_error() {
    let fixture = Fixture::new(false);
    let root = fixture.root().to_path_buf();
    std::fs::remove_dir_all(&root).unwrap();

    let error = fixture.store.snapshot("gone").unwrap_err();

    assert!(
        matches!(&error, CheckpointError::ProjectMissing { .. }),
        "{error:?}"
    );
}

#[test]
fn pruning_drops_old_snapshots_and_keeps_recent_ones() {
    let fixture = Fixture::new(false);
    fixture.write("a.txt", b"one\n");
    let old = fixture.store.snapshot("old").unwrap();

    fixture
        .store
        .prune(Duration::from_secs(3600), None)
        .unwrap();
    assert_eq!(
        fixture.store.changes(&old.id, Some(&old.id)).unwrap(),
        vec![]
    );

    fixture.write("a.txt", b"two\n");
    let recent = fixture.store.snapshot("after the first prune").unwrap();
    fixture.store.prune(Duration::ZERO, None).unwrap();

    for id in [&old.id, &recent.id] {
        let error = fixture.store.changes(id, Some(id)).unwrap_err();
        assert!(
            matches!(&error, CheckpointError::UnknownCheckpoint(_)),
            "{error:?}"
        );
    }
    let fresh = fixture.store.snapshot("after pruning everything").unwrap();
    assert_eq!(fixture.store.changes(&fresh.id, None).unwrap(), vec![]);
}

/// `len` bytes that git cannot compress much, different for each `seed`.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005) | 1;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

/// Three chains of snapshots (each closed by a prune that drops nothing), each with its own
/// files; returns each chain's snapshot, oldest first.
fn three_chains(fixture: &Fixture) -> Vec<CheckpointId> {
    (0..3)
        .map(|chain| {
            for file in 0..8 {
                fixture.write(&format!("f{file}.bin"), &noise(chain * 100 + file, 1000));
            }
            let id = fixture.store.snapshot("chain").unwrap().id;
            fixture
                .store
                .prune(Duration::from_secs(3600), None)
                .unwrap();
            id
        })
        .collect()
}

/// Whether the shadow repository holds the object `oid`.
fn has_object(fixture: &Fixture, oid: &str) -> bool {
    let git_dir = format!("--git-dir={}", fixture.state_dir().join("repo").display());
    std::process::Command::new("git")
        .args([git_dir.as_str(), "cat-file", "-e", oid])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap()
        .success()
}

#[test]
fn a_store_over_its_size_cap_is_pruned_down_to_the_newest_chain() {
    let fixture = Fixture::new(false);
    let ids = three_chains(&fixture);
    let old_blobs: Vec<String> = fixture
        .store
        .blob_ids(&ids[0], &[PathBuf::from("f0.bin")])
        .unwrap()
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(old_blobs.len(), 1);
    assert!(has_object(&fixture, &old_blobs[0]));

    let pruned = fixture
        .store
        .prune(Duration::from_secs(3600), Some(1))
        .unwrap();

    assert_eq!(pruned.chains_dropped, 2);
    assert!(pruned.over_cap, "{pruned:?}");
    for id in &ids[..2] {
        let error = fixture.store.changes(id, Some(id)).unwrap_err();
        assert!(
            matches!(&error, CheckpointError::UnknownCheckpoint(_)),
            "{error:?}"
        );
    }
    assert!(!has_object(&fixture, &old_blobs[0]));
    let newest = crate::fixture::capture(fixture.root());
    fixture.write("f0.bin", b"changed after the prune\n");
    fixture.store.restore(&ids[2]).unwrap();
    assert_eq!(crate::fixture::capture(fixture.root()), newest);
}

#[test]
fn a_store_under_its_size_cap_keeps_every_chain() {
    let fixture = Fixture::new(false);
    let ids = three_chains(&fixture);

    let pruned = fixture
        .store
        .prune(Duration::from_secs(3600), Some(1 << 30))
        .unwrap();

    assert_eq!(pruned.chains_dropped, 0);
    assert!(!pruned.over_cap);
    assert!(
        pruned.store_bytes.is_some_and(|bytes| bytes > 0),
        "{pruned:?}"
    );
    for id in &ids {
        assert_eq!(fixture.store.changes(id, Some(id)).unwrap(), vec![]);
    }
}

#[test]
fn removing_the_store_deletes_its_directory() {
    let fixture = Fixture::new(false);
    fixture.store.snapshot("one").unwrap();
    let dir = fixture.state.path().join("checkpoints/key");
    assert!(dir.is_dir());

    fixture.store.remove().unwrap();

    assert!(!dir.exists());
}

#[test]
fn restoring_only_some_paths_leaves_every_other_change_as_it_is() {
    let fixture = Fixture::new(false);
    fixture.write("agent.txt", b"before\n");
    fixture.write("user.txt", b"before\n");
    let start = fixture.store.snapshot("start").unwrap().id;
    // The agent changes one file and makes a directory with a file; the user changes another
    // file and adds one in the agent's new directory.
    fixture.write("agent.txt", b"agent\n");
    fixture.write("made/by/agent.rs", b"fn f() {}\n");
    fixture.write("user.txt", b"user\n");
    fixture.write("mine.txt", b"mine\n");

    fixture
        .store
        .restore_only(
            &start,
            &[
                PathBuf::from("agent.txt"),
                PathBuf::from("made/by/agent.rs"),
            ],
        )
        .unwrap();

    let root = fixture.root();
    assert_eq!(std::fs::read(root.join("agent.txt")).unwrap(), b"before\n");
    assert!(!root.join("made").exists());
    assert_eq!(std::fs::read(root.join("user.txt")).unwrap(), b"user\n");
    assert_eq!(std::fs::read(root.join("mine.txt")).unwrap(), b"mine\n");
}
