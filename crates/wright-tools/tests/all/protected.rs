//! Protected paths end to end (issue 12): real `bash` commands in a real git repository cannot
//! change `.git/config`, `.git/hooks`, `.wright/` or the front end's protected paths, nor move
//! them aside, while git itself keeps working; wright, outside the command, is not affected.
//!
//! Where the machine cannot give commands a mount namespace, the status says so and the tests
//! check that note instead of passing silently.
#![cfg(target_os = "linux")]

use std::path::Path;

use serde_json::json;
use wright_protocol::{ToolCall, ToolResult};
use wright_tools::{ProtectedPath, SandboxStatus, ToolContext, ToolRegistry};

/// Runs `command` as if the user approved it: the checker's questions are waived, so only the
/// kernel stands in the way. A command the checker refuses outright is a mistake of the test.
pub(crate) async fn bash(ctx: &ToolContext, command: &str) -> ToolResult {
    let call = ToolCall {
        tool: "Bash".into(),
        args: json!({"command": command, "timeout_ms": 30_000}),
    };
    let registry = ToolRegistry::builtin();
    let prepared = registry
        .prepare(&call, ctx)
        .unwrap_or_else(|refused| panic!("{command} was refused: {}", refused.text));
    prepared.run(ctx).await
}

pub(crate) fn exit_code(result: &ToolResult) -> i64 {
    result.data["exit_code"].as_i64().unwrap()
}

/// Whether commands get read-only paths here; when they do not, the status must say so.
fn protecting(ctx: &ToolContext) -> bool {
    match ctx.sandbox_status() {
        SandboxStatus::Confined => true,
        status => {
            let note = status.note().unwrap();
            assert!(note.contains("confined"), "{note}");
            false
        }
    }
}

/// A git repository with one commit, as a user would have it.
pub(crate) fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    git(&["add", "a.txt"]);
    git(&[
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-qm",
        "first",
    ]);
    dir
}

pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Each command must fail and leave the files as they were.
async fn assert_all_fail(ctx: &ToolContext, commands: &[&str]) {
    for command in commands {
        let result = bash(ctx, command).await;
        assert_ne!(exit_code(&result), 0, "{command}: {}", result.text);
    }
}

#[tokio::test]
async fn commands_cannot_change_git_settings_or_hooks_but_git_keeps_working() {
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    let ctx = ToolContext::new(&root).unwrap();
    if !protecting(&ctx) {
        return;
    }
    let config = read(&root.join(".git/config"));
    assert_all_fail(
        &ctx,
        &[
            "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config",
            "git config core.fsmonitor 'touch pwned'",
            "git config alias.st '!touch pwned'",
            "printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit",
            "rm -f .git/config",
            "rm -rf .git/hooks",
            "mv .git/hooks .git/hooks.old",
            "mv .git .git.old",
            "cp .git/config /tmp/c && mv /tmp/c .git/config",
            // Undoing the namespace, or writing through wright's own view of the files.
            "umount .git/config; printf x >> .git/config",
            "printf x >> /proc/$PPID/root$PWD/.git/config",
        ],
    )
    .await;
    assert_eq!(read(&root.join(".git/config")), config);
    assert!(!root.join(".git/hooks/pre-commit").exists());
    assert!(!root.join(".git.old").exists());
    assert!(!root.join("pwned").exists());

    // What the agent does with git every day still works.
    let result = bash(
        &ctx,
        "set -e; echo two >> a.txt; git add a.txt; \
         git -c user.name=A -c user.email=a@example.com commit -qm second; \
         git checkout -q -b topic; git checkout -q main; git stash list; \
         git log --oneline | wc -l",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert!(result.text.contains("\n2\n"), "{}", result.text);

    // A command that needs to change git's settings is told to ask the user.
    let result = bash(&ctx, "git remote add origin https://example.com/r.git").await;
    assert_ne!(exit_code(&result), 0, "{}", result.text);
    assert!(
        result.text.contains("git remote add") && result.text.contains("tell the user"),
        "{}",
        result.text
    );

    // Only the command's view is read-only: wright and the user can still change them.
    std::fs::write(root.join(".git/hooks/post-commit"), "#!/bin/sh\n").unwrap();
}

/// Issue 12: `open_by_handle_at` opens a file by its handle through any mount of the same file
/// system, so root could open `.git/config` for writing through the writable project above its
/// read-only bind; the seccomp filter refuses the call with `EPERM`. Without root the kernel
/// refuses it anyway (it needs `CAP_DAC_READ_SEARCH`), so there is nothing to check then, nor
/// on a file system that gives no handles.
#[tokio::test]
async fn root_cannot_open_a_protected_file_by_its_handle() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: only root may call open_by_handle_at");
        return;
    }
    if !crate::common::python3_has("ctypes") {
        eprintln!("skipped: python3 with ctypes is needed");
        return;
    }
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    let ctx = ToolContext::new(&root).unwrap();
    if !protecting(&ctx) {
        return;
    }
    let script = r#"
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
class FileHandle(ctypes.Structure):
    _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int),
                ("f_handle", ctypes.c_ubyte * 128)]
