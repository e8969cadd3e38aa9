//! The front matter of an agent file (issue 14; rule files in issue 17 have the same form):
//! a block between two `---` lines at the top, one `key: value` per line, a value being a
//! plain or quoted string or a list (`[a, b]`, or `- item` lines under an empty `key:`).
//! Blank lines and `#` comments are skipped. This is the flat subset of YAML such files use;
//! a full YAML parser would also take anchors and aliases from a file wright does not trust.
//! Every error names its line (1-based, in the whole file).

/// One value of the front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// A plain or quoted string.
    Text(String),
    /// A list of strings.
    List(Vec<String>),
}

/// One `key: value` entry, with the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: String,
    pub value: Value,
    pub line: usize,
}

/// A file split into its front matter and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Document {
    pub entries: Vec<Entry>,
    /// Everything after the closing `---`, trimmed.
    pub body: String,
    /// The line of the closing `---` (for errors about the block as a whole).
    pub end_line: usize,
}

/// What is wrong, and on which line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Error {
    pub line: usize,
    pub message: String,
}

fn error(line: usize, message: impl Into<String>) -> Error {
    Error {
        line,
        message: message.into(),
    }
}

/// Splits `text` into its front matter and body. A file that does not start with `---` has
/// no front matter: an error, since an agent needs at least a name and a description.
pub(crate) fn parse(text: &str) -> Result<Document, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
    match lines.next() {
        Some((_, first)) if first.trim_end() == "---" => {}
        _ => {
            return Err(error(
                1,
                "the file must start with a front matter block: a `---` line, `key: value` \
                 lines (name, description, …), and a closing `---` line",
            ));
        }
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut end_line = None;
    let mut consumed = 0;
    for (number, raw) in lines.by_ref() {
        consumed = number;
        let line = raw.trim_end();
        if line == "---" {
            end_line = Some(number);
            break;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(item) = trimmed
            .strip_prefix("- ")
            .or(trimmed.strip_prefix('-').filter(|r| r.is_empty()))
        {
            match entries.last_mut() {
                Some(Entry {
                    value: Value::List(items),
                    ..
                }) if line.starts_with([' ', '\t', '-']) => {
                    items.push(scalar(item.trim(), number)?)
                }
                _ => {
                    return Err(error(
                        number,
                        "a `- item` line must follow a `key:` line with no value",
                    ));
                }
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return Err(error(
                number,
                "unexpected indented line: nested values are not supported (use `key: value`)",
            ));
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(error(
                number,
                format!("expected `key: value`, found {line:?}"),
            ));
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(error(number, format!("{key:?} is not a valid key")));
        }
        if entries.iter().any(|entry| entry.key == key) {
            return Err(error(number, format!("`{key}` is given twice")));
        }
        let value = value.trim();
        let value = if value.is_empty() {
            Value::List(Vec::new())
        } else if let Some(inner) = value.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(error(
                    number,
                    "a `[` list must close with `]` on the same line",
                ));
            };
            Value::List(
                split_list(inner)
                    .into_iter()
                    .map(|item| scalar(item, number))
                    .collect::<Result<_, _>>()?,
            )
        } else {
            Value::Text(scalar(value, number)?)
        };
        entries.push(Entry {
            key: key.to_string(),
            value,
            line: number,
        });
    }
    let Some(end_line) = end_line else {
        return Err(error(
            consumed.max(1),
            "the front matter is not closed: add a `---` line after it",
        ));
    };
    let body = text
        .lines()
        .skip(end_line)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    Ok(Document {
        entries,
        body,
        end_line,
    })
}

/// The items of an inline list, split at commas outside quotes.
fn split_list(inner: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut quote = None;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ',') => {
                items.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() || !items.is_empty() {
        items.push(last);
    }
    items.retain(|item| !item.is_empty());
    items
}

