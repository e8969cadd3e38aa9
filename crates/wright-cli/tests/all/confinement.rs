//! Issue 6, "Confinement", through the real binary: `[sandbox]` and `allow_outside_project`
//! from the settings file reach the tools.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::common::*;

/// A directory outside every temporary directory (see
/// [`wright_testkit::scratch::outside_temporary_dirs`]).
fn scratch_outside_the_sandbox() -> PathBuf {
    wright_testkit::scratch::outside_temporary_dirs(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .expect("a writable directory outside the temporary directories to test with")
}

/// A fresh directory outside the project and outside the temporary directories.
fn outside_dir(name: &str) -> PathBuf {
    let dir = scratch_outside_the_sandbox()
        .join("wright-cli-confinement")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bash(command: &str) -> wright_testkit::ScriptedResponse {
    reply(&format!(
        "Thought: run.\nAction: Bash[{}]",
        json!({ "command": command })
    ))
}

fn finish() -> wright_testkit::ScriptedResponse {
    reply("Thought: done.\nAction: Finish[ok]")
}

/// Whether this kernel confines commands (the sandbox says so on stderr when it does not).
fn confined(stderr: &str) -> bool {
    !stderr.contains("not confined")
}

#[test]
fn commands_write_outside_the_project_only_where_the_settings_allow() {
    let outside = outside_dir("writable");
    let target = outside.join("made-by-a-command");
    let command = format!("touch {}", target.display());

    let project = Project::new();
    let server = serve(vec![bash(&command), finish()]);
    let run = project.exec(&server, "openai", &[], "touch it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    if confined(&run.stderr) {
        assert!(
            !target.exists(),
            "the default sandbox let a command write outside"
        );
        let observation = last_message(&server.requests()[1]);
        assert!(observation.contains("ermission denied"), "{observation}");
        assert!(
            observation.contains("tell the user what it needs"),
            "{observation}"
        );
    } else {
        assert!(
            run.stderr.contains("wright: commands are"),
            "{}",
            run.stderr
        );
    }

    project.trust();
    project.write(
        ".wright/config.toml",
        &format!(
            "retry_base_delay_ms = 5\n[sandbox]\nwritable = [\"{}\"]\n",
            outside.display()
        ),
    );
    let server = serve(vec![bash(&command), finish()]);
    let run = project.exec(&server, "openai", &[], "touch it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(target.exists(), "{}", last_message(&server.requests()[1]));
}

#[test]
fn allow_outside_project_opens_a_directory_to_the_file_tools() {
    let outside = outside_dir("extra-root");
    std::fs::write(outside.join("shared.txt"), "shared line\n").unwrap();
    let file = outside.join("shared.txt");
    let read = reply(&format!(
        "Thought: read.\nAction: Read[{}]",
        json!({ "file_path": file })
    ));

    let project = Project::new();
    let server = serve(vec![read.clone(), finish()]);
    let run = project.exec(&server, "openai", &[], "read it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let refused = last_message(&server.requests()[1]);
    assert!(refused.contains("path_outside_project"), "{refused}");

    project.trust();
    project.write(
        ".wright/config.toml",
        &format!(
            "retry_base_delay_ms = 5\nallow_outside_project = [\"{}\"]\n",
            outside.display()
        ),
    );
    let server = serve(vec![read, finish()]);
    let run = project.exec(&server, "openai", &[], "read it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let shown = last_message(&server.requests()[1]);
    assert!(shown.contains("shared line"), "{shown}");
}

#[test]
fn a_missing_extra_root_is_a_clear_error_before_any_request() {
    let project = Project::new();
    project.trust();
    project.write(
        ".wright/config.toml",
        "allow_outside_project = [\"/no/such/dir/for/wright\"]\n",
    );
    let server = serve(vec![]);
    let run = project.exec(&server, "openai", &[], "hi");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("/no/such/dir/for/wright"),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty());
}

#[test]
fn network_off_in_the_settings_keeps_commands_off_loopback() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[sandbox]\nnetwork = false\n",
    );
    let command = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let server = serve(vec![bash(&command), finish()]);
    let run = project.exec(&server, "openai", &[], "connect");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    if confined(&run.stderr) {
        assert!(!observation.contains("connected\n"), "{observation}");
        assert!(observation.contains("not permitted"), "{observation}");
        assert!(
            observation.contains("may not use the network"),
            "{observation}"
        );
    }
    // wright itself still reached the model on loopback.
    assert_eq!(server.requests().len(), 2);
}

/// `wright tool NAME ARGS` in `project`, with `home` as the home directory and `state` as
/// `$WRIGHT_HOME`.
fn tool_in(project: &Path, home: &Path, state: &Path, name: &str, args: serde_json::Value) -> Run {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_wright"))
        .current_dir(project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("WRIGHT_HOME", state)
        .args(["tool", name, &args.to_string()])
        .output()
        .unwrap();
    Run::from(output)
}

#[test]
fn with_the_home_directory_as_the_project_wrights_settings_and_sessions_stay_unwritable() {
    // Issue 12 item 6: the project is the home directory, where the user's settings and
    // wright's sessions live.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let state = home.join(".local/share/wright");
    std::fs::create_dir_all(home.join(".config/wright")).unwrap();
    std::fs::create_dir_all(state.join("sessions")).unwrap();
    std::fs::write(home.join(".config/wright/config.toml"), "").unwrap();
    std::fs::write(state.join("sessions/s.jsonl"), "{}\n").unwrap();

    let write = tool_in(
        &home,
        &home,
        &state,
        "Write",
        json!({"file_path": ".config/wright/config.toml", "content": "approval = \"auto\"\n"}),
    );
    assert_eq!(write.code, Some(1), "{}", write.stdout);
    assert!(write.stdout.contains("protected"), "{}", write.stdout);

    let command = "echo 'approval = \"auto\"' >> .config/wright/config.toml; \
                   echo '{}' >> .local/share/wright/sessions/s.jsonl; \
                   mv .config .config.old";
    let bash = tool_in(&home, &home, &state, "Bash", json!({ "command": command }));
    if !bash.stdout.contains("not confined") && !bash.stdout.contains("partly confined") {
        assert!(
            bash.stdout.contains("Read-only file system"),
            "{}",
            bash.stdout
        );
        assert_eq!(
            std::fs::read_to_string(home.join(".config/wright/config.toml")).unwrap(),
            ""
        );
        assert_eq!(
            std::fs::read_to_string(state.join("sessions/s.jsonl")).unwrap(),
            "{}\n"
        );
        assert!(!home.join(".config.old").exists());
    }
}

#[test]
fn a_hook_script_in_the_project_cannot_be_rewritten_before_it_runs() {
    // Issue 12 item 7: the hook's script lies in the project, and hooks run unconfined.
    let project = Project::new();
    project.trust();
    project.write("scripts/vet.sh", "#!/bin/sh\nexit 0\n");
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[[hooks.post_tool]]\ntool = \"Bash\"\ncommand = \"sh scripts/vet.sh\"\n",
    );
    let server = serve(vec![
        bash("printf 'touch pwned\\n' > scripts/vet.sh"),
        reply(&format!(
            "Thought: write.\nAction: Write[{}]",
            json!({"file_path": "scripts/vet.sh", "content": "touch pwned\n"})
        )),
        finish(),
    ]);
    let run = project.exec(&server, "openai", &["--approval", "auto"], "go");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    if !confined(&run.stderr) || run.stderr.contains("partly confined") {
        return;
    }
    assert_eq!(
        std::fs::read_to_string(project.path().join("scripts/vet.sh")).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
    assert!(!project.path().join("pwned").exists());
    let refused = last_message(&server.requests()[2]);
    assert!(refused.contains("protected"), "{refused}");
}

/// The uid and gid of `nobody`, under which a test can run wright unprivileged.
const NOBODY: u32 = 65_534;

#[test]
fn unprivileged_commands_keep_their_identity_and_see_git_settings_read_only() {
    // Issue 12 item 3 for a user who is not root: the namespace is made inside a user
    // namespace. Only root can start a process as another user; elsewhere the tests that run
    // as the user already cover this path.
    if unsafe_free_euid() != 0 {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o777)).unwrap();
    let as_nobody = |program: &str, args: &[&str], cwd: &Path| {
        std::process::Command::new(program)
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", base.join("home"))
            .env("WRIGHT_HOME", base.join("state"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .uid(NOBODY)
            .gid(NOBODY)
            .output()
            .unwrap()
    };
    let made = as_nobody("mkdir", &["-p", "home", "state", "proj"], &base);
    assert!(made.status.success(), "{made:?}");
    let project = base.join("proj");
    let init = as_nobody("git", &["init", "-q"], &project);
    assert!(init.status.success(), "{init:?}");
    let config = std::fs::read_to_string(project.join(".git/config")).unwrap();
    let command = "id -u; printf x >> .git/config; echo a > a; git add a; \
                   git -c user.name=N -c user.email=n@example.com commit -qm first && echo committed";
    let output = as_nobody(
        env!("CARGO_BIN_EXE_wright"),
        &["tool", "Bash", &json!({ "command": command }).to_string()],
        &project,
    );
    let run = Run::from(output);
    if run.stdout.contains("not confined") || run.stdout.contains("partly confined") {
        // The machine allows no user namespaces; the note says so.
        return;
    }
    assert!(
        run.stdout.contains(&format!("{NOBODY}\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Read-only file system"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("committed"), "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(project.join(".git/config")).unwrap(),
        config
    );
}

/// The effective user id of the tests, read from `/proc/self/status` (no unsafe code).
fn unsafe_free_euid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Uid:"))
                .and_then(|ids| ids.split_whitespace().nth(1).map(str::to_owned))
        })
        .and_then(|euid| euid.parse().ok())
        .unwrap_or(u32::MAX)
}
