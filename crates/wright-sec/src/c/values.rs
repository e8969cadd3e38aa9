//! What the rules know of a value at a point of a function: constants (literals, macros,
//! `sizeof`, the last assignment), buffer sizes (from declarations and allocations, with
//! `strlen(s) + 1` kept symbolic), the longest string an expression can hold, and where a
//! pointer came from (NULL, an allocation, a stack array, a literal…). How far the data
//! itself can be trusted is [`super::content`]'s.

use std::collections::HashMap;

use tree_sitter::Node;

pub use super::content::{Content, ParamFact, READERS};

use super::macros::{self, Macros};
use super::model::{Event, Function, Kind, Shape};
use super::parse::text;

/// How deep expressions and chains of assignments are followed.
pub(super) const MAX_DEPTH: usize = 12;

/// Functions that allocate on the heap, and the argument(s) that size the block.
pub const ALLOCATORS: &[&str] = &[
    "malloc",
    "calloc",
    "realloc",
    "strdup",
    "strndup",
    "wcsdup",
    "xmalloc",
    "kmalloc",
    "kzalloc",
    "g_malloc",
    "reallocarray",
];

/// Functions whose result may be NULL (besides the allocators).
pub const MAYBE_NULL: &[&str] = &[
    "fopen",
    "fdopen",
    "freopen",
    "tmpfile",
    "popen",
    "getenv",
    "secure_getenv",
    "strchr",
    "strrchr",
    "strstr",
    "strpbrk",
    "memchr",
    "wcschr",
    "wcsrchr",
    "wcsstr",
    "opendir",
    "readdir",
    "getpwnam",
    "getpwuid",
    "getgrnam",
    "gethostbyname",
    "localtime",
    "gmtime",
    "dlopen",
    "dlsym",
    "fgets",
    "realpath",
    "mmap_unused",
];

/// The size in bytes of a C type named by `type_text`, where known (pointers are 8).
pub fn type_size(type_text: &str) -> Option<i64> {
    let t = type_text.trim();
    if t.ends_with('*') {
        return Some(8);
    }
    let t = t
        .trim_start_matches("const ")
        .trim_start_matches("unsigned ")
        .trim_start_matches("signed ")
        .trim_start_matches("std::")
        .trim();
    Some(match t {
        "char" | "int8_t" | "uint8_t" | "bool" | "_Bool" | "BYTE" | "TCHAR" | "CHAR" | "u8"
        | "signed" => 1,
        "short" | "int16_t" | "uint16_t" | "u16" => 2,
        "wchar_t" | "int" | "float" | "int32_t" | "uint32_t" | "unsigned" | "DWORD" | "u32" => 4,
        "long" | "long long" | "double" | "size_t" | "ssize_t" | "int64_t" | "uint64_t"
        | "off_t" | "intptr_t" | "uintptr_t" | "u64" | "ptrdiff_t" => 8,
        _ => return None,
    })
}

