//! The Bash tool: one `bash -c` in its own process group, bounded by a timeout and Ctrl-C.
//!
//! Before it runs, the command goes through the dangerous-command checker ([`wright_checker`]);
//! a refused command never starts, and the model is told why and what to do instead; one the
//! checker asks about runs only if the user allows it.
//!
//! The command runs in a new process group that dies with wright ([`crate::process_group`]),
//! so the terminal's Ctrl-C does not reach it and the whole group — grandchildren included —
//! can be stopped at once: on timeout (SIGTERM, then SIGKILL after [`TERM_GRACE`]), on
//! cancellation (SIGKILL), when the command ends (SIGKILL to whatever it left in the
//! background, after [`OUTPUT_GRACE`]) and when the future is dropped. The call ends when
//! bash exits: what it left running in the background cannot hold it until the timeout.
//!
//! On Linux the command is confined by the context's sandbox ([`crate::sandbox`]): it may write
//! only to the project, the extra roots, the temporary directory and the configured paths, and
//! the network can be off. Where that is not possible the first result says so, once. Around
//! each command the guard ([`crate::guard`]) undoes what the sandbox cannot stop: protected
//! paths created or swapped by the command, or by what it left running.
//!
//! In a read-only context (plan mode, read-only agents; [`ToolContext::with_read_only`]) only
//! commands [`wright_checker::read_only`] judges read-only run — as reads, without approval —
//! and the sandbox lets them write nothing but the temporary directory.

use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::time::Instant;
use wright_checker::Decision;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::args::{invalid, parse_args, schema_of};
use crate::data::{BashData, to_value};
use crate::guard::{self, Moment};
use crate::process_group;
use crate::{Concern, Prepared, SandboxStatus, Tool, ToolContext, ToolKind, error_result, failure};

