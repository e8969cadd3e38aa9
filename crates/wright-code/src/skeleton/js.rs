//! JavaScript's and TypeScript's skeleton, by brace blocks. Definitions are found at every
//! depth in these languages (a function assigned in a function's body, a method of an object
//! literal returned by a factory, an IIFE that wraps a whole library), so no kind of block is
//! left out as such: the lexer leaves out the inside of every `{…}` in which it saw nothing
//! that may make a definition, and keeps the others, where it does the same one level down.
//! What may make a definition:
//!
//! - `function name`, and any `function` or arrow that is a value (after `=` or `:`, so
//!   `f = function`, `x.y = async () =>`, `{ key: function }`; not a callback's);
//! - `class`, `interface`, `namespace`, `module`, `declare`, `enum`, `type Name`, `export`;
//! - a method: `name(…) {` or, in TypeScript, `name(…): T` (a signature or a return type;
//!   not a conditional's `c ? f(x) : y`), the name
//!   a word, a string, `[…]`, `#name`, `?` or a generic's `>`; `new (…)` (a construct
//!   signature).
//!
//! The bodies of classes, interfaces and namespaces are kept whatever was seen in them, and so
//! are template literals' `${…}`, which cannot be empty. Comments go too, and what an array
//! literal holds (not a subscript's `a[i]`, a computed key's `[k]: v` or a pattern's
//! `[a, b] =`). A block reads as `{}` wherever it stands (a body, an object, a pattern, a JSX
//! expression). Regular
//! expressions are told from division by the token before the `/`; strings and regular
//! expressions end at a line's end, so that a JSX text's apostrophe (`<p>Don't</p>`) does not
//! run on. Brackets that do not balance give no skeleton; a skeleton that parses with an
//! error is parsed whole again (`parses_whole_after_an_error`).

use super::{
    MIN_BODY_BYTES, is_ident, is_ident_start, memchr_from, next_byte, skip_block_comment, skip_word,
};

/// An open bracket.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// `{`, `(`, `[`, or `$` for a template literal's `${`.
    kind: u8,
    /// Where it opened.
    start: usize,
    /// Something that may make a definition was seen inside.
    defs: bool,
    /// Kept whatever is inside (a class's body, a template's `${…}`).
    keep: bool,
    /// A `=` or `:` was seen at this level since its last `;`: a `function` or arrow
    /// now is a value (`f = () => …`, `{ key: function () {…} }`).
    value: bool,
    /// A `(`: it follows what may name a method (`name(`, `'key'(`, `[key](`, `<T>(`).
    method: bool,
    /// A `[`: it opens an array (or a tuple type), not a subscript (`a[i]`) or what may be
    /// a computed key (`{ [k]: v }`, `[Symbol.iterator]() {`).
    array: bool,
    /// Conditionals' `?`s at this level still waiting for their `:`.
    conditionals: u32,
}

impl Frame {
    fn new(kind: u8, start: usize) -> Self {
        Self {
            kind,
            start,
            defs: false,
            keep: false,
            value: false,
            method: false,
            array: false,
            conditionals: 0,
        }
    }
}

/// Words after which a `/` starts a regular expression, not a division.
const BEFORE_EXPRESSION: &[&[u8]] = &[
    b"return",
    b"typeof",
    b"case",
    b"do",
    b"else",
    b"in",
    b"instanceof",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"yield",
    b"await",
    b"of",
];

/// Words whose `(…) {` is not a method (`if (x) {`).
const STATEMENT_WORDS: &[&[u8]] = &[
    b"if",
    b"for",
    b"while",
    b"switch",
    b"catch",
    b"with",
    b"function",
    b"return",
    b"typeof",
    b"await",
    b"yield",
    b"void",
    b"in",
    b"of",
    b"case",
    b"new",
    b"delete",
    b"throw",
    b"else",
    b"do",
];

