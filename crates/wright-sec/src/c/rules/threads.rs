//! Threads: `pthread_cond_wait` outside a loop, threads never joined or detached, a lock
//! taken twice, a return that keeps a lock, and two locks taken in opposite orders.

use std::collections::HashMap;

use crate::c::model::{Event, Function, Jump, Kind};
use crate::c::parse::text;
use crate::c::values::Values;
use crate::c::{Report, Rule};

const LOCKS: &[&str] = &[
    "pthread_mutex_lock",
    "pthread_spin_lock",
    "pthread_rwlock_wrlock",
    "mtx_lock",
    "EnterCriticalSection",
];
const UNLOCKS: &[&str] = &[
    "pthread_mutex_unlock",
    "pthread_spin_unlock",
    "pthread_rwlock_unlock",
    "mtx_unlock",
    "LeaveCriticalSection",
];

const COND_WAIT: Rule = Rule {
    category: "thread_safety",
    pattern: "cond_wait_no_loop",
    description: "pthread_cond_wait outside a loop: a spurious wakeup, or another thread taking the state first, lets it go on with the condition false.",
    suggestion: "Wait in a loop that re-checks the condition: while (!ready) pthread_cond_wait(&cond, &mutex);",
};
const THREAD_LEAK: Rule = Rule {
    category: "resource_leak",
    pattern: "thread_leak_no_join",
    description: "The thread is created but never joined or detached: its resources leak when it ends.",
    suggestion: "pthread_join the thread, or pthread_detach it (or create it detached).",
};
const DOUBLE_LOCK: Rule = Rule {
    category: "error_handling",
    pattern: "double_lock",
    description: "The lock is taken again while held: a normal mutex deadlocks.",
    suggestion: "Unlock before locking again, or restructure so the lock is taken once.",
};
const MISSING_UNLOCK: Rule = Rule {
    category: "error_handling",
    pattern: "missing_unlock_suspect",
    description: "This return leaves the function with the lock still held.",
    suggestion: "Unlock on every return path (a single exit with the unlock, or a goto to a cleanup label).",
};
const ORDER: Rule = Rule {
    category: "error_handling",
    pattern: "lock_order_inversion",
    description: "These two locks are taken in the opposite order elsewhere in the file: two threads can deadlock.",
    suggestion: "Take locks in one global order everywhere.",
};

/// The lock a lock/unlock call is on: its argument without `&` and spaces.
fn lock_of(v_source: &str, event: &Event<'_>) -> Option<(String, bool)> {
    let Kind::Call(call) = &event.kind else {
        return None;
    };
    let locking = LOCKS.contains(&call.name.as_str());
    if !locking && !UNLOCKS.contains(&call.name.as_str()) {
        return None;
    }
    let arg = call.args.first()?;
    Some((text(*arg, v_source).replace([' ', '&'], ""), locking))
}

/// The rules of this family on one function.
pub(super) fn check<'t>(v: &Values<'_, 't>, report: &mut Report<'_>) {
    let f = v.f;
    let locks: Vec<(&Event<'t>, String, bool)> = f
        .events
        .iter()
        .filter_map(|e| lock_of(v.source, e).map(|(m, l)| (e, m, l)))
        .collect();
    for (i, (event, mutex, locking)) in locks.iter().enumerate() {
        if !locking {
            continue;
        }
        // Taken again before any unlock.
        for (later, m, l) in &locks[i + 1..] {
            if m != mutex {
                continue;
            }
            if !l {
                break;
            }
            if !f.unreachable(event, later) {
                report.add(
                    later.node,
                    &DOUBLE_LOCK,
                    0.8,
                    &format!("`{mutex}` is already held."),
                );
            }
            break;
        }
        // A return with the lock held, in a function that does unlock it elsewhere.
        let unlocks: Vec<&&Event<'t>> = locks
            .iter()
            .filter(|(_, m, l)| m == mutex && !l)
            .map(|(e, _, _)| e)
            .collect();
        if unlocks.is_empty() {
            continue;
        }
        for ret in f
            .events
            .iter()
            .filter(|e| e.at > event.end && matches!(e.kind, Kind::Jump(Jump::Return)))
        {
            if f.unreachable(event, ret) {
                continue;
            }
            let released = unlocks.iter().any(|u| {
                u.at > event.at && u.at < ret.at && !f.exclusive(u, ret) && f.dominates(u, ret)
            });
            if !released {
                report.add(
                    ret.node,
                    &MISSING_UNLOCK,
                    0.65,
                    &format!(
                        "`{mutex}` was locked on line {}.",
                        event.node.start_position().row + 1
                    ),
                );
            }
        }
    }
    for (event, call) in f.calls() {
        match call.name.as_str() {
            "pthread_cond_wait" | "pthread_cond_timedwait" => {
                let mut node = call.node;
                let mut in_loop = false;
                while let Some(parent) = node.parent() {
                    if matches!(
                        parent.kind(),
                        "while_statement" | "for_statement" | "do_statement"
                    ) {
                        in_loop = true;
                        break;
                    }
                    if parent.id() == f.node.id() {
                        break;
                    }
                    node = parent;
                }
                if !in_loop {
                    report.add(call.node, &COND_WAIT, 0.7, "");
                }
            }
            "pthread_create" => {
                let Some(handle) = call.args.first().map(|a| {
                    text(*a, v.source)
                        .trim_start_matches('&')
                        .trim()
                        .to_string()
                }) else {
                    continue;
                };
                if f.vars.get(&handle).is_none_or(|d| d.is_param) {
                    continue;
                }
                let released = f.calls().any(|(_, c)| {
                    matches!(c.name.as_str(), "pthread_join" | "pthread_detach")
                        && c.args
                            .first()
                            .is_some_and(|a| text(*a, v.source).trim() == handle)
                });
                let escapes = f.events_of(&handle).any(|e| {
                    e.at > event.at
                        && matches!(&e.kind, Kind::Use { var, .. } if *var == handle)
                        && !text(e.node.parent().unwrap_or(e.node), v.source)
                            .contains("pthread_create")
                });
                if !released && !escapes {
                    report.add(call.node, &THREAD_LEAK, 0.65, "");
                }
            }
            _ => {}
        }
    }
}

/// Lock pairs taken in both orders across the file's functions.
pub(super) fn lock_order(functions: &[Function<'_>], source: &str, report: &mut Report<'_>) {
    // (outer, inner) → where the inner lock was taken.
    let mut pairs: HashMap<(String, String), tree_sitter::Node<'_>> = HashMap::new();
    let mut order: Vec<(String, String)> = Vec::new();
    for f in functions {
        let mut held: Vec<String> = Vec::new();
        for event in &f.events {
            let Some((mutex, locking)) = lock_of(source, event) else {
                continue;
            };
            if locking {
                for outer in &held {
                    if *outer != mutex {
                        let key = (outer.clone(), mutex.clone());
                        if let std::collections::hash_map::Entry::Vacant(slot) =
                            pairs.entry(key.clone())
                        {
                            order.push(key);
                            slot.insert(event.node);
                        }
                    }
                }
                held.push(mutex);
            } else {
                held.retain(|m| *m != mutex);
            }
        }
    }
    for (a, b) in &order {
        let reversed = (b.clone(), a.clone());
        if pairs.contains_key(&reversed)
            && order.iter().position(|p| *p == reversed)
                > order.iter().position(|p| p == &(a.clone(), b.clone()))
            && let Some(node) = pairs.get(&reversed)
        {
            report.add(
                *node,
                &ORDER,
                0.8,
                &format!("`{a}` then `{b}` elsewhere; `{b}` then `{a}` here."),
            );
        }
    }
}
