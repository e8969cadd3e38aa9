//! The tools that reach a background job (issue 14): BashOutput reads what it printed since
//! the last read, KillBash stops it.

use std::time::Duration;

use futures::future::BoxFuture;
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::{ErrorCode, JobStatus, ToolError, ToolResult};

use super::{Job, Look};
use crate::args::{parse_args, schema_of};
use crate::bash::{DRAIN_TIMEOUT, MAX_STREAM_CHARS, TERM_GRACE, cut_middle, section};
use crate::data::{JobData, to_value};
use crate::guard::{self, Moment};
use crate::{Prepared, Tool, ToolContext, ToolKind, error_result, failure};

/// Lines of a killed job's output KillBash reports.
const KILL_REPORT_LINES: usize = 20;
/// How long KillBash waits for a job to end: its SIGTERM grace, then the SIGKILL and the last
/// read of its pipes, with room to spare.
const KILL_WAIT: Duration = TERM_GRACE
    .saturating_add(DRAIN_TIMEOUT)
    .saturating_add(Duration::from_secs(3));

const OUTPUT_SHAPE: &str = r#"{"id": string, "filter"?: string}"#;
const KILL_SHAPE: &str = r#"{"id": string}"#;

/// Shows what a background job printed since the last look, and whether it still runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct BashOutputTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct BashOutputArgs {
    /// The job's id, as Bash gave it (`b1`).
    id: String,
    /// A regular expression: only the new lines that match it are shown (the others are
    /// read all the same).
    filter: Option<String>,
}

impl Tool for BashOutputTool {
    fn name(&self) -> &'static str {
        "BashOutput"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../../prompts/tools/bash_output.md")
    }

    fn schema(&self) -> Value {
        schema_of::<BashOutputArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: BashOutputArgs = parse_args("BashOutput", args, OUTPUT_SHAPE)?;
        let filter = match &args.filter {
            None => None,
            Some(pattern) => Some(Regex::new(pattern).map_err(|err| {
                failure(
                    ErrorCode::InvalidPattern,
                    format!("the filter {pattern:?} is not a valid regular expression: {err}"),
                )
            })?),
        };
        Ok(Box::new(BashOutputCall {
            id: args.id,
            filter,
        }))
    }
}

struct BashOutputCall {
    id: String,
    filter: Option<Regex>,
}

impl Prepared for BashOutputCall {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { bash_output(*self, ctx).unwrap_or_else(error_result) })
    }
}

fn bash_output(call: BashOutputCall, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let job = ctx.jobs().find(&call.id)?;
    let mut notes = guard::check(ctx, Moment::BeforeCommand);
    let Look { mut data, unread } = job.look(true, 0);
    let text = match &call.filter {
        None => unread.text,
        Some(filter) => matching_lines(&unread.text, filter),
    };
    let chars = text.chars().count();
    let shown = cut_middle(&text, chars);
    let mut lines = vec![headline(&data)];
    if unread.dropped_bytes > 0 {
        lines.push(format!(
            "Note: {} bytes it printed since you last looked were dropped before you could \
             read them: a job keeps only its last {} MiB of output.",
            unread.dropped_bytes,
            super::MAX_JOB_OUTPUT_BYTES >> 20
        ));
    }
    if let Some(filter) = &call.filter {
        lines.push(format!(
            "Only the new lines matching {:?} are shown; the others are read and will not \
             be shown again.",
            filter.as_str()
        ));
    }
    if chars > MAX_STREAM_CHARS {
        lines.push(format!(
            "The output is cut in the middle beyond {MAX_STREAM_CHARS} characters; a \
             `filter` shows only the lines you need."
        ));
    }
    lines.push(section("output", &shown));
    lines.append(&mut notes);
    data.output = shown;
    data.output_chars = chars;
    data.dropped_bytes = unread.dropped_bytes;
    data.filter = call.filter.map(|f| f.as_str().to_string());
    Ok(ToolResult::success(lines.join("\n"), to_value(&data)))
}

/// The lines of `text` that `filter` matches, each with its line ending.
fn matching_lines(text: &str, filter: &Regex) -> String {
    text.split_inclusive('\n')
        .filter(|line| filter.is_match(line.trim_end_matches(['\n', '\r'])))
        .collect()
}

