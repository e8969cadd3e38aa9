use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use pretty_assertions::assert_eq;

use super::*;

thread_local! {
    /// The parsing threads of this test's calls, when set (else one per core).
    pub(super) static THREADS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

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
    index_files(
        root,
        files,
        cache,
        Scope::Part,
        Need::References,
        &AtomicBool::new(false),
    )
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
            cached: 0,
            lexed: 0
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
    let c = put(dir.path(), "c.go", b"package c\nfunc Gamma() {}\n");
    let d = put(dir.path(), "d.js", b"function delta() {}\n");
    let files = vec![a.clone(), b, c, d];
    let (first, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 4,
            cached: 0,
            lexed: 0
        }
    );
    let entries = std::fs::read_dir(cache.path()).unwrap().count();
    assert_eq!(entries, 1, "one file per project");

    let (second, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 0,
            cached: 4,
            lexed: 0
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
            cached: 3,
            lexed: 0
        }
    );
    assert_eq!(names(&third[0]), vec!["alpha", "gamma"]);
    assert_eq!(names(&third[1]), vec!["beta"]);
}

#[test]
fn a_broken_or_foreign_cache_is_ignored_and_written_anew() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..4)
        .map(|i| put(dir.path(), &format!("m{i}.rs"), b"fn alpha() {}\n"))
        .collect();
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
            parsed: 4,
            cached: 0,
            lexed: 0
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
            parsed: 4,
            cached: 0,
            lexed: 0
        }
    );
    let (_, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 0,
            cached: 4,
            lexed: 0
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
            cached: 0,
            lexed: 0
        }
    );
}

#[test]
fn a_raised_stop_parses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let files = vec![put(dir.path(), "a.rs", b"fn alpha() {}\n")];
    let (outcomes, stats) = index_files(
        dir.path(),
        &files,
        None,
        Scope::Part,
        Need::References,
        &AtomicBool::new(true),
    );
    assert!(matches!(outcomes[0], Indexed::Unreadable));
    assert_eq!(stats.parsed, 0);
}

#[test]
fn references_count_names_not_numbers() {
    let refs = references(
        Lang::JavaScript,
        b"let x = parse(input) + parse(other) * 0x1f + 10usize; $el a_b",
    );
    let tags = FileTags {
        lang: Lang::Rust,
        definitions: Vec::new(),
        partial: false,
        truncated: false,
        references: Some(refs),
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

fn mentioned(lang: Lang, source: &str) -> Vec<String> {
    let tags = FileTags {
        lang,
        definitions: Vec::new(),
        partial: false,
        truncated: false,
        references: Some(references(lang, source.as_bytes())),
    };
    let mut names: Vec<String> = tags.references().map(|(n, _)| n.to_owned()).collect();
    names.sort();
    names
}

#[test]
fn comments_and_strings_mention_nothing() {
    let attributes = "#[test]\n#[cfg(feature = \"x\")]\nfn used() { let s = r#\"raw \" quoted\"#; r\"plain\"; after(s) }\n";
    assert_eq!(
        mentioned(Lang::Rust, attributes),
        vec!["after", "fn", "let", "used"]
    );
    let rust = "/// Spawns a task with the runtime.\nfn spawn<'a>(x: &'a str) -> char {\n    // see doc\n    /* block\n comment */ let s = \"quoted words\\\" here\";\n    '\\n'; 'q'; real_call(s)\n}\n";
    assert_eq!(
        mentioned(Lang::Rust, rust),
        vec!["char", "fn", "let", "real_call", "spawn", "str"]
    );
    let python = "# a comment naming foo\ndef f():\n    \"\"\"Docs naming bar.\n    more\"\"\"\n    return 'baz' + qux\n";
    assert_eq!(
        mentioned(Lang::Python, python),
        vec!["def", "qux", "return"]
    );
    let js = "const t = `template ${x}`; // note\nconst s = 'it\\'s'; call(y)\n";
    assert_eq!(mentioned(Lang::JavaScript, js), vec!["call", "const"]);
    // An unclosed quote in a language whose strings end with the line costs one line only.
    let go = "x := \"unclosed\nreal_name()\n";
    assert_eq!(mentioned(Lang::Go, go), vec!["real_name"]);
}

#[test]
fn a_file_rewritten_with_its_old_size_and_mtime_is_parsed_again() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..4)
        .map(|i| put(dir.path(), &format!("m{i}.rs"), b"pub fn alpha_one() {}\n"))
        .collect();
    let old = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    run(dir.path(), &files, Some(cache.path()));
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&files[0], b"pub fn omega_one() {}\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&files[0])
        .unwrap()
        .set_modified(old)
        .unwrap();
    let (outcomes, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 1,
            cached: 3,
            lexed: 0
        }
    );
    assert_eq!(names(&outcomes[0]), vec!["omega_one"]);
}

