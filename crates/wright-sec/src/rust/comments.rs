//! What the comments around a finding say: a `// SAFETY:` justification above unsafe code, or
//! any comment explaining a deliberate choice. Only real comment nodes count, so a string that
//! says "SAFETY:" justifies nothing.

use std::collections::BTreeSet;

/// How many lines above a finding a `// SAFETY:` comment may sit (comments, attributes and
/// blank lines between included).
const LOOKBACK_LINES: u32 = 12;
/// How many lines of code may stand between a `// SAFETY:` comment and the unsafe code it
/// justifies: one (`let x = …;` before `unsafe { … }`); further up, the comment justifies
/// some other unsafe code.
const LOOKBACK_CODE_LINES: u32 = 1;

/// The comments of one file, by line (0-based rows).
#[derive(Debug, Default)]
pub struct Comments {
    /// Rows holding (part of) a comment that says `SAFETY:` or `# Safety`.
    safety: BTreeSet<u32>,
    /// Rows holding (part of) any comment.
    any: BTreeSet<u32>,
}

impl Comments {
    /// Records a comment spanning rows `first..=last` with text `text`.
    pub fn add(&mut self, first: u32, last: u32, text: &str) {
        let says_safety = text.contains("SAFETY") || text.contains("# Safety") || {
            let lower = text.to_ascii_lowercase();
            lower.contains("safety:")
        };
        for row in first..=last.min(first.saturating_add(200)) {
            self.any.insert(row);
            if says_safety {
                self.safety.insert(row);
            }
        }
    }

    /// Whether a `// SAFETY:` comment justifies code at `row`: on the same line, on the line
    /// after (the first line inside the block), or above it within a few lines.
    pub fn safety_near(&self, row: u32, lines: &[&str]) -> bool {
        if self.safety.contains(&row) || self.safety.contains(&(row + 1)) {
            return true;
        }
        let mut code_lines = 0;
        for above in (row.saturating_sub(LOOKBACK_LINES)..row).rev() {
            if self.safety.contains(&above) {
                return true;
            }
            if !self.any.contains(&above) && !is_blank_or_attribute(lines, above) {
                code_lines += 1;
                if code_lines > LOOKBACK_CODE_LINES {
                    return false;
                }
            }
        }
        false
    }

    /// Whether a comment sits on `row` or on the line right above it.
    pub fn explained(&self, row: u32) -> bool {
        self.any.contains(&row) || (row > 0 && self.any.contains(&(row - 1)))
    }
}

fn is_blank_or_attribute(lines: &[&str], row: u32) -> bool {
    lines.get(row as usize).is_some_and(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with("#[") || line.starts_with("#![")
    })
}

/// Whether an attribute's text (`#[…]`) marks its item as test code: `#[test]`,
/// `#[tokio::test]`, `#[bench]`, `#[cfg(test)]`, `#[cfg(all(test, …))]` — not `#[cfg(not(test))]`.
pub fn is_test_attribute(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = compact
        .trim_start_matches("#!")
        .trim_start_matches('#')
        .trim_start_matches('[')
        .trim_end_matches(']');
    let path = inner.split('(').next().unwrap_or("");
    if path == "test" || path == "bench" || path.ends_with("::test") || path == "rstest" {
        return true;
    }
    if path == "cfg" {
        let args = &inner[path.len()..];
        return !args.contains("not(") && has_word(args, "test");
    }
    false
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|part| part == word)
}

/// Whether a file is test, bench or example code by where it is: under `tests/`, `benches/`
/// or `examples/`, or a module file named for tests (`tests.rs`, `test.rs`, `*_test.rs`,
/// `*_tests.rs`: the out-of-line `#[cfg(test)] mod tests;`).
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or("");
    let stem = name.strip_suffix(".rs").unwrap_or(name);
    matches!(stem, "tests" | "test")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || parts
            .iter()
            .any(|part| matches!(*part, "tests" | "benches" | "examples"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_attributes_are_recognised_and_cfg_not_test_is_not() {
        for yes in [
            "#[test]",
            "#[cfg(test)]",
            "#[tokio::test(flavor = \"multi_thread\")]",
            "#[cfg(all(test, unix))]",
            "#![cfg(test)]",
            "#[bench]",
        ] {
            assert!(is_test_attribute(yes), "{yes}");
        }
        for no in [
            "#[cfg(not(test))]",
            "#[derive(Debug)]",
            "#[cfg(feature = \"testing\")]",
        ] {
            assert!(!is_test_attribute(no), "{no}");
        }
    }

    #[test]
    fn test_paths_are_test_directories_and_test_module_files() {
        assert!(is_test_path("tests/it.rs"));
        assert!(is_test_path("crates/a/benches/b.rs"));
        assert!(is_test_path("examples/demo.rs"));
        assert!(is_test_path("src/parser/tests.rs"));
        assert!(is_test_path("src/scan_tests.rs"));
        assert!(!is_test_path("src/lib.rs"));
        assert!(!is_test_path("src/testing.rs"));
    }

    #[test]
    fn a_safety_comment_counts_above_within_a_few_lines_of_code_only() {
        let text = "// SAFETY: ok\nlet a = 1;\nunsafe {}\nx;\ny;\nunsafe {}\n";
        let lines: Vec<&str> = text.lines().collect();
        let mut comments = Comments::default();
        comments.add(0, 0, "// SAFETY: ok");
        assert!(comments.safety_near(2, &lines));
        assert!(!comments.safety_near(5, &lines));
    }
}