handle = FileHandle(handle_bytes=128)
mount_id = ctypes.c_int()
AT_FDCWD = -100
if libc.name_to_handle_at(AT_FDCWD, b".git/config", ctypes.byref(handle),
                          ctypes.byref(mount_id), 0) != 0:
    print("name_to_handle_at=" + errno.errorcode[ctypes.get_errno()])
else:
    # The project directory lies on the writable mount, not on the read-only bind.
    mount_fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    fd = libc.open_by_handle_at(mount_fd, ctypes.byref(handle), os.O_WRONLY)
    print("open_by_handle_at=" + ("opened" if fd >= 0 else errno.errorcode[ctypes.get_errno()]))
"#;
    let command = format!("python3 -c {}", shlex::try_quote(script).unwrap());
    let result = bash(&ctx, &command).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    let stdout = result.data["stdout"].as_str().unwrap();
    if stdout.starts_with("name_to_handle_at=") {
        eprintln!("skipped: this file system gives no handles ({stdout})");
        return;
    }
    assert_eq!(stdout, "open_by_handle_at=EPERM\n", "{}", result.text);
}

#[tokio::test]
async fn commands_cannot_change_the_projects_wright_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".wright")).unwrap();
    std::fs::write(root.join(".wright/config.toml"), "model = \"m\"\n").unwrap();
    let ctx = ToolContext::new(&root).unwrap();
    if !protecting(&ctx) {
        return;
    }
    assert_all_fail(
        &ctx,
        &[
            "printf '[sandbox]\\nenabled = false\\n' >> .wright/config.toml",
            "mkdir .wright/agents",
            "mv .wright .wright.old && mkdir .wright",
            "rm -rf .wright",
        ],
    )
    .await;
    assert_eq!(read(&root.join(".wright/config.toml")), "model = \"m\"\n");
    assert!(!root.join(".wright/agents").exists());
    // The rest of the project stays writable.
    let result = bash(&ctx, "echo ok > notes.txt && cat notes.txt").await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
}