/// The environment variables that can hold a provider key, none of which a command is given
/// (issue 12). wright reads its key from one of them (`wright-cli`'s settings).
pub const PROVIDER_KEY_VARIABLES: [&str; 3] =
    ["WRIGHT_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/// Timeout when the model gives none.
const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Longest timeout the model may ask for; larger values are clamped (and the model told).
const MAX_TIMEOUT_MS: u64 = 600_000;
/// Characters of each stream shown; beyond this the middle is cut.
pub(crate) const MAX_STREAM_CHARS: usize = 30_000;
/// Characters kept from each end of a stream that is cut.
const KEPT_CHARS_EACH_END: usize = MAX_STREAM_CHARS / 2;
/// Bytes kept from each end of a stream while it runs: enough for [`KEPT_CHARS_EACH_END`]
/// characters of up to 4 bytes, so `yes` cannot fill the memory.
const KEPT_BYTES_EACH_END: usize = KEPT_CHARS_EACH_END * 4;
/// How long a timed-out group has between SIGTERM and SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(2);
/// How long a command's background processes may keep writing once bash has exited: the step
/// ends then, whether or not they are done (a server started with `&` would hold the pipes
/// open until the timeout), and what is still running in the group is killed.
pub(crate) const OUTPUT_GRACE: Duration = Duration::from_millis(200);
/// How long to keep reading once the group is gone: a process that left the group (`setsid`)
/// may still hold the pipes open.
pub(crate) const DRAIN_TIMEOUT: Duration = Duration::from_millis(500);
/// Bytes read from a pipe at a time.
const READ_CHUNK: usize = 8 * 1024;

const SHAPE: &str = r#"{"command": string, "timeout_ms"?: integer, "description"?: string, "run_in_background"?: boolean}"#;

/// Runs a shell command in the project root and reports exit code, stdout and stderr.
#[derive(Debug, Clone, Copy, Default)]
pub struct BashTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct BashArgs {
    command: String,
    timeout_ms: Option<u64>,
    /// Accepted but unused: a few words for the user's display, read by the caller.
    #[allow(dead_code)]
    description: Option<String>,
    /// Start the command and return at once with a job id; read its output with BashOutput.
    #[serde(default)]
    run_in_background: bool,
}

impl Tool for BashTool {
    /// In a read-only context Bash runs only commands judged read-only, confined so that they
    /// write nothing (see the module documentation).
    fn usable_read_only(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "Bash"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/bash.md")
    }

    fn schema(&self) -> Value {
        schema_of::<BashArgs>()
    }

    /// Reads the arguments and runs the dangerous-command checker (issue 6), before every
    /// command whatever the approval mode, and before anyone is asked about it.
    fn prepare(&self, args: Value, ctx: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: BashArgs = parse_args("Bash", args, SHAPE)?;
        if args.command.trim().is_empty() {
            return Err(invalid("Bash", "`command` is empty", SHAPE));
        }
        let verdict =
            wright_checker::check(&args.command, ctx.root(), ctx.home(), ctx.command_policy());
        let concern = match verdict.decision {
            Decision::Allow => None,
            Decision::Ask => Some(Concern {
                rule: verdict.rule.to_string(),
                reason: verdict.reason.clone(),
                refusal: verdict.refusal_message(),
            }),
            Decision::Refuse => {
                return Err(failure(ErrorCode::Refused, verdict.refusal_message()));
            }
        };
        if ctx.is_read_only() {
            wright_checker::read_only(&args.command).map_err(|why| {
                failure(
                    ErrorCode::Refused,
                    format!(
                        "only read-only commands run here (plan mode or a read-only agent), and \
                         this one may not be: {why}. Propose the change in your answer instead."
                    ),
                )
            })?;
        }
        // A read-only command runs as a read, unless a check wants the user asked, or the
        // sandbox cannot hold it to reading (the judgement alone is not trusted that far).
        let read = ctx.is_read_only()
            && concern.is_none()
            && matches!(ctx.sandbox().status(), SandboxStatus::Confined);
        Ok(Box::new(BashCall {
            args,
            concern,
            read,
        }))
    }
}

/// A checked command, ready to be shown and run.
struct BashCall {
    args: BashArgs,
    concern: Option<Concern>,
    /// Whether it runs as a read: judged read-only in a read-only context (issue 14).
    read: bool,
}

impl Prepared for BashCall {
    fn kind(&self) -> Option<ToolKind> {
        self.read.then_some(ToolKind::Read)
    }

    fn concern(&self) -> Option<&Concern> {
        self.concern.as_ref()
    }

    /// The command, exactly as it would run.
    fn preview<'a>(&'a mut self, _: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
        Box::pin(std::future::ready(Some(self.args.command.clone())))
    }

    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { bash(self.args, ctx).await.unwrap_or_else(error_result) })
    }
}

/// How the wait for the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Exited,
    TimedOut,
    Cancelled,
}

