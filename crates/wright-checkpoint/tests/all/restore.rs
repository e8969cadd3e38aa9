//! Restores: the tree comes back byte for byte and mode for mode, and a restore can be undone.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use wright_checkpoint::{ChangeKind, FileChange};

use crate::fixture::{Fixture, capture};

fn restore_undoes_every_kind_of_change(with_git: bool) {
    let fixture = Fixture::new(with_git).with_typical_files();
    let before = capture(fixture.root());
    let snapshot = fixture.store.snapshot("before the round").unwrap();
    fixture.change_everything();
    let changed = capture(fixture.root());

    let restore = fixture.store.restore(&snapshot.id).unwrap();

    // Files the snapshots do not capture stay as they are: the ignored build output keeps its
    // new content and the file over the cap stays.
    let mut expected = before;
    for uncaptured in ["target/build.out", "big.bin"] {
        let path = PathBuf::from(uncaptured);
        expected.insert(path.clone(), changed[&path].clone());
    }
    assert_eq!(capture(fixture.root()), expected);
    assert_eq!(restore.skipped, vec![PathBuf::from("big.bin")]);

    fixture.store.restore(&restore.previous).unwrap();

    assert_eq!(capture(fixture.root()), changed);
}

#[test]
fn restore_undoes_every_kind_of_change_in_a_project_without_git() {
    restore_undoes_every_kind_of_change(false);
}

#[test]
fn restore_undoes_every_kind_of_change_in_a_git_project() {
    restore_undoes_every_kind_of_change(true);
}

#[test]
fn restore_reports_what_it_changed() {
    let fixture = Fixture::new(false).with_typical_files();
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.write("new.txt", b"created\n");
    fixture.remove("old_dir");
    fixture.chmod("secret.env", 0o644);
    fixture.mkdir("fresh");

    let restore = fixture.store.restore(&snapshot.id).unwrap();

    let change = |path: &str, kind, directory| FileChange {
        path: path.into(),
        kind,
        directory,
    };
    assert_eq!(
        restore.changed,
        vec![
            change("fresh", ChangeKind::Deleted, true),
            change("new.txt", ChangeKind::Deleted, false),
            change("old_dir/old.txt", ChangeKind::Added, false),
            change("secret.env", ChangeKind::ModeChanged, false),
        ]
    );
}

#[test]
fn a_directory_the_user_made_read_only_gets_its_mode_and_files_back() {
    let fixture = Fixture::new(false);
    fixture.write("locked/inside.txt", b"inside\n");
    fixture.chmod("locked", 0o555);
    let before = capture(fixture.root());
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.chmod("locked", 0o755);
    fixture.write("locked/inside.txt", b"changed\n");
    fixture.write("locked/added.txt", b"added\n");

    fixture.store.restore(&snapshot.id).unwrap();

    assert_eq!(capture(fixture.root()), before);
    fixture.chmod("locked", 0o755);
}

#[test]
fn a_file_replaced_by_a_directory_and_back_is_restored() {
    let fixture = Fixture::new(false);
    fixture.write("thing", b"a file\n");
    let before = capture(fixture.root());
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.remove("thing");
    fixture.write("thing/inner.txt", b"now a directory\n");
    let changed = capture(fixture.root());

    let restore = fixture.store.restore(&snapshot.id).unwrap();
    assert_eq!(capture(fixture.root()), before);

    fixture.store.restore(&restore.previous).unwrap();
    assert_eq!(capture(fixture.root()), changed);
}

#[test]
fn restore_of_a_project_whose_directory_became_a_link_writes_inside_the_project() {
    let fixture = Fixture::new(false);
    let outside = tempfile::TempDir::new().unwrap();
    fixture.write("dir/file.txt", b"mine\n");
    let before = capture(fixture.root());
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.remove("dir");
    std::os::unix::fs::symlink(outside.path(), fixture.root().join("dir")).unwrap();

    fixture.store.restore(&snapshot.id).unwrap();

    assert_eq!(capture(fixture.root()), before);
    assert_eq!(capture(outside.path()), Default::default());
}

#[test]
fn restoring_the_current_state_changes_nothing() {
    let fixture = Fixture::new(true).with_typical_files();
    let before = capture(fixture.root());
    let snapshot = fixture.store.snapshot("start").unwrap();

    let restore = fixture.store.restore(&snapshot.id).unwrap();

    assert_eq!(restore.previous, snapshot.id);
    assert_eq!(restore.changed, vec![]);
    assert_eq!(capture(fixture.root()), before);
}