#[tokio::test]
async fn the_front_ends_paths_and_the_directories_above_them_stay_put() {
    // The project is the home directory: the user's settings and a hook script lie in it.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(home.join(".config/wright")).unwrap();
    std::fs::write(home.join(".config/wright/config.toml"), "").unwrap();
    std::fs::create_dir_all(home.join("tools/hooks")).unwrap();
    std::fs::write(home.join("tools/hooks/vet.sh"), "exit 0\n").unwrap();
    let ctx = ToolContext::new(&home).unwrap().with_protected(vec![
        ProtectedPath::existing(&home.join(".config/wright"), "your settings").unwrap(),
        ProtectedPath::existing(&home.join("tools/hooks/vet.sh"), "a hook").unwrap(),
    ]);
    if !protecting(&ctx) {
        return;
    }
    assert_all_fail(
        &ctx,
        &[
            "echo 'approval = \"auto\"' >> .config/wright/config.toml",
            "mv .config .config.old",
            "echo 'touch pwned' > tools/hooks/vet.sh",
            "mv tools tools.old && mkdir -p tools/hooks && echo 'touch pwned' > tools/hooks/vet.sh",
            "mv tools/hooks tools/h",
        ],
    )
    .await;
    assert_eq!(read(&home.join(".config/wright/config.toml")), "");
    assert_eq!(read(&home.join("tools/hooks/vet.sh")), "exit 0\n");
    // Beside them, the command writes as before.
    let result = bash(
        &ctx,
        "echo x > tools/hooks/other.sh && echo y > .config/other",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
}

#[tokio::test]
async fn in_a_worktree_the_main_repositorys_settings_are_protected_too() {
    let main = repository();
    let base = tempfile::tempdir().unwrap();
    let worktree = base.path().canonicalize().unwrap().join("topic");
    let out = std::process::Command::new("git")
        .args(["worktree", "add", "-q", "-b", "topic"])
        .arg(&worktree)
        .current_dir(main.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let main_config = main.path().join(".git/config");
    let before = read(&main_config);
    let ctx = ToolContext::new(&worktree).unwrap();
    if !protecting(&ctx) {
        return;
    }
    assert_all_fail(
        &ctx,
        &[
            "git config core.fsmonitor 'touch pwned'",
            "printf x >> \"$(git rev-parse --git-common-dir)/config\"",
            "printf x > \"$(git rev-parse --git-dir)/commondir\"",
            "printf 'gitdir: /tmp/evil\\n' > .git",
        ],
    )
    .await;
    assert_eq!(read(&main_config), before);
    let result = bash(
        &ctx,
        "set -e; echo w >> a.txt; git add a.txt; \
         git -c user.name=A -c user.email=a@example.com commit -qm in-worktree",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
}

#[tokio::test]
async fn a_protected_path_beside_the_project_leaves_the_projects_own_read_only() {
    // `$WRIGHT_HOME` beside the project, both in the temporary directory: the directory
    // holding both is pinned, which must not hide the read-only paths from a command that
    // starts inside it.
    let base = tempfile::tempdir().unwrap();
    let base_path = base.path().canonicalize().unwrap();
    let state = base_path.join("state");
    std::fs::create_dir(&state).unwrap();
    let project = base_path.join("proj");
    std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
    std::fs::write(project.join(".git/config"), "[core]\n").unwrap();
    let ctx = ToolContext::new(&project)
        .unwrap()
        .with_protected(vec![ProtectedPath::existing(&state, "sessions").unwrap()]);
    if !protecting(&ctx) {
        return;
    }
    assert_all_fail(
        &ctx,
        &[
            "printf x >> .git/config",
            "touch ../state/s.jsonl",
            "cd .. && printf x >> proj/.git/config",
        ],
    )
    .await;
    assert_eq!(read(&project.join(".git/config")), "[core]\n");
}

/// Runs git in `dir` (no system settings), panicking with its output when it fails.
fn git_in(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[tokio::test]
async fn hooks_directories_included_settings_and_slashed_submodules_are_protected() {
    let dir = repository();
    let root = dir.path().canonicalize().unwrap();
    // husky's layout, a tracked settings file included by the local settings.
    std::fs::create_dir(root.join(".husky")).unwrap();
    std::fs::write(root.join(".husky/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(root.join(".gitconfig"), "[alias]\n\tst = status\n").unwrap();
    git_in(&root, &["config", "core.hooksPath", ".husky"]);
    git_in(&root, &["config", "include.path", "../.gitconfig"]);
    // A submodule at a nested path: its git directory is .git/modules/vendor/lib.
    let lib = repository();
    git_in(
        &root,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            lib.path().to_str().unwrap(),
            "vendor/lib",
        ],
    );
    assert!(root.join(".git/modules/vendor/lib/config").is_file());
    let ctx = ToolContext::new(&root).unwrap();
    if !protecting(&ctx) {
        return;
    }
    assert_all_fail(
        &ctx,
        &[
            "printf 'touch pwned\\n' >> .husky/pre-commit",
            "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .gitconfig",
            "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/modules/vendor/lib/config",
            "printf 'gitdir: /tmp/evil\\n' > vendor/lib/.git",
        ],
    )
    .await;
    assert_eq!(read(&root.join(".husky/pre-commit")), "#!/bin/sh\nexit 0\n");
    assert_eq!(read(&root.join(".gitconfig")), "[alias]\n\tst = status\n");
    // The file tools refuse them too.
    let registry = ToolRegistry::builtin();
    for path in [
        ".husky/pre-commit",
        ".gitconfig",
        ".git/modules/vendor/lib/config",
    ] {
        let call = ToolCall {
            tool: "Write".into(),
            args: json!({"file_path": path, "content": "x"}),
        };
        let result = registry.run(&call, &ctx).await;
        assert_eq!(
            result.error.map(|e| e.code),
            Some(wright_protocol::ErrorCode::Protected),
            "{path}"
        );
    }
}
