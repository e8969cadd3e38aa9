//! A file's skeleton: the source with the insides of its function bodies left out, for
//! tree-sitter to parse in place of the whole file (issue 18: parsing was three quarters of a
//! cold index, and most of a file's bytes are function bodies, where Definitions looks for
//! nothing). A light lexer (comments, strings and character literals per language) finds each
//! body's braces; the parser reads the ranges between bodies, joined into one text ([`Joined`],
//! which maps positions back to the file's) or, for JavaScript, as included ranges
//! (`Parser::set_included_ranges`), so that a body reads as `{}`.
//!
//! A body is the `{…}` that follows a function's signature at a level that is not itself in a
//! body: after `fn name` in Rust, after `func` in Go, after a signature's `)` in C, C++ and
//! Java (see `CLike`). Parameters, constants' values, fields, item-level macro inputs, `use`s,
//! attributes and comments go too; in C and C++ also what tree-sitter would take for broken
//! code and recover from at length (macro calls that make a statement, `GTEST_API_`-like
//! words, files of array elements) and what defines nothing (variables, `using` declarations,
//! base classes, preprocessor lines but conditionals) and in C++ the insides of template
//! argument and parameter lists (`Foo<>`); in Java statements without brackets
//! (imports, fields). An item first in a body's statements (a local `struct`, `impl`, class)
//! is read, and the body left out around it; what is nested deeper is not seen (see the
//! completeness figures in `bench/definitions.sh`). Python's skeleton works by logical lines
//! (`skeleton/python.rs`), JavaScript's and TypeScript's by blocks that may define something
//! at any depth (`skeleton/js.rs`). When the brackets do not balance (a lexer out of step
//! with the file, braces that balance only across preprocessor branches), there is no
//! skeleton and the whole file is parsed.

use tree_sitter::{Point, Range};

use crate::Lang;

mod js;
mod python;

/// Bodies shorter than this are parsed whole: a range costs more than it saves.
const MIN_BODY_BYTES: usize = 16;

/// A JavaScript file's skeleton leaves out this many gaps at most, the largest (see
/// `skeleton_gaps`); other languages' skeletons are joined (see [`Joined`]).
const MAX_GAPS: usize = 1024;

/// C-like parameter lists shorter than this are parsed whole.
const MIN_PARAMS_BYTES: usize = 4;

/// C++ template lists shorter than this are parsed whole (`Foo<T>`).
const MIN_TEMPLATE_LIST_BYTES: usize = 4;

/// The ranges of `source` to parse, leaving out the insides of function bodies; `None` when
/// the language has no skeleton or the file's braces cannot be read (parse it whole).
pub(crate) fn included_ranges(lang: Lang, source: &[u8]) -> Option<Vec<Range>> {
    let gaps = skeleton_gaps(lang, source)?;
    let mut ranges = Vec::with_capacity(gaps.len() + 1);
    let mut lines = Lines::new(source);
    let mut start = 0;
    for (from, to) in gaps.into_iter().chain([(source.len(), source.len())]) {
        if from > start {
            ranges.push(Range {
                start_byte: start,
                end_byte: from,
                start_point: lines.point(start),
                end_point: lines.point(from),
            });
        }
        start = to;
    }
    if ranges.is_empty() {
        // Nothing to read (no ranges would mean the whole file).
        ranges.push(Range {
            start_byte: 0,
            end_byte: 0,
            start_point: Point::new(0, 0),
            end_point: Point::new(0, 0),
        });
    }
    Some(ranges)
}

/// A skeleton's ranges laid end to end, for tree-sitter to parse as a text of its own: the
/// lexer reads the same characters as over the ranges (it goes from a range's end straight to
/// the next range's start), but does not look for the range it is in from the first one at
/// every token (`ts_lexer_goto`, 14 % of fmt's parse). Positions in the tree are the joined
/// text's; [`Joined::position`] gives the source's. Not for JavaScript, whose scanner ends a
/// statement where an included range starts.
pub(crate) struct Joined {
    pub(crate) text: Vec<u8>,
    /// Where each range starts in `text`: its offset and point.
    starts: Vec<(usize, Point)>,
    ranges: Vec<Range>,
}

impl Joined {
    pub(crate) fn new(source: &[u8], ranges: Vec<Range>) -> Self {
        let mut text = Vec::with_capacity(ranges.iter().map(|r| r.end_byte - r.start_byte).sum());
        let mut starts = Vec::with_capacity(ranges.len());
        let mut end = Point::new(0, 0);
        for range in &ranges {
            starts.push((text.len(), end));
            let piece = source
                .get(range.start_byte..range.end_byte)
                .unwrap_or_default();
            text.extend_from_slice(piece);
            end = match piece.iter().rposition(|&b| b == b'\n') {
                None => Point::new(end.row, end.column + piece.len()),
                Some(last) => Point::new(
                    end.row + piece.iter().filter(|&&b| b == b'\n').count(),
                    piece.len() - last - 1,
                ),
            };
        }
        Self {
            text,
            starts,
            ranges,
        }
    }

    /// Where byte `at` of the joined text, at `point` in it (as the tree says), is in the
    /// source it was joined from: its offset and point. (Counting the lines from the range's
    /// start instead grew with the square of a long range's names: 10 s for a header of
    /// 40,000 prototypes.)
    pub(crate) fn position(&self, at: usize, point: Point) -> (usize, Point) {
        let i = self
            .starts
            .partition_point(|&(start, _)| start <= at)
            .saturating_sub(1);
        let (Some(range), Some(&(start, start_point))) = (self.ranges.get(i), self.starts.get(i))
        else {
            return (at, point);
        };
        let offset = range.start_byte + (at - start);
        // Within a range the text is the source's: a line begun in it is the source's line.
        let point = if point.row == start_point.row {
            Point::new(
                range.start_point.row,
                range.start_point.column + point.column.saturating_sub(start_point.column),
            )
        } else {
            Point::new(
                range.start_point.row + (point.row - start_point.row),
                point.column,
            )
        };
        (offset, point)
    }
}

/// Whether `lang`'s skeletons are parsed joined ([`Joined`]) rather than over included ranges.
pub(crate) fn joins(lang: Lang) -> bool {
    lang != Lang::JavaScript
}

/// What of `source` its skeleton leaves out, in order; `None` when the language has no
/// skeleton, the file's brackets cannot be read or nothing is left out.
fn skeleton_gaps(lang: Lang, source: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut gaps = match lang {
        Lang::Python => python::gaps(source)?,
        Lang::JavaScript => js::gaps(source, false)?,
        Lang::TypeScript | Lang::Tsx => js::gaps(source, true)?,
        _ => {
            let syntax = Syntax::of(lang)?;
            match gaps(&syntax, source, false) {
                Some(gaps) => gaps,
                // Braces that balance only across `#if`/`#else` (`#if X int f() { #else int
                // g() { #endif`): the first branches alone, as ctags reads them.
                None if syntax.c_like.is_some_and(|c| c.preprocessor) => {
                    gaps(&syntax, source, true)?
                }
                None => return None,
            }
        }
    };
    if gaps.len() > MAX_GAPS && !joins(lang) {
        // Only the largest gaps are left out: over included ranges, tree-sitter looks for the
        // range it is in from the first at every token (`ts_lexer_goto`), so that a file's
        // parse grows with the square of its ranges. (Fewer ranges, 256 or 64 at most, made
        // the measured trees slower.)
        let mut sizes: Vec<usize> = gaps.iter().map(|(from, to)| to - from).collect();
        let (_, &mut least, _) = sizes.select_nth_unstable_by(MAX_GAPS - 1, |a, b| b.cmp(a));
        let mut ties = MAX_GAPS - sizes.iter().filter(|&&size| size > least).count();
        gaps.retain(|(from, to)| match (to - from).cmp(&least) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal if ties > 0 => {
                ties -= 1;
                true
            }
            _ => false,
        });
    }
    (!gaps.is_empty()).then_some(gaps)
}

/// Rows and columns of byte offsets asked for in increasing order.
struct Lines<'a> {
    source: &'a [u8],
    at: usize,
    row: usize,
    line_start: usize,
}

impl<'a> Lines<'a> {
    fn new(source: &'a [u8]) -> Self {
        Self {
            source,
            at: 0,
            row: 0,
            line_start: 0,
        }
    }

    fn point(&mut self, offset: usize) -> Point {
        let upto = offset.min(self.source.len());
        if upto > self.at {
            // Counted in one pass the compiler vectorises (a byte-by-byte loop keeping the
            // line's start was a third of the lexer's time).
            let between = &self.source[self.at..upto];
            let newlines = between.iter().filter(|&&b| b == b'\n').count();
            if newlines > 0 {
                self.row += newlines;
                if let Some(last) = between.iter().rposition(|&b| b == b'\n') {
                    self.line_start = self.at + last + 1;
                }
            }
            self.at = upto;
        }
        Point::new(self.row, offset - self.line_start)
    }
}

/// What the lexer must know of a language.
struct Syntax {
    lang: Lang,
    /// The keyword that starts a function: the next `{` of its statement opens its body
    /// (none in C, C++ and Java, see `c_like`).
    function_keyword: Option<&'static [u8]>,
    /// The keyword must be followed by a name (Rust's `fn(u8)` is a pointer type), or start
    /// its line (Go's `type F func()` is a type).
    keyword_then_name: bool,
    /// The keywords of a statement whose value (after `=`) is left out.
    value_keywords: &'static [&'static [u8]],
    /// The value left out is the first `(…)`, `[…]` or `{…}` after `=` (Rust); else only a
    /// `{…}` (Go's composite literals, `[]T{…}`).
    any_bracket_value: bool,
    /// A line's end may end a statement (Go).
    newline_ends: bool,
    /// `` `…` `` is a string (Go's raw strings).
    backtick_strings: bool,
    /// C, C++ and Java: no function keyword; a `{` after a signature's `)` opens a body.
    c_like: Option<CLike>,
}

/// What tells a function's body from a class's in C, C++ and Java.
#[derive(Debug, Clone, Copy)]
struct CLike {
    /// Words that open a type or namespace, whose `{…}` is kept (`class`, `struct`…).
    class_words: &'static [&'static [u8]],
    /// Words that may stand between a signature's `)` and its body (`const`, `override`…).
    after_signature: &'static [&'static [u8]],
    /// A class word is followed by a name, then maybe a function's (C's `struct s *f(void)`):
    /// a `(` after it opens a signature when no `:` or `<` came between (C, C++). In Java a
    /// class word always keeps its braces (`record R(int x) {…}`).
    class_may_be_return_type: bool,
    /// `#` lines are the preprocessor's (C, C++).
    preprocessor: bool,
    /// A body's parameters and member initializers are left out with it (C, C++: they hold
    /// most of what is left of a header, in templates that tree-sitter reads slowly; in Java
    /// the ranges cost more than they save).
    parameters_left_out: bool,
}

const C_AFTER_SIGNATURE: &[&[u8]] = &[
    b"const",
    b"override",
    b"final",
    b"noexcept",
    b"volatile",
    b"mutable",
    b"try",
];

impl Syntax {
    fn of(lang: Lang) -> Option<Self> {
        Some(match lang {
            Lang::Rust => Self {
                lang,
                function_keyword: Some(b"fn"),
                keyword_then_name: true,
                value_keywords: &[b"const", b"static"],
                any_bracket_value: true,
                newline_ends: false,
                backtick_strings: false,
                c_like: None,
            },
            Lang::Go => Self {
                lang,
                function_keyword: Some(b"func"),
                keyword_then_name: false,
                value_keywords: &[b"var", b"const"],
                any_bracket_value: false,
                newline_ends: true,
                backtick_strings: true,
                c_like: None,
            },
            Lang::C | Lang::Cpp | Lang::Java => Self {
                lang,
                function_keyword: None,
                keyword_then_name: false,
                value_keywords: &[],
                any_bracket_value: false,
                newline_ends: false,
                backtick_strings: false,
                c_like: Some(if lang == Lang::Java {
                    CLike {
                        class_words: &[b"class", b"interface", b"enum", b"record"],
                        after_signature: &[],
                        class_may_be_return_type: false,
                        preprocessor: false,
                        parameters_left_out: false,
                    }
                } else {
                    CLike {
                        class_words: &[b"class", b"struct", b"union", b"enum", b"namespace"],
                        after_signature: C_AFTER_SIGNATURE,
                        class_may_be_return_type: true,
                        preprocessor: true,
                        parameters_left_out: true,
                    }
                }),
            },
            _ => return None,
        })
    }
}