async fn bash(args: BashArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    // The dangerous-command checker has run already, when the call was prepared.
    if args.run_in_background {
        let timeout = match args.timeout_ms {
            Some(0) => return Err(invalid("Bash", "`timeout_ms` must be at least 1", SHAPE)),
            ms => ms.map(Duration::from_millis),
        };
        return crate::background::start(args.command, timeout, ctx).await;
    }
    let mut notes = Vec::new();
    let timeout_ms = match args.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS) {
        0 => return Err(invalid("Bash", "`timeout_ms` must be at least 1", SHAPE)),
        ms if ms > MAX_TIMEOUT_MS => {
            notes.push(format!(
                "Note: timeout_ms {ms} is above the maximum of {MAX_TIMEOUT_MS}; the command ran \
                 with {MAX_TIMEOUT_MS}."
            ));
            MAX_TIMEOUT_MS
        }
        ms => ms,
    };
    let run = run_confined(&args.command, Duration::from_millis(timeout_ms), ctx).await?;
    notes.extend(run.notes_before);
    let status_line = run
        .exit
        .as_ref()
        .map_or_else(|| "Exit code: unknown".to_string(), |e| e.line.clone());
    let report = format!(
        "{status_line}\n{}\n{}",
        section("stdout", &run.stdout),
        section("stderr", &run.stderr)
    );
    let hint = sandbox_hint(ctx.sandbox(), &run.stderr, ctx.is_read_only());
    let mut result = match run.end {
        End::Exited => ToolResult::success("", Value::Null),
        End::TimedOut => ToolResult::error(
            ErrorCode::Timeout,
            format!(
                "the command did not finish within {timeout_ms} ms and was stopped, with every \
                 process it started; its output so far is below"
            ),
        ),
        End::Cancelled => ToolResult::error(
            ErrorCode::Interrupted,
            "the command was interrupted by the user and stopped; its output so far is below",
        ),
    };
    result.data = to_value(&BashData {
        command: args.command,
        exit_code: run.exit.as_ref().and_then(|e| e.code),
        signal: run.exit.and_then(|e| e.signal),
        stdout: run.stdout,
        stderr: run.stderr,
        stdout_chars: run.stdout_chars,
        stderr_chars: run.stderr_chars,
        timed_out: run.end == End::TimedOut,
        job_id: None,
    });
    if run.end != End::Exited {
        notes.push(result.text);
    }
    notes.push(report);
    notes.extend(run.notes_after);
    notes.extend(hint);
    result.text = notes.join("\n");
    Ok(result)
}

/// A command from the settings (a `[checks]` entry, issue 13) run exactly as a Bash call
/// runs: `bash -c` in the project root, confined by the context's sandbox, guarded, in a
/// process group of its own that is stopped on timeout and on Ctrl-C, without provider keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    /// Its exit code (128 + the signal's number when a signal killed it); `None` when it
    /// did not exit on its own.
    pub exit_code: Option<i32>,
    /// Whether it ran past its timeout and was stopped.
    pub timed_out: bool,
    /// Whether the user interrupted it (the context's Ctrl-C token fired).
    pub interrupted: bool,
    /// Its standard output followed by its standard error, each cut in the middle like Bash
    /// output when very long.
    pub output: String,
    /// What the model should be told besides the output: the sandbox's first note, what the
    /// guard moved aside.
    pub notes: Vec<String>,
}

impl CommandRun {
    /// Whether it exited 0.
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.interrupted
    }
}

/// Runs `command` the way the Bash tool runs one, bounded by `timeout`; see [`CommandRun`].
/// Fails when it could not be confined or started, with the error a Bash call would give.
pub async fn run_confined_command(
    command: &str,
    timeout: Duration,
    ctx: &ToolContext,
) -> Result<CommandRun, ToolError> {
    let run = run_confined(command, timeout, ctx).await?;
    let output = match (run.stdout.is_empty(), run.stderr.is_empty()) {
        (false, false) if !run.stdout.ends_with('\n') => format!("{}\n{}", run.stdout, run.stderr),
        _ => format!("{}{}", run.stdout, run.stderr),
    };
    Ok(CommandRun {
        exit_code: run.exit.and_then(|e| e.code),
        timed_out: run.end == End::TimedOut,
        interrupted: run.end == End::Cancelled,
        output,
        notes: run
            .notes_before
            .into_iter()
            .chain(run.notes_after)
            .collect(),
    })
}

/// A command that ran: how the wait ended, its exit, its output and the notes from before and
/// after it.
struct Run {
    end: End,
    exit: Option<ExitReport>,
    stdout: String,
    stderr: String,
    stdout_chars: usize,
    stderr_chars: usize,
    notes_before: Vec<String>,
    notes_after: Vec<String>,
}

/// A command just started by [`start_confined`]: bash, its process group, and the notes from
/// before it (the guard's, the sandbox's first).
pub(crate) struct Started {
    pub(crate) child: Child,
    pub(crate) group: process_group::ProcessGroup,
    pub(crate) notes: Vec<String>,
}

