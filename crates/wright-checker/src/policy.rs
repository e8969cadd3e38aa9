//! The user's rules on top of the builtin ones: `allow` and `deny` command patterns and the
//! protected branches, from `[bash]` in config.toml.

/// Branches a force push may not rewrite unless the settings say otherwise.
pub const DEFAULT_PROTECTED_BRANCHES: [&str; 2] = ["main", "master"];

/// What the settings add to the builtin rules.
///
/// Patterns are matched against each command as written and as its unquoted words, with runs
/// of whitespace read as one space: `*` matches any run of characters, so `cargo test*` allows
/// every command starting with `cargo test`; a pattern without `*` must match the whole
/// command.
///
/// - `deny`: a matching command is refused, even when no builtin rule would refuse it.
/// - `allow`: a matching command is let through a builtin rule that would refuse it, except
///   the rules that guard against losses nothing can undo (see
///   [`UNOVERRIDABLE_RULES`](super::UNOVERRIDABLE_RULES)). Deny wins over allow.
/// - `protected_branches`: branch names (or `*` patterns like `release/*`) that
///   `git push --force` and `git push --delete` may not touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPolicy {
    pub(crate) allow: Vec<String>,
    pub(crate) deny: Vec<String>,
    pub(crate) protected_branches: Vec<String>,
}

impl Default for CommandPolicy {
    /// No allow or deny rules; `main` and `master` protected.
    fn default() -> Self {
        Self {
            allow: Vec::new(),
            deny: Vec::new(),
            protected_branches: DEFAULT_PROTECTED_BRANCHES.map(String::from).to_vec(),
        }
    }
}

impl CommandPolicy {
    /// A policy from the settings' `allow`, `deny` and `protected_branches` lists.
    pub fn new(allow: Vec<String>, deny: Vec<String>, protected_branches: Vec<String>) -> Self {
        Self {
            allow,
            deny,
            protected_branches,
        }
    }

    /// The allow patterns.
    pub fn allow(&self) -> &[String] {
        &self.allow
    }

    /// The deny patterns.
    pub fn deny(&self) -> &[String] {
        &self.deny
    }

    /// The protected branch names or patterns.
    pub fn protected_branches(&self) -> &[String] {
        &self.protected_branches
    }

    /// Whether `branch` is one of the protected branches (a name or a `*` pattern matches it).
    pub fn protects_branch(&self, branch: &str) -> bool {
        self.protected_branches
            .iter()
            .any(|p| wildcard_match(p, branch))
    }

    /// Whether an allow pattern matches `command`.
    pub(crate) fn allows(&self, command: &str) -> bool {
        self.allowing(command).is_some()
    }

    /// The first allow pattern that matches `command`.
    pub(crate) fn allowing(&self, command: &str) -> Option<&str> {
        self.allow
            .iter()
            .find(|p| wildcard_match(p, command))
            .map(String::as_str)
    }

    /// The first deny pattern that matches `command`.
    pub(crate) fn denying(&self, command: &str) -> Option<&str> {
        self.deny
            .iter()
            .find(|p| wildcard_match(p, command))
            .map(String::as_str)
    }
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters (`/` included)
/// and runs of whitespace in either count as one space.
pub(crate) fn wildcard_match(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = squeeze(pattern).chars().collect();
    let text: Vec<char> = squeeze(text).chars().collect();
    if pattern.is_empty() {
        return false;
    }
    // Greedy matching that backtracks to the last `*`.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailing_star_matches_by_prefix() {
        assert!(wildcard_match("cargo test*", "cargo test"));
        assert!(wildcard_match(
            "cargo test*",
            "cargo test --all -- --nocapture"
        ));
        assert!(!wildcard_match("cargo test*", "cargo build"));
    }

    #[test]
    fn without_a_star_the_whole_command_must_match() {
        assert!(wildcard_match("git status", "git   status"));
        assert!(!wildcard_match("git status", "git status -s"));
    }

    #[test]
    fn a_star_in_the_middle_matches_any_run() {
        assert!(wildcard_match(
            "rm -rf /tmp/*/cache",
            "rm -rf /tmp/a/b/cache"
        ));
        assert!(wildcard_match("release/*", "release/1.2"));
        assert!(!wildcard_match("release/*", "main"));
    }

    #[test]
    fn an_empty_pattern_matches_nothing() {
        assert!(!wildcard_match("", ""));
        assert!(!wildcard_match("   ", "ls"));
    }

    #[test]
    fn the_default_policy_protects_main_and_master() {
        assert_eq!(
            CommandPolicy::default().protected_branches(),
            ["main".to_string(), "master".to_string()]
        );
    }
}
