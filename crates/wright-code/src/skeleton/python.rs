//! Python's skeleton, by logical lines: only the statements that lead to a `def` or `class`
//! (the definition, its decorators and the blocks around it) are kept, at every depth, with
//! the module's constants (`X = …`, `X: T = …` at its top level, which the tag query reports),
//! and one statement of every block that would be left empty (the shortest simple one).
//! Docstrings, imports, class attributes, calls and comment lines go. In what is kept, the
//! insides of the outermost brackets go too (parameters, arguments, bases, values), but a
//! subscript's (`Dict[]` would not parse) and an import's. The same definitions as the whole
//! files on Python 3.11's library (667 files), and Python's `ast` accepts every skeleton.

/// One logical line: its bytes (the newline included) and what it is.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    /// Its indentation's width (a tab to the next multiple of 8).
    indent: usize,
    kind: Kind,
    /// It goes on a statement begun above (`elif`, `else`, `except`, `finally`).
    continues: bool,
    /// It assigns to a name (`X = 1`, `X: int = 1`): at the module's level, a constant.
    assigns_name: bool,
    /// Its outermost brackets whose insides may go (indexes into the groups found).
    groups: (usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Empty, or only a comment.
    Blank,
    /// `def`, `async def`, `class`, or a decorator; `opens` when it ends with `:`.
    Definition { opens: bool },
    /// Ends with `:`: opens a block.
    Opener,
    /// Any other statement.
    Simple,
}