/// The identifier a declarator declares (under pointers, arrays, references).
pub fn declared_name(declarator: Node<'_>) -> Option<Node<'_>> {
    let mut node = declarator;
    for _ in 0..32 {
        if node.kind() == "identifier" {
            return Some(node);
        }
        node = node
            .child_by_field_name("declarator")
            .or_else(|| node.named_child(0))?;
    }
    None
}

/// Strips casts and parentheses.
pub fn strip(node: Node<'_>) -> Node<'_> {
    let mut node = node;
    for _ in 0..MAX_DEPTH * 4 {
        let inner = match node.kind() {
            "cast_expression" => node.child_by_field_name("value"),
            "parenthesized_expression" => node.named_child(0),
            _ => None,
        };
        match inner {
            Some(i) => node = i,
            None => break,
        }
    }
    node
}

/// The variable an lvalue or pointer expression is rooted at, and whether it is reached
/// through a pointer (`p[i]`, `*p`, `p->f`; not `s.f`): `data + len` → `data`.
pub fn root_of<'s>(node: Node<'_>, source: &'s str) -> Option<(&'s str, bool)> {
    let mut node = strip(node);
    let mut through = false;
    for _ in 0..MAX_DEPTH * 4 {
        match node.kind() {
            "identifier" => return Some((text(node, source), through)),
            "subscript_expression" | "pointer_expression" => {
                through |= !text(node, source).starts_with('&');
                node = node
                    .child_by_field_name("argument")
                    .or_else(|| node.named_child(0))?;
            }
            "field_expression" => {
                through |= text(node, source).contains("->");
                node = node.child_by_field_name("argument")?;
            }
            "binary_expression" => node = node.child_by_field_name("left")?,
            "cast_expression" | "parenthesized_expression" => node = strip(node),
            _ => return None,
        }
    }
    None
}

/// The value of an `if`/`while` condition when the preprocessor or compiler knows it:
/// `0`, `1`, a numeric macro or constant, and comparisons and `!` of those.
pub fn constant_condition(condition: Node<'_>, source: &str, macros: &Macros) -> Option<bool> {
    constant(condition, source, macros, 0).map(|v| v != 0)
}

/// An integer constant expression's value (literals, numeric macros, arithmetic).
pub fn constant_int(node: Node<'_>, source: &str, macros: &Macros) -> Option<i64> {
    constant(node, source, macros, 0)
}

/// An integer constant expression's value, names looked up with `lookup`.
pub fn constant_with(
    node: Node<'_>,
    source: &str,
    lookup: &dyn Fn(&str) -> Option<i64>,
) -> Option<i64> {
    let macros = Macros::default();
    constant_depth(node, source, &macros, Some(lookup), 0)
}

fn constant(node: Node<'_>, source: &str, macros: &Macros, depth: usize) -> Option<i64> {
    constant_depth(node, source, macros, None, depth)
}

/// Looks a name up as a constant.
type Lookup<'a> = Option<&'a dyn Fn(&str) -> Option<i64>>;

fn constant_depth(
    node: Node<'_>,
    source: &str,
    macros: &Macros,
    lookup: Lookup<'_>,
    depth: usize,
) -> Option<i64> {
    let constant = |n: Node<'_>, s: &str, m: &Macros, d: usize| constant_depth(n, s, m, lookup, d);
    if depth > MAX_DEPTH {
        return None;
    }
    let node = strip(node);
    match node.kind() {
        "number_literal" => macros::parse_int(text(node, source)),
        "true" => Some(1),
        "false" => Some(0),
        "identifier" => {
            let name = text(node, source);
            macros
                .numbers
                .get(name)
                .copied()
                .or_else(|| lookup.and_then(|l| l(name)))
        }
        "unary_expression" => {
            let v = constant(
                node.child_by_field_name("argument")?,
                source,
                macros,
                depth + 1,
            )?;
            match node.child(0).map(|o| text(o, source)) {
                Some("!") => Some(i64::from(v == 0)),
                Some("-") => v.checked_neg(),
                _ => None,
            }
        }
        "binary_expression" => {
            let l = constant(node.child_by_field_name("left")?, source, macros, depth + 1)?;
            let r = constant(
                node.child_by_field_name("right")?,
                source,
                macros,
                depth + 1,
            )?;
            let op = text(node.child_by_field_name("operator")?, source);
            Some(match op {
                "==" => i64::from(l == r),
                "!=" => i64::from(l != r),
                "<" => i64::from(l < r),
                ">" => i64::from(l > r),
                "<=" => i64::from(l <= r),
                ">=" => i64::from(l >= r),
                "&&" => i64::from(l != 0 && r != 0),
                "+" => l.checked_add(r)?,
                "-" => l.checked_sub(r)?,
                "*" => l.checked_mul(r)?,
                "/" => l.checked_div(r)?,
                "||" => i64::from(l != 0 || r != 0),
                _ => return None,
            })
        }
        _ => None,
    }
}

/// A size that is a constant, or a constant plus a multiple of `strlen(var)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lin {
    pub strlen_of: Option<String>,
    pub coef: i64,
    pub k: i64,
}

impl Lin {
    pub fn constant(k: i64) -> Lin {
        Lin {
            strlen_of: None,
            coef: 0,
            k,
        }
    }

    pub(super) fn strlen(var: &str) -> Lin {
        Lin {
            strlen_of: Some(var.to_string()),
            coef: 1,
            k: 0,
        }
    }

