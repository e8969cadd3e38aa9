//! Formats: `printf`-family calls whose format is not a literal (judged by where the data
//! comes from, and a variadic wrapper passing its own format on is fine), `scanf`-family
//! `%s` without a width, and the longest output of a literal format (for `sprintf`).

use tree_sitter::Node;

use crate::c::model::{Call, Event};
use crate::c::parse::text;
use crate::c::values::{Content, Lin, Values, strip};
use crate::c::{Report, Rule};

/// `scanf`-family calls and the index of their format.
const SCANF: &[(&str, usize)] = &[
    ("scanf", 0),
    ("wscanf", 0),
    ("vscanf", 0),
    ("fscanf", 1),
    ("fwscanf", 1),
    ("sscanf", 1),
    ("swscanf", 1),
    ("vfscanf", 1),
    ("vsscanf", 1),
];
/// `printf`-family calls and the index of their format.
pub const PRINTF: &[(&str, usize)] = &[
    ("printf", 0),
    ("vprintf", 0),
    ("wprintf", 0),
    ("vwprintf", 0),
    ("printk", 0),
    ("warnx", 0),
    ("warn", 0),
    ("fprintf", 1),
    ("vfprintf", 1),
    ("fwprintf", 1),
    ("vfwprintf", 1),
    ("dprintf", 1),
    ("vdprintf", 1),
    ("sprintf", 1),
    ("vsprintf", 1),
    ("syslog", 1),
    ("vsyslog", 1),
    ("err", 1),
    ("errx", 1),
    ("asprintf", 1),
    ("vasprintf", 1),
    ("snprintf", 2),
    ("vsnprintf", 2),
    ("swprintf", 2),
    ("vswprintf", 2),
    ("_snprintf", 2),
];

const SCANF_WIDTH: Rule = Rule {
    category: "buffer_overflow",
    pattern: "scanf_%s_no_width",
    description: "%s (or %[) without a field width reads an unbounded word into a fixed buffer.",
    suggestion: "Give every %s a width one less than the buffer (\"%31s\" for char[32]), or read with fgets.",
};

const FORMAT: Rule = Rule {
    category: "unsafe_usage",
    pattern: "format_string",
    description: "The format argument is not a string literal: data that holds % directives can read or write memory.",
    suggestion: "Pass a literal format and the data as an argument: printf(\"%s\", data).",
};

/// The rules of this family on one call.
pub(super) fn check_call<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    call: &Call<'t>,
    report: &mut Report<'_>,
) {
    let name = call.name.as_str();
    let arg = |i: usize| call.args.get(i).copied();
    if let Some((_, i)) = SCANF.iter().find(|(n, _)| *n == name)
        && let Some(format) = arg(*i).and_then(|f| literal_text(v, f))
        && unbounded_conversion(&format)
    {
        report.add(call.node, &SCANF_WIDTH, 0.85, "");
    }
    if let Some((_, i)) = PRINTF.iter().find(|(n, _)| *n == name)
        && let Some(format) = arg(*i)
    {
        format_string(v, event, call, format, report);
    }
}

/// The most bytes a literal format can produce with `args` (terminator included).
pub(super) fn format_length<'t>(
    v: &Values<'_, 't>,
    at: &Event<'t>,
    format: &str,
    args: &[Node<'t>],
) -> Option<Lin> {
    let mut total = Lin::constant(1);
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            total = total.plus(&Lin::constant(1))?;
            continue;
        }
        let mut spec = String::new();
        while let Some(&n) = chars.peek() {
            chars.next();
            spec.push(n);
            if n.is_ascii_alphabetic() && !matches!(n, 'l' | 'h' | 'z' | 'j' | 't' | 'L' | 'q')
                || n == '%'
            {
                break;
            }
        }
        if spec.contains('*') {
            return None;
        }
        let conversion = spec.chars().last()?;
        let width: i64 = spec
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .unwrap_or(0);
        let add = match conversion {
            '%' => Lin::constant(1),
            's' => v.max_strlen(*args.next()?, at)?,
            'c' => {
                args.next();
                Lin::constant(1)
            }
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
                args.next();
                Lin::constant(if spec.contains('l') || spec.contains('z') {
                    20
                } else {
                    11
                })
            }
            'p' => {
                args.next();
                Lin::constant(18)
            }
            _ => return None,
        };
        let add = match add.as_constant() {
            Some(k) if k < width => Lin::constant(width),
            _ => add,
        };
        total = total.plus(&add)?;
    }
    Some(total)
}

fn format_string<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    call: &Call<'t>,
    format: Node<'t>,
    report: &mut Report<'_>,
) {
    if literal_text(v, format).is_some() || is_translated_literal(v, format) {
        return;
    }
    let confidence = match v.content(format, event) {
        Content::Tainted | Content::Args => 0.9,
        Content::Data => 0.8,
        Content::Unknown => 0.75,
        Content::Param => {
            // A wrapper handing its own format on (`void log(const char *fmt, ...)`).
            if v.f.variadic || call.name.starts_with('v') {
                return;
            }
            0.65
        }
        Content::Literal => return,
    };
    report.add(call.node, &FORMAT, confidence, "");
}

/// `_("…")`, `gettext("…")`, `_T("…")`: a literal passed through a macro or translation.
fn is_translated_literal(v: &Values<'_, '_>, node: Node<'_>) -> bool {
    let node = strip(node);
    node.kind() == "call_expression"
        && node
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
            .is_some_and(|a| literal_text(v, a).is_some())
}

/// The text of a literal string argument (or a macro naming one), quotes included.
pub(super) fn literal_text(v: &Values<'_, '_>, node: Node<'_>) -> Option<String> {
    let node = strip(node);
    match node.kind() {
        "string_literal" | "concatenated_string" => Some(text(node, v.source).to_string()),
        "identifier" if v.macros.strings.contains_key(text(node, v.source)) => Some(String::new()),
        _ => None,
    }
}

/// Whether a scanf format has `%s` or `%[` without a width.
fn unbounded_conversion(format: &str) -> bool {
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            continue;
        }
        if chars.peek() == Some(&'*') {
            continue;
        }
        let mut width = false;
        while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
            chars.next();
            width = true;
        }
        while chars.peek().is_some_and(|c| matches!(c, 'l' | 'h' | 'm')) {
            if chars.next() == Some('m') {
                width = true;
            }
        }
        if matches!(chars.peek(), Some('s' | '[')) && !width {
            return true;
        }
    }
    false
}
