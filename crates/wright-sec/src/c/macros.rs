//! The file's `#define`s, as far as the rules need them: a name that stands for an API
//! (`#define MKTEMP mktemp`, `#define COPY(d, s) strcpy(d, s)`), a number (`#define N 100`)
//! or a string (`#define SRC "AAAA"`), so a call or size through the macro reads as what
//! it stands for. File-scope constants (`static const int SIZE = 10;`) join the numbers.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::parse::{self, text};

/// What the file's macros and constants stand for.
#[derive(Debug, Default)]
pub struct Macros {
    /// Macro name → the function it calls (`MKTEMP` → `mktemp`).
    pub calls: HashMap<String, String>,
    /// Name → integer value.
    pub numbers: HashMap<String, i64>,
    /// Name → the string literal's length (in characters, without the terminator).
    pub strings: HashMap<String, usize>,
    /// The names macro bodies mention: a macro may read or set a variable of that name.
    pub body_names: HashSet<String>,
}

/// How deep a chain of macros is followed (`A` → `B` → `strcpy`).
const MAX_MACRO_CHAIN: usize = 8;

impl Macros {
    /// The API a call to `name` reaches, following macros; `name` itself when no macro.
    pub fn resolve<'a>(&'a self, name: &'a str) -> &'a str {
        let mut current = name;
        for _ in 0..MAX_MACRO_CHAIN {
            match self.calls.get(current) {
                Some(next) if next != current => current = next,
                _ => break,
            }
        }
        current
    }

    /// Collects the macros and file-scope constants of the tree under `root`, skipping dead
    /// `#if 0` code. Walks with an explicit stack.
    pub fn collect(root: Node<'_>, source: &str) -> Macros {
        let mut macros = Macros::default();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "preproc_def" => macros.define(node, source, false),
                "preproc_function_def" => macros.define(node, source, true),
                "function_definition" | "comment" | "string_literal" => continue,
                "declaration" => {
                    macros.file_constant(node, source);
                    continue;
                }
                _ => {}
            }
            if parse::is_dead_preprocessor_branch(node, source) {
                if let Some(alt) = parse::live_alternative(node) {
                    stack.push(alt);
                }
                continue;
            }
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                stack.push(child);
            }
        }
        macros
    }

    fn define(&mut self, node: Node<'_>, source: &str, function_like: bool) {
        let (Some(name), Some(value)) = (
            node.child_by_field_name("name"),
            node.child_by_field_name("value"),
        ) else {
            return;
        };
        let name = text(name, source).to_string();
        let value = text(value, source).trim();
        for word in value.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if is_identifier(word) && !self.body_names.contains(word) {
                self.body_names.insert(word.to_string());
            }
        }
        if function_like {
            // `#define COPY(d, s) strcpy(d, s)`: a call that passes the macro's parameters
            // on in order, so the call's arguments are the API's. (`#define LOG(...)
            // fprintf(stderr, __VA_ARGS__)` shifts them, and is not followed.)
            let params: Vec<&str> = node
                .child_by_field_name("parameters")
                .map(|p| {
                    text(p, source)
                        .trim_matches(['(', ')'])
                        .split(',')
                        .map(|p| match p.trim() {
                            "..." => "__VA_ARGS__",
                            other => other,
                        })
                        .collect()
                })
                .unwrap_or_default();
            let Some(open) = value.find('(') else {
                return;
            };
            let callee = value[..open].trim();
            let Some(args) = value[open + 1..].trim_end().strip_suffix(')') else {
                return;
            };
            let args: Vec<&str> = args.split(',').map(str::trim).collect();
            let aligned =
                args.len() <= params.len() && args.iter().zip(&params).all(|(a, p)| a == p);
            if is_identifier(callee) && aligned {
                self.calls.insert(name, callee.to_string());
            }
            return;
        }
        if is_identifier(value) {
            self.calls.insert(name, value.to_string());
        } else if let Some(n) = parse_int(value) {
            self.numbers.insert(name, n);
        } else if let Some(len) = literal_length(value) {
            self.strings.insert(name, len);
        }
    }

    /// `static const int N = 10;` (or any `const` integer) at file scope.
    fn file_constant(&mut self, node: Node<'_>, source: &str) {
        let decl = text(node, source);
        if !decl.contains("const") {
            return;
        }
        let mut cursor = node.walk();
        for child in node.children_by_field_name("declarator", &mut cursor) {
            if child.kind() != "init_declarator" {
                continue;
            }
            let (Some(name), Some(value)) = (
                child.child_by_field_name("declarator"),
                child.child_by_field_name("value"),
            ) else {
                continue;
            };
            if name.kind() == "identifier"
                && let Some(n) = parse_int(text(value, source))
            {
                self.numbers.insert(text(name, source).to_string(), n);
            }
        }
    }
}

/// Whether `s` is a C identifier.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// An integer literal (decimal, hex, octal; suffixes and parentheses allowed).
pub fn parse_int(s: &str) -> Option<i64> {
    let s = s
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok();
    }
    if s.len() > 1 && s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit()) {
        return i64::from_str_radix(&s[1..], 8).ok();
    }
    s.parse().ok()
}

/// The length of a string literal's contents (`"ab\n"` → 3), with a `L`/`u8` prefix
/// allowed; `None` when `s` is not one literal.
pub fn literal_length(s: &str) -> Option<usize> {
    let s = s.trim();
    let start = s.find('"')?;
    if !s[..start]
        .chars()
        .all(|c| matches!(c, 'L' | 'u' | 'U' | '8'))
    {
        return None;
    }
    let body = s[start + 1..].strip_suffix('"')?;
    let mut len = 0;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' {
            return None;
        }
        if c == '\\' {
            match chars.next() {
                Some('x') => {
                    while chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                        chars.next();
                    }
                }
                Some(d) if d.is_digit(8) => {
                    for _ in 0..2 {
                        if chars.peek().is_some_and(|c| c.is_digit(8)) {
                            chars.next();
                        }
                    }
                }
                _ => {}
            }
        }
        len += 1;
    }
    Some(len)
}
