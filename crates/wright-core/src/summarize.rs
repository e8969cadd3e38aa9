//! The SummaryCompressor (spec A5, C2, E2): one separate model call that turns archived
//! messages into the fixed A5 template, abandoned after the summary timeout.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use wright_llm::{ChatMessage, ChatRequest, LlmClient};
use wright_protocol::{Role, Usage};

use crate::history::Stored;

/// The summary instructions, carrying the A5 template verbatim.
pub const SUMMARY_PROMPT: &str = include_str!("../../../prompts/summary.md");

/// Spec E2: exactly what the user sees when the summary call times out.
pub const SUMMARY_TIMEOUT_MESSAGE: &str =
    "Summary generation timed out, keeping recent history only.";

/// What the user sees when the summary call failed other than by timing out.
pub fn summary_failed_message(cause: &str) -> String {
    format!(
        "Summary generation failed ({cause}); all history is kept and the summary will be tried again before the next round."
    )
}

/// Why no summary was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryFailure {
    /// The call took longer than the summary timeout.
    #[error("{SUMMARY_TIMEOUT_MESSAGE}")]
    TimedOut,
    /// The call failed or returned nothing: history is kept whole (only the timeout drops it).
    #[error("{}", summary_failed_message(.0))]
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
        text.push_str(&stored.message.content);
    }
    text
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The summary request for `archived` (a non-empty run of whole rounds).
pub fn summary_request(archived: &[Stored]) -> ChatRequest {
    let now = Utc::now();
    let start = archived.first().map_or(now, |m| m.at);
    let cutoff = archived.last().map_or(now, |m| m.at);
    let user = format!(
        "Start Time: {}\nCutoff Time: {}\n\n<archived-messages>\n{}\n</archived-messages>\n\nWrite the summary now.",
        time(start),
        time(cutoff),
        transcript(archived)
    );
    ChatRequest {
        system: vec![SUMMARY_PROMPT.to_string()],
        messages: vec![ChatMessage::user(user)],
        stop: Vec::new(),
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

/// Asks `llm` for the summary of `archived`, giving up after `timeout`.
pub async fn summarize(llm: &LlmClient, archived: &[Stored], timeout: Duration) -> SummaryCall {
    let request = summary_request(archived);
    let mut ignore = |_| {};
    let call = llm.complete(&request, &mut ignore);
    let failed = |failure| SummaryCall {
        summary: Err(failure),
        usage: None,
    };
    let completion = match tokio::time::timeout(timeout, call).await {
        Err(_) => return failed(SummaryFailure::TimedOut),
        Ok(Err(e)) => return failed(SummaryFailure::Failed(e.to_string())),
        Ok(Ok(completion)) => completion,
    };
    let summary = completion.text.trim();
    SummaryCall {
        summary: match summary.is_empty() {
            true => Err(SummaryFailure::Failed(
                "the model returned an empty summary".into(),
            )),
            false => Ok(summary.to_string()),
        },
        usage: completion.usage,
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
}
