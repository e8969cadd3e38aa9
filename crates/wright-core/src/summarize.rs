//! The SummaryCompressor (spec A5, C2, E2): a separate model call that turns archived
//! messages into the fixed A5 template, abandoned after the summary timeout. A reply that
//! leaves out sections of the template is asked for once more with the missing ones named;
//! what is still missing then is filled with `None`, so a stored summary always holds the
//! template.

mod session;
mod template;

use std::time::Duration;

pub use session::{SummaryRequestForm, session_summary_request};
pub use template::{SECTIONS, TITLE, missing_sections, section_body, with_every_section};

use chrono::{DateTime, SecondsFormat, Utc};
use wright_llm::{ChatMessage, ChatRequest, LlmClient};
use wright_protocol::{Role, Usage};

use crate::compaction::CHARS_PER_TOKEN;
use crate::context::{assistant_text, estimate_request};
use crate::history::Stored;
use wright_protocol::text::{last_chars, take_chars};

/// The summary instructions, carrying the A5 template verbatim.
pub const SUMMARY_PROMPT: &str = include_str!("../../../prompts/summary.md");

/// Spec E2: exactly what the user sees when the summary call times out.
pub const SUMMARY_TIMEOUT_MESSAGE: &str =
    "Summary generation timed out, keeping recent history only.";

/// What the user sees when the summary call failed other than by timing out: every round is
/// kept (`archived_rounds` 0), or, when history no longer fits the window, that many of the
/// oldest were archived without a summary.
pub fn summary_failed_message(cause: &str, archived_rounds: u32) -> String {
    if archived_rounds == 0 {
        return format!(
            "Summary generation failed ({cause}); all history is kept and the summary will be tried again before the next round."
        );
    }
    format!(
        "Summary generation failed ({cause}); history no longer fits the context window, so {} archived without a summary.",
        wright_protocol::text::count(
            u64::from(archived_rounds),
            "older round was",
            "older rounds were"
        )
    )
}

/// Why no summary was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryFailure {
    /// The call took longer than the summary timeout.
    #[error("{SUMMARY_TIMEOUT_MESSAGE}")]
    TimedOut,
    /// The call failed or returned nothing: history is kept whole (only the timeout drops it).
    #[error("{}", summary_failed_message(.0, 0))]
    Failed(String),
}

/// Renders messages as the E1 transcript the summary model reads.
pub fn transcript(messages: &[Stored]) -> String {
    let mut text = String::new();
    for stored in messages {
        let tag = match stored.message.role {
            Role::User => "[user]",
            Role::Assistant => "[assistant]",
            Role::Tool => "[tool]",
            Role::Summary => "[summary]",
        };
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(tag);
        text.push(' ');
        // A native reply's tool calls are read as the action lines text mode writes.
        text.push_str(&assistant_text(&stored.message));
    }
    text
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The times of the first and the last archived message.
fn span(archived: &[Stored]) -> (String, String) {
    let now = Utc::now();
    let start = archived.first().map_or(now, |m| m.at);
    let cutoff = archived.last().map_or(now, |m| m.at);
    (time(start), time(cutoff))
}

/// The summary request for `archived` (a non-empty run of whole rounds).
pub fn summary_request(archived: &[Stored]) -> ChatRequest {
    summary_request_within(archived, u64::MAX)
}

/// The summary request for `archived`, its transcript cut in the middle (a note says how much
/// went) so that the request's estimate stays within `max_tokens`: the summary model's window
/// bounds what it can read, and a request it refuses would lose the summary for good.
pub fn summary_request_within(archived: &[Stored], max_tokens: u64) -> ChatRequest {
    let (start, cutoff) = span(archived);
    let mut transcript = transcript(archived);
    let whole = summary_request_of(&start, &cutoff, &transcript);
    let over = estimate_request(&whole).saturating_sub(max_tokens);
    if over > 0 {
        let note = |left_out: usize| {
            format!(
                "\n\n[… {left_out} characters of the archived messages left out: they did not fit the summary model's window …]\n\n"
            )
        };
        let total = transcript.chars().count();
        // Room for the note too (its number is at most as long as the total's).
        let cut = usize::try_from(over.saturating_mul(CHARS_PER_TOKEN))
            .unwrap_or(usize::MAX)
            .saturating_add(note(total).chars().count());
        let keep = total.saturating_sub(cut);
        let head = take_chars(&transcript, keep / 2);
        let tail = last_chars(&transcript, keep - keep / 2);
        transcript = format!("{head}{}{tail}", note(total - keep));
    }
    summary_request_of(&start, &cutoff, &transcript)
}

fn summary_request_of(start: &str, cutoff: &str, transcript: &str) -> ChatRequest {
    let user = format!(
        "Start Time: {start}\nCutoff Time: {cutoff}\n\n<archived-messages>\n{transcript}\n</archived-messages>\n\nWrite the summary now."
    );
    ChatRequest {
        system: vec![SUMMARY_PROMPT.to_string()],
        messages: vec![ChatMessage::user(user)],
        stop: Vec::new(),
        max_output_tokens: None,
    }
}

/// What the summary call gave: the summary or why there is none, and the tokens it was billed.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryCall {
    /// The summary, or why none was made.
    pub summary: Result<String, SummaryFailure>,
    /// Tokens the provider reported for the call; `None` when it timed out, failed or reported
    /// none. An empty summary was still billed.
    pub usage: Option<Usage>,
}

