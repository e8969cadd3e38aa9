//! Saving well (issue 17, item 6): what a compaction summary offers to keep as project
//! memory — its "Key Insights & Decisions" section (spec A5), the user's preferences apart
//! from the decisions and learnings — and keeping it once the user said yes. Nothing here
//! asks: the interactive session offers, and saves only what the user accepted.

use wright_store::memory::{MAX_CONTENT_BYTES, MemoryEntry, MemoryPaths, MemoryScope};
use wright_tools::secrets::SecretMasker;

use super::{holds_secret, saving_masker};
use crate::summarize::section_body;

/// The tag of the decisions and learnings a summary keeps.
pub const DECISIONS_TAG: &str = "decisions";
/// The tag of the user's preferences a summary keeps.
pub const PREFERENCES_TAG: &str = "preferences";

/// Spec A5: the section of the summary template (of `summarize::SECTIONS`) that holds what
/// should last, "Key Insights & Decisions".
const INSIGHTS_SECTION: usize = 3;

/// The marker of a note cut to [`MAX_CONTENT_BYTES`].
const CUT: &str = "\n…";

/// One note a summary offers to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insight {
    /// Its tags: [`DECISIONS_TAG`] or [`PREFERENCES_TAG`].
    pub tags: Vec<String>,
    /// The note, at most [`MAX_CONTENT_BYTES`].
    pub content: String,
}

/// What [`keep`] came to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kept {
    /// The entries saved in project memory.
    pub saved: Vec<MemoryEntry>,
    /// Why the others were not, one line each.
    pub refused: Vec<String>,
}

/// The notes worth keeping in `summaries` (those one compaction made): their decisions and
/// learnings as one note, their user preferences as another; a part that says `None` (or
/// only repeats a placeholder) is not offered.
pub fn insights<'a>(summaries: impl IntoIterator<Item = &'a str>) -> Vec<Insight> {
    let (mut decisions, mut preferences) = (Vec::new(), Vec::new());
    for summary in summaries {
        let Some(body) = section_body(summary, INSIGHTS_SECTION) else {
            continue;
        };
        for item in items(&body) {
            if says_nothing(&item) {
                continue;
            }
            let label = label_of(&item).to_lowercase();
            if label.contains("preference") {
                preferences.push(item);
            } else {
                decisions.push(item);
            }
        }
    }
    [(DECISIONS_TAG, decisions), (PREFERENCES_TAG, preferences)]
        .into_iter()
        .filter(|(_, items)| !items.is_empty())
        .map(|(tag, items)| Insight {
            tags: vec![tag.to_string()],
            content: bounded(&items.join("\n")),
        })
        .collect()
}

/// Saves `insights` in the project memory at `paths`, refusing any that holds what `masker`
/// (or, with masking off, the built-in patterns) would mask, as the Memory tool does.
pub fn keep(paths: &MemoryPaths, masker: &SecretMasker, insights: &[Insight]) -> Kept {
    let masker = saving_masker(masker);
    let mut kept = Kept::default();
    let Some(file) = paths.file(MemoryScope::Project) else {
        kept.refused
            .push("project memory is not kept here (no project memory file)".to_string());
        return kept;
    };
    for insight in insights {
        let what = insight.tags.join(", ");
        if holds_secret(&masker, &insight.tags, &insight.content) {
            kept.refused.push(format!(
                "the {what} were not kept: they hold what looks like a credential (a key, \
                 token or password), and memory never keeps secrets"
            ));
            continue;
        }
        match file.add(insight.tags.clone(), insight.content.clone()) {
            Ok(entry) => kept.saved.push(entry),
            Err(e) => kept.refused.push(format!("the {what} were not kept: {e}")),
        }
    }
    kept
}

/// The section's items: each line starting a bullet with a bold label (`* **Decisions**:`)
/// opens one; other lines belong to the item above them (or make one of their own).
fn items(body: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for line in body.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let opens = {
            let trimmed = line.trim_start();
            let bullet = trimmed.starts_with("* ") || trimmed.starts_with("- ");
            bullet && trimmed[2..].trim_start().starts_with("**") && line.len() == trimmed.len()
        };
        match items.last_mut() {
            Some(item) if !opens => {
                item.push('\n');
                item.push_str(line.trim_end());
            }
            _ => items.push(line.trim_end().to_string()),
        }
    }
    items
}

/// An item's bold label (`Decisions` in `* **Decisions**: …`), or nothing.
fn label_of(item: &str) -> &str {
    item.split("**").nth(1).unwrap_or_default()
}