/// What of `source` the parser need not read; `None` when its brackets do not balance.
/// `typescript`: the file may hold signatures (`name(…): T`).
pub(super) fn gaps(source: &[u8], typescript: bool) -> Option<Vec<(usize, usize)>> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    // Left out, over gaps already left out inside it.
    let leave_out = |out: &mut Vec<(usize, usize)>, from: usize, to: usize| {
        while out.last().is_some_and(|last| last.0 >= from) {
            out.pop();
        }
        out.push((from, to));
    };
    let at = |i: usize| source.get(i).copied().unwrap_or(0);
    let mut frames: Vec<Frame> = Vec::new();
    // The last token's last byte (0 at the start), and the last word if it was one.
    let mut last = 0u8;
    let mut last_word: &[u8] = b"";
    // The token before the last word (`.` makes `x.return` a property, `,` makes
    // `{ a, delete(k) {…} }` a method).
    let mut before_word = 0u8;
    // The last token closed a method's `(…)`.
    let mut after_method_parens = false;
    // A class, interface or namespace was declared at this depth: its next `{` is its body.
    let mut body_pending: Option<usize> = None;
    let mut i = 0;
    if source.starts_with(b"#!") {
        i = memchr_from(source, 0, b'\n');
    }
    while i < source.len() {
        let b = source[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // What may make a definition was seen here.
        let mut defines = false;
        match b {
            b'/' if at(i + 1) == b'/' => {
                let end = memchr_from(source, i, b'\n');
                leave_out(&mut out, i, end);
                i = end;
                continue;
            }
            b'/' if at(i + 1) == b'*' => {
                let end = skip_block_comment(source, i + 2, false).unwrap_or(source.len());
                // Not between two tokens that would then read as one.
                if i == 0
                    || source[i - 1].is_ascii_whitespace()
                    || at(end).is_ascii_whitespace()
                    || end == source.len()
                {
                    leave_out(&mut out, i, end);
                }
                i = end;
                continue;
            }
            b'/' if expression_may_follow(source, i, last, last_word, before_word) => {
                i = skip_regex(source, i);
                last = b'/';
                last_word = b"";
                continue;
            }
            b'"' | b'\'' => {
                i = skip_string(source, i);
                last = b'"';
                last_word = b"";
                continue;
            }
            b'`' => {
                (i, last) = read_template(source, i + 1, &mut frames);
                last_word = b"";
                continue;
            }
            b'{' | b'(' | b'[' => {
                if b == b'{' && after_method_parens {
                    defines = true;
                }
                if b == b'(' && last_word == b"new" {
                    // `new (…): T`, a construct signature (`new (a)` builds nothing else).
                    defines = true;
                }
                let mut frame = Frame::new(b, i);
                if b == b'{' && body_pending == Some(frames.len()) {
                    frame.keep = true;
                    body_pending = None;
                }
                if b == b'[' {
                    frame.array = expression_may_follow(source, i, last, last_word, before_word)
                        && !matches!(last, 0 | b'{' | b'}' | b';');
                }
                if b == b'(' {
                    frame.method = match last {
                        b'"' | b']' | b'>' | b'?' => last_word.is_empty(),
                        c if is_ident(c) => {
                            !STATEMENT_WORDS.contains(&last_word)
                                || keyword_method(last_word, before_word)
                        }
                        _ => false,
                    };
                    // `=>`'s `>` is no generic's.
                    if last == b'>' && i >= 2 && source[..i].trim_ascii_end().ends_with(b"=>") {
                        frame.method = false;
                    }
                }
                mark(&mut frames, defines);
                frames.push(frame);
                last = b;
                last_word = b"";
                i += 1;
                continue;
            }
            b'}' | b')' | b']' => {
                let opener = match b {
                    b'}' => b'{',
                    b')' => b'(',
                    _ => b'[',
                };
                let frame = frames.pop()?;
                if frame.kind == b'$' && b == b'}' {
                    // Back in the template literal.
                    mark(&mut frames, frame.defs);
                    (i, last) = read_template(source, i + 1, &mut frames);
                    last_word = b"";
                    continue;
                }
                if frame.kind != opener {
                    return None;
                }
                let leave = match b {
                    b'}' => !frame.keep,
                    // `[a, b] = …` and `[k]: v` need what the brackets hold.
                    b']' => frame.array && !matches!(next_byte(source, i + 1), b':' | b'(' | b'='),
                    _ => false,
                };
                if leave && !frame.defs && i - frame.start > MIN_BODY_BYTES {
                    leave_out(&mut out, frame.start + 1, i);
                }
                mark(&mut frames, frame.defs);
                let method_parens = b == b')' && frame.method;
                if body_pending.is_some_and(|depth| depth > frames.len()) {
                    body_pending = None;
                }
                last = b;
                last_word = b"";
                after_method_parens = method_parens;
                i += 1;
                continue;
            }
            b'=' if at(i + 1) == b'>' => {
                // An arrow: a definition when it is a value.
                if frames.last().is_none_or(|f| f.value) {
                    defines = true;
                }
                mark(&mut frames, defines);
                last = b'>';
                last_word = b"";
                i += 2;
                after_method_parens = false;
                continue;
            }
            b'=' | b':' => {
                // `==`, `<=`, `!=` compare; `::` does not occur.
                let compares =
                    b == b'=' && (at(i + 1) == b'=' || matches!(last, b'=' | b'!' | b'<' | b'>'));
                // A conditional's `:` (`c ? f(x) : y`) ends its `?`.
                let conditional = b == b':'
                    && frames.last_mut().is_some_and(|f| {
                        let open = f.conditionals > 0;
                        f.conditionals = f.conditionals.saturating_sub(1);
                        open
                    });
                if b == b':' && after_method_parens && typescript && !conditional {
                    // `name(…): T`, a signature or a method with a return type.
                    defines = true;
                }
                if !compares && let Some(frame) = frames.last_mut() {
                    frame.value = true;
                }
            }
            // A conditional's `?`, not `?.`, `??`, an optional `x?: T`, `f?(`, `x?,` or `x?)`.
            b'?' if !matches!(at(i + 1), b'.' | b'?' | b':' | b'(' | b',' | b')' | b'=')
                && last != b'?' =>
            {
                if let Some(frame) = frames.last_mut() {
                    frame.conditionals += 1;
                }
            }
            b';' => {
                // (Not at a `,`, which may be a generic's: `(s): Map<K, V> => {`.)
                if let Some(frame) = frames.last_mut() {
                    frame.value = false;
                    frame.conditionals = 0;
                }
                if body_pending == Some(frames.len()) {
                    // `declare module "x";`, `export declare class A;` had no body.
                    body_pending = None;
                }
            }
            _ if is_ident_start(b) || b == b'$' || b == b'#' => {
                let end = skip_word(source, i + 1);
                let word = &source[i..end];
                // A property's name (`x.class`, `{ type: 1 }`) is no keyword.
                let next = next_byte(source, end);
                let property = last == b'.' || next == b':' || next == b'?';
                let named = is_ident_start(next) || next == b'$';
                if !property {
                    match word {
                        // Named, or a value (`f = function`); a callback's is neither.
                        b"function"
                            if named || next == b'*' || frames.last().is_none_or(|f| f.value) =>
                        {
                            defines = true;
                        }
                        b"class" | b"interface" | b"namespace" | b"module" | b"declare"
                            if named || matches!(next, b'{' | b'"' | b'\'') =>
                        {
                            defines = true;
                            body_pending = Some(frames.len());
                        }
                        b"enum" | b"abstract" | b"type" if named => defines = true,
                        b"export" => defines = true,
                        _ => {}
                    }
                }
                mark(&mut frames, defines);
                before_word = last;
                last = source[end - 1];
                last_word = word;
                after_method_parens = false;
                i = end;
                continue;
            }
            _ if b.is_ascii_digit() => {
                let end = skip_word(source, i + 1);
                last = b'0';
                last_word = b"0";
                after_method_parens = false;
                i = end;
                continue;
            }
            _ => {}
        }
        mark(&mut frames, defines);
        after_method_parens = false;
        last = b;
        last_word = b"";
        i += 1;
    }
    frames.is_empty().then_some(out)
}