/// Starts `command_text` with `bash -c` in the project root, confined by the context's sandbox,
/// in a process group of its own, its output going to `stdout` and `stderr`, without provider
/// keys; what the guard finds changed since the last command is undone first.
pub(crate) async fn start_confined(
    command_text: &str,
    ctx: &ToolContext,
    stdout: Stdio,
    stderr: Stdio,
) -> Result<Started, ToolError> {
    // What changed since the last command returned is undone before this one is confined.
    let mut notes = guard::check(ctx, Moment::BeforeCommand);

    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(command_text)
        .current_dir(ctx.root())
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .kill_on_drop(true)
        // Nothing can answer a prompt or page output: make git and friends not try.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat");
    // Provider keys are for wright; a command has no use for them (issue 12).
    for name in PROVIDER_KEY_VARIABLES {
        command.env_remove(name);
    }
    let sandbox = ctx.sandbox();
    sandbox
        .confine(&mut command, &ctx.writable_roots(), &ctx.protected_paths())
        .map_err(|err| {
            failure(
                ErrorCode::Io,
                format!("the command was not run because it could not be confined: {err}"),
            )
        })?;
    let (child, group) = process_group::spawn(command).await.map_err(|err| {
        let confined = match sandbox.policy().enabled {
            true => " in its sandbox",
            false => "",
        };
        failure(
            ErrorCode::Io,
            format!("could not start bash{confined}: {err}"),
        )
    })?;
    if let Some(note) = sandbox.first_note() {
        notes.push(format!("Note: {note}."));
    }
    Ok(Started {
        child,
        group,
        notes,
    })
}

/// Runs `command_text` with `bash -c`, confined and guarded, until it exits, `timeout` passes
/// or the user interrupts.
async fn run_confined(
    command_text: &str,
    timeout: Duration,
    ctx: &ToolContext,
) -> Result<Run, ToolError> {
    let Started {
        child,
        mut group,
        notes,
    } = start_confined(command_text, ctx, Stdio::piped(), Stdio::piped()).await?;
    let mut running = Running::new(child, Streams::default());

    let deadline = Instant::now() + timeout;
    let cancel = ctx.cancellation();
    let end = loop {
        if running.status.is_some() {
            break End::Exited;
        }
        tokio::select! {
            () = running.step() => {}
            () = tokio::time::sleep_until(deadline) => break End::TimedOut,
            () = cancel.cancelled() => break End::Cancelled,
        }
    };
    match end {
        End::Exited => {
            let _ = tokio::time::timeout(OUTPUT_GRACE, running.finish()).await;
        }
        End::TimedOut => {
            group.terminate();
            let _ = tokio::time::timeout(TERM_GRACE, running.finish()).await;
        }
        End::Cancelled => {}
    }
    // Whatever is still in the group is killed: leftovers of a finished command, a timed-out
    // group that ignored SIGTERM, or everything at once on Ctrl-C.
    group.kill();
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, running.finish()).await;
    let notes_after = guard::check(ctx, Moment::AfterCommand);
    let (stdout, stdout_chars) = running.sink.out.shown();
    let (stderr, stderr_chars) = running.sink.err.shown();
    Ok(Run {
        end,
        exit: running.status.as_ref().map(describe_exit),
        stdout,
        stderr,
        stdout_chars,
        stderr_chars,
        notes_before: notes,
        notes_after,
    })
}

