//! Shell hooks around tool calls (issue 6, "Hooks"; auto-coder's PreToolUse/PostToolUse).
//!
//! The user configures commands to run before (`pre_tool`) and after (`post_tool`) the calls of
//! the tools whose name matches a pattern:
//!
//! ```toml
//! [[hooks.pre_tool]]
//! tool = "Bash"                 # a regular expression matched against the whole name; "*" = all
//! command = "~/.config/wright/hooks/vet-command.sh"  # outside the project (issue 12)
//!
//! [[hooks.post_tool]]
//! tool = "Write|Edit|MultiEdit"
//! command = "cargo fmt"
//! timeout_secs = 60             # default 30
//! ```
//!
//! Each hook runs as `sh -c COMMAND` in the project root, in a process group of its own, with
//! a JSON document on stdin: `{"event", "tool", "args", "project"}`, and for `post_tool` also
//! `"result": {"status", "error", "text"}`. The variables `WRIGHT_HOOK_EVENT`, `WRIGHT_TOOL`
//! and `WRIGHT_PROJECT_DIR` say the same.
//!
//! A `pre_tool` hook that exits non-zero blocks the call: it does not run, is not offered for
//! approval, and the hook's stderr is the observation (code `blocked`). A hook that cannot be
//! started or runs past its timeout blocks too, since a check that did not happen is not a
//! pass. A `post_tool` hook that exits non-zero adds its stderr to the observation as a note;
//! the call has already happened. Hooks run in the order configured; the first `pre_tool`
//! hook to block ends the check.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;
use wright_protocol::{ToolCall, ToolResult};

/// How long a hook may run unless its `timeout_secs` says otherwise.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// The most of a hook's stderr kept for the observation.
const MAX_HOOK_OUTPUT: usize = 8 * 1024;

/// One configured hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSpec {
    /// The tools it applies to: a regular expression matched against the whole tool name, or
    /// `*` for every tool.
    pub tool: String,
    /// The shell command.
    pub command: String,
    /// How long it may run before it is killed.
    pub timeout: Duration,
}

/// A hook whose tool pattern does not compile.
#[derive(Debug, thiserror::Error)]
#[error("invalid hook tool pattern {pattern:?}: {message}")]
pub struct HookError {
    /// The pattern as configured.
    pub pattern: String,
    /// What the regex compiler said.
    pub message: String,
}

#[derive(Debug, Clone)]
struct Hook {
    matcher: Regex,
    spec: HookSpec,
}

impl Hook {
    fn new(spec: HookSpec) -> Result<Self, HookError> {
        let pattern = match spec.tool.trim() {
            "" | "*" => ".*".to_string(),
            pattern => pattern.to_string(),
        };
        let matcher = Regex::new(&format!("^(?:{pattern})$")).map_err(|e| HookError {
            pattern: spec.tool.clone(),
            message: e.to_string(),
        })?;
        Ok(Self { matcher, spec })
    }
}

/// The configured hooks; the default has none.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    pre_tool: Vec<Hook>,
    post_tool: Vec<Hook>,
}

/// How a hook ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HookOutcome {
    /// It exited 0.
    Passed,
    /// It exited non-zero, could not start, or timed out; the text says which and holds its
    /// stderr.
    Failed(String),
    /// The user interrupted while it ran.
    Interrupted,
}

impl Hooks {
    /// Hooks from their specs; fails on a tool pattern that does not compile.
    pub fn new(pre_tool: Vec<HookSpec>, post_tool: Vec<HookSpec>) -> Result<Self, HookError> {
        Ok(Self {
            pre_tool: pre_tool
                .into_iter()
                .map(Hook::new)
                .collect::<Result<_, _>>()?,
            post_tool: post_tool
                .into_iter()
                .map(Hook::new)
                .collect::<Result<_, _>>()?,
        })
    }

