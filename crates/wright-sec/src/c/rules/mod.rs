//! The rules, by family: string and buffer copies ([`strings`]), indexed writes
//! ([`bounds`]), memory management and pointers ([`memory`]), leaks ([`leaks`]), risky
//! library calls ([`apis`]) and threads ([`threads`]). Each
//! asks [`Values`] about the function's facts and reports what the facts do not clear.

mod apis;
mod bounds;
mod formats;
mod frees;
mod integers;
mod leaks;
mod memory;
mod strings;
mod threads;

use super::Report;
use super::model::Function;
use super::values::Values;

/// Runs every per-function rule on one function.
pub(crate) fn check_function(values: &Values<'_, '_>, report: &mut Report<'_>) {
    for (event, call) in values.f.calls() {
        strings::check_call(values, event, call, report);
        formats::check_call(values, event, call, report);
        apis::check_call(values, event, call, report);
    }
    memory::check(values, report);
    // These look up the tree, which costs its depth each time: not on pathological nesting.
    if !values.f.deep() {
        bounds::check(values, report);
        integers::check(values, report);
        leaks::check(values, report);
        threads::check(values, report);
    }
}

/// What `f` does with each of its parameters (frees it, uses it): for judging a freed
/// pointer handed to it.
pub(crate) fn param_effects(f: &Function<'_>, source: &str) -> Vec<crate::c::values::ParamEffect> {
    frees::param_effects(f, source)
}

/// The rules that look across functions (lock order).
pub(crate) fn check_file(functions: &[Function<'_>], source: &str, report: &mut Report<'_>) {
    threads::lock_order(functions, source, report);
}
