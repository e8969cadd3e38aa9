//! A scripted MCP server on standard input and output, for the faults real servers show
//! rarely: `wright-testkit mcp-serve SCRIPT.json` (issue 15).
//!
//! It speaks just enough of MCP (newline-delimited JSON-RPC: `initialize`, `tools/list`,
//! `tools/call`, `ping`) for a real client, and its script says what each tool does. Calls are
//! answered on threads of their own, so a slow call does not hold up the next. A script:
//!
//! ```json
//! {"start_delay_ms": 0, "generate_tools": 20, "spawn": ["sleep", "300"],
//!  "tools": [{"name": "echo", "description": "...", "input_schema": {...},
//!             "read_only": true, "result": {"content": [...]}, "delay_ms": 0,
//!             "crash": false}]}
//! ```
//!
//! A tool without `result` answers with its arguments as text. `crash` makes the server exit
//! with code 1 when the tool is called, before answering. `generate_tools` adds the echo tools
//! `tool_000`, `tool_001` and so on. `spawn` starts a command that stays in the server's
//! process group, to prove a client stops the whole group.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

/// What the scripted server does.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct McpScript {
    /// How long to wait before reading the first request (a slow start).
    #[serde(default)]
    pub start_delay_ms: u64,
    /// How many generated echo tools to add (`tool_000`, …).
    #[serde(default)]
    pub generate_tools: usize,
    /// A command to start alongside, in the server's process group.
    #[serde(default)]
    pub spawn: Vec<String>,
    /// The scripted tools.
    #[serde(default)]
    pub tools: Vec<McpScriptTool>,
}

/// One scripted tool.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct McpScriptTool {
    /// Its name.
    pub name: String,
    /// Its description.
    #[serde(default)]
    pub description: Option<String>,
    /// Its input schema; `{"type": "object"}` when absent.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// Whether it is annotated `readOnlyHint: true`.
    #[serde(default)]
    pub read_only: bool,
    /// The `CallToolResult` it answers with; its arguments as text when absent.
    #[serde(default)]
    pub result: Option<Value>,
    /// How long it takes to answer.
    #[serde(default)]
    pub delay_ms: u64,
    /// Whether calling it makes the server exit without answering.
    #[serde(default)]
    pub crash: bool,
}

impl McpScript {
    /// Reads a script from `path`.
    pub fn load(path: &Path) -> io::Result<Self> {
        let text = std::fs::read_to_string(path)?;
        serde_json::from_str(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Every tool, the generated ones after the scripted ones.
    fn all_tools(&self) -> Vec<McpScriptTool> {
        let mut tools = self.tools.clone();
        for i in 0..self.generate_tools {
            tools.push(McpScriptTool {
                name: format!("tool_{i:03}"),
                description: Some(format!(
                    "Generated tool number {i}: echoes its arguments back as text."
                )),
                input_schema: Some(json!({
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "What to echo."}},
                    "required": ["text"],
                })),
                ..Default::default()
            });
        }
        tools
    }
}

/// Serves `script` on standard input and output until standard input ends.
pub fn serve_stdio(script: &McpScript) -> io::Result<()> {
    if let Some((program, args)) = script.spawn.split_first() {
        std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()?;
    }
    std::thread::sleep(Duration::from_millis(script.start_delay_ms));
    let tools = Arc::new(script.all_tools());
    let out = Arc::new(Mutex::new(io::stdout()));
    for line in io::stdin().lock().lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue; // a notification
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => {
                let version = params
                    .get("protocolVersion")
                    .cloned()
                    .unwrap_or(json!("2025-06-18"));
                reply(
                    &out,
                    &id,
                    Ok(json!({
                        "protocolVersion": version,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "wright-testkit", "version": env!("CARGO_PKG_VERSION")},
                    })),
                );
            }
            Some("ping") => reply(&out, &id, Ok(json!({}))),
            Some("tools/list") => {
                let listed: Vec<Value> = tools.iter().map(listing).collect();
                reply(&out, &id, Ok(json!({"tools": listed})));
            }
            Some("tools/call") => {
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let Some(tool) = tools.iter().find(|t| t.name == name).cloned() else {
                    reply(&out, &id, Err(format!("unknown tool: {name}")));
                    continue;
                };
                if tool.crash {
                    std::process::exit(1);
                }
                let args = params.get("arguments").cloned().unwrap_or(json!({}));
                let out = out.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(tool.delay_ms));
                    let result = tool.result.clone().unwrap_or_else(
                        || json!({"content": [{"type": "text", "text": args.to_string()}]}),
                    );
                    reply(&out, &id, Ok(result));
                });
            }
            _ => reply(&out, &id, Err("method not found".into())),
        }
    }
    Ok(())
}

/// How `tools/list` shows a tool.
fn listing(tool: &McpScriptTool) -> Value {
    let mut listed = json!({
        "name": tool.name,
        "inputSchema": tool.input_schema.clone().unwrap_or(json!({"type": "object"})),
    });
    if let Some(description) = &tool.description {
        listed["description"] = json!(description);
    }
    if tool.read_only {
        listed["annotations"] = json!({"readOnlyHint": true});
    }
    listed
}

fn reply(out: &Mutex<io::Stdout>, id: &Value, result: Result<Value, String>) {
    let message = match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(message) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": message}})
        }
    };
    let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
    // A client that went away is the end of the conversation; nothing to report to.
    let _ = writeln!(out, "{message}").and_then(|()| out.flush());
}

/// The `wright-testkit` binary next to the running test's own (`target/<profile>/`), built
/// first when it is not there yet (a test of another crate does not build it). Panics when it
/// cannot be built: for tests only.
pub fn binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap_or_default();
            // target/<profile>/deps/<test> → target/<profile>/wright-testkit
            let profile_dir = exe
                .parent()
                .and_then(Path::parent)
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let binary = profile_dir.join("wright-testkit");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let target_dir = profile_dir
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let mut build = std::process::Command::new(cargo);
            build.args([
                "build",
                "--quiet",
                "-p",
                "wright-testkit",
                "--bin",
                "wright-testkit",
            ]);
            build.arg("--target-dir").arg(&target_dir);
            if profile_dir.file_name().is_some_and(|p| p == "release") {
                build.arg("--release");
            }
            let status = build.status();
            assert!(
                status.is_ok_and(|s| s.success()) && binary.exists(),
                "could not build {}",
                binary.display()
            );
            binary
        })
        .clone()
}