/// Whether `item` holds no fact: its text after the label is empty, `None`, `N/A`, or the
/// template's bracketed placeholder.
fn says_nothing(item: &str) -> bool {
    let text = match item.split_once("**:") {
        Some((_, rest)) => rest,
        None => match item.rsplit_once("**") {
            Some((_, rest)) => rest,
            None => item.trim_start_matches(['*', '-', ' ']),
        },
    };
    let text = text.trim().trim_start_matches(':').trim();
    let lower = text.trim_end_matches('.').to_lowercase();
    text.is_empty()
        || matches!(lower.as_str(), "none" | "n/a" | "无" | "-")
        || (text.starts_with('[') && text.ends_with(']'))
}

/// `text` cut (at a character boundary) to fit [`MAX_CONTENT_BYTES`], marked when cut.
fn bounded(text: &str) -> String {
    if text.len() <= MAX_CONTENT_BYTES {
        return text.to_string();
    }
    let mut end = MAX_CONTENT_BYTES - CUT.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{CUT}", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn summary(insights: &str) -> String {
        format!(
            "## 📌 Archived Session Summary\n\n### 🎯 Objectives & Status\n* **Original Goal**: \
             login\n\n### 🧠 Key Insights & Decisions (Persistent Memory)\n{insights}\n\n\
             ### 📂 File System State (Snapshot)\n* `a.rs`: new"
        )
    }

    fn insight(tag: &str, content: &str) -> Insight {
        Insight {
            tags: vec![tag.to_string()],
            content: content.to_string(),
        }
    }

    #[test]
    fn decisions_and_learnings_make_one_note_and_preferences_another() {
        let text = summary(
            "* **Decisions**: sqlx over diesel\n  - for async\n* **Learnings**: the API \
             wants ISO dates\n* **User Preferences**: tabs, no emoji in commits",
        );
        assert_eq!(
            insights([text.as_str()]),
            vec![
                insight(
                    "decisions",
                    "* **Decisions**: sqlx over diesel\n  - for async\n* **Learnings**: the API wants ISO dates"
                ),
                insight(
                    "preferences",
                    "* **User Preferences**: tabs, no emoji in commits"
                ),
            ]
        );
    }

    #[test]
    fn parts_that_say_none_are_not_offered() {
        let text = summary(
            "* **Decisions**: None\n* **Learnings**: [特殊配置、API 格式或坑]\n* **User \
             Preferences**: always run clippy",
        );
        assert_eq!(
            insights([text.as_str()]),
            vec![insight(
                "preferences",
                "* **User Preferences**: always run clippy"
            )]
        );
        assert_eq!(insights([summary("None").as_str()]), vec![]);
        assert_eq!(insights(["no template at all"]), vec![]);
    }

    #[test]
    fn the_summaries_of_one_compaction_make_one_note_per_tag() {
        let first = summary("* **Decisions**: sqlx");
        let second = summary("* **Decisions**: no ORM\n* **User Preferences**: tabs");
        assert_eq!(
            insights([first.as_str(), second.as_str()]),
            vec![
                insight(
                    "decisions",
                    "* **Decisions**: sqlx\n* **Decisions**: no ORM"
                ),
                insight("preferences", "* **User Preferences**: tabs"),
            ]
        );
    }

    #[test]
    fn a_long_note_is_cut_to_what_memory_keeps() {
        let text = summary(&format!(
            "* **Decisions**: {}",
            "é".repeat(MAX_CONTENT_BYTES)
        ));
        let found = insights([text.as_str()]);
        assert!(found[0].content.len() <= MAX_CONTENT_BYTES);
        assert!(found[0].content.ends_with(CUT));
    }

    #[test]
    fn kept_notes_go_to_project_memory_and_secrets_are_refused() {
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let paths = MemoryPaths::new(home.path(), root.path(), None);
        let secret = format!("* **Decisions**: use key sk-{}", "a1B2c3D4e5".repeat(4));
        let kept = keep(
            &paths,
            &SecretMasker::default(),
            &[
                insight("decisions", &secret),
                insight("preferences", "* **User Preferences**: tabs"),
            ],
        );
        assert_eq!(kept.saved.len(), 1, "{kept:?}");
        assert_eq!(kept.refused.len(), 1, "{kept:?}");
        assert!(kept.refused[0].contains("credential"), "{kept:?}");
        let stored = paths.file(MemoryScope::Project).unwrap().load().unwrap();
        assert_eq!(stored, kept.saved);
        assert_eq!(stored[0].tags, vec!["preferences".to_string()]);
    }
}
