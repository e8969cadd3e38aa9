//! When to compact and what to archive (spec A4, A6, C6, C7, D6, E5). Pure functions over a
//! message list, so the policy can be tested without a model or a disk.

use std::time::Duration;

use wright_protocol::{Message, Role};

/// Spec A6/E5: the context window assumed unless configured.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;
/// Spec A6: compact when the estimate reaches this fraction of the window.
pub const DEFAULT_COMPACT_THRESHOLD: f64 = 0.8;
/// Spec A4/C6: keep at least this many of the latest whole rounds.
pub const DEFAULT_RETAIN_ROUNDS: usize = 10;
/// Spec A6/C7: do not compact a history shorter than this many messages.
pub const DEFAULT_MIN_MESSAGES: usize = 3;
/// Spec E2: give up on the summary call after this long.
pub const DEFAULT_SUMMARY_TIMEOUT: Duration = Duration::from_secs(120);
/// Spec A6: a token is estimated as this many characters (`len(text) // 3`).
pub const CHARS_PER_TOKEN: u64 = 3;
/// Lines of each Read's content its history form keeps unless `read_history_lines` says
/// otherwise. A decision beyond the spec (issue 19): A3 caps a Read in history at 500 lines
/// ("上限 500 行") and makes 500 the default; 50 stays within the cap and is the default.
/// The model reads each Read whole in its round (A2); what history keeps of it is, from the
/// next round on, re-sent with every request, re-billed in full once when its form changes
/// (the round's requests carried the whole observation), and brings compaction, which
/// re-bills the whole retained history, sooner. On bench/cost.py's 40 rounds of an 800-line
/// Read: cache-weighted prompt tokens 2.61M at 500 lines (5 compactions), 1.09M at 100,
/// 0.90M at 50, 0.71M at 0 (none); Claude Code 1.40M. A model that needs lines history no
/// longer holds reads them again.
pub const DEFAULT_READ_HISTORY_LINES: usize = 50;

/// The context-engineering settings of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextSettings {
    /// The model's context window in tokens.
    pub context_window: u64,
    /// Fraction of the window at which history is compacted.
    pub compact_threshold: f64,
    /// Whole rounds always kept verbatim.
    pub retain_rounds: usize,
    /// Messages history must hold before compaction is considered.
    pub min_messages: usize,
    /// How long the summary call may take.
    pub summary_timeout: Duration,
    /// The model that writes summaries; `None` means the session's model.
    pub summary_model: Option<String>,
    /// Lines of each Read's content its history form keeps: spec A3's 500 unless set lower
    /// (`read_history_lines`; see [`HistoryManager::set_read_history_lines`]).
    ///
    /// [`HistoryManager::set_read_history_lines`]: crate::history::HistoryManager::set_read_history_lines
    pub read_history_lines: usize,
    /// How the summary call is asked: spec C2's separate request (the default) or the
    /// session's own prompt, which the provider has cached (`summary_request`).
    pub summary_request: crate::summarize::SummaryRequestForm,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            context_window: DEFAULT_CONTEXT_WINDOW,
            compact_threshold: DEFAULT_COMPACT_THRESHOLD,
            retain_rounds: DEFAULT_RETAIN_ROUNDS,
            min_messages: DEFAULT_MIN_MESSAGES,
            summary_timeout: DEFAULT_SUMMARY_TIMEOUT,
            summary_model: None,
            read_history_lines: DEFAULT_READ_HISTORY_LINES,
            summary_request: crate::summarize::SummaryRequestForm::Separate,
        }
    }
}

impl ContextSettings {
    /// `compact_threshold × context_window`, in tokens.
    pub fn threshold(&self) -> u64 {
        (self.compact_threshold * self.context_window as f64) as u64
    }
}

/// Spec A6: the local token estimate of a text, `len(text) // 3` (characters, not bytes).
pub fn estimate_tokens(text: &str) -> u64 {
    text.chars().count() as u64 / CHARS_PER_TOKEN
}

/// The outcome of the trigger check for a new user input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trigger {
    /// `last_usage_total + estimate(input)`.
    pub estimated_tokens: u64,
    /// `compact_threshold × context_window`.
    pub threshold: u64,
    /// Whether to compact before this round.
    pub compact: bool,
}

/// Spec C7: `estimated = last_usage + len(input) // 3`; compact when
/// `estimated >= threshold` and history holds at least `min_messages` messages.
pub fn check_trigger(
    last_usage_total: u64,
    input: &str,
    history_messages: usize,
    settings: &ContextSettings,
) -> Trigger {
    let estimated_tokens = last_usage_total + estimate_tokens(input);
    let threshold = settings.threshold();
    Trigger {
        estimated_tokens,
        threshold,
        compact: estimated_tokens >= threshold && history_messages >= settings.min_messages,
    }
}

