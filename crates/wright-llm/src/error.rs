//! How a call fails: [`LlmError`] for the caller, and the provider's own words for it.

use std::time::Duration;

use serde_json::Value;

use crate::ProviderKind;

/// Longest piece of a raw error body quoted in an error message.
const MAX_QUOTED_BODY_CHARS: usize = 500;
/// Longest message from the provider kept in an error or retry reason (issue 12: a 200 MB
/// error body was printed whole); the rest is cut off.
pub(crate) const MAX_ERROR_MESSAGE_CHARS: usize = 4000;

/// Why a call to the model failed.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The provider answered with an HTTP error that retrying will not fix (400, 401, 403,
    /// 404, ...).
    #[error(
        "the {} API at {url} answered HTTP {status}: {}",
        provider.api_name(),
        with_hint(message, status_hint(*status))
    )]
    Http {
        /// Which wire format was spoken.
        provider: ProviderKind,
        /// The HTTP status.
        status: u16,
        /// The provider's own error message (or the start of the raw body).
        message: String,
        /// The endpoint that was called.
        url: String,
    },
    /// The provider reported an error inside an otherwise successful response, and retrying
    /// will not fix it.
    #[error(
        "the {} API at {url} reported an error ({kind}): {}",
        provider.api_name(),
        with_hint(message, "")
    )]
    Provider {
        /// Which wire format was spoken.
        provider: ProviderKind,
        /// The provider's error type, e.g. `invalid_request_error`.
        kind: String,
        /// The provider's own error message.
        message: String,
        /// The endpoint that was called.
        url: String,
    },
    /// The request does not fit the model's context window, as the server said (every common
    /// server's wording is recognised). Retrying the same request cannot help: make it
    /// smaller, or ask for a shorter reply, fitted to `window` when the server named it.
    #[error(
        "the {} API at {url} refused the request because it does not fit the model's context \
         window{}: {}",
        provider.api_name(),
        window.map(|window| format!(" of {window} tokens")).unwrap_or_default(),
        with_hint(message, &overflow_hint(*window, *completion_tokens))
    )]
    ContextOverflow {
        /// Which wire format was spoken.
        provider: ProviderKind,
        /// The endpoint that was called.
        url: String,
        /// The window in tokens, when the server's error names it.
        window: Option<u64>,
        /// The prompt's size in tokens as the server counted it, when its error says.
        prompt_tokens: Option<u64>,
        /// The reply length the request asked for (`max_tokens`), when the server's error says
        /// it counted it against the window (vLLM, OpenAI, Anthropic do).
        completion_tokens: Option<u64>,
        /// The server's own message.
        message: String,
    },
    /// Every attempt failed in a way that might have healed, and none did.
    #[error(
        "gave up on the {} API at {url} after {attempts} attempts; the last one failed \
         with: {last_reason}. Check that the server is up and reachable, then try again \
         (or raise `max_attempts`).",
        provider.api_name()
    )]
    RetriesExhausted {
        /// Which wire format was spoken.
        provider: ProviderKind,
        /// The endpoint that was called.
        url: String,
        /// How many requests were sent.
        attempts: u32,
        /// Why the last one failed, e.g. `HTTP 503: overloaded`.
        last_reason: String,
    },
    /// The configuration cannot work (a bad base URL, zero attempts, an API key that is not
    /// a valid header value, ...).
    #[error("invalid `{setting}` setting: {problem}")]
    InvalidConfig {
        /// The configuration key at fault.
        setting: &'static str,
        /// What is wrong with it and what is expected.
        problem: String,
    },
    /// The provider answered, but not in a form wright understands.
    #[error(
        "could not understand the reply of the {} API at {url}: {detail}. Check that \
         `provider` matches the server (OpenAI-compatible or Anthropic) and that `base_url` \
         points at its API.",
        provider.api_name()
    )]
    InvalidResponse {
        /// Which wire format was expected.
        provider: ProviderKind,
        /// The endpoint that was called.
        url: String,
        /// What could not be read.
        detail: String,
    },
    /// The reply grew past the most wright accepts for one call (a server flooding output).
    /// Not retried: the same request would likely flood again.
    #[error(
        "the reply of the {} API at {url} grew past {limit} bytes, far more than the \
         `max_output_tokens` asked for; wright stopped reading it. The server may be \
         misbehaving; check it, or raise `max_output_tokens` if the model really writes \
         this much.",
        provider.api_name()
    )]
    ReplyTooLarge {
        /// Which wire format was spoken.
        provider: ProviderKind,
        /// The endpoint that was called.
        url: String,
        /// The cap in bytes.
        limit: usize,
    },
    /// The request could not be encoded as JSON.
    #[error("could not encode the request to the model: {0}; this is a bug in wright")]
    Encode(#[source] serde_json::Error),
}