/// `Job b1 (`npm run dev`) is running (12.3 s).`, or how it ended.
fn headline(data: &JobData) -> String {
    let exit = match (data.exit_code, &data.signal) {
        (Some(code), Some(signal)) => format!("exit code {code}, {signal}"),
        (Some(code), None) => format!("exit code {code}"),
        (None, _) => "exit code unknown".to_string(),
    };
    let secs = data.runtime_secs;
    let how = match (data.status, data.stopped_by.as_deref()) {
        (JobStatus::Running, _) => format!("has been running for {secs:.1} s"),
        (JobStatus::Exited, _) => format!("has exited ({exit}) after {secs:.1} s"),
        (JobStatus::Killed, Some("timeout")) => {
            format!("was stopped at its timeout ({exit}) after {secs:.1} s")
        }
        (JobStatus::Killed, Some("KillBash")) => {
            format!("was stopped by KillBash ({exit}) after {secs:.1} s")
        }
        (JobStatus::Killed, _) => format!("was stopped ({exit}) after {secs:.1} s"),
    };
    format!("Background job {} {how}: `{}`", data.id, data.command)
}

/// Stops a background job and every process it started.
#[derive(Debug, Clone, Copy, Default)]
pub struct KillBashTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct KillBashArgs {
    /// The job's id, as Bash gave it (`b1`).
    id: String,
}

impl Tool for KillBashTool {
    /// Stopping a background command changes no file: a job started while planning can be
    /// stopped there too.
    fn usable_read_only(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "KillBash"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn description(&self) -> &'static str {
        include_str!("../../../../prompts/tools/kill_bash.md")
    }

    fn schema(&self) -> Value {
        schema_of::<KillBashArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: KillBashArgs = parse_args("KillBash", args, KILL_SHAPE)?;
        Ok(Box::new(KillBashCall { id: args.id }))
    }
}

struct KillBashCall {
    id: String,
}

impl Prepared for KillBashCall {
    /// What would be stopped: the job's id and command.
    fn preview<'a>(&'a mut self, ctx: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
        let preview = ctx
            .jobs()
            .find(&self.id)
            .ok()
            .map(|job| format!("stop background job {}: {}", job.id(), job.command()));
        Box::pin(std::future::ready(preview))
    }

    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { kill_bash(&self.id, ctx).await.unwrap_or_else(error_result) })
    }
}

async fn kill_bash(id: &str, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let job: std::sync::Arc<Job> = ctx.jobs().find(id)?;
    let already = job.look(false, 0).data.status != JobStatus::Running;
    if !already {
        job.kill(KILL_WAIT).await;
    }
    let notes = guard::check(ctx, Moment::BeforeCommand);
    let Look { mut data, unread } = job.look(false, KILL_REPORT_LINES);
    let mut lines = vec![match (already, data.status) {
        (true, _) => format!("{} Nothing was stopped.", headline(&data)),
        (false, JobStatus::Running) => format!(
            "{} It was sent SIGTERM, then SIGKILL, and has not ended yet.",
            headline(&data)
        ),
        (false, _) => headline(&data),
    }];
    let last = match unread.text.is_empty() {
        true => "It printed nothing.".to_string(),
        false => format!("Its last lines:\n{}", section("output", &unread.text)),
    };
    lines.push(last);
    lines.extend(notes);
    data.output_chars = unread.text.chars().count();
    data.output = unread.text;
    Ok(ToolResult::success(lines.join("\n"), to_value(&data)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_filter_keeps_matching_lines_with_their_endings() {
        let filter = Regex::new("^error").unwrap();
        assert_eq!(
            matching_lines("ok\nerror: a\nwarn\nerror: b", &filter),
            "error: a\nerror: b"
        );
    }

    #[test]
    fn the_headline_says_how_the_job_stands() {
        let mut data = JobData {
            id: "b2".into(),
            command: "npm run dev".into(),
            runtime_secs: 1.5,
            ..JobData::default()
        };
        assert_eq!(
            headline(&data),
            "Background job b2 has been running for 1.5 s: `npm run dev`"
        );
        data.status = JobStatus::Killed;
        data.exit_code = Some(143);
        data.signal = Some("SIGTERM".into());
        data.stopped_by = Some("KillBash".into());
        assert_eq!(
            headline(&data),
            "Background job b2 was stopped by KillBash (exit code 143, SIGTERM) after 1.5 s: `npm run dev`"
        );
    }
}