/// What the statement being read will open next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Nothing,
    /// A function's signature: its next `{` opens the body.
    Body,
    /// A `const`/`static`/`var` statement, before its `=`.
    Init,
    /// After a value statement's `=`: its first bracket holds the value.
    Value,
    /// After a Rust macro's `name!` (or Go's `import`): its first bracket holds what it is
    /// given.
    MacroInput,
    /// After `struct`, `enum` or `union`: its first `{…}` or `(…)` holds the fields.
    Fields,
    /// A `use` declaration, from this offset (its visibility's) to its `;`.
    Use(usize),
    /// An attribute, `#[…]` or `#![…]`, from this offset to its `]`.
    Attribute(usize),
    /// A C or C++ macro's call, from this offset: one that starts a statement (`TEST_F(A,
    /// B)`, `MOCK_METHOD(…);`, `GTEST_DISABLE_MSC_WARNINGS_PUSH_(4251)`), or one after a
    /// signature (`void f() GTEST_LOCK_EXCLUDED_(mu) {`, `true`); and `last` before it, for
    /// once it is left out.
    CMacro(usize, bool, u8),
}

/// What of `source` the parser need not read, in order: the insides of function bodies, of
/// constants' values and of item-level macro calls, and the comments outside them; `None` when
/// the brackets do not balance.
/// With `first_branch` (C, C++), only the first branch of each preprocessor conditional is
/// read: the others and the conditionals' lines are left out.
fn gaps(syntax: &Syntax, source: &[u8], first_branch: bool) -> Option<Vec<(usize, usize)>> {
    let rust = syntax.lang == Lang::Rust;
    // A body's own statements are read for items defined there (not Go's: ctags lists none).
    let items_in_bodies = syntax.lang != Lang::Go;
    // An item in a body ends at its `}` (Rust, Java) or at a `;` (C's `struct s {…};`).
    let item_ends_at_brace = matches!(syntax.lang, Lang::Rust | Lang::Java);
    let at = |i: usize| source.get(i).copied().unwrap_or(0);
    let mut out: Vec<(usize, usize)> = Vec::new();
    // Left out: the previous gap grows over whitespace to meet the next.
    // A gap may cover ones already left out inside it (a comment in a `use`).
    let mut leave_out = |from: usize, to: usize| {
        // Gaps already left out inside it go; ones after it stay (a C++ function's
        // parameters are left out when its body is found, past a macro after them).
        let mut pos = out.partition_point(|gap| gap.0 < from);
        let (mut from, mut to) = (from, to);
        let mut end = pos;
        while end < out.len() && out[end].0 < to {
            to = to.max(out[end].1);
            end += 1;
        }
        if end < out.len() {
            if pos > 0 && out[pos - 1].1 >= from {
                pos -= 1;
                from = out[pos].0;
                to = to.max(out[pos].1);
            }
            out.splice(pos..end, [(from, to)]);
            return;
        }
        out.truncate(pos);
        // Merged over whitespace only where no two tokens then touch (`pub/**/ /**/fn`).
        if let Some(last) = out.last_mut()
            && source[last.1.min(from)..from]
                .iter()
                .all(u8::is_ascii_whitespace)
            && (last.0 == 0
                || source[last.0 - 1].is_ascii_whitespace()
                || source.get(to).is_none_or(u8::is_ascii_whitespace))
        {
            last.1 = last.1.max(to);
        } else {
            out.push((from, to));
        }
    };
    // The brackets open, innermost last.
    let mut open: Vec<u8> = Vec::new();
    // The group being left out: how many brackets were open outside it, where it opened (or
    // was taken up again), and whether it is a function's body.
    let mut skip: Option<Skip> = None;
    // Bodies being read for a moment, for an item defined in them (Rust's `struct Guard;
    // impl Drop for Guard {…}` in a function): how many brackets were open outside each.
    let mut suspended: Vec<usize> = Vec::new();
    let mut want = Want::Nothing;
    // Where the statement's `pub` began, if it began with one.
    let mut visibility: Option<usize> = None;
    // The last byte of the last token, for Go's statements that end at a line's end.
    let mut last = 0u8;
    // The preprocessor conditionals open, innermost last: whether each opened inside a
    // statement (and is read in its first branch alone).
    let mut conditionals: Vec<bool> = Vec::new();
    // Whether each `{` open opened a class's, a struct's or an enum's body, innermost last;
    // and whether the last `}` closed one (a declarator may follow it).
    let mut type_bodies: Vec<bool> = Vec::new();
    let mut closed_type_body = false;
    // What the statement being read has shown of a C-like signature.
    let mut c = CState::default();
    // The brackets open inside an enum's braces while its constants are read (until a `;`).
    let mut enum_constants: Option<usize> = None;
    // Where a C or C++ file begins with a number: data, an array's elements kept in a file
    // of their own to be `#include`d, no code (tree-sitter's error
    // recovery takes 90 ms over 10 KB of `18,16,19,…`). Left out to its `;` or the end.
    let mut data: Option<usize> = None;
    let first_token = skip_blank(source, 0);
    // Where a Java statement without a bracket but `[` began (an import, a field), to its
    // `;`; `None` once it has one.
    let mut plain: Option<usize> = None;
    let mut i = 0;
    while i < source.len() {
        // Set where `last` is to be that again, not the byte just read.
        let mut restore_last: Option<u8> = None;
        // In a group left out only brackets, strings, characters, comments and the ends of
        // statements matter, and in Rust the first word of a body's own statements (an item).
        if let Some(Skip { outside, .. }) = skip
            && (!items_in_bodies
                || open.len() > outside + 1
                || !matches!(last, b';' | b'{' | b'}' | b']'))
        {
            match source[i..].iter().position(|&c| SPECIAL[usize::from(c)]) {
                Some(p) => i += p,
                None => break,
            }
        }
        let b = source[i];
        // A statement's own level: not inside parentheses or brackets.
        let statement_level = matches!(open.last(), None | Some(b'{'));
        if b == b'#' && syntax.c_like.is_some_and(|c| c.preprocessor) && first_on_line(source, i) {
            // A preprocessor line (`#define OPEN {`) holds no bracket of the code's. The
            // parser need not read it but for the conditionals, whose branches it keeps apart.
            let directive = next_word(source, i + 1);
            let mut end = preprocessor_line_end(source, i);
            let other_branch = matches!(directive, b"else" | b"elif" | b"elifdef" | b"elifndef");
            let opens = directive.starts_with(b"if");
            let closes = directive == b"endif";
            // A conditional that opens inside a statement (`class A\n#if X\n: public B\n#endif
            // \n{`) is read in its first branch alone, its lines left out: tree-sitter reads
            // conditionals only between statements, and recovers from one inside at length.
            let inside = if opens {
                let inside = skip.is_none() && !between_statements(last, &c);
                conditionals.push(inside);
                inside
            } else {
                (other_branch || closes) && conditionals.last() == Some(&true)
            };
            let first_only = first_branch || inside;
            if first_only && other_branch {
                end = endif_line_end(source, end);
            }
            if closes || (first_only && other_branch) {
                conditionals.pop();
            }
            let conditional = opens || other_branch || closes;
            if skip.is_none() && (!conditional || first_only) {
                leave_out(i, end);
            }
            i = end;
            continue;
        }
        match b {
            b'/' if at(i + 1) == b'/' => {
                let end = memchr_from(source, i, b'\n');
                if skip.is_none() {
                    leave_out(i, end);
                }
                i = end;
                continue;
            }
            b'/' if at(i + 1) == b'*' => {
                let end = skip_block_comment(source, i + 2, rust)?;
                // Not between two tokens that would then read as one (`a/**/b`).
                if skip.is_none()
                    && (i == 0
                        || source[i - 1].is_ascii_whitespace()
                        || at(end).is_ascii_whitespace())
                {
                    leave_out(i, end);
                }
                i = end;
                continue;
            }
            b'"' => {
                i = match raw_string_hashes(source, i) {
                    Some(hashes) if rust => skip_raw(source, i + 1, hashes)?,
                    _ if syntax.lang == Lang::Java && source[i..].starts_with(b"\"\"\"") => {
                        // A text block.
                        source[i + 3..]
                            .windows(3)
                            .position(|w| w == b"\"\"\"")
                            .map(|p| i + 3 + p + 3)?
                    }
                    _ if syntax.lang == Lang::Cpp && cpp_raw_prefix(source, i) => {
                        skip_cpp_raw(source, i)?
                    }
                    _ => skip_quoted(source, i + 1, b'"')?,
                };
                last = b'"';
                continue;
            }
            b'`' if syntax.backtick_strings => {
                i = source[i + 1..]
                    .iter()
                    .position(|&c| c == b'`')
                    .map(|p| i + 1 + p + 1)?;
                last = b'"';
                continue;
            }
            b'\'' => {
                i = skip_char(source, i, rust)?;
                last = b'\'';
                continue;
            }
            b'\n'
                if syntax.newline_ends
                    && skip.is_none()
                    && statement_level
                    && (is_ident(last) || matches!(last, b')' | b']' | b'}' | b'"' | b'\'')) =>
            {
                want = Want::Nothing;
            }
            b'0'..=b'9'
                if syntax.c_like.is_some_and(|c| c.preprocessor)
                    && skip.is_none()
                    && open.is_empty()
                    && data.is_none()
                    && i == first_token =>
            {
                data = Some(i);
            }
            b'{' | b'(' | b'[' => {
                if b != b'[' {
                    plain = None;
                }
                let c_body = want == Want::Nothing
                    && b == b'{'
                    && statement_level
                    && syntax.c_like.is_some()
                    && c.body_follows(last)
                    && enum_constants != Some(open.len());
                if c_body && skip.is_none() {
                    // A signature is shown from its text: the parser needs only the `()`.
                    if let Params::Closed(open, close) = c.params
                        && close - open > MIN_PARAMS_BYTES
                    {
                        leave_out(open + 1, close);
                    }
                    if let Some(colon) = c.initializers {
                        leave_out(colon, i);
                    }
                }
                if b == b'{'
                    && skip.is_none()
                    && statement_level
                    && c.class
                    && let Some(colon) = c.bases
                {
                    leave_out(colon, i);
                }
                if b == b'('
                    && skip.is_none()
                    && statement_level
                    && c.params == Params::None
                    && !c.arrow
                    && syntax.c_like.is_some_and(|c| c.parameters_left_out)
                    && opens_parameters(source, i)
                {
                    c.params = Params::Open(i);
                }
                if skip.is_none()
                    && match want {
                        // The parameters too (a signature is shown from its text).
                        Want::Body => b == b'{' && statement_level || b == b'(',
                        Want::Value => b == b'{' || syntax.any_bracket_value,
                        Want::MacroInput => true,
                        Want::CMacro(..) => b == b'(',
                        // Go's `type ( … )` groups its structs.
                        Want::Fields => {
                            (b == b'{' || rust && b == b'(') && (statement_level || !rust)
                        }
                        Want::Nothing => c_body,
                        Want::Init | Want::Use(_) | Want::Attribute(_) => false,
                    }
                {
                    skip = Some(Skip {
                        outside: open.len(),
                        from: i,
                        // A Rust constant's block value may hold items too.
                        body: matches!(want, Want::Body | Want::Value)
                            && b == b'{'
                            && (rust || want == Want::Body)
                            || c_body,
                    });
                }
                open.push(b);
                // A `{` ends a statement's head, but for a `use` tree's.
                if skip.is_none() && b == b'{' && !matches!(want, Want::Use(_)) {
                    want = Want::Nothing;
                }
                if b == b'{' {
                    if skip.is_none() && c.enumeration {
                        enum_constants = Some(open.len());
                    }
                    // (Not a namespace's, nor a function's: `template <class T> T f() {`.)
                    type_bodies.push((c.class && !c.namespace || c.enumeration) && !c.parenthesis);
                    c = CState::default();
                }
            }
            b'}' | b')' | b']' => {
                if b == b'}' {
                    plain = None;
                    closed_type_body = type_bodies.pop().unwrap_or(false);
                }
                let opener = match b {
                    b'}' => b'{',
                    b')' => b'(',
                    _ => b'[',
                };
                if open.pop() != Some(opener) {
                    return None;
                }
                if let Some(Skip { outside, from, .. }) = skip
                    && outside == open.len()
                {
                    if i - from > MIN_BODY_BYTES {
                        leave_out(from + 1, i);
                    }
                    skip = None;
                    if suspended.last() == Some(&outside) {
                        suspended.pop();
                    }
                    if let Want::CMacro(start, after_signature, before) = want
                        && let Some(syntax_c) = syntax.c_like
                    {
                        // Unless it heads a body (`TEST_F(A, B) {`), the parser need not read
                        // it: tree-sitter would take it for a declaration missing its `;` and
                        // recover at length.
                        let after = skip_blank(source, i + 1);
                        match at(after) {
                            _ if after_signature => leave_out(start, i + 1),
                            b'{' => c.closed_parenthesis(syntax_c, i),
                            b';' => leave_out(start, after + 1),
                            _ => leave_out(start, i + 1),
                        }
                        if at(after) != b'{' {
                            // Gone: what follows starts afresh, as after what preceded it.
                            restore_last = Some(before);
                            if !after_signature {
                                c = CState::default();
                            }
                        }
                    }
                    want = match want {
                        // A Go `var (…)` group goes on to its next value.
                        Want::Value if syntax.newline_ends => Want::Init,
                        // Parameters: the body is still to come.
                        Want::Body if b == b')' => Want::Body,
                        _ => Want::Nothing,
                    };
                } else if let Want::Attribute(from) = want
                    && b == b']'
                    && matches!(open.last(), None | Some(b'{'))
                {
                    leave_out(from, i + 1);
                    want = Want::Nothing;
                } else if skip.is_none() && b == b'}' && !matches!(want, Want::Use(_)) {
                    want = Want::Nothing;
                } else if b == b')'
                    && skip.is_none()
                    && let Some(syntax_c) = syntax.c_like
                    && matches!(open.last(), None | Some(b'{'))
                {
                    c.closed_parenthesis(syntax_c, i);
                }
                if b == b'}' {
                    c = CState::default();
                    if enum_constants.is_some_and(|depth| depth > open.len()) {
                        enum_constants = None;
                    }
                }
                // An item in a body ended: the body is left out again from here.
                if b == b'}'
                    && item_ends_at_brace
                    && skip.is_none()
                    && want == Want::Nothing
                    && suspended
                        .last()
                        .is_some_and(|&outside| open.len() == outside + 1)
                {
                    skip = suspended.pop().map(|outside| Skip {
                        outside,
                        from: i,
                        body: true,
                    });
                }
            }
            b';' if skip.is_none() && statement_level => {
                if let Some(from) = data.take()
                    && open.is_empty()
                {
                    leave_out(from, i + 1);
                }
                if let Some(from) = plain.take()
                    && enum_constants != Some(open.len())
                {
                    // `import java.util.List;`, `private int count = 0;`: no definition.
                    leave_out(from, i + 1);
                }
                if let Want::Use(from) = want {
                    leave_out(from, i + 1);
                }
                // A prototype's parameters (`void f(const char* s, int n);`): the parser
                // needs only the `()` (they were a third of a protobuf header's parse). Not
                // arguments (`Foo x(5);`), which would then read as a prototype.
                if let Params::Closed(open, close) = c.params
                    && syntax.c_like.is_some_and(|c| c.parameters_left_out)
                    && close - open > MIN_PARAMS_BYTES
                    && declares_parameters(&source[open + 1..close])
                    && ends_prototype(&source[close + 1..i])
                {
                    leave_out(open + 1, close);
                }
                want = Want::Nothing;
                visibility = None;
                c = CState::default();
                if enum_constants == Some(open.len()) {
                    enum_constants = None;
                }
                if suspended
                    .last()
                    .is_some_and(|&outside| open.len() == outside + 1)
                {
                    skip = suspended.pop().map(|outside| Skip {
                        outside,
                        from: i,
                        body: true,
                    });
                }
            }
            b'#' if rust
                && skip.is_none()
                && statement_level
                && want == Want::Nothing
                && (at(i + 1) == b'[' || at(i + 1) == b'!' && at(i + 2) == b'[') =>
            {
                want = Want::Attribute(i);
            }
            // A C-like initializer, `= {…}`.
            b'=' if skip.is_none()
                && syntax.c_like.is_some()
                && statement_level
                && want == Want::Nothing
                && !matches!(last, b'=' | b'!' | b'<' | b'>')
                && next_byte(source, i + 1) == b'{' =>
            {
                want = Want::Value;
            }
            b':' | b'<' if skip.is_none() && statement_level && at(i + 1) != b':' => {
                c.class_barrier = true;
                if b == b'<'
                    && syntax.lang == Lang::Cpp
                    && (!c.assigned || c.alias)
                    && enum_constants != Some(open.len())
                    && is_ident(last)
                    && !matches!(at(i + 1), b'<' | b'=')
                    && let word = last_word(source, i)
                    && word != b"operator"
                    && let Some(close) = template_list_end(source, i, word == b"template")
                {
                    // A template's arguments or parameters: `Foo<>` and `template <>` read
                    // as well for what is defined, and tree-sitter's C++ parser reads `<`
                    // both ways at once until one fails (templates were half of fmt's and
                    // gmock's parse).
                    if close - i > MIN_TEMPLATE_LIST_BYTES {
                        leave_out(i + 1, close);
                    }
                    last = b'>';
                    i = close + 1;
                    continue;
                }
                if b == b':'
                    && last != b':'
                    && matches!(c.params, Params::Closed(..))
                    && (last == b')' || c.signature_word)
                {
                    c.initializers = Some(i);
                }
                if b == b':'
                    && last != b':'
                    && syntax.lang == Lang::Cpp
                    && c.class
                    && c.params == Params::None
                {
                    c.bases = Some(i);
                }
            }
            b'=' if skip.is_none()
                && syntax.c_like.is_some()
                && statement_level
                && !matches!(last, b'=' | b'!' | b'<' | b'>')
                && at(i + 1) != b'=' =>
            {
                c.assigned = true;
            }
            b'>' if skip.is_none() && statement_level && last == b'-' && source[i - 1] == b'-' => {
                c.arrow = true;
            }
            b'=' if skip.is_none()
                && want == Want::Init
                && !matches!(at(i + 1), b'=' | b'>')
                && !matches!(last, b'=' | b'!' | b'<' | b'>') =>
            {
                want = Want::Value;
            }
            b'!' if rust
                && skip.is_none()
                && statement_level
                && is_ident(last)
                && matches!(want, Want::Nothing)
                && at(i + 1) != b'=' =>
            {
                want = Want::MacroInput;
            }
            _ if is_ident_start(b) && !is_ident(at(i.wrapping_sub(1))) => {
                let end = skip_word(source, i);
                // Where the scan goes on: past the word, or past what was left out with it.
                let mut past = end;
                let word = &source[i..end];
                // An item defined in a body: read it, then leave out the body again.
                if items_in_bodies
                    && let Some(Skip {
                        outside,
                        from,
                        body: true,
                    }) = skip
                    && open.len() == outside + 1
                    && matches!(last, b';' | b'{' | b'}' | b']')
                    && item_starts(syntax.lang, source, word, end)
                {
                    if i - from > MIN_BODY_BYTES {
                        leave_out(from + 1, i);
                    }
                    skip = None;
                    suspended.push(outside);
                    want = Want::Nothing;
                    visibility = None;
                }
                if skip.is_none() && statement_level {
                    if syntax.function_keyword == Some(word)
                        && function_starts(syntax, source, i, end)
                    {
                        want = Want::Body;
                    } else if want == Want::Nothing && syntax.value_keywords.contains(&word) {
                        want = Want::Init;
                    } else if rust && want == Want::Nothing {
                        match word {
                            b"struct" | b"enum" | b"union" => want = Want::Fields,
                            b"use" => want = Want::Use(visibility.unwrap_or(i)),
                            _ => {}
                        }
                    }
                    visibility = (word == b"pub").then_some(i);
                }
                // (In C and C++ a `}` may end a statement's type, not the statement:
                // `typedef struct {…} Point;`.)
                if syntax.c_like.is_some()
                    && skip.is_none()
                    && statement_level
                    && (matches!(last, 0 | b';' | b'{')
                        || last == b'}' && syntax.lang == Lang::Java)
                {
                    plain = Some(i);
                }
                if syntax.c_like.is_some_and(|c| c.class_words.contains(&word))
                    || matches!(
                        word,
                        b"typedef" | b"using" | b"template" | b"friend" | b"operator"
                    )
                {
                    plain = None;
                }
                let mut macro_word = false;
                // Left out: the parser reads on from what came before it.
                let mut left_out_word = false;
                if syntax.lang == Lang::Cpp
                    && word == b"using"
                    && skip.is_none()
                    && statement_level
                    && want == Want::Nothing
                    && statement_start(last)
                    && let Some(end) = using_declaration_end(source, end)
                {
                    // `using std::string;`, `using namespace testing;`: no definition (an
                    // alias, `using T = …;`, is one).
                    leave_out(i, end);
                    macro_word = true;
                    left_out_word = true;
                }
                if syntax.c_like.is_some_and(|c| c.preprocessor)
                    && skip.is_none()
                    && statement_level
                    && want == Want::Nothing
                    && macro_like(word)
                {
                    let after = skip_blank(source, end);
                    let after_signature = matches!(c.params, Params::Closed(..));
                    // (Not `Class::NAME(`.)
                    let qualified = source[..i].trim_ascii_end().ends_with(b"::");
                    if at(after) == b'(' && !qualified && (after_signature || statement_start(last))
                    {
                        want = Want::CMacro(i, after_signature, last);
                        macro_word = true;
                    } else if after_signature
                        || declaration_follows(source, after)
                        || (after_word(source, i, b"explicit")
                            && source.get(after).copied().is_some_and(is_ident_start))
                        || (!(last == b'}' && closed_type_body)
                            && (matches!(at(after), 0 | b'#' | b'}' | b'~')
                                || (source[end..after].contains(&b'\n')
                                    && macro_statement_at(source, after))))
                    {
                        // An attribute or linkage macro before a declaration (`GTEST_API_
                        // void f();`, `class FMT_API format_error`), after a signature
                        // (`void f() GTEST_NO_INLINE_;`), or between `explicit` and the
                        // constructor it qualifies, or before a destructor, neither of which
                        // has a type for the macro to be (`explicit PROTOBUF_CONSTEXPR
                        // Foo(…);`, `FMT_CONSTEXPR20 ~buffer()`); or a statement of its own
                        // (`FMT_END_NAMESPACE`, before a directive or the end, or alone on
                        // its line before another macro's word or call that heads no body:
                        // `RAPIDJSON_DIAG_PUSH`, Qt's `Q_OBJECT`), but after a class's body,
                        // where it would be a declarator (`typedef struct {…} FOO_T`).
                        leave_out(i, end);
                        macro_word = true;
                        left_out_word = true;
                    } else if statement_start(last) && at(after) == b':' && at(after + 1) != b':' {
                        // A macro for an access label (`JSON_PRIVATE_UNLESS_TESTED:`): what
                        // follows reads as under the label before.
                        leave_out(i, after + 1);
                        past = after + 1;
                        macro_word = true;
                        left_out_word = true;
                    }
                }
                if let Some(syntax_c) = syntax.c_like
                    && skip.is_none()
                    && statement_level
                    && !macro_word
                {
                    c.word(syntax_c, word, last);
                }
                if !rust && syntax.c_like.is_none() && skip.is_none() && want == Want::Nothing {
                    match word {
                        // A struct's fields (an interface's methods are definitions).
                        b"struct" => want = Want::Fields,
                        b"import" if statement_level => want = Want::MacroInput,
                        _ => {}
                    }
                }
                if !left_out_word {
                    last = source[end - 1];
                }
                i = past;
                continue;
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = restore_last.unwrap_or(b);
        }
        i += 1;
    }
    if let Some(from) = data {
        leave_out(from, source.len());
    }
    (open.is_empty() && skip.is_none() && suspended.is_empty()).then_some(out)
}

/// The bytes that matter inside a group left out: brackets, quotes, comments' `/`, `;`, and
/// `#` (C's preprocessor lines).
static SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let special = b"{}()[]\"'/`;#";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// The `#`s of the Rust raw string whose `"` is at `quote` (`r"`, `r#"`, `br##"`), found by
/// looking back; `None` when the quote opens an ordinary string.
fn raw_string_hashes(source: &[u8], quote: usize) -> Option<usize> {
    let hashes = source[..quote]
        .iter()
        .rev()
        .take_while(|&&c| c == b'#')
        .count();
    let r = quote.checked_sub(hashes + 1)?;
    if source[r] != b'r' {
        return None;
    }
    let before = match r.checked_sub(1).map(|b| source[b]) {
        Some(b'b' | b'c') => r.checked_sub(2).map(|b| source[b]),
        other => other,
    };
    (!before.is_some_and(is_ident)).then_some(hashes)
}

/// What the statement being read has shown of a C, C++ or Java function's signature.
#[derive(Debug, Clone, Copy, Default)]
struct CState {
    /// A `(…)` closed at the statement's level.
    parenthesis: bool,
    /// An `=` at the statement's level (not `==`, `<=`…): what follows is a value, where a
    /// `<` compares (`ok = kA < 8 && kB > 4;`), but for an alias's (`using T = F<A>;`).
    assigned: bool,
    /// `using`: a `using` declaration or alias.
    alias: bool,
    /// A class word (`class`, `struct`…) that keeps its braces.
    class: bool,
    /// That word is `namespace` (whose body no declarator follows).
    namespace: bool,
    /// A `:` or `<` after it: `class A : B`, `struct S<T>`, not a function returning a struct.
    class_barrier: bool,
    /// The last word may stand between a signature and its body (`const`, `override`).
    signature_word: bool,
    /// `throws …` (Java) after the last `)`.
    throws: bool,
    /// `->` (a trailing return type, a lambda) after the last `)`.
    arrow: bool,
    /// `new` (Java): the statement builds an object, maybe of an anonymous class.
    new_object: bool,
    /// `enum`: the braces hold the constants (Java's may have bodies, `PLUS("+") {…}`).
    enumeration: bool,
    /// The parameter list: the statement's first `(…)` that follows a name (not
    /// `decltype(…)`'s, an annotation's, a declarator's `(*f)`), a template's `>` or a `)`
    /// (`operator()(…)`). Left out when a body follows.
    params: Params,
    /// A constructor's member initializers start at this `:` (`A(int x) : x_(x) {`). Left out
    /// with the parameters.
    initializers: Option<usize>,
    /// A C++ class's base classes start at this `:` (`class A : public B<T> {`). Left out
    /// when its body opens.
    bases: Option<usize>,
}

/// Where a C-like statement's parameter list is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Params {
    #[default]
    None,
    /// Its `(` is at this offset.
    Open(usize),
    /// Between these offsets' `(` and `)`.
    Closed(usize, usize),
}

