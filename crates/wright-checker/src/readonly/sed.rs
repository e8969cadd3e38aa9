//! `sed` read for what it writes: `-i` edits files in place, and a script's `w`/`W` commands
//! and `s///w` flag write files, its `e` command and `s///e` flag run commands. The script is
//! read command by command, the way sed reads it, so that `s/a/w/` or `/w /p` are not taken
//! for writes.

use super::options::{self, Arg, Grammar, exact, is_long};
use crate::script::Word;

/// sed's long options.
const LONG_OPTIONS: &[&str] = &[
    "--quiet",
    "--silent",
    "--debug",
    "--expression",
    "--file",
    "--follow-symlinks",
    "--in-place",
    "--line-length",
    "--null-data",
    "--zero-terminated",
    "--posix",
    "--regexp-extended",
    "--sandbox",
    "--separate",
    "--unbuffered",
    "--binary",
    "--help",
    "--version",
];

/// sed's short options without a value.
const SHORT_FLAGS: &str = "nrEszub";

/// Judges `sed ARGS`.
pub(super) fn judge(args: &[Word]) -> Result<(), String> {
    let grammar = Grammar {
        short_values: "efl",
        long_values: &["--expression", "--file", "--line-length"],
    };
    let parsed = options::parse(args, grammar);
    let mut scripts = Vec::new();
    for arg in &parsed {
        match arg {
            Arg::Short('i', _) => return Err("`sed -i` edits files in place".into()),
            Arg::Long(name, _) if is_long(name, "--in-place") => {
                return Err("`sed --in-place` edits files in place".into());
            }
            Arg::Short('f', _) => {
                return Err("`sed -f` runs a script from a file, which cannot be read here".into());
            }
            Arg::Long(name, _) if is_long(name, "--file") => {
                return Err(
                    "`sed --file` runs a script from a file, which cannot be read here".into(),
                );
            }
            Arg::Short('e', value) => scripts.push(*value),
            Arg::Long(name, value) if is_long(name, "--expression") => scripts.push(*value),
            Arg::Short('l', _) => {}
            Arg::Short(flag, _) if SHORT_FLAGS.contains(*flag) => {}
            Arg::Short(flag, _) => {
                return Err(format!("`sed -{flag}` is not an option known here"));
            }
            Arg::Long(name, _) => {
                let known = LONG_OPTIONS.iter().filter(|l| is_long(name, l)).count() == 1;
                if !known {
                    return Err(format!("`sed {name}` is not an option known here"));
                }
            }
            Arg::Unknown(word) => return Err(super::programs::unknown("sed", word)),
            Arg::Operand(_) => {}
        }
    }
    let scripts: Vec<Option<&str>> = match scripts.is_empty() {
        true => options::operands(&parsed)
            .first()
            .map(|word| exact(word))
            .into_iter()
            .collect(),
        false => scripts
            .into_iter()
            .map(|v| v.and_then(|v| v.exact()))
            .collect(),
    };
    for script in scripts {
        match script {
            Some(text) => self::script(text)?,
            None => return Err("`sed`'s script is only known when it runs".into()),
        }
    }
    Ok(())
}

/// Reads a sed script: `Err` says what in it writes a file or runs a command, or what could
/// not be read.
pub(super) fn script(text: &str) -> Result<(), String> {
    let mut reader = Reader {
        chars: text.chars().collect(),
        at: 0,
    };
    loop {
        reader.skip(|c| c.is_whitespace() || c == ';');
        let Some(c) = reader.peek() else {
            return Ok(());
        };
        if c == '#' {
            reader.until_line_end();
            continue;
        }
        reader.address()?;
        if reader.peek() == Some(',') {
            reader.at += 1;
            reader.skip(char::is_whitespace);
            reader.address()?;
        }
        reader.skip(char::is_whitespace);
        while reader.peek() == Some('!') {
            reader.at += 1;
            reader.skip(char::is_whitespace);
        }
        let Some(command) = reader.next() else {
            return Ok(());
        };
        match command {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            'l' | 'L' | 'q' | 'Q' => {
                reader.skip(char::is_whitespace);
                reader.skip(|c| c.is_ascii_digit());
            }
            // A label or a version: one word, as GNU sed's `read_label` reads it (`b end w
            // out` branches to `end`, then writes to `out`).
            'b' | 't' | 'T' | ':' | 'v' => {
                reader.skip(|c| c.is_whitespace() && c != '\n');
                reader.until(|c| c == ';' || c.is_whitespace());
            }
            'r' | 'R' => reader.until_line_end(),
            'a' | 'i' | 'c' => reader.text(),
            'w' | 'W' => return Err(format!("`sed`'s `{command}` command writes to a file")),
            'e' => return Err("`sed`'s `e` command runs a command".into()),
            's' => {
                let delimiter = reader.delimiter()?;
                reader.part(delimiter)?;
                reader.part(delimiter)?;
                while let Some(flag) = reader.peek() {
                    match flag {
                        'w' => return Err("`sed`'s `s///w` writes to a file".into()),
                        'e' => return Err("`sed`'s `s///e` runs the result as a command".into()),
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' => reader.at += 1,
                        c if c.is_ascii_digit() => reader.at += 1,
                        _ => break,
                    }
                }
            }
            'y' => {
                let delimiter = reader.delimiter()?;
                reader.part(delimiter)?;
                reader.part(delimiter)?;
            }
            other => {
                return Err(format!(
                    "`sed`'s script has `{other}`, which is not a command known here"
                ));
            }
        }
    }
}

/// A sed script being read.
struct Reader {
    chars: Vec<char>,
    at: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn skip(&mut self, while_: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&while_) {
            self.at += 1;
        }
    }

    fn until(&mut self, end: impl Fn(char) -> bool) {
        self.skip(|c| !end(c));
    }

    fn until_line_end(&mut self) {
        self.until(|c| c == '\n');
    }

    /// The text of `a`, `i` and `c`: to the end of the line, lines ended by `\` continuing it.
    fn text(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\\' => {
                    self.at += 1;
                }
                '\n' => return,
                _ => {}
            }
        }
    }

    /// An address, if one is there: a line number (`3`, `1~2`), `$`, `/regex/` or `\cregexc`
    /// with its flags, or (after a comma) `+N` or `~N`.
    fn address(&mut self) -> Result<(), String> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == '+' || c == '~' => {
                self.at += 1;
                self.skip(|c| c.is_ascii_digit() || c == '~');
            }
            Some('$') => self.at += 1,
            Some('/') => {
                self.at += 1;
                self.part('/')?;
                self.skip(|c| c == 'I' || c == 'M');
            }
            Some('\\') => {
                self.at += 1;
                let delimiter = self.next().ok_or("`sed`'s script ends inside an address")?;
                self.part(delimiter)?;
                self.skip(|c| c == 'I' || c == 'M');
            }
            _ => {}
        }
        Ok(())
    }

    /// The delimiter after `s` or `y`.
    fn delimiter(&mut self) -> Result<char, String> {
        match self.next() {
            Some(c) if c != '\n' && c != '\\' => Ok(c),
            _ => Err("`sed`'s script has an `s` or `y` command that cannot be read".into()),
        }
    }

    /// A regex or replacement up to an unescaped `delimiter`, which is consumed. As GNU sed
    /// reads it, only a backslash keeps the delimiter from ending it (also inside `[…]`).
    fn part(&mut self, delimiter: char) -> Result<(), String> {
        while let Some(c) = self.next() {
            match c {
                '\\' => self.at += 1,
                c if c == delimiter => return Ok(()),
                _ => {}
            }
        }
        Err("`sed`'s script ends inside a regex or replacement".into())
    }
}