/// Where each round starts: the index of every user message (spec A4, D1: a user message opens
/// a round). Messages before the first user message belong to the first round.
pub fn round_starts(messages: &[Message]) -> Vec<usize> {
    let mut starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User)
        .map(|(i, _)| i)
        .collect();
    if let Some(first) = starts.first_mut() {
        *first = 0;
    }
    starts
}

/// What one compaction archives: a prefix of the retained history made of whole rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionPlan {
    /// How many messages, from the start of the retained history, are archived.
    pub archive_len: usize,
    /// How many whole rounds that is.
    pub archived_rounds: usize,
}

/// Spec A4: archive every whole round before the last `retain_rounds`; never split a round,
/// so a tool call and its result always stay together. `None` when there is nothing to archive.
pub fn plan_compaction(messages: &[Message], retain_rounds: usize) -> Option<CompactionPlan> {
    let starts = round_starts(messages);
    let archived_rounds = starts.len().checked_sub(retain_rounds.max(1))?;
    if archived_rounds == 0 {
        return None;
    }
    Some(CompactionPlan {
        archive_len: starts[archived_rounds],
        archived_rounds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use wright_protocol::MessageMetadata;

    fn tool(text: &str) -> Message {
        Message {
            role: Role::Tool,
            content: text.into(),
            metadata: MessageMetadata {
                tool_name: Some("Read".into()),
                step: Some(1),
                ..MessageMetadata::default()
            },
        }
    }

    /// `n` rounds, round i with i % 3 tool steps.
    fn rounds(n: usize) -> Vec<Message> {
        let mut messages = Vec::new();
        for i in 0..n {
            messages.push(Message::user(format!("question {i}")));
            for step in 0..i % 3 {
                messages.push(Message::assistant(format!("Action: Read {i}.{step}")));
                messages.push(tool(&format!("result {i}.{step}")));
            }
            messages.push(Message::assistant(format!("Action: Finish[{i}]")));
        }
        messages
    }

    #[test]
    fn trigger_fires_at_the_threshold_with_enough_messages() {
        let settings = ContextSettings::default();
        assert_eq!(settings.threshold(), 160_000);
        let input = "x".repeat(300);
        let fired = check_trigger(159_900, &input, 3, &settings);
        assert_eq!(
            fired,
            Trigger {
                estimated_tokens: 160_000,
                threshold: 160_000,
                compact: true
            }
        );
        assert!(!check_trigger(159_899, &input, 3, &settings).compact);
        assert!(!check_trigger(500_000, &input, 2, &settings).compact);
    }

    #[test]
    fn the_estimate_counts_characters_not_bytes() {
        assert_eq!(estimate_tokens("ééé"), 1);
        assert_eq!(estimate_tokens("ab"), 0);
    }

    #[test]
    fn nothing_is_archived_while_there_are_at_most_retain_rounds() {
        assert_eq!(plan_compaction(&rounds(10), 10), None);
        assert_eq!(plan_compaction(&[], 10), None);
    }

    #[test]
    fn every_round_before_the_last_retain_rounds_is_archived() {
        let messages = rounds(14);
        let plan = plan_compaction(&messages, 10).unwrap();
        assert_eq!(plan.archived_rounds, 4);
        assert_eq!(messages[plan.archive_len].content, "question 4");
        assert_eq!(round_starts(&messages[plan.archive_len..]).len(), 10);
    }

    #[test]
    fn compaction_never_splits_a_round_or_a_tool_call_from_its_result() {
        for n in 0..30 {
            for retain in 1..12 {
                let messages = rounds(n);
                if let Some(plan) = plan_compaction(&messages, retain) {
                    assert_eq!(messages[plan.archive_len].role, Role::User);
                    assert_ne!(messages[plan.archive_len - 1].role, Role::User);
                    assert!(round_starts(&messages[plan.archive_len..]).len() >= retain);
                }
            }
        }
    }

    #[test]
    fn leading_messages_without_a_user_message_go_with_the_first_round() {
        let mut messages = vec![Message::assistant("orphan")];
        messages.extend(rounds(3));
        let plan = plan_compaction(&messages, 1).unwrap();
        assert_eq!(plan.archived_rounds, 2);
        assert_eq!(messages[plan.archive_len].content, "question 2");
    }
}
