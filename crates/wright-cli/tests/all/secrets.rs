//! Issue 6, "Secrets": credentials in the environment, in project files and in provider errors
//! reach neither the model nor anything wright writes or prints.

use std::path::Path;

use serde_json::json;
use wright_testkit::ScriptedResponse;

use crate::common::*;

const API_KEY: &str = "sk-proj-TheRealKey0123456789abcdefXYZ";
const SERVICE_TOKEN: &str = "opaque-service-credential-77";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const PEM_LINE: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ";

const SECRETS: [&str; 4] = [API_KEY, SERVICE_TOKEN, AWS_SECRET, PEM_LINE];

fn action(tool: &str, args: serde_json::Value) -> ScriptedResponse {
    reply(&format!("Thought: look.\nAction: {tool}[{args}]"))
}

fn project_with_secrets() -> Project {
    let project = Project::new();
    project.write(
        ".env",
        &format!("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\n"),
    );
    project.write(
        "deploy/id_ed25519",
        &format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_LINE}\nAAAAMwAAAAtzc2gtZWQyNTUxOQ\n-----END OPENSSH PRIVATE KEY-----\n"
        ),
    );
    project
}

/// Every file under `dir`, read lossily, with its path.
fn all_files(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(all_files(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            found.push((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
    found
}

fn assert_no_secret(place: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{place} holds {secret:?}:\n{text}");
    }
}

#[test]
fn credentials_in_command_output_and_files_are_masked_before_the_model_sees_them() {
    let project = project_with_secrets();
    let server = serve(vec![
        action(
            "Bash",
            json!({"command": "env | sort; cat .env deploy/id_ed25519"}),
        ),
        action("Read", json!({"file_path": ".env"})),
        action(
            "Grep",
            json!({"pattern": "AWS|PRIVATE|AAAA", "output_mode": "content"}),
        ),
        reply("Thought: done.\nAction: Finish[checked]"),
    ]);
    let output = project
        .command(&server, "openai")
        .env("WRIGHT_API_KEY", API_KEY)
        .env("MY_SERVICE_TOKEN", SERVICE_TOKEN)
        .args(["exec", "--json", "look at the config"])
        .output()
        .unwrap();
    let run = Run::from(output);
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // The key went where it belongs, and nowhere else.
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {API_KEY}").as_str())
    );
    for (n, request) in requests.iter().enumerate() {
        assert_no_secret(&format!("request {n}"), &request.body);
    }
    let bash = last_message(&requests[1]);
    assert!(
        bash.contains("MY_SERVICE_TOKEN=[REDACTED secret]"),
        "{bash}"
    );
    assert!(
        !bash.contains("WRIGHT_API_KEY"),
        "not passed to commands: {bash}"
    );
    assert!(bash.contains("[REDACTED private key]"), "{bash}");
    assert!(bash.contains("[REDACTED aws access key id]"), "{bash}");
    let read = last_message(&requests[2]);
    assert!(read.contains("AWS_SECRET_ACCESS_KEY=[REDACTED"), "{read}");

    assert_no_secret("stdout (--json events)", &run.stdout);
    assert_no_secret("stderr", &run.stderr);
    for (path, text) in all_files(project.home.path()) {
        assert_no_secret(&path, &text);
    }
    for args in [
        &["context", "--full"][..],
        &["sessions", "show", "--json", "last"][..],
    ] {
        let shown = Run::from(
            project
                .command(&server, "openai")
                .env("WRIGHT_API_KEY", API_KEY)
                .args(args)
                .output()
                .unwrap(),
        );
        assert_no_secret(&format!("wright {args:?}"), &shown.stdout);
        assert_no_secret(&format!("wright {args:?}"), &shown.stderr);
    }
}

#[test]
fn a_key_echoed_in_a_provider_error_is_redacted_everywhere() {
    let project = Project::new();
    let server = serve(vec![ScriptedResponse::status(
        401,
        format!("Incorrect API key provided: {API_KEY}"),
    )]);
    let run = Run::from(
        project
            .command(&server, "openai")
            .env("WRIGHT_API_KEY", API_KEY)
            .args(["exec", "--json", "hello"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stdout
            .contains("Incorrect API key provided: [REDACTED api key]"),
        "{}",
        run.stdout
    );
    assert_no_secret("stdout", &run.stdout);
    assert_no_secret("stderr", &run.stderr);
    for (path, text) in all_files(project.home.path()) {
        assert_no_secret(&path, &text);
    }
}

#[test]
fn masking_can_be_turned_off_in_the_settings() {
    let project = project_with_secrets();
    project.trust();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[secrets]\nmask = false\n",
    );
    let server = serve(vec![
        action("Read", json!({"file_path": ".env"})),
        reply("Thought: done.\nAction: Finish[ok]"),
    ]);
    let run = project.exec(&server, "openai", &[], "read it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(last_message(&server.requests()[1]).contains(AWS_SECRET));
}

/// Issue 12: no provider-key variable reaches a command, whichever of them wright was given.
#[test]
fn commands_are_given_no_provider_key_variable() {
    let project = Project::new();
    let server = serve(vec![
        action(
            "Bash",
            // A count: the masker would hide `NAME=value` lines.
            json!({"command": "n=0; for v in WRIGHT_API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY; \
                               do [ -n \"${!v}\" ] && n=$((n + 1)); done; echo \"keys: $n\""}),
        ),
        reply("Thought: done.\nAction: Finish[checked]"),
    ]);
    let output = project
        .command(&server, "openai")
        .env("OPENAI_API_KEY", "sk-openai-key-for-the-test-0123456789")
        .env("ANTHROPIC_API_KEY", "sk-ant-key-for-the-test-0123456789")
        .args(["exec", "--json", "look at the environment"])
        .output()
        .unwrap();
    let run = Run::from(output);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let bash = last_message(&server.requests()[1]);
    assert!(bash.contains("<stdout>\nkeys: 0\n"), "{bash}");
}
