//! One-line summaries of tool results, for the `tool_result` event and the terminal.

use wright_protocol::text::{self, first_line};
use wright_protocol::{JobStatus, ToolResult};
use wright_tools::data::ToolData;

/// Longest summary line, in characters.
const MAX_SUMMARY_CHARS: usize = 120;

/// A one-line account of a result of `tool`: the error, or what the tool's data says it did.
pub fn result_summary(tool: &str, result: &ToolResult) -> String {
    if let Some(error) = &result.error {
        return clip(&format!("{}: {}", error.code, first_line(&error.message)));
    }
    match ToolData::of(tool, &result.data) {
        Some(ToolData::Bash(bash)) if bash.job_id.is_some() => {
            format!(
                "started {} in the background",
                bash.job_id.unwrap_or_default()
            )
        }
        Some(ToolData::Job(job)) => {
            let status = match (job.status, job.exit_code) {
                (JobStatus::Exited, Some(code)) => format!("exited {code}"),
                (status, _) => status.to_string(),
            };
            let lines = job.output.lines().count();
            clip(&format!("{} {status}, {lines} lines of output", job.id))
        }
        Some(ToolData::Bash(bash)) => {
            let exit = match bash.exit_code {
                Some(code) => format!("exit {code}"),
                None => "killed by a signal".to_string(),
            };
            let lines = bash.stdout.lines().count() + bash.stderr.lines().count();
            format!("{exit}, {lines} lines of output")
        }
        Some(ToolData::Read(read)) => {
            format!(
                "{} of {} lines",
                read.content.lines().count(),
                read.total_lines
            )
        }
        _ => clip(first_line(&result.text)),
    }
}

fn clip(text: &str) -> String {
    text::clip(text, MAX_SUMMARY_CHARS).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use wright_protocol::ErrorCode;

    #[test]
    fn error_summary_names_code_and_first_line() {
        let result = ToolResult::error(ErrorCode::NotFound, "no file a.rs\nmore detail");
        assert_eq!(result_summary("Read", &result), "not_found: no file a.rs");
    }

    #[test]
    fn bash_summary_gives_exit_code_and_output_size() {
        let result = ToolResult::success(
            "x",
            json!({"exit_code": 1, "stdout": "a\nb\n", "stderr": "c\n"}),
        );
        assert_eq!(result_summary("Bash", &result), "exit 1, 3 lines of output");
    }

    #[test]
    fn background_summaries_give_the_job_and_how_it_stands() {
        let started = ToolResult::success("x", json!({"command": "make", "job_id": "b1"}));
        assert_eq!(
            result_summary("Bash", &started),
            "started b1 in the background"
        );
        let output = ToolResult::success(
            "x",
            json!({"id": "b1", "status": "exited", "exit_code": 2, "output": "a\nb\n"}),
        );
        assert_eq!(
            result_summary("BashOutput", &output),
            "b1 exited 2, 2 lines of output"
        );
    }

    #[test]
    fn read_summary_gives_lines_shown_of_total() {
        let result = ToolResult::success(
            "x",
            json!({"total_lines": 10, "content": "     1\ta\n     2\tb\n"}),
        );
        assert_eq!(result_summary("Read", &result), "2 of 10 lines");
    }

    #[test]
    fn long_first_lines_are_clipped() {
        let result = ToolResult::success("y".repeat(500), Value::Null);
        assert_eq!(
            result_summary("Glob", &result).chars().count(),
            MAX_SUMMARY_CHARS + 1
        );
    }
}