impl LlmError {
    /// Whether the same call may succeed if made again later (the provider kept failing in
    /// ways that usually heal); `false` for errors that need a change first.
    pub fn is_retryable(&self) -> bool {
        matches!(self, LlmError::RetriesExhausted { .. })
    }

    /// The HTTP status of a refused request, if that is what happened.
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// What to do about a refused request, by status.
fn status_hint(status: u16) -> &'static str {
    match status {
        401 => "Check the API key (`api_key`) for this provider.",
        402 => "Check the billing or credit of the provider account.",
        403 => {
            "The API key has no access to this model or endpoint; check the key and the account."
        }
        404 => "Check `base_url` and the model name (`model`).",
        400 | 413 | 422 => {
            "The provider rejected the request; if the prompt is too long for the model, \
             compact the conversation or start a new session."
        }
        _ => "",
    }
}

/// What to do about a request too long for the model's window. When the server counted the
/// reply's requested length against the window, `max_output_tokens` is named too: a window
/// too small for it refuses every request, however short the prompt.
fn overflow_hint(window: Option<u64>, completion_tokens: Option<u64>) -> String {
    match (window, completion_tokens) {
        (Some(window), Some(completion)) => format!(
            "The reply alone asked for {completion} of those tokens: set `max_output_tokens` \
             well below {window} and `context_window` to {window} or less (in \
             .wright/config.toml; the window also as WRIGHT_CONTEXT_WINDOW) so wright fits its \
             requests to it, or start a new session."
        ),
        (None, Some(completion)) => format!(
            "The reply alone asked for {completion} tokens: lower `max_output_tokens` and set \
             `context_window` (in .wright/config.toml; the window also as \
             WRIGHT_CONTEXT_WINDOW) to the model's context window so wright fits its requests \
             to it, or start a new session."
        ),
        (Some(window), None) => format!(
            "Set `context_window` to {window} or less (in .wright/config.toml or \
             WRIGHT_CONTEXT_WINDOW) so wright fits its requests to it, or start a new session."
        ),
        (None, None) => {
            "Set `context_window` (in .wright/config.toml or WRIGHT_CONTEXT_WINDOW) to the \
                 model's context window so wright fits its requests to it, or start a new \
                 session."
                .to_string()
        }
    }
}

/// `message`, ended as a sentence, followed by `hint`.
fn with_hint(message: &str, hint: &str) -> String {
    let message = message.trim();
    let mut text = message.to_string();
    if !message.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    if !hint.is_empty() {
        text.push(' ');
        text.push_str(hint);
    }
    text
}

/// How one attempt failed, before the retry policy has looked at it.
#[derive(Debug)]
pub(crate) enum AttemptError {
    /// May heal: re-send after a delay (the server's, if it asked for one).
    Retryable {
        reason: String,
        retry_after: Option<Duration>,
        /// The response began but ended before any content: the server may have refused the
        /// request in a way only a plain (non-streamed) request shows.
        cut_before_content: bool,
    },
    /// Will not heal: give up now.
    Fatal(LlmError),
}

