//! The reminder that a background command ended (issue 14).
//!
//! When a job (Bash `run_in_background`) has ended and the model has not been told — by
//! BashOutput or KillBash — the next request says so once: the job's id, command, how it
//! ended and its last lines ([`wright_tools::job_reminder`]).
//!
//! The reminder is made part of what is stored, never added to one request's tail alone, so
//! that every later request repeats it byte for byte and the provider's prompt cache keeps
//! covering it:
//!
//! - a job that ended while a step's tool ran (or while the model wrote that step) is told
//!   with that step's observation: the note ends the full observation the scratchpad keeps,
//!   and the step's history form carries the same jobs (`jobs_ended`, shortened like Bash
//!   output: spec A3) in the tool message written at once;
//! - a job that ended between rounds (or during a step whose reply was the answer) is told
//!   with the next round's input: the note ends the user message the round opens with, which
//!   history stores as it is.
//!
//! A step whose reply could not be read or that the user interrupted tells nothing: the jobs
//! wait for the next step or round. The last lines are masked like every tool result.

use wright_protocol::{JobEnded, ToolResult};

use super::Agent;

impl Agent {
    /// The background jobs that ended and that the model has not been told of, now counted
    /// as told, their output masked.
    pub(super) fn take_ended_jobs(&self) -> Vec<JobEnded> {
        let masker = self.tools.masker();
        self.ctx
            .jobs()
            .take_ended()
            .into_iter()
            .map(|mut job| {
                job.last_lines = masker.mask(&job.last_lines).into_owned();
                job
            })
            .collect()
    }
}

/// Tells `ended` with a step's result: the note after its observation, the jobs in its
/// history form.
pub(super) fn tell_with_result(result: &mut ToolResult, ended: Vec<JobEnded>) {
    if ended.is_empty() {
        return;
    }
    result.text.push_str("\n\n");
    result.text.push_str(&wright_tools::job_reminder(&ended));
    result.jobs_ended = ended;
}

/// Tells `ended` with a round's input: the note after it.
pub(super) fn tell_with_input(input: &mut String, ended: &[JobEnded]) {
    if ended.is_empty() {
        return;
    }
    input.push_str("\n\n");
    input.push_str(&wright_tools::job_reminder(ended));
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use wright_protocol::JobStatus;

    fn ended() -> Vec<JobEnded> {
        vec![JobEnded {
            id: "b1".into(),
            command: "make".into(),
            status: JobStatus::Exited,
            exit_code: Some(0),
            last_lines: "done".into(),
        }]
    }

    #[test]
    fn nothing_ended_changes_nothing() {
        let mut result = ToolResult::success("out", serde_json::Value::Null);
        tell_with_result(&mut result, Vec::new());
        assert_eq!(result, ToolResult::success("out", serde_json::Value::Null));
        let mut input = "hi".to_string();
        tell_with_input(&mut input, &[]);
        assert_eq!(input, "hi");
    }

    #[test]
    fn the_note_follows_the_observation_and_the_jobs_go_to_history() {
        let mut result = ToolResult::success("out", serde_json::Value::Null);
        tell_with_result(&mut result, ended());
        assert_eq!(
            result.text,
            format!("out\n\n{}", wright_tools::job_reminder(&ended()))
        );
        let stored = wright_tools::compress_to_string("Read", &result);
        assert!(stored.contains(r#""jobs_ended":[{"id":"b1""#), "{stored}");
    }

    #[test]
    fn the_note_follows_the_input() {
        let mut input = "next".to_string();
        tell_with_input(&mut input, &ended());
        assert_eq!(
            input,
            format!("next\n\n{}", wright_tools::job_reminder(&ended()))
        );
    }
}
