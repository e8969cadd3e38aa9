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
