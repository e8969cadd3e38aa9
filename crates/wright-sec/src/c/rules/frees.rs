//! Frees: use after free, double free (through the file's own functions too), free of
//! memory not from the heap, of a moved pointer, and with the wrong deallocator. A pointer
//! freed then reassigned (or set to NULL) before reuse is cleared.

use super::memory::{DEREFS, FREES, MEMORY};
use crate::c::model::{Call, Event, Kind};
use crate::c::parse::text;
use crate::c::values::{Origin, ParamEffect, READERS, Values, strip};
use crate::c::{Report, Rule};

const USE_AFTER_FREE: Rule = Rule {
    category: MEMORY,
    pattern: "use_after_free_suspect",
    description: "The pointer is used after the memory it points to was freed.",
    suggestion: "Do not use a pointer after freeing it; set it to NULL when freed, and free only after the last use.",
};
const DOUBLE_FREE: Rule = Rule {
    category: MEMORY,
    pattern: "double_free",
    description: "The same pointer can be freed twice.",
    suggestion: "Free each block once; set the pointer to NULL after freeing it.",
};
const FREE_NON_HEAP: Rule = Rule {
    category: MEMORY,
    pattern: "free_non_heap",
    description: "Memory that did not come from the heap (a stack or static array, a string literal, a variable's address) is freed.",
    suggestion: "Free only what malloc/calloc/realloc (or new) returned.",
};
const FREE_OFFSET: Rule = Rule {
    category: MEMORY,
    pattern: "free_offset_pointer",
    description: "The pointer freed was moved after the allocation: free gets an address that is not the block's start.",
    suggestion: "Keep the pointer the allocator returned and free that one; walk the buffer with an index or a second pointer.",
};
const MISMATCH: Rule = Rule {
    category: MEMORY,
    pattern: "alloc_dealloc_mismatch",
    description: "The memory is released with a function that does not match how it was allocated (malloc/free, new/delete, new[]/delete[]).",
    suggestion: "Release with the matching function.",
};

/// A free (or delete) of `var` at `event`: what was freed, and what happens to it after.
pub(super) fn released<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    var: &str,
    how: &str,
    report: &mut Report<'_>,
) {
    moved_before_free(v, event, var, report);
    match v.origin(var, event) {
        Origin::Array(what) | Origin::AddressOf(what) => {
            report.add(
                event.node,
                &FREE_NON_HEAP,
                0.85,
                &format!("`{var}` points to `{what}`, not to the heap."),
            );
        }
        Origin::Literal(_) => {
            report.add(
                event.node,
                &FREE_NON_HEAP,
                0.85,
                &format!("`{var}` points to a string literal."),
            );
        }
        Origin::Alloc(alloc, _) => {
            let matched = match alloc.as_str() {
                "new" | "new_nothrow" => how == "delete",
                "new[]" => how == "delete[]",
                "alloca" | "_alloca" | "ALLOCA" => false,
                _ => how == "free",
            };
            if !matched {
                let rule = if alloc.to_ascii_lowercase().contains("alloca") {
                    &FREE_NON_HEAP
                } else {
                    &MISMATCH
                };
                report.add(
                    event.node,
                    rule,
                    0.8,
                    &format!("Allocated with {alloc}, released with {how}."),
                );
            }
        }
        _ => {}
    }
    for later in v.f.events_of_after(var, event.end) {
        let (is_free, is_use) = match &later.kind {
            Kind::Assign { var: w, .. } if w == var && v.f.dominates(later, later) => {
                // Reassigned: from here on it is another block (unless the assignment is
                // in a branch that may not run).
                if v.f
                    .frames_of(later.frame)
                    .filter(|f| f.conditional)
                    .all(|f| f.start <= event.at && event.at < f.end)
                {
                    return;
                }
                continue;
            }
            // `&p` handed on: it may be given a new block there.
            Kind::AddressOf { var: w } if w == var => return,
            Kind::Call(c) if FREES.contains(&c.name.as_str()) => (
                c.args
                    .first()
                    .is_some_and(|a| text(strip(*a), v.source) == var),
                false,
            ),
            Kind::Delete { var: w } => (w == var && deletes_variable(later, v.source), false),
            Kind::Use {
                var: w,
                deref,
                in_condition,
            } => (false, w == var && (*deref || !*in_condition)),
            _ => (false, false),
        };
        if !(is_free || is_use) || v.f.unreachable(event, later) {
            continue;
        }
        // Handed as is to a call: judged by what the callee does with it.
        let (is_free, confidence) = match handed_to(v, later) {
            Some((call, _)) if FREES.contains(&call.name.as_str()) => continue,
            Some((call, index)) => match v.effects.get(&call.name).and_then(|e| e.get(index)) {
                Some(effect) if effect.frees => (true, 0.85),
                Some(effect) if effect.uses => (false, 0.85),
                Some(_) => continue,
                None if READERS.contains(&call.name.as_str())
                    || DEREFS.contains(&call.name.as_str()) =>
                {
                    (is_free, 0.85)
                }
                None => (is_free, 0.55),
            },
            None => (is_free, if is_free { 0.9 } else { 0.85 }),
        };
        if reassigned_between(v, var, event, later) {
            continue;
        }
        let rule = if is_free {
            &DOUBLE_FREE
        } else {
            &USE_AFTER_FREE
        };
        report.add(
            later.node,
            rule,
            confidence,
            &format!(
                "`{var}` was freed on line {}.",
                event.node.start_position().row + 1
            ),
        );
        return;
    }
}

