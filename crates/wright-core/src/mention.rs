//! The InputPreprocessor (spec A7, C3, E4; DESIGN §9.5): `@path` mentions in the user's input
//! become `<system-reminder>` blocks, appended to the same message, that tell the model to Read
//! those files. File contents are never injected.

use regex::Regex;

/// Spec A7/E4: the MVP mention pattern (project-relative paths, no spaces).
pub const MENTION_PATTERN: &str = r"@([a-zA-Z0-9/._-]+(?:\.[a-zA-Z0-9]+)?)";

/// Spec A7: at most this many reminders; the rest are counted in `(and N more…)`.
pub const MAX_REMINDERS: usize = 5;

/// The user's input after preprocessing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preprocessed {
    /// The text to send: the input, then the reminders.
    pub text: String,
    /// The mentioned files that exist, in order of first mention, deduplicated.
    pub mentioned: Vec<String>,
}

/// The reminder for one file, exactly in the template of spec A7.
pub fn reminder(path: &str) -> String {
    format!(
        "<system-reminder>\nThe user mentioned @{path}.\nYou MUST read this file with the Read tool before answering.\n</system-reminder>"
    )
}

/// Finds `@path` mentions of files that exist (`exists` is asked with the path as written,
/// relative to the project root) and appends a reminder for each of the first
/// [`MAX_REMINDERS`]. A mention right after an ASCII letter or digit (`ann@example.com`) is not
/// a file; neither is a path that does not exist (`@decorator`, `@team`). Spec A7 means ASCII:
/// `看@notes.md` mentions the file.
pub fn preprocess(input: &str, exists: &dyn Fn(&str) -> bool) -> Preprocessed {
    let Ok(pattern) = Regex::new(MENTION_PATTERN) else {
        // The pattern is a constant that compiles; keep the input whole if it ever did not.
        return Preprocessed {
            text: input.to_string(),
            mentioned: Vec::new(),
        };
    };
    let mut mentioned: Vec<String> = Vec::new();
    for captures in pattern.captures_iter(input) {
        let (Some(whole), Some(path)) = (captures.get(0), captures.get(1)) else {
            continue;
        };
        let glued_to_word = input[..whole.start()]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        if glued_to_word {
            continue;
        }
        // "see @src/main.rs." ends a sentence: the file is src/main.rs.
        let written = path.as_str();
        let candidate = [written, written.trim_end_matches('.')]
            .into_iter()
            .find(|p| !p.is_empty() && exists(p));
        if let Some(path) = candidate
            && !mentioned.iter().any(|m| m == path)
        {
            mentioned.push(path.to_string());
        }
    }
    if mentioned.is_empty() {
        return Preprocessed {
            text: input.to_string(),
            mentioned,
        };
    }
    let mut text = input.to_string();
    for path in mentioned.iter().take(MAX_REMINDERS) {
        text.push_str("\n\n");
        text.push_str(&reminder(path));
    }
    if mentioned.len() > MAX_REMINDERS {
        text.push_str(&format!(
            "\n(and {} more…)",
            mentioned.len() - MAX_REMINDERS
        ));
    }
    Preprocessed { text, mentioned }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn files(existing: &'static [&'static str]) -> impl Fn(&str) -> bool {
        move |path| existing.contains(&path)
    }

    #[test]
    fn a_mention_gets_the_exact_template_appended() {
        let out = preprocess(
            "fix @src/utils/auth.ts please",
            &files(&["src/utils/auth.ts"]),
        );
        assert_eq!(
            out.text,
            "fix @src/utils/auth.ts please\n\n<system-reminder>\nThe user mentioned @src/utils/auth.ts.\nYou MUST read this file with the Read tool before answering.\n</system-reminder>"
        );
        assert_eq!(out.mentioned, vec!["src/utils/auth.ts"]);
    }

    #[test]
    fn mentions_keep_their_order_and_are_deduplicated() {
        let out = preprocess("@b.rs then @a.rs then @b.rs", &files(&["a.rs", "b.rs"]));
        assert_eq!(out.mentioned, vec!["b.rs", "a.rs"]);
        assert_eq!(out.text.matches("<system-reminder>").count(), 2);
        assert!(out.text.find("@b.rs.").unwrap() < out.text.find("@a.rs.").unwrap());
    }

    #[test]
    fn a_mention_right_after_chinese_text_is_a_mention() {
        let out = preprocess("看@notes.md，然后修复", &files(&["notes.md"]));
        assert_eq!(out.mentioned, vec!["notes.md"]);
        let out = preprocess("请阅读@src/main.rs", &files(&["src/main.rs"]));
        assert_eq!(out.mentioned, vec!["src/main.rs"]);
    }

    #[test]
    fn email_addresses_are_not_mentions() {
        let out = preprocess("mail ann@example.com about it", &|_| true);
        assert_eq!(out.mentioned, Vec::<String>::new());
        assert_eq!(out.text, "mail ann@example.com about it");
    }

    #[test]
    fn missing_files_and_decorators_are_left_alone() {
        let out = preprocess("use @dataclass like @missing.py", &files(&[]));
        assert_eq!(out.text, "use @dataclass like @missing.py");
    }

    #[test]
    fn a_sentence_ending_dot_is_not_part_of_the_path() {
        let out = preprocess("look at @src/main.rs.", &files(&["src/main.rs"]));
        assert_eq!(out.mentioned, vec!["src/main.rs"]);
    }

    #[test]
    fn more_than_five_mentions_are_counted() {
        let out = preprocess(
            "@a @b @c @d @e @f @g",
            &files(&["a", "b", "c", "d", "e", "f", "g"]),
        );
        assert_eq!(out.text.matches("<system-reminder>").count(), 5);
        assert!(out.text.ends_with("\n(and 2 more…)"), "{}", out.text);
        assert!(!out.text.contains("mentioned @f."));
    }
}
