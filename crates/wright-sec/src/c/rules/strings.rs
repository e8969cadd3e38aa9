//! Strings and buffers: the unbounded copies (`strcpy`, `strcat`, `gets`, `sprintf`),
//! the bounded ones whose bound does not match the destination (`memcpy`, `strncpy`,
//! `strncat`, `snprintf`, `fgets`), and `strncpy` without a terminator. A copy whose
//! source provably fits is cleared; one that provably does not is certain.

use tree_sitter::Node;

use super::formats::{format_length, literal_text};
use crate::c::model::{Call, Event, Kind};
use crate::c::parse::text;
use crate::c::values::{Content, Lin, Origin, Values, root_of, strip};
use crate::c::{Report, Rule};

const COPY: &[&str] = &[
    "strcpy", "wcscpy", "_tcscpy", "_mbscpy", "lstrcpy", "lstrcpyA", "lstrcpyW", "StrCpy", "stpcpy",
];
const CAT: &[&str] = &[
    "strcat", "wcscat", "_tcscat", "_mbscat", "lstrcat", "lstrcatA", "lstrcatW", "StrCat",
];
const GETS: &[&str] = &["gets", "_getws", "getws"];
const SPRINTF: &[&str] = &[
    "sprintf",
    "vsprintf",
    "_stprintf",
    "wsprintf",
    "wsprintfA",
    "_swprintf",
];
const MEMCPY: &[&str] = &[
    "memcpy",
    "memmove",
    "wmemcpy",
    "wmemmove",
    "CopyMemory",
    "RtlCopyMemory",
];
const NCPY: &[&str] = &["strncpy", "wcsncpy", "_tcsncpy"];
const NCAT: &[&str] = &["strncat", "wcsncat", "_tcsncat"];
/// Bounded writers and the index of their bound: `snprintf(buf, n, …)`, `fgets(buf, n, f)`.
const BOUNDED: &[(&str, usize)] = &[
    ("snprintf", 1),
    ("vsnprintf", 1),
    ("swprintf", 1),
    ("_snprintf", 1),
    ("fgets", 1),
    ("fgetws", 1),
    ("read", 2),
    ("recv", 2),
    ("memset", 2),
    ("wmemset", 2),
];
const UNSAFE_API: &str = "unsafe_api";
const BUFFER_OVERFLOW: &str = "buffer_overflow";

fn unbounded(pattern: &'static str) -> Rule {
    Rule {
        category: UNSAFE_API,
        pattern,
        description: "Unbounded copy into a buffer: nothing limits what is written to the destination's size.",
        suggestion: "Use a bounded API (snprintf, strlcpy/strlcat, or strncpy with explicit termination) sized by the destination, or check the source's length first.",
    }
}

fn mismatch(pattern: &'static str) -> Rule {
    Rule {
        category: BUFFER_OVERFLOW,
        pattern,
        description: "The length passed to this copy can exceed the destination buffer.",
        suggestion: "Bound the length by the destination's size (sizeof the array, or the size it was allocated with) and check it before copying.",
    }
}

const NO_TERMINATOR: Rule = Rule {
    category: BUFFER_OVERFLOW,
    pattern: "strncpy_no_terminator",
    description: "strncpy does not write a NUL terminator when the source is as long as the bound; the destination is not terminated afterwards.",
    suggestion: "Copy at most size - 1 characters and set dest[size - 1] = '\\0', or use strlcpy/snprintf.",
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
    if let Some(p) = COPY.iter().find(|n| **n == name) {
        if let (Some(dst), Some(src)) = (arg(0), arg(1)) {
            copy(v, event, call, dst, src, p, false, report);
        }
    } else if let Some(p) = CAT.iter().find(|n| **n == name) {
        if let (Some(dst), Some(src)) = (arg(0), arg(1)) {
            copy(v, event, call, dst, src, p, true, report);
        }
    } else if let Some(p) = GETS.iter().find(|n| **n == name) {
        report.add(
            call.node,
            &unbounded(p),
            0.95,
            "gets cannot be used safely.",
        );
    } else if let Some(p) = SPRINTF.iter().find(|n| **n == name) {
        sprintf(v, event, call, p, report);
    } else if let Some(p) = MEMCPY.iter().find(|n| **n == name) {
        if let (Some(dst), Some(src), Some(n)) = (arg(0), arg(1), arg(2)) {
            let scale = if name.starts_with('w') { 4 } else { 1 };
            memcpy(v, event, dst, src, n, scale, p, report);
        }
    } else if let Some(p) = NCPY.iter().find(|n| **n == name) {
        if let (Some(dst), Some(src), Some(n)) = (arg(0), arg(1), arg(2)) {
            strncpy(v, event, dst, src, n, p, report);
        }
    } else if let Some(p) = NCAT.iter().find(|n| **n == name) {
        if let (Some(dst), Some(src), Some(n)) = (arg(0), arg(1), arg(2)) {
            strncat(v, event, dst, src, n, p, report);
        }
    } else if let Some((p, i)) = BOUNDED.iter().find(|(n, _)| *n == name) {
        let dst_index = usize::from(matches!(name, "read" | "recv"));
        if let (Some(dst), Some(n)) = (arg(dst_index), arg(*i)) {
            let scale = if name.starts_with('w') || name.starts_with("sw") {
                4
            } else {
                1
            };
            if let (Some(cap), Some(n)) = (
                v.capacity(dst, event),
                v.size(n, event).and_then(|n| n.scale_by(scale)),
            ) && n.fits_in(&cap) == Some(false)
            {
                report.add(
                    call.node,
                    &mismatch(p),
                    0.9,
                    &format!(
                        "The bound is {} but the buffer holds {}.",
                        show(&n),
                        show(&cap)
                    ),
                );
            }
        }
    }
}

