//! Saving well (issue 17, item 6): after a compaction (automatic or `/compact`), what its
//! summary says should last — the decisions and learnings, the user's preferences — is
//! offered as project memory, kept with one keypress and never without one
//! (`wright_core::memory::insights`).

use wright_core::memory::insights::{Insight, insights, keep};

use super::{Choice, Notice, Worker};

/// Lines of each note shown in the offer; what is kept is what was shown, no more (the
/// summary comes from tool output, which can hold what a hostile file planted).
const SHOWN_LINES: usize = 8;

/// Characters of a line shown in the offer.
const SHOWN_CHARS: usize = 160;

impl Worker {
    /// How many summaries the session's history holds (those a compaction adds come after).
    pub(super) fn summaries(&self) -> usize {
        self.session.agent().history().summaries().len()
    }

    /// Offers to keep what the summaries after the first `before` say should last, as
    /// project memory; saves it only if the user picks so.
    pub(super) async fn offer_insights(&mut self, before: usize) {
        if self.sessions.memory_paths().is_none() {
            return;
        }
        let found = insights(
            self.session
                .agent()
                .history()
                .summaries()
                .iter()
                .skip(before)
                .map(|summary| summary.text.as_str()),
        );
        if found.is_empty() {
            return;
        }
        let found: Vec<Insight> = found.into_iter().map(as_shown).collect();
        let choice = offer(&found);
        if self.ask(choice).await != Some(0) {
            self.notice(Notice::Info(
                "Not kept. (The Memory tool and /memory are there when you want it.)".to_string(),
            ));
            return;
        }
        let Some(paths) = self.sessions.memory_paths() else {
            return;
        };
        let kept = keep(paths, &self.setup.tools.masker, &found);
        if !kept.saved.is_empty() {
            let entries: Vec<String> = kept
                .saved
                .iter()
                .map(|entry| format!("{} ({})", entry.id, entry.tags.join(", ")))
                .collect();
            self.notice(Notice::Info(format!(
                "Kept as project memory: {}. /memory lists it; later sessions find it.",
                entries.join(", ")
            )));
        }
        for problem in kept.refused {
            self.notice(Notice::Error(format!("Not kept: {problem}.")));
        }
    }
}

/// `insight` cut to what the offer shows: its first [`SHOWN_LINES`] lines, each at most
/// [`SHOWN_CHARS`] characters.
fn as_shown(mut insight: Insight) -> Insight {
    let lines: Vec<String> = insight
        .content
        .lines()
        .take(SHOWN_LINES)
        .map(|line| {
            let mut shown: String = line.chars().take(SHOWN_CHARS).collect();
            if line.chars().count() > SHOWN_CHARS {
                shown.push('…');
            }
            shown
        })
        .collect();
    insight.content = lines.join("\n");
    insight
}

/// The question: the notes exactly as they would be kept, then keep or not now ("not now"
/// selected, so Enter typed ahead keeps nothing).
fn offer(found: &[Insight]) -> Choice {
    let mut title = vec![
        "The compaction's summary holds what may be worth keeping for later sessions:".to_string(),
    ];
    for insight in found {
        title.push(format!("  [{}]", insight.tags.join(", ")));
        for line in insight.content.lines() {
            title.push(format!("    {line}"));
        }
    }
    title.push("Keep it as project memory?".to_string());
    Choice {
        title,
        options: vec![
            (Some('k'), "keep as project memory".to_string()),
            (Some('n'), "not now".to_string()),
        ],
        selected: 1,
    }
}
