//! How far data can be trusted: a literal, a parameter, unknown, bytes parsed out of a
//! caller's buffer, or read from outside (`fgets`, `recv`, `getenv`, `argv`) — followed
//! through assignments, aliases of arrays, and the calls that write into a buffer.

use tree_sitter::Node;

use super::model::{Call, Event, Kind, MAX_LOOKBACK};
use super::parse::text;
use super::values::{Lin, MAX_DEPTH, Origin, Values, root_of, strip};

/// Functions that put outside data into their argument, by argument index (`usize::MAX`:
/// every argument from the format on).
const TAINT_INTO: &[(&str, usize)] = &[
    ("fgets", 0),
    ("fgetws", 0),
    ("gets", 0),
    ("_getws", 0),
    ("read", 1),
    ("recv", 1),
    ("recvfrom", 1),
    ("fread", 0),
    ("getline", 0),
    ("getdelim", 0),
    ("scanf", usize::MAX),
    ("wscanf", usize::MAX),
    ("fscanf", usize::MAX),
    ("fwscanf", usize::MAX),
];

/// Functions returning outside data.
const TAINT_FROM: &[&str] = &[
    "getenv",
    "secure_getenv",
    "readline",
    "rand",
    "random",
    "getpass",
];

/// Functions that copy their later arguments into the first.
const COPIERS: &[&str] = &[
    "strcpy",
    "strcat",
    "strncpy",
    "strncat",
    "wcscpy",
    "wcscat",
    "wcsncpy",
    "wcsncat",
    "memcpy",
    "memmove",
    "sprintf",
    "snprintf",
    "swprintf",
    "vsprintf",
    "vsnprintf",
    "strlcpy",
    "strlcat",
    "lstrcpy",
    "lstrcat",
    "_tcscpy",
    "_tcscat",
    "sscanf",
    "swscanf",
];

/// Functions that only read their arguments.
pub const READERS: &[&str] = &[
    "strlen",
    "wcslen",
    "strcmp",
    "strncmp",
    "strcasecmp",
    "strncasecmp",
    "wcscmp",
    "memcmp",
    "strchr",
    "strrchr",
    "strstr",
    "printf",
    "fprintf",
    "puts",
    "fputs",
    "printLine",
    "printWLine",
    "printIntLine",
    "printLongLine",
    "printHexCharLine",
    "printSizeTLine",
    "printLongLongLine",
    "printDoubleLine",
    "printFloatLine",
    "printHexUnsignedCharLine",
    "printUnsignedLine",
    "printStructLine",
    "printBytesLine",
    "printShortLine",
    "printWcharLine",
    "printf_s",
    "atoi",
    "atol",
    "atoll",
    "atof",
    "strtol",
    "strtoul",
    "strtoll",
    "strtod",
    "free",
    "system",
    "popen",
    "execl",
    "execlp",
    "execv",
    "execvp",
    "syslog",
    "fopen",
    "open",
    "access",
    "stat",
    "unlink",
    "remove",
    "perror",
    "strdup",
    "va_start",
    "va_end",
    "va_copy",
];

/// How far data can be trusted, least to most dangerous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Content {
    Literal,
    Param,
    Unknown,
    /// Bytes read out of a byte buffer the function was given: input being parsed.
    Data,
    /// The command line (`argv`): chosen by whoever runs the program.
    Args,
    /// Read from outside: console, file, network, environment, a random source.
    Tainted,
}

/// What the calls to a function in its file pass as one parameter: the worst content,
/// and the smallest buffer (when every call passes one of known size).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamFact {
    pub content: Content,
    pub capacity: Option<i64>,
}

impl ParamFact {
    /// The fact of passing `content` and a buffer of `capacity` bytes.
    pub fn of(content: Content, capacity: Option<Lin>) -> ParamFact {
        ParamFact {
            content,
            capacity: capacity.and_then(|c| c.as_constant()),
        }
    }