impl CState {
    fn body_follows(&self, last: u8) -> bool {
        self.parenthesis
            && !self.class
            && !self.new_object
            && (last == b')' || self.signature_word || self.throws || self.arrow)
    }

    fn closed_parenthesis(&mut self, syntax: CLike, at: usize) {
        if let Params::Open(open) = self.params {
            self.params = Params::Closed(open, at);
        }
        self.parenthesis = true;
        self.throws = false;
        self.arrow = false;
        self.signature_word = false;
        // `struct s *make(void)`: a function returning a struct.
        if self.class && syntax.class_may_be_return_type && !self.class_barrier {
            self.class = false;
        }
    }

    fn word(&mut self, syntax: CLike, word: &[u8], last: u8) {
        // Not a template's parameter (`template <class T>`).
        if syntax.class_words.contains(&word) && !matches!(last, b'<' | b',') {
            self.class = true;
            self.class_barrier = false;
            self.namespace = word == b"namespace";
        }
        if word == b"throws" {
            self.throws = true;
        }
        // `new T() {…}`: an anonymous class, not a method's body (Java).
        if word == b"new" {
            self.new_object = true;
        }
        if word == b"enum" {
            self.enumeration = true;
        }
        if word == b"using" {
            self.alias = true;
        }
        self.signature_word = syntax.after_signature.contains(&word);
    }
}

