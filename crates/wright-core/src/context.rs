//! The ContextBuilder (spec A1, D4, E1; DESIGN §3): every request is assembled afresh, in this
//! order, from
//!
//! 1. **L1** — the system prompt with the tool descriptions, byte-identical for every request of
//!    a session (the provider's prompt cache then covers it);
//! 2. **L2** — the project's CODE_LAW.md, AGENTS.md, CLAUDE.md and rules
//!    ([`crate::instructions`]), re-read for every request, appended to the system prompt
//!    after L1 (so L1 stays the request's stable prefix) and never stored in history;
//! 3. **L3** — the summaries of archived rounds, oldest first, then the retained history with
//!    its compressed tool results;
//! 4. the **current user input**, after @file preprocessing;
//! 5. the **scratchpad** of the running round: each step's text and its full observation;
//! 6. the **todo recap**, if there is a todo list: always the last thing in the request.
//!
//! Mapping onto the request: L1, L2 and the summaries are the system prompt's parts, in that
//! order (spec A5/C2: summaries are system context, as written; L1 stays the stable prefix, and
//! chat templates that allow one leading system message still work). User and assistant
//! messages keep their roles; a history `tool` message becomes a user-role message
//! `[tool] {compressed json}` (spec E1), a scratchpad observation a user-role message
//! `Observation: …`, and the todo recap is appended to the last (user-role) message. Role tags
//! are not written into user and assistant messages, whose roles already say who spoke, so the
//! model is never shown a `[assistant]` prefix to imitate.

use wright_llm::{ChatMessage, ChatRequest};
use wright_protocol::{Message, NativeToolCall, Role};

use crate::compaction::estimate_tokens;
use crate::history::SummaryEntry;
use crate::instructions::Instructions;
use crate::react::{STOP_SEQUENCE, native_call_text};
use crate::round::ToolProtocol;

pub use crate::instructions::CODE_LAW_HEADER;

/// One step of the running round: in the text protocol one reply and its observation; in the
/// native protocol one tool call and its result, the first call of a reply carrying the reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScratchStep {
    /// The model's `Thought/Action` text (native: the text of the reply, often empty).
    pub assistant: String,
    /// Native protocol: the reply's tool calls, on the step of its first call (empty on the
    /// steps of its later calls, and always in the text protocol).
    pub tool_calls: Vec<NativeToolCall>,
    /// Native protocol: the id of the call whose result the observation is; `None` in the
    /// text protocol and for a native reply that called no tool (an empty reply).
    pub tool_call_id: Option<String>,
    /// The full observation the model reads while the round runs.
    pub observation: String,
    /// The observation's compressed history form, used instead when the request would
    /// otherwise not fit (DESIGN §9.3).
    pub compressed: String,
    /// Whether the compressed form is being used.
    pub use_compressed: bool,
}

/// The ContextBuilder (spec D4): everything one request is built from, layer by layer.
/// [`layers`](Self::layers) yields the layers in the order of spec A1 and
/// [`request`](Self::request) assembles them; `wright context` reads the same layers.
#[derive(Debug, Clone, Copy)]
pub struct ContextBuilder<'a> {
    /// L1.
    pub system: &'a str,
    /// L2: CODE_LAW.md, AGENTS.md, CLAUDE.md and the rules, as read for this request.
    pub instructions: Option<&'a Instructions>,
    /// L3, first part.
    pub summaries: &'a [SummaryEntry],
    /// L3, second part: retained messages (tool messages hold compressed JSON).
    pub history: &'a [Message],
    /// The user's input for this round.
    pub input: &'a str,
    /// This round's steps.
    pub scratchpad: &'a [ScratchStep],
    /// The todo recap, if a todo list exists.
    pub todo_recap: Option<&'a str>,
    /// How tool calls and results are rendered (issue 19): as text (spec E1) or as the
    /// provider's native tool messages.
    pub protocol: ToolProtocol,
}

/// How many layers a request has: spec A1's five, with L3 in two parts and the scratchpad of
/// spec A2 between the input and the recap.
pub const LAYER_COUNT: usize = 7;

