//! awk's program text read for the commands it runs: `system("…")`, `print … | "…"` and
//! `"…" | getline` are checked as shell commands, like other interpreters' command-running
//! calls; a computed value in `system(…)` stays unknown (`system($0)` runs unknown code).

use super::{Report, Site};
use crate::argv::split;
use crate::script::Word;

/// awk's program text: the commands `system("…")`, `print … | "…"` and `"…" | getline` run are
/// checked as shell commands, like other interpreters'.
pub(super) fn program(site: &Site<'_>, args: &[Word], report: &mut Report) {
    let parsed = split(
        args,
        &["-F", "-v", "-f", "--file", "--assign", "--field-separator"],
    );
    if parsed.value_of(&["-f", "--file"]).is_some() {
        return;
    }
    let Some(program) = parsed.operands.first() else {
        return;
    };
    for code in &program.values {
        for command in awk_commands(code) {
            site.nest(report, &Word::synthetic(command, program.dynamic));
        }
        for command in awk_computed_commands(code) {
            site.nest(report, &Word::synthetic(command, true));
        }
    }
}

/// What stands for a value awk computes (a field, a variable) in a command it runs.
const AWK_VALUE: &str = "\"$AWK_VALUE\"";

/// The commands `system(…)` runs when its argument is not one string literal: the literals
/// kept and every computed value (`$0`, `x`) an unknown value, so `system("rm -rf " $0)` is
/// `rm -rf "$AWK_VALUE"` and `system($0)` runs unknown code.
fn awk_computed_commands(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == '"' {
            in_string = !in_string;
        }
        let call = !in_string
            && chars[i..].starts_with(&['s', 'y', 's', 't', 'e', 'm'])
            && (i == 0 || !chars[i - 1].is_alphanumeric() && chars[i - 1] != '_');
        if !call {
            i += 1;
            continue;
        }
        let mut j = i + 6;
        while chars.get(j).is_some_and(|c| c.is_whitespace()) {
            j += 1;
        }
        if chars.get(j) != Some(&'(') {
            i += 1;
            continue;
        }
        let (pieces, end) = awk_argument(&chars, j + 1);
        i = end;
        let literal_only = matches!(pieces.as_slice(), [Some(_)]);
        if pieces.is_empty() || literal_only {
            continue;
        }
        let mut command = String::new();
        for piece in pieces {
            match piece {
                Some(text) => command.push_str(&text),
                None if command.ends_with(AWK_VALUE) => {}
                None => command.push_str(AWK_VALUE),
            }
        }
        out.push(command);
    }
    out
}

/// The pieces of an awk call's argument from `start` up to its closing parenthesis: string
/// literals as `Some(text)`, each computed value as `None`; and the index after it.
fn awk_argument(chars: &[char], start: usize) -> (Vec<Option<String>>, usize) {
    let mut pieces = Vec::new();
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        match c {
            '"' => {
                let mut text = String::new();
                i += 1;
                while let Some(&c) = chars.get(i) {
                    match c {
                        '\\' => {
                            text.extend(chars.get(i + 1));
                            i += 2;
                            continue;
                        }
                        '"' => break,
                        _ => text.push(c),
                    }
                    i += 1;
                }
                pieces.push(Some(text));
            }
            '(' => depth += 1,
            ')' if depth == 0 => return (pieces, i + 1),
            ')' => depth -= 1,
            c if c.is_alphanumeric() || c == '$' || c == '_' => {
                if pieces.last().is_none_or(Option::is_some) {
                    pieces.push(None);
                }
                while chars
                    .get(i + 1)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (pieces, i)
}

/// The string literals awk code runs as commands: the argument of `system(…)`, the target of
/// `| "…"` (output piped to a command) and the source of `"…" | getline`.
fn awk_commands(code: &str) -> Vec<String> {
    let mut literals: Vec<(usize, usize, String)> = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut text = String::new();
        let mut end = code.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => text.extend(chars.next().map(|(_, c)| c)),
                '"' => {
                    end = i + 1;
                    break;
                }
                _ => text.push(c),
            }
        }
        literals.push((start, end, text));
    }
    literals
        .into_iter()
        .filter(|(start, end, _)| {
            let before: String = code[..*start]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let after: String = code[*end..]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            before.ends_with("system(") || before.ends_with('|') || after.starts_with("|getline")
        })
        .map(|(_, _, text)| text)
        .collect()
}