/// The request that asks once more for a summary that left out `missing` sections.
pub fn ask_again(request: &ChatRequest, reply: &str, missing: &[&str]) -> ChatRequest {
    let mut again = request.clone();
    again.messages.push(ChatMessage::assistant(reply));
    again.messages.push(ChatMessage::user(format!(
        "Your summary leaves out these sections of the template: {}. Write the whole summary again: every section of the template, in its order, with `None` where the archived messages say nothing.",
        missing.join(", ")
    )));
    again
}

/// Asks `llm` for the summary of `archived`, in a request of at most `max_tokens` (see
/// [`summary_request_within`]) that asks for a reply of at most `reply_tokens` (the two fit
/// the window together), giving up after `timeout` (both calls together; when the second is
/// what runs out of time, the first reply is kept).
pub async fn summarize(
    llm: &LlmClient,
    archived: &[Stored],
    (max_tokens, reply_tokens): (u64, u32),
    timeout: Duration,
) -> SummaryCall {
    let request = summary_request_within(archived, max_tokens);
    summarize_with(llm, request, archived, reply_tokens, timeout).await
}

/// Asks `llm` for the summary of `archived` with `request` (the separate request of
/// [`summarize`] or the [`session_summary_request`]), for a reply of at most `reply_tokens`,
/// giving up after `timeout` as [`summarize`] does.
pub async fn summarize_with(
    llm: &LlmClient,
    mut request: ChatRequest,
    archived: &[Stored],
    reply_tokens: u32,
    timeout: Duration,
) -> SummaryCall {
    let deadline = tokio::time::Instant::now() + timeout;
    request.max_output_tokens = Some(reply_tokens);
    let mut ignore = |_| {};
    let failed = |failure| SummaryCall {
        summary: Err(failure),
        usage: None,
    };
    let completion =
        match tokio::time::timeout_at(deadline, llm.complete(&request, &mut ignore)).await {
            Err(_) => return failed(SummaryFailure::TimedOut),
            Ok(Err(e)) => return failed(SummaryFailure::Failed(e.to_string())),
            Ok(Ok(completion)) => completion,
        };
    let mut usage = completion.usage;
    let mut summary = completion.text.trim().to_string();
    if summary.is_empty() {
        return SummaryCall {
            summary: Err(SummaryFailure::Failed(
                "the model returned an empty summary".into(),
            )),
            usage,
        };
    }
    let missing = missing_sections(&summary);
    if !missing.is_empty() {
        let again = ask_again(&request, &summary, &missing);
        let call = tokio::time::timeout_at(deadline, llm.complete(&again, &mut ignore)).await;
        if let Ok(Ok(second)) = call {
            if let Some(more) = &second.usage {
                usage.get_or_insert_with(Usage::default).add(more);
            }
            let text = second.text.trim();
            if !text.is_empty() && missing_sections(text).len() <= missing.len() {
                summary = text.to_string();
            }
        }
    }
    let (start, cutoff) = span(archived);
    SummaryCall {
        summary: Ok(with_every_section(&summary, &start, &cutoff)),
        usage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wright_protocol::Message;

    #[test]
    fn the_prompt_carries_the_a5_template_verbatim() {
        let template = "## 📌 Archived Session Summary\n*(Contains context from [Start Time] to [Cutoff Time])*\n\n### 🎯 Objectives & Status\n* **Original Goal**: [用户最初想做什么]\n\n### 🏗️ Technical Context (Static)\n* **Stack**: [语言, 框架, 版本]\n* **Environment**: [OS, Shell,关键环境变量]\n\n### ✅ Completed Milestones (The \"Done\" Pile)\n* [✓] [已完成的任务1] - [简述结果]\n* [✓] [已完成的任务2] - [简述结果]\n\n### 🧠 Key Insights & Decisions (Persistent Memory)\n* **Decisions**: [关键技术选型或放弃的方案]\n* **Learnings**: [特殊配置、API 格式或坑]\n* **User Preferences**: [用户强调的习惯]\n\n### 📂 File System State (Snapshot)\n*(Modified files in this archive segment)*\n* `src/utils/auth.ts`: Implemented login logic.\n* `package.json`: Added `zod` dependency.";
        assert!(SUMMARY_PROMPT.contains(template));
    }

    #[test]
    fn a_transcript_too_long_for_the_window_is_cut_in_the_middle() {
        let at = Utc::now();
        let archived = [
            Stored {
                at,
                message: Message::user(format!("FIRST {}", "a".repeat(30_000))),
            },
            Stored {
                at,
                message: Message::assistant(format!("{} LAST", "b".repeat(30_000))),
            },
        ];
        let whole = summary_request(&archived);
        assert!(estimate_request(&whole) > 5_000);
        let cut = summary_request_within(&archived, 5_000);
        assert!(
            estimate_request(&cut) <= 5_000,
            "{}",
            estimate_request(&cut)
        );
        let user = &cut.messages[0].content;
        assert!(user.contains("[user] FIRST") && user.contains("LAST\n</archived-messages>"));
        assert!(user.contains("characters of the archived messages left out"));
        assert_eq!(summary_request_within(&archived, u64::MAX), whole);
    }

    #[test]
    fn the_request_names_real_times_and_carries_the_transcript() {
        let at = DateTime::parse_from_rfc3339("2026-11-22T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let later = DateTime::parse_from_rfc3339("2026-11-22T09:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let archived = [
            Stored {
                at,
                message: Message::user("add login"),
            },
            Stored {
                at: later,
                message: Message::assistant("Action: Finish[done]"),
            },
        ];
        let request = summary_request(&archived);
        let user = &request.messages[0].content;
        assert!(
            user.starts_with("Start Time: 2026-11-22T08:00:00Z\nCutoff Time: 2026-11-22T09:30:00Z")
        );
        assert!(user.contains("[user] add login\n\n[assistant] Action: Finish[done]"));
    }

    #[test]
    fn native_tool_calls_reach_the_summary_as_action_lines() {
        let mut reply = Message::assistant("Reading.");
        reply.metadata.tool_calls = vec![wright_protocol::NativeToolCall::new(
            "c1",
            "Read",
            r#"{"file_path": "a.rs"}"#,
        )];
        let archived = [Stored {
            at: Utc::now(),
            message: reply,
        }];
        assert_eq!(
            transcript(&archived),
            "[assistant] Reading.\nAction: Read[{\"file_path\": \"a.rs\"}]"
        );
    }
}
