//! The dangerous-command corpus (issue 6): no command of `data/dangerous_commands.txt` may be
//! allowed (each is asked about or refused), and at most 2% of `data/ordinary_commands.txt` may
//! be held up. Both tests print their figures; `bench/command_corpus.sh` runs them with
//! `--nocapture`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use wright_checker::{CommandPolicy, Decision, Verdict, check};

/// Issue 6: the share of ordinary commands that may be refused.
const MAX_FALSE_POSITIVE_RATE: f64 = 0.02;

/// Issue 6: the least number of commands in each corpus.
const MIN_CORPUS_SIZE: usize = 100;

/// The commands of a corpus file: one per line, `#` lines and blank lines skipped, a line
/// ending in ` \` continued on the next with the newline kept.
fn corpus(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut commands = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if pending.is_none() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        let (line, continues) = match line.strip_suffix(" \\") {
            Some(line) => (line, true),
            None => (line, false),
        };
        let command = match pending.take() {
            Some(before) => format!("{before}\n{line}"),
            None => line.to_string(),
        };
        if continues {
            pending = Some(command);
        } else {
            commands.push(command);
        }
    }
    commands.extend(pending);
    commands
}

/// A project at `<tmp>/home/ann/proj` on branch `main`, for a user whose home is
/// `<tmp>/home/ann`.
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
    let commands = corpus("dangerous_commands.txt");
    assert!(commands.len() >= MIN_CORPUS_SIZE, "{}", commands.len());
    let project = project();
    let judged = judged(&commands, &project);
    let through: Vec<&String> = judged
        .iter()
        .filter(|(_, v)| v.is_allowed())
        .map(|(c, _)| c)
        .collect();
    let blocked = commands.len() - through.len();
    println!(
        "dangerous commands: {blocked}/{} held up ({} refused, {} asked), block rate {:.1}%",
        commands.len(),
        count(&judged, Decision::Refuse),
        count(&judged, Decision::Ask),
        100.0 * blocked as f64 / commands.len() as f64
    );
    for command in &through {
        println!("  NOT REFUSED: {command}");
    }
    assert!(
        through.is_empty(),
        "dangerous commands let through: {through:#?}"
    );
}

#[test]
fn ordinary_commands_are_rarely_refused() {
    let commands = corpus("ordinary_commands.txt");
    assert!(commands.len() >= MIN_CORPUS_SIZE, "{}", commands.len());
    let project = project();
    let refused: Vec<(String, Verdict)> = judged(&commands, &project)
        .into_iter()
        .filter(|(_, v)| !v.is_allowed())
        .collect();
    let rate = refused.len() as f64 / commands.len() as f64;
    println!(
        "ordinary commands: {}/{} held up, false-positive rate {:.1}%",
        refused.len(),
        commands.len(),
        100.0 * rate
    );
    for (command, verdict) in &refused {
        println!(
            "  FALSE POSITIVE: {command}\n    {}",
            verdict.refusal_message()
        );
    }
    assert!(rate <= MAX_FALSE_POSITIVE_RATE, "{refused:#?}");
}
