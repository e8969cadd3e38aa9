//! Keeps `docs/spec-map.md` true to the code: every spec clause a comment in `crates/*/src` or
//! `crates/*/tests` cites has a row in the map, every row is a clause the spec defines, and
//! every file and name the map's "Implemented in" column gives exists. Test code only.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// The map, relative to the repository root.
const MAP: &str = "docs/spec-map.md";

/// The clauses the spec defines: A1–A8 (agent rules), C1–C8 (implementation details), D1–D7
/// (task breakdown), E1–E5 (design decisions). Section B is prose without numbered clauses.
const SPEC_CLAUSES: [&str; 28] = [
    "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", //
    "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", //
    "D1", "D2", "D3", "D4", "D5", "D6", "D7", //
    "E1", "E2", "E3", "E4", "E5",
];

/// A clause id as the map and the code write it.
const CLAUSE_ID: &str = r"^[A-E][1-9]$";

/// The word "spec" and the group of clause ids after it: `spec A3`, `Spec C5:`, `(spec E1)`,
/// `spec A3/C1`, `Spec A6/C7/D6`, `spec A1, D4, E1`, `spec A4–A6`.
const SPEC_REFERENCE: &str = r"\b(?i:spec)\b[^A-Za-z0-9\n]{0,3}([A-E][1-9](?:[ \t]*(?:,|/|;|&|–|—|-|\band\b)[ \t]*[A-E][1-9])*)\b";

/// Clause ids joined by slashes without the word "spec": `A6/C7`, `A8/C4`.
const SLASHED_CLAUSES: &str = r"\b([A-E][1-9](?:/[A-E][1-9])+)\b";

/// One clause id inside a reference group.
const ONE_CLAUSE: &str = r"([A-E])([1-9])";

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad pattern {pattern:?}: {e}"))
}