    /// Whether no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.pre_tool.is_empty() && self.post_tool.is_empty()
    }

    /// Runs the `pre_tool` hooks for `call` until one fails; its outcome, else `Passed`.
    pub(crate) async fn pre_tool(
        &self,
        call: &ToolCall,
        root: &Path,
        cancel: &CancellationToken,
    ) -> HookOutcome {
        let input = json!({
            "event": "pre_tool",
            "tool": call.tool,
            "args": call.args,
            "project": root,
        });
        for hook in self
            .pre_tool
            .iter()
            .filter(|h| h.matcher.is_match(&call.tool))
        {
            let outcome = run_hook(&hook.spec, "pre_tool", &call.tool, &input, root, cancel).await;
            if outcome != HookOutcome::Passed {
                return outcome;
            }
        }
        HookOutcome::Passed
    }

    /// Runs the `post_tool` hooks for `call` and its `result`; the notes of those that failed.
    pub(crate) async fn post_tool(
        &self,
        call: &ToolCall,
        result: &ToolResult,
        root: &Path,
        cancel: &CancellationToken,
    ) -> Vec<String> {
        let input = json!({
            "event": "post_tool",
            "tool": call.tool,
            "args": call.args,
            "project": root,
            "result": {
                "status": result.status,
                "error": result.error,
                "text": result.text,
            },
        });
        let mut notes = Vec::new();
        for hook in self
            .post_tool
            .iter()
            .filter(|h| h.matcher.is_match(&call.tool))
        {
            match run_hook(&hook.spec, "post_tool", &call.tool, &input, root, cancel).await {
                HookOutcome::Passed => {}
                HookOutcome::Failed(message) => notes.push(message),
                HookOutcome::Interrupted => break,
            }
        }
        notes
    }
}

/// Runs one hook with `input` on its stdin.
async fn run_hook(
    spec: &HookSpec,
    event: &str,
    tool: &str,
    input: &Value,
    root: &Path,
    cancel: &CancellationToken,
) -> HookOutcome {
    let name = format!("{event} hook `{}`", spec.command);
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&spec.command)
        .current_dir(root)
        .env("WRIGHT_HOOK_EVENT", event)
        .env("WRIGHT_TOOL", tool)
        .env("WRIGHT_PROJECT_DIR", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return HookOutcome::Failed(format!("the {name} could not be started: {e}")),
    };
    let group = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        let bytes = input.to_string().into_bytes();
        // A hook that does not read its stdin must not stall the call.
        tokio::spawn(async move {
            let _ = stdin.write_all(&bytes).await;
        });
    }
    let stderr = child.stderr.take();
    let read_stderr = async move {
        match stderr {
            Some(stderr) => read_capped(stderr).await,
            None => String::new(),
        }
    };
    let waited = async { tokio::join!(child.wait(), read_stderr) };
    let outcome = tokio::select! {
        (status, stderr) = waited => Some((status, stderr)),
        () = tokio::time::sleep(spec.timeout) => None,
        () = cancel.cancelled() => {
            kill_group(group);
            return HookOutcome::Interrupted;
        }
    };
    match outcome {
        None => {
            kill_group(group);
            HookOutcome::Failed(format!(
                "the {name} did not finish within {} s and was stopped",
                spec.timeout.as_secs_f64()
            ))
        }
        Some((Err(e), _)) => HookOutcome::Failed(format!("the {name} could not be waited on: {e}")),
        Some((Ok(status), _)) if status.success() => HookOutcome::Passed,
        Some((Ok(status), stderr)) => {
            let how = match status.code() {
                Some(code) => format!("exited with {code}"),
                None => "was killed by a signal".to_string(),
            };
            let stderr = stderr.trim();
            let said = if stderr.is_empty() {
                "(it wrote nothing to stderr)".to_string()
            } else {
                stderr.to_string()
            };
            HookOutcome::Failed(format!("the {name} {how}:\n{said}"))
        }
    }
}

/// Up to [`MAX_HOOK_OUTPUT`] bytes of `reader`, read to its end, as text.
async fn read_capped(mut reader: impl AsyncRead + Unpin) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match reader.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = MAX_HOOK_OUTPUT.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..n.min(room)]);
            }
        }
    }
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    if kept.len() >= MAX_HOOK_OUTPUT {
        text.push_str("\n[… cut]");
    }
    text
}

/// Kills the process group a hook leads, with everything it started.
fn kill_group(group: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = group.and_then(|pid| i32::try_from(pid).ok()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    #[cfg(not(unix))]
    let _ = group;
}

#[cfg(test)]
mod tests;
