//! Recognising a server's "the request does not fit the context window" error, in the words
//! of each common server, and reading out of it the window size and how the request's tokens
//! were counted (the prompt, the reply asked for) when the server gives them.
//!
//! Such an error never heals by retrying the same request, so the client reports it as
//! [`LlmError::ContextOverflow`](crate::LlmError::ContextOverflow) and the caller can make
//! the request smaller.

use serde_json::Value;

use crate::error::message_in_error_json;

/// Error codes and types that mean the request does not fit: OpenAI's `code` and
/// llama.cpp's `type`.
const OVERFLOW_CODES: [&str; 2] = ["context_length_exceeded", "exceed_context_size_error"];

/// Phrases (lowercase) of overflow messages, one or more per server:
/// - OpenAI and vLLM: `This model's maximum context length is 8192 tokens. However, ...`;
/// - Anthropic: `prompt is too long: 210000 tokens > 200000 maximum`, and `input length and
///   `max_tokens` exceed context limit: 199759 + 8192 > 200000`;
/// - llama.cpp: `request (4476 tokens) exceeds the available context size (4096 tokens)`, or
///   without the numbers `the request exceeds the available context size, try increasing it`;
/// - llama-cpp-python: `Requested tokens (5000) exceed context window of 4096`;
/// - Ollama: `the input length exceeds the context length`;
/// - LM Studio: `Input length 6491 exceeds context length 1500`.
const OVERFLOW_PHRASES: [&str; 8] = [
    "maximum context length",
    "prompt is too long",
    "exceed context limit",
    "exceeds the available context size",
    "exceed context window",
    "exceeds the context length",
    "exceeds context length",
    "context_length_exceeded",
];

/// Phrases (lowercase) directly followed by the window size, after at most a few
/// non-digit characters (`is `, ` (`, ` of `).
const WINDOW_BEFORE: [&str; 5] = [
    "maximum context length is",
    "available context size (",
    "context window of",
    "exceeds context length",
    "configured limit of",
];

/// Phrases (lowercase) whose window comes after the last `>` of the message (Anthropic:
/// `210000 tokens > 200000 maximum`).
const WINDOW_AFTER_GREATER_THAN: [&str; 2] = ["prompt is too long", "exceed context limit"];

/// Phrases (lowercase) directly followed by the prompt's size in tokens: Anthropic's two
/// messages, OpenAI's older one (`your messages resulted in 130512 tokens`), llama.cpp's and
/// LM Studio's.
const PROMPT_AFTER: [&str; 5] = [
    "exceed context limit:",
    "prompt is too long:",
    "messages resulted in",
    "request (",
    "input length",
];

/// Phrases (lowercase) directly preceded by the prompt's size: vLLM and OpenAI's
/// `you requested 9000 tokens (808 in the messages, 8192 in the completion)`.
const PROMPT_BEFORE: &str = " in the messages";

/// Phrases (lowercase) directly preceded by the reply's requested length (vLLM, OpenAI).
const COMPLETION_BEFORE: &str = " in the completion";

/// Anthropic's phrase followed by `prompt + max_tokens > window`.
const ANTHROPIC_SUM: &str = "exceed context limit:";

/// How far after a [`WINDOW_BEFORE`] phrase the number may start.
const MAX_GAP_BEFORE_NUMBER: usize = 4;

/// Windows outside this range are not believed (a server's message is untrusted input).
pub(crate) const PLAUSIBLE_WINDOW: std::ops::RangeInclusive<u64> = 256..=100_000_000;

/// A context-window error from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Overflow {
    /// The window in tokens, when the server said it.
    pub(crate) window: Option<u64>,
    /// The prompt's size in tokens as the server counted it, when it said.
    pub(crate) prompt_tokens: Option<u64>,
    /// The reply length the request asked for, when the server counted it against the window
    /// and said so.
    pub(crate) completion_tokens: Option<u64>,
    /// The server's own message.
    pub(crate) message: String,
}

/// The overflow an HTTP error body reports, JSON (`{"error": {...}}`, `{"error": "..."}`) or
/// plain text; `None` if it reports something else.
pub(crate) fn in_body(body: &str) -> Option<Overflow> {
    let body = body.trim();
    match serde_json::from_str::<Value>(body) {
        Ok(json) => match json.get("error") {
            Some(error @ Value::Object(_)) => in_error_object(error),
            Some(Value::String(message)) => in_message(message),
            _ => in_error_object(&json),
        },
        Err(_) => in_message(body),
    }
}

