//! Token usage as providers report it.

use serde::{Deserialize, Serialize};

/// Tokens billed for one model call (or the sum of several).
///
/// `cached_prompt_tokens` counts prompt tokens served from the provider's cache (OpenAI
/// `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`);
/// `cache_creation_tokens` counts prompt tokens written to it (Anthropic
/// `cache_creation_input_tokens`, OpenRouter `prompt_tokens_details.cache_write_tokens`).
/// Both are `None` when the provider says nothing, and both are part of `prompt_tokens`:
/// Anthropic's `input_tokens` leaves them out, so wright adds them back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the request, including any cached ones.
    pub prompt_tokens: u64,
    /// Tokens the model wrote.
    pub completion_tokens: u64,
    /// `prompt_tokens + completion_tokens`.
    pub total_tokens: u64,
    /// Prompt tokens read from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_prompt_tokens: Option<u64>,
    /// Prompt tokens written to the provider's prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_tokens: Option<u64>,
}

impl Usage {
    /// Adds `other` to `self`, field by field; cache counts stay `None` only if both are.
    pub fn add(&mut self, other: &Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
        self.cached_prompt_tokens =
            add_optional(self.cached_prompt_tokens, other.cached_prompt_tokens);
        self.cache_creation_tokens =
            add_optional(self.cache_creation_tokens, other.cache_creation_tokens);
    }
}

fn add_optional(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn adding_usage_sums_every_field_and_keeps_unknown_cache_counts_unknown() {
        let mut total = Usage {
            prompt_tokens: 10,
            completion_tokens: 2,
            total_tokens: 12,
            cached_prompt_tokens: None,
            cache_creation_tokens: None,
        };
        total.add(&Usage {
            prompt_tokens: 20,
            completion_tokens: 3,
            total_tokens: 23,
            cached_prompt_tokens: Some(8),
            cache_creation_tokens: None,
        });
        assert_eq!(
            total,
            Usage {
                prompt_tokens: 30,
                completion_tokens: 5,
                total_tokens: 35,
                cached_prompt_tokens: Some(8),
                cache_creation_tokens: None,
            }
        );
    }
}
