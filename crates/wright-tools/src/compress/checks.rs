//! The history form of the `[checks]` that failed after a step (issue 13): like a failed Bash
//! command's, the command (cut), how it ended and the last lines of its output — the first
//! errors a compiler prints are what the model fixes within the round, where it has the whole
//! output; later rounds only need to know that the check failed and roughly why.

use wright_protocol::CheckFailure;

use super::{Limits, Lines, cut_line};

/// Each failure with its command cut to [`Limits::command_chars`] and its output to its last
/// [`Limits::stderr_tail_lines`] lines, each cut to [`Limits::short_line_chars`]. A failure
/// compressed before (its `output_lines` set) keeps its count of lines.
pub(super) fn checks(failures: &[CheckFailure], limits: &Limits) -> Vec<CheckFailure> {
    failures
        .iter()
        .map(|failure| {
            let lines = Lines::tail(
                &failure.output,
                limits.stderr_tail_lines,
                limits.short_line_chars,
            );
            CheckFailure {
                command: cut_line(&failure.command, limits.command_chars).into_owned(),
                exit_code: failure.exit_code,
                timed_out: failure.timed_out,
                output: lines.text,
                output_lines: Some(failure.output_lines.unwrap_or(lines.total)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::CompressionLevel;
    use pretty_assertions::assert_eq;

    fn failure(output: &str) -> CheckFailure {
        CheckFailure {
            command: "cargo check -q --message-format short".into(),
            exit_code: Some(101),
            timed_out: false,
            output: output.into(),
            output_lines: None,
        }
    }

    #[test]
    fn history_keeps_the_command_the_exit_code_and_the_last_twenty_lines() {
        let output: Vec<String> = (1..=30).map(|n| format!("error {n}")).collect();
        let kept = checks(
            &[failure(&output.join("\n"))],
            &Limits::of(CompressionLevel::Standard),
        );
        assert_eq!(
            kept,
            vec![CheckFailure {
                output: output[10..].join("\n"),
                output_lines: Some(30),
                ..failure("")
            }]
        );
    }

    #[test]
    fn compressing_again_tighter_keeps_the_count_of_lines() {
        let output: Vec<String> = (1..=30).map(|n| format!("error {n}")).collect();
        let standard = checks(
            &[failure(&output.join("\n"))],
            &Limits::of(CompressionLevel::Standard),
        );
        let tight = checks(&standard, &Limits::of(CompressionLevel::Tight));
        assert_eq!(tight[0].output, output[25..].join("\n"));
        assert_eq!(tight[0].output_lines, Some(30));
        assert_eq!(
            checks(&standard, &Limits::of(CompressionLevel::Standard)),
            standard,
            "compressing twice at one level changes nothing"
        );
    }
}