/// One layer of a request, in the order of spec A1: L1, L2, L3 (summaries, then the retained
/// history), the current input, the scratchpad, the todo recap. An absent layer (no
/// CODE_LAW.md, no todo list, no history yet) is still yielded, empty, so its place is fixed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layer<'a> {
    /// L1: the system prompt with the tools' descriptions.
    System(&'a str),
    /// L2: the project's and the user's instructions and rules, when there are any.
    Instructions(Option<&'a Instructions>),
    /// L3, first part: the summaries of archived rounds, oldest first.
    Summaries(&'a [SummaryEntry]),
    /// L3, second part: the retained history, rendered for a tool protocol.
    History(&'a [Message], ToolProtocol),
    /// The user's input for this round, after @file preprocessing.
    Input(&'a str),
    /// The running round's steps with their observations, rendered for a tool protocol.
    Scratchpad(&'a [ScratchStep], ToolProtocol),
    /// The todo recap, when there is a todo list.
    TodoRecap(Option<&'a str>),
}

impl Layer<'_> {
    /// The part this layer adds to the request's system prompt: L1; L2 when the project has
    /// rules; the summaries, as written, when history has any (after L1, so L1 stays the
    /// request's stable prefix).
    pub fn system_text(&self) -> Option<String> {
        match self {
            Layer::System(system) => Some(system.to_string()),
            Layer::Summaries(summaries) if !summaries.is_empty() => Some(
                summaries
                    .iter()
                    .map(|summary| summary.text.trim_end())
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            ),
            Layer::Instructions(Some(instructions)) => instructions.system_text(),
            _ => None,
        }
    }

    /// The chat messages this layer adds, in order (spec E1 for history messages).
    pub fn messages(&self) -> Vec<ChatMessage> {
        match self {
            Layer::History(history, ToolProtocol::Text) => {
                history.iter().map(history_message).collect()
            }
            Layer::History(history, ToolProtocol::Native) => native_history(history),
            Layer::Input(input) => vec![ChatMessage::user(*input)],
            Layer::Scratchpad(scratchpad, protocol) => scratchpad
                .iter()
                .flat_map(|step| scratch_messages(step, *protocol))
                .collect(),
            Layer::System(_)
            | Layer::Instructions(_)
            | Layer::Summaries(_)
            | Layer::TodoRecap(_) => Vec::new(),
        }
    }

    /// The text this layer adds to the end of the request's last message: the todo recap,
    /// which always closes the request.
    pub fn appended_text(&self) -> Option<String> {
        match self {
            Layer::TodoRecap(Some(recap)) => Some(recap_text(recap)),
            _ => None,
        }
    }
}

impl<'a> ContextBuilder<'a> {
    /// The request's layers, in the order of spec A1.
    pub fn layers(&self) -> [Layer<'a>; LAYER_COUNT] {
        [
            Layer::System(self.system),
            Layer::Instructions(self.instructions),
            Layer::Summaries(self.summaries),
            Layer::History(self.history, self.protocol),
            Layer::Input(self.input),
            Layer::Scratchpad(self.scratchpad, self.protocol),
            Layer::TodoRecap(self.todo_recap),
        ]
    }

    /// The request its [`layers`](Self::layers) make: their system texts as the system
    /// prompt's parts, their messages in order, and the appended text after a blank line at the end of
    /// the last message.
    pub fn request(&self) -> ChatRequest {
        let layers = self.layers();
        let system = layers.iter().filter_map(Layer::system_text).collect();
        let mut messages: Vec<ChatMessage> = layers.iter().flat_map(Layer::messages).collect();
        for appended in layers.iter().filter_map(Layer::appended_text) {
            if let Some(last) = messages.last_mut() {
                last.content.push_str("\n\n");
                last.content.push_str(&appended);
                // The recap moves on with the next request: a cache breakpoint goes before it.
                last.volatile_tail += 2 + appended.len();
            }
        }
        // Under native tool calling the model does not write observations: nothing to stop at.
        let stop = match self.protocol {
            ToolProtocol::Text => vec![STOP_SEQUENCE.to_string()],
            ToolProtocol::Native => Vec::new(),
        };
        ChatRequest {
            system,
            messages,
            stop,
            max_output_tokens: None,
        }
    }
}

/// The chat message a history message becomes (spec E1).
///
/// History is protocol-neutral (issue 19): an assistant message that called tools natively
/// keeps its text and the calls in `metadata.tool_calls`, each answer is a tool message with
/// `metadata.tool_call_id`. Rendered here for the text protocol, the calls become the
/// `Action: Tool[args]` lines text mode would have written, after the text, and the answers
/// render like any tool message (`[tool] ...`); a session run natively resumes in text mode.
fn history_message(message: &Message) -> ChatMessage {
    match message.role {
        Role::User => ChatMessage::user(message.content.clone()),
        Role::Assistant => ChatMessage::assistant(assistant_text(message)),
        Role::Tool => ChatMessage::user(format!("[tool] {}", message.content)),
        // Summaries live in L3's system part; one found among the messages (never written
        // there) is still shown as what it is.
        Role::Summary => ChatMessage::user(message.content.clone()),
    }
}

/// A message as text: its content, then, for a native reply, one action line per tool call.
pub fn assistant_text(message: &Message) -> String {
    let calls = &message.metadata.tool_calls;
    if calls.is_empty() {
        return message.content.clone();
    }
    let text = message.content.trim_end();
    let lines = calls.iter().map(native_call_text);
    if text.is_empty() {
        lines.collect::<Vec<_>>().join("\n")
    } else {
        std::iter::once(text.to_string())
            .chain(lines)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// History rendered for the native protocol: an assistant message that called tools becomes
/// the provider's tool-call message and each answer its tool result, when every call has its
/// answer right after it (providers refuse a call without one); the rest — text-mode steps, a
/// step a crash cut short — renders as in the text protocol, so any history can be sent.
fn native_history(history: &[Message]) -> Vec<ChatMessage> {
    let mut messages = Vec::with_capacity(history.len());
    let mut i = 0;
    while i < history.len() {
        let message = &history[i];
        let calls = &message.metadata.tool_calls;
        if message.role == Role::Assistant && !calls.is_empty() {
            let results = history[i + 1..]
                .iter()
                .take_while(|m| m.role == Role::Tool && m.metadata.tool_call_id.is_some())
                .count();
            let answered = &history[i + 1..i + 1 + results];
            let paired = answered.len() == calls.len()
                && calls.iter().zip(answered).all(|(call, result)| {
                    result.metadata.tool_call_id.as_deref() == Some(call.id.as_str())
                });
            if paired {
                messages.push(ChatMessage::assistant_tool_calls(
                    message.content.trim_end(),
                    calls.clone(),
                ));
                for (call, result) in calls.iter().zip(answered) {
                    messages.push(ChatMessage::tool_result(&call.id, &result.content));
                }
                i += 1 + results;
                continue;
            }
        }
        messages.push(history_message(message));
        i += 1;
    }
    messages
}

/// A scratchpad step: what the model wrote, then what it observed, in full unless the request
/// needed the compressed form (DESIGN §9.3). Natively, the reply's tool calls (on its first
/// call's step) and the call's result.
fn scratch_messages(step: &ScratchStep, protocol: ToolProtocol) -> Vec<ChatMessage> {
    let observation = if step.use_compressed {
        &step.compressed
    } else {
        &step.observation
    };
    match (protocol, &step.tool_call_id) {
        (ToolProtocol::Native, Some(id)) => {
            let mut messages = Vec::with_capacity(2);
            if !step.tool_calls.is_empty() {
                messages.push(ChatMessage::assistant_tool_calls(
                    step.assistant.clone(),
                    step.tool_calls.clone(),
                ));
            }
            messages.push(ChatMessage::tool_result(id, observation.clone()));
            messages
        }
        (ToolProtocol::Native, None) => vec![
            ChatMessage::assistant(step.assistant.clone()),
            ChatMessage::user(observation.clone()),
        ],
        (ToolProtocol::Text, _) => vec![
            ChatMessage::assistant(step.assistant.clone()),
            ChatMessage::user(format!("Observation: {observation}")),
        ],
    }
}

/// The todo recap as it closes a request.
fn recap_text(recap: &str) -> String {
    format!("<todo-recap>\n{}\n</todo-recap>", recap.trim_end())
}

/// Per-message overhead of the chat framing, in tokens (role markers and separators).
pub const TOKENS_PER_MESSAGE: u64 = 4;

/// The local token estimate of a whole request (spec A6's `len // 3`, plus framing).
pub fn estimate_request(request: &ChatRequest) -> u64 {
    estimate_tokens(&request.system_text()) + estimate_messages(&request.messages)
}

/// The local token estimate of chat messages, each with its framing; a native message's tool
/// calls (id, name, arguments) and result id count too.
pub fn estimate_messages(messages: &[ChatMessage]) -> u64 {
    messages
        .iter()
        .map(|m| {
            let calls: u64 = m
                .tool_calls
                .iter()
                .map(|call| {
                    estimate_tokens(&call.id)
                        + estimate_tokens(&call.name)
                        + estimate_tokens(&call.arguments)
                        + TOKENS_PER_MESSAGE
                })
                .sum();
            let id = m.tool_call_id.as_deref().map_or(0, estimate_tokens);
            estimate_tokens(&m.content) + calls + id + TOKENS_PER_MESSAGE
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code_law::CodeLaw;
    use pretty_assertions::assert_eq;
    use wright_llm::ChatRole;
    use wright_protocol::MessageMetadata;

    fn parts<'a>(history: &'a [Message], scratchpad: &'a [ScratchStep]) -> ContextBuilder<'a> {
        ContextBuilder {
            system: "L1",
            instructions: None,
            summaries: &[],
            history,
            input: "now this",
            scratchpad,
            todo_recap: None,
            protocol: ToolProtocol::Text,
        }
    }

    fn step(n: u32) -> ScratchStep {
        ScratchStep {
            assistant: format!("Action: Read[{{\"n\": {n}}}]"),
            observation: format!("full {n}"),
            compressed: format!("{{\"status\":\"success\",\"n\":{n}}}"),
            ..ScratchStep::default()
        }
    }

    fn native(role: Role, content: &str, metadata: MessageMetadata) -> Message {
        Message {
            role,
            content: content.into(),
            metadata,
        }
    }

    #[test]
    fn native_tool_calls_render_as_text_mode_action_lines() {
        let calls = vec![
            wright_protocol::NativeToolCall::new("c1", "Read", r#"{"file_path": "a.rs"}"#),
            wright_protocol::NativeToolCall::new("c2", "Grep", "{bad json"),
        ];
        let history = [
            native(
                Role::Assistant,
                "Looking first.\n",
                MessageMetadata {
                    tool_calls: calls.clone(),
                    ..MessageMetadata::default()
                },
            ),
            native(
                Role::Tool,
                r#"{"status":"success"}"#,
                MessageMetadata {
                    tool_name: Some("Read".into()),
                    tool_call_id: Some("c1".into()),
                    ..MessageMetadata::default()
                },
            ),
            native(
                Role::Assistant,
                "",
                MessageMetadata {
                    tool_calls: calls[..1].to_vec(),
                    ..MessageMetadata::default()
                },
            ),
        ];
        let request = parts(&history, &[]).request();
        let shown: Vec<(ChatRole, &str)> = request
            .messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect();
        assert_eq!(
            shown[..3],
            [
                (
                    ChatRole::Assistant,
                    "Looking first.\nAction: Read[{\"file_path\": \"a.rs\"}]\nAction: Grep[{bad json]"
                ),
                (ChatRole::User, "[tool] {\"status\":\"success\"}"),
                (
                    ChatRole::Assistant,
                    "Action: Read[{\"file_path\": \"a.rs\"}]"
                ),
            ]
        );
    }

    #[test]
    fn layers_come_in_spec_order_with_the_recap_last() {
        let law = Instructions::from_code_law(&CodeLaw {
            file_name: "CODE_LAW.md".into(),
            text: "No unsafe.".into(),
            truncated: false,
        });
        let summaries = [SummaryEntry {
            text: "## 📌 Archived Session Summary".into(),
            start_time: chrono::Utc::now(),
            cutoff_time: chrono::Utc::now(),
        }];
        let history = [
            Message::user("earlier"),
            Message::assistant("Action: Read[{}]"),
            Message {
                role: Role::Tool,
                content: "{\"status\":\"success\"}".into(),
                metadata: MessageMetadata {
                    tool_name: Some("Read".into()),
                    step: Some(1),
                    ..MessageMetadata::default()
                },
            },
        ];
        let scratch = [step(1)];
        let request = ContextBuilder {
            instructions: Some(&law),
            summaries: &summaries,
            todo_recap: Some("1 todo: [>] ship it"),
            ..parts(&history, &scratch)
        }
        .request();
        // L1, L2, then the summary as written: system context, no header (A5/C2).
        assert_eq!(request.system.len(), 3);
        assert_eq!(request.system[0], "L1");
        assert!(request.system[1].starts_with("# Project rules (CODE_LAW.md)"));
        assert!(request.system[1].ends_with("No unsafe."));
        assert_eq!(request.system[2], "## 📌 Archived Session Summary");
        let shown: Vec<(ChatRole, &str)> = request
            .messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (ChatRole::User, "earlier"),
                (ChatRole::Assistant, "Action: Read[{}]"),
                (ChatRole::User, "[tool] {\"status\":\"success\"}"),
                (ChatRole::User, "now this"),
                (ChatRole::Assistant, "Action: Read[{\"n\": 1}]"),
                (
                    ChatRole::User,
                    "Observation: full 1\n\n<todo-recap>\n1 todo: [>] ship it\n</todo-recap>"
                ),
            ]
        );
        assert_eq!(request.stop, vec!["\nObservation:".to_string()]);
    }

    #[test]
    fn without_rules_the_system_prompt_is_l1_alone() {
        let request = parts(&[], &[]).request();
        assert_eq!(request.system, ["L1"]);
        assert_eq!(request.messages.len(), 1);
    }

    #[test]
    fn a_compressed_scratch_step_shows_its_compressed_form() {
        let mut scratch = [step(1), step(2)];
        scratch[0].use_compressed = true;
        let request = parts(&[], &scratch).request();
        assert_eq!(
            request.messages[2].content,
            "Observation: {\"status\":\"success\",\"n\":1}"
        );
        assert_eq!(request.messages[4].content, "Observation: full 2");
    }

    #[test]
    fn a_native_calls_arguments_count_in_the_estimate_as_its_action_line_does() {
        let content = "x".repeat(90_000);
        let arguments = serde_json::json!({"file_path": "a.txt", "content": content}).to_string();
        let native = ScratchStep {
            tool_calls: vec![NativeToolCall::new("c1", "Write", arguments.clone())],
            tool_call_id: Some("c1".into()),
            observation: "ok".into(),
            ..ScratchStep::default()
        };
        let text = ScratchStep {
            assistant: format!("Action: Write[{arguments}]"),
            observation: "ok".into(),
            ..ScratchStep::default()
        };
        let estimate = |step: ScratchStep, protocol| {
            estimate_request(
                &ContextBuilder {
                    protocol,
                    ..parts(&[], std::slice::from_ref(&step))
                }
                .request(),
            )
        };
        let native = estimate(native, ToolProtocol::Native);
        let text = estimate(text, ToolProtocol::Text);
        assert!(native >= 30_000, "{native}");
        assert!(native.abs_diff(text) < 50, "{native} vs {text}");
    }

    #[test]
    fn the_estimate_grows_with_content() {
        let small = estimate_request(&parts(&[], &[]).request());
        let history = [Message::user("x".repeat(3000))];
        let large = estimate_request(&parts(&history, &[]).request());
        assert_eq!(large - small, 1000 + TOKENS_PER_MESSAGE);
    }
}

#[cfg(test)]
mod layer_tests {
    use super::*;
    use crate::code_law::CodeLaw;
    use pretty_assertions::assert_eq;
    use std::mem::discriminant;

    #[test]
    fn layers_are_yielded_in_spec_order_even_when_empty() {
        let builder = ContextBuilder {
            system: "L1",
            instructions: None,
            summaries: &[],
            history: &[],
            input: "now",
            scratchpad: &[],
            todo_recap: None,
            protocol: ToolProtocol::Text,
        };
        let order: Vec<_> = builder.layers().iter().map(discriminant).collect();
        let expected: Vec<_> = [
            Layer::System(""),
            Layer::Instructions(None),
            Layer::Summaries(&[]),
            Layer::History(&[], ToolProtocol::Text),
            Layer::Input(""),
            Layer::Scratchpad(&[], ToolProtocol::Text),
            Layer::TodoRecap(None),
        ]
        .iter()
        .map(discriminant)
        .collect();
        assert_eq!(order, expected);
        let layers = builder.layers();
        assert_eq!(layers[1].system_text(), None, "no rules, no L2 text");
        assert_eq!(layers[6].appended_text(), None, "no list, no recap");
        assert!(layers[2].messages().is_empty() && layers[3].messages().is_empty());
    }

    #[test]
    fn each_layer_says_where_its_text_goes() {
        let law = Instructions::from_code_law(&CodeLaw {
            file_name: "code_law.md".into(),
            text: "Tabs.\n".into(),
            truncated: false,
        });
        let builder = ContextBuilder {
            system: "L1",
            instructions: Some(&law),
            summaries: &[],
            history: &[Message::user("before")],
            input: "now",
            scratchpad: &[],
            todo_recap: Some("1 todo"),
            protocol: ToolProtocol::Text,
        };
        let layers = builder.layers();
        assert_eq!(layers[0].system_text().as_deref(), Some("L1"));
        assert_eq!(
            layers[1].system_text().as_deref(),
            Some(
                "# Project rules (CODE_LAW.md)\n\nThe project's own rules, from code_law.md. They override your defaults.\n\nTabs."
            )
        );
        assert_eq!(layers[3].messages(), vec![ChatMessage::user("before")]);
        assert_eq!(layers[4].messages(), vec![ChatMessage::user("now")]);
        assert_eq!(
            layers[6].appended_text().as_deref(),
            Some("<todo-recap>\n1 todo\n</todo-recap>")
        );
        let request = builder.request();
        assert_eq!(
            request.system_text(),
            format!("L1\n\n{}", layers[1].system_text().unwrap_or_default())
        );
        assert_eq!(
            request.messages.last().map(|m| m.content.as_str()),
            Some("now\n\n<todo-recap>\n1 todo\n</todo-recap>")
        );
    }
}
