//! `wright exec --approval` and the cost status line, end to end through the real binary.

use pretty_assertions::assert_eq;

use crate::common::{self, Project, reply, serve};

const TOUCH: &str = "Thought: make it\nAction: Bash[{\"command\": \"touch ran\"}]";
const FINISH: &str = "Thought: done\nAction: Finish[ok]";

#[test]
fn exec_with_a_mode_that_asks_denies_commands_and_tells_the_model_why() {
    let project = Project::new();
    let server = serve(vec![reply(TOUCH), reply(FINISH)]);
    let run = project.exec(&server, "openai", &["--approval", "ask"], "make a file");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!project.path().join("ran").exists());
    assert!(
        run.stderr
            .contains("? Bash needs approval (command):\n    touch ran\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("✗ denied: no one to ask (non-interactive); run with --approval auto"),
        "{}",
        run.stderr
    );
    let observation = common::last_message(&server.requests()[1]);
    assert!(
        observation.contains("The user denied this action."),
        "{observation}"
    );
}

#[test]
fn the_flag_wins_over_the_settings_file() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\napproval = \"ask\"\n",
    );
    let server = serve(vec![
        reply(TOUCH),
        reply(FINISH),
        reply(TOUCH),
        reply(FINISH),
    ]);
    let run = project.exec(&server, "openai", &[], "make a file");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!project.path().join("ran").exists(), "the file's mode asks");

    let run = project.exec(&server, "openai", &["--approval", "auto"], "make a file");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(project.path().join("ran").exists(), "the flag allows it");
}

#[test]
fn an_unknown_mode_is_a_usage_error_naming_the_modes() {
    let project = Project::new();
    let server = serve(vec![]);
    let run = project.exec(&server, "openai", &["--approval", "yolo"], "x");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("`auto-edit`"), "{}", run.stderr);
}

#[test]
fn a_priced_model_shows_what_the_round_cost() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[pricing.\"test-model\"]\ninput = 1000.0\noutput = 2000.0\n",
    );
    let priced = |response: wright_testkit::ScriptedResponse| response.with_usage(10, 5);
    let server = serve(vec![priced(reply(FINISH)), priced(reply(FINISH))]);
    let run = project.exec(&server, "openai", &["--session", "s"], "hi");
    assert!(
        run.stderr
            .contains("cost: $0.0200 this round, $0.0200 this session"),
        "{}",
        run.stderr
    );
    let run = project.exec(&server, "openai", &["--session", "s"], "again");
    assert!(
        run.stderr
            .contains("cost: $0.0200 this round, $0.0400 this session"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unpriced_model_shows_no_cost() {
    let project = Project::new();
    let server = serve(vec![reply(FINISH).with_usage(10, 5)]);
    let run = project.exec(&server, "openai", &[], "hi");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!run.stderr.contains("cost:"), "{}", run.stderr);
}