/// What to tell the model when a confined command failed the way the sandbox makes commands
/// fail, so it asks the user instead of working around the sandbox.
fn sandbox_hint(
    sandbox: &crate::sandbox::Sandbox,
    stderr: &str,
    read_only: bool,
) -> Option<String> {
    let confining = sandbox.policy().enabled
        && matches!(
            sandbox.status(),
            crate::SandboxStatus::Confined | crate::SandboxStatus::Partial { .. }
        );
    // The last three are how a protected path refuses: git renames `config.lock` over the
    // bound `.git/config` ("Device or resource busy") and says it "could not lock config file".
    let write_denied = [
        "Permission denied",
        "Read-only file system",
        "Device or resource busy",
        "could not lock config file",
        "Invalid cross-device link",
    ]
    .iter()
    .any(|sign| stderr.contains(sign));
    let network_denied = !sandbox.policy().network && stderr.contains("Operation not permitted");
    if !confining || !(write_denied || network_denied) {
        return None;
    }
    if read_only {
        return Some(
            "Note: in plan mode and read-only agents commands may write only to the temporary \
             directory. Do not work around it: propose the change in your answer."
                .to_string(),
        );
    }
    let network = if sandbox.policy().network {
        ""
    } else {
        ", and may not use the network (`[sandbox] network = false`)"
    };
    Some(format!(
        "Note: commands run in a sandbox: they may write only inside the project, the temporary \
         directory and the paths in `[sandbox] writable`{network}, and never to git's settings \
         and hooks (.git/config, .git/hooks, so `git config`, `git remote add`, `git branch -m` \
         and `git submodule update --init` fail) or wright's own files (.wright/). If this \
         command needs more, do not work around it: tell the user what it needs, which they can \
         allow in .wright/config.toml or do themselves."
    ))
}

/// `<stdout>\n...\n</stdout>`, or `<stdout></stdout>` when empty.
pub(crate) fn section(name: &str, text: &str) -> String {
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        format!("<{name}></{name}>")
    } else {
        format!("<{name}>\n{text}\n</{name}>")
    }
}

/// A finished command's exit, for data and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExitReport {
    /// The exit code; for a signal, 128 + its number, as shells report it.
    pub(crate) code: Option<i32>,
    /// The name of the signal that killed bash, e.g. `SIGKILL`.
    pub(crate) signal: Option<String>,
    /// `Exit code: 137 (killed by signal SIGKILL)`.
    pub(crate) line: String,
}

