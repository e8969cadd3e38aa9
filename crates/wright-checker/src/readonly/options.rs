//! A program's arguments as the read-only judgement reads them: which words the shell makes
//! exactly one known word, which could still become options when the command runs, and GNU
//! style options (clusters of short options, long options shortened to a prefix).

use crate::script::Word;

/// Characters that make the shell split an unquoted expansion into words, or glob it.
const SPLITTING: &[char] = &[' ', '\t', '\n', '*', '?', '['];

/// The characters unknown text starts with, as the parser keeps it (`$X`, `$(…)`, `` `…` ``).
const UNKNOWN_STARTS: &[char] = &['$', '`'];

/// Glob characters a word may start with, so that what it matches is not known.
const GLOB_STARTS: &[char] = &['*', '?', '['];

/// Whether the shell may turn `word` into several words: an unquoted expansion of a value not
/// known, or of one holding blanks or glob characters.
pub(super) fn splits(word: &Word) -> bool {
    word.split && (word.dynamic || word.values.iter().any(|v| v.contains(SPLITTING)))
}

/// Whether the shell may make `word` several words: it has several values (`f{,.out}`), may be
/// split or globbed, or holds a sequence expression (`f{1..2}`), which is kept as written.
pub(super) fn may_be_several(word: &Word) -> bool {
    let sequence = word.raw.split_once('{').is_some_and(|(_, after)| {
        after
            .split_once("..")
            .is_some_and(|(_, after)| after.contains('}'))
    });
    word.values.len() > 1 || splits(word) || word.glob || sequence
}

/// `word`'s value, when the shell makes it exactly one word known now.
pub(super) fn exact(word: &Word) -> Option<&str> {
    let one = !word.dynamic && !word.glob && word.values.len() == 1 && !splits(word);
    one.then(|| word.values[0].as_str())
}

/// Whether `word` is, or may become when the command runs, an option: it starts with `-`, its
/// start is only known then (`"$X"`, `$(cmd)`, a glob such as `*` that may match `-i`), or the
/// shell may split it into words of which one could.
pub(super) fn may_be_option(word: &Word) -> bool {
    splits(word)
        || word.values.iter().any(|v| v.starts_with('-'))
        || (word.dynamic && word.values.iter().any(|v| v.starts_with(UNKNOWN_STARTS)))
        || (word.glob && word.values.iter().any(|v| v.starts_with(GLOB_STARTS)))
}

/// Whether the long option `written` (as given, before any `=`) is `long`, also shortened to a
/// prefix the way `getopt_long` takes it (`--in` for `--in-place`). Prefixes of two letters or
/// fewer (`--i`) count too: a prefix only one option has is that option.
pub(super) fn is_long(written: &str, long: &str) -> bool {
    written == long || (written.len() > 2 && long.starts_with(written))
}

/// How a program reads its options.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Grammar {
    /// Short options that take a value, attached (`-k2`) or as the next word (`-k 2`).
    pub short_values: &'static str,
    /// Long options that take a value, attached (`--key=2`) or as the next word.
    pub long_values: &'static [&'static str],
}

/// One argument as a program reads it.
#[derive(Debug, Clone)]
pub(super) enum Arg<'w> {
    /// One short option of a cluster (`-rn` is `r` then `n`), with its value if it takes one.
    Short(char, Option<Value<'w>>),
    /// A long option as written before any `=` (`--output`), with its value if it has one.
    Long(&'w str, Option<Value<'w>>),
    /// An operand: a word that is not an option, `-` alone, and every word after `--`.
    Operand(&'w Word),
    /// A word only known when the command runs that could be an option ([`may_be_option`]).
    Unknown(&'w Word),
}

/// An option's value: attached to it, or the next word.
#[derive(Debug, Clone, Copy)]
pub(super) enum Value<'w> {
    /// `--name=value`, `-kVALUE`.
    Attached(&'w str),
    /// The next word.
    Word(&'w Word),
}

impl<'w> Value<'w> {
    /// The value's text when it is known.
    pub fn exact(self) -> Option<&'w str> {
        match self {
            Value::Attached(text) => Some(text),
            Value::Word(word) => exact(word),
        }
    }
}

/// Reads `words` (a program's arguments) as a GNU program reads them under `grammar`.
pub(super) fn parse<'w>(words: &'w [Word], grammar: Grammar) -> Vec<Arg<'w>> {
    let mut out = Vec::new();
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        let Some(text) = exact(word) else {
            out.push(match (may_be_option(word), long_with_unknown_value(word)) {
                (_, Some(name)) => Arg::Long(name, Some(Value::Word(word))),
                (true, None) => Arg::Unknown(word),
                (false, None) => Arg::Operand(word),
            });
            continue;
        };
        if text == "--" {
            out.extend(rest.by_ref().map(Arg::Operand));
        } else if let Some(long) = text.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (&text[..name.len() + 2], Some(Value::Attached(value))),
                None => (text, None),
            };
            let takes_value = grammar.long_values.iter().any(|l| is_long(name, l));
            let value = match attached {
                None if takes_value => rest.next().map(Value::Word),
                attached => attached,
            };
            out.push(Arg::Long(name, value));
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, flag) in cluster.char_indices() {
                if !grammar.short_values.contains(flag) {
                    out.push(Arg::Short(flag, None));
                    continue;
                }
                let attached = &cluster[at + flag.len_utf8()..];
                let value = match attached.is_empty() {
                    true => rest.next().map(Value::Word),
                    false => Some(Value::Attached(attached)),
                };
                out.push(Arg::Short(flag, value));
                break;
            }
        } else {
            out.push(Arg::Operand(word));
        }
    }
    out
}

