//! The ContextBuilder (spec A1, D4, E1; DESIGN §3): every request is assembled afresh, in this
//! order, from
//!
//! 1. **L1** — the system prompt with the tool descriptions, byte-identical for every request of
//!    a session (the provider's prompt cache then covers it);
//! 2. **L2** — the project's CODE_LAW.md, re-read for every request, appended to the system
//!    prompt after L1 (so L1 stays the request's stable prefix) and never stored in history;
//! 3. **L3** — the summaries of archived rounds, oldest first, then the retained history with
//!    its compressed tool results;
//! 4. the **current user input**, after @file preprocessing;
//! 5. the **scratchpad** of the running round: each step's text and its full observation;
//! 6. the **todo recap**, if there is a todo list: always the last thing in the request.
//!
//! Mapping onto chat messages: user and assistant messages keep their roles; a history `tool`
//! message becomes a user-role message `[tool] {compressed json}` (spec E1), a summary a
//! user-role message `[summary] …`, a scratchpad observation a user-role message
//! `Observation: …`, and the todo recap is appended to the last (user-role) message. Role tags
//! are not written into user and assistant messages, whose roles already say who spoke, so the
//! model is never shown a `[assistant]` prefix to imitate.

use wright_llm::{ChatMessage, ChatRequest};
use wright_protocol::{Message, Role};

use crate::code_law::CodeLaw;
use crate::compaction::estimate_tokens;
use crate::history::SummaryEntry;
use crate::react::STOP_SEQUENCE;

/// Where the project rules start inside the system prompt.
pub const CODE_LAW_HEADER: &str = "# Project rules (CODE_LAW.md)";

/// One step of the running round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScratchStep {
    /// The model's `Thought/Action` text.
    pub assistant: String,
    /// The full observation the model reads while the round runs.
    pub observation: String,
    /// The observation's compressed history form, used instead when the request would
    /// otherwise not fit (DESIGN §9.3).
    pub compressed: String,
    /// Whether the compressed form is being used.
    pub use_compressed: bool,
}

/// Everything a request is built from, layer by layer.
#[derive(Debug, Clone, Copy)]
pub struct RequestParts<'a> {
    /// L1.
    pub system: &'a str,
    /// L2.
    pub code_law: Option<&'a CodeLaw>,
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
}

/// The system prompt of a request: L1, then L2 when the project has rules.
pub fn system_text(system: &str, code_law: Option<&CodeLaw>) -> String {
    match code_law {
        None => system.to_string(),
        Some(law) => format!(
            "{system}\n\n{CODE_LAW_HEADER}\n\nThe project's own rules, from {}. They override your defaults.\n\n{}",
            law.file_name,
            law.text.trim_end()
        ),
    }
}

/// The chat message a history message becomes (spec E1).
pub fn history_message(message: &Message) -> ChatMessage {
    match message.role {
        Role::User => ChatMessage::user(message.content.clone()),
        Role::Assistant => ChatMessage::assistant(message.content.clone()),
        Role::Tool => ChatMessage::user(format!("[tool] {}", message.content)),
        Role::Summary => ChatMessage::user(summary_text(&message.content)),
    }
}

fn summary_text(text: &str) -> String {
    format!("[summary] Summary of earlier, archived parts of this conversation:\n\n{text}")
}

/// The todo recap as it closes a request.
pub fn recap_text(recap: &str) -> String {
    format!("<todo-recap>\n{}\n</todo-recap>", recap.trim_end())
}

/// Assembles one request from its parts, in the order of spec A1.
pub fn build_request(parts: &RequestParts<'_>) -> ChatRequest {
    let mut messages = Vec::with_capacity(
        parts.summaries.len() + parts.history.len() + 1 + 2 * parts.scratchpad.len(),
    );
    messages.extend(
        parts
            .summaries
            .iter()
            .map(|summary| ChatMessage::user(summary_text(&summary.text))),
    );
    messages.extend(parts.history.iter().map(history_message));
    messages.push(ChatMessage::user(parts.input));
    for step in parts.scratchpad {
        messages.push(ChatMessage::assistant(step.assistant.clone()));
        let observation = if step.use_compressed {
            &step.compressed
        } else {
            &step.observation
        };
        messages.push(ChatMessage::user(format!("Observation: {observation}")));
    }
    if let (Some(recap), Some(last)) = (parts.todo_recap, messages.last_mut()) {
        last.content.push_str("\n\n");
        last.content.push_str(&recap_text(recap));
    }
    ChatRequest {
        system: system_text(parts.system, parts.code_law),
        messages,
        stop: vec![STOP_SEQUENCE.to_string()],
    }
}

/// Per-message overhead of the chat framing, in tokens (role markers and separators).
const TOKENS_PER_MESSAGE: u64 = 4;

/// The local token estimate of a whole request (spec A6's `len // 3`, plus framing).
pub fn estimate_request(request: &ChatRequest) -> u64 {
    estimate_tokens(&request.system)
        + request
            .messages
            .iter()
            .map(|m| estimate_tokens(&m.content) + TOKENS_PER_MESSAGE)
            .sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use wright_llm::ChatRole;
    use wright_protocol::MessageMetadata;

    fn parts<'a>(history: &'a [Message], scratchpad: &'a [ScratchStep]) -> RequestParts<'a> {
        RequestParts {
            system: "L1",
            code_law: None,
            summaries: &[],
            history,
            input: "now this",
            scratchpad,
            todo_recap: None,
        }
    }

    fn step(n: u32) -> ScratchStep {
        ScratchStep {
            assistant: format!("Action: Read[{{\"n\": {n}}}]"),
            observation: format!("full {n}"),
            compressed: format!("{{\"status\":\"success\",\"n\":{n}}}"),
            use_compressed: false,
        }
    }

    #[test]
    fn layers_come_in_spec_order_with_the_recap_last() {
        let law = CodeLaw {
            file_name: "CODE_LAW.md".into(),
            text: "No unsafe.".into(),
            truncated: false,
        };
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
                },
            },
        ];
        let scratch = [step(1)];
        let request = build_request(&RequestParts {
            code_law: Some(&law),
            summaries: &summaries,
            todo_recap: Some("1 todo: [>] ship it"),
            ..parts(&history, &scratch)
        });
        assert!(
            request
                .system
                .starts_with("L1\n\n# Project rules (CODE_LAW.md)")
        );
        assert!(request.system.ends_with("No unsafe."));
        let shown: Vec<(ChatRole, &str)> = request
            .messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (
                    ChatRole::User,
                    "[summary] Summary of earlier, archived parts of this conversation:\n\n## 📌 Archived Session Summary"
                ),
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
        let request = build_request(&parts(&[], &[]));
        assert_eq!(request.system, "L1");
        assert_eq!(request.messages.len(), 1);
    }

    #[test]
    fn a_compressed_scratch_step_shows_its_compressed_form() {
        let mut scratch = [step(1), step(2)];
        scratch[0].use_compressed = true;
        let request = build_request(&parts(&[], &scratch));
        assert_eq!(
            request.messages[2].content,
            "Observation: {\"status\":\"success\",\"n\":1}"
        );
        assert_eq!(request.messages[4].content, "Observation: full 2");
    }

    #[test]
    fn the_estimate_grows_with_content() {
        let small = estimate_request(&build_request(&parts(&[], &[])));
        let history = [Message::user("x".repeat(3000))];
        let large = estimate_request(&build_request(&parts(&history, &[])));
        assert_eq!(large - small, 1000 + TOKENS_PER_MESSAGE);
    }
}
