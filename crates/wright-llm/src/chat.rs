//! What goes into a model call ([`ChatRequest`]) and what comes out ([`StreamEvent`]s while
//! it runs, a [`Completion`] at the end).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use wright_protocol::{NativeToolCall, Usage};

/// Who wrote a message of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// The user, or wright speaking for the user (tool results, observations).
    User,
    /// The model.
    Assistant,
}

/// One message of the conversation: plain text, or under native tool calling the model's
/// tool calls or a tool's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who wrote it. A tool's result is a [`ChatRole::User`] message with a `tool_call_id`.
    pub role: ChatRole,
    /// What was written; for a tool result, the result.
    pub content: String,
    /// For a model message: the native tool calls it made, in order (OpenAI `tool_calls`,
    /// Anthropic `tool_use` blocks after the text). Empty in the text protocol.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<NativeToolCall>,
    /// For a user message: the id of the native tool call whose result `content` is (OpenAI
    /// a `role: "tool"` message, Anthropic a `tool_result` block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// How many bytes at the end of `content` change with every request (wright's todo recap,
    /// which closes each request and moves on with the next): a provider's cache breakpoint
    /// goes before them, so the next request, which no longer has them there, still shares
    /// the prefix. 0 for none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub volatile_tail: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ChatMessage {
    /// A message from the user.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage {
            role: ChatRole::User,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            volatile_tail: 0,
        }
    }

    /// A message from the model.
    pub fn assistant(content: impl Into<String>) -> Self {
        ChatMessage {
            role: ChatRole::Assistant,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            volatile_tail: 0,
        }
    }

    /// A message from the model that makes native tool calls; `content` is any text it wrote
    /// beside them (often empty).
    pub fn assistant_tool_calls(
        content: impl Into<String>,
        tool_calls: Vec<NativeToolCall>,
    ) -> Self {
        ChatMessage {
            tool_calls,
            ..ChatMessage::assistant(content)
        }
    }

    /// The result of the native tool call `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage {
            tool_call_id: Some(tool_call_id.into()),
            ..ChatMessage::user(content)
        }
    }
}

/// One model call: the system prompt, the conversation so far, the stop sequences and how long
/// the reply may be. The tools offered for native tool calling travel beside it (see
/// [`LlmClient::complete_with_tools`](crate::LlmClient::complete_with_tools)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatRequest {
    /// The system prompt in parts, the most stable first (wright's: L1, then the project's
    /// rules, then the summaries of archived history). OpenAI-compatible servers get them as
    /// one system message, joined by a blank line; Anthropic as one system block each, so a
    /// change in a later part leaves the cached earlier ones valid. Empty parts are left out.
    pub system: Vec<String>,
    /// The conversation, oldest first.
    pub messages: Vec<ChatMessage>,
    /// Strings that end the reply when the model writes them; left out when empty.
    pub stop: Vec<String>,
    /// The most tokens the reply may take (`max_tokens`, or `max_completion_tokens` where the
    /// server wants that spelling); `None` asks for the client's configured
    /// `max_output_tokens`. Servers count it against the context window together with the
    /// prompt, so a caller that fits requests to a small window sets it to what is left.
    pub max_output_tokens: Option<u32>,
}

impl ChatRequest {
    /// The system parts that are not empty.
    pub fn system_parts(&self) -> impl Iterator<Item = &str> {
        self.system
            .iter()
            .map(String::as_str)
            .filter(|part| !part.is_empty())
    }

    /// The system prompt as one text: its parts joined by a blank line.
    pub fn system_text(&self) -> String {
        self.system_parts().collect::<Vec<_>>().join("\n\n")
    }

    /// The reply limit to send: this request's own, or `configured` when it has none. Never
    /// 0, which servers refuse.
    pub(crate) fn output_limit(&self, configured: u32) -> u32 {
        self.max_output_tokens.unwrap_or(configured).max(1)
    }
}

