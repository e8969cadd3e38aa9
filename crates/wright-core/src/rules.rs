//! Rule files (issue 17): Markdown files in the project's `.wright/rules/` and in
//! `rules/` of wright's user settings directory, each with a front matter block
//! (`description`, `globs` — one pattern or a list —, `always_apply`) and the rule as its body.
//!
//! - `always_apply: true` — the rule joins L2, sent with every request.
//! - `globs` — the rule is sent as a `<system-reminder>` with the observation of the first
//!   step of a round that reads or edits a matching file (see [`RuleSet::reminders_for`]).
//!   Patterns are matched against the path relative to the project root, and `*` also
//!   matches `/` (`*.rs` is every Rust file). With `always_apply: true` too, the rule is
//!   simply always sent.
//! - only a `description` — the project's rules are listed by description (with their path)
//!   in L2 and the model reads the one it needs with `Read`. A user-wide rule lies outside
//!   the project, where `Read` refuses to go (and should keep refusing), so a user-wide rule
//!   with only a description is sent whole, as if `always_apply` were set: it is the user's
//!   own file, bounded like every other.
//!
//! A rule of the project replaces a user-wide one with the same file name. Only the project
//! root's `.wright/rules/` is read, not those of directories above it when wright starts in a
//! subdirectory (as for `.wright/config.toml`): a rule listed for `Read` must be inside the
//! project. The files are
//! read like CODE_LAW.md — re-read for every request, at most [`MAX_RULE_FILES`] per
//! directory and [`MAX_RULE_BYTES`] each (cut with a note), only regular files whose real
//! path stays inside the directory's owner (the project, the settings directory), secrets
//! masked. A file whose front matter cannot be read is skipped with a problem naming it.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use wright_tools::secrets::SecretMasker;

use crate::code_law::{MAX_CODE_LAW_BYTES, MAX_DIR_ENTRIES, read_bounded};
use crate::subagent::front_matter::{self, Value};

/// The project's rules directory, relative to the project root.
pub const PROJECT_RULES_DIR: &str = ".wright/rules";

/// The user-wide rules directory, relative to wright's user settings directory.
pub const USER_RULES_DIR: &str = "rules";

/// At most this many rule files are read from one directory (the first by name).
pub const MAX_RULE_FILES: usize = 64;

/// The largest rule file read whole, in bytes (the same bound as CODE_LAW.md); a longer one
/// is cut with a note.
pub const MAX_RULE_BYTES: usize = MAX_CODE_LAW_BYTES;

/// Whose a rule is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleScope {
    /// The project's `.wright/rules/`.
    Project,
    /// The user's `~/.config/wright/rules/`.
    User,
}

/// When a rule is sent.
#[derive(Debug, Clone)]
pub enum RuleTrigger {
    /// With every request, in L2.
    Always,
    /// With the observation of a step that reads or edits a file matching these patterns.
    Globs {
        /// The patterns as written.
        patterns: Vec<String>,
        /// The patterns, compiled.
        matcher: GlobSet,
    },
    /// Listed by description in L2; the model reads the file when it needs it.
    OnRequest,
}

/// One rule file, read.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The file name (`style.md`): a project rule replaces a user-wide one of the same name.
    pub file_name: String,
    /// The path shown to the model and the user: `.wright/rules/style.md` for the project's
    /// (a path `Read` takes), `~/.config/wright/rules/style.md` for the user's.
    pub label: String,
    /// Whose it is.
    pub scope: RuleScope,
    /// Its `description`, if it has one.
    pub description: Option<String>,
    /// When it is sent.
    pub trigger: RuleTrigger,
    /// Its body (after the front matter), secrets masked, cut with a note when too long.
    pub text: String,
    /// Whether the file was cut.
    pub truncated: bool,
}

/// A rule file that could not be used, with why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule {}{}: {message}; the rule is skipped", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct RuleProblem {
    /// The file.
    pub path: PathBuf,
    /// The line the problem is on, when it has one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// The rules of a project and its user, as they are now.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    /// The rules: the user's, then the project's, each by file name; a project rule replaces
    /// the user's of the same name.
    pub rules: Vec<Rule>,
    /// The files that were skipped, with why.
    pub problems: Vec<RuleProblem>,
}

