//! The conversation as Anthropic Messages accepts it: no empty messages, roles strictly
//! alternating, the user first, and native tool calls and results as `tool_use` and
//! `tool_result` content blocks, the results answering one model message in one user
//! message ahead of any text.

use serde::Serialize;
use serde_json::Value;

use crate::tool_calls::arguments_object;
use crate::{ChatMessage, ChatRole};

/// The first message when a conversation starts with the model: Anthropic requires a user
/// message first.
const LEADING_USER_MESSAGE: &str = "(continue)";

/// The conversation as Anthropic accepts it: no empty messages, roles alternating, the user
/// first. Consecutive plain messages of one role are joined with a blank line; once either
/// carries tool calls or results, their content blocks are joined instead, so the results
/// answering one model message form one user message, as Anthropic requires.
pub(super) fn alternating_messages(messages: &[ChatMessage]) -> Vec<WireRequestMessage<'_>> {
    let mut merged: Vec<WireRequestMessage<'_>> = Vec::with_capacity(messages.len() + 1);
    for message in messages {
        let Some(content) = WireContent::of(message) else {
            continue;
        };
        match merged.last_mut() {
            Some(last) if last.role == message.role => last.content.append(content),
            _ => merged.push(WireRequestMessage {
                role: message.role,
                content,
            }),
        }
    }
    if merged
        .first()
        .is_some_and(|m| m.role == ChatRole::Assistant)
    {
        merged.insert(
            0,
            WireRequestMessage {
                role: ChatRole::User,
                content: WireContent::Text(LEADING_USER_MESSAGE.to_string()),
            },
        );
    }
    merged
}

/// A message of the request: `{"role","content"}`.
#[derive(Debug, PartialEq, Serialize)]
pub(super) struct WireRequestMessage<'a> {
    role: ChatRole,
    content: WireContent<'a>,
}

/// A message's content: a string for plain text (as it always was), blocks once tool calls
/// or results are in it.
#[derive(Debug, PartialEq, Serialize)]
#[serde(untagged)]
enum WireContent<'a> {
    Text(String),
    Blocks(Vec<WireBlockOut<'a>>),
}

/// A content block sent.
#[derive(Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlockOut<'a> {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheMark>,
        /// Text the next request will not have here (a message's `volatile_tail`): the cache
        /// breakpoint goes before it. Not sent.
        #[serde(skip)]
        volatile: bool,
    },
    /// A native call the model made. `input` must be an object: arguments that are not a
    /// JSON object (the model wrote malformed JSON) are sent as `{}`. Their text stays in
    /// history as the model wrote it; the error observation answering the call (the
    /// `tool_result` that follows) is what tells the model what was wrong.
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheMark>,
    },
    ToolResult {
        tool_use_id: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        content: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheMark>,
    },
}

/// A prompt-cache breakpoint: `{"type": "ephemeral"}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(super) struct CacheMark {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The breakpoint Anthropic caches a prompt's prefix at (5 minutes).
pub(super) const EPHEMERAL: CacheMark = CacheMark { kind: "ephemeral" };

