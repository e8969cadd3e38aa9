//! Integer arithmetic on numbers from outside the program: a sum, difference or product
//! that can wrap when nothing bounds the number first, and a divisor that can be zero
//! when nothing checks it.

use crate::c::model::{Kind, Shape};
use crate::c::values::{Content, Values};
use crate::c::{Report, Rule};

const OVERFLOW: Rule = Rule {
    category: "input_validation",
    pattern: "integer_overflow",
    description: "Arithmetic on a number from outside the program, with no range check first: it can overflow or wrap.",
    suggestion: "Check the number against the limits the operation needs (e.g. data < INT_MAX before data + 1) or use checked arithmetic (__builtin_add_overflow).",
};

const DIVIDE: Rule = Rule {
    category: "input_validation",
    pattern: "divide_by_zero",
    description: "The divisor can be zero: it comes from outside the program (or is zero) and is not checked.",
    suggestion: "Check the divisor is not zero before dividing.",
};

/// The rules of this family on one function.
pub(super) fn check<'t>(v: &Values<'_, 't>, report: &mut Report<'_>) {
    let mut reported: Vec<&str> = Vec::new();
    for event in &v.f.events {
        let Kind::Arith { var, op } = &event.kind else {
            continue;
        };
        if reported.contains(&var.as_str()) {
            continue;
        }
        let Some(decl) = v.f.vars.get(var) else {
            continue;
        };
        if decl.shape != Shape::Scalar || !decl.primitive {
            continue;
        }
        let checked = |bound_only: bool| {
            v.f.events_of_before(var, event.at).any(|e| {
                matches!(&e.kind, Kind::Check { var: c, bound } if c == var && (*bound || !bound_only))
            })
        };
        if *op == '/' {
            let zero = v.size(event.node, event).and_then(|s| s.as_constant()) == Some(0);
            let outside = v.content(event.node, event) == Content::Tainted;
            if (zero || outside) && !checked(false) {
                report.add(
                    event.node,
                    &DIVIDE,
                    if zero { 0.85 } else { 0.7 },
                    &format!("`{var}` is the divisor."),
                );
                reported.push(var);
            }
            continue;
        }
        // Input APIs only: arithmetic on bytes being decoded (codecs, crypto) wraps on purpose.
        if v.content(event.node, event) == Content::Tainted && !checked(true) {
            report.add(
                event.node,
                &OVERFLOW,
                0.7,
                &format!("`{var}` is not range-checked."),
            );
            reported.push(var);
        }
    }
}
