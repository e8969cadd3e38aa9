use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use pretty_assertions::assert_eq;

use super::*;

fn put(root: &Path, rel: &str, content: &[u8]) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    path
}

fn names(outcome: &Indexed) -> Vec<String> {
    match outcome {
        Indexed::Tags(tags) => tags.definitions.iter().map(|d| d.name.clone()).collect(),
        other => panic!("not parsed: {other:?}"),
    }
}

fn run(root: &Path, files: &[PathBuf], cache: Option<&Path>) -> (Vec<Indexed>, IndexStats) {
    index_files(root, files, cache, &AtomicBool::new(false))
}

#[test]
fn outcomes_come_in_the_order_of_the_files_whatever_thread_parsed_them() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..40)
        .map(|i| {
            put(
                dir.path(),
                &format!("m{i}.rs"),
                format!("fn f{i}() {{}}\n").as_bytes(),
            )
        })
        .collect();
    let (outcomes, stats) = run(dir.path(), &files, None);
    assert_eq!(
        stats,
        IndexStats {
            parsed: 40,
            cached: 0
        }
    );
    for (i, outcome) in outcomes.iter().enumerate() {
        assert_eq!(names(outcome), vec![format!("f{i}")]);
    }
}

#[test]
fn an_unchanged_file_comes_from_the_cache_and_a_changed_one_is_parsed_alone() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let a = put(dir.path(), "src/a.rs", b"fn alpha() {}\n");
    let b = put(dir.path(), "b.py", b"def beta():\n    pass\n");
    let files = vec![a.clone(), b.clone()];
    let (first, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 2,
            cached: 0
        }
    );
    assert_eq!(
        std::fs::read_dir(cache.path()).unwrap().count(),
        1,
        "one file per project"
    );

    let (second, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 0,
            cached: 2
        }
    );
    for (x, y) in first.iter().zip(&second) {
        match (x, y) {
            (Indexed::Tags(x), Indexed::Tags(y)) => assert_eq!(x, y),
            other => panic!("{other:?}"),
        }
    }

    std::fs::write(&a, "fn alpha() {}\nfn gamma() {}\n").unwrap();
    let (third, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 1,
            cached: 1
        }
    );
    assert_eq!(names(&third[0]), vec!["alpha", "gamma"]);
    assert_eq!(names(&third[1]), vec!["beta"]);
}

#[test]
fn a_broken_or_foreign_cache_is_ignored_and_written_anew() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let files = vec![put(dir.path(), "a.rs", b"fn alpha() {}\n")];
    run(dir.path(), &files, Some(cache.path()));
    let cache_file = std::fs::read_dir(cache.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&cache_file, b"{\"version\": \"\\u0000 not json").unwrap();
    let (outcomes, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 1,
            cached: 0
        }
    );
    assert_eq!(names(&outcomes[0]), vec!["alpha"]);

    // Another version's cache (another query) is not trusted either.
    let text = std::fs::read_to_string(&cache_file).unwrap();
    let other = text.replace(cache_version(), "0-old");
    assert_ne!(other, text);
    std::fs::write(&cache_file, other).unwrap();
    let (_, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 1,
            cached: 0
        }
    );
    let (_, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 0,
            cached: 1
        }
    );
}

#[test]
fn binary_huge_unknown_and_missing_files_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let binary = put(dir.path(), "blob.c", b"int x;\0\x01\x02");
    let mut big = b"// big\n".to_vec();
    big.resize(usize::try_from(MAX_FILE_BYTES).unwrap() + 1, b' ');
    let huge = put(dir.path(), "huge.js", &big);
    let unknown = put(dir.path(), "notes.txt", b"fn not_code() {}");
    let missing = dir.path().join("gone.rs");
    let (outcomes, stats) = run(dir.path(), &[binary, huge, unknown, missing], None);
    assert!(matches!(outcomes[0], Indexed::Binary), "{:?}", outcomes[0]);
    assert!(
        matches!(outcomes[1], Indexed::TooLarge),
        "{:?}",
        outcomes[1]
    );
    assert!(
        matches!(outcomes[2], Indexed::UnknownLanguage),
        "{:?}",
        outcomes[2]
    );
    assert!(
        matches!(outcomes[3], Indexed::Unreadable),
        "{:?}",
        outcomes[3]
    );
    assert_eq!(
        stats,
        IndexStats {
            parsed: 1,
            cached: 0
        }
    );
}

#[test]
fn a_raised_stop_parses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let files = vec![put(dir.path(), "a.rs", b"fn alpha() {}\n")];
    let (outcomes, stats) = index_files(dir.path(), &files, None, &AtomicBool::new(true));
    assert!(matches!(outcomes[0], Indexed::Unreadable));
    assert_eq!(stats.parsed, 0);
}

#[test]
fn references_count_names_not_numbers() {
    let refs = references(b"let x = parse(input) + parse(other) * 0x1f + 10usize; $el a_b");
    let tags = FileTags {
        lang: Lang::Rust,
        definitions: Vec::new(),
        partial: false,
        truncated: false,
        references: refs,
    };
    let got: Vec<(&str, u32)> = tags.references().collect();
    assert_eq!(
        got,
        vec![
            ("parse", 2),
            ("$el", 1),
            ("a_b", 1),
            ("input", 1),
            ("let", 1),
            ("other", 1)
        ]
    );
}
