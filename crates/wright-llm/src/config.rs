//! Which provider to talk to and how: [`LlmConfig`], [`ProviderKind`] and their defaults.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::LlmError;

/// Base URL of the OpenAI API (DESIGN §6); any OpenAI-compatible server works in its place.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Base URL of the Anthropic API (DESIGN §6), without the `/v1` that the endpoint adds.
pub const DEFAULT_ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// Output tokens asked for on every request (sent as `max_tokens`).
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 8192;
/// Attempts per request, the first one included, before a failing provider is given up on.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 5;
/// Delay before the first retry; each further retry doubles it (0.5, 1, 2, 4 s ...).
pub const DEFAULT_RETRY_BASE_DELAY: Duration = Duration::from_millis(500);
/// How long a response may send nothing at all before the attempt counts as stalled.
pub const DEFAULT_STREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// How long one request may take, from sending it to the reply's last byte, however steadily
/// the server streams: a server that never ends its reply cannot hold a call forever.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);
/// Bytes of reply (text and reasoning) allowed per output token asked for: far above what
/// any tokenizer produces, so only a server flooding output reaches it.
pub const MAX_REPLY_BYTES_PER_TOKEN: usize = 8;
/// The least reply allowed, whatever `max_output_tokens` says.
pub const MIN_MAX_REPLY_BYTES: usize = 1024 * 1024;
/// How many times a reply cut by the output-token limit is continued before giving up.
pub const MAX_CONTINUATIONS: u32 = 5;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI Chat Completions, also spoken by vLLM, Ollama, llama.cpp, OpenRouter, DeepSeek ...
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

impl ProviderKind {
    /// The name used in configuration: `openai` or `anthropic`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }

    /// How error messages name the provider's API.
    pub(crate) fn api_name(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "OpenAI-compatible",
            ProviderKind::Anthropic => "Anthropic",
        }
    }

    /// The provider's own public endpoint.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => DEFAULT_OPENAI_BASE_URL,
            ProviderKind::Anthropic => DEFAULT_ANTHROPIC_BASE_URL,
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderKind {
    type Err = LlmError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(ProviderKind::OpenAi),
            "anthropic" => Ok(ProviderKind::Anthropic),
            _ => Err(LlmError::InvalidConfig {
                setting: "provider",
                problem: format!("unknown provider `{name}`; expected `openai` or `anthropic`"),
            }),
        }
    }
}

/// Everything [`LlmClient`](crate::LlmClient) needs to reach one model.
#[derive(Clone)]
pub struct LlmConfig {
    /// The wire format to speak.
    pub provider: ProviderKind,
    /// Where the API lives, e.g. `https://api.openai.com/v1`; a trailing slash is tolerated.
    pub base_url: String,
    /// Sent as `Authorization: Bearer` (OpenAI) or `x-api-key` (Anthropic); `None` sends no
    /// credentials, for local servers.
    pub api_key: Option<String>,
    /// The model name as the provider knows it.
    pub model: String,
    /// Output tokens asked for on every request (`max_tokens`).
    pub max_output_tokens: u32,
    /// Total attempts per request, the first one included (each continuation is a new
    /// request with attempts of its own).
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each further retry, with ±20 % jitter.
    pub retry_base_delay: Duration,
    /// How long a response may send no content (text, reasoning, usage, a finish reason)
    /// before the attempt is abandoned and retried; keep-alives do not count.
    pub stream_idle_timeout: Duration,
    /// How long one request may take in all, from sending it to the reply's last byte,
    /// before the attempt is abandoned and retried like a stalled one.
    pub request_timeout: Duration,
    /// Stream the reply (the default); `false` sends a plain request and reports the whole
    /// reply at once.
    pub stream: bool,
}