/// A plain or quoted scalar. Quotes are taken off; `\"` and `\\` unescaped in double quotes.
/// A trailing ` # comment` after a plain value is dropped.
fn scalar(value: &str, line: usize) -> Result<String, Error> {
    let value = value.trim();
    for quote in ['"', '\''] {
        if let Some(rest) = value.strip_prefix(quote) {
            let (inner, after) = split_quoted(rest, quote)
                .ok_or_else(|| error(line, format!("unclosed {quote} quote")))?;
            let after = after.trim_start();
            if !after.is_empty() && !after.starts_with('#') {
                return Err(error(
                    line,
                    format!("unexpected {after:?} after the closing {quote}"),
                ));
            }
            return Ok(inner);
        }
    }
    let value = match value.find(" #") {
        Some(at) => value[..at].trim_end(),
        None => value,
    };
    Ok(value.to_string())
}

/// The text of a quoted scalar whose opening `quote` is gone, unescaped (`\"` and `\\` in
/// double quotes, `''` in single quotes), and what follows its closing quote; `None` when it
/// is not closed.
fn split_quoted(rest: &str, quote: char) -> Option<(String, &str)> {
    let mut text = String::new();
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\\' && quote == '"' {
            // `\"` and `\\` are unescaped; any other backslash stays as written (`C:\dir`).
            let next = chars.next()?.1;
            if next != '"' && next != '\\' {
                text.push('\\');
            }
            text.push(next);
        } else if c == quote {
            if quote == '\'' && chars.peek().is_some_and(|&(_, next)| next == '\'') {
                chars.next();
                text.push('\'');
            } else {
                return Some((text, &rest[i + c.len_utf8()..]));
            }
        } else {
            text.push(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn entry(key: &str, value: Value, line: usize) -> Entry {
        Entry {
            key: key.into(),
            value,
            line,
        }
    }

    #[test]
    fn reads_strings_inline_and_block_lists_and_the_body() {
        let text = "---\nname: reviewer\ndescription: \"Reviews: diffs\" # why\ntools: [Read, 'Grep']\n# a comment\nglobs:\n  - src/**/*.rs\n  - \"*.toml\"\nmax_steps: 12\n---\n\nYou review.\n\nCarefully.\n";
        let doc = parse(text).unwrap();
        assert_eq!(
            doc.entries,
            vec![
                entry("name", Value::Text("reviewer".into()), 2),
                entry("description", Value::Text("Reviews: diffs".into()), 3),
                entry("tools", Value::List(vec!["Read".into(), "Grep".into()]), 4),
                entry(
                    "globs",
                    Value::List(vec!["src/**/*.rs".into(), "*.toml".into()]),
                    6
                ),
                entry("max_steps", Value::Text("12".into()), 9),
            ]
        );
        assert_eq!(doc.body, "You review.\n\nCarefully.");
        assert_eq!(doc.end_line, 10);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("name: x\n", 1, "must start with a front matter block"),
            ("---\nname: x\n", 2, "not closed"),
            ("---\nname x\n---\n", 2, "expected `key: value`"),
            ("---\nname: a\nname: b\n---\n", 3, "given twice"),
            ("---\ntools: [Read\n---\n", 2, "must close with `]`"),
            ("---\n- Read\n---\n", 2, "must follow a `key:` line"),
            ("---\ndescription: \"open\n---\n", 2, "unclosed"),
            ("---\nname: a\n  nested: b\n---\n", 3, "nested values"),
        ];
        for (text, line, message) in cases {
            let err = parse(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err:?}");
            assert!(err.message.contains(message), "{text:?}: {err:?}");
        }
    }

    #[test]
    fn only_a_quote_and_a_backslash_are_unescaped() {
        let doc = parse("---\na: \"C:\\dir \\\\ \\\"x\\\" \\n\"\n---\n").unwrap();
        assert_eq!(
            doc.entries[0].value,
            Value::Text("C:\\dir \\ \"x\" \\n".into())
        );
    }

    #[test]
    fn a_bom_and_crlf_line_ends_are_fine() {
        let doc = parse("\u{feff}---\r\nname: a\r\n---\r\nbody\r\n").unwrap();
        assert_eq!(doc.entries, vec![entry("name", Value::Text("a".into()), 2)]);
        assert_eq!(doc.body, "body");
    }
}
