//! Conversation messages as history stores them (spec D1, E1).

use serde::{Deserialize, Serialize};

/// Who a [`Message`] is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The developer using wright.
    User,
    /// The model: `Thought:`/`Action:` text or a final answer.
    Assistant,
    /// A tool's result (in history: the compressed JSON of spec C1).
    Tool,
    /// An archived-history summary (spec A5); lives in L3 and is never summarised again.
    Summary,
}

/// Extra facts about a message that are not part of its text.
///
/// Under native tool calling (`tool_protocol = "native"`) two of them are part of what the
/// model reads: an assistant message's `tool_calls`, and a tool message's `tool_call_id`. Both
/// are empty in the ReAct text protocol, so its sessions serialise as before.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageMetadata {
    /// For a tool message: the tool that produced it (spec E1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For assistant and tool messages: the 1-based step within the round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// For a TodoWrite tool message: the list it set. History sends only the recap (spec A3);
    /// the session file keeps the list so a resumed session gets it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub todos: Option<Vec<crate::TodoItem>>,
    /// For an assistant message under native tool calling: the calls the model made, in
    /// order, with their arguments as sent. `content` holds any text the model wrote beside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<crate::NativeToolCall>,
    /// For a tool message under native tool calling: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// One message of a conversation: `Message(role, content, metadata)` as in spec D1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who the message is from.
    pub role: Role,
    /// The text: user input, the model's `Thought/Action` text, or a tool result.
    pub content: String,
    /// Bookkeeping that travels with the message.
    #[serde(default, skip_serializing_if = "is_default_metadata")]
    pub metadata: MessageMetadata,
}

fn is_default_metadata(metadata: &MessageMetadata) -> bool {
    *metadata == MessageMetadata::default()
}

impl Message {
    /// A message with no metadata.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            metadata: MessageMetadata::default(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn message_without_metadata_serialises_compactly() {
        let json = serde_json::to_string(&Message::user("hi")).unwrap();
        assert_eq!(json, r#"{"role":"user","content":"hi"}"#);
    }

    #[test]
    fn tool_message_round_trips_with_metadata() {
        let message = Message {
            role: Role::Tool,
            content: r#"{"status":"success"}"#.into(),
            metadata: MessageMetadata {
                tool_name: Some("Read".into()),
                step: Some(3),
                ..MessageMetadata::default()
            },
        };
        let json = serde_json::to_string(&message).unwrap();
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), message);
    }

    #[test]
    fn native_tool_calls_and_results_round_trip_through_metadata() {
        let call = Message {
            role: Role::Assistant,
            content: String::new(),
            metadata: MessageMetadata {
                tool_calls: vec![crate::NativeToolCall::new("c1", "Read", "{}")],
                ..MessageMetadata::default()
            },
        };
        let result = Message {
            role: Role::Tool,
            content: r#"{"status":"success"}"#.into(),
            metadata: MessageMetadata {
                tool_name: Some("Read".into()),
                tool_call_id: Some("c1".into()),
                ..MessageMetadata::default()
            },
        };
        for message in [call, result] {
            let json = serde_json::to_string(&message).unwrap();
            assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), message);
        }
    }

    #[test]
    fn a_text_protocol_tool_message_serialises_as_before() {
        let message = Message {
            role: Role::Tool,
            content: "{}".into(),
            metadata: MessageMetadata {
                tool_name: Some("Read".into()),
                step: Some(1),
                ..MessageMetadata::default()
            },
        };
        assert_eq!(
            serde_json::to_string(&message).unwrap(),
            r#"{"role":"tool","content":"{}","metadata":{"tool_name":"Read","step":1}}"#
        );
    }
}
