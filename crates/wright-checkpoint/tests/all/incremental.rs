//! Snapshots after the first, which hand git only what the walk saw change: every kind of
//! change is still seen, in the same store and in a store opened again by a new process, and
//! a file written again within its timestamp tick is not missed.

use std::fs;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;
use wright_checkpoint::{ChangeKind, FileChange};

use crate::fixture::{CAP, Fixture, git};

/// Longer than the store's racy window (2 s): files written before it are trusted by their
/// status alone at the next snapshot, so the tests exercise that path and not only the
/// re-reading of recent files.
const SETTLE: Duration = Duration::from_millis(2100);

fn change(path: &str, kind: ChangeKind) -> FileChange {
    FileChange {
        path: path.into(),
        kind,
        directory: false,
    }
}

fn mtime(fixture: &Fixture, path: &str) -> SystemTime {
    fs::symlink_metadata(fixture.root().join(path))
        .unwrap()
        .modified()
        .unwrap()
}

/// Writes `bytes` to `path` and gives it back the modification time `time`.
fn write_with_mtime(fixture: &Fixture, path: &str, bytes: &[u8], time: SystemTime) {
    fixture.write(path, bytes);
    fs::File::options()
        .write(true)
        .open(fixture.root().join(path))
        .unwrap()
        .set_modified(time)
        .unwrap();
}

/// One kind of change and what the next snapshot must record of it.
struct Case {
    name: &'static str,
    change: fn(&Fixture),
    expected: Vec<FileChange>,
}

fn cases() -> Vec<Case> {
    use ChangeKind::{Added, Deleted, ModeChanged, Modified};
    vec![
        Case {
            name: "nothing",
            change: |_| {},
            expected: vec![],
        },
        Case {
            name: "content, same size and modification time",
            change: |f| write_with_mtime(f, "a.txt", b"bbbb\n", mtime(f, "a.txt")),
            expected: vec![change("a.txt", Modified)],
        },
        Case {
            name: "deleted and made again, same size and modification time",
            change: |f| {
                let time = mtime(f, "a.txt");
                f.remove("a.txt");
                write_with_mtime(f, "a.txt", b"cccc\n", time);
            },
            expected: vec![change("a.txt", Modified)],
        },
        Case {
            name: "created",
            change: |f| f.write("dir/new.txt", b"new\n"),
            expected: vec![change("dir/new.txt", Added)],
        },
        Case {
            name: "deleted",
            change: |f| f.remove("dir/x.txt"),
            expected: vec![change("dir/x.txt", Deleted)],
        },
        Case {
            name: "executable bit set",
            change: |f| f.chmod("script.sh", 0o755),
            expected: vec![change("script.sh", ModeChanged)],
        },
        Case {
            name: "made private",
            change: |f| f.chmod("a.txt", 0o600),
            expected: vec![change("a.txt", ModeChanged)],
        },
        Case {
            name: "file replaced by a link",
            change: |f| {
                f.remove("script.sh");
                f.link("a.txt", "script.sh");
            },
            expected: vec![change("script.sh", Modified)],
        },
        Case {
            name: "link replaced by a file",
            change: |f| {
                f.remove("link");
                f.write("link", b"a.txt");
            },
            expected: vec![change("link", Modified)],
        },
        Case {
            name: "link retargeted",
            change: |f| {
                f.remove("link");
                f.link("dir/x.txt", "link");
            },
            expected: vec![change("link", Modified)],
        },
        Case {
            name: "file replaced by a directory",
            change: |f| {
                f.remove("script.sh");
                f.write("script.sh/inner.txt", b"inner\n");
            },
            expected: vec![
                change("script.sh", Deleted),
                change("script.sh/inner.txt", Added),
            ],
        },
        Case {
            name: "directory replaced by a file",
            change: |f| {
                f.remove("dir");
                f.write("dir", b"now a file\n");
            },
            expected: vec![change("dir", Added), change("dir/x.txt", Deleted)],
        },
        Case {
            name: "file that becomes ignored",
            change: |f| f.write(".gitignore", b"*.log\nlater.txt\n"),
            expected: vec![change(".gitignore", Modified), change("later.txt", Deleted)],
        },
        Case {
            name: "ignored file no longer ignored",
            change: |f| f.write(".gitignore", b"\n"),
            expected: vec![change(".gitignore", Modified), change("was.log", Added)],
        },
        Case {
            name: "file that grows past the size cap",
            change: |f| f.write("a.txt", &vec![b'a'; CAP as usize + 1]),
            expected: vec![change("a.txt", Deleted)],
        },
        Case {
            name: "directory that becomes a nested repository",
            change: |f| {
                let sub = f.root().join("dir");
                git(&sub, &["init", "--quiet"]);
                git(&sub, &["add", "x.txt"]);
                git(&sub, &["commit", "--quiet", "-m", "x"]);
            },
            // Git stores the repository as a link to its commit, which changes do not list.
            expected: vec![change("dir/x.txt", Deleted)],
        },
    ]
}