/// The overflow an error object reports through its `code`, `type` or `message`; llama.cpp
/// also gives the window as `n_ctx`.
pub(crate) fn in_error_object(error: &Value) -> Option<Overflow> {
    let message = message_in_error_json(&serde_json::json!({ "error": error }))
        .or_else(|| message_in_error_json(error))
        .unwrap_or_default();
    let coded = ["code", "type"].iter().any(|key| {
        error
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|value| OVERFLOW_CODES.contains(&value))
    });
    if !coded && in_message(&message).is_none() {
        return None;
    }
    let stated = |key| {
        error
            .get(key)
            .and_then(Value::as_u64)
            .filter(|tokens| PLAUSIBLE_WINDOW.contains(tokens))
    };
    let lower = message.to_lowercase();
    Some(Overflow {
        window: stated("n_ctx").or_else(|| window_in(&lower)),
        prompt_tokens: stated("n_prompt_tokens").or_else(|| prompt_in(&lower)),
        completion_tokens: completion_in(&lower),
        message,
    })
}

/// The overflow a plain message reports, if it is one.
pub(crate) fn in_message(message: &str) -> Option<Overflow> {
    let lower = message.to_lowercase();
    if !OVERFLOW_PHRASES.iter().any(|phrase| lower.contains(phrase)) {
        return None;
    }
    Some(Overflow {
        window: window_in(&lower),
        prompt_tokens: prompt_in(&lower),
        completion_tokens: completion_in(&lower),
        message: message.trim().to_string(),
    })
}

/// The prompt's size an overflow message (lowercased) states, if it states one.
fn prompt_in(lower: &str) -> Option<u64> {
    number_before(lower, PROMPT_BEFORE).or_else(|| {
        PROMPT_AFTER.iter().find_map(|phrase| {
            let at = lower.find(phrase)? + phrase.len();
            number_at(&lower[at..], MAX_GAP_BEFORE_NUMBER)
        })
    })
}

/// The reply length an overflow message (lowercased) says the request asked for: vLLM's
/// `8192 in the completion`, or the second term of Anthropic's `199759 + 8192 > 200000`.
fn completion_in(lower: &str) -> Option<u64> {
    number_before(lower, COMPLETION_BEFORE).or_else(|| {
        let sum = &lower[lower.find(ANTHROPIC_SUM)? + ANTHROPIC_SUM.len()..];
        let plus = sum.find('+')?;
        number_at(&sum[plus + 1..], MAX_GAP_BEFORE_NUMBER)
    })
}

/// The whole number that ends right where `phrase` starts in `text`.
fn number_before(text: &str, phrase: &str) -> Option<u64> {
    let head = &text[..text.find(phrase)?];
    let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    head[head.len() - digits..].parse().ok()
}

/// The window size an overflow message (lowercased) states, if it states one.
fn window_in(lower: &str) -> Option<u64> {
    let before = WINDOW_BEFORE.iter().find_map(|phrase| {
        let at = lower.find(phrase)? + phrase.len();
        number_at(&lower[at..], MAX_GAP_BEFORE_NUMBER)
    });
    let after_greater_than = || {
        WINDOW_AFTER_GREATER_THAN
            .iter()
            .any(|phrase| lower.contains(phrase))
            .then(|| lower.rfind('>'))
            .flatten()
            .and_then(|at| number_at(&lower[at + 1..], MAX_GAP_BEFORE_NUMBER))
    };
    before
        .or_else(after_greater_than)
        .filter(|window| PLAUSIBLE_WINDOW.contains(window))
}