impl AttemptError {
    /// A failure that may heal, with no server-requested delay.
    pub(crate) fn retryable(reason: impl Into<String>) -> Self {
        AttemptError::Retryable {
            reason: reason.into(),
            retry_after: None,
            cut_before_content: false,
        }
    }
}

/// How decoding a response went wrong, before the client adds the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StreamFault {
    /// The stream broke or reported a passing trouble (overload, server error): retry.
    Transient(String),
    /// The stream ended before any content arrived: retry, but ask once without streaming
    /// first, since some servers (llama.cpp) cut a stream they refuse instead of saying why.
    CutBeforeContent(String),
    /// The provider reported an error that will not heal.
    Provider { kind: String, message: String },
    /// The response is not in the expected format.
    Invalid(String),
    /// The reply (or the body carrying it) grew past this many bytes.
    TooLarge { limit: usize },
}

/// The provider's own message from an error body: `error.message`, `error` (a string),
/// `message` or `detail`, as the various OpenAI-compatible servers and Anthropic send it;
/// otherwise the start of the raw body, or `fallback` if the body is empty.
pub(crate) fn provider_error_message(body: &str, fallback: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return fallback.to_string();
    }
    if let Some(message) = serde_json::from_str::<Value>(body)
        .ok()
        .as_ref()
        .and_then(message_in_error_json)
    {
        return message;
    }
    quote(body)
}

/// The message in a JSON error body, if it has one where providers put it.
pub(crate) fn message_in_error_json(json: &Value) -> Option<String> {
    let candidates = [
        json.pointer("/error/message"),
        json.get("error"),
        json.get("message"),
        json.get("detail"),
    ];
    candidates
        .into_iter()
        .flatten()
        .find_map(Value::as_str)
        .map(str::trim)
        .filter(|message| !message.is_empty())
        .map(str::to_string)
}

/// The innermost cause of an error, which is the part that says what actually went wrong
/// (`Connection refused (os error 111)` rather than `error sending request for url ...`).
pub(crate) fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    innermost.to_string()
}