/// Makes the end of the last user message a cache breakpoint: Anthropic caches only prefixes
/// that end at one, so without it no request would read the conversation of the one before
/// it from the cache. The next request's breakpoint finds this one by looking back (up to 20
/// blocks), so each request reads all it shares with the previous one. The breakpoint goes on
/// the last block the next request will have there too: before a volatile one (the todo
/// recap, a block of its own, see [`WireContent::of`]).
pub(super) fn mark_cache_breakpoint(messages: &mut [WireRequestMessage<'_>]) {
    let Some(last_user) = messages
        .iter_mut()
        .rev()
        .find(|message| message.role == ChatRole::User)
    else {
        return;
    };
    let content = std::mem::replace(&mut last_user.content, WireContent::Blocks(Vec::new()));
    let mut blocks = content.into_blocks();
    let stable = blocks
        .iter_mut()
        .rev()
        .find(|block| !matches!(block, WireBlockOut::Text { volatile: true, .. }));
    if let Some(
        WireBlockOut::Text { cache_control, .. }
        | WireBlockOut::ToolUse { cache_control, .. }
        | WireBlockOut::ToolResult { cache_control, .. },
    ) = stable
    {
        *cache_control = Some(EPHEMERAL);
    }
    last_user.content = WireContent::Blocks(blocks);
}

impl<'a> WireContent<'a> {
    /// The content `message` contributes; `None` for a plain message with only blanks. Its
    /// `volatile_tail` (the todo recap) becomes a text block of its own after the rest, so the
    /// cache breakpoint can go before it.
    fn of(message: &'a ChatMessage) -> Option<Self> {
        let at = message.content.len().saturating_sub(message.volatile_tail);
        if message.volatile_tail == 0 || at == 0 || !message.content.is_char_boundary(at) {
            return Self::of_stable(message, &message.content);
        }
        let tail = WireBlockOut::Text {
            text: message.content[at..].to_string(),
            cache_control: None,
            volatile: true,
        };
        let mut blocks = Self::of_stable(message, &message.content[..at])
            .map(WireContent::into_blocks)
            .unwrap_or_default();
        blocks.push(tail);
        Some(WireContent::Blocks(blocks))
    }

    /// The content `message` contributes with `content` as its text.
    fn of_stable(message: &'a ChatMessage, content: &'a str) -> Option<Self> {
        if let Some(id) = &message.tool_call_id {
            return Some(WireContent::Blocks(vec![WireBlockOut::ToolResult {
                tool_use_id: id,
                content,
                cache_control: None,
            }]));
        }
        let has_text = !content.trim().is_empty();
        if message.tool_calls.is_empty() {
            return has_text.then(|| WireContent::Text(content.to_string()));
        }
        let text = has_text.then(|| WireBlockOut::Text {
            text: content.to_string(),
            cache_control: None,
            volatile: false,
        });
        let calls = message.tool_calls.iter().map(|call| WireBlockOut::ToolUse {
            id: &call.id,
            name: &call.name,
            input: tool_input(&call.arguments),
            cache_control: None,
        });
        Some(WireContent::Blocks(text.into_iter().chain(calls).collect()))
    }

    /// Adds `next` (of the same role) after this content. Tool results stay ahead of any
    /// text in a user message, which Anthropic requires.
    fn append(&mut self, next: WireContent<'a>) {
        let current = std::mem::replace(self, WireContent::Blocks(Vec::new()));
        *self = match (current, next) {
            (WireContent::Text(mut text), WireContent::Text(next)) => {
                text.push_str("\n\n");
                text.push_str(&next);
                WireContent::Text(text)
            }
            (current, next) => {
                let mut blocks = current.into_blocks();
                for block in next.into_blocks() {
                    if matches!(block, WireBlockOut::ToolResult { .. }) {
                        let after_results = blocks
                            .iter()
                            .position(|b| !matches!(b, WireBlockOut::ToolResult { .. }))
                            .unwrap_or(blocks.len());
                        blocks.insert(after_results, block);
                    } else {
                        blocks.push(block);
                    }
                }
                WireContent::Blocks(blocks)
            }
        };
    }

    fn into_blocks(self) -> Vec<WireBlockOut<'a>> {
        match self {
            WireContent::Text(text) => vec![WireBlockOut::Text {
                text,
                cache_control: None,
                volatile: false,
            }],
            WireContent::Blocks(blocks) => blocks,
        }
    }
}