/// The name of `--name=VALUE` when only the value is unknown (`--since=$(date …)`): the word
/// is that option, whatever the value turns out to be.
fn long_with_unknown_value(word: &Word) -> Option<&str> {
    if splits(word) || word.glob || word.values.len() != 1 {
        return None;
    }
    let text = word.values[0].as_str();
    let (name, _) = text.split_once('=')?;
    let known_name = name.starts_with("--") && name.len() > 2 && !name.contains(UNKNOWN_STARTS);
    known_name.then_some(name)
}

/// The operands among `args`.
pub(super) fn operands<'w>(args: &[Arg<'w>]) -> Vec<&'w Word> {
    args.iter()
        .filter_map(|arg| match arg {
            Arg::Operand(word) => Some(*word),
            _ => None,
        })
        .collect()
}

/// The words before the command a wrapper runs (its options, with the values of
/// `value_options`), and the command: the first word that is not an option, or the words
/// after `--`. `Err` holds a word that could be an option only known when the command runs.
pub(super) fn wrapped<'w>(
    args: &'w [Word],
    value_options: &[&str],
) -> Result<(&'w [Word], &'w [Word]), &'w Word> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(text) = exact(word) else {
            return match may_be_option(word) {
                true => Err(word),
                false => Ok((&args[..i], &args[i..])),
            };
        };
        if text == "--" {
            return Ok((&args[..i], &args[i + 1..]));
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        i += if value_options.contains(&text) { 2 } else { 1 };
    }
    let i = i.min(args.len());
    Ok((&args[..i], &args[i..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::synthetic_words as words;

    fn shown(args: &[Arg<'_>]) -> Vec<String> {
        args.iter()
            .map(|arg| match arg {
                Arg::Short(c, v) => format!("-{c}{}", value(v)),
                Arg::Long(name, v) => format!("{name}{}", value(v)),
                Arg::Operand(w) => w.text().to_string(),
                Arg::Unknown(w) => format!("?{}", w.text()),
            })
            .collect()
    }

    fn value(value: &Option<Value<'_>>) -> String {
        value.map_or(String::new(), |v| format!("={}", v.exact().unwrap_or("?")))
    }

    #[test]
    fn clusters_long_options_and_values_are_read_as_getopt_reads_them() {
        let grammar = Grammar {
            short_values: "ko",
            long_values: &["--output"],
        };
        let argv = words("-rnk2 -o out --outp f --key=3 a -- -b");
        assert_eq!(
            shown(&parse(&argv, grammar)),
            vec![
                "-r", "-n", "-k=2", "-o=out", "--outp=f", "--key=3", "a", "-b"
            ]
        );
    }

    #[test]
    fn a_long_option_may_be_shortened_to_a_prefix() {
        assert!(is_long("--in", "--in-place"));
        assert!(is_long("--in-place", "--in-place"));
        assert!(!is_long("--", "--in-place"));
        assert!(!is_long("--include", "--in-place"));
    }

    #[test]
    fn a_wrapper_runs_the_first_word_that_is_not_its_option() {
        let argv = words("-n 5 -0 grep -l x");
        let (options, command) = wrapped(&argv, &["-n"]).unwrap();
        assert_eq!(options.len(), 3);
        assert_eq!(command[0].text(), "grep");
    }
}