/// The patterns used for every line of every file, compiled once.
static SPEC_REFERENCE_RE: LazyLock<Regex> = LazyLock::new(|| regex(SPEC_REFERENCE));
static SLASHED_CLAUSES_RE: LazyLock<Regex> = LazyLock::new(|| regex(SLASHED_CLAUSES));
static ONE_CLAUSE_RE: LazyLock<Regex> = LazyLock::new(|| regex(ONE_CLAUSE));
static PATH_RE: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z0-9_./-]+\.(rs|md|toml)$"));
static IDENT_RE: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z_][A-Za-z0-9_]*$"));

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every `*.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Every `*.rs` file under `crates/*/src` and `crates/*/tests`, sorted.
fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let crates = root.join("crates");
    for entry in fs::read_dir(&crates).expect("crates/ is readable") {
        let krate = entry.expect("directory entry").path();
        for part in ["src", "tests"] {
            rust_files(&krate.join(part), &mut files);
        }
    }
    files.sort();
    files
}

/// The clause ids of one reference group, ranges (`A4–A6`) expanded.
fn clauses_in_group(group: &str) -> Vec<String> {
    let mut clauses: Vec<String> = Vec::new();
    let mut previous: Option<(char, u32, usize)> = None;
    for found in ONE_CLAUSE_RE.captures_iter(group) {
        let whole = found.get(0).expect("a match");
        let letter = found[1].chars().next().expect("one letter");
        let number = found[2].parse::<u32>().expect("one digit");
        if let Some((prev_letter, prev_number, prev_end)) = previous {
            let between = group[prev_end..whole.start()].trim();
            let is_range = matches!(between, "–" | "—" | "-");
            if is_range && prev_letter == letter && prev_number < number {
                clauses.extend((prev_number + 1..number).map(|n| format!("{letter}{n}")));
            }
        }
        clauses.push(format!("{letter}{number}"));
        previous = Some((letter, number, whole.end()));
    }
    clauses
}

/// The clause ids one line of source cites.
fn references_in(line: &str) -> Vec<String> {
    let mut clauses = Vec::new();
    for pattern in [&*SPEC_REFERENCE_RE, &*SLASHED_CLAUSES_RE] {
        for found in pattern.captures_iter(line) {
            clauses.extend(clauses_in_group(&found[1]));
        }
    }
    clauses.sort();
    clauses.dedup();
    clauses
}

/// Every clause the code cites, with the `file:line` places that cite it.
fn code_references(root: &Path) -> BTreeMap<String, Vec<String>> {
    let mut references: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in source_files(root) {
        // This file's own citations are examples for its tests, not claims about the code.
        if file.ends_with("wright-core/src/spec_map.rs") {
            continue;
        }
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (number, line) in read(&file).lines().enumerate() {
            for clause in references_in(line) {
                references
                    .entry(clause)
                    .or_default()
                    .push(format!("{shown}:{}", number + 1));
            }
        }
    }
    references
}

/// One row of the map's table.
struct Row {
    /// 1-based line in the map.
    line: usize,
    cells: Vec<String>,
}

impl Row {
    fn clause(&self) -> &str {
        &self.cells[0]
    }
}

/// The body rows of the map's table (header and separator rows left out).
fn map_rows(map: &str) -> Vec<Row> {
    let separator = regex(r"^:?-+:?$");
    map.lines()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with('|'))
        .map(|(index, line)| Row {
            line: index + 1,
            cells: line
                .trim()
                .trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_string())
                .collect(),
        })
        .filter(|row| row.clause() != "Clause" && !row.cells.iter().all(|c| separator.is_match(c)))
        .collect()
}

fn load_map(root: &Path) -> (String, Vec<Row>) {
    let map = read(&root.join(MAP));
    let rows = map_rows(&map);
    assert!(!rows.is_empty(), "{MAP} has no table rows");
    (map, rows)
}

/// Whether a backticked span of the "Implemented in" column names a file.
fn is_path(span: &str) -> bool {
    span.contains('/') && PATH_RE.is_match(span) && !span.split('/').any(|part| part == "..")
}

/// Why `name` (a backticked span after `file`) is not found in `text`, if it is not.
fn missing_name(name: &str, text: &str) -> Option<String> {
    let has = |pattern: String| regex(&pattern).is_match(text);
    let ident = &*IDENT_RE;
    if let Some(function) = name.strip_prefix("fn ") {
        if !ident.is_match(function) {
            return Some(format!("`{name}` is not `fn <identifier>`"));
        }
        return (!has(format!(r"\bfn {function}\b"))).then(|| format!("no `fn {function}`"));
    }
    if let Some((owner, member)) = name.split_once("::") {
        if !ident.is_match(owner) || !ident.is_match(member) {
            return Some(format!("`{name}` is not `Type::member`"));
        }
        if !has(format!(r"\b{owner}\b")) {
            return Some(format!("no `{owner}`"));
        }
        // `Type::method` is a function; `Enum::Variant` or `Type::CONST` an identifier.
        let is_function = member.starts_with(|c: char| c.is_ascii_lowercase());
        return match is_function {
            true => (!has(format!(r"\bfn {member}\b"))).then(|| format!("no `fn {member}`")),
            false => (!has(format!(r"\b{member}\b"))).then(|| format!("no `{member}`")),
        };
    }
    if !ident.is_match(name) {
        return Some(format!(
            "`{name}` is neither a path, `fn name`, `Type::member` nor an identifier"
        ));
    }
    (!has(format!(r"\b{name}\b"))).then(|| format!("no `{name}`"))
}

#[test]
fn every_clause_the_code_cites_has_a_row_in_the_map() {
    let root = repo_root();
    assert!(
        !source_files(&root).is_empty(),
        "no source files under {}",
        root.join("crates").display()
    );
    let references = code_references(&root);
    assert!(
        !references.is_empty(),
        "no spec references found in crates/"
    );
    let (_, rows) = load_map(&root);
    let mapped: BTreeSet<&str> = rows.iter().map(Row::clause).collect();
    let problems: Vec<String> = references
        .iter()
        .filter(|(clause, _)| !mapped.contains(clause.as_str()))
        .map(|(clause, places)| {
            format!(
                "spec {clause} is cited at {} but has no row in {MAP}",
                places.join(", ")
            )
        })
        .collect();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_file_and_name_in_the_map_exists() {
    let root = repo_root();
    let (_, rows) = load_map(&root);
    let span = regex(r"`([^`]+)`");
    let mut problems = Vec::new();
    for row in &rows {
        let Some(implemented_in) = row.cells.get(2) else {
            problems.push(format!(
                "{MAP}:{}: row {} has no \"Implemented in\" column",
                row.line,
                row.clause()
            ));
            continue;
        };
        let mut file: Option<(String, String)> = None;
        let mut files = 0;
        for found in span.captures_iter(implemented_in) {
            let name = &found[1];
            if is_path(name) {
                files += 1;
                let path = root.join(name);
                file = match fs::read_to_string(&path) {
                    Ok(text) => Some((name.to_string(), text)),
                    Err(e) => {
                        problems.push(format!(
                            "{MAP}:{}: {}: file `{name}` cannot be read: {e}",
                            row.line,
                            row.clause()
                        ));
                        None
                    }
                };
                continue;
            }
            match &file {
                None if files == 0 => problems.push(format!(
                    "{MAP}:{}: {}: `{name}` comes before any file",
                    row.line,
                    row.clause()
                )),
                // The file is missing and already reported.
                None => {}
                Some((path, text)) => {
                    if let Some(problem) = missing_name(name, text) {
                        problems.push(format!(
                            "{MAP}:{}: {}: `{name}` not found in {path}: {problem}",
                            row.line,
                            row.clause()
                        ));
                    }
                }
            }
        }
        if files == 0 {
            problems.push(format!(
                "{MAP}:{}: {}: names no file",
                row.line,
                row.clause()
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_map_has_one_row_for_each_clause_the_spec_defines() {
    let root = repo_root();
    let (_, rows) = load_map(&root);
    let clause_id = regex(CLAUSE_ID);
    let mut problems = Vec::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for row in &rows {
        let clause = row.clause();
        if !clause_id.is_match(clause) {
            problems.push(format!(
                "{MAP}:{}: `{clause}` is not a clause id (a letter A-E and a digit 1-9)",
                row.line
            ));
        } else if !SPEC_CLAUSES.contains(&clause) {
            problems.push(format!(
                "{MAP}:{}: the spec defines no clause {clause}",
                row.line
            ));
        }
        if let Some(first) = seen.insert(clause, row.line) {
            problems.push(format!(
                "{MAP}:{}: {clause} has a row already, at line {first}",
                row.line
            ));
        }
    }
    for clause in SPEC_CLAUSES {
        if !seen.contains_key(clause) {
            problems.push(format!("{MAP}: clause {clause} has no row"));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn reference_groups_are_read_whole() {
    let cases: [(&str, &[&str]); 8] = [
        (
            "/// Spec A6/C7/D6: before a round opens",
            &["A6", "C7", "D6"],
        ),
        ("(spec A1, D4, E1; DESIGN §3)", &["A1", "D4", "E1"]),
        ("summarised (spec A4–A6).", &["A4", "A5", "A6"]),
        ("(spec E1)", &["E1"]),
        ("Spec C5: the file name", &["C5"]),
        ("Spec D2 default rule", &["D2"]),
        ("the mtime note (A8/C4)", &["A8", "C4"]),
        ("by the spec's `len // 3`", &[]),
    ];
    for (line, expected) in cases {
        assert_eq!(references_in(line), expected.to_vec(), "in {line:?}");
    }
}

#[test]
fn names_are_looked_up_by_kind() {
    let text = "pub struct Agent;\nimpl Agent {\n    pub fn run_round() {}\n}\npub enum Role { Summary }\nconst LIMIT: usize = 5;\n";
    assert_eq!(missing_name("Agent::run_round", text), None);
    assert_eq!(missing_name("Role::Summary", text), None);
    assert_eq!(missing_name("fn run_round", text), None);
    assert_eq!(missing_name("LIMIT", text), None);
    assert_eq!(
        missing_name("Agent::compact", text),
        Some("no `fn compact`".to_string())
    );
    assert_eq!(
        missing_name("Run_round", text),
        Some("no `Run_round`".into())
    );
    assert!(missing_name("a b", text).is_some());
    assert!(is_path("crates/wright-core/src/round.rs"));
    assert!(is_path("prompts/summary.md"));
    assert!(!is_path("HistoryManager::push"));
    assert!(!is_path("crates/../secret.rs"));
}
