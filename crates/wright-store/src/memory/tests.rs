use super::*;
use pretty_assertions::assert_eq;

fn paths(home: &Path, project: &str) -> MemoryPaths {
    MemoryPaths::new(home, Path::new(project), None)
}

fn project_file(home: &Path) -> MemoryFile {
    paths(home, "/p").file(MemoryScope::Project).unwrap()
}

fn entry(tags: &[&str], content: &str) -> MemoryEntry {
    MemoryEntry::new(
        MemoryScope::Project,
        tags.iter().map(|t| t.to_string()).collect(),
        content.to_string(),
        &[],
    )
}

#[test]
fn saved_entries_are_read_back_in_order() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    let first = file
        .add(vec!["build".into()], "cargo build".into())
        .unwrap();
    let second = file.add(vec![], "second".into()).unwrap();
    assert_eq!(file.load().unwrap(), vec![first, second]);
}

#[test]
fn no_file_is_no_memory() {
    let home = tempfile::tempdir().unwrap();
    assert_eq!(project_file(home.path()).load().unwrap(), vec![]);
}

#[test]
fn projects_and_global_memory_live_apart_under_home() {
    let home = Path::new("/h");
    let a = paths(home, "/x/a");
    let b = paths(home, "/x/b");
    assert_ne!(
        a.file(MemoryScope::Project).unwrap().path(),
        b.file(MemoryScope::Project).unwrap().path()
    );
    assert_eq!(
        a.file(MemoryScope::Global).unwrap().path(),
        Path::new("/h/memory/global.jsonl")
    );
    assert!(a.file(MemoryScope::Session).is_none());
    let configured = MemoryPaths::new(home, Path::new("/x/a"), Some(Path::new("/x/a/.notes")));
    assert_eq!(
        configured.file(MemoryScope::Project).unwrap().path(),
        Path::new("/x/a/.notes/memory.jsonl")
    );
}

#[test]
fn removing_by_a_test_keeps_the_rest() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    let keep = file.add(vec!["a".into()], "one".into()).unwrap();
    let gone = file.add(vec!["b".into()], "two".into()).unwrap();
    let removed = file.remove(|e| e.tags.contains(&"b".to_string())).unwrap();
    assert_eq!(removed, vec![gone]);
    assert_eq!(file.load().unwrap(), vec![keep]);
}

#[test]
fn a_damaged_file_is_reported_and_left_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    file.add(vec![], "fine".into()).unwrap();
    let mut text = std::fs::read_to_string(file.path()).unwrap();
    text.push_str("{not json\n");
    std::fs::write(file.path(), &text).unwrap();
    let error = file.load().unwrap_err();
    assert!(
        matches!(error, MemoryError::Corrupt { line: 2, .. }),
        "{error}"
    );
    assert!(file.add(vec![], "more".into()).is_err());
    assert_eq!(std::fs::read_to_string(file.path()).unwrap(), text);
}

#[test]
fn a_file_too_large_is_not_read() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    std::fs::create_dir_all(file.path().parent().unwrap()).unwrap();
    let big = std::fs::File::create(file.path()).unwrap();
    big.set_len(MAX_FILE_BYTES + 1).unwrap();
    assert!(matches!(file.load(), Err(MemoryError::TooLarge { .. })));
}

#[cfg(unix)]
#[test]
fn a_link_in_place_of_the_file_is_not_followed() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    std::fs::create_dir_all(file.path().parent().unwrap()).unwrap();
    let elsewhere = home.path().join("elsewhere");
    std::fs::write(&elsewhere, "").unwrap();
    std::os::unix::fs::symlink(&elsewhere, file.path()).unwrap();
    assert!(matches!(
        file.load(),
        Err(MemoryError::Corrupt { line: 0, .. })
    ));
}

#[test]
fn a_full_scope_refuses_more() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    let entries: Vec<MemoryEntry> = (0..MAX_ENTRIES)
        .map(|i| entry(&[], &i.to_string()))
        .collect();
    std::fs::create_dir_all(file.path().parent().unwrap()).unwrap();
    file.write(&entries).unwrap();
    assert!(matches!(
        file.add(vec![], "one more".into()),
        Err(MemoryError::Full {
            scope: MemoryScope::Project
        })
    ));
}

