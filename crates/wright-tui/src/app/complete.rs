//! Completion at the prompt: `/command` names, and `@path` mentions matched fuzzily against
//! the project's files (those `.gitignore` does not exclude).

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

use super::commands;

/// Candidates shown under the prompt.
pub const SHOWN: usize = 6;
/// Files indexed for `@` completion; a larger project is cut here.
const MAX_FILES: usize = 50_000;

/// One thing the word at the cursor can become.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// What replaces the word.
    pub replacement: String,
    /// What the list shows.
    pub label: String,
    /// A short note after the label.
    pub detail: String,
}

/// The open list of candidates for the word starting at column `start` of the cursor's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Where the word starts.
    pub start: usize,
    /// Best first; at most [`SHOWN`].
    pub candidates: Vec<Candidate>,
    /// The one Tab takes.
    pub selected: usize,
}

impl Completion {
    /// The selected candidate.
    pub fn chosen(&self) -> Option<&Candidate> {
        self.candidates.get(self.selected)
    }

    /// Moves the selection by `delta`, wrapping around.
    pub fn select(&mut self, delta: isize) {
        let n = self.candidates.len();
        if n > 0 {
            let index = (self.selected as isize + delta).rem_euclid(n as isize);
            self.selected = usize::try_from(index).unwrap_or(0);
        }
    }
}

/// The project's files, walked when first needed.
#[derive(Debug)]
pub struct FileIndex {
    root: PathBuf,
    files: Option<Vec<String>>,
}

impl FileIndex {
    /// The files under `root`, not yet walked.
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            files: None,
        }
    }

    /// An index of exactly `files` (tests).
    pub fn of(files: &[&str]) -> Self {
        Self {
            root: PathBuf::new(),
            files: Some(files.iter().map(|f| (*f).to_string()).collect()),
        }
    }

    /// Forgets the files so the next completion walks again (files come and go in a round).
    pub fn refresh(&mut self) {
        if !self.root.as_os_str().is_empty() {
            self.files = None;
        }
    }

    fn files(&mut self) -> &[String] {
        let root = &self.root;
        self.files.get_or_insert_with(|| walk(root))
    }

    /// The best `limit` files for `query`, best first; with no query, the shortest paths.
    pub fn matches(&mut self, query: &str, limit: usize) -> Vec<String> {
        let files = self.files();
        if query.is_empty() {
            let mut all: Vec<&String> = files.iter().collect();
            all.sort_by_key(|f| (f.matches('/').count(), f.len()));
            return all.into_iter().take(limit).cloned().collect();
        }
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut scored = pattern.match_list(files.iter(), &mut matcher);
        // Equal scores: the shorter path first, so results are stable.
        scored.sort_by(|(a, sa), (b, sb)| sb.cmp(sa).then(a.len().cmp(&b.len())).then(a.cmp(b)));
        scored
            .into_iter()
            .take(limit)
            .map(|(f, _)| f.clone())
            .collect()
    }
}

/// Relative paths (with `/`) of the files under `root` that ignore files do not exclude.
fn walk(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let walker = WalkBuilder::new(root)
        .require_git(false)
        .hidden(true)
        .build();
    for entry in walker.flatten() {
        if files.len() >= MAX_FILES {
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Ok(relative) = entry.path().strip_prefix(root) {
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
    files.sort();
    files
}

/// The completion for `word` (which starts at column `start`; `first` when it is the first
/// word of the input), or `None` when there is nothing to complete.
pub fn complete(
    word: &str,
    start: usize,
    first: bool,
    files: &mut FileIndex,
) -> Option<Completion> {
    let candidates: Vec<Candidate> = if let Some(query) = word.strip_prefix('@') {
        files
            .matches(query, SHOWN)
            .into_iter()
            .map(|path| Candidate {
                replacement: format!("@{path} "),
                label: format!("@{path}"),
                detail: String::new(),
            })
            .collect()
    } else if first && word.starts_with('/') && !word[1..].contains('/') {
        commands::matching(word)
            .into_iter()
            .map(|(name, arg, what)| Candidate {
                replacement: if arg.is_empty() {
                    name.to_string()
                } else {
                    format!("{name} ")
                },
                label: if arg.is_empty() {
                    name.to_string()
                } else {
                    format!("{name} {arg}")
                },
                detail: what.to_string(),
            })
            .collect()
    } else {
        return None;
    };
    (!candidates.is_empty()).then_some(Completion {
        start,
        candidates,
        selected: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn replacements(completion: Option<Completion>) -> Vec<String> {
        completion
            .map(|c| c.candidates.into_iter().map(|c| c.replacement).collect())
            .unwrap_or_default()
    }

    #[test]
    fn slash_completes_command_names_at_the_start_only() {
        let mut files = FileIndex::of(&[]);
        assert_eq!(
            replacements(complete("/res", 0, true, &mut files)),
            ["/resume "]
        );
        assert_eq!(complete("/res", 4, false, &mut files), None);
    }

    #[test]
    fn at_matches_files_fuzzily_best_first() {
        let mut files = FileIndex::of(&["src/main.rs", "src/parser.rs", "README.md"]);
        assert_eq!(
            replacements(complete("@prs", 0, false, &mut files)),
            ["@src/parser.rs "]
        );
    }

    #[test]
    fn the_walk_leaves_out_gitignored_files() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        std::fs::create_dir_all(dir.path().join("target")).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("target/out.rs"), "").unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
        let mut files = FileIndex::new(dir.path());
        assert_eq!(files.matches("", 10), ["src/lib.rs"]);
    }

    #[test]
    fn selection_wraps_around() {
        let mut files = FileIndex::of(&["a", "b"]);
        let mut completion = complete("@", 0, false, &mut files).unwrap();
        completion.select(-1);
        assert_eq!(completion.chosen().unwrap().replacement, "@b ");
    }
}