#[test]
fn a_few_files_leave_the_cache_alone_and_a_whole_tree_forgets_the_files_gone() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..5)
        .map(|i| {
            put(
                dir.path(),
                &format!("m{i}.rs"),
                format!("fn f{i}() {{}}\n").as_bytes(),
            )
        })
        .collect();
    let (_, stats) = run(dir.path(), &files[..2], Some(cache.path()));
    assert_eq!(
        stats,
        IndexStats {
            parsed: 2,
            cached: 0,
            lexed: 0
        }
    );
    assert_eq!(
        std::fs::read_dir(cache.path()).unwrap().count(),
        0,
        "no cache for 2 files"
    );
    run(dir.path(), &files, Some(cache.path()));
    let cache_file = std::fs::read_dir(cache.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(
        std::fs::read_to_string(&cache_file)
            .unwrap()
            .contains("\"m4.rs\"")
    );
    // The cache is the user's only.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&cache_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }
    std::fs::remove_file(&files[4]).unwrap();
    let (_, stats) = index_files(
        dir.path(),
        &files[..4],
        Some(cache.path()),
        Scope::Part,
        Need::References,
        &AtomicBool::new(false),
    );
    assert_eq!(stats.cached, 4);
    assert!(
        std::fs::read_to_string(&cache_file)
            .unwrap()
            .contains("\"m4.rs\""),
        "a part keeps it"
    );
    index_files(
        dir.path(),
        &files[..4],
        Some(cache.path()),
        Scope::Whole,
        Need::References,
        &AtomicBool::new(false),
    );
    assert!(
        !std::fs::read_to_string(&cache_file)
            .unwrap()
            .contains("\"m4.rs\""),
        "the whole forgets it"
    );
}

/// Definitions does not lex the names files mention; a map after it reads them from the files
/// without parsing them again, and a later Definitions takes the cache as it is.
#[test]
fn references_are_lexed_only_when_needed_and_added_to_the_cached_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..6)
        .map(|i| {
            put(
                dir.path(),
                &format!("m{i}.rs"),
                format!("fn f{i}() {{ helper_{i}(); shared(); }}\n").as_bytes(),
            )
        })
        .collect();
    let index = |need| {
        index_files(
            dir.path(),
            &files,
            Some(cache.path()),
            Scope::Part,
            need,
            &AtomicBool::new(false),
        )
    };
    let refs = |outcome: &Indexed| match outcome {
        Indexed::Tags(tags) => tags
            .references()
            .map(|(n, c)| (n.to_owned(), c))
            .collect::<Vec<_>>(),
        other => panic!("not parsed: {other:?}"),
    };
    let (first, stats) = index(Need::Definitions);
    assert_eq!((stats.parsed, stats.cached, stats.lexed), (6, 0, 0));
    assert_eq!(names(&first[2]), vec!["f2".to_owned()]);
    assert!(refs(&first[2]).is_empty());
    let (second, stats) = index(Need::References);
    assert_eq!((stats.parsed, stats.cached, stats.lexed), (0, 0, 6));
    assert_eq!(names(&second[2]), vec!["f2".to_owned()]);
    let expected: Vec<(String, u32)> = vec![
        ("f2".into(), 1),
        ("fn".into(), 1),
        ("helper_2".into(), 1),
        ("shared".into(), 1),
    ];
    let mut got = refs(&second[2]);
    got.sort();
    assert_eq!(got, expected);
    // Both are cached now, for either need.
    let (third, stats) = index(Need::References);
    assert_eq!((stats.parsed, stats.cached, stats.lexed), (0, 6, 0));
    let mut got = refs(&third[2]);
    got.sort();
    assert_eq!(got, expected);
    let (_, stats) = index(Need::Definitions);
    assert_eq!((stats.parsed, stats.cached, stats.lexed), (0, 6, 0));
    // A file changed since is parsed again, with its references when they are needed.
    std::fs::write(&files[0], "fn renamed() { other(); }\n").unwrap();
    let (fourth, stats) = index(Need::References);
    assert_eq!((stats.parsed, stats.cached, stats.lexed), (1, 5, 0));
    assert_eq!(names(&fourth[0]), vec!["renamed".to_owned()]);
    assert!(refs(&fourth[0]).contains(&("other".to_owned(), 1)));
}