#[test]
fn wrights_saving_at_once_keep_every_entry() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let file = file.clone();
            std::thread::spawn(move || {
                for j in 0..5 {
                    file.add(vec![], format!("{i}-{j}")).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(file.load().unwrap().len(), 40);
}

#[test]
fn tags_are_normalised() {
    let tags = ["  Build ", "build", "code style", ""].map(String::from);
    assert_eq!(normalize_tags(&tags).unwrap(), ["build", "code-style"]);
    assert!(normalize_tags(&["x".repeat(MAX_TAG_CHARS + 1)]).is_err());
    let many: Vec<String> = (0..=MAX_TAGS).map(|i| i.to_string()).collect();
    assert!(normalize_tags(&many).is_err());
}

#[test]
fn search_filters_by_any_tag_and_ranks_by_words() {
    let entries = vec![
        entry(&["build"], "cargo build --release for the binary"),
        entry(&["tests"], "run cargo nextest, not cargo test"),
        entry(&["style"], "no unwrap outside tests"),
    ];
    let found: Vec<&str> = search(&entries, &[], "nextest", 10)
        .iter()
        .map(|e| e.content.as_str())
        .collect();
    assert_eq!(found, ["run cargo nextest, not cargo test"]);
    let tagged: Vec<&str> = search(&entries, &["style".into(), "build".into()], "", 10)
        .iter()
        .flat_map(|e| e.tags.iter().map(String::as_str))
        .collect();
    assert_eq!(tagged.len(), 2);
    // Tags are searched as words too.
    assert_eq!(search(&entries, &[], "style", 10).len(), 1);
    assert_eq!(search(&entries, &[], "", 2).len(), 2);
}

#[test]
fn the_index_counts_tags_per_scope_most_used_first() {
    let project = vec![
        entry(&["build", "tests"], "a"),
        entry(&["tests"], "b"),
        entry(&[], "c"),
    ];
    let index = index(
        &[(MemoryScope::Project, &project), (MemoryScope::Global, &[])],
        &[],
    );
    assert_eq!(
        index,
        "# Memory\n\nNotes saved in earlier sessions, by tag (retrieve them with the Memory \
         tool):\n- project, 3 entries: tests (2), build (1), untagged (1)"
    );
}

#[test]
fn the_index_of_no_memory_is_empty() {
    assert_eq!(index(&[(MemoryScope::Project, &[])], &[]), "");
}

#[test]
fn the_index_is_bounded() {
    let project: Vec<MemoryEntry> = (0..MAX_ENTRIES)
        .map(|i| entry(&[&format!("tag-number-{i}")], "x"))
        .collect();
    let index = index(&[(MemoryScope::Project, &project)], &[]);
    let lines = index.lines().count();
    assert!(lines <= INDEX_MAX_LINES + 3, "{lines} lines");
    assert!(index.ends_with("more lines of tags"));
}

#[test]
fn an_entry_wright_would_not_save_makes_the_file_untrusted() {
    let home = tempfile::tempdir().unwrap();
    let file = project_file(home.path());
    let mut long_tag = entry(&["ok"], "fine");
    long_tag.tags = vec!["x".repeat(MAX_TAG_CHARS + 1)];
    let mut control = entry(&["ok"], "fine");
    control.tags = vec!["a\u{1b}[2J".into()];
    let mut other_scope = entry(&[], "fine");
    other_scope.scope = MemoryScope::Global;
    for bad in [long_tag, control, other_scope] {
        std::fs::create_dir_all(file.path().parent().unwrap()).unwrap();
        std::fs::write(
            file.path(),
            format!("{}\n", serde_json::to_string(&bad).unwrap()),
        )
        .unwrap();
        assert!(
            matches!(file.load(), Err(MemoryError::Corrupt { line: 1, .. })),
            "{bad:?}"
        );
    }
}