/// `strcpy`/`strcat`: cleared when the source provably fits, certain when it provably does not.
#[allow(clippy::too_many_arguments)]
fn copy<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    call: &Call<'t>,
    dst: Node<'t>,
    src: Node<'t>,
    pattern: &'static str,
    append: bool,
    report: &mut Report<'_>,
) {
    let elem = v.elem_size(dst);
    let cap = v.capacity(dst, event).and_then(|c| c.divide_by(elem));
    let already = if append {
        known_length(v, dst, event)
    } else {
        Some(Lin::constant(0))
    };
    let need = v
        .max_strlen(src, event)
        .zip(already)
        .and_then(|(s, d)| s.plus(&d))
        .and_then(|n| n.plus(&Lin::constant(1)));
    if let (Some(cap), Some(need)) = (&cap, &need) {
        match need.fits_in(cap) {
            Some(true) => return,
            Some(false) => {
                report.add(call.node, &unbounded(pattern), 0.9, &format!("The source needs {} characters with its terminator; the destination holds {}.", show(need), show(cap)));
                return;
            }
            None => {}
        }
    }
    let confidence = match v.content(src, event) {
        Content::Tainted | Content::Args => 0.9,
        Content::Literal if cap.is_none() => 0.5,
        _ => 0.85,
    };
    report.add(call.node, &unbounded(pattern), confidence, "");
}

/// The length of the string in `dst` when only literals were put there.
fn known_length<'t>(v: &Values<'_, 't>, dst: Node<'t>, at: &Event<'t>) -> Option<Lin> {
    let (root, _) = root_of(dst, v.source)?;
    let object = match v.origin(root, at) {
        crate::c::values::Origin::Array(a) => a,
        _ => root.to_string(),
    };
    let mut length = 0i64;
    let mut writes: Vec<&Event<'t>> = v.f.events_of(&object).collect();
    if object != root {
        writes.extend(v.f.events_of(root));
        writes.sort_by_key(|e| e.at);
    }
    for e in writes {
        if e.at >= at.at {
            break;
        }
        match &e.kind {
            Kind::Assign { var, value, .. } if *var == object => {
                length = crate::c::macros::literal_length(text(*value, v.source))
                    .or_else(|| v.macros.strings.get(text(*value, v.source)).copied())
                    .and_then(|n| i64::try_from(n).ok())?;
            }
            Kind::Call(c)
                if c.args
                    .first()
                    .and_then(|a| root_of(*a, v.source))
                    .is_some_and(|(r, _)| r == object || r == root) =>
            {
                let lit = c
                    .args
                    .get(1)
                    .and_then(|s| v.max_strlen(*s, e))
                    .and_then(|l| l.as_constant());
                match (c.name.as_str(), lit) {
                    ("strcpy" | "wcscpy", Some(n)) => length = n,
                    ("strcat" | "wcscat", Some(n)) => length = length.checked_add(n)?,
                    _ => return None,
                }
            }
            _ => {}
        }
    }
    Some(Lin::constant(length))
}

