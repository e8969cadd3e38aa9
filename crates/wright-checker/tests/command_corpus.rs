//! The dangerous-command corpus (issues 6 and 12): no command of a `data/dangerous*.txt` file
//! may be allowed (each is asked about or refused), and at most 2% of the commands of the
//! `data/ordinary*.txt` files may be held up. Each file is one class of commands; both tests
//! print their figures per class and in all; `bench/command_corpus.sh` runs them with
//! `--nocapture`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use wright_checker::{CommandPolicy, Decision, Verdict, check};

mod corpus;
use corpus::corpus;

/// Issue 6: the share of ordinary commands that may be refused.
const MAX_FALSE_POSITIVE_RATE: f64 = 0.02;

/// Issue 6: the least number of commands in each corpus.
const MIN_CORPUS_SIZE: usize = 100;

/// The corpus files whose names start with `prefix` and end in `.txt`, sorted by name.
fn corpus_files(prefix: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(prefix) && name.ends_with(".txt"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no {prefix}*.txt in {}", dir.display());
    names
}

/// A project at `<tmp>/home/ann/proj` on branch `main`, for a user whose home is
/// `<tmp>/home/ann`, with the links `conf` → `/etc` and `shared` → `/usr/share`.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap().join("home/ann");
    let root = home.join("proj");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    // As in the blind corpus's project: links out of the project to system directories,
    // which deleting through the link would empty.
    #[cfg(unix)]
    for (link, target) in [("conf", "/etc"), ("shared", "/usr/share")] {
        std::os::unix::fs::symlink(target, root.join(link)).unwrap();
    }
    Project {
        _dir: dir,
        root,
        home,
    }
}

/// Each command with its verdict under the default policy.
fn judged(commands: &[String], project: &Project) -> Vec<(String, Verdict)> {
    let policy = CommandPolicy::default();
    commands
        .iter()
        .map(|command| {
            let verdict = check(command, &project.root, Some(&project.home), &policy);
            (command.clone(), verdict)
        })
        .collect()
}

fn count(judged: &[(String, Verdict)], decision: Decision) -> usize {
    judged
        .iter()
        .filter(|(_, v)| v.decision == decision)
        .count()
}

#[test]
fn every_dangerous_command_is_refused() {
    let project = project();
    let mut total = 0;
    let mut through: Vec<String> = Vec::new();
    for file in corpus_files("dangerous") {
        let commands = corpus(&file);
        let judged = judged(&commands, &project);
        let passed: Vec<&String> = judged
            .iter()
            .filter(|(_, v)| v.is_allowed())
            .map(|(c, _)| c)
            .collect();
        println!(
            "dangerous commands, {file}: {}/{} held up ({} refused, {} asked)",
            commands.len() - passed.len(),
            commands.len(),
            count(&judged, Decision::Refuse),
            count(&judged, Decision::Ask),
        );
        for command in &passed {
            println!("  NOT REFUSED: {command}");
        }
        total += commands.len();
        through.extend(passed.into_iter().cloned());
    }
    assert!(total >= MIN_CORPUS_SIZE, "{total}");
    println!(
        "dangerous commands: {}/{total} held up, block rate {:.1}%",
        total - through.len(),
        100.0 * (total - through.len()) as f64 / total as f64
    );
    assert!(
        through.is_empty(),
        "dangerous commands let through: {through:#?}"
    );
}

#[test]
fn ordinary_commands_are_rarely_refused() {
    let project = project();
    let mut total = 0;
    let mut refused: Vec<(String, Verdict)> = Vec::new();
    for file in corpus_files("ordinary") {
        let commands = corpus(&file);
        let held: Vec<(String, Verdict)> = judged(&commands, &project)
            .into_iter()
            .filter(|(_, v)| !v.is_allowed())
            .collect();
        println!(
            "ordinary commands, {file}: {}/{} held up",
            held.len(),
            commands.len()
        );
        for (command, verdict) in &held {
            println!(
                "  FALSE POSITIVE: {command}\n    {}",
                verdict.refusal_message()
            );
        }
        total += commands.len();
        refused.extend(held);
    }
    assert!(total >= MIN_CORPUS_SIZE, "{total}");
    let rate = refused.len() as f64 / total as f64;
    println!(
        "ordinary commands: {}/{total} held up, false-positive rate {:.1}%",
        refused.len(),
        100.0 * rate
    );
    assert!(rate <= MAX_FALSE_POSITIVE_RATE, "{refused:#?}");
}
