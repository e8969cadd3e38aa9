//! The region of a file that looks most like an `old_string` that was not found, so a failed
//! edit can show the model what the file really says there.
//!
//! Cheap on purpose (one pass over the file): every identifier-like word of `old_string` that a
//! line contains scores that line, rare words more than common ones, and the window of
//! `old_string`'s height with the highest total wins.

use std::collections::{HashMap, HashSet};

use wright_protocol::text::take_chars;

/// Lines of the closest region shown at most.
const MAX_REGION_LINES: usize = 30;
/// Characters of one line shown before it is cut.
const MAX_LINE_CHARS: usize = 300;

/// A numbered window of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Region {
    /// First and last line shown, 1-based, inclusive.
    pub(crate) first: usize,
    pub(crate) last: usize,
    /// The lines in Read's `cat -n` format.
    pub(crate) listing: String,
}

/// The window of `text` most like `old`, or `None` when no line shares a word with it.
pub(crate) fn closest_region(text: &str, old: &str) -> Option<Region> {
    let wanted: HashSet<&str> = words(old).collect();
    if wanted.is_empty() {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let hits: Vec<Vec<&str>> = lines
        .iter()
        .map(|line| {
            let mut found: Vec<&str> = words(line).filter(|w| wanted.contains(w)).collect();
            found.sort_unstable();
            found.dedup();
            found
        })
        .collect();
    let mut lines_with: HashMap<&str, usize> = HashMap::new();
    for word in hits.iter().flatten() {
        *lines_with.entry(word).or_default() += 1;
    }
    let scores: Vec<f64> = hits
        .iter()
        .map(|found| {
            found
                .iter()
                .map(|w| 1.0 / lines_with.get(w).copied().unwrap_or(1) as f64)
                .sum()
        })
        .collect();

    let height = old
        .trim_end_matches('\n')
        .lines()
        .count()
        .clamp(1, lines.len().max(1));
    let mut window: f64 = scores.iter().take(height).sum();
    let (mut best, mut best_start) = (window, 0);
    for start in 1..=lines.len().saturating_sub(height) {
        window += scores[start + height - 1] - scores[start - 1];
        // Strictly better only: ties keep the earliest window.
        if window > best + 1e-9 {
            (best, best_start) = (window, start);
        }
    }
    if best <= 0.0 {
        return None;
    }
    // Trim windows that begin or end on lines with nothing in common.
    let mut first = best_start;
    let mut last = (best_start + height).min(lines.len()) - 1;
    while first < last && scores[first] == 0.0 {
        first += 1;
    }
    while last > first && scores[last] == 0.0 {
        last -= 1;
    }
    last = last.min(first + MAX_REGION_LINES - 1);
    let listing = (first..=last)
        .map(|i| numbered(i + 1, lines[i]))
        .collect::<Vec<_>>()
        .join("\n");
    Some(Region {
        first: first + 1,
        last: last + 1,
        listing,
    })
}

/// One line as Read shows it: number right-aligned in 6 columns, a tab, the text.
fn numbered(number: usize, line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let kept = take_chars(line, MAX_LINE_CHARS);
    if kept.len() == line.len() {
        format!("{number:>6}\t{line}")
    } else {
        format!("{number:>6}\t{kept} …")
    }
}

/// The identifier-like words of `text` (letters, digits, `_`).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_window_with_the_rare_words_wins() {
        let text = "fn main() {\n    let total = 0;\n    run(total);\n}\n\nfn run(n: u32) {\n    \
                    println!(\"{n}\");\n}\n";
        let region =
            closest_region(text, "fn run(count: u32) {\n    println!(\"{count}\");").unwrap();
        assert_eq!(
            region,
            Region {
                first: 6,
                last: 7,
                listing: "     6\tfn run(n: u32) {\n     7\t    println!(\"{n}\");".into(),
            }
        );
    }

    #[test]
    fn nothing_in_common_is_none() {
        assert_eq!(closest_region("alpha\nbeta\n", "gamma"), None);
        assert_eq!(closest_region("alpha\n", "+-*"), None);
    }

    #[test]
    fn a_one_line_fragment_finds_its_line() {
        let text = "use std::io;\nlet widget = make_widget();\nlet x = 1;\n";
        let region = closest_region(text, "widget = build_widget()").unwrap();
        assert_eq!((region.first, region.last), (2, 2));
    }
}
