//! Commands run once per input by `xargs -I`/`-J` and GNU `parallel`: each input that can be
//! known (`parallel rm -rf ::: ~ /`, `echo ~ | xargs -I{} sh -c 'rm -rf {}'`) is put into the
//! command, and the command is checked in turn; an input that cannot be known stands in as an
//! unknown value, so a dangerous position (`rm -rf {}`) is asked about.

use super::{Report, Site};
use crate::argv::{self, FanOut};
use crate::script::Word;
use crate::words::shell_quoted;

/// Most inputs put into one command; more are not checked one by one.
const MAX_INPUTS: usize = 16;

/// What stands for an input that cannot be known: an unknown variable.
const UNKNOWN: &str = "\"$INPUT\"";

/// What stands for an input from a listing of the project (`find . | xargs -I{} …`).
const PROJECT_ENTRY: &str = "./entry";

/// One input of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Input {
    Known(String),
    Unknown,
}

/// The commands `xargs`/`parallel` run with their inputs put in, checked in turn.
pub(super) fn command(site: &Site<'_>, report: &mut Report) {
    let Some(fan_out) = &site.invocation.fan_out else {
        return;
    };
    let inputs = match &fan_out.inputs {
        Some(words) => words
            .iter()
            .flat_map(|w| match w.dynamic {
                true => vec![Input::Unknown],
                false => w.values.iter().cloned().map(Input::Known).collect(),
            })
            .collect(),
        None => from_stdin(site),
    };
    let template = site.invocation.argv;
    let unknown = if super::delete::fed_by_project_listing(site) {
        PROJECT_ENTRY
    } else {
        UNKNOWN
    };
    for input in inputs.iter().take(MAX_INPUTS) {
        if template.is_empty() {
            // `echo 'make test' | parallel`: each input is a command line; one that cannot be
            // known is unknown code.
            let line = match input {
                Input::Known(line) => Word::synthetic(line.clone(), false),
                Input::Unknown => Word::synthetic(UNKNOWN.to_string(), true),
            };
            site.nest(report, &line);
            continue;
        }
        let value = match input {
            Input::Known(text) => shell_quoted(text),
            Input::Unknown => unknown.to_string(),
        };
        // An unknown input is pasted into the command like a variable (`{}` as the program
        // runs unknown code).
        let pasted = *input == Input::Unknown && unknown == UNKNOWN;
        for text in commands(fan_out, template, &value) {
            site.nest(report, &Word::synthetic(text, pasted));
        }
    }
}

/// The command lines `template` makes with `value` (shell-quoted) put in: its words with the
/// value in place of the replace strings, each quoted; for `parallel`, also the words joined as
/// they are into one command line, which is how it runs them.
fn commands(fan_out: &FanOut<'_>, template: &[Word], value: &str) -> Vec<String> {
    let replaced = template.iter().any(|w| {
        fan_out
            .replace
            .iter()
            .any(|r| w.text().contains(r.as_str()))
    });
    let put = |text: &str, quote: bool| -> String {
        let mut marked = text.to_string();
        for replace in fan_out.replace.iter().filter(|r| !r.is_empty()) {
            marked = marked.replace(replace.as_str(), "\u{0}");
        }
        marked
            .split('\u{0}')
            .map(|piece| match (quote, piece.is_empty()) {
                (_, true) => String::new(),
                (true, false) => shell_quoted(piece),
                (false, false) => piece.to_string(),
            })
            .collect::<Vec<_>>()
            .join(value)
    };
    let mut words: Vec<String> = template.iter().map(|w| put(w.text(), true)).collect();
    let mut line = template
        .iter()
        .map(|w| put(w.text(), false))
        .collect::<Vec<_>>()
        .join(" ");
    if !replaced && fan_out.appends {
        words.push(value.to_string());
        line = format!("{line} {value}");
    }
    if !replaced && !fan_out.appends {
        return Vec::new();
    }
    let mut out = vec![words.join(" ")];
    if fan_out.joined && line != out[0] {
        out.push(line);
    }
    out
}

/// The inputs a command reads on standard input, one per line: known when they come from a
/// heredoc, a here-string, `echo` or `printf`.
fn from_stdin(site: &Site<'_>) -> Vec<Input> {
    match stdin_text(site) {
        Some(text) => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| Input::Known(l.to_string()))
            .collect(),
        None => vec![Input::Unknown],
    }
}

/// The text a command reads on standard input, when it can be known: a heredoc, a here-string,
/// or what `echo`/`printf` pipe into it.
pub(super) fn stdin_text(site: &Site<'_>) -> Option<String> {
    match &site.command.stdin {
        Some(stdin) if !stdin.dynamic => Some(stdin.text().to_string()),
        Some(_) => None,
        None => site
            .command
            .pipe_from
            .and_then(|i| site.script.commands.get(i))
            .and_then(|producer| printed(&producer.argv)),
    }
}

/// What `echo …` or `printf …` prints, when it can be known.
fn printed(argv: &[Word]) -> Option<String> {
    let invocation = argv::unwrap(argv);
    let program = invocation.argv.first().and_then(argv::program)?;
    let args: Vec<&Word> = invocation.argv[1..]
        .iter()
        .skip_while(|w| matches!(w.text(), "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    if args.iter().any(|w| w.dynamic) {
        return None;
    }
    let texts: Vec<&str> = args.iter().map(|w| w.text()).collect();
    match (program, texts.split_first()) {
        ("echo", _) => Some(texts.join(" ")),
        ("printf", Some((format, rest))) if format.contains("%s") && !rest.is_empty() => {
            Some(rest.join("\n"))
        }
        ("printf", Some((format, _))) => Some(format.replace("\\n", "\n")),
        _ => None,
    }
}
