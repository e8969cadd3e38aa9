//! Shell words evaluated without running anything: quotes and escapes removed, `~` expanded,
//! braces expanded, and what cannot be known (`$X`, `$(date)`) marked as such.

use std::ops::Range;
use std::path::Path;

/// Most possible values a word (or working directory) keeps before it counts as unknown.
pub(crate) const MAX_ALTERNATIVES: usize = 64;

/// How many brace expansions inside each other are expanded; deeper ones stay as written.
const MAX_BRACE_DEPTH: usize = 16;

/// One shell word, evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word as written.
    pub raw: String,
    /// Its possible values (one unless a loop variable or an uncertain `cd` gives several).
    /// Parts that cannot be known are kept as written (`$X/`).
    pub values: Vec<String>,
    /// Whether part of it cannot be known (an unknown variable, a command substitution).
    pub dynamic: bool,
    /// Whether it holds unquoted glob characters (`*`, `?`, `[`).
    pub glob: bool,
    /// Whether it holds an unquoted expansion (`$X`, `${X}`, `$(…)`): the shell may split its
    /// value into several words, and expand globs in it.
    pub split: bool,
    /// The commands its command and process substitutions run (indices into
    /// `Script::commands`).
    pub subs: Range<usize>,
}

impl Word {
    /// A word with one known value, not from the source (e.g. a joined `watch` command).
    pub fn synthetic(text: String, dynamic: bool) -> Self {
        Self {
            raw: text.clone(),
            values: vec![text],
            dynamic,
            glob: false,
            split: false,
            subs: 0..0,
        }
    }

    /// Its first value: the word as the shell most likely sees it.
    pub fn text(&self) -> &str {
        self.values.first().map_or(&self.raw, String::as_str)
    }

    /// Whether the word is exactly `literal`.
    pub fn is(&self, literal: &str) -> bool {
        !self.dynamic && self.values.len() == 1 && self.values[0] == literal
    }
}

/// `text` as one shell word: quoted when it holds characters the shell would act on. `~` and
/// glob characters are left bare, so a path the shell might expand is judged as broadly as it
/// could be.
pub(crate) fn shell_quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "_-./~*?=:,+@%^".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// What `printf FORMAT ARGS…` prints: the format's `%s`-like directives replaced by the
/// arguments (the format reused while arguments remain, as printf does), `%%` by `%`, and its
/// backslash escapes decoded.
pub(crate) fn printf(format: &str, args: &[&str]) -> String {
    let format = ansi_c(format);
    let mut out = String::new();
    let mut args = args.iter();
    loop {
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            if chars.next_if_eq(&'%').is_some() {
                out.push('%');
                continue;
            }
            // Flags, width and precision, then the conversion letter.
            while chars.next_if(|c| "-+ #0123456789.".contains(*c)).is_some() {}
            chars.next();
            used = true;
            out.push_str(args.next().copied().unwrap_or(""));
        }
        if !used || args.len() == 0 {
            return out;
        }
    }
}

/// `text` split at blanks into words with known values, for tests.
#[cfg(test)]
pub(crate) fn synthetic_words(text: &str) -> Vec<Word> {
    text.split_whitespace()
        .map(|w| Word::synthetic(w.to_string(), false))
        .collect()
}

/// A piece of a word being evaluated.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub values: Vec<String>,
    pub dynamic: bool,
    pub glob: bool,
    /// Whether it holds an unquoted expansion (see [`Word::split`]).
    pub split: bool,
}

impl Part {
    pub(crate) fn known(value: String) -> Self {
        Self {
            values: vec![value],
            dynamic: false,
            glob: false,
            split: false,
        }
    }

    pub(crate) fn any(values: impl Iterator<Item = String>) -> Self {
        let values: Vec<String> = values.collect();
        if values.is_empty() {
            return Self::known(String::new());
        }
        Self {
            values,
            dynamic: false,
            glob: false,
            split: false,
        }
    }

    pub(crate) fn unknown(text: &str) -> Self {
        Self {
            values: vec![text.to_string()],
            dynamic: true,
            glob: false,
            split: false,
        }
    }

    /// `self` followed by `next`: every combination of their values.
    pub(crate) fn then(self, next: Part) -> Part {
        let mut values = Vec::new();
        for a in &self.values {
            for b in &next.values {
                if values.len() < MAX_ALTERNATIVES * 2 {
                    values.push(format!("{a}{b}"));
                }
            }
        }
        let overflow = self.values.len() * next.values.len() > MAX_ALTERNATIVES * 2;
        Part {
            values,
            dynamic: self.dynamic || next.dynamic || overflow,
            glob: self.glob || next.glob,
            split: self.split || next.split,
        }
    }
}