/// What the caller sees while a call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// A delta of the visible reply.
    Text(String),
    /// A delta of separate reasoning output (DeepSeek/OpenRouter `reasoning_content` /
    /// `reasoning`, Anthropic thinking); never part of [`Completion::text`].
    Reasoning(String),
    /// The attempt failed in a way that may heal; the request is re-sent after `delay`.
    ///
    /// Everything streamed since the call started (or since the previous `Retry`) must be
    /// discarded by the caller. When the failed request was a continuation, the text (and
    /// reasoning) of the pieces already finished is streamed again right after this event,
    /// so that rule keeps holding.
    Retry {
        /// The attempt about to be made: 2 for the first retry.
        attempt: u32,
        /// The attempts allowed per request.
        max_attempts: u32,
        /// Why the previous attempt failed, e.g. `HTTP 503: overloaded`.
        reason: String,
        /// How long wright waits before re-sending.
        delay: Duration,
    },
    /// The reply hit the output-token limit and a continuation request is being sent; the
    /// `Text` deltas that follow continue the same reply.
    Continuation {
        /// 1 for the first continuation.
        attempt: u32,
    },
}

/// Why the model stopped writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// The model finished on its own or wrote a stop sequence.
    Stop,
    /// The model stopped to have its native tool calls run (OpenAI `tool_calls`, Anthropic
    /// `tool_use`); [`Completion::tool_calls`] holds them.
    ToolCalls,
    /// The reply is still cut by the output-token limit after
    /// [`MAX_CONTINUATIONS`](crate::MAX_CONTINUATIONS) continuations.
    Length,
    /// Anything else, as the provider named it (`content_filter`, `refusal`, ...).
    Other(String),
}

impl FinishReason {
    /// Reads a provider's finish reason (OpenAI `finish_reason` or Anthropic `stop_reason`).
    ///
    /// Servers send `""` or `null` when they have nothing to say; that counts as a normal stop.
    pub(crate) fn from_wire(reason: Option<&str>) -> FinishReason {
        match reason.map(str::trim) {
            None | Some("" | "stop" | "end_turn" | "stop_sequence") => FinishReason::Stop,
            Some("length" | "max_tokens") => FinishReason::Length,
            Some("tool_calls" | "tool_use") => FinishReason::ToolCalls,
            Some(other) => FinishReason::Other(other.to_string()),
        }
    }
}

/// The outcome of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The visible reply, joined over continuations.
    pub text: String,
    /// The reasoning output, joined over continuations; empty if the model gave none.
    pub reasoning: String,
    /// Tokens billed, summed over continuations; `None` if the provider reported none.
    pub usage: Option<Usage>,
    /// The usage of each call that made the reply, in order (one per continuation), for the
    /// calls the provider reported it for. The last one is what the context window held at
    /// the end, which the compaction trigger reads (spec A6/C7); cost counts all of them.
    pub calls: Vec<Usage>,
    /// Why the last piece of the reply ended.
    pub finish_reason: FinishReason,
    /// The native tool calls the model made, in order, with their arguments exactly as sent
    /// (possibly malformed JSON: the caller answers that like any bad action). Always empty
    /// when the request offered no tools.
    pub tool_calls: Vec<NativeToolCall>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn finish_reasons_of_both_providers_map_to_the_same_variants() {
        assert_eq!(FinishReason::from_wire(Some("stop")), FinishReason::Stop);
        assert_eq!(
            FinishReason::from_wire(Some("end_turn")),
            FinishReason::Stop
        );
        assert_eq!(
            FinishReason::from_wire(Some("stop_sequence")),
            FinishReason::Stop
        );
        assert_eq!(
            FinishReason::from_wire(Some("length")),
            FinishReason::Length
        );
        assert_eq!(
            FinishReason::from_wire(Some("max_tokens")),
            FinishReason::Length
        );
    }

    #[test]
    fn stopping_for_tool_calls_has_its_own_variant_on_both_providers() {
        assert_eq!(
            FinishReason::from_wire(Some("tool_calls")),
            FinishReason::ToolCalls
        );
        assert_eq!(
            FinishReason::from_wire(Some("tool_use")),
            FinishReason::ToolCalls
        );
    }

    #[test]
    fn a_plain_message_serialises_without_the_native_fields() {
        assert_eq!(
            serde_json::to_string(&ChatMessage::user("hi")).unwrap(),
            r#"{"role":"user","content":"hi"}"#
        );
    }

    #[test]
    fn an_empty_or_missing_finish_reason_is_a_stop() {
        assert_eq!(FinishReason::from_wire(None), FinishReason::Stop);
        assert_eq!(FinishReason::from_wire(Some("")), FinishReason::Stop);
    }

    #[test]
    fn unknown_finish_reasons_keep_their_name() {
        assert_eq!(
            FinishReason::from_wire(Some("content_filter")),
            FinishReason::Other("content_filter".into())
        );
    }
}
