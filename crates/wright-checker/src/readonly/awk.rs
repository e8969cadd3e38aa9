//! awk read for what it writes or runs: `system()`, output redirected by `print > "f"` and
//! `print | "cmd"`, `"cmd" | getline`, coprocesses (`|&`), gawk's `@load`/`@include`, and the
//! options that load code or write profiles. The program is scanned token by token, with its
//! strings, regexes and comments skipped, so that `/a|b/` or `"x > y"` are not taken for pipes
//! or redirections and `$1 > 5` outside `print` stays a comparison.

use super::options::{self, Arg, Grammar, exact, is_long};
use crate::script::Word;

/// Options that take a value.
const SHORT_VALUES: &str = "FvfeEilW";

/// Long options that read program text, and those that are harmless.
const SOURCE_LONG: &str = "--source";

/// gawk's and mawk's options that load code, or write profiles and dumps.
const REFUSED_SHORT: &str = "fEildDopW";
const REFUSED_LONG: &[&str] = &[
    "--file",
    "--exec",
    "--include",
    "--load",
    "--dump-variables",
    "--debug",
    "--profile",
    "--pretty-print",
];

/// Judges `awk ARGS` (also gawk, mawk, nawk).
pub(super) fn judge(program: &str, args: &[Word]) -> Result<(), String> {
    let grammar = Grammar {
        short_values: SHORT_VALUES,
        long_values: &[
            "--field-separator",
            "--assign",
            "--file",
            "--source",
            "--exec",
            "--include",
            "--load",
        ],
    };
    let parsed = options::parse(args, grammar);
    let mut sources = Vec::new();
    for arg in &parsed {
        match arg {
            Arg::Short('W', Some(value)) if value.exact() == Some("version") => {}
            Arg::Short(flag, _) if REFUSED_SHORT.contains(*flag) => {
                return Err(format!(
                    "`{program} -{flag}` loads code from a file or writes one"
                ));
            }
            Arg::Long(name, _) if REFUSED_LONG.iter().any(|l| is_long(name, l)) => {
                return Err(format!(
                    "`{program} {name}` loads code from a file or writes one"
                ));
            }
            Arg::Short('e', value) => sources.push(value.and_then(|v| v.exact())),
            Arg::Long(name, value) if is_long(name, SOURCE_LONG) => {
                sources.push(value.and_then(|v| v.exact()));
            }
            Arg::Unknown(word) => return Err(super::programs::unknown(program, word)),
            _ => {}
        }
    }
    if sources.is_empty() {
        sources.push(options::operands(&parsed).first().and_then(|w| exact(w)));
    }
    for source in sources {
        match source {
            Some(code) => self::code(code).map_err(|why| format!("`{program}`'s program {why}"))?,
            None => return Err(format!("`{program}`'s program is only known when it runs")),
        }
    }
    Ok(())
}

/// What the previous token was, which tells a regex from a division.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// A value: a `/` after it divides.
    Operand,
    /// An operator, a keyword or the start: a `/` after it starts a regex.
    Operator,
}

/// Reads awk `code`: `Err` says what in it writes a file or runs a command.
pub(super) fn code(code: &str) -> Result<(), String> {
    let chars: Vec<char> = code.chars().collect();
    let mut at = 0;
    let mut last = Last::Operator;
    let mut depth = 0usize;
    // The parenthesis depth of the `print`/`printf` statement being read, if any: a `>` or
    // `|` at that depth redirects its output.
    let mut print: Option<usize> = None;
    while let Some(&c) = chars.get(at) {
        at += 1;
        match c {
            '\n' | ';' | '{' | '}' => {
                print = None;
                last = Last::Operator;
            }
            c if c.is_whitespace() => {}
            '\\' => at += 1,
            '#' => {
                while chars.get(at).is_some_and(|c| *c != '\n') {
                    at += 1;
                }
            }
            '"' => {
                at = skip_quoted(&chars, at, '"');
                last = Last::Operand;
            }
            '/' if last == Last::Operator => {
                at = skip_regex(&chars, at);
                last = Last::Operand;
            }
            '(' | '[' => {
                depth += 1;
                last = Last::Operator;
            }
            ')' | ']' => {
                depth = depth.saturating_sub(1);
                last = Last::Operand;
            }
            '|' if chars.get(at) == Some(&'|') => {
                at += 1;
                last = Last::Operator;
            }
            '|' if chars.get(at) == Some(&'&') => return Err("talks to a coprocess (`|&`)".into()),
            '|' => return Err("pipes to or from a command (`|`)".into()),
            '>' if print == Some(depth) => {
                return Err("redirects `print` output to a file (`>`)".into());
            }
            '@' => return Err("loads code (`@load`, `@include`)".into()),
            c if c.is_alphabetic() || c == '_' => {
                let start = at - 1;
                while chars
                    .get(at)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    at += 1;
                }
                let word: String = chars[start..at].iter().collect();
                match word.as_str() {
                    "system" => return Err("runs a command (`system()`)".into()),
                    "print" | "printf" => {
                        print = Some(depth);
                        last = Last::Operator;
                    }
                    "getline" => last = Last::Operand,
                    "if" | "while" | "for" | "do" | "else" | "return" | "in" | "case"
                    | "delete" | "exit" | "next" | "nextfile" => last = Last::Operator,
                    _ => last = Last::Operand,
                }
            }
            c if c.is_ascii_digit() || c == '.' => {
                while chars
                    .get(at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.')
                {
                    at += 1;
                }
                last = Last::Operand;
            }
            '$' => last = Last::Operator,
            _ => last = Last::Operator,
        }
    }
    Ok(())
}

/// The index after a string or regex that ends at an unescaped `end`, from `at` (after its
/// opening character).
fn skip_quoted(chars: &[char], mut at: usize, end: char) -> usize {
    while let Some(&c) = chars.get(at) {
        at += 1;
        match c {
            '\\' => at += 1,
            c if c == end => break,
            _ => {}
        }
    }
    at
}

/// The index after a regex literal from `at` (after its `/`): a `/` inside `[…]` does not
/// end it.
fn skip_regex(chars: &[char], mut at: usize) -> usize {
    let mut bracket = false;
    while let Some(&c) = chars.get(at) {
        at += 1;
        match c {
            '\\' => at += 1,
            '[' => bracket = true,
            ']' => bracket = false,
            '/' if !bracket => break,
            '\n' => break,
            _ => {}
        }
    }
    at
}
