//! Why a round (or a compaction) stopped without an answer: [`RoundError`], one variant per
//! failure with the facts its message needs, and its [`FailureCode`] for events and exit codes.

use wright_llm::LlmError;
use wright_protocol::FailureCode;

use crate::round::MAX_MALFORMED_REPLIES;

/// A round that ended without an answer. The message (`Display`) is what the user reads; the
/// [`code`](Self::code) is what programs match on (`exec --json`, exit codes).
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    /// The user pressed Ctrl-C (during a model call, a tool, an approval or a summary).
    #[error("Interrupted.")]
    Interrupted,
    /// The provider refused the request or kept failing after every retry.
    #[error(transparent)]
    Provider(#[from] LlmError),
    /// The next request would not fit the context window even with everything compressed.
    #[error(
        "The next request would need about {estimated} tokens, more than fits the context window \
         ({context_window} tokens, less {reserved} reserved for the reply), even with every observation compressed. \
         Start a new session, or raise `context_window` if the model allows more."
    )]
    ContextOverflow {
        /// The calibrated estimate of the smallest request that could be built.
        estimated: u64,
        /// The configured context window.
        context_window: u64,
        /// Tokens kept free for the reply (the provider's `max_output_tokens`).
        reserved: u32,
    },
    /// The model wrote [`MAX_MALFORMED_REPLIES`] replies in a row that could not be read.
    #[error(
        "The model wrote {MAX_MALFORMED_REPLIES} malformed replies in a row, so the round was stopped. \
         The model may not follow the Thought/Action format; try a stronger model (--model)."
    )]
    MalformedReplies,
    /// The round used every step it was allowed without an answer.
    #[error(
        "Stopped after {max_steps} steps without an answer. Raise `max_steps` in .wright/config.toml, \
         or split the task into smaller requests."
    )]
    MaxSteps {
        /// The limit that was reached.
        max_steps: u32,
    },
}

impl RoundError {
    /// The failure's code in [`Event::Error`](wright_protocol::Event::Error) and
    /// [`RoundOutcome::Failed`](crate::RoundOutcome::Failed).
    pub fn code(&self) -> FailureCode {
        match self {
            Self::Interrupted => FailureCode::Interrupted,
            Self::Provider(LlmError::ContextOverflow { .. }) => FailureCode::ContextOverflow,
            Self::Provider(_) => FailureCode::Provider,
            Self::ContextOverflow { .. } => FailureCode::ContextOverflow,
            Self::MalformedReplies => FailureCode::MalformedReplies,
            Self::MaxSteps { .. } => FailureCode::MaxSteps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn each_failure_maps_to_its_code() {
        let provider = LlmError::InvalidConfig {
            setting: "model",
            problem: "none".into(),
        };
        let codes: Vec<FailureCode> = [
            RoundError::Interrupted,
            RoundError::Provider(provider),
            RoundError::ContextOverflow {
                estimated: 1,
                context_window: 1,
                reserved: 1,
            },
            RoundError::MalformedReplies,
            RoundError::MaxSteps { max_steps: 1 },
        ]
        .iter()
        .map(RoundError::code)
        .collect();
        assert_eq!(
            codes,
            vec![
                FailureCode::Interrupted,
                FailureCode::Provider,
                FailureCode::ContextOverflow,
                FailureCode::MalformedReplies,
                FailureCode::MaxSteps,
            ]
        );
    }

    #[test]
    fn messages_name_the_limit_and_what_to_do() {
        assert_eq!(RoundError::Interrupted.to_string(), "Interrupted.");
        assert_eq!(
            RoundError::MaxSteps { max_steps: 7 }.to_string(),
            "Stopped after 7 steps without an answer. Raise `max_steps` in .wright/config.toml, \
             or split the task into smaller requests."
        );
        assert_eq!(
            RoundError::ContextOverflow {
                estimated: 9000,
                context_window: 8000,
                reserved: 1000,
            }
            .to_string(),
            "The next request would need about 9000 tokens, more than fits the context window \
             (8000 tokens, less 1000 reserved for the reply), even with every observation compressed. \
             Start a new session, or raise `context_window` if the model allows more."
        );
        assert_eq!(
            RoundError::MalformedReplies.to_string(),
            "The model wrote 3 malformed replies in a row, so the round was stopped. \
             The model may not follow the Thought/Action format; try a stronger model (--model)."
        );
    }

    #[test]
    fn a_server_refusing_a_request_as_too_long_is_a_context_overflow() {
        let error = RoundError::Provider(LlmError::ContextOverflow {
            provider: wright_llm::ProviderKind::OpenAi,
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            window: Some(4096),
            prompt_tokens: Some(5120),
            completion_tokens: None,
            message: "request (5120 tokens) exceeds the available context size".into(),
        });
        assert_eq!(error.code(), FailureCode::ContextOverflow);
    }

    #[test]
    fn a_provider_failure_reads_as_the_provider_error() {
        let error = LlmError::InvalidConfig {
            setting: "model",
            problem: "no model name given".into(),
        };
        let expected = error.to_string();
        assert_eq!(RoundError::from(error).to_string(), expected);
    }
}
