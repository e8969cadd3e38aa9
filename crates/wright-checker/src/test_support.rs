//! What the checker's unit tests share: a project at `/home/ann/proj` for a user whose home
//! is `/home/ann`, and assertions on the verdict of each of a list of commands.

use std::path::Path;

use pretty_assertions::assert_eq;

use crate::{CommandPolicy, Decision, check};

/// The project root the tests judge commands in.
pub(crate) const ROOT: &str = "/home/ann/proj";
/// The home directory of the tests' user.
pub(crate) const HOME: &str = "/home/ann";

/// The decision and the rule for `command` under the default policy.
pub(crate) fn judged(command: &str) -> (Decision, &'static str) {
    let verdict = check(
        command,
        Path::new(ROOT),
        Some(Path::new(HOME)),
        &CommandPolicy::default(),
    );
    (verdict.decision, verdict.rule)
}

/// Each of `commands` is judged `decision` by `rule`.
pub(crate) fn assert_judged(decision: Decision, rule: &str, commands: &[&str]) {
    for command in commands {
        assert_eq!(judged(command), (decision, rule), "{command}");
    }
}

/// Each of `commands` is asked about, by `rule`.
pub(crate) fn assert_asked(rule: &str, commands: &[&str]) {
    assert_judged(Decision::Ask, rule, commands);
}

/// Each of `commands` is allowed.
pub(crate) fn assert_allowed(commands: &[&str]) {
    assert_judged(Decision::Allow, "none", commands);
}
