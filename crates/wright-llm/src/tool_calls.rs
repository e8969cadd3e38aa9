//! Native tool calls as they stream in: both providers send a call in fragments keyed by an
//! index (OpenAI `delta.tool_calls[].index`, Anthropic the content block's `index`), the id
//! and name first and the arguments JSON in pieces. [`ToolCallAssembler`] puts them back
//! together; it does not parse the arguments, which stay exactly as the model wrote them.

use std::collections::HashMap;

use wright_protocol::NativeToolCall;

/// One piece of a streamed tool call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolCallFragment {
    /// Which call of the reply the piece belongs to.
    pub(crate) index: u64,
    /// The call's id, when this piece carries it.
    pub(crate) id: Option<String>,
    /// The tool's name, when this piece carries it.
    pub(crate) name: Option<String>,
    /// The next piece of the arguments text (often empty in the first fragment).
    pub(crate) arguments: String,
}

/// The calls of one reply, assembled from fragments in the order their indexes first came.
#[derive(Debug, Default)]
pub(crate) struct ToolCallAssembler {
    calls: Vec<NativeToolCall>,
    /// Where each index's call is in `calls`.
    positions: HashMap<u64, usize>,
}

impl ToolCallAssembler {
    /// Adds a fragment. The id and name are taken from the first fragment that carries them
    /// (some servers repeat them in every fragment); arguments are concatenated.
    pub(crate) fn push(&mut self, fragment: ToolCallFragment) {
        let next = self.calls.len();
        let position = *self.positions.entry(fragment.index).or_insert(next);
        if position == next {
            self.calls.push(NativeToolCall::new(
                String::new(),
                String::new(),
                String::new(),
            ));
        }
        let Some(call) = self.calls.get_mut(position) else {
            return;
        };
        if let Some(id) = fragment.id.filter(|id| !id.is_empty())
            && call.id.is_empty()
        {
            call.id = id;
        }
        if let Some(name) = fragment.name.filter(|name| !name.is_empty())
            && call.name.is_empty()
        {
            call.name = name;
        }
        call.arguments.push_str(&fragment.arguments);
    }

    /// Whether no fragment has come.
    pub(crate) fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls. One that never got an id (some compatible servers send none) is given
    /// [`fallback_id`], so its result can still name it.
    pub(crate) fn finish(self) -> Vec<NativeToolCall> {
        self.calls
            .into_iter()
            .enumerate()
            .map(|(position, mut call)| {
                if call.id.is_empty() {
                    call.id = fallback_id(position);
                }
                call
            })
            .collect()
    }
}

/// The id given to the call at `position` of a reply when the server sent none: prefixed so
/// it cannot meet a provider's own `call_...` ids, and unique across the replies of a session
/// (a process's first id comes from the clock, the next ones count on), since a request may
/// hold many replies and Anthropic refuses two calls with one id.
pub(crate) fn fallback_id(position: usize) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let start = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |since| since.as_micros() as u64)
    };
    let _ = NEXT.compare_exchange(0, start(), Ordering::Relaxed, Ordering::Relaxed);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("wright_call_{n:x}_{position}")
}

/// The JSON object a call's `arguments` text holds; `None` when it holds none (malformed or
/// not an object: providers are sent `{}` for it, the result answering the call says why).
pub(crate) fn arguments_object(arguments: &str) -> Option<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .filter(serde_json::Value::is_object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn fragment(
        index: u64,
        id: Option<&str>,
        name: Option<&str>,
        arguments: &str,
    ) -> ToolCallFragment {
        ToolCallFragment {
            index,
            id: id.map(str::to_string),
            name: name.map(str::to_string),
            arguments: arguments.to_string(),
        }
    }

    #[test]
    fn interleaved_fragments_assemble_into_calls_in_first_seen_order() {
        let mut calls = ToolCallAssembler::default();
        calls.push(fragment(3, Some("b"), Some("Grep"), ""));
        calls.push(fragment(1, Some("a"), Some("Read"), "{\"pa"));
        calls.push(fragment(3, None, None, "{}"));
        calls.push(fragment(1, None, None, "th\": 1}"));
        assert_eq!(
            calls.finish(),
            vec![
                NativeToolCall::new("b", "Grep", "{}"),
                NativeToolCall::new("a", "Read", "{\"path\": 1}"),
            ]
        );
    }

    #[test]
    fn a_repeated_id_and_name_are_not_doubled() {
        let mut calls = ToolCallAssembler::default();
        calls.push(fragment(0, Some("a"), Some("Read"), "{"));
        calls.push(fragment(0, Some("a"), Some("Read"), "}"));
        assert_eq!(calls.finish(), vec![NativeToolCall::new("a", "Read", "{}")]);
    }

    #[test]
    fn a_call_without_an_id_gets_one_by_position() {
        let mut calls = ToolCallAssembler::default();
        calls.push(fragment(0, Some("a"), Some("Read"), "{}"));
        calls.push(fragment(1, None, Some("Glob"), "{}"));
        let finished = calls.finish();
        assert_eq!(finished[0], NativeToolCall::new("a", "Read", "{}"));
        assert!(
            finished[1].id.starts_with("wright_call_"),
            "{:?}",
            finished[1]
        );
        assert!(finished[1].id.ends_with("_1"), "{:?}", finished[1]);
        assert_eq!(
            (finished[1].name.as_str(), finished[1].arguments.as_str()),
            ("Glob", "{}")
        );
    }

    #[test]
    fn fallback_ids_never_repeat() {
        let ids: std::collections::HashSet<String> = (0..100).map(|_| fallback_id(0)).collect();
        assert_eq!(ids.len(), 100);
    }
}