/// The call `use_` is a bare argument of, and which argument.
fn handed_to<'a, 't>(v: &'a Values<'_, 't>, use_: &Event<'t>) -> Option<(&'a Call<'t>, usize)> {
    let Kind::Use {
        var, deref: false, ..
    } = &use_.kind
    else {
        return None;
    };
    v.f.events_of_before(var, use_.at)
        .take(8)
        .filter(|e| e.end > use_.at)
        .find_map(|e| match &e.kind {
            Kind::Call(call) => call
                .args
                .iter()
                .position(|a| strip(*a).id() == use_.node.id())
                .map(|i| (call, i)),
            _ => None,
        })
}

/// What `f` does with each parameter: frees it, or dereferences it (or hands it on).
pub(super) fn param_effects(f: &crate::c::model::Function<'_>, source: &str) -> Vec<ParamEffect> {
    f.params
        .iter()
        .map(|p| {
            let mut effect = ParamEffect::default();
            for e in f.events_of(p) {
                match &e.kind {
                    Kind::Call(call)
                        if call
                            .args
                            .first()
                            .is_some_and(|a| text(strip(*a), source) == p)
                            && FREES.contains(&call.name.as_str()) =>
                    {
                        effect.frees = true
                    }
                    Kind::Delete { var } if var == p => effect.frees = true,
                    Kind::Use {
                        var, deref: true, ..
                    } if var == p => effect.uses = true,
                    Kind::Call(call) if call.args.iter().any(|a| text(strip(*a), source) == p) => {
                        effect.uses = true
                    }
                    _ => {}
                }
            }
            effect
        })
        .collect()
}

/// `p = malloc(…); … p++; free(p);`: the pointer freed is not the one allocated.
fn moved_before_free<'t>(
    v: &Values<'_, 't>,
    event: &Event<'t>,
    var: &str,
    report: &mut Report<'_>,
) {
    let Some(last) = v.f.last_assign(var, event) else {
        return;
    };
    let moved = match &last.kind {
        Kind::Assign { compound: true, .. } => true,
        Kind::Assign { value, .. } => {
            let value = strip(*value);
            value.kind() == "binary_expression"
                && value
                    .child_by_field_name("left")
                    .is_some_and(|l| text(strip(l), v.source) == var)
        }
        _ => false,
    };
    let allocated = v.f.events_of_before(var, last.at).any(|e| {
        matches!(&e.kind, Kind::Assign { var: w, value, compound: false } if w == var
            && matches!(v.origin(var, &Event { at: e.end, ..e.clone() }), Origin::Alloc(..))
            && strip(*value).kind() != "identifier")
    });
    if moved && allocated {
        report.add(
            event.node,
            &FREE_OFFSET,
            0.8,
            &format!(
                "`{var}` was moved on line {}.",
                last.node.start_position().row + 1
            ),
        );
    }
}

/// Whether a `delete` is of a variable itself (not `delete p->member`).
pub(super) fn deletes_variable(event: &Event<'_>, source: &str) -> bool {
    event
        .node
        .named_child(0)
        .is_some_and(|n| strip(n).kind() == "identifier" && !text(n, source).is_empty())
}

/// Whether `var` is given a new value between `from` and `to` on the way to `to`.
fn reassigned_between<'t>(v: &Values<'_, 't>, var: &str, from: &Event<'t>, to: &Event<'t>) -> bool {
    v.f.events_of_after(var, from.end)
        .take_while(|e| e.at < to.at)
        .any(|e| {
            e.at >= from.end
                && e.at < to.at
                && matches!(&e.kind, Kind::Assign { var: w, .. } if w == var)
                && v.f.dominates(e, to)
        })
}
