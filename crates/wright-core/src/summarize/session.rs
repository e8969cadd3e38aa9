//! The summary request in the session's own prompt (`summary_request = "session"`): the
//! session's last request — L1, L2, the summaries, every retained message — with the summary
//! instructions as its last message instead of the user's input, as Claude Code asks for its
//! compaction summary. Its prefix is the prefix the provider has cached from the round before,
//! so the call bills at the cached rate for all but the last round's observation and the
//! instructions; the separate request of spec C2 shares only a few bytes with the session's
//! and bills its whole transcript. The archived rounds are named, not repeated: the model
//! reads them where they are.

use serde::{Deserialize, Serialize};
use wright_llm::{ChatMessage, ChatRequest};

use super::{SUMMARY_PROMPT, span};
use crate::history::Stored;

/// How the summary call of a compaction is asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SummaryRequestForm {
    /// Spec C2: a new conversation of the summary prompt and the archived messages.
    #[default]
    Separate,
    /// The session's own request with the summary prompt last, naming the archived rounds,
    /// so the provider's prompt cache covers it. Used only when the summary model is the
    /// session's and the request fits the window; otherwise the separate request is sent.
    Session,
}

/// What follows the summary prompt in the session form, its placeholders in braces.
const SESSION_NOTE: &str = include_str!("session.md");

/// Characters of the first kept user message quoted to mark where the archive ends.
const FIRST_KEPT_CHARS: usize = 120;

/// `session` — the request the session would send next, its last message the (empty) user
/// input — with the summary instructions for the first `archived_rounds` rounds, `archived`,
/// in place of that input. `first_kept` is the user message that opens the first kept round.
pub fn session_summary_request(
    mut session: ChatRequest,
    archived: &[Stored],
    archived_rounds: usize,
    first_kept: &str,
) -> ChatRequest {
    let (start, cutoff) = span(archived);
    let rounds = wright_protocol::text::count(
        u64::try_from(archived_rounds).unwrap_or(u64::MAX),
        "round",
        "rounds",
    );
    let first_kept =
        wright_protocol::text::take_chars(first_kept.trim(), FIRST_KEPT_CHARS).replace('\n', " ");
    let note = SESSION_NOTE
        .replace("{rounds}", &rounds)
        .replace("{first_kept}", &first_kept)
        .replace("{start}", &start)
        .replace("{cutoff}", &cutoff);
    let instructions = format!("{}\n\n{}", SUMMARY_PROMPT.trim_end(), note.trim_end());
    session.messages.pop();
    session.messages.push(ChatMessage::user(instructions));
    session.stop.clear();
    session.max_output_tokens = None;
    session
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use pretty_assertions::assert_eq;
    use wright_protocol::Message;

    fn at(time: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(time)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn the_session_form_keeps_the_session_prompt_and_replaces_only_its_last_message() {
        let session = ChatRequest {
            system: vec!["L1".into(), "summary 1".into()],
            messages: vec![
                ChatMessage::user("q1"),
                ChatMessage::assistant("Action: Finish[a1]"),
                ChatMessage::user("q2\nmore"),
                ChatMessage::assistant("Action: Finish[a2]"),
                ChatMessage::user(""),
            ],
            stop: vec!["\nObservation:".into()],
            max_output_tokens: Some(10),
        };
        let archived = [
            Stored {
                at: at("2026-11-22T08:00:00Z"),
                message: Message::user("q1"),
            },
            Stored {
                at: at("2026-11-22T08:05:00Z"),
                message: Message::assistant("Action: Finish[a1]"),
            },
        ];
        let request = session_summary_request(session.clone(), &archived, 1, "q2\nmore");
        assert_eq!(request.system, session.system);
        assert_eq!(request.messages[..4], session.messages[..4]);
        assert_eq!(request.messages.len(), 5);
        assert!(request.stop.is_empty());
        let last = &request.messages[4].content;
        assert!(last.starts_with(SUMMARY_PROMPT.trim_end()), "{last}");
        assert!(
            last.ends_with(
                "they are the first 1 round of the conversation above, from its first message up to the one before the user message that begins with \"q2 more\". Summarise those rounds only. The rounds from that user message on stay in the conversation as they are: leave them, and this request, out of the summary. Summaries already in the system prompt are not part of the archive either.\n\nStart Time: 2026-11-22T08:00:00Z\nCutoff Time: 2026-11-22T08:05:00Z\n\nWrite the summary now."
            ),
            "{last}"
        );
    }
}
