//! Memory leaks: a block allocated in the function that is neither freed, returned nor
//! handed on before the function ends, or that an early `return` leaves behind.

use tree_sitter::Node;

use crate::c::model::{Event, Jump, Kind, Shape};
use crate::c::parse::text;
use crate::c::values::{Origin, READERS, Values, root_of, strip};
use crate::c::{Report, Rule};

/// Calls that use a block without taking it over.
const BORROWERS: &[&str] = &[
    "strcpy",
    "strncpy",
    "strcat",
    "strncat",
    "memcpy",
    "memmove",
    "memset",
    "sprintf",
    "snprintf",
    "fgets",
    "fread",
    "fwrite",
    "read",
    "write",
    "recv",
    "send",
    "strlen",
    "wcscpy",
    "wcslen",
    "wcscat",
    "wmemset",
    "printWLine",
    "fprintf",
    "sscanf",
    "strtok",
    "qsort",
];

const FREES: &[&str] = &["free", "realloc", "g_free", "kfree"];

const LEAK: Rule = Rule {
    category: "memory_mgmt",
    pattern: "memory_leak",
    description: "Memory allocated here is not freed, returned or stored on every path out of the function.",
    suggestion: "Free the block on every path (a single cleanup label helps), or hand it to an owner.",
};

/// The rules of this family on one function.
pub(super) fn check<'t>(v: &Values<'_, 't>, report: &mut Report<'_>) {
    for event in &v.f.events {
        let Kind::Assign {
            var,
            value,
            compound: false,
        } = &event.kind
        else {
            continue;
        };
        let Some(decl) = v.f.vars.get(var) else {
            continue;
        };
        if decl.is_param || decl.is_static || decl.shape != Shape::Pointer {
            continue;
        }
        if !matches!(strip(*value).kind(), "call_expression" | "new_expression") {
            continue;
        }
        let after = Event {
            at: event.end,
            ..event.clone()
        };
        match v.origin(var, &after) {
            Origin::Alloc(name, _) if !name.to_ascii_lowercase().contains("alloca") => {
                leak(v, event, var, report)
            }
            _ => {}
        }
    }
}

fn leak<'t>(v: &Values<'_, 't>, alloc: &Event<'t>, var: &str, report: &mut Report<'_>) {
    let mut released = Vec::new();
    // The block's life ends where the pointer is next given a value.
    let mut end = usize::MAX;
    for e in v.f.events_of_after(var, alloc.end) {
        match &e.kind {
            Kind::Assign { var: w, .. } if w == var => {
                end = e.at;
                break;
            }
            Kind::Call(c) => {
                let passes = c.args.iter().any(|a| {
                    root_of(*a, v.source).is_some_and(|(r, through)| r == var && !through)
                });
                if !passes {
                    continue;
                }
                if FREES.contains(&c.name.as_str())
                    || !(READERS.contains(&c.name.as_str()) || BORROWERS.contains(&c.name.as_str()))
                {
                    released.push(e);
                }
            }
            Kind::Delete { var: w } if w == var => released.push(e),
            Kind::Store { value, .. } | Kind::Assign { value, .. }
                if mentions(*value, var, v.source) =>
            {
                released.push(e)
            }
            Kind::Jump(Jump::Return)
                if e.node
                    .named_child(0)
                    .is_some_and(|r| mentions(r, var, v.source)) =>
            {
                released.push(e)
            }
            _ => {}
        }
    }
    let line = alloc.node.start_position().row + 1;
    if released.is_empty() {
        report.add(alloc.node, &LEAK, 0.65, &format!("`{var}` is never freed."));
        return;
    }
    let scope = v.f.vars.get(var).map_or((0, usize::MAX), |d| d.scope);
    for ret in v.f.jumps().filter(|e| {
        e.at > alloc.end
            && e.at < scope.1.min(end)
            && matches!(e.kind, Kind::Jump(Jump::Return | Jump::Exit))
    }) {
        if matches!(ret.kind, Kind::Jump(Jump::Exit))
            || v.f.unreachable(alloc, ret)
            || released.iter().any(|r| r.at == ret.at)
        {
            continue;
        }
        let covered = released
            .iter()
            .any(|r| r.at < ret.at && !v.f.exclusive(r, ret) && v.f.dominates(r, ret));
        if !covered && !guarded_by_check(ret.node, var, v) {
            report.add(
                ret.node,
                &LEAK,
                0.65,
                &format!("`{var}` (allocated on line {line}) is not freed on this path."),
            );
            return;
        }
    }
}

/// Whether `ret` is inside an `if` that tests `var` (`if (!buf) return -1;`).
fn guarded_by_check(ret: Node<'_>, var: &str, v: &Values<'_, '_>) -> bool {
    let mut node = ret;
    for _ in 0..64 {
        let Some(parent) = node.parent() else {
            return false;
        };
        if parent.id() == v.f.node.id() {
            return false;
        }
        if parent.kind() == "if_statement"
            && parent
                .child_by_field_name("condition")
                .is_some_and(|c| mentions(c, var, v.source))
        {
            return true;
        }
        node = parent;
    }
    false
}

/// Whether `var` is named in `node`.
fn mentions(node: Node<'_>, var: &str, source: &str) -> bool {
    let mut stack = vec![node];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 256 {
            return false;
        }
        if n.kind() == "identifier" && text(n, source) == var {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}
