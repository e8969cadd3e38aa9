//! The history form of background jobs (issue 14), short like Bash's (spec A3): BashOutput
//! and KillBash keep the job's id, how it stands and the last lines of what they showed; a
//! job's end reported with a step keeps its id, command (cut), how it ended and its last
//! lines. The command of a BashOutput or KillBash is left out: the Bash call that started the
//! job has it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wright_protocol::JobEnded;

use super::bash::Stream;
use super::{Limits, Lines, Nullable, cut_line, nullable};
use crate::data::{read_object, to_value};

/// The history form of a BashOutput or KillBash ([`crate::data::JobData`] with the output
/// replaced by its line count and last lines).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct JobForm {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    exit_code: Nullable<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dropped_bytes: Option<u64>,
    /// Read to make the tail; history keeps the tail instead.
    #[serde(skip_serializing)]
    output: Option<String>,
    /// History only: lines the output had.
    #[serde(skip_serializing_if = "Option::is_none")]
    output_lines: Option<usize>,
    /// History only: its last lines, when it had any.
    #[serde(skip_serializing_if = "Option::is_none")]
    output_tail: Option<String>,
}

/// BashOutput and KillBash: the job's id, status, exit code, what stopped it, and the last
/// [`Limits::stdout_tail_lines`] lines of the output shown.
pub(super) fn job(data: &Value, limits: &Limits) -> Option<Value> {
    let mut form: JobForm = read_object(data)?;
    let output = Stream {
        text: form.output.take(),
        tail: form.output_tail.take(),
        lines: form.output_lines,
    };
    (form.output_lines, form.output_tail) = output.tail(limits.stdout_tail_lines, limits);
    Some(to_value(&form))
}

/// The jobs' ends with each command cut to [`Limits::command_chars`] and the last lines to
/// [`Limits::stdout_tail_lines`], each line cut to [`Limits::short_line_chars`].
pub(super) fn ended(jobs: &[JobEnded], limits: &Limits) -> Vec<JobEnded> {
    jobs.iter()
        .map(|job| JobEnded {
            command: cut_line(&job.command, limits.command_chars).into_owned(),
            last_lines: Lines::tail(
                &job.last_lines,
                limits.stdout_tail_lines,
                limits.short_line_chars,
            )
            .text,
            ..job.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::{CompressionLevel, compress_with};
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use wright_protocol::{JobStatus, ToolResult};

    fn numbered(lines: usize) -> String {
        (1..=lines).map(|n| format!("line {n}\n")).collect()
    }

    #[test]
    fn bash_output_keeps_the_status_and_the_last_lines() {
        let data = json!({
            "id": "b1", "command": "npm run dev", "status": "running", "exit_code": null,
            "runtime_secs": 3.5, "output": numbered(8), "output_chars": 56,
        });
        let result = ToolResult::success("…", data);
        assert_eq!(
            compress_with("BashOutput", &result, CompressionLevel::Standard)["data"],
            json!({
                "id": "b1", "status": "running", "exit_code": null, "output_lines": 8,
                "output_tail": "line 4\nline 5\nline 6\nline 7\nline 8",
            })
        );
    }

    #[test]
    fn compressing_again_at_the_tight_tier_keeps_the_count_and_fewer_lines() {
        let data = json!({
            "id": "b1", "status": "killed", "exit_code": 143, "stopped_by": "KillBash",
            "output": numbered(8),
        });
        let standard = compress_with(
            "KillBash",
            &ToolResult::success("", data),
            CompressionLevel::Standard,
        );
        let again = ToolResult::success("", standard["data"].clone());
        assert_eq!(
            compress_with("KillBash", &again, CompressionLevel::Tight)["data"],
            json!({
                "id": "b1", "status": "killed", "exit_code": 143, "stopped_by": "KillBash",
                "output_lines": 8, "output_tail": "line 7\nline 8",
            })
        );
    }

    #[test]
    fn a_job_that_printed_nothing_keeps_no_tail() {
        let data = json!({"id": "b3", "status": "exited", "exit_code": 0, "output": ""});
        let result = ToolResult::success("", data);
        assert_eq!(
            compress_with("BashOutput", &result, CompressionLevel::Standard)["data"],
            json!({"id": "b3", "status": "exited", "exit_code": 0, "output_lines": 0})
        );
    }

    #[test]
    fn a_bash_call_started_in_the_background_keeps_its_command_and_job_id() {
        let data = json!({
            "command": "npm run dev", "exit_code": null, "signal": null, "stdout": "",
            "stderr": "", "stdout_chars": 0, "stderr_chars": 0, "timed_out": false,
            "job_id": "b2",
        });
        let result = ToolResult::success("Started background job b2", data);
        assert_eq!(
            compress_with("Bash", &result, CompressionLevel::Standard)["data"],
            json!({"command": "npm run dev", "job_id": "b2"})
        );
    }

    #[test]
    fn ended_jobs_keep_their_last_lines_within_the_limits() {
        let mut result = ToolResult::success("", json!(null));
        result.jobs_ended = vec![JobEnded {
            id: "b1".into(),
            command: format!("echo {}", "x".repeat(300)),
            status: JobStatus::Exited,
            exit_code: Some(0),
            last_lines: numbered(5),
        }];
        let tight = compress_with("Read", &result, CompressionLevel::Tight);
        let job = &tight["jobs_ended"][0];
        assert_eq!(job["last_lines"], "line 4\nline 5");
        assert_eq!(job["status"], "exited");
        assert!(
            job["command"].as_str().unwrap().ends_with("… [+205 chars]"),
            "{job}"
        );
    }
}