/// `text` cut to [`MAX_QUOTED_BODY_CHARS`] characters.
fn quote(text: &str) -> String {
    wright_protocol::text::clip(text, MAX_QUOTED_BODY_CHARS).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn openai_error_bodies_give_their_message() {
        let body = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":null}}"#;
        assert_eq!(
            provider_error_message(body, "Unauthorized"),
            "Incorrect API key provided"
        );
    }

    #[test]
    fn anthropic_error_bodies_give_their_message() {
        let body =
            r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}"#;
        assert_eq!(provider_error_message(body, "Not Found"), "model: claude-x");
    }

    #[test]
    fn plain_string_errors_and_details_are_understood() {
        assert_eq!(
            provider_error_message(r#"{"error":"no such model"}"#, ""),
            "no such model"
        );
        assert_eq!(
            provider_error_message(r#"{"detail":"Not authenticated"}"#, ""),
            "Not authenticated"
        );
    }

    #[test]
    fn a_body_that_is_not_json_is_quoted_and_cut() {
        let body = "x".repeat(MAX_QUOTED_BODY_CHARS + 10);
        let message = provider_error_message(&body, "");
        assert_eq!(message, format!("{}…", "x".repeat(MAX_QUOTED_BODY_CHARS)));
        assert_eq!(
            provider_error_message("<html>Bad gateway</html>", ""),
            "<html>Bad gateway</html>"
        );
    }

    #[test]
    fn cutting_a_body_never_splits_a_character() {
        let body = "é".repeat(MAX_QUOTED_BODY_CHARS + 1);
        assert_eq!(
            provider_error_message(&body, ""),
            format!("{}…", "é".repeat(MAX_QUOTED_BODY_CHARS))
        );
    }

    #[test]
    fn an_empty_body_gives_the_fallback() {
        assert_eq!(provider_error_message("  ", "Bad Gateway"), "Bad Gateway");
    }

    #[test]
    fn http_errors_tell_the_user_what_to_check() {
        let error = LlmError::Http {
            provider: ProviderKind::OpenAi,
            status: 401,
            message: "Incorrect API key provided".into(),
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
        };
        assert_eq!(
            error.to_string(),
            "the OpenAI-compatible API at http://127.0.0.1:1/v1/chat/completions answered HTTP 401: \
             Incorrect API key provided. Check the API key (`api_key`) for this provider."
        );
    }

    #[test]
    fn an_overflow_names_the_window_and_the_setting() {
        let error = LlmError::ContextOverflow {
            provider: ProviderKind::OpenAi,
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            window: Some(4096),
            prompt_tokens: Some(5120),
            completion_tokens: None,
            message: "request (5120 tokens) exceeds the available context size (4096 tokens)"
                .into(),
        };
        assert_eq!(
            error.to_string(),
            "the OpenAI-compatible API at http://127.0.0.1:1/v1/chat/completions refused the \
             request because it does not fit the model's context window of 4096 tokens: request \
             (5120 tokens) exceeds the available context size (4096 tokens). Set \
             `context_window` to 4096 or less (in .wright/config.toml or WRIGHT_CONTEXT_WINDOW) \
             so wright fits its requests to it, or start a new session."
        );
        assert!(!error.is_retryable());
    }

    #[test]
    fn an_overflow_without_a_window_asks_for_the_setting() {
        let error = LlmError::ContextOverflow {
            provider: ProviderKind::OpenAi,
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            window: None,
            prompt_tokens: None,
            completion_tokens: None,
            message: "the input length exceeds the context length".into(),
        };
        assert_eq!(
            error.to_string(),
            "the OpenAI-compatible API at http://127.0.0.1:1/v1/chat/completions refused the \
             request because it does not fit the model's context window: the input length \
             exceeds the context length. Set `context_window` (in .wright/config.toml or \
             WRIGHT_CONTEXT_WINDOW) to the model's context window so wright fits its requests \
             to it, or start a new session."
        );
    }

    #[test]
    fn an_overflow_counting_the_reply_names_max_output_tokens_too() {
        let error = LlmError::ContextOverflow {
            provider: ProviderKind::OpenAi,
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            window: Some(4096),
            prompt_tokens: Some(808),
            completion_tokens: Some(8192),
            message: "This model's maximum context length is 4096 tokens. However, you requested \
                      9000 tokens (808 in the messages, 8192 in the completion)."
                .into(),
        };
        assert_eq!(
            error.to_string(),
            "the OpenAI-compatible API at http://127.0.0.1:1/v1/chat/completions refused the \
             request because it does not fit the model's context window of 4096 tokens: This \
             model's maximum context length is 4096 tokens. However, you requested 9000 tokens \
             (808 in the messages, 8192 in the completion). The reply alone asked for 8192 of \
             those tokens: set `max_output_tokens` well below 4096 and `context_window` to 4096 \
             or less (in .wright/config.toml; the window also as WRIGHT_CONTEXT_WINDOW) so \
             wright fits its requests to it, or start a new session."
        );
    }

    #[test]
    fn exhausted_retries_name_the_attempts_and_the_last_reason() {
        let error = LlmError::RetriesExhausted {
            provider: ProviderKind::Anthropic,
            url: "http://127.0.0.1:1/v1/messages".into(),
            attempts: 3,
            last_reason: "HTTP 503: overloaded".into(),
        };
        assert_eq!(
            error.to_string(),
            "gave up on the Anthropic API at http://127.0.0.1:1/v1/messages after 3 attempts; \
             the last one failed with: HTTP 503: overloaded. Check that the server is up and \
             reachable, then try again (or raise `max_attempts`)."
        );
        assert!(error.is_retryable());
    }
}