fn sprintf<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    call: &Call<'t>,
    pattern: &'static str,
    report: &mut Report<'_>,
) {
    let (Some(dst), Some(format)) = (call.args.first(), call.args.get(1)) else {
        return;
    };
    let cap = v.capacity(*dst, event);
    if let (Some(cap), Some(format)) = (cap.as_ref(), literal_text(v, *format))
        && let Some(need) = format_length(v, event, &format, &call.args[2..])
    {
        match need.fits_in(cap) {
            Some(true) => return,
            Some(false) => {
                report.add(
                    call.node,
                    &unbounded(pattern),
                    0.9,
                    &format!(
                        "The output can need {} bytes; the buffer holds {}.",
                        show(&need),
                        show(cap)
                    ),
                );
                return;
            }
            None => {}
        }
    }
    let tainted = call
        .args
        .iter()
        .skip(2)
        .any(|a| v.content(*a, event) >= Content::Args);
    report.add(
        call.node,
        &unbounded(pattern),
        if tainted { 0.9 } else { 0.85 },
        "",
    );
}

#[allow(clippy::too_many_arguments)]
fn memcpy<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    dst: Node<'t>,
    src: Node<'t>,
    n: Node<'t>,
    scale: i64,
    pattern: &'static str,
    report: &mut Report<'_>,
) {
    let node = event.node;
    let cap = v.capacity(dst, event);
    let (size, sure) = concrete_size(v, event, n, scale, cap.as_ref());
    if let (Some(cap), Some(size)) = (&cap, &size) {
        match size.fits_in(cap) {
            Some(false) => {
                report.add(
                    node,
                    &mismatch(pattern),
                    if sure { 0.9 } else { 0.75 },
                    &format!(
                        "It copies {} bytes into a buffer of {}.",
                        show(size),
                        show(cap)
                    ),
                );
                return;
            }
            Some(true) => {
                if let Some(src_cap) = v.capacity(src, event)
                    && size.fits_in(&src_cap) == Some(false)
                {
                    report.add(
                        node,
                        &mismatch(pattern),
                        if sure { 0.8 } else { 0.7 },
                        &format!(
                            "It reads {} bytes from a buffer of {}.",
                            show(size),
                            show(&src_cap)
                        ),
                    );
                }
                return;
            }
            None => {}
        }
    }
    if size.is_some() || bounded(v, n, event) || allocated_with(v, dst, n, event) {
        return;
    }
    let confidence = match v.content(n, event) {
        Content::Tainted | Content::Args => 0.8,
        Content::Data => 0.7,
        _ => 0.4,
    };
    report.add(
        node,
        &mismatch(pattern),
        confidence,
        "The length is not checked against the destination.",
    );
}

/// The size `n` copies (times `scale`), and whether it is exact: a size made of
/// `strlen(x)` that cannot be compared as it is is judged by the longest string `x` can
/// hold, less surely.
fn concrete_size<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    n: Node<'t>,
    scale: i64,
    cap: Option<&Lin>,
) -> (Option<Lin>, bool) {
    let exact = v.size(n, event).and_then(|s| s.scale_by(scale));
    match &exact {
        Some(s) if s.strlen_of.is_some() && cap.is_none_or(|c| s.fits_in(c).is_none()) => {
            match v.concretize(s, event) {
                Some(c) => (Some(c), false),
                None => (exact, true),
            }
        }
        _ => (exact, true),
    }
}

/// Whether `dst` was allocated (by any allocator, a project's wrapper too) with the very
/// size `n` that is copied: `p = ts_malloc(size); memcpy(p, src, size);`.
fn allocated_with<'t>(v: &Values<'_, 't>, dst: Node<'t>, n: Node<'t>, at: &Event<'t>) -> bool {
    let dst = strip(dst);
    if dst.kind() != "identifier" {
        return false;
    }
    let call = match v.origin(text(dst, v.source), at) {
        Origin::Alloc(_, call) | Origin::Value(call) => call,
        _ => return false,
    };
    let wanted: String = text(strip(n), v.source).split_whitespace().collect();
    let args = call.child_by_field_name("arguments");
    let mut cursor = call.walk();
    args.is_some_and(|a| {
        a.named_children(&mut cursor).any(|arg| {
            text(strip(arg), v.source)
                .split_whitespace()
                .collect::<String>()
                == wanted
        })
    })
}

/// Whether every variable in `n` was compared with a bound before `at`.
fn bounded<'t>(v: &Values<'_, 't>, n: Node<'t>, at: &Event<'t>) -> bool {
    let vars = identifiers(n, v.source);
    !vars.is_empty()
        && vars.iter().all(|var| {
            v.f.events_of(var).any(|e| {
                e.at < at.at && matches!(&e.kind, Kind::Check { var: c, bound: true } if c == var)
            })
        })
}