/// What of `source` the parser need not read; `None` when its brackets or strings cannot be
/// read (parse it whole).
pub(super) fn gaps(source: &[u8]) -> Option<Vec<(usize, usize)>> {
    let (lines, groups) = logical_lines(source)?;
    let count = lines.len();
    let is_definition = |n: usize| matches!(lines[n].kind, Kind::Definition { .. });
    let opens = |n: usize| {
        matches!(
            lines[n].kind,
            Kind::Opener | Kind::Definition { opens: true }
        )
    };
    // Where each line's block ends: the next line, not blank, indented no deeper.
    let mut block_end = vec![count; count];
    let mut open: Vec<usize> = Vec::new();
    for n in 0..count {
        if lines[n].kind == Kind::Blank {
            continue;
        }
        while let Some(&m) = open.last()
            && lines[m].indent >= lines[n].indent
        {
            block_end[m] = n;
            open.pop();
        }
        open.push(n);
    }
    // The first definition at or after each line.
    let mut next_definition = vec![count; count + 1];
    for n in (0..count).rev() {
        next_definition[n] = if is_definition(n) {
            n
        } else {
            next_definition[n + 1]
        };
    }
    // Only what leads to a definition, and the module's constants.
    let mut keep: Vec<bool> = (0..count)
        .map(|n| {
            lines[n].kind != Kind::Blank
                && (next_definition[n] < block_end[n]
                    || lines[n].indent == 0 && lines[n].assigns_name)
        })
        .collect();
    // A statement's clauses are kept together (`elif` needs its `if`, `try` its `except`),
    // and no block is left empty: one whose lines are all left out keeps one of them, the
    // shortest simple statement (else its first line, and so on down).
    let clauses = |n: usize| -> Vec<usize> {
        let sibling = |from: usize, step_back: bool| {
            let indent = lines[n].indent;
            let found = if step_back {
                (0..from)
                    .rev()
                    .find(|&b| lines[b].kind != Kind::Blank && lines[b].indent <= indent)
            } else {
                (from + 1..count)
                    .find(|&b| lines[b].kind != Kind::Blank && lines[b].indent <= indent)
            };
            found.filter(|&b| lines[b].indent == indent)
        };
        let mut head = n;
        while lines[head].continues {
            match sibling(head, true) {
                Some(before) => head = before,
                None => break,
            }
        }
        let mut group = vec![head];
        let mut at = head;
        while let Some(after) = sibling(at, false).filter(|&a| lines[a].continues) {
            group.push(after);
            at = after;
        }
        group
    };
    let mut todo: Vec<usize> = (0..count).filter(|&n| keep[n]).collect();
    while let Some(n) = todo.pop() {
        for m in clauses(n) {
            if !keep[m] {
                keep[m] = true;
                todo.push(m);
            }
        }
        if !opens(n) {
            continue;
        }
        let children: Vec<usize> = {
            let mut direct = None;
            (n + 1..block_end[n])
                .filter(|&m| lines[m].kind != Kind::Blank)
                .filter(|&m| *direct.get_or_insert(lines[m].indent) == lines[m].indent)
                .collect()
        };
        if children.is_empty() || children.iter().any(|&m| keep[m]) {
            continue;
        }
        let simple = children
            .iter()
            .copied()
            .filter(|&m| lines[m].kind == Kind::Simple)
            .min_by_key(|&m| lines[m].end - lines[m].start);
        let chosen = simple.unwrap_or(children[0]);
        keep[chosen] = true;
        todo.push(chosen);
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (line, kept) in lines.iter().zip(keep) {
        if kept {
            // A kept line's parameters, arguments, bases and values are not read either.
            out.extend(
                groups[line.groups.0..line.groups.1]
                    .iter()
                    .map(|&(open, close)| (open + 1, close)),
            );
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == line.start => last.1 = line.end,
            _ => out.push((line.start, line.end)),
        }
    }
    Some(out)
}

/// Brackets, by the offsets of their opening and closing bytes.
type Brackets = Vec<(usize, usize)>;

/// A bracket's inside shorter than this is read.
const MIN_GROUP_BYTES: usize = 8;

/// The logical lines of `source` (physical lines joined inside brackets, strings and after a
/// `\`), and the outermost brackets whose insides a kept line need not show the parser (a
/// call's, a tuple's, a dict's or a list's, not a subscript's: `Dict[]` would not parse);
/// `None` when a bracket does not balance or a triple-quoted string does not end.
fn logical_lines(source: &[u8]) -> Option<(Vec<Line>, Brackets)> {
    let at = |i: usize| source.get(i).copied().unwrap_or(0);
    let mut lines = Vec::new();
    let mut groups: Brackets = Vec::new();
    let mut i = 0;
    while i < source.len() {
        let start = i;
        let mut indent = 0;
        while matches!(at(i), b' ' | b'\t' | b'\x0c') {
            indent = if at(i) == b'\t' {
                (indent / 8 + 1) * 8
            } else {
                indent + 1
            };
            i += 1;
        }
        let first = i;
        let mut depth = 0usize;
        // The last byte of code (not a comment or whitespace) on the line.
        let mut last = 0u8;
        let groups_from = groups.len();
        // The outermost bracket open, if its inside may go.
        let mut group: Option<usize> = None;
        while i < source.len() {
            let b = source[i];
            match b {
                b'\n' if depth == 0 => break,
                b'#' => {
                    i = source[i..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(source.len(), |p| i + p);
                    continue;
                }
                b'\\' if at(i + 1) == b'\n' => {
                    i += 2;
                    continue;
                }
                b'\\' if at(i + 1) == b'\r' && at(i + 2) == b'\n' => {
                    i += 3;
                    continue;
                }
                b'(' | b'[' | b'{' => {
                    if depth == 0 {
                        let subscript = b == b'['
                            && (last.is_ascii_alphanumeric()
                                || matches!(last, b'_' | b')' | b']' | b'}' | b'"' | b'\'')
                                || last >= 0x80);
                        group = (!subscript).then_some(i);
                    }
                    depth += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0
                        && let Some(open) = group.take()
                        && i - open > MIN_GROUP_BYTES
                    {
                        groups.push((open, i));
                    }
                }
                b'"' | b'\'' => {
                    i = skip_string(source, i)?;
                    last = b;
                    continue;
                }
                _ => {}
            }
            if !b.is_ascii_whitespace() {
                last = b;
            }
            i += 1;
        }
        if depth != 0 {
            return None;
        }
        // Past the newline.
        let end = (i + 1).min(source.len());
        let word_end = source[first..end]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
            .map_or(end, |p| first + p);
        let word = &source[first..word_end];
        let kind = if first >= end || matches!(at(first), b'\n' | b'\r' | b'#') {
            Kind::Blank
        } else if at(first) == b'@' {
            Kind::Definition { opens: false }
        } else if word == b"class"
            || word == b"def"
            || word == b"async" && starts_def(&source[word_end..end])
        {
            Kind::Definition {
                opens: last == b':',
            }
        } else if last == b':' {
            Kind::Opener
        } else {
            Kind::Simple
        };
        if matches!(word, b"from" | b"import") {
            // `from m import ()` would not parse.
            groups.truncate(groups_from);
        }
        let assigns_name =
            kind == Kind::Simple && !word.is_empty() && !KEYWORDS.contains(&word) && {
                let rest = source[word_end..end].trim_ascii_start();
                rest.first() == Some(&b':')
                    || rest.first() == Some(&b'=') && rest.get(1) != Some(&b'=')
            };
        lines.push(Line {
            start,
            end,
            indent,
            kind,
            continues: matches!(word, b"elif" | b"else" | b"except" | b"finally"),
            assigns_name,
            groups: (groups_from, groups.len()),
        });
        i = end;
    }
    Some((lines, groups))
}

/// Words that start a statement that assigns no name.
const KEYWORDS: &[&[u8]] = &[
    b"assert",
    b"del",
    b"global",
    b"nonlocal",
    b"pass",
    b"raise",
    b"return",
    b"yield",
    b"import",
    b"from",
    b"lambda",
    b"not",
    b"await",
];

/// Whether what follows `async` is `def`.
fn starts_def(rest: &[u8]) -> bool {
    let rest = &rest[rest.iter().take_while(|c| c.is_ascii_whitespace()).count()..];
    rest.starts_with(b"def")
        && !rest
            .get(3)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Past the string whose quote is at `quote` (a prefix such as `rb` is a word before it; a
/// backslash keeps the next byte in the string, raw strings too): triple-quoted strings span
/// lines, others end at their line's end at the latest; `None` when a triple-quoted one never
/// ends.
fn skip_string(source: &[u8], quote: usize) -> Option<usize> {
    let q = source[quote];
    if source[quote..].starts_with(&[q, q, q]) {
        let mut i = quote + 3;
        while i < source.len() {
            if source[i] == b'\\' {
                i += 2;
            } else if source[i..].starts_with(&[q, q, q]) {
                return Some(i + 3);
            } else {
                i += 1;
            }
        }
        return None;
    }
    let mut i = quote + 1;
    while i < source.len() {
        match source[i] {
            b'\\' => i += 2,
            b'\n' => return Some(i),
            c if c == q => return Some(i + 1),
            _ => i += 1,
        }
    }
    Some(source.len())
}