    fn add(self, other: Lin, sign: i64) -> Option<Lin> {
        let (strlen_of, coef) = match (self.strlen_of, other.strlen_of) {
            (None, None) => (None, 0),
            (Some(a), None) => (Some(a), self.coef),
            (None, Some(b)) => (Some(b), other.coef.checked_mul(sign)?),
            (Some(a), Some(b)) if a == b => (
                Some(a),
                self.coef.checked_add(other.coef.checked_mul(sign)?)?,
            ),
            _ => return None,
        };
        Some(Lin {
            strlen_of,
            coef,
            k: self.k.checked_add(other.k.checked_mul(sign)?)?,
        })
    }

    fn scale(self, by: i64) -> Option<Lin> {
        Some(Lin {
            strlen_of: self.strlen_of,
            coef: self.coef.checked_mul(by)?,
            k: self.k.checked_mul(by)?,
        })
    }

    fn divide(self, by: i64) -> Option<Lin> {
        (by > 0 && self.coef % by == 0 && self.k % by == 0).then(|| Lin {
            strlen_of: self.strlen_of,
            coef: self.coef / by,
            k: self.k / by,
        })
    }

    /// `self + other`, when both have the same symbolic part (or none).
    pub fn plus(&self, other: &Lin) -> Option<Lin> {
        self.clone().add(other.clone(), 1)
    }

    /// `self × by`.
    pub fn scale_by(self, by: i64) -> Option<Lin> {
        self.scale(by)
    }

    /// `self / by`, when exact.
    pub fn divide_by(self, by: i64) -> Option<Lin> {
        self.divide(by)
    }

    /// The plain number, if it is one.
    pub fn as_constant(&self) -> Option<i64> {
        (self.strlen_of.is_none() || self.coef == 0).then_some(self.k)
    }

    /// Whether `self ≤ other` is known (`Some`) and which way.
    pub fn fits_in(&self, other: &Lin) -> Option<bool> {
        match (self.as_constant(), other.as_constant()) {
            (Some(a), Some(b)) => Some(a <= b),
            _ if self.strlen_of == other.strlen_of && self.coef == other.coef => {
                Some(self.k <= other.k)
            }
            _ => None,
        }
    }
}

/// Where a pointer's (or variable's) value came from.
#[derive(Debug, Clone)]
pub enum Origin<'t> {
    Null,
    /// `malloc` & co, `new`: the allocating function and its call.
    Alloc(String, Node<'t>),
    /// A local (or static) array.
    Array(String),
    /// `&var`.
    AddressOf(String),
    /// A string literal of this length.
    Literal(usize),
    /// A function that may return NULL.
    MaybeNull(String),
    Param,
    /// Declared without a value and not assigned since.
    Uninit,
    /// Some other expression.
    Value(Node<'t>),
    Unknown,
}

/// The value questions of one function.
pub struct Values<'a, 't> {
    pub f: &'a Function<'t>,
    pub source: &'a str,
    pub macros: &'a Macros,
    /// What the file's calls to this function pass, by parameter (empty when unknown).
    pub params: &'a [ParamFact],
    /// Whether the file is C (no constructors: a declared structure holds garbage).
    pub is_c: bool,
    /// What the file's functions do with each pointer parameter, by function name.
    pub effects: &'a HashMap<String, Vec<ParamEffect>>,
}

/// What a function does with a pointer parameter: frees it, or uses what it points to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ParamEffect {
    pub frees: bool,
    pub uses: bool,
}