/// Something that may make a definition was seen in the innermost bracket (which tells the
/// brackets around it when it closes).
fn mark(frames: &mut [Frame], defines: bool) {
    if defines && let Some(frame) = frames.last_mut() {
        frame.defs = true;
    }
}

/// Whether `word(` names a method though the word starts statements, by the token before it:
/// a block has `if (…) {` after `{` or `;` but an object `{ a, if() {…} }` after `,`; a
/// `catch` that follows no `}` is a method (`{ catch(fn) {…} }`), and so is a word that never
/// takes `(…) {` (`{ delete(k) {…} }`) or hardly ever (`with`, which strict code forbids).
fn keyword_method(word: &[u8], before: u8) -> bool {
    match word {
        b"if" | b"for" | b"while" | b"switch" | b"function" => before == b',',
        b"catch" => before != b'}',
        _ => before != b'.',
    }
}

/// Whether an expression may start at `at` after this token, so that a `/` there starts a
/// regular expression (and a `[` an array): after an operator, an opening bracket, a `}` (a
/// block's end) or a keyword that an expression follows; not after a name, a number, a
/// string, a closing `)`/`]`, a property named like a keyword (`x.return / 2`), `x++`/`x--`
/// or a JSX closing tag's `<` (`</p>`).
fn expression_may_follow(
    source: &[u8],
    at: usize,
    last: u8,
    last_word: &[u8],
    before_word: u8,
) -> bool {
    if !last_word.is_empty() {
        return before_word != b'.' && BEFORE_EXPRESSION.contains(&last_word);
    }
    !matches!(last, b')' | b']' | b'"' | b'/' | b'<')
        && !is_ident(last)
        && !matches!(
            source[..at].trim_ascii_end(),
            [.., b'+', b'+'] | [.., b'-', b'-']
        )
}

