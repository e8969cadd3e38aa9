//! The git workflow (issue 13, `[git]`): after a round that changed files, `auto_commit`
//! commits only the agent's files, with a message from a model call, and leaves the user's
//! staged and unstaged work as it was; protected branches, failing hooks, projects without git
//! and a failing model call are reported, never bypassed.

use std::process::Command;

use pretty_assertions::assert_eq;
use wright_testkit::ScriptedResponse;

use crate::common::{Project, Run, reply, serve};

/// Runs git in `project`, asserting it succeeds; returns its stdout.
pub(crate) fn git(project: &Project, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(project.path())
        .env("HOME", project.home.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A repository on `branch` with `b.txt` and `c.txt` committed, and the user's `[git]` settings.
pub(crate) fn repository(branch: &str, git_settings: &str) -> Project {
    let project = Project::new();
    let config = project.home.path().join(".config/wright");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), format!("[git]\n{git_settings}")).unwrap();
    git(&project, &["init", "-q", "-b", branch]);
    git(&project, &["config", "user.name", "Test User"]);
    git(&project, &["config", "user.email", "test@example.com"]);
    project.write("b.txt", "b\n");
    project.write("c.txt", "c\n");
    git(&project, &["add", "b.txt", "c.txt"]);
    git(&project, &["commit", "-qm", "init"]);
    project
}

/// The round: Write `a.txt`, then the answer.
pub(crate) fn writing_round() -> Vec<ScriptedResponse> {
    vec![
        reply(
            "Thought: write it\nAction: Write[{\"file_path\": \"a.txt\", \"content\": \"hello\\n\"}]",
        ),
        reply("Thought: done\nAction: Finish[wrote a.txt]"),
    ]
}

pub(crate) fn head(project: &Project) -> String {
    git(project, &["rev-parse", "HEAD"]).trim().to_string()
}

fn exec(project: &Project, script: Vec<ScriptedResponse>) -> Run {
    let server = serve(script);
    let run = project.exec(&server, "openai", &[], "write a.txt\nwith a greeting");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run
}

#[test]
fn a_round_commits_only_the_agents_file_and_the_users_work_stays_as_it_was() {
    let project = repository(
        "work",
        "auto_commit = true\ncommit_prefix = \"[wright]\"\ncommit_suffix = \"(auto)\"\n",
    );
    project.write("b.txt", "b staged\n");
    git(&project, &["add", "b.txt"]);
    project.write("b.txt", "b staged\nb unstaged too\n");
    project.write("c.txt", "c unstaged\n");
    let before = head(&project);

    let mut script = writing_round();
    script.push(reply("Add a greeting file"));
    let run = exec(&project, script);

    assert!(
        run.stderr.contains("committed 1 file on work as "),
        "{}",
        run.stderr
    );
    assert_eq!(
        git(&project, &["rev-parse", "HEAD~1"]).trim(),
        before,
        "one new commit on top"
    );
    assert_eq!(
        git(&project, &["log", "-1", "--format=%B"]).trim_end(),
        "[wright] Add a greeting file (auto)\n\nFiles changed by wright:\n- a.txt"
    );
    assert_eq!(
        git(&project, &["show", "--name-only", "--format=", "HEAD"]),
        "a.txt\n"
    );
    assert_eq!(git(&project, &["show", "HEAD:a.txt"]), "hello\n");
    // b.txt: still staged with its staged content, its unstaged change still unstaged.
    assert_eq!(git(&project, &["show", ":b.txt"]), "b staged\n");
    assert_eq!(
        std::fs::read_to_string(project.path().join("b.txt")).unwrap(),
        "b staged\nb unstaged too\n"
    );
    assert_eq!(
        git(&project, &["status", "--porcelain", "--untracked-files=no"]),
        "MM b.txt\n M c.txt\n"
    );
}

#[test]
fn on_a_protected_branch_exec_skips_the_commit_with_a_line() {
    let project = repository("main", "auto_commit = true\n");
    let before = head(&project);
    let mut script = writing_round();
    script.push(reply("Add a greeting file"));
    let run = exec(&project, script);
    assert!(
        run.stderr
            .contains("not committing on the protected branch main"),
        "{}",
        run.stderr
    );
    assert_eq!(head(&project), before);
    assert_eq!(
        git(&project, &["status", "--porcelain", "a.txt"]),
        "?? a.txt\n"
    );
}

#[test]
fn a_failing_pre_commit_hook_stops_the_commit_and_its_output_is_reported() {
    let project = repository("work", "auto_commit = true\n");
    let hook = project.path().join(".git/hooks/pre-commit");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'lint failed: a.txt is not formatted'\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let before = head(&project);
    let mut script = writing_round();
    script.push(reply("Add a greeting file"));
    let run = exec(&project, script);
    assert!(
        run.stderr.contains("the commit was not made")
            && run.stderr.contains("lint failed: a.txt is not formatted"),
        "{}",
        run.stderr
    );
    assert_eq!(head(&project), before);
    assert_eq!(
        git(&project, &["status", "--porcelain", "a.txt"]),
        "?? a.txt\n"
    );
}

#[test]
fn a_project_without_git_is_skipped_with_a_line() {
    let project = Project::new();
    let config = project.home.path().join(".config/wright");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[git]\nauto_commit = true\n").unwrap();
    let run = exec(&project, writing_round());
    assert!(
        run.stderr
            .contains("not committing: the project is not a git repository"),
        "{}",
        run.stderr
    );
}

#[test]
fn when_the_message_call_fails_the_commit_gets_a_plain_message() {
    let project = repository("work", "auto_commit = true\ncommit_prefix = \"[wright]\"\n");
    // No reply scripted for the commit-message call: the provider answers 500.
    let run = exec(&project, writing_round());
    assert!(
        run.stderr.contains("the commit-message call failed"),
        "{}",
        run.stderr
    );
    assert_eq!(
        git(&project, &["log", "-1", "--format=%B"]).trim_end(),
        "[wright] wright: write a.txt\n\nFiles changed by wright:\n- a.txt"
    );
}

#[test]
fn wright_commit_commits_what_a_round_left_uncommitted() {
    let project = repository("work", "auto_commit = false\n");
    let before = head(&project);
    exec(&project, writing_round());
    assert_eq!(head(&project), before, "auto_commit is off");
    let server = serve(vec![reply("Add a greeting file")]);
    let run = Run::from(
        project
            .command(&server, "openai")
            .arg("commit")
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        git(&project, &["log", "-1", "--format=%s"]).trim(),
        "Add a greeting file"
    );
    // Committed once: a second `wright commit` finds nothing.
    let run = Run::from(
        project
            .command(&server, "openai")
            .arg("commit")
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("nothing to commit"), "{}", run.stderr);
}
