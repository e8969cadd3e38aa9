//! What the store never does: run a hostile repository's programs, touch the project's own
//! repository, or change ignored files.

use std::fs;

use pretty_assertions::assert_eq;

use crate::fixture::{Fixture, capture, git, own_repository_state};

#[test]
fn a_hostile_repository_configuration_runs_nothing() {
    let fixture = Fixture::new(true).with_typical_files();
    let witness = fixture.state.path().join("PWNED");
    let touch = format!("touch {}", witness.display());
    let git_dir = fixture.root().join(".git");
    let mut config = fs::read_to_string(git_dir.join("config")).unwrap();
    config.push_str(&format!(
        "[core]\n\tfsmonitor = {touch}\n\thooksPath = hooks\n\tpager = {touch}\n\
         [filter \"evil\"]\n\tclean = {touch}\n\tsmudge = {touch}\n\tprocess = {touch}\n\
         [diff \"evil\"]\n\ttextconv = {touch}\n\tcommand = {touch}\n\
         [diff]\n\texternal = {touch}\n"
    ));
    fs::write(git_dir.join("config"), config).unwrap();
    fixture.write(".gitattributes", b"* filter=evil diff=evil\n");
    fixture.write(
        "hooks/post-index-change",
        format!("#!/bin/sh\n{touch}\n").as_bytes(),
    );
    fixture.chmod("hooks/post-index-change", 0o755);

    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.write("src/main.rs", b"changed\n");
    fixture.store.diff(&snapshot.id, None).unwrap();
    fixture.store.changes(&snapshot.id, None).unwrap();
    fixture.store.restore(&snapshot.id).unwrap();

    assert!(!witness.exists(), "a configured program ran");
}

#[test]
fn content_is_stored_as_is_whatever_the_attributes_say() {
    let fixture = Fixture::new(true);
    fixture.write(
        ".gitattributes",
        b"* text eol=crlf ident working-tree-encoding=UTF-16\n",
    );
    fixture.write("crlf.txt", b"one\r\ntwo\r\n$Id$\n");
    let before = capture(fixture.root());
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.write("crlf.txt", b"replaced\n");

    fixture.store.restore(&snapshot.id).unwrap();

    assert_eq!(capture(fixture.root()), before);
}

#[test]
fn the_projects_own_repository_is_never_touched() {
    let fixture = Fixture::new(true).with_typical_files();
    git(fixture.root(), &["add", "src"]);
    git(fixture.root(), &["commit", "--quiet", "-m", "first"]);
    fixture.write("staged.txt", b"staged\n");
    git(fixture.root(), &["add", "staged.txt"]);
    fixture.write("src/main.rs", b"unstaged edit\n");
    let own = own_repository_state(fixture.root());
    let status = git(fixture.root(), &["status", "--porcelain"]);

    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.store.diff(&snapshot.id, None).unwrap();
    let restore = fixture.store.restore(&snapshot.id).unwrap();
    fixture.store.restore(&restore.previous).unwrap();
    fixture
        .store
        .prune(std::time::Duration::ZERO, None)
        .unwrap();

    assert_eq!(own_repository_state(fixture.root()), own);
    assert_eq!(git(fixture.root(), &["status", "--porcelain"]), status);
}

#[test]
fn restore_leaves_ignored_files_and_git_alone() {
    let fixture = Fixture::new(true).with_typical_files();
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.remove("target");
    fixture.write("debug.log", b"new log\n");
    fixture.write("fresh.log", b"also ignored\n");
    let git_before = fs::read(fixture.root().join(".git/HEAD")).unwrap();

    fixture.store.restore(&snapshot.id).unwrap();

    let now = capture(fixture.root());
    assert!(!now.contains_key(std::path::Path::new("target")));
    assert_eq!(
        fs::read(fixture.root().join("debug.log")).unwrap(),
        b"new log\n"
    );
    assert_eq!(
        fs::read(fixture.root().join("fresh.log")).unwrap(),
        b"also ignored\n"
    );
    assert_eq!(
        fs::read(fixture.root().join(".git/HEAD")).unwrap(),
        git_before
    );
}

#[test]
fn the_projects_exclude_file_is_honoured() {
    let fixture = Fixture::new(true);
    fixture.write(".git/info/exclude", b"local-notes.md\n");
    fixture.write("local-notes.md", b"mine\n");
    fixture.write("code.rs", b"code\n");
    let snapshot = fixture.store.snapshot("start").unwrap();
    fixture.remove("local-notes.md");
    fixture.remove("code.rs");

    let restore = fixture.store.restore(&snapshot.id).unwrap();

    assert_eq!(
        restore
            .changed
            .iter()
            .map(|c| c.path.clone())
            .collect::<Vec<_>>(),
        vec![std::path::PathBuf::from("code.rs")]
    );
    assert!(!fixture.root().join("local-notes.md").exists());
}
