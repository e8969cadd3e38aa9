//! The message of a commit of the agent's changes: a subject written by a separate model call
//! (its own prompt, `prompts/commit.md`), or, when that call fails, one made from the user's
//! request; the `[git]` prefix and suffix around it; a body listing the files.

use std::time::Duration;

use wright_llm::{ChatMessage, ChatRequest, LlmClient};
use wright_protocol::Usage;
use wright_protocol::text::{first_line, take_chars};

/// The instructions of the commit-message call.
pub const COMMIT_PROMPT: &str = include_str!("../../../../prompts/commit.md");

/// Git's convention: a subject of at most 72 characters (before the prefix and suffix).
pub const MAX_SUBJECT_CHARS: usize = 72;

/// Characters of the staged diff the model reads; the rest is left out with a note.
const MAX_DIFF_CHARS: usize = 12_000;

/// Output tokens the subject may take (room for models that think aloud first).
const MAX_REPLY_TOKENS: u32 = 1024;

/// How long the commit-message call may take before the plain message is used.
pub const COMMIT_MESSAGE_TIMEOUT: Duration = Duration::from_secs(60);

/// The request that asks for the subject of a commit holding `files`, made for `requests`.
pub fn message_request(requests: &[String], files: &[String], diff: &str) -> ChatRequest {
    let mut user = String::from("The user's request:\n");
    for request in requests {
        user.push_str(&format!("- {}\n", first_line(request)));
    }
    user.push_str("\nFiles in the commit:\n");
    for file in files {
        user.push_str(&format!("- {file}\n"));
    }
    let shown = take_chars(diff, MAX_DIFF_CHARS);
    user.push_str("\nThe staged diff:\n");
    user.push_str(shown);
    if shown.len() < diff.len() {
        user.push_str("\n[… the rest of the diff is left out …]");
    }
    user.push_str("\n\nWrite the subject line now.");
    ChatRequest {
        system: vec![COMMIT_PROMPT.to_string()],
        messages: vec![ChatMessage::user(user)],
        stop: Vec::new(),
        max_output_tokens: Some(MAX_REPLY_TOKENS),
    }
}

/// The subject in a model's reply: its first non-blank line, without the quotes, Markdown or
/// `Subject:` label models add despite being told, and without a trailing period, cut to
/// [`MAX_SUBJECT_CHARS`]; `None` when nothing is left.
pub fn subject_of(reply: &str) -> Option<String> {
    let mut line = first_line(reply);
    for label in ["subject:", "commit message:", "commit:"] {
        if line.len() >= label.len() && line[..label.len()].eq_ignore_ascii_case(label) {
            line = line[label.len()..].trim();
        }
    }
    let line = line
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '*' | '#') || c.is_whitespace())
        .trim_end_matches('.')
        .trim();
    let subject = take_chars(line, MAX_SUBJECT_CHARS).trim_end();
    (!subject.is_empty()).then(|| subject.to_string())
}

/// The subject when the model gives none: `wright: ` and the first line of the first request.
pub fn fallback_subject(requests: &[String]) -> String {
    let request = requests.first().map_or("", |r| first_line(r));
    let request = if request.is_empty() {
        "changes"
    } else {
        request
    };
    let subject = format!("wright: {request}");
    take_chars(&subject, MAX_SUBJECT_CHARS)
        .trim_end()
        .to_string()
}

/// The whole message: `prefix`, the subject and `suffix` on the first line (each affix joined
/// with a space unless it ends, or starts, with whitespace itself), a blank line, and the files.
pub fn full_message(subject: &str, prefix: &str, suffix: &str, files: &[String]) -> String {
    let mut line = String::new();
    if !prefix.is_empty() {
        line.push_str(prefix);
        if !prefix.ends_with(char::is_whitespace) {
            line.push(' ');
        }
    }
    line.push_str(subject);
    if !suffix.is_empty() {
        if !suffix.starts_with(char::is_whitespace) {
            line.push(' ');
        }
        line.push_str(suffix);
    }
    let mut message = line.trim().to_string();
    message.push_str("\n\nFiles changed by wright:\n");
    for file in files {
        message.push_str(&format!("- {file}\n"));
    }
    message
}

/// What the commit-message call gave: the subject or why there is none, and the tokens billed.
#[derive(Debug, Clone, PartialEq)]
pub struct SubjectCall {
    /// The subject, or why the call gave none.
    pub subject: Result<String, String>,
    /// Tokens the provider reported; `None` when the call failed or reported none.
    pub usage: Option<Usage>,
}

/// Asks `llm` for the subject, giving up after `timeout`.
pub async fn write_subject(
    llm: &LlmClient,
    request: &ChatRequest,
    timeout: Duration,
) -> SubjectCall {
    let mut ignore = |_| {};
    match tokio::time::timeout(timeout, llm.complete(request, &mut ignore)).await {
        Err(_) => SubjectCall {
            subject: Err(format!("no reply within {} s", timeout.as_secs())),
            usage: None,
        },
        Ok(Err(e)) => SubjectCall {
            subject: Err(e.to_string()),
            usage: None,
        },
        Ok(Ok(completion)) => SubjectCall {
            subject: subject_of(&completion.text)
                .ok_or_else(|| "the model returned no subject".to_string()),
            usage: completion.usage,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_subject_loses_labels_quotes_and_the_final_period() {
        assert_eq!(
            subject_of("\n  Subject: \"Add a.txt with a greeting.\"\nmore"),
            Some("Add a.txt with a greeting".into())
        );
        assert_eq!(
            subject_of("`Fix the parser`"),
            Some("Fix the parser".into())
        );
        assert_eq!(subject_of("  \n "), None);
    }

    #[test]
    fn a_subject_is_cut_to_72_characters() {
        let long = "Add ".to_string() + &"x".repeat(100);
        assert_eq!(
            subject_of(&long).unwrap().chars().count(),
            MAX_SUBJECT_CHARS
        );
    }

    #[test]
    fn the_fallback_names_the_first_line_of_the_request() {
        assert_eq!(
            fallback_subject(&["write a.txt\nwith hello".into()]),
            "wright: write a.txt"
        );
        assert_eq!(fallback_subject(&[]), "wright: changes");
    }

    #[test]
    fn the_message_puts_the_affixes_around_the_subject_and_lists_the_files() {
        assert_eq!(
            full_message(
                "Add a.txt",
                "[bot]",
                "(auto)",
                &["a.txt".into(), "d/b.rs".into()]
            ),
            "[bot] Add a.txt (auto)\n\nFiles changed by wright:\n- a.txt\n- d/b.rs\n"
        );
        assert_eq!(
            full_message("Add a.txt", "", "", &["a.txt".into()]),
            "Add a.txt\n\nFiles changed by wright:\n- a.txt\n"
        );
    }

    #[test]
    fn the_request_carries_the_requests_files_and_a_capped_diff() {
        let diff = "d".repeat(MAX_DIFF_CHARS + 10);
        let request = message_request(&["write a.txt".into()], &["a.txt".into()], &diff);
        assert_eq!(request.system, vec![COMMIT_PROMPT.to_string()]);
        let user = &request.messages[0].content;
        assert!(user.contains("- write a.txt\n"), "{user}");
        assert!(user.contains("Files in the commit:\n- a.txt\n"), "{user}");
        assert!(user.contains("the rest of the diff is left out"), "{user}");
    }
}
