//! Memory and pointers: `p = realloc(p, …)`, allocations used without a NULL check or
//! sized by an unchecked product, possible NULL and uninitialised dereferences, `alloca`
//! and VLAs (frees are [`super::frees`]'). A pointer checked for NULL before use is
//! cleared.

use crate::c::model::{Event, Kind, Shape};
use crate::c::parse::text;
use crate::c::values::{Content, Origin, READERS, Values, root_of, strip};
use crate::c::{Report, Rule};

pub(super) const MEMORY: &str = "memory_mgmt";

/// Functions that free their first argument.
pub(super) const FREES: &[&str] = &[
    "free",
    "g_free",
    "kfree",
    "cfree",
    "xfree",
    "vPortFree",
    "HeapFree_unused",
];

/// Functions that read through their pointer arguments (so a NULL argument crashes).
pub(super) const DEREFS: &[&str] = &[
    "strcpy",
    "strncpy",
    "strcat",
    "strncat",
    "strlen",
    "strcmp",
    "strncmp",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "strchr",
    "strrchr",
    "strstr",
    "strdup",
    "atoi",
    "atol",
    "atof",
    "strtol",
    "sprintf",
    "fgetc",
    "getc",
    "fgets",
    "fputs",
    "fputc",
    "putc",
    "fprintf",
    "fscanf",
    "fread",
    "fwrite",
    "fseek",
    "ftell",
    "rewind",
    "feof",
    "ferror",
    "fflush",
    "fclose",
    "fileno",
    "wcslen",
    "wcscpy",
    "printIntLine",
    "printLongLine",
];

const REALLOC: Rule = Rule {
    category: MEMORY,
    pattern: "realloc_overwrite",
    description: "realloc's result overwrites the only pointer to the block: when it fails the block leaks and the pointer becomes NULL.",
    suggestion: "Assign realloc's result to a temporary, check it for NULL, then replace the pointer.",
};
const NO_NULL_CHECK: Rule = Rule {
    category: MEMORY,
    pattern: "alloc_no_null_check",
    description: "The allocation's result is used without checking it for NULL.",
    suggestion: "Check the pointer for NULL right after the allocation and handle the failure.",
};
const SIZE_OVERFLOW: Rule = Rule {
    category: MEMORY,
    pattern: "alloc_size_overflow",
    description: "The allocation size is a product that can overflow: a large count wraps to a small block that later writes overrun.",
    suggestion: "Use calloc(count, size) or reallocarray, or check count <= SIZE_MAX / size first.",
};
const NULL_DEREF: Rule = Rule {
    category: MEMORY,
    pattern: "possible_null_deref",
    description: "The pointer can be NULL here and is dereferenced without a check.",
    suggestion: "Check the pointer for NULL before using it.",
};
const WILD: Rule = Rule {
    category: MEMORY,
    pattern: "wild_pointer_deref",
    description: "The pointer is dereferenced before it is given a value.",
    suggestion: "Initialise the pointer (to a valid object or NULL) and check it before use.",
};
const UNINIT: Rule = Rule {
    category: MEMORY,
    pattern: "uninit_var_use",
    description: "The variable is read before it is given a value.",
    suggestion: "Initialise the variable when it is declared.",
};
const ALLOCA: Rule = Rule {
    category: MEMORY,
    pattern: "alloca_unbounded",
    description: "alloca with a size that is not a constant: a large size overflows the stack without any error.",
    suggestion: "Use malloc and check its result, or bound the size first.",
};
const VLA: Rule = Rule {
    category: MEMORY,
    pattern: "vla_usage",
    description: "A variable-length array sized at run time can overflow the stack.",
    suggestion: "Use a fixed-size array with a bound check, or allocate on the heap.",
};

/// The rules of this family on one function.
pub(super) fn check<'t>(v: &Values<'_, 't>, report: &mut Report<'_>) {
    for (name, var) in &v.f.vars {
        // Sized by a variable of the function (an unknown name is a header's constant).
        let by_variable = var.size_expr.is_some_and(|size| {
            let mut stack = vec![size];
            let mut found = false;
            while let Some(n) = stack.pop() {
                if n.kind() == "identifier" && v.f.vars.contains_key(text(n, v.source)) {
                    found = true;
                    break;
                }
                if n.kind() != "sizeof_expression" {
                    let mut cursor = n.walk();
                    stack.extend(n.named_children(&mut cursor));
                }
            }
            found
        });
        // A VLA cannot have an initialiser: one that does is a misread macro call.
        if var.shape == Shape::Array(None) && by_variable && !var.initialised {
            report.add(
                var.node,
                &VLA,
                0.6,
                &format!("`{name}` is sized at run time."),
            );
        }
    }
    for event in &v.f.events {
        match &event.kind {
            Kind::Call(call) => {
                let name = call.name.as_str();
                if name == "realloc" && !v.f.deep() {
                    realloc_overwrite(v, event, report);
                }
                if matches!(name, "alloca" | "_alloca" | "ALLOCA")
                    && let Some(size) = call.args.first()
                    && v.size(*size, event).and_then(|s| s.as_constant()).is_none()
                {
                    report.add(call.node, &ALLOCA, 0.65, "");
                }
                if matches!(
                    name,
                    "malloc" | "realloc" | "alloca" | "xmalloc" | "kmalloc" | "g_malloc"
                ) {
                    let size = call.args.get(usize::from(name == "realloc")).copied();
                    if let Some(size) = size {
                        size_overflow(v, event, size, report);
                    }
                }
                // Only a variable itself: `free(s.a); free(s.b);` frees two blocks.
                if FREES.contains(&name)
                    && let Some(arg) = call.args.first().map(|a| strip(*a))
                    && arg.kind() == "identifier"
                {
                    let var = text(arg, v.source);
                    super::frees::released(v, event, var, "free", report);
                }
            }
            Kind::Delete { var } if super::frees::deletes_variable(event, v.source) => {
                let how = if text(event.node, v.source).contains('[') {
                    "delete[]"
                } else {
                    "delete"
                };
                super::frees::released(v, event, var, how, report);
            }
            Kind::Assign {
                var,
                value,
                compound: false,
            } => pointer_source(v, event, var, *value, report),
            Kind::Use {
                var,
                deref,
                in_condition: false,
            } => uninitialised(v, event, var, *deref, report),
            _ => {}
        }
    }
}