pub(crate) fn describe_exit(status: &Result<ExitStatus, String>) -> ExitReport {
    let status = match status {
        Ok(status) => status,
        Err(err) => {
            return ExitReport {
                code: None,
                signal: None,
                line: format!("Exit code: unknown ({err})"),
            };
        }
    };
    if let Some(code) = status.code() {
        return ExitReport {
            code: Some(code),
            signal: None,
            line: format!("Exit code: {code}"),
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(number) = status.signal() {
            let name = nix::sys::signal::Signal::try_from(number)
                .map_or_else(|_| format!("signal {number}"), |s| s.as_str().to_string());
            return ExitReport {
                code: Some(128 + number),
                signal: Some(name.clone()),
                line: format!("Exit code: {} (killed by {name})", 128 + number),
            };
        }
    }
    ExitReport {
        code: None,
        signal: None,
        line: format!("Exit code: unknown ({status})"),
    }
}

/// Where a running command's output goes.
pub(crate) trait OutputSink {
    /// A chunk of standard output.
    fn stdout(&mut self, bytes: &[u8]);
    /// A chunk of standard error.
    fn stderr(&mut self, bytes: &[u8]);
}

/// A Bash call's two streams, each kept apart in bounded memory.
#[derive(Debug, Default)]
struct Streams {
    out: Capture,
    err: Capture,
}

impl OutputSink for Streams {
    fn stdout(&mut self, bytes: &[u8]) {
        self.out.push(bytes);
    }
    fn stderr(&mut self, bytes: &[u8]) {
        self.err.push(bytes);
    }
}

/// The reading end of a command's output pipe.
pub(crate) type Pipe = Box<dyn AsyncRead + Send + Unpin>;

/// A command while it runs: its pipes (`None` once closed), where their output goes, and its
/// exit.
pub(crate) struct Running<S> {
    child: Child,
    stdout: Option<Pipe>,
    stderr: Option<Pipe>,
    pub(crate) sink: S,
    /// Set once bash exited (or waiting for it failed).
    pub(crate) status: Option<Result<ExitStatus, String>>,
}

impl<S: OutputSink> Running<S> {
    /// `child` (whose pipes are taken) with its output going to `sink`.
    pub(crate) fn new(mut child: Child, sink: S) -> Self {
        Self {
            stdout: child.stdout.take().map(|pipe| Box::new(pipe) as Pipe),
            stderr: child.stderr.take().map(|pipe| Box::new(pipe) as Pipe),
            child,
            sink,
            status: None,
        }
    }

    /// `child`, whose output comes through `output` alone (stdout and stderr on one pipe),
    /// with that output going to `sink` as stdout.
    pub(crate) fn merged(child: Child, output: Pipe, sink: S) -> Self {
        Self {
            stdout: Some(output),
            stderr: None,
            child,
            sink,
            status: None,
        }
    }

    /// Waits for the next event: a chunk of output, a closed pipe, or bash's exit. Cancel-safe:
    /// reading a pipe and waiting for a child lose nothing when dropped.
    pub(crate) async fn step(&mut self) {
        let mut out_buf = [0; READ_CHUNK];
        let mut err_buf = [0; READ_CHUNK];
        tokio::select! {
            n = read_some(&mut self.stdout, &mut out_buf) => match n {
                0 => self.stdout = None,
                n => self.sink.stdout(&out_buf[..n]),
            },
            n = read_some(&mut self.stderr, &mut err_buf) => match n {
                0 => self.stderr = None,
                n => self.sink.stderr(&err_buf[..n]),
            },
            status = self.child.wait(), if self.status.is_none() => {
                self.status = Some(status.map_err(|err| err.to_string()));
            }
        }
    }

    /// Reads until bash has exited and both pipes are closed.
    pub(crate) async fn finish(&mut self) {
        while self.status.is_none() || self.stdout.is_some() || self.stderr.is_some() {
            self.step().await;
        }
    }
}

/// Reads what is there; 0 means the pipe is closed (or broke). Never resolves for `None`.
async fn read_some<R: AsyncRead + Unpin>(pipe: &mut Option<R>, buf: &mut [u8]) -> usize {
    match pipe {
        Some(pipe) => pipe.read(buf).await.unwrap_or(0),
        None => std::future::pending().await,
    }
}

/// One output stream, in bounded memory: the first and the last [`KEPT_BYTES_EACH_END`] bytes,
/// which is all that is shown once the stream is cut.
#[derive(Debug, Default)]
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total_bytes: usize,
    /// Characters seen, counted as UTF-8 lead bytes (exact for valid UTF-8).
    chars: usize,
}

impl Capture {
    fn push(&mut self, mut bytes: &[u8]) {
        self.total_bytes += bytes.len();
        self.chars += bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        let room = KEPT_BYTES_EACH_END.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        bytes = rest;
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(KEPT_BYTES_EACH_END);
        self.tail.drain(..excess);
    }

    /// The text to show (cut in the middle beyond [`MAX_STREAM_CHARS`]) and the stream's
    /// length in characters. Undecodable bytes are shown as U+FFFD.
    fn shown(&self) -> (String, usize) {
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if self.total_bytes == self.head.len() + tail.len() {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            let text = String::from_utf8_lossy(&all);
            let chars = text.chars().count();
            return (cut_middle(&text, chars), chars);
        }
        // Bytes were dropped in the middle, so the stream is far over the limit.
        let head = String::from_utf8_lossy(&self.head);
        let head: String = head.chars().take(KEPT_CHARS_EACH_END).collect();
        let tail = String::from_utf8_lossy(&tail);
        let skip = tail.chars().count().saturating_sub(KEPT_CHARS_EACH_END);
        let tail: String = tail.chars().skip(skip).collect();
        let kept = head.chars().count() + tail.chars().count();
        let cut = self.chars.saturating_sub(kept);
        (format!("{head}{}{tail}", cut_marker(cut)), self.chars)
    }
}