pub(crate) fn strip<'s>(text: &'s str, prefix: &str, suffix: &str) -> &'s str {
    text.strip_prefix(prefix)
        .and_then(|t| t.strip_suffix(suffix))
        .unwrap_or(text)
}

/// An unquoted word: backslashes removed, glob characters noted, a leading `~` expanded.
pub(crate) fn unquoted(text: &str, first: bool, home: Option<&Path>) -> Part {
    let mut value = String::new();
    let mut glob = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            '*' | '?' | '[' => {
                glob = true;
                value.push(c);
            }
            _ => value.push(c),
        }
    }
    if first && text.starts_with('~') {
        let (user, rest) = value.split_at(value.find('/').unwrap_or(value.len()));
        return match (user, home) {
            ("~", Some(home)) => Part {
                values: vec![format!("{}{rest}", home.display())],
                dynamic: false,
                glob,
                split: false,
            },
            _ => Part {
                values: vec![value.clone()],
                dynamic: true,
                glob,
                split: false,
            },
        };
    }
    Part {
        values: vec![value],
        dynamic: false,
        glob,
        split: false,
    }
}

/// The text between double quotes: only `\"`, `\\`, `\$`, `` \` `` and `\newline` are escapes.
pub(crate) fn unescape_double_quoted(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some('"' | '\\' | '$' | '`')) => out.extend(chars.next()),
            ('\\', Some('\n')) => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// The text of `$'…'` with its escapes decoded (`\x72` → `r`, `\n`, octal `\162`).
pub(crate) fn ansi_c(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('e' | 'E') => out.push('\u{1b}'),
            Some('x') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_hexdigit))
                    .take(2)
                    .collect();
                out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
            }
            Some(d @ '0'..='7') => {
                let mut octal = d.to_string();
                while octal.len() < 3 {
                    match chars.next_if(|c| ('0'..='7').contains(c)) {
                        Some(d) => octal.push(d),
                        None => break,
                    }
                }
                out.extend(u32::from_str_radix(&octal, 8).ok().and_then(char::from_u32));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Brace expansion of the first `{a,b,…}` in `value`, recursively (`{/,x}` → `/`, `x`).
pub(crate) fn expand_braces(value: &str) -> Vec<String> {
    expand_braces_within(value, MAX_BRACE_DEPTH)
}

fn expand_braces_within(value: &str, budget: usize) -> Vec<String> {
    if budget == 0 {
        return vec![value.to_string()];
    }
    let Some(open) = value.find('{') else {
        return vec![value.to_string()];
    };
    let mut depth: i64 = 0;
    let mut close = None;
    let mut commas = Vec::new();
    for (i, c) in value[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + i),
            _ => {}
        }
    }
    let Some(close) = close.filter(|_| !commas.is_empty()) else {
        return vec![value.to_string()];
    };
    let (prefix, suffix) = (&value[..open], &value[close + 1..]);
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for pair in bounds.windows(2) {
        let option = &value[pair[0] + 1..pair[1]];
        for expanded in expand_braces_within(&format!("{prefix}{option}{suffix}"), budget - 1) {
            if out.len() < MAX_ALTERNATIVES {
                out.push(expanded);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn braces_expand() {
        assert_eq!(expand_braces("{/,x}"), vec!["/", "x"]);
        assert_eq!(expand_braces("a{b,c{d,e}}"), vec!["ab", "acd", "ace"]);
        assert_eq!(expand_braces("{1..3}"), vec!["{1..3}"]);
    }

    #[test]
    fn printf_fills_its_format_with_the_arguments() {
        assert_eq!(printf("rm -rf %s", &["/home/ann"]), "rm -rf /home/ann");
        assert_eq!(printf("%s-%5d%%\\n", &["a", "1"]), "a-1%\n");
        assert_eq!(printf("%s ", &["a", "b"]), "a b ");
    }

    #[test]
    fn ansi_c_escapes_decode() {
        assert_eq!(ansi_c(r"\x72m \162 a\tb"), "rm r a\tb");
    }

    #[test]
    fn an_unquoted_word_loses_its_backslashes_and_expands_a_leading_tilde() {
        let home = Some(Path::new("/home/ann"));
        assert_eq!(unquoted(r"\rm", true, home).values, vec!["rm"]);
        assert_eq!(unquoted("~/x", true, home).values, vec!["/home/ann/x"]);
        assert_eq!(unquoted(r"\~", true, home).values, vec!["~"]);
        assert!(unquoted("~bob", true, home).dynamic);
        assert!(unquoted("*.rs", true, home).glob);
        assert!(!unquoted(r"\*", true, home).glob);
    }
}
