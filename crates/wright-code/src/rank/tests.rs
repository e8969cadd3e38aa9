use pretty_assertions::assert_eq;

use super::*;
use crate::{Extractor, Lang};

thread_local! {
    /// [`per_file`] on one thread, when set.
    pub(super) static ONE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `(path, source)` pairs as the index would give them.
fn tags(files: &[(&str, &str)]) -> Vec<(String, FileTags)> {
    files
        .iter()
        .map(|(path, source)| {
            let lang = Lang::of_path(std::path::Path::new(path)).unwrap();
            let found = Extractor::new().definitions(lang, source.as_bytes());
            let tags = FileTags {
                lang,
                definitions: found.definitions,
                partial: found.partial,
                truncated: found.truncated,
                references: Some(crate::index::references(lang, source.as_bytes())),
            };
            ((*path).to_owned(), tags)
        })
        .collect()
}

/// The names of the definitions, best first.
fn order(files: &[(String, FileTags)], focus: &Focus) -> Vec<String> {
    let view: Vec<(&str, &FileTags)> = files.iter().map(|(p, t)| (p.as_str(), t)).collect();
    let ranked = rank(&view, focus);
    ranked
        .iter()
        .map(|r| view[r.file].1.definitions[r.definition].name.clone())
        .collect()
}

fn project() -> Vec<(String, FileTags)> {
    tags(&[
        (
            "core.rs",
            "pub fn widely_used() {}\npub fn unused_here() {}\n",
        ),
        ("a.rs", "fn a() { widely_used(); }\n"),
        ("b.rs", "fn b() { widely_used(); widely_used(); }\n"),
        ("c.rs", "fn c() { widely_used(); }\n"),
        ("special.rs", "pub fn special_helper() {}\n"),
        ("x.rs", "fn x() { special_helper(); }\n"),
    ])
}

#[test]
fn what_many_files_use_ranks_first_and_the_unused_last() {
    let files = project();
    let got = order(&files, &Focus::default());
    assert_eq!(got[0], "widely_used");
    assert_eq!(got[1], "special_helper");
    // Nothing mentions these: they come after every definition something uses.
    let unused = ["unused_here", "a", "b", "c", "x"];
    assert!(
        got[2..].iter().all(|n| unused.contains(&n.as_str())),
        "{got:?}"
    );
}

#[test]
fn a_focus_file_lifts_what_it_uses() {
    let files = project();
    let focus = Focus {
        paths: vec!["x.rs".into()],
        ..Focus::default()
    };
    let got = order(&files, &focus);
    assert_eq!(got[0], "special_helper", "{got:?}");
}

#[test]
fn a_focus_directory_covers_the_files_under_it_only() {
    let paths = vec!["src/".to_owned()];
    assert!(Focus::covers(&paths, "src/a.rs"));
    assert!(Focus::covers(&paths, "src/deep/b.rs"));
    assert!(!Focus::covers(&paths, "srcx/a.rs"));
    assert!(!Focus::covers(&paths, "a.rs"));
}

#[test]
fn a_focus_name_comes_first() {
    let files = project();
    let focus = Focus {
        names: vec!["unused_here".into()],
        ..Focus::default()
    };
    assert_eq!(order(&files, &focus)[0], "unused_here");
}

#[test]
fn the_ranking_is_the_same_every_time() {
    let files = project();
    let first = order(&files, &Focus::default());
    for _ in 0..5 {
        assert_eq!(order(&files, &Focus::default()), first);
    }
}

#[test]
fn an_empty_project_ranks_nothing() {
    assert!(rank(&[], &Focus::default()).is_empty());
}

#[test]
fn test_files_are_told_by_their_directory_or_name() {
    for path in [
        "tests/io.rs",
        "src/__tests__/a.js",
        "pkg/x_test.go",
        "test_mod.py",
        "src/a.test.ts",
        "web/b.spec.js",
        "src/test/java/FooTest.java",
    ] {
        assert!(is_test_file(path), "{path}");
    }
    for path in [
        "src/lib.rs",
        "src/testing.rs",
        "latest/main.go",
        "contest.py",
    ] {
        assert!(!is_test_file(path), "{path}");
    }
}

#[test]
fn a_helper_in_a_test_file_ranks_below_the_same_use_in_code() {
    let files = tags(&[
        ("src/core.rs", "pub fn core_helper() {}\n"),
        ("tests/common.rs", "pub fn test_helper() {}\n"),
        ("src/a.rs", "fn a() { core_helper(); test_helper(); }\n"),
        ("src/b.rs", "fn b() { core_helper(); test_helper(); }\n"),
    ]);
    let got = order(&files, &Focus::default());
    assert_eq!(&got[..2], ["core_helper", "test_helper"]);
}

#[test]
fn files_defining_the_same_name_do_not_feed_each_other() {
    // Three trait impls (or copied fixtures) each define `name`: none mentions another's.
    let files = tags(&[
        ("a.rs", "fn name() {}\n"),
        ("b.rs", "fn name() {}\n"),
        ("c.rs", "fn name() {}\n"),
        ("core.rs", "pub fn used_once() {}\n"),
        ("user.rs", "fn user() { used_once(); }\n"),
    ]);
    let got = order(&files, &Focus::default());
    assert_eq!(got[0], "used_once", "{got:?}");
}

#[test]
fn a_file_asked_about_leans_more_than_a_file_of_the_round() {
    let files = project();
    let focus = Focus {
        paths: vec!["x.rs".into()],
        recent: vec!["a.rs".into(), "b.rs".into(), "c.rs".into()],
        ..Focus::default()
    };
    assert_eq!(order(&files, &focus)[0], "special_helper");
}

#[test]
fn many_files_are_read_on_two_threads_in_order_and_rank_as_they_would_on_one() {
    // 100 files (past TWO_THREADS_FILES), the last ones mentioning most: the split is by
    // the names mentioned, and what each file gives comes back in the files' order.
    let sources: Vec<(String, String)> = (0..100)
        .map(|i| {
            let calls: String = (0..i).map(|j| format!("f{j}(); ")).collect();
            (
                format!("m{i:03}.rs"),
                format!("pub fn f{i}() {{ {calls}}}\n"),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = sources
        .iter()
        .map(|(p, s)| (p.as_str(), s.as_str()))
        .collect();
    let files = tags(&pairs);
    let view: Vec<(&str, &FileTags)> = files.iter().map(|(p, t)| (p.as_str(), t)).collect();
    let got = per_file(&view, |i, tags| (i, tags.definitions[0].name.clone()));
    let expected: Vec<(usize, String)> = (0..100).map(|i| (i, format!("f{i}"))).collect();
    assert_eq!(got, expected);
    // The ranking read on two threads is the one read on one, scores and all; every file but
    // the first mentions f0, which ranks first.
    let two = rank(&view, &Focus::default());
    ONE_THREAD.set(true);
    let one = rank(&view, &Focus::default());
    ONE_THREAD.set(false);
    assert_eq!(two, one);
    assert_eq!(view[two[0].file].1.definitions[0].name, "f0");
    assert_eq!(two.len(), 100);
}
