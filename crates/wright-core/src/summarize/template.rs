//! Spec A5's template as a check: which of its sections a summary has, and the summary with
//! every section, so that a summary stored in history always holds the template.

/// The template's title, the first line of every summary.
pub const TITLE: &str = "## 📌 Archived Session Summary";

/// The template's sections in order: each heading as spec A5 writes it, and the words that
/// find it in a reply that dropped the emoji or changed the heading's level or case.
pub const SECTIONS: [(&str, &str); 5] = [
    ("### 🎯 Objectives & Status", "objectives & status"),
    ("### 🏗️ Technical Context (Static)", "technical context"),
    (
        "### ✅ Completed Milestones (The \"Done\" Pile)",
        "completed milestones",
    ),
    (
        "### 🧠 Key Insights & Decisions (Persistent Memory)",
        "key insights",
    ),
    ("### 📂 File System State (Snapshot)", "file system state"),
];

/// The section a line is the heading of, if it is one.
fn section_of(line: &str) -> Option<usize> {
    let line = line.trim_start();
    if !line.starts_with('#') {
        return None;
    }
    let lower = line.to_lowercase();
    SECTIONS.iter().position(|(_, key)| lower.contains(key))
}

/// The headings of the sections `summary` lacks, in template order.
pub fn missing_sections(summary: &str) -> Vec<&'static str> {
    let mut found = [false; SECTIONS.len()];
    for index in summary.lines().filter_map(section_of) {
        found[index] = true;
    }
    SECTIONS
        .iter()
        .zip(found)
        .filter(|(_, found)| !found)
        .map(|((heading, _), _)| *heading)
        .collect()
}

/// The lines under the heading of the template's section `index` (of [`SECTIONS`]) in
/// `summary`, up to the next section's heading; `None` when it has no such heading.
pub fn section_body(summary: &str, index: usize) -> Option<String> {
    let mut lines = summary
        .lines()
        .skip_while(|line| section_of(line) != Some(index));
    lines.next()?;
    let body: Vec<&str> = lines
        .take_while(|line| section_of(line).is_none())
        .collect();
    Some(body.join("\n").trim().to_string())
}

/// `summary` with every section of the template: the model's text kept, its sections put in
/// the template's order, each missing one added with `None`, and the title with the archive's
/// `start` and `cutoff` times added when the summary has none. A summary with every section
/// is returned as it is.
pub fn with_every_section(summary: &str, start: &str, cutoff: &str) -> String {
    if missing_sections(summary).is_empty() {
        return summary.to_string();
    }
    let mut preamble: Vec<&str> = Vec::new();
    let mut sections: [Vec<&str>; SECTIONS.len()] = Default::default();
    let mut current = None;
    for line in summary.lines() {
        current = section_of(line).or(current);
        match current {
            Some(index) => sections[index].push(line),
            None => preamble.push(line),
        }
    }
    let mut parts: Vec<String> = Vec::new();
    if !preamble
        .iter()
        .any(|line| line.contains("Archived Session Summary"))
    {
        parts.push(format!(
            "{TITLE}\n*(Contains context from {start} to {cutoff})*"
        ));
    }
    parts.push(preamble.join("\n"));
    for (lines, (heading, _)) in sections.iter().zip(SECTIONS) {
        if lines.is_empty() {
            parts.push(format!("{heading}\nNone"));
        } else {
            parts.push(lines.join("\n"));
        }
    }
    parts
        .iter()
        .map(|part| part.trim())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn full() -> String {
        let mut text = format!("{TITLE}\n*(Contains context from A to B)*");
        for (heading, _) in SECTIONS {
            text.push_str(&format!("\n\n{heading}\n* fact"));
        }
        text
    }

    #[test]
    fn a_section_body_runs_to_the_next_heading() {
        let text = "### Key insights\n* **Decisions**: tabs\n\n### 📂 File System State\n* a";
        assert_eq!(
            section_body(text, 3).as_deref(),
            Some("* **Decisions**: tabs")
        );
        assert_eq!(section_body(text, 0), None);
    }

    #[test]
    fn a_full_summary_misses_nothing_and_is_kept_as_it_is() {
        assert_eq!(missing_sections(&full()), Vec::<&str>::new());
        assert_eq!(with_every_section(&full(), "S", "C"), full());
    }

    #[test]
    fn headings_are_found_without_their_emoji_or_in_another_case() {
        let text = "## Objectives & Status\nx\n#### TECHNICAL CONTEXT\ny\n### Completed milestones\n### Key insights\n### File System State\n";
        assert_eq!(missing_sections(text), Vec::<&str>::new());
        assert_eq!(
            missing_sections("Objectives & Status without a heading"),
            SECTIONS.map(|(heading, _)| heading).to_vec()
        );
    }

    #[test]
    fn missing_sections_are_filled_with_none_in_template_order() {
        let reply = "The gist first.\n### 📂 File System State (Snapshot)\n* `a.rs`: new\n### 🎯 Objectives & Status\n* **Original Goal**: login";
        assert_eq!(
            missing_sections(reply),
            vec![SECTIONS[1].0, SECTIONS[2].0, SECTIONS[3].0]
        );
        let filled = with_every_section(reply, "S", "C");
        assert_eq!(
            filled,
            format!(
                "{TITLE}\n*(Contains context from S to C)*\n\nThe gist first.\n\n### 🎯 Objectives & Status\n* **Original Goal**: login\n\n{}\nNone\n\n{}\nNone\n\n{}\nNone\n\n### 📂 File System State (Snapshot)\n* `a.rs`: new",
                SECTIONS[1].0, SECTIONS[2].0, SECTIONS[3].0
            )
        );
        assert_eq!(missing_sections(&filled), Vec::<&str>::new());
    }
}
