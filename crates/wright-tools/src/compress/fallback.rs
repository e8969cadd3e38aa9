//! The default rule for tools without their own (spec D2 "默认回退策略"): long strings cut in
//! the middle, long arrays cut to their first items, deep nesting replaced by a size note.

use serde_json::{Map, Value, json};

use super::{Limits, cut_middle};

/// `value` with every string longer than [`Limits::string_chars`] cut in the middle, every
/// array longer than [`Limits::array_items`] cut to its first items plus a `… N more` note,
/// and containers deeper than [`Limits::depth`] replaced by a note of their size.
pub(super) fn shrink(value: &Value, limits: &Limits) -> Value {
    shrink_at(value, limits, 0)
}

fn shrink_at(value: &Value, limits: &Limits, depth: usize) -> Value {
    match value {
        Value::String(text) => json!(cut_middle(text, limits.string_chars)),
        Value::Array(items) if depth >= limits.depth => json!(format!("[{} items]", items.len())),
        Value::Object(map) if depth >= limits.depth => json!(format!("{{{} keys}}", map.len())),
        Value::Array(items) => {
            // A note from an earlier compression stands for items already dropped.
            let (items, earlier) = match items.split_last() {
                Some((last, rest)) => match last.as_str().and_then(more_note) {
                    Some(n) => (rest, n),
                    None => (items.as_slice(), 0),
                },
                None => (items.as_slice(), 0),
            };
            let mut kept: Vec<Value> = items
                .iter()
                .take(limits.array_items)
                .map(|item| shrink_at(item, limits, depth + 1))
                .collect();
            let more = (items.len() - kept.len()).saturating_add(earlier);
            if more > 0 {
                kept.push(json!(format!("… {more} more")));
            }
            Value::Array(kept)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), shrink_at(value, limits, depth + 1)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    }
}

/// The N of a `… N more` note.
fn more_note(text: &str) -> Option<usize> {
    text.strip_prefix("… ")?.strip_suffix(" more")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_more_note_is_read_back() {
        assert_eq!(more_note("… 12 more"), Some(12));
        assert_eq!(more_note("12 more"), None);
    }
}