/// Whether the `(` at `open`, at a C-like statement's level, may open a function's
/// parameters: it follows a name that is not a keyword taking its own `(…)` (`decltype`,
/// `for`), a template's `>`
/// or a `)` (`operator()(…)`, `(*signal(int))(int)`), and does not open a declarator
/// (`(*f)`, `(&r)`) or an attribute's `((…))`.
fn opens_parameters(source: &[u8], open: usize) -> bool {
    if matches!(next_byte(source, open + 1), b'*' | b'&' | b'^' | b'(') {
        return false;
    }
    let before = source[..open]
        .iter()
        .rposition(|c| !c.is_ascii_whitespace());
    let Some(end) = before.map(|p| p + 1) else {
        return false;
    };
    match source[end - 1] {
        b'>' | b')' => true,
        c if is_ident(c) => {
            let word = last_word(source, open);
            let start = end - word.len();
            // An annotation's arguments (Java's `@Test(timeout = 5)`).
            start.checked_sub(1).is_none_or(|p| source[p] != b'@')
                && !matches!(
                    word,
                    b"operator"
                        | b"decltype"
                        | b"__attribute__"
                        | b"__declspec"
                        | b"alignas"
                        | b"noexcept"
                        | b"throw"
                        | b"sizeof"
                        | b"alignof"
                        | b"requires"
                        | b"typeof"
                        | b"__typeof__"
                        | b"_Alignas"
                        | b"static_assert"
                        // Statements (C++'s `for (…) {` in a lambda's body at a class's level).
                        | b"for"
                        | b"if"
                        | b"while"
                        | b"switch"
                        | b"catch"
                        | b"synchronized"
                        | b"try"
                        | b"return"
                        | b"assert"
                        | b"case"
                )
        }
        // An operator's parameters: `operator==(`, `operator[](`.
        _ => {
            let word_end = source[..end]
                .iter()
                .rposition(|&c| is_ident(c))
                .map_or(0, |p| p + 1);
            source[word_end..end]
                .iter()
                .all(|c| !c.is_ascii_alphanumeric() && !matches!(c, b';' | b'{' | b'}' | b'"'))
                && source[..word_end].ends_with(b"operator")
        }
    }
}

/// Whether `list`, the inside of a C-like `(…)` that ends a statement, declares parameters:
/// each is a type then a name (`const char* s`), a pointer's or reference's type (`Foo*`), a
/// built-in type or `...`, a default value (`= 0`) aside; not arguments (`Foo x(5);`,
/// `T t(a + b);`), nor anything with a bracket, string, character or comment in it.
fn declares_parameters(list: &[u8]) -> bool {
    if list
        .iter()
        .any(|c| matches!(c, b'(' | b')' | b'{' | b'}' | b'"' | b'\'' | b'/' | b'#'))
    {
        return false;
    }
    // The parameters, split at the commas outside a template's `<…>`.
    let mut pieces = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, &c) in list.iter().enumerate() {
        match c {
            b'<' => depth += 1,
            b'>' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                pieces.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&list[start..]);
    pieces.into_iter().all(|piece| {
        let declaration = piece
            .iter()
            .position(|&c| c == b'=')
            .map_or(piece, |p| &piece[..p])
            .trim_ascii();
        declaration == b"..."
            || declaration.ends_with(b"*")
            || declaration.ends_with(b"&")
            || matches!(
                declaration,
                b"int"
                    | b"char"
                    | b"bool"
                    | b"float"
                    | b"double"
                    | b"long"
                    | b"short"
                    | b"unsigned"
                    | b"signed"
                    | b"size_t"
            )
            || type_then_name(declaration)
    })
}

/// Whether `tail`, what follows a C-like `(…)` to the statement's `;`, may end a prototype:
/// qualifiers (`const`, `override`, `= 0`, `noexcept(…)`: a signature's words, and `= default`),
/// macro words, a trailing return
/// type; not a declarator (`Array(char) chars;`, a macro's type).
fn ends_prototype(tail: &[u8]) -> bool {
    let mut i = 0;
    while i < tail.len() {
        let c = tail[i];
        if c == b'-' && tail.get(i + 1) == Some(&b'>') {
            return true;
        }
        if is_ident_start(c) {
            let end = skip_word(tail, i);
            let word = &tail[i..end];
            if !macro_like(word)
                && !C_AFTER_SIGNATURE.contains(&word)
                && !matches!(word, b"default" | b"delete" | b"throw" | b"__attribute__")
            {
                return false;
            }
            i = end;
            continue;
        }
        i += 1;
    }
    true
}

/// Whether `declaration` has a word or a template's closing `>` followed by a word with only
/// blanks, `*` and `&` between (`char* s`, `const T& t`, `std::map<K, V>& m`; not `a + b`,
/// `a > b`).
fn type_then_name(declaration: &[u8]) -> bool {
    let mut i = 0;
    // After a word or a template's `>`, and the `<`s open.
    let (mut after_type, mut angles) = (false, 0usize);
    while i < declaration.len() {
        let c = declaration[i];
        if is_ident_start(c) {
            if after_type && angles == 0 {
                return true;
            }
            i = skip_word(declaration, i);
            after_type = true;
            continue;
        }
        match c {
            b'<' => {
                angles += 1;
                after_type = false;
            }
            b'>' if angles > 0 => {
                angles -= 1;
                after_type = true;
            }
            _ if c.is_ascii_whitespace() || c == b'*' || c == b'&' => {}
            _ => after_type = false,
        }
        i += 1;
    }
    false
}

/// The word that ends before `at`, past whitespace.
fn last_word(source: &[u8], at: usize) -> &[u8] {
    let end = source[..at]
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    let start = source[..end]
        .iter()
        .rposition(|&c| !is_ident(c))
        .map_or(0, |p| p + 1);
    &source[start..end]
}

/// The `>` that closes the C++ template argument list (or a template's parameter list,
/// `head`) whose `<` is at `open`, if what is between may be one: no `;`, brace, string,
/// character, comment or preprocessor line, and no `=` but in a head (`typename T = int`)
/// or inside parentheses; `<` and `>` inside parentheses or brackets are comparisons
/// (`FMT_ENABLE_IF(N < 3)`), `->` is an arrow. `None` also for a `<` that is a comparison
/// (`a < b;`).
fn template_list_end(source: &[u8], open: usize, head: bool) -> Option<usize> {
    let mut depth = 0usize;
    // Parentheses and brackets open.
    let mut round = 0usize;
    for (i, c) in bytes_from(source, open, MAX_TEMPLATE_LIST_BYTES) {
        match c {
            b'<' if round == 0 => depth += 1,
            b'>' if round == 0 && source[i - 1] != b'-' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'(' | b'[' => round += 1,
            b')' | b']' => round = round.checked_sub(1)?,
            b';' | b'{' | b'}' | b'"' | b'\'' | b'/' | b'#' => return None,
            b'=' if !head
                && round == 0
                && !matches!(source[i - 1], b'=' | b'!' | b'<' | b'>')
                && source.get(i + 1) != Some(&b'=') =>
            {
                return None;
            }
            _ => {}
        }
    }
    None
}

/// The end (past its `;`) of the C++ `using` declaration whose `using` ends at `from`, if it
/// is no alias (has no `=`) and holds no bracket.
fn using_declaration_end(source: &[u8], from: usize) -> Option<usize> {
    let rest = source.get(from..)?;
    let semicolon = rest.iter().position(|&c| c == b';')?;
    (!rest[..semicolon].iter().any(|c| {
        matches!(
            c,
            b'=' | b'{' | b'}' | b'(' | b')' | b'"' | b'\'' | b'/' | b'#'
        )
    }))
    .then_some(from + semicolon + 1)
}

/// Whether a C or C++ word looks like a macro's name: upper case with a `_` (`GTEST_API_`,
/// `MOCK_METHOD`, `FMT_CONSTEXPR`; not `IO_File`, which names classes as often).
fn macro_like(word: &[u8]) -> bool {
    word.len() >= 3
        && word[0].is_ascii_uppercase()
        && word.contains(&b'_')
        && word
            .iter()
            .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// Whether a name then what may follow a type's name starts at `from` (`void f`, `std::string`,
/// `Bar : public`, `T<`): a macro word before it can go and the declaration still reads.
fn declaration_follows(source: &[u8], from: usize) -> bool {
    if !source.get(from).copied().is_some_and(is_ident_start) {
        return false;
    }
    let end = skip_word(source, from);
    // `class NAME final {`: the word was the class's name.
    if &source[from..end] == b"final" {
        return false;
    }
    let after = skip_blank(source, end);
    source
        .get(after)
        .is_some_and(|&c| is_ident_start(c) || matches!(c, b'*' | b'&' | b':' | b'<' | b'{'))
}

/// The bytes of `source` from `from` on, with their offsets, at most `max` of them: a
/// forward scan for a closing bracket stops there, so that a file of unclosed ones costs no
/// more than `max` bytes per opening one.
fn bytes_from(source: &[u8], from: usize, max: usize) -> impl Iterator<Item = (usize, u8)> + '_ {
    source.iter().copied().enumerate().skip(from).take(max)
}

/// How far [`template_list_end`] looks for a list's `>` (a longer list is left to the
/// parser).
const MAX_TEMPLATE_LIST_BYTES: usize = 4_096;

/// How far [`macro_statement_at`] looks for a call's `)`.
const MAX_MACRO_CALL_BYTES: usize = 4_096;

/// Whether a macro's word, or its call that heads no body (`RAPIDJSON_DIAG_OFF(padded)`, not
/// `MY_FUNC(int a) {`, which may be a function after its type), starts at `from`.
fn macro_statement_at(source: &[u8], from: usize) -> bool {
    if !source.get(from).copied().is_some_and(is_ident_start) {
        return false;
    }
    let end = skip_word(source, from);
    if !macro_like(&source[from..end]) {
        return false;
    }
    let open = skip_blank(source, end);
    if source.get(open) != Some(&b'(') {
        return true;
    }
    // The call's `)` (a string's or a comment's brackets are few enough in a macro's call
    // not to matter; an unbalanced one counts as heading nothing).
    let mut depth = 0usize;
    for (i, c) in bytes_from(source, open, MAX_MACRO_CALL_BYTES) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return source.get(skip_blank(source, i + 1)) != Some(&b'{');
                }
            }
            _ => {}
        }
    }
    true
}

/// Whether a token ending in `last` ends a statement, a block's head or a label, so that what
/// follows starts a statement (C-like).
fn statement_start(last: u8) -> bool {
    matches!(last, 0 | b';' | b'{' | b'}' | b':')
}

/// Whether a preprocessor line, after a token ending in `last` in a statement that has shown
/// `c`, comes between two statements: at the start, after a `;` or a brace, or after a label
/// (`public:`, Qt's `signals:`; not the `:` before base classes or member initializers).
fn between_statements(last: u8, c: &CState) -> bool {
    match last {
        0 | b';' | b'{' | b'}' => true,
        b':' => c.initializers.is_none() && c.bases.is_none(),
        _ => false,
    }
}