/// Past the regular expression whose `/` is at `from` (its flags too); a `/` with no end on
/// its line is taken for a division.
fn skip_regex(source: &[u8], from: usize) -> usize {
    let mut i = from + 1;
    let mut class = false;
    while i < source.len() {
        match source[i] {
            b'\\' => i += 1,
            b'\n' | b'\r' => return from + 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => return skip_word(source, i + 1),
            _ => {}
        }
        i += 1;
    }
    from + 1
}

/// Past the string whose quote is at `from`; at its line's end if it has none there.
fn skip_string(source: &[u8], from: usize) -> usize {
    let quote = source[from];
    let mut i = from + 1;
    while i < source.len() {
        match source[i] {
            b'\\' => i += 1,
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => {}
        }
        i += 1;
    }
    source.len()
}

/// Where a template literal's text, from `from`, stops.
enum Template {
    /// Past its closing backtick (or at the end of the file).
    End(usize),
    /// At a `${` (its offset).
    Expression(usize),
}

/// Reads a template literal's text from `from` (past its backtick, or past a `${…}`'s `}`):
/// where to go on from, and the token it leaves last (a string's, or the `{` of a `${` that
/// opens a bracket, kept whatever is in it).
fn read_template(source: &[u8], from: usize, frames: &mut Vec<Frame>) -> (usize, u8) {
    match skip_template(source, from) {
        Template::End(end) => (end, b'"'),
        Template::Expression(open) => {
            let mut frame = Frame::new(b'$', open);
            frame.keep = true;
            frames.push(frame);
            (open + 2, b'{')
        }
    }
}

fn skip_template(source: &[u8], from: usize) -> Template {
    let mut i = from;
    while i < source.len() {
        match source[i] {
            b'\\' => i += 1,
            b'`' => return Template::End(i + 1),
            b'$' if source.get(i + 1) == Some(&b'{') => return Template::Expression(i),
            _ => {}
        }
        i += 1;
    }
    Template::End(source.len())
}
