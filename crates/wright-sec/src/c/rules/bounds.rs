//! Writes by index: a loop whose bound runs past the array it writes (`for (i = 0; i < 100;
//! i++) data[i] = …` into 50 elements), and an index from outside the program used with
//! no upper-bound check.

use tree_sitter::Node;

use crate::c::model::{Event, Kind};
use crate::c::parse::text;
use crate::c::values::{Content, Values, strip};
use crate::c::{Report, Rule};

/// How far up the tree a write looks for its loop.
const MAX_LOOP_DEPTH: usize = 64;

const LOOP: Rule = Rule {
    category: "buffer_overflow",
    pattern: "loop_overflow",
    description: "The loop's bound runs past the end of the array it writes.",
    suggestion: "Bound the loop by the destination's element count (sizeof dest / sizeof dest[0], or the size it was allocated with).",
};

const UNDERWRITE: Rule = Rule {
    category: "buffer_overflow",
    pattern: "buffer_underwrite",
    description: "The pointer is set before the start of the array: writes through it land outside the buffer.",
    suggestion: "Point at the buffer itself (or within it) and check offsets are not negative.",
};

const INDEX: Rule = Rule {
    category: "buffer_overflow",
    pattern: "unchecked_index",
    description: "An index that comes from outside the program is used without an upper-bound check.",
    suggestion: "Check 0 <= index < element count before using it.",
};

/// The rules of this family on one function.
pub(super) fn check<'t>(v: &Values<'_, 't>, report: &mut Report<'_>) {
    for event in &v.f.events {
        underwrite(v, event, report);
        let Kind::Store {
            var,
            index: Some(index),
            ..
        } = &event.kind
        else {
            continue;
        };
        let index = strip(*index);
        if index.kind() != "identifier" {
            continue;
        }
        let Some(cap) =
            v.f.vars
                .get(var)
                .and_then(|_| v.capacity(name_node(event.node).unwrap_or(event.node), event))
                .and_then(|c| c.as_constant())
        else {
            continue;
        };
        let elements = cap / v.elem_size(event.node).max(1);
        let i = text(index, v.source);
        if let Some(last) = loop_last_index(v, event, event.node, i) {
            if last >= elements {
                report.add(
                    event.node,
                    &LOOP,
                    0.85,
                    &format!("`{var}` holds {elements} elements; the loop reaches index {last}."),
                );
            }
            continue;
        }
        let checked = v.f.events_of(i).any(|e| {
            e.at < event.at && matches!(&e.kind, Kind::Check { var: c, bound: true } if c == i)
        });
        if !checked && v.content(index, event) >= Content::Data {
            report.add(
                event.node,
                &INDEX,
                0.8,
                &format!("`{var}` holds {elements} elements."),
            );
        }
    }
}

/// `p = buffer - 8;`: a pointer set before the start of an array.
fn underwrite<'t>(v: &Values<'_, 't>, event: &Event<'t>, report: &mut Report<'_>) {
    let Kind::Assign {
        var,
        value,
        compound: false,
    } = &event.kind
    else {
        return;
    };
    let value = strip(*value);
    if value.kind() != "binary_expression"
        || value
            .child_by_field_name("operator")
            .map(|o| text(o, v.source))
            != Some("-")
    {
        return;
    }
    let (Some(left), Some(right)) = (
        value.child_by_field_name("left"),
        value.child_by_field_name("right"),
    ) else {
        return;
    };
    let left = strip(left);
    let is_array = left.kind() == "identifier"
        && v.f
            .vars
            .get(text(left, v.source))
            .is_some_and(|d| matches!(d.shape, crate::c::model::Shape::Array(_)));
    let offset = v.size(right, event).and_then(|s| s.as_constant());
    if is_array && offset.is_some_and(|k| k > 0) {
        report.add(
            event.node,
            &UNDERWRITE,
            0.8,
            &format!(
                "`{var}` points before the start of `{}`.",
                text(left, v.source)
            ),
        );
    }
}

/// The array a subscript writes (`data` of `data[i]`).
fn name_node(store: Node<'_>) -> Option<Node<'_>> {
    (store.kind() == "subscript_expression")
        .then(|| store.child_by_field_name("argument"))
        .flatten()
}

/// The last value of `i` in the `for` loop around `node` that counts it (`i < N` → N-1).
fn loop_last_index<'t>(v: &Values<'_, 't>, at: &Event<'t>, node: Node<'t>, i: &str) -> Option<i64> {
    let mut current = node;
    for _ in 0..MAX_LOOP_DEPTH {
        current = current.parent()?;
        if current.id() == v.f.node.id() {
            return None;
        }
        if current.kind() != "for_statement" {
            continue;
        }
        let condition = strip(current.child_by_field_name("condition")?);
        if condition.kind() != "binary_expression" {
            continue;
        }
        let (Some(left), Some(right), Some(op)) = (
            condition.child_by_field_name("left"),
            condition.child_by_field_name("right"),
            condition.child_by_field_name("operator"),
        ) else {
            continue;
        };
        let (bound, op) = if text(strip(left), v.source) == i {
            (right, text(op, v.source))
        } else if text(strip(right), v.source) == i {
            let flipped = match text(op, v.source) {
                ">" => "<",
                ">=" => "<=",
                other => other,
            };
            (left, flipped)
        } else {
            continue;
        };
        let n = v.size(bound, at)?.as_constant()?;
        return match op {
            "<" => n.checked_sub(1),
            "<=" => Some(n),
            _ => None,
        };
    }
    None
}
