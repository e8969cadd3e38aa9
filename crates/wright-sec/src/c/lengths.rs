//! How long a string can be at a point: a literal's length, an array's size less one,
//! or where it was last cut with `s[k] = '\0'`; and copy sizes made of `strlen(x)` judged
//! by that bound.

use tree_sitter::Node;

use super::macros;
use super::model::{Event, Kind, Shape};
use super::parse::text;
use super::values::{Lin, MAX_DEPTH, Origin, READERS, Values, root_of, strip};

impl<'t> Values<'_, 't> {
    /// The longest string (in elements, without the terminator) `expr` can hold at `at`.
    pub fn max_strlen(&self, expr: Node<'t>, at: &Event<'t>) -> Option<Lin> {
        let expr = strip(expr);
        let src = self.source;
        match expr.kind() {
            "string_literal" | "concatenated_string" => macros::literal_length(text(expr, src))
                .and_then(|n| i64::try_from(n).ok())
                .map(Lin::constant),
            "identifier" => self.string_bound(text(expr, src), at),
            _ => None,
        }
    }

    /// `size` with `strlen(x)` replaced by the longest string `x` can hold at `at`, when
    /// that is known: `memcpy(d, s, strlen(s))` judged by how long `s` can be.
    pub fn concretize(&self, size: &Lin, at: &Event<'t>) -> Option<Lin> {
        let Some(var) = &size.strlen_of else {
            return Some(size.clone());
        };
        let bound = self.string_bound(var, at)?.as_constant()?;
        Some(Lin::constant(
            size.coef.checked_mul(bound)?.checked_add(size.k)?,
        ))
    }

    /// The longest string (in elements) the variable `name` holds at `at`.
    fn string_bound(&self, name: &str, at: &Event<'t>) -> Option<Lin> {
        {
            {
                if let Some(len) = self.macros.strings.get(name) {
                    return i64::try_from(*len).ok().map(Lin::constant);
                }
                if let Some(k) = self.terminated_at(name, at) {
                    return Some(Lin::constant(k));
                }
                let decl = self.f.vars.get(name);
                if let Some(Shape::Array(Some(n))) = decl.map(|d| &d.shape) {
                    return Some(Lin::constant(n.saturating_sub(1)));
                }
                match self.origin(name, at) {
                    Origin::Literal(len) => i64::try_from(len).ok().map(Lin::constant),
                    Origin::Array(a) => match self.f.vars.get(&a).map(|d| &d.shape) {
                        Some(Shape::Array(Some(n))) => Some(Lin::constant(n.saturating_sub(1))),
                        _ => None,
                    },
                    Origin::Param | Origin::Unknown | Origin::Value(_) => Some(Lin::strlen(name)),
                    _ => None,
                }
            }
        }
    }

    /// Where the string in `name` (or the array it points to) was last cut with
    /// `name[k] = '\0'` before `at`, when nothing has written it since.
    fn terminated_at(&self, name: &str, at: &Event<'t>) -> Option<i64> {
        let object = match self.origin(name, at) {
            Origin::Array(a) if a != name => Some(a),
            _ => None,
        };
        let mut events: Vec<&Event<'t>> = self
            .f
            .events_of_before(name, at.at)
            .take(MAX_DEPTH)
            .collect();
        if let Some(o) = &object {
            events.extend(self.f.events_of_before(o, at.at).take(MAX_DEPTH));
            events.sort_by_key(|e| std::cmp::Reverse(e.at));
        }
        let is_ours = |var: &str| var == name || object.as_deref() == Some(var);
        for e in events {
            if self.f.exclusive(e, at) {
                continue;
            }
            match &e.kind {
                Kind::Store {
                    var,
                    value,
                    index: Some(index),
                } if is_ours(var) => {
                    let zero = matches!(text(strip(*value), self.source), "0" | "'\\0'" | "L'\\0'");
                    if zero {
                        return self
                            .size(*index, e)
                            .and_then(|k| k.as_constant())
                            .filter(|k| *k >= 0);
                    }
                }
                Kind::Assign { var, .. } if is_ours(var) => return None,
                Kind::Call(call) => {
                    let writes = call
                        .args
                        .first()
                        .and_then(|a| root_of(*a, self.source))
                        .is_some_and(|(r, _)| is_ours(r));
                    if writes
                        && !READERS.contains(&call.name.as_str())
                        && !matches!(call.name.as_str(), "memset" | "wmemset")
                    {
                        return None;
                    }
                }
                _ => {}
            }
        }
        None
    }
}
