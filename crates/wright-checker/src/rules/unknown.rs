//! Command text only known when it runs, run as code (rule `unknown-code`): unknown values a
//! shell pastes into a command string (`eval "$X"`, `bash -c "$c"`), command words holding text
//! read from a file or input (`read -r c; $c`, `c=$(cat cmd.txt); $c`), substitutions printing
//! such text (`$(cat cmd.txt)`).

use super::exec::list_expansion;
use super::{Report, Rule, Site};
use crate::script::Word;

/// The variable expansions (`$X`, `${c}`, `$1`) in `raw` outside single quotes, as written:
/// what a shell pastes into a command string it hands over (`bash -c "$X"`). Command
/// substitutions are left out: the nested script reads them again, and judges what they print.
pub(super) fn spliced_variables(raw: &str) -> Vec<String> {
    let chars: Vec<char> = raw.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut double = false;
    let mut i = 0;
    // The index just after the bracket closing the one opened at `i` (`{`→`}`, `(`→`)`).
    let closing = |i: usize, open: char, close: char| -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while let Some(&c) = chars.get(j) {
            if c == open {
                depth += 1;
            } else if c == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            j += 1;
        }
        chars.len()
    };
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 2,
            '\'' if !double => {
                i += 1;
                while chars.get(i).is_some_and(|&c| c != '\'') {
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                double = !double;
                i += 1;
            }
            '`' => {
                i += 1;
                while chars.get(i).is_some_and(|&c| c != '`') {
                    i += 1;
                }
                i += 1;
            }
            '$' => {
                let end = match chars.get(i + 1) {
                    Some('{') => closing(i + 1, '{', '}'),
                    Some('(') => {
                        i = closing(i + 1, '(', ')');
                        continue;
                    }
                    Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
                        let mut j = i + 1;
                        while chars
                            .get(j)
                            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                        {
                            j += 1;
                        }
                        j
                    }
                    Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(*c) => i + 2,
                    _ => i + 1,
                };
                let text: String = chars[i..end].iter().collect();
                if end > i + 1 && !out.contains(&text) {
                    out.push(text);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether `raw` starts with the expansion `expansion` (`$c` in `$c -x` but not in `$cmd`).
fn starts_with_expansion(raw: &str, expansion: &str) -> bool {
    raw.strip_prefix(expansion).is_some_and(|rest| {
        expansion.ends_with('}')
            || !rest
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A command word that is text only known when it runs, run as code: an unknown value pasted
/// into a command string (`eval "$X"`, `bash -c "$c"`), a variable holding text read from a
/// file or input (`read -r c; $c`, `c=$(cat cmd.txt); $c`), or a substitution printing such
/// text (`$(cat cmd.txt)`). A program named by the environment (`$CC -o x x.c`, `"$EDITOR"
/// f`) or printed by a program (`eval "$(pyenv init -)"`) is trusted like running it.
pub(super) fn unknown_code(site: &Site<'_>, word: &Word, report: &mut Report) {
    if !word.dynamic || list_expansion(&word.raw) {
        return;
    }
    let raw = word.raw.trim_start_matches('"');
    let spliced = site
        .script
        .spliced
        .iter()
        .find(|s| starts_with_expansion(raw, s));
    let input = site.script.input_vars.iter().find(|name| {
        starts_with_expansion(raw, &format!("${name}"))
            || starts_with_expansion(raw, &format!("${{{name}}}"))
            || raw.starts_with(&format!("${{{name}["))
    });
    let commands = site.script.commands.get(word.subs.clone()).unwrap_or(&[]);
    let printed = (raw.starts_with("$(") || raw.starts_with('`'))
        && (raw.starts_with("$(<") || commands.iter().any(|c| c.prints_input()));
    let reason = if let Some(value) = spliced {
        format!(
            "{} runs `{value}` as code, a value only known when it runs.",
            site.quoted()
        )
    } else if let Some(name) = input {
        format!(
            "{} runs the text `${name}` holds, read from a file or input: what runs is only \
             known when it runs.",
            site.quoted()
        )
    } else if printed {
        format!(
            "{} runs the text `{}` prints, read from a file or input: what runs is only known \
             when it runs.",
            site.quoted(),
            word.raw
        )
    } else {
        return;
    };
    site.find(report, Rule::UnknownCode, reason);
}