/// The `input` object for a call's arguments text: the object it holds, or `{}` when it holds
/// none (see [`WireBlockOut::ToolUse`]).
fn tool_input(arguments: &str) -> Value {
    arguments_object(arguments).unwrap_or_else(|| Value::Object(serde_json::Map::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use wright_protocol::NativeToolCall;

    #[test]
    fn consecutive_messages_of_one_role_are_merged() {
        let messages = vec![
            ChatMessage::user("a"),
            ChatMessage::user("b"),
            ChatMessage::assistant("c"),
            ChatMessage::assistant("d"),
            ChatMessage::user("e"),
        ];
        assert_eq!(
            alternating_messages(&messages),
            vec![user("a\n\nb"), assistant("c\n\nd"), user("e")]
        );
    }

    #[test]
    fn a_conversation_starting_with_the_model_gets_a_user_message_first() {
        let messages = vec![ChatMessage::assistant("hello"), ChatMessage::user("hi")];
        assert_eq!(
            alternating_messages(&messages),
            vec![user(LEADING_USER_MESSAGE), assistant("hello"), user("hi")]
        );
    }

    #[test]
    fn empty_messages_are_dropped_before_merging() {
        let messages = vec![
            ChatMessage::user("a"),
            ChatMessage::assistant(" "),
            ChatMessage::user("b"),
        ];
        assert_eq!(alternating_messages(&messages), vec![user("a\n\nb")]);
    }

    fn user(text: &str) -> WireRequestMessage<'static> {
        WireRequestMessage {
            role: ChatRole::User,
            content: WireContent::Text(text.to_string()),
        }
    }

    fn assistant(text: &str) -> WireRequestMessage<'static> {
        WireRequestMessage {
            role: ChatRole::Assistant,
            content: WireContent::Text(text.to_string()),
        }
    }

    #[test]
    fn tool_results_join_into_one_user_message_ahead_of_text() {
        let messages = vec![
            ChatMessage::assistant_tool_calls(
                "",
                vec![
                    NativeToolCall::new("a", "Read", "{}"),
                    NativeToolCall::new("b", "Read", "not json"),
                ],
            ),
            ChatMessage::user("note"),
            ChatMessage::tool_result("a", "one"),
            ChatMessage::tool_result("b", "two"),
        ];
        let user_blocks = vec![
            WireBlockOut::ToolResult {
                tool_use_id: "a",
                content: "one",
                cache_control: None,
            },
            WireBlockOut::ToolResult {
                tool_use_id: "b",
                content: "two",
                cache_control: None,
            },
            WireBlockOut::Text {
                text: "note".into(),
                cache_control: None,
                volatile: false,
            },
        ];
        assert_eq!(
            alternating_messages(&messages),
            vec![
                user(LEADING_USER_MESSAGE),
                WireRequestMessage {
                    role: ChatRole::Assistant,
                    content: WireContent::Blocks(vec![
                        WireBlockOut::ToolUse {
                            id: "a",
                            name: "Read",
                            input: serde_json::json!({}),
                            cache_control: None,
                        },
                        WireBlockOut::ToolUse {
                            id: "b",
                            name: "Read",
                            input: serde_json::json!({}),
                            cache_control: None,
                        },
                    ]),
                },
                WireRequestMessage {
                    role: ChatRole::User,
                    content: WireContent::Blocks(user_blocks),
                },
            ]
        );
    }

    #[test]
    fn the_last_user_message_ends_in_a_cache_breakpoint() {
        let messages = vec![
            ChatMessage::user("first"),
            ChatMessage::assistant("reply"),
            ChatMessage::tool_result("a", "one"),
            ChatMessage::user("second"),
            ChatMessage::assistant("prefill"),
        ];
        let mut wire = alternating_messages(&messages);
        mark_cache_breakpoint(&mut wire);
        let json = serde_json::to_value(&wire).unwrap();
        assert_eq!(json[0]["content"], "first", "earlier messages unchanged");
        assert_eq!(
            json[2]["content"],
            serde_json::json!([
                {"type": "tool_result", "tool_use_id": "a", "content": "one"},
                {"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}},
            ])
        );
        assert_eq!(json[3]["content"], "prefill", "never on a prefill");
        let mut none: Vec<WireRequestMessage<'_>> = Vec::new();
        mark_cache_breakpoint(&mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn the_breakpoint_goes_before_the_recap_which_the_next_request_moves() {
        let recap = "\n\n<todo-recap>\n1 todo\n</todo-recap>";
        for mut last in [
            ChatMessage::user(format!("Observation: ok{recap}")),
            ChatMessage::tool_result("a", format!("ok{recap}")),
        ] {
            last.volatile_tail = recap.len();
            let messages = vec![
                ChatMessage::user("go"),
                ChatMessage::assistant("step"),
                last,
            ];
            let mut wire = alternating_messages(&messages);
            mark_cache_breakpoint(&mut wire);
            let json = serde_json::to_value(&wire).unwrap();
            let blocks = json[2]["content"].as_array().unwrap();
            assert_eq!(blocks.len(), 2, "{json}");
            assert_eq!(blocks[0]["cache_control"]["type"], "ephemeral");
            let stable = blocks[0]["text"]
                .as_str()
                .or(blocks[0]["content"].as_str())
                .unwrap();
            assert!(!stable.contains("todo-recap"), "{stable}");
            assert_eq!(
                blocks[1],
                serde_json::json!({"type": "text", "text": recap})
            );
        }
    }

    #[test]
    fn the_breakpoint_stays_before_the_recap_when_results_move_ahead_of_text() {
        let recap = "\n\n<todo-recap>\n1 todo\n</todo-recap>";
        let mut result = ChatMessage::tool_result("a", format!("ok{recap}"));
        result.volatile_tail = recap.len();
        let messages = vec![
            ChatMessage::assistant_tool_calls("", vec![NativeToolCall::new("a", "Read", "{}")]),
            ChatMessage::user("a note longer than the recap that follows it, by far"),
            result,
        ];
        let mut wire = alternating_messages(&messages);
        mark_cache_breakpoint(&mut wire);
        let json = serde_json::to_value(&wire).unwrap();
        let blocks = json[2]["content"].as_array().unwrap();
        assert_eq!(blocks.len(), 3, "{json}");
        assert_eq!(
            blocks[0]["content"], "ok",
            "the result first, without the recap"
        );
        assert_eq!(blocks[1]["cache_control"]["type"], "ephemeral", "{json}");
        assert_eq!(
            blocks[2],
            serde_json::json!({"type": "text", "text": recap})
        );
    }
}
