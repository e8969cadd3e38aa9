//! What a rule finds, and what the report says of it (jarvis-sec's `Issue`, A7.5).

use serde::{Deserialize, Serialize};

/// The languages the scanner reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    C,
    Cpp,
    Rust,
}

impl Language {
    /// The language of a file, from its extension: `.c .h` are C, `.cc .cpp .hpp .cxx` C++,
    /// `.rs` Rust.
    pub fn of_path(path: &std::path::Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "c" | "h" => Some(Language::C),
            "cc" | "cpp" | "hpp" | "cxx" | "hh" | "hxx" => Some(Language::Cpp),
            "rs" => Some(Language::Rust),
            _ => None,
        }
    }

    /// The name `--lang` takes and reports show: `c`, `cpp`, `rust`.
    pub fn name(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Rust => "rust",
        }
    }

    /// The group the summary counts it in (jarvis-sec's `by_language`): `c/cpp` or `rust`.
    pub fn group(self) -> &'static str {
        match self {
            Language::C | Language::Cpp => "c/cpp",
            Language::Rust => "rust",
        }
    }

    /// The language `--lang` names, if any.
    pub fn parse(name: &str) -> Option<Language> {
        match name.trim().to_ascii_lowercase().as_str() {
            "c" => Some(Language::C),
            "cpp" | "c++" | "cxx" => Some(Language::Cpp),
            "rust" | "rs" => Some(Language::Rust),
            _ => None,
        }
    }
}

/// How serious an issue is, from its confidence: ≥ 0.8 high, ≥ 0.6 medium, else low.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
}

impl Severity {
    /// The severity of a finding of confidence `confidence`.
    pub fn of_confidence(confidence: f32) -> Severity {
        if confidence >= 0.8 {
            Severity::High
        } else if confidence >= 0.6 {
            Severity::Medium
        } else {
            Severity::Low
        }
    }

    /// The weight of the verified report's score (`confidence × weight`): 3, 2, 1.
    pub fn weight(self) -> f32 {
        match self {
            Severity::High => 3.0,
            Severity::Medium => 2.0,
            Severity::Low => 1.0,
        }
    }

    /// `low`, `medium` or `high`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
        }
    }

    /// The severity `--min-severity` names, if any.
    pub fn parse(name: &str) -> Option<Severity> {
        match name.trim().to_ascii_lowercase().as_str() {
            "low" => Some(Severity::Low),
            "medium" => Some(Severity::Medium),
            "high" => Some(Severity::High),
            _ => None,
        }
    }
}

/// The most characters of a line kept as evidence.
pub const MAX_EVIDENCE_CHARS: usize = 200;

/// One thing a rule found in one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub language: Language,
    /// The rule's family: `unsafe_api`, `buffer_overflow`, `memory_mgmt`, `error_handling`, …
    pub category: String,
    /// The rule itself: `strcpy`, `realloc_overwrite`, `use_after_free_suspect`, …
    pub pattern: String,
    /// The file, relative to the scanned root, with `/` between its parts.
    pub file: String,
    /// The line, counted from 1.
    pub line: u32,
    /// The line the finding is on, trimmed and cut to [`MAX_EVIDENCE_CHARS`].
    pub evidence: String,
    /// What is wrong.
    pub description: String,
    /// What to do instead.
    pub suggestion: String,
    /// How sure the rule is, in [0, 1].
    pub confidence: f32,
}

impl Finding {
    /// The severity its confidence gives.
    pub fn severity(&self) -> Severity {
        Severity::of_confidence(self.confidence)
    }

    /// The signature verification's progress log keys it by: `language|file|line|pattern`.
    pub fn signature(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.language.name(),
            self.file,
            self.line,
            self.pattern
        )
    }
}

/// The evidence for line `line` (from 1) of `text`: the line trimmed, cut to
/// [`MAX_EVIDENCE_CHARS`] characters.
pub fn evidence(text: &str, line: u32) -> String {
    let source = text
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("")
        .trim();
    source.chars().take(MAX_EVIDENCE_CHARS).collect()
}

/// A finding as reported: numbered 1..N in report order (by file, then line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Issue {
    pub gid: usize,
    #[serde(flatten)]
    pub finding: Finding,
    pub severity: Severity,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn severity_follows_confidence_at_the_seeds_thresholds() {
        assert_eq!(Severity::of_confidence(0.8), Severity::High);
        assert_eq!(Severity::of_confidence(0.79), Severity::Medium);
        assert_eq!(Severity::of_confidence(0.6), Severity::Medium);
        assert_eq!(Severity::of_confidence(0.59), Severity::Low);
    }

    #[test]
    fn evidence_is_the_trimmed_line_cut_to_200_characters() {
        let long = format!("  x = {};\n", "a".repeat(300));
        assert_eq!(evidence("int a;\n   strcpy(d, s);  \n", 2), "strcpy(d, s);");
        assert_eq!(evidence(&long, 1).chars().count(), MAX_EVIDENCE_CHARS);
        assert_eq!(evidence("one line", 7), "");
    }

    #[test]
    fn languages_come_from_extensions() {
        use std::path::Path;
        assert_eq!(Language::of_path(Path::new("a/b.h")), Some(Language::C));
        assert_eq!(Language::of_path(Path::new("x.cxx")), Some(Language::Cpp));
        assert_eq!(Language::of_path(Path::new("lib.rs")), Some(Language::Rust));
        assert_eq!(Language::of_path(Path::new("README.md")), None);
    }
}