impl LlmConfig {
    /// A configuration with every tuning knob at its default and no API key.
    pub fn new(
        provider: ProviderKind,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        LlmConfig {
            provider,
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            retry_base_delay: DEFAULT_RETRY_BASE_DELAY,
            stream_idle_timeout: DEFAULT_STREAM_IDLE_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            stream: true,
        }
    }

    /// The most reply (text and reasoning, in bytes) one call accepts, continuations
    /// included: [`MAX_REPLY_BYTES_PER_TOKEN`] per output token asked for, at least
    /// [`MIN_MAX_REPLY_BYTES`]. A longer reply fails the call with
    /// [`LlmError::ReplyTooLarge`].
    pub fn max_reply_bytes(&self) -> usize {
        usize::try_from(self.max_output_tokens)
            .unwrap_or(usize::MAX)
            .saturating_mul(MAX_REPLY_BYTES_PER_TOKEN)
            .max(MIN_MAX_REPLY_BYTES)
    }
}

// Written by hand so that the API key never ends up in logs or panic messages.
impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("max_output_tokens", &self.max_output_tokens)
            .field("max_attempts", &self.max_attempts)
            .field("retry_base_delay", &self.retry_base_delay)
            .field("stream_idle_timeout", &self.stream_idle_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("stream", &self.stream)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn provider_names_round_trip_through_display_and_from_str() {
        for kind in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
            assert_eq!(kind.to_string().parse::<ProviderKind>().unwrap(), kind);
        }
        assert_eq!(
            "OpenAI".parse::<ProviderKind>().unwrap(),
            ProviderKind::OpenAi
        );
    }

    #[test]
    fn provider_names_serialize_in_lowercase() {
        assert_eq!(
            serde_json::to_string(&[ProviderKind::OpenAi, ProviderKind::Anthropic]).unwrap(),
            r#"["openai","anthropic"]"#
        );
        assert_eq!(
            serde_json::from_str::<ProviderKind>(r#""anthropic""#).unwrap(),
            ProviderKind::Anthropic
        );
    }

    #[test]
    fn an_unknown_provider_name_is_a_config_error_naming_the_choices() {
        let error = "gemini".parse::<ProviderKind>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid `provider` setting: unknown provider `gemini`; expected `openai` or `anthropic`"
        );
    }

    #[test]
    fn debug_output_hides_the_api_key() {
        let mut config = LlmConfig::new(ProviderKind::OpenAi, DEFAULT_OPENAI_BASE_URL, "gpt");
        config.api_key = Some("sk-secret".into());
        let debug = format!("{config:?}");
        assert!(!debug.contains("sk-secret"), "{debug}");
        assert!(debug.contains("<redacted>"), "{debug}");
    }

    #[test]
    fn a_reply_may_be_eight_bytes_a_token_but_at_least_a_mebibyte() {
        let mut config = LlmConfig::new(ProviderKind::OpenAi, DEFAULT_OPENAI_BASE_URL, "gpt");
        config.max_output_tokens = 1_000_000;
        assert_eq!(config.max_reply_bytes(), 8_000_000);
        config.max_output_tokens = 100;
        assert_eq!(config.max_reply_bytes(), MIN_MAX_REPLY_BYTES);
    }

    #[test]
    fn new_uses_the_named_defaults() {
        let config = LlmConfig::new(
            ProviderKind::Anthropic,
            DEFAULT_ANTHROPIC_BASE_URL,
            "claude",
        );
        assert_eq!(config.max_output_tokens, DEFAULT_MAX_OUTPUT_TOKENS);
        assert_eq!(config.max_attempts, DEFAULT_MAX_ATTEMPTS);
        assert_eq!(config.retry_base_delay, DEFAULT_RETRY_BASE_DELAY);
        assert_eq!(config.stream_idle_timeout, DEFAULT_STREAM_IDLE_TIMEOUT);
        assert_eq!(config.request_timeout, DEFAULT_REQUEST_TIMEOUT);
        assert!(config.stream);
        assert_eq!(config.api_key, None);
    }
}
