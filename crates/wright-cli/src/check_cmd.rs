//! `wright check`: judges shell commands the way the Bash tool would, without running them —
//! allow, ask or refuse, with the rule and the reason — under the project's `[bash]` policy.
//! Users test their allow and deny patterns with it; scripts and CI use its exit status. It
//! also says whether each command is read-only ([`wright_checker::read_only`]): whether plan
//! mode and read-only agents may run it.

use std::io::Write;
use std::path::Path;

use clap::Args;
use serde::Serialize;
use wright_checker::{Decision, NO_RULE, Verdict};
use wright_tools::ToolContext;

use crate::config;

/// Exit status when every command is allowed.
const EXIT_ALL_ALLOWED: u8 = 0;
/// Exit status when some command would be asked about or refused.
const EXIT_NOT_ALL_ALLOWED: u8 = 1;
/// Exit status for a usage or settings error.
const EXIT_USAGE: u8 = 2;
/// The width of the decision column of the text output (`refuse`).
const DECISION_WIDTH: usize = 6;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print one JSON object per command: {"command", "verdict", "rule", "reason",
    /// "read_only", "read_only_reason"} (the last null for a read-only command).
    #[arg(long)]
    json: bool,
    /// The commands to judge, each one argument (quote it; newlines and heredocs are kept).
    /// Put `--` first when a command starts with `-`.
    #[arg(required = true, value_name = "COMMAND")]
    commands: Vec<String>,
}

/// One verdict as `--json` prints it.
#[derive(Debug, Serialize)]
struct Line<'a> {
    command: &'a str,
    verdict: Decision,
    rule: &'a str,
    reason: &'a str,
    /// Whether plan mode and read-only agents may run it.
    read_only: bool,
    /// Why it is not read-only.
    read_only_reason: Option<&'a str>,
}

/// Judges each command with the project root `root` as the working directory; prints one line
/// per command and returns the exit status.
pub fn run(root: &Path, args: &CheckArgs) -> u8 {
    let env = |name: &str| std::env::var(name).ok();
    let policy = match config::load_files(root, &env) {
        Ok(files) => config::command_policy(&files),
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    // The Bash tool's own context gives the home directory exactly as it sees it.
    let ctx = match ToolContext::new(root) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("wright: cannot open the project {}: {e}", root.display());
            return EXIT_USAGE;
        }
    };
    let mut out = std::io::stdout().lock();
    let mut all_allowed = true;
    for command in &args.commands {
        let verdict = wright_checker::check(command, ctx.root(), ctx.home(), &policy);
        let read_only = wright_checker::read_only(command);
        all_allowed &= verdict.is_allowed();
        let line = if args.json {
            let line = Line {
                command,
                verdict: verdict.decision,
                rule: verdict.rule,
                reason: &verdict.reason,
                read_only: read_only.is_ok(),
                read_only_reason: read_only.as_ref().err().map(String::as_str),
            };
            serde_json::to_string(&line).unwrap_or_default()
        } else {
            format!(
                "{}\n{}",
                human_line(command, &verdict),
                read_only_line(&read_only)
            )
        };
        if writeln!(out, "{line}").is_err() {
            break;
        }
    }
    if all_allowed {
        EXIT_ALL_ALLOWED
    } else {
        EXIT_NOT_ALL_ALLOWED
    }
}

/// `DECISION  COMMAND  [RULE] REASON`, the command on one line (newlines shown as `\n`); a
/// command no rule flags gets no rule part.
fn human_line(command: &str, verdict: &Verdict) -> String {
    let command = command.replace('\\', "\\\\").replace('\n', "\\n");
    let decision = verdict.decision.as_str();
    if verdict.rule == NO_RULE {
        format!("{decision:<DECISION_WIDTH$}  {command}")
    } else {
        format!(
            "{decision:<DECISION_WIDTH$}  {command}  [{}] {}",
            verdict.rule, verdict.reason
        )
    }
}

/// The line under a verdict that says whether plan mode and read-only agents may run the
/// command: `read-only`, or `not read-only: REASON`, under the command.
fn read_only_line(read_only: &Result<(), String>) -> String {
    let indent = " ".repeat(DECISION_WIDTH + 2);
    match read_only {
        Ok(()) => format!("{indent}read-only"),
        Err(reason) => format!("{indent}not read-only: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_human_line_puts_the_command_on_one_line_and_names_the_rule() {
        let verdict = Verdict {
            decision: Decision::Ask,
            rule: "privilege",
            reason: "`sudo id` runs as root.".into(),
            instead: "run it without sudo".into(),
        };
        assert_eq!(
            human_line("sudo \\\nid", &verdict),
            "ask     sudo \\\\\\nid  [privilege] `sudo id` runs as root."
        );
        let allowed = Verdict {
            decision: Decision::Allow,
            rule: NO_RULE,
            reason: "no rule flags this command".into(),
            instead: String::new(),
        };
        assert_eq!(human_line("ls", &allowed), "allow   ls");
    }

    #[test]
    fn the_read_only_line_sits_under_the_command_with_the_reason() {
        assert_eq!(read_only_line(&Ok(())), "        read-only");
        assert_eq!(
            read_only_line(&Err("`> f` writes to a file".into())),
            "        not read-only: `> f` writes to a file"
        );
    }
}