    /// The fact of two calls.
    pub fn join(&self, other: &ParamFact) -> ParamFact {
        ParamFact {
            content: self.content.max(other.content),
            capacity: self.capacity.zip(other.capacity).map(|(a, b)| a.min(b)),
        }
    }
}

impl<'t> Values<'_, 't> {
    /// What callers in the file pass as parameter `name`.
    pub(super) fn param(&self, name: &str) -> Option<&ParamFact> {
        let index = self.f.params.iter().position(|p| p == name)?;
        self.params.get(index)
    }

    /// How far the data `expr` holds at `at` can be trusted.
    pub fn content(&self, expr: Node<'t>, at: &Event<'t>) -> Content {
        self.content_depth(expr, at, 0)
    }

    fn content_depth(&self, expr: Node<'t>, at: &Event<'t>, depth: usize) -> Content {
        if depth > MAX_DEPTH {
            return Content::Unknown;
        }
        let expr = strip(expr);
        let src = self.source;
        match expr.kind() {
            "string_literal"
            | "concatenated_string"
            | "number_literal"
            | "char_literal"
            | "null"
            | "true"
            | "false" => Content::Literal,
            "identifier" => {
                let name = text(expr, src);
                if self.macros.strings.contains_key(name) || self.macros.numbers.contains_key(name)
                {
                    return Content::Literal;
                }
                // `#define COMMAND_ARG3 data`: the macro stands for a variable.
                let name = if self.f.vars.contains_key(name) {
                    name
                } else {
                    self.macros.resolve(name)
                };
                self.var_content(name, at, depth)
            }
            "call_expression" => {
                let name = expr
                    .child_by_field_name("function")
                    .and_then(|f| super::walk::callee_name(f, src))
                    .map(|n| self.macros.resolve(n));
                match name {
                    Some(n) if TAINT_FROM.contains(&n) => Content::Tainted,
                    Some(
                        "atoi" | "atol" | "atoll" | "strtol" | "strtoul" | "strtoll" | "strdup"
                        | "_wtoi",
                    ) => expr
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .map_or(Content::Unknown, |a| self.content_depth(a, at, depth + 1)),
                    _ => Content::Unknown,
                }
            }
            "binary_expression" => {
                let l = expr
                    .child_by_field_name("left")
                    .map_or(Content::Unknown, |l| self.content_depth(l, at, depth + 1));
                let r = expr
                    .child_by_field_name("right")
                    .map_or(Content::Unknown, |r| self.content_depth(r, at, depth + 1));
                l.max(r)
            }
            // `char *args[] = {"sh", "-c", data, NULL}`: as trusted as its least trusted part.
            "initializer_list" => {
                let mut cursor = expr.walk();
                let parts: Vec<Node<'t>> = expr.named_children(&mut cursor).take(64).collect();
                parts
                    .into_iter()
                    .map(|p| self.content_depth(p, at, depth + 1))
                    .max()
                    .unwrap_or(Content::Literal)
            }
            "conditional_expression" => {
                let a = expr
                    .child_by_field_name("consequence")
                    .map_or(Content::Unknown, |n| self.content_depth(n, at, depth + 1));
                let b = expr
                    .child_by_field_name("alternative")
                    .map_or(Content::Unknown, |n| self.content_depth(n, at, depth + 1));
                a.max(b)
            }
            "subscript_expression" | "field_expression" | "pointer_expression" => {
                match root_of(expr, src) {
                    Some(("argv", _)) => Content::Args,
                    // Bytes read out of a caller's buffer are data, not the caller's choice;
                    // a structure's fields are its bookkeeping.
                    Some((root, true)) if expr.kind() != "field_expression" => {
                        let bytes = self.f.vars.get(root).is_some_and(|d| d.bytes);
                        let floor = if bytes {
                            Content::Data
                        } else {
                            Content::Unknown
                        };
                        self.var_content(root, at, depth + 1).max(floor)
                    }
                    Some((root, true)) => self.var_content(root, at, depth + 1),
                    Some((root, false)) => self.var_content(root, at, depth + 1),
                    None => Content::Unknown,
                }
            }
            _ => Content::Unknown,
        }
    }

    fn var_content(&self, name: &str, at: &Event<'t>, depth: usize) -> Content {
        if name == "argv" {
            return Content::Args;
        }
        let Some(decl) = self.f.vars.get(name) else {
            return Content::Unknown;
        };
        let (base, object) = match self.origin(name, at) {
            Origin::Param => (self.param(name).map_or(Content::Param, |p| p.content), None),
            Origin::Array(a) => (Content::Literal, Some(a)),
            Origin::Null
            | Origin::Literal(_)
            | Origin::Uninit
            | Origin::Alloc(..)
            | Origin::AddressOf(_) => (Content::Literal, None),
            Origin::MaybeNull(f) => (
                if TAINT_FROM.contains(&f.as_str()) {
                    Content::Tainted
                } else {
                    Content::Unknown
                },
                None,
            ),
            Origin::Value(v) => (self.content_depth(v, at, depth + 1), None),
            Origin::Unknown => (
                if decl.is_static {
                    Content::Unknown
                } else {
                    Content::Literal
                },
                None,
            ),
        };
        // What a `const` pointer points to is not written through it.
        let written = if decl.constant && object.is_none() {
            Content::Literal
        } else {
            self.writes(name, object.as_deref(), at, depth)
        };
        base.max(written)
    }

    /// What the calls before `at` wrote into `name` (or the array it points to).
    fn writes(&self, name: &str, object: Option<&str>, at: &Event<'t>, depth: usize) -> Content {
        let mut worst = Content::Literal;
        let calls = self
            .f
            .events_of_before(name, at.at)
            .take(MAX_LOOKBACK)
            .chain(
                object
                    .into_iter()
                    .flat_map(|o| self.f.events_of_before(o, at.at).take(MAX_LOOKBACK)),
            )
            .filter_map(|e| match &e.kind {
                Kind::Call(call) => Some((e, call)),
                _ => None,
            });
        for (event, call) in calls {
            if self.f.exclusive(event, at) {
                continue;
            }
            let hits = |arg: &Node<'t>| {
                root_of(*arg, self.source).is_some_and(|(r, _)| r == name || Some(r) == object)
            };
            let Some(index) = call.args.iter().position(hits) else {
                continue;
            };
            worst = worst.max(self.write_content(call, index, at, depth));
            if worst == Content::Tainted {
                break;
            }
        }
        worst
    }

    fn write_content(
        &self,
        call: &Call<'t>,
        index: usize,
        at: &Event<'t>,
        depth: usize,
    ) -> Content {
        let name = call.name.as_str();
        if let Some((_, into)) = TAINT_INTO.iter().find(|(n, _)| *n == name) {
            return if *into == index || (*into == usize::MAX && index >= 1) {
                Content::Tainted
            } else {
                Content::Literal
            };
        }
        if matches!(name, "sscanf" | "swscanf") {
            return if index >= 2 {
                call.args
                    .first()
                    .map_or(Content::Unknown, |a| self.content_depth(*a, at, depth + 1))
            } else {
                Content::Literal
            };
        }
        if COPIERS.contains(&name) {
            if index != 0 {
                return Content::Literal;
            }
            return call
                .args
                .iter()
                .skip(1)
                .filter(|a| {
                    !matches!(
                        strip(**a).kind(),
                        "number_literal" | "sizeof_expression" | "binary_expression"
                    ) || root_of(**a, self.source).is_some()
                })
                .map(|a| self.content_depth(*a, at, depth + 1))
                .max()
                .unwrap_or(Content::Literal);
        }
        if READERS.contains(&name) || matches!(name, "memset" | "wmemset" | "bzero") {
            return Content::Literal;
        }
        Content::Unknown
    }
}
