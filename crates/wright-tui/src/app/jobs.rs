//! `/jobs`: the session's background commands (Bash `run_in_background`), one line each.

use std::time::Duration;

use wright_protocol::JobStatus;
use wright_tools::JobInfo;

/// Characters of a command shown; a longer one ends in `…`.
const COMMAND_CHARS: usize = 80;

/// The `/jobs` text: a line per job (id, status, runtime, command), oldest first. Control
/// characters are left to whoever shows it (the notice's lines are cleaned).
pub fn report(jobs: &[JobInfo]) -> String {
    if jobs.is_empty() {
        return "No background commands in this session.".to_string();
    }
    let mut text = String::from("Background commands:\n");
    for job in jobs {
        let status = match (job.status, job.exit_code) {
            (JobStatus::Exited, Some(code)) => format!("exited {code}"),
            (status, _) => status.to_string(),
        };
        let one_line = job.command.replace(['\r', '\n'], " ");
        let command = wright_protocol::text::clip(&one_line, COMMAND_CHARS);
        text.push_str(&format!(
            "  {:<4} {:<10} {:>10}  {command}\n",
            job.id,
            status,
            runtime(job.runtime)
        ));
    }
    text
}

/// `3.2 s` under a minute, `2 min 05 s` under an hour, `1 h 02 min` from there.
fn runtime(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    match secs {
        0..60 => {
            let tenths = elapsed.as_millis() / 100;
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
        60..3600 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs / 60 % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn job(id: &str, status: JobStatus, exit_code: Option<i32>, secs: u64) -> JobInfo {
        JobInfo {
            id: id.into(),
            command: format!("command of {id}"),
            status,
            exit_code,
            runtime: Duration::from_secs(secs),
        }
    }

    #[test]
    fn each_job_has_a_line_with_id_status_runtime_and_command() {
        let jobs = [
            job("b1", JobStatus::Running, None, 3725),
            job("b2", JobStatus::Exited, Some(0), 125),
            job("b3", JobStatus::Killed, Some(143), 2),
        ];
        assert_eq!(
            report(&jobs),
            "Background commands:\n\
             \x20 b1   running    1 h 02 min  command of b1\n\
             \x20 b2   exited 0   2 min 05 s  command of b2\n\
             \x20 b3   killed          2.0 s  command of b3\n"
        );
    }

    #[test]
    fn without_jobs_it_says_so() {
        assert_eq!(report(&[]), "No background commands in this session.");
    }

    #[test]
    fn a_command_is_shown_on_one_line_and_cut() {
        let mut long = job("b1", JobStatus::Running, None, 0);
        long.command = format!("echo one\necho {}", "x".repeat(100));
        let text = report(&[long]);
        let line = text.lines().nth(1).unwrap();
        assert_eq!(text.lines().count(), 2, "{text:?}");
        assert!(line.contains("  echo one echo xxx"), "{line:?}");
        assert!(line.ends_with("x…"), "{line:?}");
    }
}