/// The project every case starts from.
fn project() -> Fixture {
    let fixture = Fixture::new(false);
    fixture.write(".gitignore", b"*.log\n");
    fixture.write("a.txt", b"aaaa\n");
    fixture.write("script.sh", b"#!/bin/sh\n");
    fixture.write("dir/x.txt", b"x\n");
    fixture.write("later.txt", b"later\n");
    fixture.write("was.log", b"log\n");
    fixture.link("a.txt", "link");
    fixture
}

/// Runs every case on a project of its own: first snapshot, the change, (the store opened
/// again,) second snapshot; the changes between the two must be the expected ones.
fn check_cases(reopen: bool) {
    let mut fixtures: Vec<(Case, Fixture)> =
        cases().into_iter().map(|case| (case, project())).collect();
    std::thread::sleep(SETTLE);
    for (case, fixture) in &mut fixtures {
        let first = fixture.store.snapshot("first").unwrap();
        (case.change)(fixture);
        if reopen {
            assert!(
                fixture.state_dir().join("stat-cache").is_file(),
                "{}",
                case.name
            );
            fixture.reopen();
        }

        let second = fixture.store.snapshot("second").unwrap();

        let changes = fixture.store.changes(&first.id, Some(&second.id)).unwrap();
        assert_eq!(changes, case.expected, "{}", case.name);
        if case.expected.is_empty() {
            assert_eq!(second.id, first.id, "{}", case.name);
        }
    }
}

#[test]
fn the_next_snapshot_in_the_same_store_sees_every_kind_of_change() {
    check_cases(false);
}

#[test]
fn the_next_snapshot_after_reopening_the_store_sees_every_kind_of_change() {
    check_cases(true);
}

/// The racy rule itself (a rewrite within the walk's timestamp tick) cannot be staged here, a
/// snapshot taking longer than a tick; `stat_cache.rs` tests it on statuses.
#[test]
fn a_file_written_again_at_once_with_its_size_and_time_is_not_missed() {
    let fixture = Fixture::new(false);
    fixture.write("a.txt", b"aaaa\n");
    let first = fixture.store.snapshot("first").unwrap();
    write_with_mtime(&fixture, "a.txt", b"bbbb\n", mtime(&fixture, "a.txt"));

    let second = fixture.store.snapshot("second").unwrap();

    assert_eq!(
        fixture.store.changes(&first.id, Some(&second.id)).unwrap(),
        vec![change("a.txt", ChangeKind::Modified)]
    );
}

#[test]
fn a_damaged_kept_walk_is_ignored() {
    let mut fixture = Fixture::new(false);
    fixture.write("a.txt", b"aaaa\n");
    let first = fixture.store.snapshot("first").unwrap();
    fs::write(
        fixture.state_dir().join("stat-cache"),
        b"wright-stat-cache 1\n\x07",
    )
    .unwrap();
    fixture.write("b.txt", b"b\n");
    fixture.reopen();

    let second = fixture.store.snapshot("second").unwrap();

    assert_eq!(
        fixture.store.changes(&first.id, Some(&second.id)).unwrap(),
        vec![change("b.txt", ChangeKind::Added)]
    );
}

#[test]
fn a_walk_kept_for_another_snapshot_is_not_trusted() {
    let mut fixture = Fixture::new(false);
    fixture.write("a.txt", b"aaaa\n");
    fixture.store.snapshot("first").unwrap();
    let kept = fs::read(fixture.state_dir().join("stat-cache")).unwrap();
    fixture.write("b.txt", b"b\n");
    let second = fixture.store.snapshot("second").unwrap();
    // The walk of the first snapshot comes back, as if written by a process that lost a race.
    fs::write(fixture.state_dir().join("stat-cache"), kept).unwrap();
    fixture.remove("b.txt");
    fixture.reopen();

    let third = fixture.store.snapshot("third").unwrap();

    assert_eq!(
        fixture.store.changes(&second.id, Some(&third.id)).unwrap(),
        vec![change("b.txt", ChangeKind::Deleted)]
    );
}