impl RuleSet {
    /// Reads the rules of the project at `project_root` and, with `user_config_dir`, the
    /// user-wide ones.
    pub fn load(
        project_root: &Path,
        user_config_dir: Option<&Path>,
        masker: &SecretMasker,
    ) -> Self {
        let mut set = RuleSet::default();
        if let Some(config) = user_config_dir {
            set.read_dir(
                config,
                &config.join(USER_RULES_DIR),
                RuleScope::User,
                masker,
            );
        }
        set.read_dir(
            project_root,
            &project_root.join(PROJECT_RULES_DIR),
            RuleScope::Project,
            masker,
        );
        // Most general first, as in the rest of L2: the user's, then the project's.
        set.rules.sort_by(|a, b| {
            (a.scope == RuleScope::Project, &a.file_name)
                .cmp(&(b.scope == RuleScope::Project, &b.file_name))
        });
        set
    }

    /// Reads the rules of `dir`, whose files must stay inside `bound`; a project rule
    /// replaces the user-wide one of the same name.
    fn read_dir(&mut self, bound: &Path, dir: &Path, scope: RuleScope, masker: &SecretMasker) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut names: Vec<String> = entries
            .take(MAX_DIR_ENTRIES)
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_ok_and(|t| !t.is_dir()))
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| {
                Path::new(name)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("md"))
            })
            .collect();
        names.sort();
        names.truncate(MAX_RULE_FILES);
        for file_name in names {
            let path = dir.join(&file_name);
            let label = match scope {
                RuleScope::Project => format!("{PROJECT_RULES_DIR}/{file_name}"),
                RuleScope::User => format!("~/.config/wright/{USER_RULES_DIR}/{file_name}"),
            };
            let read = read_bounded(bound, &path, &label)
                .map_err(|e| (None, e.to_string()))
                .and_then(|(text, truncated)| {
                    parse_rule(&text, scope).map(|parsed| (parsed, truncated))
                });
            match read {
                Ok((
                    ParsedRule {
                        description,
                        trigger,
                        body,
                    },
                    truncated,
                )) => {
                    self.rules.retain(|rule| rule.file_name != file_name);
                    self.rules.push(Rule {
                        file_name,
                        label,
                        scope,
                        description,
                        trigger,
                        text: masker.mask(&body).into_owned(),
                        truncated,
                    });
                }
                Err((line, message)) => self.problems.push(RuleProblem {
                    path,
                    line,
                    message,
                }),
            }
        }
    }

    /// The rules sent with every request.
    pub fn always(&self) -> impl Iterator<Item = &Rule> {
        self.rules
            .iter()
            .filter(|rule| matches!(rule.trigger, RuleTrigger::Always))
    }

    /// The rules listed by description for the model to read.
    pub fn on_request(&self) -> impl Iterator<Item = &Rule> {
        self.rules
            .iter()
            .filter(|rule| matches!(rule.trigger, RuleTrigger::OnRequest))
    }

    /// The glob rules matching `path` (relative to the project root).
    pub fn matching<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Rule> {
        self.rules.iter().filter(move |rule| match &rule.trigger {
            RuleTrigger::Globs { matcher, .. } => matcher.is_match(path),
            _ => false,
        })
    }

    /// The `<system-reminder>` blocks for a step that read or edited `path` (relative to the
    /// project root): one per glob rule that matches it and is not in `sent` yet, which this
    /// adds to `sent` (a rule is sent once per round).
    pub fn reminders_for(&self, path: &str, sent: &mut Vec<String>) -> Option<String> {
        let mut out = String::new();
        for rule in self.matching(path) {
            if sent.contains(&rule.file_name) {
                continue;
            }
            sent.push(rule.file_name.clone());
            out.push_str(&format!(
                "\n\n<system-reminder>\nRule {} applies to {path}:\n\n{}\n</system-reminder>",
                rule.label,
                rule.text.trim_end()
            ));
        }
        (!out.is_empty()).then_some(out)
    }
}

/// What a rule file says.
struct ParsedRule {
    description: Option<String>,
    trigger: RuleTrigger,
    body: String,
}

/// What is wrong with a rule file: the line (when there is one) and the message.
type LineProblem = (Option<usize>, String);