/// `text` (of `chars` characters) as it is, or its first and last [`KEPT_CHARS_EACH_END`]
/// characters around a marker saying how many were cut.
pub(crate) fn cut_middle(text: &str, chars: usize) -> String {
    if chars <= MAX_STREAM_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(KEPT_CHARS_EACH_END).collect();
    let tail: String = text.chars().skip(chars - KEPT_CHARS_EACH_END).collect();
    format!("{head}{}{tail}", cut_marker(chars - MAX_STREAM_CHARS))
}

fn cut_marker(cut: usize) -> String {
    format!("\n… [{cut} characters cut] …\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn short_output_is_shown_whole() {
        let mut capture = Capture::default();
        capture.push("héllo\n".as_bytes());
        assert_eq!(capture.shown(), ("héllo\n".to_string(), 6));
    }

    #[test]
    fn output_at_the_limit_is_not_cut() {
        let mut capture = Capture::default();
        capture.push("a".repeat(MAX_STREAM_CHARS).as_bytes());
        assert_eq!(capture.shown().0.len(), MAX_STREAM_CHARS);
    }

    #[test]
    fn long_output_keeps_head_and_tail_around_a_marker() {
        let text = format!(
            "{}{}{}",
            "h".repeat(20_000),
            "m".repeat(5_000),
            "t".repeat(20_000)
        );
        let mut capture = Capture::default();
        capture.push(text.as_bytes());
        let expected = format!(
            "{}\n… [15000 characters cut] …\n{}",
            "h".repeat(15_000),
            "t".repeat(15_000)
        );
        assert_eq!(capture.shown(), (expected, 45_000));
    }

    #[test]
    fn huge_output_is_cut_the_same_way_in_bounded_memory() {
        let mut capture = Capture::default();
        capture.push(b"first line\n");
        for _ in 0..1_000 {
            capture.push(&[b'y'; 1_000]);
        }
        capture.push(b"\nlast line");
        assert!(capture.head.len() + capture.tail.len() <= 2 * KEPT_BYTES_EACH_END);
        let (shown, chars) = capture.shown();
        assert_eq!(chars, 1_000_021);
        assert!(shown.starts_with("first line\nyyy"));
        assert!(shown.ends_with("yyy\nlast line"));
        assert!(shown.contains("\n… [970021 characters cut] …\n"));
        assert_eq!(
            shown.chars().count(),
            MAX_STREAM_CHARS + cut_marker(970_021).chars().count()
        );
    }

    #[test]
    fn multibyte_output_is_cut_on_char_boundaries() {
        // The leading "x" puts a two-byte "é" across the end of the kept head.
        let mut capture = Capture::default();
        capture.push(format!("x{}", "é".repeat(100_000)).as_bytes());
        let (shown, chars) = capture.shown();
        assert_eq!(chars, 100_001);
        assert!(!shown.contains('\u{FFFD}'));
        assert!(shown.contains("[70001 characters cut]"));
    }

    #[test]
    fn sections_have_clear_ends_and_drop_one_trailing_newline() {
        assert_eq!(section("stdout", "a\nb\n"), "<stdout>\na\nb\n</stdout>");
        assert_eq!(section("stderr", ""), "<stderr></stderr>");
    }

    #[cfg(unix)]
    #[test]
    fn signal_exit_is_reported_like_a_shell() {
        use std::os::unix::process::ExitStatusExt;
        let report = describe_exit(&Ok(ExitStatus::from_raw(9)));
        assert_eq!(
            report,
            ExitReport {
                code: Some(137),
                signal: Some("SIGKILL".into()),
                line: "Exit code: 137 (killed by SIGKILL)".into(),
            }
        );
    }
}
