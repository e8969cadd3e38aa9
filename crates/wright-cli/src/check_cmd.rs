//! `wright check`: judges shell commands the way the Bash tool would, without running them —
//! allow, ask or refuse, with the rule and the reason — under the project's `[bash]` policy.
//! Users test their allow and deny patterns with it; scripts and CI use its exit status.

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

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print one JSON object per command: {"command", "verdict", "rule", "reason"}.
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
        all_allowed &= verdict.is_allowed();
        let line = if args.json {
            let line = Line {
                command,
                verdict: verdict.decision,
                rule: verdict.rule,
                reason: &verdict.reason,
            };
            serde_json::to_string(&line).unwrap_or_default()
        } else {
            human_line(command, &verdict)
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
        format!("{decision:<6}  {command}")
    } else {
        format!(
            "{decision:<6}  {command}  [{}] {}",
            verdict.rule, verdict.reason
        )
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
}