/// The identifiers in an expression (not under `sizeof`).
fn identifiers(n: Node<'_>, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" => out.push(text(node, source).to_string()),
            "sizeof_expression" | "call_expression" => {}
            _ => {
                let mut cursor = node.walk();
                stack.extend(node.named_children(&mut cursor));
            }
        }
        if out.len() > 16 {
            break;
        }
    }
    out
}

fn strncpy<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    dst: Node<'t>,
    src: Node<'t>,
    n: Node<'t>,
    pattern: &'static str,
    report: &mut Report<'_>,
) {
    let elem = v.elem_size(dst);
    let cap = v.capacity(dst, event).and_then(|c| c.divide_by(elem));
    let size = v.size(n, event);
    let (bound, sure) = concrete_size(v, event, n, 1, cap.as_ref());
    if let (Some(cap), Some(bound)) = (&cap, &bound)
        && bound.fits_in(cap) == Some(false)
    {
        report.add(
            event.node,
            &mismatch(pattern),
            if sure { 0.9 } else { 0.75 },
            &format!(
                "It writes up to {} characters into {}.",
                show(bound),
                show(cap)
            ),
        );
        return;
    }
    // The terminator: written after the copy, or the source is shorter than the bound.
    let Some((root, _)) = root_of(dst, v.source) else {
        return;
    };
    let terminated = v.f.events_of(root).any(|e| {
        e.at > event.at && matches!(&e.kind, Kind::Store { var, value, .. } if var == root && is_zero(*value, v.source))
    });
    let short_source = v
        .max_strlen(src, event)
        .zip(size.clone())
        .and_then(|(s, n)| s.plus(&Lin::constant(1)).and_then(|s| s.fits_in(&n)))
        == Some(true);
    let leaves_room = cap
        .as_ref()
        .zip(size.as_ref())
        .and_then(|(c, n)| n.plus(&Lin::constant(1)).and_then(|n| n.fits_in(c)))
        == Some(true);
    let zeroed = leaves_room && zero_initialised(v, root, event);
    if !terminated && !short_source && !zeroed {
        report.add(event.node, &NO_TERMINATOR, 0.65, "");
    }
}

/// Whether the buffer was zero-filled before `at` (`= {0}`, `= ""`, memset 0, calloc).
fn zero_initialised<'t>(v: &Values<'_, 't>, root: &str, at: &Event<'t>) -> bool {
    v.f.events_of(root).any(|e| {
        e.at < at.at
            && match &e.kind {
                Kind::Assign { var, value, .. } if var == root => {
                    let t = text(*value, v.source);
                    t == "{0}" || t == "{ 0 }" || t == "\"\"" || t.contains("calloc")
                }
                Kind::Call(c) => {
                    matches!(c.name.as_str(), "memset" | "bzero")
                        && c.args
                            .first()
                            .and_then(|a| root_of(*a, v.source))
                            .is_some_and(|(r, _)| r == root)
                        && (c.name == "bzero"
                            || c.args.get(1).is_some_and(|z| is_zero(*z, v.source)))
                }
                _ => false,
            }
    })
}

fn strncat<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    dst: Node<'t>,
    src: Node<'t>,
    n: Node<'t>,
    pattern: &'static str,
    report: &mut Report<'_>,
) {
    let elem = v.elem_size(dst);
    let (Some(cap), Some(size)) = (
        v.capacity(dst, event).and_then(|c| c.divide_by(elem)),
        v.size(n, event),
    ) else {
        return;
    };
    let copied = match v
        .max_strlen(src, event)
        .and_then(|s| s.as_constant())
        .zip(size.as_constant())
    {
        Some((s, n)) => Lin::constant(s.min(n)),
        None => size.clone(),
    };
    let already = known_length(v, dst, event).unwrap_or(Lin::constant(0));
    let Some(need) = copied
        .plus(&already)
        .and_then(|c| c.plus(&Lin::constant(1)))
    else {
        return;
    };
    if need.fits_in(&cap) == Some(false) {
        report.add(
            event.node,
            &mismatch(pattern),
            0.85,
            "strncat's bound is the room left (size - strlen(dest) - 1), not the buffer's size.",
        );
    }
}

fn is_zero(node: Node<'_>, source: &str) -> bool {
    matches!(
        text(strip(node), source),
        "0" | "'\\0'" | "L'\\0'" | "NULL" | "'\\x00'"
    )
}

fn show(size: &Lin) -> String {
    match (&size.strlen_of, size.as_constant()) {
        (_, Some(k)) => k.to_string(),
        (Some(var), None) => format!("{}×strlen({var}){:+}", size.coef, size.k),
        (None, None) => size.k.to_string(),
    }
}
