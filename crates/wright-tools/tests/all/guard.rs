//! The guard around Bash commands (issue 12) end to end: what the read-only binds cannot stop —
//! a protected path created by a command, a symlinked one swapped — is moved aside and put
//! back after the command, or before the next one when a process it left running did it; and
//! the result says so. Ordinary git use triggers nothing.
//!
//! The guard does not need the mount namespace, so these tests run wherever `bash` does.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use wright_protocol::ToolResult;
use wright_tools::{SandboxPolicy, ToolContext};

use crate::protected::{bash, exit_code, read, repository};

/// How long a test waits for a process a command left running.
const BACKGROUND_WAIT: Duration = Duration::from_secs(10);

/// The text of the note saying the guard refused something.
fn refusal_notes(result: &ToolResult) -> Vec<&str> {
    result
        .text
        .lines()
        .filter(|line| line.contains("refused-by-wright") || line.contains("put the link back"))
        .collect()
}

fn context(root: &Path) -> ToolContext {
    ToolContext::new(root).unwrap()
}

#[tokio::test]
async fn a_commondir_created_by_a_command_is_moved_aside() {
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    let ctx = context(&root);
    let result = bash(&ctx, "echo /tmp/evil > .git/commondir").await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert!(!root.join(".git/commondir").exists());
    assert_eq!(
        read(&root.join(".git/commondir.refused-by-wright")),
        "/tmp/evil\n"
    );
    assert_eq!(
        refusal_notes(&result),
        vec![
            "Note: this command created .git/commondir; wright moved it to \
             .git/commondir.refused-by-wright. Commands may not create or change .git/commondir \
             (git's settings and hooks, which run programs outside the sandbox the next time \
             anyone uses git); ask the user to."
        ]
    );
}

#[tokio::test]
async fn a_wright_directory_created_by_a_command_is_moved_aside_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let ctx = context(&root);
    let result = bash(
        &ctx,
        "mkdir .wright && printf '[sandbox]\\nenabled = false\\n' > .wright/config.toml",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert!(!root.join(".wright").exists());
    assert_eq!(
        read(&root.join(".wright.refused-by-wright/config.toml")),
        "[sandbox]\nenabled = false\n"
    );
    let notes = refusal_notes(&result);
    assert_eq!(notes.len(), 1, "{}", result.text);
    assert!(
        notes[0].starts_with(
            "Note: this command created .wright; wright moved it to .wright.refused-by-wright."
        ),
        "{}",
        notes[0]
    );
}

#[tokio::test]
async fn a_symlinked_hooks_directory_replaced_by_a_directory_is_put_back() {
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    std::fs::rename(root.join(".git/hooks"), root.join("githooks")).unwrap();
    std::os::unix::fs::symlink("../githooks", root.join(".git/hooks")).unwrap();
    let ctx = context(&root);
    let result = bash(
        &ctx,
        "rm .git/hooks && mkdir .git/hooks && \
         printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit && \
         chmod +x .git/hooks/pre-commit",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert_eq!(
        std::fs::read_link(root.join(".git/hooks")).unwrap(),
        Path::new("../githooks")
    );
    assert!(
        root.join(".git/hooks.refused-by-wright/pre-commit")
            .is_file()
    );
    assert!(!root.join("githooks/pre-commit").exists());
    let notes = refusal_notes(&result);
    assert_eq!(notes.len(), 1, "{}", result.text);
    assert!(
        notes[0].starts_with(
            "Note: this command replaced the symbolic link .git/hooks (to ../githooks); wright \
             moved it to .git/hooks.refused-by-wright and put the link back."
        ),
        "{}",
        notes[0]
    );
    // The hook it wrote does not run.
    let result = bash(
        &ctx,
        "echo two >> a.txt && git add a.txt && \
         git -c user.name=A -c user.email=a@example.com commit -qm second",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert!(!root.join("pwned").exists());
}

#[tokio::test]
async fn what_a_command_left_running_creates_is_caught_before_the_next_command() {
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    let ctx = context(&root);
    // `setsid -f` leaves the command's process group, so it outlives the command; with its
    // output elsewhere it does not hold the call either. The command waits until the process
    // runs `sh` (it has left the group by then): the group is killed as soon as bash exits,
    // which could otherwise come first.
    let result = bash(
        &ctx,
        "setsid -f sh -c 'touch started; sleep 2; echo /tmp/evil > .git/commondir' \
         </dev/null >/dev/null 2>&1; \
         while [ ! -e started ]; do sleep 0.01; done",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert_eq!(refusal_notes(&result), Vec::<&str>::new());
    let started = Instant::now();
    while !root.join(".git/commondir").exists() {
        assert!(
            started.elapsed() < BACKGROUND_WAIT,
            "the background process never wrote"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let result = bash(&ctx, "true").await;
    assert!(!root.join(".git/commondir").exists());
    assert_eq!(
        read(&root.join(".git/commondir.refused-by-wright")),
        "/tmp/evil\n"
    );
    let notes = refusal_notes(&result);
    assert_eq!(notes.len(), 1, "{}", result.text);
    assert!(
        notes[0].starts_with(
            "Note: after the last command returned, something it left running (or someone \
             else) created .git/commondir; wright moved it to .git/commondir.refused-by-wright."
        ),
        "{}",
        notes[0]
    );
}

#[tokio::test]
async fn with_the_sandbox_off_the_guard_leaves_commands_alone() {
    // The user turned confinement off: commands may do anything, `git config` included.
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    let ctx = context(&root).with_sandbox(SandboxPolicy {
        enabled: false,
        ..SandboxPolicy::default()
    });
    let result = bash(
        &ctx,
        "git config core.editor vi && echo x > .git/config.worktree",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert_eq!(refusal_notes(&result), Vec::<&str>::new());
    assert!(root.join(".git/config.worktree").exists());
    assert!(read(&root.join(".git/config")).contains("editor = vi"));
}

#[tokio::test]
async fn ordinary_git_commands_leave_no_note_and_move_nothing() {
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    let ctx = context(&root);
    for command in [
        "git status",
        "echo two >> a.txt && git add a.txt && \
         git -c user.name=A -c user.email=a@example.com commit -qm second",
        "git checkout -q -b topic && git checkout -q main && git log --oneline",
        "git stash list && git gc -q",
    ] {
        let result = bash(&ctx, command).await;
        assert_eq!(exit_code(&result), 0, "{command}: {}", result.text);
        assert_eq!(refusal_notes(&result), Vec::<&str>::new(), "{command}");
    }
    let refused = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|entry| {
                entry
                    .file_name()
                    .to_string_lossy()
                    .contains("refused-by-wright")
            })
            .count()
    };
    assert_eq!((refused(&root), refused(&root.join(".git"))), (0, 0));
}
