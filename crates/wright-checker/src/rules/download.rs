//! A file downloaded and then run in the same command (`curl -o x.sh URL && bash x.sh`): the
//! download runs as code unchecked, as with `curl … | sh` (rule `pipe-to-shell`).

use super::exec::{SHELLS, downloads};
use super::interp::Language;
use super::{Finding, Report, Rule, quote};
use crate::argv::{self, split};
use crate::script::{Script, Word};

/// The files a download command writes: `curl -o F`/`--output F`, `curl -O URL` (the URL's
/// last part), `wget -O F`/`--output-document=F`, `wget URL` (the URL's last part), and its
/// output redirected (`curl URL > F`).
fn downloaded_files(command: &crate::script::SimpleCommand) -> Vec<String> {
    if !downloads(&command.argv) {
        return Vec::new();
    }
    let invocation = argv::unwrap(&command.argv);
    let program = invocation
        .argv
        .first()
        .and_then(argv::program)
        .unwrap_or("");
    let args = &invocation.argv[1..];
    let values: &[&str] = match program {
        "wget" => &["-O", "--output-document", "-P", "--header"],
        _ => &[
            "-o", "--output", "-H", "--header", "-d", "--data", "-X", "-u",
        ],
    };
    let parsed = split(args, values);
    let url_leaf = || {
        parsed
            .operands
            .iter()
            .find(|w| w.text().contains("://"))
            .and_then(|w| w.text().rsplit('/').next())
            .filter(|leaf| !leaf.is_empty())
            .map(str::to_string)
    };
    let mut files: Vec<String> = command
        .outputs
        .iter()
        .map(|w| w.text().to_string())
        .collect();
    match program {
        "curl" => {
            files.extend(
                parsed
                    .value_of(&["-o", "--output"])
                    .map(|w| w.text().to_string()),
            );
            if parsed.has("--remote-name", Some('O')) {
                files.extend(url_leaf());
            }
        }
        "wget" => match parsed.value_of(&["-O", "--output-document"]) {
            Some(file) => files.push(file.text().to_string()),
            None => files.extend(url_leaf()),
        },
        _ => {}
    }
    files.retain(|f| f != "-" && f != "/dev/null");
    files
}

/// The same file as written two ways (`./x.sh`, `x.sh`).
fn same_file(a: &str, b: &str) -> bool {
    a.trim_start_matches("./") == b.trim_start_matches("./")
}

/// A file downloaded and then run in the same command (`curl -o x.sh URL && bash x.sh`,
/// `wget URL -O b && chmod +x b && ./b`): the download runs as code unchecked, as with
/// `curl … | sh`.
pub(super) fn downloaded_then_run(script: &Script, report: &mut Report) {
    let mut downloaded: Vec<String> = Vec::new();
    for command in &script.commands {
        let invocation = argv::unwrap(&command.argv);
        if let Some(first) = invocation.argv.first() {
            let program = argv::program(first).unwrap_or("");
            let runs_file = SHELLS.contains(&program)
                || Language::of(program).is_some()
                || matches!(program, "source" | ".");
            let mut run: Vec<&str> = vec![first.text()];
            if runs_file {
                run.extend(
                    invocation.argv[1..]
                        .iter()
                        .find(|w| !w.text().starts_with('-'))
                        .map(Word::text),
                );
            }
            let ran = downloaded
                .iter()
                .find(|file| run.iter().any(|r| same_file(r, file)));
            if let Some(file) = ran {
                report.findings.push(Finding::new(
                    Rule::PipeToShell,
                    format!(
                        "{} runs `{file}`, which the same command downloads: it cannot be \
                         checked before it runs.",
                        quote(&command.text)
                    ),
                    vec![command.text.clone()],
                ));
            }
        }
        downloaded.extend(downloaded_files(command));
    }
}
