//! Shared set-up for end-to-end tests: a temporary project, a scripted provider, and the real
//! `wright` binary pointed at it with a clean environment.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;
use wright_testkit::{RecordedRequest, Script, ScriptedResponse, TestServer};

/// A temporary project with its own fake home directory.
pub struct Project {
    pub dir: TempDir,
    pub home: TempDir,
}

impl Project {
    pub fn new() -> Self {
        let project = Self {
            dir: TempDir::new().unwrap(),
            home: TempDir::new().unwrap(),
        };
        // Fast retries so failure scenarios stay quick.
        project.write(".wright/config.toml", "retry_base_delay_ms = 5\n");
        project
    }

    /// Lists the project in the user's `trusted_projects`, so that its own settings file may
    /// widen what wright does (hooks, sandbox, `[bash] allow`, ...).
    pub fn trust(&self) {
        let dir = self.home.path().join(".config/wright");
        std::fs::create_dir_all(&dir).unwrap();
        let root = self.dir.path().canonicalize().unwrap();
        std::fs::write(
            dir.join("config.toml"),
            format!("trusted_projects = [{:?}]\n", root.display().to_string()),
        )
        .unwrap();
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, relative: &str, text: &str) {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `wright` with nothing configured but `HOME` and `PATH`.
    pub fn bare_command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_wright"));
        command
            .current_dir(self.dir.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("WRIGHT_HOME", self.home.path().join("state"))
            .env("NO_COLOR", "1");
        command
    }

    /// `wright` configured for `server` speaking `provider`.
    pub fn command(&self, server: &TestServer, provider: &str) -> Command {
        let mut command = self.bare_command();
        command
            .env("WRIGHT_PROVIDER", provider)
            .env("WRIGHT_BASE_URL", server.url())
            .env("WRIGHT_MODEL", "test-model")
            .env("WRIGHT_API_KEY", "test-key");
        command
    }

    /// Runs `wright exec [extra...] PROMPT` against `server`.
    pub fn exec(&self, server: &TestServer, provider: &str, extra: &[&str], prompt: &str) -> Run {
        let output = self
            .command(server, provider)
            .arg("exec")
            .args(extra)
            .arg(prompt)
            .output()
            .unwrap();
        Run::from(output)
    }
}

/// What a finished `wright` process left behind.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

impl Run {
    /// stdout parsed as JSON lines.
    pub fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect()
    }
}

pub fn serve(responses: Vec<ScriptedResponse>) -> TestServer {
    TestServer::start(Script::new(responses)).unwrap()
}

pub fn reply(text: &str) -> ScriptedResponse {
    ScriptedResponse {
        text: text.to_string(),
        ..ScriptedResponse::default()
    }
}

/// The `messages` of a recorded chat request, as (role, content) pairs.
pub fn messages(request: &RecordedRequest) -> Vec<(String, String)> {
    let body = request.json().unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let content = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(""),
                other => other.to_string(),
            };
            (m["role"].as_str().unwrap().to_string(), content)
        })
        .collect()
}

/// The text of the last message of a recorded request.
pub fn last_message(request: &RecordedRequest) -> String {
    messages(request).pop().unwrap().1
}

/// Sends SIGINT (Ctrl-C) to `child` and waits for it to exit, failing if that takes longer
/// than `within`.
pub fn interrupt_and_wait(
    child: &mut std::process::Child,
    within: std::time::Duration,
) -> std::process::ExitStatus {
    let sent = std::time::Instant::now();
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            sent.elapsed() < within,
            "wright did not stop within {within:?} of Ctrl-C"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `command` (a `wright exec --json` one), presses Ctrl-C 300 ms after its first
/// `tool_call` event and waits for it to exit; returns its status and the event lines it
/// printed after that event.
pub fn interrupt_at_first_tool_call(
    mut command: Command,
) -> (std::process::ExitStatus, Vec<String>) {
    use std::io::{BufRead, BufReader};
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().contains("\"type\":\"tool_call\"") {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = interrupt_and_wait(&mut child, std::time::Duration::from_secs(10));
    (status, lines.map(|l| l.unwrap()).collect())
}