fn realloc_overwrite<'t>(v: &Values<'_, 't>, event: &Event<'t>, report: &mut Report<'_>) {
    let Kind::Call(call) = &event.kind else {
        return;
    };
    let mut node = call.node;
    for _ in 0..8 {
        let Some(parent) = node.parent() else { return };
        match parent.kind() {
            "cast_expression" | "parenthesized_expression" => node = parent,
            "assignment_expression" => {
                let left = parent
                    .child_by_field_name("left")
                    .map(|l| text(l, v.source).replace(' ', ""));
                let first = call
                    .args
                    .first()
                    .map(|a| text(strip(*a), v.source).replace(' ', ""));
                if left.is_some() && left == first {
                    report.add(call.node, &REALLOC, 0.8, "");
                }
                return;
            }
            _ => return,
        }
    }
}

fn size_overflow<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    size: tree_sitter::Node<'t>,
    report: &mut Report<'_>,
) {
    let size = strip(size);
    let is_product = size.kind() == "binary_expression"
        && size
            .child_by_field_name("operator")
            .is_some_and(|o| text(o, v.source) == "*");
    if !is_product || v.size(size, event).is_some() {
        return;
    }
    let mut worst = Content::Literal;
    for side in ["left", "right"] {
        let Some(factor) = size.child_by_field_name(side) else {
            continue;
        };
        if v.size(factor, event).is_some() {
            continue;
        }
        let checked = root_of(factor, v.source).is_some_and(|(var, _)| {
            v.f.events_of(var).any(|e| {
                e.at < event.at
                    && matches!(&e.kind, Kind::Check { var: c, bound: true } if c == var)
            })
        });
        if !checked {
            worst = worst.max(v.content(factor, event).max(Content::Param));
        }
    }
    // Only a count from outside is likely to be large enough to wrap.
    let confidence = match worst {
        Content::Literal => return,
        Content::Tainted | Content::Args => 0.8,
        Content::Data => 0.7,
        _ => 0.5,
    };
    report.add(event.node, &SIZE_OVERFLOW, confidence, "");
}

/// A pointer assigned NULL, an allocation or a function that may return NULL: its first
/// dereference after, when no check comes between.
fn pointer_source<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    var: &str,
    value: tree_sitter::Node<'t>,
    report: &mut Report<'_>,
) {
    let Some(decl) = v.f.vars.get(var) else {
        return;
    };
    if decl.shape != Shape::Pointer {
        return;
    }
    let value = strip(value);
    let origin = match value.kind() {
        "null" | "nullptr" => Origin::Null,
        "number_literal" if text(value, v.source) == "0" => Origin::Null,
        "call_expression" | "new_expression" => match v.origin(var, &next_event(v, event)) {
            o @ (Origin::Alloc(..) | Origin::MaybeNull(_)) => o,
            _ => return,
        },
        _ => return,
    };
    let (rule, confidence) = match &origin {
        Origin::Null => (&NULL_DEREF, 0.85),
        Origin::Alloc(name, _)
            if matches!(
                name.as_str(),
                "new" | "new[]" | "alloca" | "_alloca" | "ALLOCA" | "xmalloc" | "g_malloc"
            ) =>
        {
            return;
        }
        Origin::Alloc(..) => (&NO_NULL_CHECK, 0.7),
        Origin::MaybeNull(name)
            if matches!(name.as_str(), "fgets" | "localtime" | "gmtime" | "readdir") =>
        {
            return;
        }
        Origin::MaybeNull(_) => (&NULL_DEREF, 0.75),
        _ => return,
    };
    // From the assignment on: `if ((f = fopen(…)) == NULL)` checks it as it is set.
    for later in v.f.events_of_after(var, event.at) {
        let deref = match &later.kind {
            Kind::Assign { var: w, .. } if w == var && later.at > event.at => return,
            Kind::AddressOf { var: w } if w == var => return,
            Kind::Check { var: w, .. } if w == var => return,
            Kind::Use {
                var: w,
                deref: true,
                ..
            } => w == var,
            Kind::Call(c) if DEREFS.contains(&c.name.as_str()) => c
                .args
                .iter()
                .any(|a| strip(*a).kind() == "identifier" && text(strip(*a), v.source) == var),
            _ => false,
        };
        if deref && !v.f.unreachable(event, later) {
            report.add(
                later.node,
                rule,
                confidence,
                &format!(
                    "`{var}` is set on line {}.",
                    event.node.start_position().row + 1
                ),
            );
            return;
        }
    }
}

