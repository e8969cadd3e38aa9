//! The read-only corpus (issue 14): every command of `data/readonly_yes*.txt` is judged
//! read-only and every command of `data/readonly_no*.txt` is not. The `_blind` files were
//! written before the judgement was run on them, as a held-out check. The commands are only
//! judged, never run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use wright_checker::read_only;

mod corpus;
use corpus::corpus;

/// The least number of commands in a main corpus file, and in a blind one.
const MIN_MAIN_SIZE: usize = 150;
const MIN_BLIND_SIZE: usize = 60;

/// The commands of `file` whose judgement is not `expected` (read-only or not), with the
/// reason given; prints the file's score.
fn misjudged(file: &str, expected: bool, min_size: usize) -> Vec<String> {
    let commands = corpus(file);
    assert!(commands.len() >= min_size, "{file}: {}", commands.len());
    let wrong: Vec<String> = commands
        .iter()
        .filter_map(|command| match (read_only(command), expected) {
            (Ok(()), true) | (Err(_), false) => None,
            (Ok(()), false) => Some(format!("judged read-only: {command}")),
            (Err(reason), true) => Some(format!("refused: {command}\n    {reason}")),
        })
        .collect();
    println!(
        "{file}: {}/{} judged as expected",
        commands.len() - wrong.len(),
        commands.len()
    );
    for line in &wrong {
        println!("  {line}");
    }
    wrong
}

#[test]
fn every_reading_command_is_judged_read_only() {
    let mut wrong = misjudged("readonly_yes.txt", true, MIN_MAIN_SIZE);
    wrong.extend(misjudged("readonly_yes_blind.txt", true, MIN_BLIND_SIZE));
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn no_writing_command_is_judged_read_only() {
    let mut wrong = misjudged("readonly_no.txt", false, MIN_MAIN_SIZE);
    wrong.extend(misjudged("readonly_no_blind.txt", false, MIN_BLIND_SIZE));
    assert!(wrong.is_empty(), "{wrong:#?}");
}