/// The start-up indexing in chunks leaves every file in the cache, with the names it mentions;
/// a raised stop ends it before any.
#[test]
fn indexing_in_chunks_caches_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..10)
        .map(|i| {
            put(
                dir.path(),
                &format!("m{i}.rs"),
                format!("fn f{i}() {{ g{i}(); }}\n").as_bytes(),
            )
        })
        .collect();
    index_in_chunks(
        dir.path(),
        &files,
        cache.path(),
        3,
        Need::References,
        &AtomicBool::new(true),
    );
    let (_, stats) = run(dir.path(), &files, Some(cache.path()));
    assert_eq!(
        (stats.parsed, stats.cached),
        (10, 0),
        "a stopped warm-up parses nothing"
    );
    let other = tempfile::tempdir().unwrap();
    index_in_chunks(
        dir.path(),
        &files,
        other.path(),
        3,
        Need::References,
        &AtomicBool::new(false),
    );
    let (outcomes, stats) = run(dir.path(), &files, Some(other.path()));
    assert_eq!((stats.parsed, stats.cached, stats.lexed), (0, 10, 0));
    assert_eq!(names(&outcomes[9]), vec!["f9".to_owned()]);
    match &outcomes[9] {
        Indexed::Tags(tags) => assert!(tags.references().any(|(name, _)| name == "g9")),
        other => panic!("{other:?}"),
    }
}

/// [`index_files_until`] of `files` until they hold `definitions` that `counts` accepts.
fn until(
    root: &Path,
    files: &[PathBuf],
    cache: Option<&Path>,
    definitions: usize,
    counts: &(dyn Fn(&Definition) -> bool + Sync),
) -> (Vec<Indexed>, IndexStats) {
    index_files_until(
        root,
        files,
        cache,
        &AtomicBool::new(false),
        &Enough {
            definitions,
            counts,
        },
    )
}

#[test]
fn an_index_until_enough_parses_the_files_in_order_and_stops_once_they_hold_enough() {
    let dir = tempfile::tempdir().unwrap();
    // Ten definitions a file, `f{i}_0` … `f{i}_9`.
    let files: Vec<PathBuf> = (0..40)
        .map(|i| {
            let source: String = (0..10).map(|j| format!("fn f{i}_{j}() {{}}\n")).collect();
            put(dir.path(), &format!("m{i:02}.rs"), source.as_bytes())
        })
        .collect();
    let all = |_: &Definition| true;
    let last = |d: &Definition| d.name.ends_with("_9");
    // One thread: which files are parsed is known. The first three hold 30 of the 25 asked
    // for: they alone are parsed, whole, the others are not reached.
    THREADS.set(Some(1));
    let (outcomes, stats) = until(dir.path(), &files, None, 25, &all);
    for (i, outcome) in outcomes.iter().take(3).enumerate() {
        let expected: Vec<String> = (0..10).map(|j| format!("f{i}_{j}")).collect();
        assert_eq!(names(outcome), expected);
    }
    assert_eq!(stats.parsed, 3);
    assert!(
        outcomes[3..]
            .iter()
            .all(|o| matches!(o, Indexed::Unreadable))
    );
    // Only what `counts` accepts counts: one definition a file, so 12 files for 12.
    let (outcomes, stats) = until(dir.path(), &files, None, 12, &last);
    assert_eq!(stats.parsed, 12);
    assert_eq!(names(&outcomes[11])[9], "f11_9");
    // More than all the files hold: every file is parsed.
    let (outcomes, stats) = until(dir.path(), &files, None, 401, &all);
    assert_eq!(stats.parsed, 40);
    assert_eq!(names(&outcomes[39])[0], "f39_0");

    // On every core: the first files are parsed whole whichever thread took them (how many
    // more are parsed meanwhile depends on the threads' timing).
    THREADS.set(None);
    let (outcomes, stats) = until(dir.path(), &files, None, 25, &all);
    assert!(stats.parsed >= 3, "{stats:?}");
    for (i, outcome) in outcomes.iter().take(3).enumerate() {
        assert_eq!(names(outcome)[0], format!("f{i}_0"));
    }
}

#[test]
fn an_index_until_enough_counts_what_the_cache_holds_before_parsing_anything() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..20)
        .map(|i| {
            put(
                dir.path(),
                &format!("m{i:02}.rs"),
                format!("fn f{i}() {{}}\n").as_bytes(),
            )
        })
        .collect();
    // The first ten are cached.
    run(dir.path(), &files[..10], Some(cache.path()));
    let (outcomes, stats) = until(dir.path(), &files, Some(cache.path()), 10, &|_| true);
    assert_eq!(
        stats,
        IndexStats {
            parsed: 0,
            cached: 10,
            lexed: 0
        }
    );
    assert_eq!(names(&outcomes[9]), vec!["f9".to_string()]);
    assert!(matches!(outcomes[10], Indexed::Unreadable));
}