/// A stand-in event just after `event`, to ask what `event` assigned.
fn next_event<'t>(v: &Values<'_, 't>, event: &Event<'t>) -> Event<'t> {
    let _ = v;
    Event {
        at: event.end,
        end: event.end,
        frame: event.frame,
        node: event.node,
        kind: Kind::Jump(crate::c::model::Jump::Goto),
    }
}

fn uninitialised<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    var: &str,
    deref: bool,
    report: &mut Report<'_>,
) {
    let Some(decl) = v.f.vars.get(var) else {
        return;
    };
    if decl.is_param
        || decl.is_static
        || decl.initialised
        || !(decl.primitive || v.is_c)
        || matches!(decl.shape, Shape::Array(_))
    {
        return;
    }
    // Set anywhere in a loop around the use: a previous iteration may have set it.
    let set_in_loop = v.f.frames_of(event.frame).filter(|f| f.breakable).any(|f| {
        v.f.events_of_after(var, f.start)
            .take_while(|e| e.at < f.end)
            .any(|e| matches!(&e.kind, Kind::Assign { var: w, .. } | Kind::AddressOf { var: w } if w == var))
    });
    if set_in_loop {
        return;
    }
    // A name used before this declaration is another variable (or a macro's token); a
    // macro of the file that names it may set it.
    if event.at < decl.node.start_byte()
        || v.macros.body_names.contains(var)
        || !matches!(v.origin(var, event), Origin::Uninit)
    {
        return;
    }
    // A store into a field or element (this use may be its target) may set it.
    let set_otherwise =
        v.f.events_of(var)
            .any(|e| e.at <= event.at && matches!(&e.kind, Kind::Store { var: w, .. } if w == var));
    if set_otherwise {
        return;
    }
    // Passed as is to a call: a macro may assign it, a C++ reference parameter may set it.
    // Only calls known to read their arguments count as a read.
    let argument_of = v
        .f
        .events_of_before(var, event.at)
        .take(8)
        .filter(|e| e.end > event.at)
        .find_map(|e| match &e.kind {
            Kind::Call(call) if call.args.iter().any(|a| a.id() == event.node.id()) => Some(call),
            _ => None,
        });
    if argument_of.is_some_and(|call| !READERS.contains(&call.name.as_str())) {
        return;
    }
    // Given as is to a call earlier, it may have been set there (by a macro).
    let given_before = v.f.events_of_before(var, event.at).any(|e| {
        e.end <= event.at
            && matches!(&e.kind, Kind::Call(call) if call.args.iter().any(|a| text(*a, v.source) == var))
    });
    if given_before {
        return;
    }
    // A C structure (or a typedef that may hide an array): only a field read counts, and
    // only when no call was given it (or one of its fields, first, as its output) to fill.
    if !decl.primitive {
        let field = event
            .node
            .parent()
            .filter(|p| p.kind() == "field_expression" && !text(*p, v.source).contains("->"));
        let Some(field) = field else { return };
        let first_argument = |call: &crate::c::model::Call<'_>, node: tree_sitter::Node<'_>| {
            !READERS.contains(&call.name.as_str())
                && call.args.first().is_some_and(|a| a.id() == node.id())
        };
        let filled = v.f.events_of_before(var, event.at).any(|e| match &e.kind {
            Kind::Call(call) => {
                call.args.iter().any(|a| text(strip(*a), v.source) == var)
                    || call.args.first().is_some_and(|a| {
                        root_of(*a, v.source).is_some_and(|(r, _)| r == var)
                            && !READERS.contains(&call.name.as_str())
                    })
            }
            _ => false,
        });
        let is_output =
            v.f.events_of_before(var, event.at)
                .take(8)
                .filter(|e| e.end > event.at)
                .any(|e| matches!(&e.kind, Kind::Call(call) if first_argument(call, field)));
        if filled || is_output {
            return;
        }
    }
    if decl.shape == Shape::Pointer {
        let rule = if deref { &WILD } else { &UNINIT };
        report.add(
            event.node,
            rule,
            if deref { 0.85 } else { 0.7 },
            &format!("`{var}` has no value yet."),
        );
    } else {
        report.add(
            event.node,
            &UNINIT,
            0.75,
            &format!("`{var}` has no value yet."),
        );
    }
}