/// The whole number starting within `max_gap` characters of the start of `text`.
fn number_at(text: &str, max_gap: usize) -> Option<u64> {
    let start = text
        .char_indices()
        .take(max_gap + 1)
        .find(|(_, c)| c.is_ascii_digit())
        .map(|(at, _)| at)?;
    let digits: String = text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn window(body: &str) -> Option<Option<u64>> {
        in_body(body).map(|overflow| overflow.window)
    }

    #[test]
    fn openai_context_length_exceeded_gives_the_window() {
        let body = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(window(body), Some(Some(128_000)));
    }

    #[test]
    fn openai_code_alone_is_enough() {
        let body = r#"{"error":{"message":"Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        assert_eq!(window(body), Some(Some(272_000)));
    }

    #[test]
    fn anthropic_prompt_is_too_long_gives_the_window() {
        let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210345 tokens > 200000 maximum"}}"#;
        assert_eq!(window(body), Some(Some(200_000)));
    }

    #[test]
    fn anthropic_input_and_max_tokens_over_the_limit_gives_the_window() {
        let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}"#;
        assert_eq!(window(body), Some(Some(200_000)));
    }

    #[test]
    fn llama_cpp_errors_give_the_window_from_n_ctx_or_the_message() {
        let new = r#"{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}"#;
        assert_eq!(window(new), Some(Some(4096)));
        let without_n_ctx = r#"{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"invalid_request_error"}}"#;
        assert_eq!(window(without_n_ctx), Some(Some(4096)));
        let old = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":2048}}"#;
        assert_eq!(window(old), Some(Some(2048)));
        let old_without_numbers = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"invalid_request_error"}}"#;
        assert_eq!(window(old_without_numbers), Some(None));
    }

    #[test]
    fn llama_cpp_python_exceed_context_window_gives_the_window() {
        let body = r#"{"error":{"message":"Requested tokens (5000) exceed context window of 4096","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(window(body), Some(Some(4096)));
    }

    #[test]
    fn vllm_maximum_context_length_gives_the_window() {
        let body = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 9000 tokens (808 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
        assert_eq!(window(body), Some(Some(4096)));
    }

    #[test]
    fn vllm_gives_the_prompt_and_the_completion_it_counted() {
        let body = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 9000 tokens (808 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
        let overflow = in_body(body).unwrap();
        assert_eq!(
            (
                overflow.window,
                overflow.prompt_tokens,
                overflow.completion_tokens
            ),
            (Some(4096), Some(808), Some(8192))
        );
    }

    #[test]
    fn anthropic_gives_the_prompt_and_the_max_tokens_it_counted() {
        let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}"#;
        let overflow = in_body(body).unwrap();
        assert_eq!(
            (overflow.prompt_tokens, overflow.completion_tokens),
            (Some(199_759), Some(8192))
        );
        let too_long = in_body(
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210345 tokens > 200000 maximum"}}"#,
        )
        .unwrap();
        assert_eq!(
            (too_long.prompt_tokens, too_long.completion_tokens),
            (Some(210_345), None)
        );
    }

    #[test]
    fn llama_cpp_gives_the_prompt_from_n_prompt_tokens_or_the_message() {
        let stated = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":2048}}"#;
        assert_eq!(in_body(stated).unwrap().prompt_tokens, Some(5000));
        let in_message = r#"{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"invalid_request_error"}}"#;
        let overflow = in_body(in_message).unwrap();
        assert_eq!(
            (overflow.prompt_tokens, overflow.completion_tokens),
            (Some(4476), None)
        );
    }

    #[test]
    fn ollama_input_length_error_is_an_overflow_without_a_window() {
        let body = r#"{"error":"the input length exceeds the context length"}"#;
        assert_eq!(window(body), Some(None));
    }

    #[test]
    fn lm_studio_input_length_error_gives_the_window() {
        assert_eq!(
            window("Error: Input length 6491 exceeds context length 1500"),
            Some(Some(1500))
        );
    }

    #[test]
    fn other_errors_are_not_overflows() {
        for body in [
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            r#"{"error":"model 'x' not found"}"#,
            "<html>Bad gateway</html>",
            "",
        ] {
            assert_eq!(window(body), None, "{body}");
        }
    }

    #[test]
    fn implausible_windows_are_not_believed() {
        let body = r#"{"error":{"message":"This model's maximum context length is 3 tokens.","code":"context_length_exceeded","n_ctx":99999999999}}"#;
        assert_eq!(window(body), Some(None));
    }

    #[test]
    fn the_message_is_kept_for_the_user() {
        let overflow = in_body(r#"{"error":"the input length exceeds the context length"}"#);
        assert_eq!(
            overflow,
            Some(Overflow {
                window: None,
                prompt_tokens: None,
                completion_tokens: None,
                message: "the input length exceeds the context length".into(),
            })
        );
    }
}