/// Whether the word before `at`, past blanks, is `word`.
fn after_word(source: &[u8], at: usize, word: &[u8]) -> bool {
    let before = source[..at].trim_ascii_end();
    before.ends_with(word)
        && !before[..before.len() - word.len()]
            .last()
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// The offset of the first byte from `from` that is neither whitespace nor in a comment (the
/// length at the end).
fn skip_blank(source: &[u8], from: usize) -> usize {
    let mut i = from;
    loop {
        i = source
            .get(i..)
            .and_then(|rest| rest.iter().position(|c| !c.is_ascii_whitespace()))
            .map_or(source.len(), |p| i + p);
        // And comments (`MACRO /* why */ void f();`).
        match source.get(i..i + 2) {
            Some(b"//") => i = memchr_from(source, i, b'\n'),
            Some(b"/*") => i = skip_block_comment(source, i + 2, false).unwrap_or(source.len()),
            _ => return i,
        }
    }
}

/// The next byte that is not whitespace, from `from` (0 at the end).
fn next_byte(source: &[u8], from: usize) -> u8 {
    source
        .get(from..)
        .and_then(|rest| rest.iter().find(|c| !c.is_ascii_whitespace()))
        .copied()
        .unwrap_or(0)
}

/// The end of the preprocessor line starting at `from`, its `\`-continued lines included.
fn preprocessor_line_end(source: &[u8], from: usize) -> usize {
    let mut i = from;
    loop {
        let end = memchr_from(source, i, b'\n');
        let continued = source[i..end]
            .iter()
            .rev()
            .find(|c| !matches!(c, b' ' | b'\t' | b'\r'))
            == Some(&b'\\');
        if !continued || end >= source.len() {
            return end;
        }
        i = end + 1;
    }
}

/// The end of the `#endif` line that closes the conditional whose branch goes on from `from`
/// (nested conditionals skipped), or the file's end.
fn endif_line_end(source: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    let mut i = from;
    while i < source.len() {
        let start = i + source[i..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        if source.get(start) != Some(&b'#') {
            i = memchr_from(source, start, b'\n') + 1;
            continue;
        }
        let end = preprocessor_line_end(source, start);
        match next_word(source, start + 1) {
            b"endif" if depth == 0 => return end,
            b"endif" => depth -= 1,
            word if word.starts_with(b"if") => depth += 1,
            _ => {}
        }
        i = end + 1;
    }
    source.len()
}

/// Whether the `"` at `quote` opens a C++ raw string (`R"(…)"`, `u8R"x(…)x"`).
fn cpp_raw_prefix(source: &[u8], quote: usize) -> bool {
    quote > 0 && source[quote - 1] == b'R' && {
        let start = source[..quote - 1]
            .iter()
            .rposition(|&c| !is_ident(c))
            .map_or(0, |p| p + 1);
        matches!(&source[start..quote], b"R" | b"u8R" | b"uR" | b"UR" | b"LR")
    }
}

/// Past the C++ raw string whose `"` is at `quote`: `"delim(` … `)delim"`.
fn skip_cpp_raw(source: &[u8], quote: usize) -> Option<usize> {
    let open = quote
        + 1
        + source
            .get(quote + 1..)?
            .iter()
            .take(17)
            .position(|&c| c == b'(')?;
    let mut close = Vec::with_capacity(open - quote + 1);
    close.push(b')');
    close.extend_from_slice(&source[quote + 1..open]);
    close.push(b'"');
    source[open..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map(|p| open + p + close.len())
}

/// A group being left out.
#[derive(Debug, Clone, Copy)]
struct Skip {
    /// Brackets open outside it.
    outside: usize,
    /// Where it opened, or where it was taken up again after an item.
    from: usize,
    /// A function's body (an item in it is read).
    body: bool,
}

/// Whether `word` ending at `end`, first in a statement of a function's body, starts an item
/// that Definitions reports (Rust's local `fn`, `struct`, `impl`…; a local class, struct or
/// type alias in C, C++ and Java).
fn item_starts(lang: Lang, source: &[u8], word: &[u8], end: usize) -> bool {
    match lang {
        Lang::Rust => {}
        Lang::C => return matches!(word, b"struct" | b"union" | b"enum" | b"typedef"),
        Lang::Cpp => {
            return matches!(
                word,
                b"struct" | b"class" | b"union" | b"enum" | b"typedef" | b"using"
            ) && !matches!(next_word(source, end), b"namespace");
        }
        Lang::Java => return matches!(word, b"class" | b"interface" | b"enum" | b"record"),
        _ => return false,
    }
    let next = next_word(source, end);
    match word {
        b"struct" | b"enum" | b"trait" | b"impl" | b"mod" | b"type" | b"macro_rules" => true,
        b"fn" | b"union" => next.first().is_some_and(|&c| is_ident_start(c)),
        b"unsafe" | b"async" | b"const" | b"extern" | b"pub" => {
            matches!(next, b"fn" | b"impl" | b"trait" | b"unsafe" | b"async")
        }
        _ => false,
    }
}

/// The word after `from` (whitespace and a string such as `extern "C"`'s skipped), or what
/// follows if it is not a word.
fn next_word(source: &[u8], from: usize) -> &[u8] {
    let mut i = from;
    while i < source.len() && (source[i].is_ascii_whitespace() || source[i] == b'"') {
        if source[i] == b'"' {
            i = memchr_from(source, i + 1, b'"') + 1;
        } else {
            i += 1;
        }
    }
    let i = i.min(source.len());
    &source[i..skip_word(source, i).max((i + 1).min(source.len()))]
}

/// Whether the function keyword at `start..end` starts a function with a body to come.
fn function_starts(syntax: &Syntax, source: &[u8], start: usize, end: usize) -> bool {
    if syntax.keyword_then_name {
        is_ident_start(next_byte(source, end))
    } else {
        first_on_line(source, start)
    }
}

/// Whether only whitespace stands before `at` on its line.
fn first_on_line(source: &[u8], at: usize) -> bool {
    source[..at]
        .iter()
        .rev()
        .take_while(|&&c| c != b'\n')
        .all(u8::is_ascii_whitespace)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn skip_word(source: &[u8], from: usize) -> usize {
    source[from..]
        .iter()
        .position(|&c| !is_ident(c))
        .map_or(source.len(), |p| from + p)
}

fn memchr_from(source: &[u8], from: usize, byte: u8) -> usize {
    source[from..]
        .iter()
        .position(|&c| c == byte)
        .map_or(source.len(), |p| from + p)
}

/// Past a `/* … */` whose inside starts at `from` (Rust's nest); `None` if it never ends.
fn skip_block_comment(source: &[u8], from: usize, nested: bool) -> Option<usize> {
    let mut depth = 1usize;
    let mut i = from;
    while i + 1 < source.len() {
        match (source[i], source[i + 1]) {
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            (b'/', b'*') if nested => {
                depth += 1;
                i += 2;
            }
            _ => i += 1,
        }
    }
    None
}

/// Past a string whose inside starts at `from`, with backslash escapes; `None` if it never
/// ends.
fn skip_quoted(source: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while i < source.len() {
        match source[i] {
            b'\\' => i += 2,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Past a raw string whose inside starts at `from`, closed by `"` and `hashes` `#`.
fn skip_raw(source: &[u8], from: usize, hashes: usize) -> Option<usize> {
    let mut i = from;
    while i < source.len() {
        if source[i] == b'"'
            && source.len() >= i + 1 + hashes
            && source[i + 1..i + 1 + hashes].iter().all(|&c| c == b'#')
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    None
}

/// Past a character literal starting at `from` (its `'`); in Rust, a lifetime or label
/// (`'a`, `'static`) is passed as a word.
fn skip_char(source: &[u8], from: usize, rust: bool) -> Option<usize> {
    let at = |i: usize| source.get(i).copied().unwrap_or(0);
    if at(from + 1) == b'\\' {
        return skip_quoted(source, from + 1, b'\'');
    }
    // One character, maybe several bytes of UTF-8, then `'`.
    let len = match at(from + 1) {
        c if c < 0x80 => 1,
        c if c >= 0xF0 => 4,
        c if c >= 0xE0 => 3,
        _ => 2,
    };
    if at(from + 1 + len) == b'\'' {
        return Some(from + 2 + len);
    }
    if rust {
        return Some(skip_word(source, from + 1).max(from + 1));
    }
    // Go and C have no lifetimes: a lone quote is not something to read on from.
    Some(from + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `got` holds each of `parts`.
    fn holds(got: &str, parts: &[&str]) {
        for part in parts {
            assert!(got.contains(part), "{part:?} in:\n{got}");
        }
    }

    /// `got` holds none of `parts`.
    fn lacks(got: &str, parts: &[&str]) {
        for part in parts {
            assert!(!got.contains(part), "{part:?} in:\n{got}");
        }
    }

    /// What the parser is given of `source`, which it must read without an error.
    /// The names of the definitions in `source`'s skeleton, and whether its parse had an
    /// error.
    fn skeleton_names(lang: Lang, source: &str) -> (Vec<String>, bool) {
        let found = crate::Extractor::new()
            .definitions_walked(lang, source.as_bytes(), crate::Parse::Skeleton)
            .expect("a walker");
        let names = found.definitions.iter().map(|d| d.name.clone()).collect();
        (names, found.partial)
    }

    fn kept(lang: Lang, source: &str) -> String {
        let ranges = included_ranges(lang, source.as_bytes()).expect("a skeleton");
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar().0).expect("grammar");
        parser.set_included_ranges(&ranges).expect("ranges");
        let tree = parser.parse(source, None).expect("a tree");
        assert!(
            !tree.root_node().has_error(),
            "{}",
            tree.root_node().to_sexp()
        );
        ranges
            .iter()
            .map(|r| &source[r.start_byte..r.end_byte])
            .collect()
    }

    #[test]
    fn a_rust_skeleton_keeps_the_items_and_leaves_out_bodies_values_and_fields() {
        let src = r##"//! The crate.
#![allow(dead_code)]
use std::{collections::HashMap, fmt};
pub(crate) use self::inner::Thing;
/// A point.
#[derive(Debug, Clone)]
pub struct Point { pub x: f64, pub y: f64, pub z: f64 }
struct Pair(u8, u8, u8, u8, u8, u8, u8);
pub(crate) const TABLE: [[u8; 4]; 2] = [[1, 2, 3, 4], [5, 6, 7, 8]];
static NAME: &str = "a { long name";
impl Point {
    /* a /* nested */ comment */
    pub fn norm(&self, other: [u8; 4]) -> f64 where Self: Sized {
        let s = "}"; let c = '}'; let r = r#"}"#; let b = b'{'; let l: &'static str = s;
        (self.x * self.x + self.y * self.y).sqrt()
    }
}
macro_rules! square { ($x:expr) => { $x * $x }; }
lazy_static! { static ref MAP: HashMap<u8, u8> = HashMap::new(); }
trait Shape { fn area(&self) -> f64; fn name(&self) -> String { String::from("shape") } }
"##;
        let expected = "impl Point {\n    \n    pub fn norm() -> f64 where Self: Sized {}\n}\n";
        let got = kept(Lang::Rust, src);
        // Every item's name is still there, every body and value is empty.
        for name in [
            "struct Point {}",
            "struct Pair();",
            "const TABLE: [[u8; 4]; 2] = [];",
            "static NAME: &str = \"a { long name\";",
            "macro_rules! square {}",
            "lazy_static! {}",
            "trait Shape { fn area(&self) -> f64; fn name(&self) -> String {} }",
        ] {
            assert!(got.contains(name), "{name:?} in:\n{got}");
        }
        assert!(got.contains(expected), "{got}");
        lacks(
            &got,
            &[
                "use ",
                "derive",
                "allow",
                "comment",
                "The crate",
                "sqrt",
                "HashMap::new",
            ],
        );
    }

    #[test]
    fn items_defined_in_a_rust_body_are_read_and_the_rest_left_out() {
        let src = "fn defer<F: FnOnce() -> R, R>(f: F) -> impl Drop {\n    use std::mem::ManuallyDrop;\n    let before = compute(1, 2, 3, 4, 5, 6, 7);\n    struct Defer<F: FnOnce() -> R, R>(ManuallyDrop<F>);\n    #[allow(dead_code)]\n    struct Guard;\n    impl<F: FnOnce() -> R, R> Drop for Defer<F, R> {\n        fn drop(&mut self) {\n            unsafe { ManuallyDrop::take(&mut self.0)(); }\n        }\n    }\n    let after = Defer(ManuallyDrop::new(f), before, 1, 2, 3);\n    after\n}\n";
        let got = kept(Lang::Rust, src);
        holds(
            &got,
            &[
                "struct Defer<F: FnOnce() -> R, R>(ManuallyDrop<F>);",
                "struct Guard;",
                "impl<F: FnOnce() -> R, R> Drop for Defer<F, R> {\n        fn drop(&mut self) {}\n    }",
            ],
        );
        lacks(&got, &["compute", "ManuallyDrop::new", "after", "allow"]);
    }

    #[test]
    fn a_go_skeleton_leaves_out_bodies_and_composite_values() {
        let src = "package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\ntype Point struct {\n\tX, Y, Z float64\n}\n\ntype (\n\tPair struct {\n\t\tA, B string\n\t}\n)\n\n// Handler handles.\ntype Handler func(w int)\n\ntype Reader interface {\n\tRead(p []byte) (int, error)\n}\n\nvar (\n\ttable = map[string]int{\"a\": 1, \"b\": 2, \"c\": 3}\n\tnames = []string{\"x\", \"y\", \"z\", \"w\"}\n)\n\nfunc (s *S) Read(p []byte) (int, error) {\n\tr := '}'\n\tq := `}{`\n\treturn fmt.Println(r, q)\n}\n";
        let got = kept(Lang::Go, src);
        holds(
            &got,
            &[
                "type Handler func(w int)",
                "type Point struct {}",
                "\tPair struct {}",
                "type Reader interface {\n\tRead(p []byte) (int, error)\n}",
                "table = map[string]int{}",
                "names = []string{}",
                "func (s *S) Read(p []byte) (int, error) {}",
            ],
        );
        lacks(&got, &["Handler handles", "strings", "float64"]);
    }

    #[test]
    fn a_cpp_skeleton_leaves_out_bodies_and_keeps_classes_and_local_types() {
        let src = r#"#include <vector>
#define OPEN {
namespace ns {
template <class T, typename U = int>
class Widget : public Base<T> {
 public:
  Widget(int a, int b) : a_(a), b_(b) { compute(a, b, 1, 2, 3); }
  int size() const override { return static_cast<int>(items_.size()); }
  auto twice() const -> int { return size() * 2 * factor_ * other_; }
};
struct point *make_point(int x, int y) {
  struct local { int a; };
  using alias = local;
  const char *s = "}{";
  const char *r = R"x(}{)x";
  char c = '}';
  return nullptr;
}
static const int table[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
TEST(Suite, Name) { EXPECT_EQ(1, 1); EXPECT_EQ(2, 2); EXPECT_EQ(3, 3); }
bool operator==(const Widget& a, const Widget& b) { return a.size() == b.size(); }
decltype(auto) forward_all(int first, int second) { return first + second; }
void (*signal(int sig, void (*func)(int)))(int code) { return func ? func : nullptr; }
}  // namespace ns
"#;
        let got = kept(Lang::Cpp, src);
        holds(
            &got,
            &[
                // (Base classes go.)
                "class Widget {",
                // Parameters and member initializers go with the body.
                "Widget() {}",
                "int size() const override {}",
                "auto twice() const -> int {}",
                "struct point *make_point() {",
                // (A field defines nothing.)
                "struct local {  };",
                "using alias = local;",
                "static const int table[] = {};",
                "TEST() {}",
                "bool operator==() {}",
                "decltype(auto) forward_all() {}",
                // (What `signal` returns takes the parameters' place: no matter.)
                "void (*signal(int sig, void (*func)(int)))() {}",
            ],
        );
        lacks(
            &got,
            &[
                "a_(a)",
                "#include",
                "#define",
                "compute",
                "static_cast",
                "nullptr",
                "EXPECT_EQ",
                "namespace ns\n",
            ],
        );
    }

    /// A C++ template's argument and parameter lists go (`Foo<>`, `template <>`) and what is
    /// defined reads the same; comparisons, shifts, `operator<` and what is inside
    /// parentheses stay.
    #[test]
    fn cpp_template_lists_are_left_out_and_comparisons_stay() {
        let src = r#"template <typename T, typename = std::enable_if_t<(sizeof(T) > 4)>>
std::vector<std::pair<int, T>> pairs(const T& t) { return {}; }
template <typename Char> struct formatter<std::basic_string<Char>, Char> {
  template <typename Context> using arg = basic_format_arg<Context>;
  auto parse(basic_format_parse_context<Char>& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }
};
bool operator<(const Widget& a, const Widget& b);
std::ostream& operator<<(std::ostream& os, const Widget& w);
enum Flags { A = N < 3, B = M > 1, C = 1 << 4 };
enum { value = N < 0 || N > 10 };
struct Limits {
  static constexpr bool ok = kA < 8 && kB > 4;
  using map = std::map<std::string, int>;
};
static_assert(std::is_same<std::string, std::basic_string<char>>::value, "string");
"#;
        let got = kept(Lang::Cpp, src);
        holds(
            &got,
            &[
                "template <>\nstd::vector<> pairs(",
                "template <> struct formatter<> {",
                "template <> using arg = basic_format_arg<>;",
                "-> decltype(ctx.begin())",
                "operator<(",
                "operator<<(",
                "A = N < 3, B = M > 1, C = 1 << 4",
                "value = N < 0 || N > 10",
                "using map = std::map<>;",
                "is_same<std::string, std::basic_string<char>>::value",
            ],
        );
        lacks(&got, &["enable_if_t", "std::pair", "typename Char"]);
        let mut extractor = crate::Extractor::new();
        let whole = extractor.definitions_walked(Lang::Cpp, src.as_bytes(), crate::Parse::Whole);
        let skeleton =
            extractor.definitions_walked(Lang::Cpp, src.as_bytes(), crate::Parse::Skeleton);
        assert!(
            whole
                .as_ref()
                .is_some_and(|w| w.definitions.len() >= 6 && !w.partial)
        );
        assert_eq!(skeleton, whole);
        // A list longer than the scan looks (5,000 bytes) is left to the parser.
        let long = format!(
            "std::map<{}int> table() {{\n  return make(1, 2, 3, 4, 5, 6, 7, 8);\n}}\n",
            "int, ".repeat(1_000)
        );
        holds(&kept(Lang::Cpp, &long), &["std::map<int, int, "]);
        let short = "std::map<int, int> table() {\n  return make(1, 2, 3, 4, 5, 6, 7, 8);\n}\n";
        holds(&kept(Lang::Cpp, short), &["std::map<> table() {"]);
    }

    /// A prototype's parameters go, as a body's function's do; a variable's constructor
    /// arguments stay (without them it would read as a prototype).
    #[test]
    fn prototype_parameters_are_left_out_and_arguments_stay() {
        let src = r#"void f(const char* s, int n = 0);
int g(int, ...);
std::map<int, int>* h(std::map<int, int>& m, Widget*);
Foo x(5);
Foo y(a + b);
Foo z(std::string("s"));
Foo w(a * b);
Foo v(mask & bits);
struct S {
  S(const S& other) = default;
  virtual void v(int a) const = 0;
};
"#;
        let got = kept(Lang::Cpp, src);
        holds(
            &got,
            &[
                "void f();",
                "int g();",
                "std::map<>* h();",
                "Foo x(5);",
                "Foo y(a + b);",
                "Foo z(std::string(\"s\"));",
                "S() = default;",
                "virtual void v() const = 0;",
            ],
        );
        let mut extractor = crate::Extractor::new();
        let whole = extractor.definitions_walked(Lang::Cpp, src.as_bytes(), crate::Parse::Whole);
        let skeleton =
            extractor.definitions_walked(Lang::Cpp, src.as_bytes(), crate::Parse::Skeleton);
        let names: Vec<_> = whole
            .iter()
            .flat_map(|w| w.definitions.iter().map(|d| d.name.as_str()))
            .collect();
        // (`Foo w(a * b);` reads as a prototype in the whole file too: C++'s most vexing parse.)
        assert_eq!(names, ["f", "g", "h", "w", "v", "S", "S", "v"]);
        assert_eq!(skeleton, whole);
        // A macro's type (tree-sitter-c reads it as a declarator) is no prototype.
        let c = "typedef Array(char) String;\nArray(Heredoc *) heredocs;\nint f(char c);\n";
        holds(
            &kept(Lang::C, c),
            &[
                "typedef Array(char) String;",
                "Array(Heredoc *) heredocs;",
                "int f();",
            ],
        );
    }

    /// Macros tree-sitter would take for code, recovering from the error at length: a call
    /// that makes a statement (or has none), a word before a declaration, and a file that
    /// is an array's elements; and what defines nothing, `using` declarations, variables and
    /// base classes.
    #[test]
    fn c_macros_around_declarations_and_data_files_are_left_out() {
        let src = r#"GTEST_DISABLE_MSC_WARNINGS_PUSH_(4251 /* dll-interface */)
namespace testing {
GTEST_API_ void InitGoogleMock(int* argc, char** argv);
GTEST_DECLARE_bool_(catch_exceptions);
NLOHMANN_JSON_NAMESPACE_BEGIN
/*! @brief documented */
class Documented {};
using testing::internal::Test;
using namespace std;
using Alias = std::map<int, char>;
typedef struct { int x; int y; int z; } Point;
static int counter = 0;
class GTEST_API_ Mock : public Base<Alias, Test> {
 public:
  MOCK_METHOD(void, Describe, (std::ostream* os), (const, override));
  Mock(int n);
};
TEST_F(MockTest, Describes) { ON_CALL(foo_, Bar(_)).WillByDefault(Return(true)); }
void Lock(int level) GTEST_LOCK_EXCLUDED_(mutex_) { mutex_.Lock(level, 1, 2, 3, 4); }
void Inline() GTEST_NO_INLINE_;
class IO_File {
 public:
  IO_File(int fd) : fd_(fd) { open_it(); check(); }
};
class UI_BUTTON final : public Widget { void click() { clicked = true; count++; } };
EVP_MD_CTX *digest(EVP_MD_CTX ctx);
}
"#;
        let got = kept(Lang::Cpp, src);
        holds(
            &got,
            &[
                "namespace testing {",
                "void InitGoogleMock();",
                "Mock {",
                "using Alias = std::map<>;",
                "} Point;",
                "class Documented {};",
                "Mock();",
                "TEST_F() {}",
                "void Lock()  {}",
                "void Inline() ;",
                // Found by review: names that are not macros'.
                "IO_File()",
                "class UI_BUTTON final",
                "EVP_MD_CTX *digest();",
            ],
        );
        lacks(
            &got,
            &[
                "PUSH",
                "testing::internal",
                "namespace std",
                "public Base",
                "counter",
                "NAMESPACE_BEGIN",
                "GTEST_API_",
                "MOCK_METHOD",
                "ON_CALL",
                "LOCK_EXCLUDED",
                "NO_INLINE",
            ],
        );
        // Numbers first in a file, not in its `#if 0` block: data.
        let guarded = "#include <stdio.h>\n#if 0\n2 ways to do this\n#endif\nint first(int a) { return a + 1 + 2 + 3; }\n";
        let found = crate::Extractor::new()
            .definitions_walked(Lang::C, guarded.as_bytes(), crate::Parse::Skeleton)
            .expect("a walker");
        assert!(
            found.definitions.iter().any(|d| d.name == "first"),
            "{found:?}"
        );
        let table = "18,16,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,16,16,34,35,16,\n";
        assert_eq!(
            included_ranges(Lang::C, table.as_bytes()).map(|r| r.len()),
            Some(1),
            "one empty range"
        );
        assert_eq!(kept(Lang::C, table), "");
    }

    /// Macro words where no type or declarator can be: a statement of their own before a
    /// directive, a `}` or the end; between `explicit` and its constructor; before a
    /// destructor. A run of them is left out whole, and the declaration after them reads as
    /// if they had never been there: the skeleton parses without an error.
    #[test]
    fn macro_words_no_declaration_needs_are_left_out_and_the_parse_is_clean() {
        let src = r#"#include "port_def.inc"
namespace google {
class Any final {
 public:
  explicit PROTOBUF_CONSTEXPR Any(ConstantInitialized);
  FMT_CONSTEXPR20 ~Any() = default;
};
RAPIDJSON_DIAG_PUSH
RAPIDJSON_DIAG_OFF(effc++)
RAPIDJSON_DIAG_OFF(padded)
inline Descriptor::WellKnownType Descriptor::well_known_type() const {
  return static_cast<Descriptor::WellKnownType>(well_known_type_);
}
PROTOBUF_NAMESPACE_CLOSE
}  // namespace google
#if defined(__clang__)
RAPIDJSON_DIAG_POP
#endif
FMT_END_NAMESPACE
"#;
        let got = kept(Lang::Cpp, src);
        holds(
            &got,
            &[
                "explicit  Any(ConstantInitialized);",
                "~Any() = default;",
                "inline Descriptor::WellKnownType Descriptor::well_known_type() const {}",
            ],
        );
        lacks(
            &got,
            &[
                "PROTOBUF_CONSTEXPR",
                "FMT_CONSTEXPR20",
                "DIAG",
                "NAMESPACE_CLOSE",
                "FMT_END",
            ],
        );
        let (names, partial) = skeleton_names(Lang::Cpp, src);
        assert_eq!(names, ["Any", "Any", "~Any", "well_known_type"]);
        assert!(!partial, "{got}");
        // A conditional inside a statement is read in its first branch, its lines left out
        // (here with the base classes, which the skeleton leaves out); one between statements
        // keeps its lines and every branch. A macro that stands for an
        // access label goes with its colon.
        let src = r#"class format_arg_store
#if FMT_GCC_VERSION && FMT_GCC_VERSION < 409
    : public basic_format_args<Context>
#else
    : public other_args<Context>
#endif
{
 JSON_PRIVATE_UNLESS_TESTED:
#if defined(_WIN32)
  void win();
#else
  void posix();
#endif
 public:
#ifdef FMT_DEPRECATED
  void old();
#endif
};
"#;
        let got = kept(Lang::Cpp, src);
        holds(
            &got,
            &[
                "class format_arg_store\n",
                "#if defined(_WIN32)",
                "#else",
                "#ifdef FMT_DEPRECATED",
            ],
        );
        lacks(&got, &["FMT_GCC_VERSION", "#endif\n{", "JSON_PRIVATE"]);
        let (names, partial) = skeleton_names(Lang::Cpp, src);
        assert_eq!(names, ["format_arg_store", "win", "posix", "old"]);
        assert!(!partial, "{got}");
        // A macro before a function's name on its own line may be its return type, and one
        // after a struct's body its declarator: they stay.
        let c = "FOO_TYPE\nmake_thing(int n)\n{\n  return n + n + n + n + n;\n}\nBOOL_T\nMY_FUNC(int a, int b) {\n  return a + b + a + b + a + b;\n}\ntypedef struct { int a; int b; int c; } FOO_T\n#ifdef X\n__attribute__((aligned(8)))\n#endif\n;\n";
        holds(
            &kept(Lang::C, c),
            &["FOO_TYPE\nmake_thing()", "BOOL_T\nMY_FUNC()", "} FOO_T"],
        );
        let (names, _) = skeleton_names(Lang::C, c);
        assert_eq!(names, ["make_thing", "MY_FUNC", "FOO_T"]);
        // Found by review: after a label with a comment, a Qt signal label, or macro words
        // alone on their lines, a conditional is between statements and keeps every branch.
        let src = "class Foo {\n public:  // Accessors.\n#ifdef X\n  void a();\n#else\n  void b();\n#endif\n signals:\n#ifdef Y\n  void c();\n#else\n  void d();\n#endif\n};\nclass Q : public QObject {\n  Q_OBJECT\n  Q_ENUMS_X\n#ifdef X\n  void e();\n#else\n  void f();\n#endif\n};\n";
        let (names, _) = skeleton_names(Lang::Cpp, src);
        assert_eq!(names, ["Foo", "a", "b", "c", "d", "Q", "e", "f"]);
        // The `:` of member initializers is no label: a conditional after it is inside.
        let src = "class S {
 S(int a)
  :
#if OLD_GCC
   base_(a),
#endif
   a_(a) {
  init(a, a, a, a, a, a, a, a, a);
 }
};
";
        let got = kept(Lang::Cpp, src);
        lacks(&got, &["OLD_GCC"]);
        // The walk enters no parameter list: a parameter declared as a function is no
        // definition (nor is it to ctags).
        let found = crate::Extractor::new()
            .definitions_walked(
                Lang::C,
                b"void on(int handler(int code));\n",
                crate::Parse::Whole,
            )
            .expect("a walker");
        let names: Vec<_> = found.definitions.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["on"]);
    }

    #[test]
    fn a_java_skeleton_leaves_out_method_bodies_and_keeps_records_and_local_classes() {
        let src = "package p;\nimport java.util.List;\n\n@Entity(name = \"x\")\npublic record Point(int x, int y) {\n    public Point {\n        if (x < 0) throw new IllegalArgumentException(\"x\");\n    }\n    double norm() { return Math.sqrt(x * x + y * y + 0.0); }\n}\n\ninterface Shape { double area(); }\n\nclass Main {\n    private int count = 0;\n    static final int[] PRIMES = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};\n    void run() throws java.io.IOException {\n        class Local { void help() { System.out.println(\"}\"); } }\n        String block = \"\"\"\n            }{\n            \"\"\";\n        new Local().help();\n    }\n}\n";
        let got = kept(Lang::Java, src);
        holds(
            &got,
            &[
                "public record Point(int x, int y) {",
                "@Entity(name = \"x\")",
                "double norm() {}",
                "interface Shape { double area(); }",
                "static final int[] PRIMES = {};",
                "void run() throws java.io.IOException {",
                "class Local { void help() {} }",
            ],
        );
        // (A record's compact constructor, `public Point {…}`, has no `)`: it is read whole.)
        // Statements without brackets define nothing: imports, fields.
        lacks(
            &got,
            &[
                "Math.sqrt",
                "new Local()",
                "11, 13",
                "package",
                "import",
                "count",
            ],
        );
    }

    /// JavaScript: a block is left out when nothing in it may define something, whatever
    /// kind of block it is; an IIFE's body, an object of methods and a function holding a
    /// named function are read, and what a regular expression, a string or a template literal
    /// holds does not count as a bracket.
    #[test]
    fn a_javascript_skeleton_reads_the_blocks_that_define_something() {
        let src = r#"#!/usr/bin/env node
'use strict';
const re = /[}{]\/"/g, half = 1 / 2;
const PARAMS = ['save', 'save-exact', 'global', 'omit'], first = PARAMS[0];
const { [k]: v } = o, [headOfTheList, tailOfTheList] = PARAMS;
// a comment with { a brace
const banner = `v${version + '}'}-${ {a: 1}.a }`;
function top(a, b) {
  const total = compute(a, b, [1, 2, 3, 4, 5, 6]);
  items.forEach(function (x) { console.log(x, x * 2, x * 3); });
  return total;
}
const helper = (x) => {
  return x * 2 + 3 * 4 + 5 * 6;
};
function pick(a) { return a ? parse(a) : fallback(a, 1, 2, 3); }
const store = { delete(k) { return map.remove(k, 1, 2, 3); } };
function halves(obj, i) { var r = obj.return / 2; const twice = () => 1; var q = i-- / 2; }
module.exports = {
  name: 'lib',
  method(arg) { return arg + 1 + 2 + 3 + 4 + 5; },
  factory: function () {
    this.inner = function inner() { return 1 + 2 + 3 + 4 + 5; };
    const local = 1 + 2 + 3 + 4 + 5 + 6 + 7;
  },
};
(function (root) {
  function hidden() { return root.value + 1 + 2 + 3 + 4; }
  if (root) { root.x = 1; root.y = 2; root.z = 3; }
})(this);
class Widget extends Base {
  #count = 0;
  static make() { return new Widget(1, 2, 3, 4, 5); }
  get size() { return this.#count + 1 + 2 + 3; }
}
"#;
        let got = kept(Lang::JavaScript, src);
        holds(
            &got,
            &[
                r#"const re = /[}{]\/"/g, half = 1 / 2;"#,
                "const banner = `v${version + '}'}-${ {a: 1}.a }`;",
                "const PARAMS = [], first = PARAMS[0];",
                "const { [k]: v } = o, [headOfTheList, tailOfTheList] = PARAMS;",
                "function top(a, b) {}",
                "const helper = (x) => {};",
                // (A conditional's `f(x) :` is no signature.)
                "function pick(a) {}",
                // Found by review: a method named by a keyword, divisions read as regexes.
                "const store = { delete(k) {} };",
                "const twice = () => 1;",
                "method(arg) {}",
                "this.inner = function inner() {};",
                "const local = 1 + 2",
                "function hidden() {}",
                "if (root) {}",
                "static make() {}",
                "get size() {}",
            ],
        );
        lacks(
            &got,
            &[
                "compute",
                "console.log",
                "root.value",
                "new Widget",
                "a comment",
            ],
        );
    }

    /// TypeScript: interfaces, classes and namespaces are read whatever is in them, a method
    /// or an arrow with a return type (`): Map<K, V> => {`) counts, and JSX text (`Don't`)
    /// does not throw the lexer off.
    #[test]
    fn a_typescript_skeleton_reads_signatures_and_typed_arrows() {
        let src = r#"interface Shape { area(): number; name?: string }
type Handler<T> = { (event: T): void; new (x: number): Shape };
export abstract class Base<T, U> implements Shape {
  abstract area(): number;
  protected onTick = (t: number): Map<string, number> => { return new Map([["a", t + 1 + 2 + 3]]); };
  method(a: number): Promise<void> { return this.run(a, 1, 2, 3, 4, 5, 6); }
}
declare module "ext" { export function f(x: number): void; }
namespace NS { export const g = () => { return 1 + 2 + 3 + 4 + 5 + 6; }; }
enum Color { Red = "RED", Green = "GREEN", Blue = "BLUE" }
function pick(a: string) { return a ? parse(a) : fallback(a, 1, 2, 3); }
function outer(): void {
  const reducer = (s: State): Map<K, V> => { return s.apply(1, 2, 3, 4, 5, 6); };
  const total = [1, 2, 3].map((x) => { return x * 2 * 3 * 4 * 5; });
}
"#;
        let got = kept(Lang::TypeScript, src);
        holds(
            &got,
            &[
                "interface Shape { area(): number; name?: string }",
                "{ (event: T): void; new (x: number): Shape }",
                "abstract area(): number;",
                "protected onTick = (t: number): Map<string, number> => {};",
                "method(a: number): Promise<void> {}",
                r#"declare module "ext" { export function f(x: number): void; }"#,
                "namespace NS { export const g = () => {}; }",
                "enum Color {}",
                "function pick(a: string) {}",
                "const reducer = (s: State): Map<K, V> => {};",
                ".map((x) => {});",
            ],
        );
        lacks(&got, &["this.run", "x * 2 * 3", "RED", "s.apply"]);
        let tsx = r#"export function App(props: Props) {
  return (
    <div className="app" onClick={() => props.go(1, 2, 3)}>
      <p>Don't panic</p>
      {props.items.map((item) => <Item key={item.id} {...item} />)}
    </div>
  );
}
const Item = ({ id }: { id: string }) => <li>{id}</li>;
function Row() { return <div><p>x</p><C o={{ m() { return 1 + 2 + 3 + 4; } }} /></div>; }
"#;
        let got = kept(Lang::Tsx, tsx);
        holds(
            &got,
            &[
                "export function App(props: Props) {}",
                "const Item = ({ id }: { id: string }) => <li>{id}</li>;",
                // (`</p>` starts no regular expression.)
                "m() {}",
            ],
        );
    }

    #[test]
    fn a_python_skeleton_keeps_what_leads_to_nested_definitions() {
        let src = "import os\n\nTABLE = {\"a\": [1, 2, 3], \"b\": (4, 5, 6)}\nNAMES: Dict[str, int] = dict(a=1, b=2, c=3)\nA, B = 1, 2\nprint(\"starting\", TABLE)\n\n@app.route(\"/items\", methods=[\"GET\", \"POST\"])\ndef items(request, *args, **kwargs) -> Dict[str, List[int]]:\n    return {}\n\nclass Shape:\n    \"\"\"A shape.\"\"\"\n    sides = 0\n\n    @property\n    def area(self) -> float:\n        \"\"\"The area,\n        in square units.\"\"\"\n        total = compute(self.sides,\n                        [1, 2, 3])\n        if total > 0:\n            log(\"positive: %d\" % total)\n            return total\n        else:\n            return 0.0\n\n    async def fetch(self): return await other()\n\n\ndef outer(x):\n    # helpers\n    y = x * 2\n    if x:\n        y = 1\n    elif y:\n        def inner(z):\n            return z + y\n    else:\n        y = 3\n    def inner(z):\n        return z + y\n    class Local:\n        pass\n    return inner(x)\n\nif os.name == \"nt\":\n    def windows_only():\n        return r\"C:\\\\\" + '\\''\ntry:\n    from _abc import (get_cache_token, _abc_init)\nexcept ImportError:\n    def fallback():\n        pass\n";
        let got = kept(Lang::Python, src);
        // What leads to a definition, the module's constants, and the shortest statement of
        // a block that would be empty; not what brackets hold but a subscript's.
        let expected = "TABLE = {}\nNAMES: Dict[str, int] = dict()\n@app.route()\ndef items() -> Dict[str, List[int]]:\n    return {}\nclass Shape:\n    @property\n    def area(self) -> float:\n        \"\"\"The area,\n        in square units.\"\"\"\n    async def fetch(self): return await other()\ndef outer(x):\n    if x:\n        y = 1\n    elif y:\n        def inner(z):\n            return z + y\n    else:\n        y = 3\n    def inner(z):\n        return z + y\n    class Local:\n        pass\nif os.name == \"nt\":\n    def windows_only():\n        return r\"C:\\\\\" + '\\''\ntry:\n    from _abc import (get_cache_token, _abc_init)\nexcept ImportError:\n    def fallback():\n        pass\n";
        assert_eq!(got, expected);
    }

    /// Found by review: what the first skeletons lost outside bodies.
    #[test]
    fn anonymous_classes_enum_constants_constant_blocks_and_glued_comments_are_read() {
        let java = "class A {\n    static final Comparator<String> CMP = new Comparator<String>() {\n        public int compare(String a, String b) { return a.length() - b.length(); }\n    };\n    enum Op {\n        PLUS(\"+\") { int apply(int a, int b) { return a + b + 0 * 12345; } },\n        MINUS(\"-\") { int apply(int a, int b) { return a - b - 0 * 12345; } };\n        Op(String s) { this.s = s + \"\" + \"\" + \"\"; }\n    }\n}\n";
        let got = kept(Lang::Java, java);
        holds(
            &got,
            &[
                "public int compare(String a, String b) {}",
                "PLUS(\"+\") { int apply(int a, int b) {} }",
                "MINUS(\"-\") { int apply(int a, int b) {} };",
                "Op(String s) {}",
            ],
        );
        let rust = "const _: () = {\n    impl X { pub fn hidden(&self) -> u8 { 1 + 2 + 3 + 4 + 5 + 6 } }\n    fn helper() -> u8 { 7 + 8 + 9 + 10 + 11 }\n};\npub/* a */ /* b */fn glued() {}\nfn raw() { let s = cr\"C:\\\"; let t = 1 + 2 + 3 + 4; }\nfn after() {}\n";
        let got = kept(Lang::Rust, rust);
        holds(
            &got,
            &[
                "impl X { pub fn hidden(&self) -> u8 {} }",
                "fn helper() -> u8 {}",
                "fn glued() {}",
                "fn raw() {}",
                "fn after() {}",
            ],
        );
        assert!(!got.contains("pubfn"), "{got}");
        let c = "int/* a */ /* b */kept(void);\n";
        let mut extractor = crate::Extractor::new();
        let found = extractor.definitions_parsed(Lang::C, c.as_bytes(), crate::Parse::Skeleton);
        assert_eq!(found.definitions.len(), 1, "{found:?}");
    }

    /// A file whose skeleton does not parse cleanly is read whole: the same definitions (and
    /// `partial`) as a whole parse, for the languages that do so (all but C and C++). The
    /// sources are ones where tree-sitter recovers otherwise from the skeleton's error (found
    /// by a random search): the Rust methods read as functions, the Java anonymous class's
    /// method as the class's, the Python constant lost.
    #[test]
    fn a_skeleton_with_an_error_gives_what_the_whole_file_does() {
        let mut extractor = crate::Extractor::new();
        for (lang, src) in [
            (
                Lang::Rust,
                "impl X {\n-> fn d() -> { 1 + 2 + 3 + 4 + 5 }\nfn c(x: u8, y: u16, z: u32) {}\nfn d() -> { 1 + 2 + 3 + 4 + 5 }\n}\nfn b() -> u8 { 2 + 3 + 4 + 5 + 6 + 7 }\n",
            ),
            (
                Lang::Java,
                "class A {\nnew A() { void z() { int e = 1 + 2 + 3 + 4; } };\nnew A() { void z() { int e = 1 + 2 + 3 + 4; } };\nvoid f() { int a = 1 + 2 + 3 + 4 + 5; }\n}\nnew A() { void z() { int e = 1 + 2 + 3 + 4; } };\n",
            ),
            (
                Lang::Python,
                "try:\nlambda: \ndef g(self, a, b, c):\nY: int = 3\nelse:\nx = (1 +\n 2)\n        y = 2\n",
            ),
        ] {
            let whole = extractor
                .definitions_walked(lang, src.as_bytes(), crate::Parse::Whole)
                .unwrap_or_else(|| {
                    extractor.definitions_parsed(lang, src.as_bytes(), crate::Parse::Whole)
                });
            let skeleton = extractor
                .definitions_walked(lang, src.as_bytes(), crate::Parse::Skeleton)
                .unwrap_or_else(|| {
                    extractor.definitions_parsed(lang, src.as_bytes(), crate::Parse::Skeleton)
                });
            assert!(included_ranges(lang, src.as_bytes()).is_some(), "{src}");
            assert!(whole.partial, "{src}");
            assert_eq!(skeleton, whole, "{src}");
        }
    }

    /// A JavaScript file with more gaps than [`MAX_GAPS`] leaves out that many, the largest:
    /// tree-sitter's range lookup grows with the square of the ranges. Other languages'
    /// skeletons, joined, leave out every gap.
    #[test]
    fn at_most_max_gaps_are_left_out_of_javascript_and_the_largest_first() {
        const FUNCTIONS: usize = 1_200;
        const { assert!(FUNCTIONS > MAX_GAPS) };
        let mut js = String::from(
            "function largest() { let x = [0, 64]; if (x) { let y = x.length * 2 * 3 * 4 * 5; } }\n",
        );
        let mut rust = String::new();
        for n in 0..FUNCTIONS {
            js.push_str(&format!(
                "function f{n}() {{ if (v) {{ let v = {n} + 1 + 2 + 3; }} }}\n"
            ));
            rust.push_str(&format!("fn f{n}() {{ let v = {n} + 1 + 2 + 3; }}\n"));
        }
        let ranges = included_ranges(Lang::JavaScript, js.as_bytes()).expect("a skeleton");
        assert!(ranges.len() <= MAX_GAPS + 1, "{}", ranges.len());
        let kept: String = ranges
            .iter()
            .map(|r| &js[r.start_byte..r.end_byte])
            .collect();
        assert!(!kept.contains("x.length"), "the largest block is left out");
        assert!(kept.contains("let v ="), "some small blocks are read");
        let ranges = included_ranges(Lang::Rust, rust.as_bytes()).expect("a skeleton");
        assert_eq!(ranges.len(), FUNCTIONS + 1);
    }

    /// Braces that balance only across the preprocessor's branches: the first branches are
    /// read, as ctags reads them, and the others left out with the conditionals' lines.
    #[test]
    fn c_braces_that_balance_across_branches_are_read_in_the_first_branches() {
        let src = "#if GMOCK_RENAME_MAIN\nint gmock_main(int argc, char** argv) {\n#elif OTHER\nint other_main(int argc) {\n#else\nint main(int argc, char** argv) {\n#  if NESTED\n#  endif\n#endif  // GMOCK_RENAME_MAIN\n  testing::InitGoogleMock(&argc, argv);\n  return RUN_ALL_TESTS();\n}\nint after(void) { return 1 + 2 + 3 + 4 + 5; }\n";
        let got = kept(Lang::Cpp, src);
        holds(&got, &["int gmock_main() {}", "int after() {}"]);
        lacks(&got, &["#", "other_main", "int main", "InitGoogleMock"]);
    }

    #[test]
    fn unbalanced_or_unreadable_brackets_give_no_skeleton() {
        for (lang, src) in [
            (Lang::Rust, "fn f() {\n    let x = 1;\n"),
            (Lang::Rust, "fn f() {\n    let x = [1, 2);\n}\n"),
            (Lang::Rust, "fn f() {\n    let s = \"never closed;\n}\n"),
            (Lang::Rust, "/* never closed\nfn f() {}\n"),
            (Lang::Go, "package p\nfunc f() {\n\treturn\n}\n}\n"),
            (Lang::Go, "package p\nfunc f() {\n\tq := `open\n}\n"),
            (Lang::Python, "def f(x):\n    y = [1, 2\n    return y\n"),
            (
                Lang::Python,
                "def f(x):\n    y = 1\n    return \"\"\"never closed\n",
            ),
            // Even in the first branches alone.
            (
                Lang::C,
                "#ifdef A\nint f(int a) {\n#else\nint f(void) {}\n#endif\n    return 0;\n",
            ),
        ] {
            assert_eq!(included_ranges(lang, src.as_bytes()), None, "{src}");
        }
        // Nothing worth leaving out: no skeleton either.
        assert_eq!(included_ranges(Lang::Rust, b"fn f() {}\n"), None);
        assert_eq!(included_ranges(Lang::Python, b"def f():\n    pass\n"), None);
    }

    /// Token soup (brackets, quotes, comments, keywords, non-ASCII text) in every language
    /// with a skeleton: the lexer never panics, its ranges are in order, inside the file, at
    /// the file's own rows and columns, and the parser takes them.
    #[test]
    fn hostile_sources_give_well_formed_ranges_or_none() {
        const TOKENS: &[&str] = &[
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            ";",
            "\n",
            " ",
            "\"",
            "'",
            "`",
            "/*",
            "*/",
            "//",
            "#",
            "r#\"",
            "\"#",
            "R\"x(",
            ")x\"",
            "\"\"\"",
            "\\",
            "=",
            "->",
            "<",
            ">",
            ":",
            "!",
            "fn ",
            "func ",
            "struct ",
            "class ",
            "impl ",
            "use ",
            "const ",
            "var ",
            "import ",
            "throws ",
            "x",
            "é",
            "日本",
            "0",
            "'a",
            "#define X {\n",
            "\\\n",
            "def ",
            ":",
            "'''",
            "    ",
            "\t",
            "elif ",
            "else:",
            "try:",
            "@",
            "${",
            "=> ",
            "/",
            "function ",
            "interface ",
            "#if X\n",
            "#else\n",
            "#endif\n",
            "TEST_F",
            "GTEST_API_ ",
            "using ",
            "? ",
            "1",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut parser = tree_sitter::Parser::new();
        let mut skeletons = 0;
        for round in 0..20_000 {
            let lang = [
                Lang::Rust,
                Lang::Go,
                Lang::C,
                Lang::Cpp,
                Lang::Java,
                Lang::Python,
                Lang::JavaScript,
                Lang::TypeScript,
            ][round % 8];
            let len = 1 + (next() % 120) as usize;
            let source: String = (0..len)
                .map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize])
                .collect();
            let bytes = source.as_bytes();
            let Some(ranges) = included_ranges(lang, bytes) else {
                continue;
            };
            skeletons += 1;
            let mut previous_end = 0;
            for range in &ranges {
                assert!(previous_end <= range.start_byte, "{source:?}");
                // (One empty range: nothing to read.)
                assert!(
                    range.start_byte < range.end_byte || ranges.len() == 1 && range.end_byte == 0,
                    "{source:?}"
                );
                assert!(range.end_byte <= bytes.len(), "{source:?}");
                for (offset, point) in [
                    (range.start_byte, range.start_point),
                    (range.end_byte, range.end_point),
                ] {
                    let before = &bytes[..offset];
                    let row = before.iter().filter(|&&b| b == b'\n').count();
                    let column = offset
                        - before
                            .iter()
                            .rposition(|&b| b == b'\n')
                            .map_or(0, |p| p + 1);
                    assert_eq!(point, Point::new(row, column), "{source:?}");
                }
                previous_end = range.end_byte;
            }
            // Joined, every byte's position is its own in the source.
            let joined = Joined::new(bytes, ranges.clone());
            let (mut row, mut line_start, mut counted) = (0, 0, 0);
            // The byte's point in the joined text.
            let mut joined_point = Point::new(0, 0);
            let mut at = 0;
            for range in &ranges {
                for offset in range.start_byte..range.end_byte {
                    for (i, &b) in bytes.iter().enumerate().take(offset).skip(counted) {
                        if b == b'\n' {
                            row += 1;
                            line_start = i + 1;
                        }
                    }
                    counted = offset;
                    let want = (offset, Point::new(row, offset - line_start));
                    assert_eq!(joined.position(at, joined_point), want, "{source:?}");
                    joined_point = if joined.text[at] == b'\n' {
                        Point::new(joined_point.row + 1, 0)
                    } else {
                        Point::new(joined_point.row, joined_point.column + 1)
                    };
                    at += 1;
                }
            }
            assert_eq!(at, joined.text.len());
            parser.set_language(&lang.grammar().0).expect("grammar");
            parser
                .set_included_ranges(&ranges)
                .expect("ranges the parser takes");
            let tree = parser.parse(bytes, None).expect("a tree");
            parser.set_included_ranges(&[]).expect("no ranges");
            let joined_tree = parser.parse(&joined.text, None).expect("a tree");
            // The same characters read, the same tree (JavaScript's scanner ends a statement
            // at a range's start; tree-sitter's recovery from an error weighs the bytes and
            // lines it skips, which joining leaves out).
            if lang != Lang::JavaScript && !tree.root_node().has_error() {
                assert_eq!(
                    joined_tree.root_node().to_sexp(),
                    tree.root_node().to_sexp(),
                    "{source:?}"
                );
            }
        }
        // The soup is not all refused.
        assert!(skeletons > 300, "{skeletons} skeletons");
    }

    #[test]
    fn positions_are_the_files_own() {
        let src = "fn first() {\n    let a = 1;\n    let b = 2;\n}\nfn second() {}\n";
        let ranges = included_ranges(Lang::Rust, src.as_bytes()).expect("a skeleton");
        let last = ranges.last().expect("a range");
        assert_eq!(&src[last.start_byte..last.start_byte + 1], "}");
        assert_eq!(last.start_point, Point::new(3, 0));
        assert_eq!(last.end_point, Point::new(5, 0));
    }
}