impl<'t> Values<'_, 't> {
    /// The value of `node` at `at` as a [`Lin`], when known.
    pub fn size(&self, node: Node<'t>, at: &Event<'t>) -> Option<Lin> {
        self.lin(node, at, 0)
    }

    fn lin(&self, node: Node<'t>, at: &Event<'t>, depth: usize) -> Option<Lin> {
        if depth > MAX_DEPTH {
            return None;
        }
        let node = strip(node);
        let src = self.source;
        match node.kind() {
            "number_literal" => macros::parse_int(text(node, src)).map(Lin::constant),
            "char_literal" => Some(Lin::constant(char_value(text(node, src)))),
            "identifier" => {
                let name = text(node, src);
                if let Some(n) = self.macros.numbers.get(name) {
                    return Some(Lin::constant(*n));
                }
                match self.origin(name, at) {
                    Origin::Value(v) => self.lin(v, at, depth + 1),
                    _ => None,
                }
            }
            "sizeof_expression" => self.size_of(node, at).map(Lin::constant),
            "call_expression" => {
                let f = node.child_by_field_name("function")?;
                let name = self.macros.resolve(text(f, src));
                if !matches!(name, "strlen" | "wcslen" | "_tcslen") {
                    return None;
                }
                let arg = node.child_by_field_name("arguments")?.named_child(0)?;
                (strip(arg).kind() == "identifier").then(|| Lin::strlen(text(strip(arg), src)))
            }
            "binary_expression" => {
                let l = self.lin(node.child_by_field_name("left")?, at, depth + 1);
                let r = self.lin(node.child_by_field_name("right")?, at, depth + 1);
                let op = text(node.child_by_field_name("operator")?, src);
                match op {
                    "+" => l?.add(r?, 1),
                    "-" => l?.add(r?, -1),
                    "*" => {
                        let (l, r) = (l?, r?);
                        match (l.as_constant(), r.as_constant()) {
                            (Some(a), _) => r.scale(a),
                            (_, Some(b)) => l.scale(b),
                            _ => None,
                        }
                    }
                    "/" => l?.divide(r?.as_constant()?),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `sizeof(type)` or `sizeof expr` in bytes, when known.
    fn size_of(&self, node: Node<'t>, at: &Event<'t>) -> Option<i64> {
        let src = self.source;
        if let Some(t) = node.child_by_field_name("type") {
            return type_size(text(t, src));
        }
        let value = strip(node.child_by_field_name("value")?);
        match value.kind() {
            "identifier" => {
                // `sizeof(wchar_t)` reads as an expression when the type is not a keyword.
                let Some(var) = self.f.vars.get(text(value, src)) else {
                    return type_size(text(value, src));
                };
                match var.shape {
                    Shape::Array(Some(n)) => n.checked_mul(var.elem_size),
                    Shape::Array(None) => None,
                    Shape::Pointer => Some(8),
                    Shape::Scalar => Some(var.elem_size),
                }
            }
            "string_literal" => {
                macros::literal_length(text(value, src)).and_then(|n| i64::try_from(n + 1).ok())
            }
            "pointer_expression" | "subscript_expression" => {
                let (root, _) = root_of(value, src)?;
                self.f.vars.get(root).map(|v| v.elem_size)
            }
            _ => {
                let _ = at;
                None
            }
        }
    }

    /// Where `var`'s value at `at` came from.
    pub fn origin(&self, var: &str, at: &Event<'t>) -> Origin<'t> {
        self.origin_depth(var, at, 0)
    }

    fn origin_depth(&self, var: &str, at: &Event<'t>, depth: usize) -> Origin<'t> {
        if depth > MAX_DEPTH {
            return Origin::Unknown;
        }
        let Some(decl) = self.f.vars.get(var) else {
            return Origin::Unknown;
        };
        match self.f.last_assign(var, at) {
            Some(Event {
                kind:
                    Kind::Assign {
                        value,
                        compound: false,
                        ..
                    },
                ..
            }) => self.classify(*value, at, depth),
            Some(_) => Origin::Unknown,
            None if decl.is_param => Origin::Param,
            None if matches!(decl.shape, Shape::Array(_)) => Origin::Array(var.to_string()),
            None if decl.is_static || decl.initialised => Origin::Unknown,
            None => Origin::Uninit,
        }
    }

    fn classify(&self, value: Node<'t>, at: &Event<'t>, depth: usize) -> Origin<'t> {
        let value = strip(value);
        let src = self.source;
        match value.kind() {
            "null" | "nullptr" => Origin::Null,
            "number_literal" if text(value, src) == "0" => Origin::Null,
            "string_literal" | "concatenated_string" => {
                Origin::Literal(macros::literal_length(text(value, src)).unwrap_or(0))
            }
            "new_expression" => {
                let t = text(value, src);
                let name = if t.contains("nothrow") {
                    "new_nothrow"
                } else if value.child_by_field_name("declarator").is_some() {
                    "new[]"
                } else {
                    "new"
                };
                Origin::Alloc(name.to_string(), value)
            }
            "call_expression" => {
                let name = value
                    .child_by_field_name("function")
                    .and_then(|f| super::walk::callee_name(f, src))
                    .map(|n| self.macros.resolve(n));
                match name {
                    Some(n)
                        if ALLOCATORS.contains(&n)
                            || n == "alloca"
                            || n == "_alloca"
                            || n == "ALLOCA" =>
                    {
                        Origin::Alloc(n.to_string(), value)
                    }
                    Some(n) if MAYBE_NULL.contains(&n) => Origin::MaybeNull(n.to_string()),
                    _ => Origin::Value(value),
                }
            }
            "identifier" => {
                let name = text(value, src);
                if let Some(len) = self.macros.strings.get(name) {
                    return Origin::Literal(*len);
                }
                match self.f.vars.get(name).map(|v| &v.shape) {
                    Some(Shape::Array(_)) => Origin::Array(name.to_string()),
                    Some(Shape::Pointer) => self.origin_depth(name, at, depth + 1),
                    _ => Origin::Value(value),
                }
            }
            "pointer_expression" if text(value, src).starts_with('&') => {
                match root_of(value.child_by_field_name("argument").unwrap_or(value), src) {
                    Some((root, false)) => Origin::AddressOf(root.to_string()),
                    _ => Origin::Value(value),
                }
            }
            _ => Origin::Value(value),
        }
    }

    /// Bytes per element of what `expr` points to.
    pub fn elem_size(&self, expr: Node<'t>) -> i64 {
        root_of(expr, self.source)
            .and_then(|(root, _)| self.f.vars.get(root))
            .map_or(1, |v| v.elem_size.max(1))
    }

    /// The size in bytes of the buffer `expr` points to, when known.
    pub fn capacity(&self, expr: Node<'t>, at: &Event<'t>) -> Option<Lin> {
        let expr = strip(expr);
        if expr.kind() != "identifier" {
            return None;
        }
        self.capacity_of(text(expr, self.source), at, 0)
    }

    fn capacity_of(&self, var: &str, at: &Event<'t>, depth: usize) -> Option<Lin> {
        if depth > MAX_DEPTH {
            return None;
        }
        let decl = self.f.vars.get(var)?;
        if let Shape::Array(n) = decl.shape {
            return n
                .and_then(|n| n.checked_mul(decl.elem_size))
                .map(Lin::constant);
        }
        match self.origin(var, at) {
            Origin::Array(a) if a != var => self.capacity_of(&a, at, depth + 1),
            Origin::Literal(len) => i64::try_from(len + 1).ok().map(Lin::constant),
            Origin::Alloc(name, call) => self.alloc_size(&name, call, at),
            Origin::Param => self.param(var).and_then(|p| p.capacity).map(Lin::constant),
            _ => None,
        }
    }

    /// The bytes an allocation asks for.
    pub fn alloc_size(&self, name: &str, call: Node<'t>, at: &Event<'t>) -> Option<Lin> {
        if name.starts_with("new") {
            let count = call
                .child_by_field_name("declarator")
                .and_then(|d| d.child_by_field_name("length").or_else(|| d.named_child(0)));
            let elem = call
                .child_by_field_name("type")
                .and_then(|t| type_size(text(t, self.source)))?;
            return match count {
                Some(n) => self.size(n, at)?.scale(elem),
                None => Some(Lin::constant(elem)),
            };
        }
        let args = call.child_by_field_name("arguments")?;
        match name {
            "calloc" => {
                let n = self.size(args.named_child(0)?, at)?;
                let s = self.size(args.named_child(1)?, at)?.as_constant()?;
                n.scale(s)
            }
            "realloc" => self.size(args.named_child(1)?, at),
            "strdup" | "wcsdup" => None,
            _ => self.size(args.named_child(0)?, at),
        }
    }
}

/// The value of a character literal (`'\0'` → 0, `'A'` → 65).
fn char_value(literal: &str) -> i64 {
    let inner = literal
        .trim_start_matches(['L', 'u', 'U'])
        .trim_matches('\'');
    match inner {
        "\\0" => 0,
        "\\n" => 10,
        "\\t" => 9,
        "\\r" => 13,
        _ => inner.chars().next().map_or(0, |c| i64::from(u32::from(c))),
    }
}