/// What a rule file says, or what is wrong with it.
fn parse_rule(text: &str, scope: RuleScope) -> Result<ParsedRule, LineProblem> {
    let start = text.strip_prefix('\u{feff}').unwrap_or(text);
    if start.lines().next().map(str::trim_end) != Some("---") {
        return Err((
            Some(1),
            "a rule file must start with a front matter block: a `---` line, `description:`, \
             `globs:` and/or `always_apply:` lines, and a closing `---` line"
                .to_string(),
        ));
    }
    let doc = front_matter::parse(text).map_err(|e| (Some(e.line), e.message))?;
    let mut description = None;
    let mut globs: Vec<String> = Vec::new();
    let mut always = false;
    for entry in doc.entries {
        let line = Some(entry.line);
        match (entry.key.as_str(), entry.value) {
            ("description", Value::Text(text)) => description = Some(text),
            ("globs", Value::Text(one)) => globs = vec![one],
            ("globs", Value::List(list)) => globs = list,
            // `alwaysApply` is how other agents' rule files spell it.
            ("always_apply" | "alwaysApply", Value::Text(flag)) => {
                always = match flag.as_str() {
                    "true" => true,
                    "false" => false,
                    other => {
                        return Err((
                            line,
                            format!("`{}` is `true` or `false`, not {other:?}", entry.key),
                        ));
                    }
                }
            }
            (key @ ("description" | "always_apply" | "alwaysApply"), Value::List(_)) => {
                return Err((line, format!("`{key}` takes one value")));
            }
            (key, _) => {
                return Err((
                    line,
                    format!(
                        "unknown key `{key}` (a rule takes `description`, `globs` and \
                         `always_apply`)"
                    ),
                ));
            }
        }
    }
    let trigger = if always {
        RuleTrigger::Always
    } else if !globs.is_empty() {
        let mut builder = GlobSetBuilder::new();
        for pattern in &globs {
            let glob = Glob::new(pattern).map_err(|e| {
                (
                    Some(doc.end_line),
                    format!("`globs` pattern {pattern:?} is not valid: {e}"),
                )
            })?;
            builder.add(glob);
        }
        let matcher = builder
            .build()
            .map_err(|e| (Some(doc.end_line), format!("`globs` cannot be used: {e}")))?;
        RuleTrigger::Globs {
            patterns: globs,
            matcher,
        }
    } else if description.is_some() {
        match scope {
            RuleScope::Project => RuleTrigger::OnRequest,
            // `Read` cannot reach the user's settings directory: sent whole (module doc).
            RuleScope::User => RuleTrigger::Always,
        }
    } else {
        return Err((
            Some(doc.end_line),
            "a rule needs `always_apply: true`, `globs` or a `description` to say when it \
             applies"
                .to_string(),
        ));
    };
    Ok(ParsedRule {
        description,
        trigger,
        body: doc.body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }

    fn load(project: &Path, user: Option<&Path>) -> RuleSet {
        RuleSet::load(project, user, &SecretMasker::disabled())
    }

    fn names<'a>(rules: impl Iterator<Item = &'a Rule>) -> Vec<String> {
        rules.map(|r| r.label.clone()).collect()
    }

    #[test]
    fn each_kind_of_rule_is_read_from_its_front_matter() {
        let project = tempfile::TempDir::new().unwrap();
        let rules = project.path().join(PROJECT_RULES_DIR);
        write(&rules, "a.md", "---\nalways_apply: true\n---\nAlways A.");
        write(&rules, "b.md", "---\nglobs: \"src/**/*.rs\"\n---\nRust B.");
        write(
            &rules,
            "c.md",
            "---\nglobs: [\"*.py\", \"*.pyi\"]\n---\nPy C.",
        );
        write(
            &rules,
            "d.md",
            "---\ndescription: How to release\n---\nRelease D.",
        );
        write(&rules, "notes.txt", "not a rule");
        let set = load(project.path(), None);
        assert_eq!(set.problems, vec![]);
        assert_eq!(names(set.always()), vec![".wright/rules/a.md"]);
        assert_eq!(names(set.on_request()), vec![".wright/rules/d.md"]);
        assert_eq!(set.rules[0].text, "Always A.");
        assert_eq!(
            names(set.matching("src/x/y.rs")),
            vec![".wright/rules/b.md"]
        );
        assert_eq!(
            names(set.matching("tools/gen.pyi")),
            vec![".wright/rules/c.md"]
        );
        assert_eq!(names(set.matching("README.md")), Vec::<String>::new());
    }

    #[test]
    fn a_glob_rule_is_reminded_once_per_round() {
        let project = tempfile::TempDir::new().unwrap();
        let rules = project.path().join(PROJECT_RULES_DIR);
        write(&rules, "rs.md", "---\nglobs: \"*.rs\"\n---\nNo unwrap.");
        let set = load(project.path(), None);
        let mut sent = Vec::new();
        let first = set.reminders_for("src/lib.rs", &mut sent).unwrap();
        assert_eq!(
            first,
            "\n\n<system-reminder>\nRule .wright/rules/rs.md applies to src/lib.rs:\n\nNo unwrap.\n</system-reminder>"
        );
        assert_eq!(set.reminders_for("src/main.rs", &mut sent), None);
        assert_eq!(set.reminders_for("a.txt", &mut Vec::new()), None);
    }

    #[test]
    fn the_project_replaces_a_user_rule_of_the_same_name_and_user_description_rules_are_sent_whole()
    {
        let project = tempfile::TempDir::new().unwrap();
        let user = tempfile::TempDir::new().unwrap();
        let user_rules = user.path().join(USER_RULES_DIR);
        write(
            &user_rules,
            "style.md",
            "---\nalways_apply: true\n---\nUser style.",
        );
        write(
            &user_rules,
            "mine.md",
            "---\ndescription: My habits\n---\nHabits.",
        );
        write(
            &project.path().join(PROJECT_RULES_DIR),
            "style.md",
            "---\nalwaysApply: true\n---\nProject style.",
        );
        let set = load(project.path(), Some(user.path()));
        let always: Vec<(String, String)> = set
            .always()
            .map(|r| (r.label.clone(), r.text.clone()))
            .collect();
        assert_eq!(
            always,
            vec![
                (
                    "~/.config/wright/rules/mine.md".to_string(),
                    "Habits.".to_string()
                ),
                (
                    ".wright/rules/style.md".to_string(),
                    "Project style.".to_string()
                ),
            ]
        );
    }

    #[test]
    fn bad_front_matter_is_a_problem_naming_the_file_and_the_rule_is_skipped() {
        let project = tempfile::TempDir::new().unwrap();
        let rules = project.path().join(PROJECT_RULES_DIR);
        write(&rules, "none.md", "Just text.");
        write(&rules, "key.md", "---\nwhen: always\n---\nX");
        write(&rules, "flag.md", "---\nalways_apply: yes\n---\nX");
        write(&rules, "glob.md", "---\nglobs: \"a[\"\n---\nX");
        write(&rules, "empty.md", "---\n---\nX");
        let set = load(project.path(), None);
        assert!(set.rules.is_empty());
        let problems: Vec<String> = set.problems.iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), 5, "{problems:#?}");
        for (problem, file) in problems.iter().zip([
            "empty.md:2",
            "flag.md:2",
            "glob.md:3",
            "key.md:2",
            "none.md:1",
        ]) {
            assert!(problem.contains(file), "{problem}");
            assert!(problem.ends_with("the rule is skipped"), "{problem}");
        }
    }

    #[test]
    fn at_most_64_files_are_read_and_each_is_cut_at_64_kib() {
        let project = tempfile::TempDir::new().unwrap();
        let rules = project.path().join(PROJECT_RULES_DIR);
        for i in 0..70 {
            write(
                &rules,
                &format!("r{i:02}.md"),
                "---\nalways_apply: true\n---\nR",
            );
        }
        let big = format!("---\nalways_apply: true\n---\n{}", "x".repeat(100_000));
        write(&rules, "a-big.md", &big);
        let set = load(project.path(), None);
        assert_eq!(set.rules.len(), MAX_RULE_FILES);
        assert!(set.rules[0].truncated);
        assert!(set.rules[0].text.len() < MAX_RULE_BYTES + 200);
        assert!(set.rules[0].text.ends_with("the rest was cut.]"));
    }

    #[test]
    fn a_rule_linking_out_of_the_project_is_a_problem() {
        let outside = tempfile::TempDir::new().unwrap();
        write(
            outside.path(),
            "secret.md",
            "---\nalways_apply: true\n---\nSECRET",
        );
        let project = tempfile::TempDir::new().unwrap();
        let rules = project.path().join(PROJECT_RULES_DIR);
        std::fs::create_dir_all(&rules).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), rules.join("s.md")).unwrap();
        let set = load(project.path(), None);
        assert!(set.rules.is_empty());
        assert!(
            set.problems[0]
                .to_string()
                .contains("leads out of the project"),
            "{}",
            set.problems[0]
        );
    }
}
