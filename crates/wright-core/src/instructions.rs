//! Layer L2 as a whole (spec A1, C5; issue 17): everything the project and the user tell the
//! model, re-read for every request, never stored in history. Its parts, in the order they
//! are sent — most general first, so the most specific text comes last and wins:
//!
//! 1. the user-wide `AGENTS.md` in wright's user settings directory
//!    (`~/.config/wright/AGENTS.md`);
//! 2. for each directory from the enclosing git root down to the project root (the directory
//!    wright works in; root first): `CODE_LAW.md`, then `AGENTS.md`, then `CLAUDE.md`, each
//!    name matched without regard to case. When the project root is the git root, or there is
//!    no git root above it, this is the project root alone;
//! 3. the rules with `always_apply` (see [`crate::rules`]): the user's, then the project's;
//! 4. the list of the project's rules the model reads on request, by description.
//!
//! The project root is where wright was started (`-C DIR` or the current directory). The
//! directories above it, up to the nearest one holding a `.git` directory or file, are the
//! user's own repository: their files are read too, but only regular files whose real path
//! stays inside that git root (a link out of it is refused, as one out of the project is).
//! The user-wide file must stay inside the settings directory. Every file is bounded (cut at
//! [`MAX_CODE_LAW_BYTES`](crate::code_law::MAX_CODE_LAW_BYTES) with a note), never a FIFO, its secrets masked; a file that cannot
//! be read is a problem the caller reports, never a stopped round.

use std::path::{Path, PathBuf};

use wright_tools::secrets::SecretMasker;

use crate::code_law::{self, CODE_LAW_FILE, CodeLaw, CodeLawError};
use crate::rules::{RuleScope, RuleSet};

/// The instruction files read in each directory, in this order, compared case-insensitively.
pub const INSTRUCTION_FILES: [&str; 3] = [CODE_LAW_FILE, "agents.md", "claude.md"];

/// The user-wide instruction file, in wright's user settings directory.
pub const USER_INSTRUCTIONS_FILE: &str = "agents.md";

/// At most this many directories above the project root are searched for a git root.
const MAX_GIT_ROOT_DEPTH: usize = 64;

/// Where the project's rules start inside the system prompt, for a CODE_LAW.md at the
/// project root (spec C5's file keeps the heading it always had).
pub const CODE_LAW_HEADER: &str = "# Project rules (CODE_LAW.md)";

/// One part of L2: a file, an always-applied rule, or the list of rules on request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// What it is, as `wright context` shows it: `CODE_LAW.md`, `../AGENTS.md`,
    /// `~/.config/wright/AGENTS.md`, `rule .wright/rules/style.md`, `rules on request (3)`.
    pub label: String,
    /// Its text as the system prompt holds it, heading included.
    pub text: String,
    /// Whether its file was cut at [`MAX_CODE_LAW_BYTES`](crate::code_law::MAX_CODE_LAW_BYTES).
    pub truncated: bool,
}

/// L2 for one request: its parts in order, the rules (for the glob reminders of the round's
/// steps), and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct Instructions {
    /// The parts, in the order they are sent.
    pub parts: Vec<Part>,
    /// The rules as read for this request.
    pub rules: RuleSet,
    /// Files that could not be read or used, each naming its file.
    pub problems: Vec<String>,
}

/// Two readings of L2 are the same when they send the same parts and report the same
/// problems (the rules are read from the same files as the parts).
impl PartialEq for Instructions {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts && self.problems == other.problems
    }
}

impl Instructions {
    /// Reads L2 for the project at `project_root` (canonical) with the user's settings
    /// directory `user_config_dir`, secrets masked by `masker`.
    pub fn load(
        project_root: &Path,
        user_config_dir: Option<&Path>,
        masker: &SecretMasker,
    ) -> Self {
        let mut out = Self::default();
        if let Some(config) = user_config_dir {
            match code_law::read_named(config, config, USER_INSTRUCTIONS_FILE, masker) {
                Ok(Some(file)) => out.parts.push(Part {
                    label: format!("~/.config/wright/{}", file.file_name),
                    text: format!(
                        "# User-wide instructions ({})\n\nThe user's own instructions for every project, from wright's settings directory.\n\n{}",
                        file.file_name,
                        file.text.trim_end()
                    ),
                    truncated: file.truncated,
                }),
                Ok(None) => {}
                Err(problem) => out.problems.push(without(&problem)),
            }
        }
        let (bound, dirs) = directories(project_root);
        for dir in &dirs {
            let prefix = relative_prefix(project_root, dir);
            // The project's own files may not lead out of the project; those of the
            // directories above it, out of the git root.
            let bound = if dir == project_root {
                project_root
            } else {
                bound.as_path()
            };
            for name in INSTRUCTION_FILES {
                if dir != project_root && !owned_by_user(&dir.join(name)) {
                    continue;
                }
                match code_law::read_named(bound, dir, name, masker) {
                    Ok(Some(file)) => out.parts.push(file_part(&prefix, &file)),
                    Ok(None) => {}
                    Err(problem) => out.problems.push(without(&problem)),
                }
            }
        }
        let rules = RuleSet::load(project_root, user_config_dir, masker);
        let mut size: usize = out.parts.iter().map(|p| p.text.len()).sum();
        for rule in rules.always() {
            if size + rule.text.len() > MAX_L2_BYTES {
                out.problems.push(format!(
                    "{}: left out: L2 would pass {} KiB with it (the instruction files and \
                     always-apply rules together); make rules shorter or fewer",
                    rule.label,
                    MAX_L2_BYTES / 1024
                ));
                continue;
            }
            size += rule.text.len();
            let whose = match rule.scope {
                RuleScope::Project => "Project rule",
                RuleScope::User => "User-wide rule",
            };
            out.parts.push(Part {
                label: format!("rule {}", rule.label),
                text: format!("# {whose} ({})\n\n{}", rule.label, rule.text.trim_end()),
                truncated: rule.truncated,
            });
        }
        let listed: Vec<String> = rules
            .on_request()
            .map(|rule| {
                let description = rule.description.as_deref().unwrap_or_default();
                let description: String = description.chars().take(MAX_DESCRIPTION_CHARS).collect();
                format!(
                    "- `{}`: {}",
                    rule.label,
                    masker.mask(&description.replace(['\n', '\r'], " "))
                )
            })
            .collect();
        if !listed.is_empty() {
            out.parts.push(Part {
                label: format!("rules on request ({})", listed.len()),
                text: format!(
                    "# Project rules to read when they apply\n\nRead a rule's file with the Read tool when its description fits your task:\n{}",
                    listed.join("\n")
                ),
                truncated: false,
            });
        }
        out.problems
            .extend(rules.problems.iter().map(ToString::to_string));
        out.rules = rules;
        out
    }

    /// L2 of CODE_LAW.md alone, as spec C5 had it (for tests and callers that have only it).
    pub fn from_code_law(law: &CodeLaw) -> Self {
        Self {
            parts: vec![file_part("", law)],
            ..Self::default()
        }
    }

    /// The text L2 adds to the system prompt: its parts, a blank line between them; `None`
    /// when there are none.
    pub fn system_text(&self) -> Option<String> {
        (!self.parts.is_empty()).then(|| {
            self.parts
                .iter()
                .map(|part| part.text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
    }
}

/// The problem of an instruction file that cannot be read, as reported.
fn without(problem: &CodeLawError) -> String {
    format!("{problem}; the request goes without it")
}

/// The part of an instruction file read in the directory `prefix` leads to from the project
/// root (`""` for the project root itself, `../` for its parent, …).
fn file_part(prefix: &str, file: &CodeLaw) -> Part {
    let label = format!("{prefix}{}", file.file_name);
    let text = if prefix.is_empty() && file.file_name.eq_ignore_ascii_case(CODE_LAW_FILE) {
        format!(
            "{CODE_LAW_HEADER}\n\nThe project's own rules, from {}. They override your defaults.\n\n{}",
            file.file_name,
            file.text.trim_end()
        )
    } else {
        format!(
            "# Project rules ({label})\n\nThe project's own instructions, from {label}. They override your defaults.\n\n{}",
            file.text.trim_end()
        )
    };
    Part {
        label,
        text,
        truncated: file.truncated,
    }
}

/// The most bytes of instruction files and always-apply rules L2 holds: past it, further
/// always-apply rules are left out with a problem (a repository could otherwise send
/// megabytes with every request).
pub const MAX_L2_BYTES: usize = 128 * 1024;

/// The most characters of a rule's description in the list of rules on request.
const MAX_DESCRIPTION_CHARS: usize = 300;

/// Whether `path` (a file or directory above the project) is the user's own, or absent: a
/// `.git` or an instruction file another user could have put in a shared directory (say
/// `/tmp`) is not trusted — git's `safe.directory` concern.
#[cfg(unix)]
fn owned_by_user(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.uid() == nix::unistd::geteuid().as_raw(),
        Err(_) => true,
    }
}

#[cfg(not(unix))]
fn owned_by_user(_: &Path) -> bool {
    true
}

/// The root files must stay inside, and the directories whose instruction files are read,
/// outermost first: the enclosing git root down to `project_root`, or `project_root` alone.
fn directories(project_root: &Path) -> (PathBuf, Vec<PathBuf>) {
    let alone = (project_root.to_path_buf(), vec![project_root.to_path_buf()]);
    if project_root.join(".git").exists() {
        return alone;
    }
    let mut dirs = vec![project_root.to_path_buf()];
    for ancestor in project_root.ancestors().skip(1).take(MAX_GIT_ROOT_DEPTH) {
        dirs.push(ancestor.to_path_buf());
        // `symlink_metadata`: a `.git` that is a link does not make a git root.
        if std::fs::symlink_metadata(ancestor.join(".git")).is_ok_and(|m| !m.is_symlink()) {
            if !owned_by_user(&ancestor.join(".git")) || !owned_by_user(ancestor) {
                return alone;
            }
            dirs.reverse();
            return (ancestor.to_path_buf(), dirs);
        }
    }
    alone
}

/// How a directory above (or at) the project root is written relative to it: `""`, `../`,
/// `../../`, …
fn relative_prefix(project_root: &Path, dir: &Path) -> String {
    let depth = project_root
        .strip_prefix(dir)
        .map_or(0, |rest| rest.components().count());
    "../".repeat(depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn labels(instructions: &Instructions) -> Vec<&str> {
        instructions
            .parts
            .iter()
            .map(|p| p.label.as_str())
            .collect()
    }

    #[test]
    fn sources_come_user_wide_first_then_code_law_agents_claude_then_rules() {
        let project = tempfile::TempDir::new().unwrap();
        let user = tempfile::TempDir::new().unwrap();
        let root = project.path().canonicalize().unwrap();
        std::fs::write(user.path().join("AGENTS.md"), "USER-M").unwrap();
        std::fs::write(root.join("CLAUDE.md"), "CLAUDE-M").unwrap();
        std::fs::write(root.join("AGENTS.md"), "AGENTS-M").unwrap();
        std::fs::write(root.join("CODE_LAW.md"), "LAW-M").unwrap();
        std::fs::create_dir_all(root.join(".wright/rules")).unwrap();
        std::fs::write(
            root.join(".wright/rules/a.md"),
            "---\nalways_apply: true\n---\nALWAYS-M",
        )
        .unwrap();
        std::fs::write(
            root.join(".wright/rules/b.md"),
            "---\ndescription: Releasing\n---\nRELEASE",
        )
        .unwrap();
        let l2 = Instructions::load(&root, Some(user.path()), &SecretMasker::disabled());
        assert_eq!(
            labels(&l2),
            vec![
                "~/.config/wright/AGENTS.md",
                "CODE_LAW.md",
                "AGENTS.md",
                "CLAUDE.md",
                "rule .wright/rules/a.md",
                "rules on request (1)"
            ]
        );
        let text = l2.system_text().unwrap();
        let order: Vec<usize> = [
            "USER-M",
            "LAW-M",
            "AGENTS-M",
            "CLAUDE-M",
            "ALWAYS-M",
            "Releasing",
        ]
        .iter()
        .map(|needle| text.find(needle).unwrap())
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(!text.contains("RELEASE\n") && !text.ends_with("RELEASE"));
        assert!(text.contains("- `.wright/rules/b.md`: Releasing"), "{text}");
        assert!(text.starts_with("# User-wide instructions (AGENTS.md)"));
        assert!(text.contains("# Project rules (AGENTS.md)\n\n"));
    }

    #[test]
    fn a_subdirectory_start_reads_the_git_root_first() {
        let repo = tempfile::TempDir::new().unwrap();
        let repo_root = repo.path().canonicalize().unwrap();
        std::fs::create_dir_all(repo_root.join(".git")).unwrap();
        std::fs::create_dir_all(repo_root.join("crates/app")).unwrap();
        std::fs::write(repo_root.join("AGENTS.md"), "ROOT").unwrap();
        std::fs::write(repo_root.join("crates/CLAUDE.md"), "MIDDLE").unwrap();
        std::fs::write(repo_root.join("crates/app/AGENTS.md"), "HERE").unwrap();
        let l2 = Instructions::load(
            &repo_root.join("crates/app"),
            None,
            &SecretMasker::disabled(),
        );
        assert_eq!(
            labels(&l2),
            vec!["../../AGENTS.md", "../CLAUDE.md", "AGENTS.md"]
        );
        assert_eq!(l2.problems, Vec::<String>::new());
    }

    #[test]
    fn without_a_git_root_above_only_the_project_is_read() {
        let outer = tempfile::TempDir::new().unwrap();
        let outer_root = outer.path().canonicalize().unwrap();
        std::fs::create_dir_all(outer_root.join("inner")).unwrap();
        std::fs::write(outer_root.join("AGENTS.md"), "OUTER").unwrap();
        let l2 = Instructions::load(&outer_root.join("inner"), None, &SecretMasker::disabled());
        assert!(l2.parts.is_empty() || !l2.system_text().unwrap().contains("OUTER"));
    }

    #[test]
    fn a_link_out_of_the_git_root_is_refused_and_reported() {
        let outside = tempfile::TempDir::new().unwrap();
        std::fs::write(outside.path().join("x"), "SECRET").unwrap();
        let repo = tempfile::TempDir::new().unwrap();
        let repo_root = repo.path().canonicalize().unwrap();
        std::fs::create_dir_all(repo_root.join(".git")).unwrap();
        std::fs::create_dir_all(repo_root.join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("x"), repo_root.join("AGENTS.md")).unwrap();
        let l2 = Instructions::load(&repo_root.join("sub"), None, &SecretMasker::disabled());
        assert!(l2.parts.is_empty());
        assert_eq!(l2.problems.len(), 1);
        assert!(l2.problems[0].contains("AGENTS.md"), "{}", l2.problems[0]);
    }

    #[test]
    fn code_law_alone_renders_as_spec_c5_had_it() {
        let law = CodeLaw {
            file_name: "code_law.md".into(),
            text: "Tabs.\n".into(),
            truncated: false,
        };
        assert_eq!(
            Instructions::from_code_law(&law).system_text().unwrap(),
            "# Project rules (CODE_LAW.md)\n\nThe project's own rules, from code_law.md. They override your defaults.\n\nTabs."
        );
    }

    #[test]
    fn secrets_are_masked_in_every_source() {
        let project = tempfile::TempDir::new().unwrap();
        let root = project.path().canonicalize().unwrap();
        std::fs::write(root.join("AGENTS.md"), "key AKIAIOSFODNN7EXAMPLE").unwrap();
        let masker = SecretMasker::new(&wright_tools::secrets::SecretPolicy::default()).unwrap();
        let l2 = Instructions::load(&root, None, &masker);
        assert!(!l2.system_text().unwrap().contains("AKIAIOSFODNN7EXAMPLE"));
    }

    #[test]
    fn always_rules_past_the_l2_budget_are_left_out_and_descriptions_masked() {
        let project = tempfile::TempDir::new().unwrap();
        let root = project.path().canonicalize().unwrap();
        let rules = root.join(".wright/rules");
        std::fs::create_dir_all(&rules).unwrap();
        let body = "x".repeat(60 * 1024);
        for name in ["a", "b", "c"] {
            std::fs::write(
                rules.join(format!("{name}.md")),
                format!("---\nalways_apply: true\n---\n{body}\n"),
            )
            .unwrap();
        }
        std::fs::write(
            rules.join("d.md"),
            "---\ndescription: uses AKIAIOSFODNN7EXAMPLE to deploy\n---\nDeploy notes.\n",
        )
        .unwrap();
        let masker = SecretMasker::new(&wright_tools::secrets::SecretPolicy::default()).unwrap();
        let l2 = Instructions::load(&root, None, &masker);
        let text = l2.system_text().unwrap();
        assert!(text.len() < MAX_L2_BYTES + 4096, "{}", text.len());
        assert!(
            l2.problems
                .iter()
                .any(|p| p.contains("left out: L2 would pass 128 KiB")),
            "{:?}",
            l2.problems
        );
        assert!(!text.contains("AKIAIOSFODNN7EXAMPLE"));
        assert!(text.contains("to deploy"));
    }

    #[cfg(unix)]
    #[test]
    fn a_git_root_another_user_owns_is_not_trusted() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: needs root to give a directory to another user");
            return;
        }
        let outer = tempfile::TempDir::new().unwrap();
        let outer_root = outer.path().canonicalize().unwrap();
        std::fs::create_dir(outer_root.join(".git")).unwrap();
        std::fs::write(outer_root.join("AGENTS.md"), "PLANTED BY ANOTHER USER").unwrap();
        let project = outer_root.join("scratch");
        std::fs::create_dir(&project).unwrap();
        let nobody = Some(nix::unistd::Uid::from_raw(65534));
        nix::unistd::chown(&outer_root.join(".git"), nobody, None).unwrap();
        nix::unistd::chown(&outer_root.join("AGENTS.md"), nobody, None).unwrap();
        let masker = SecretMasker::new(&wright_tools::secrets::SecretPolicy::default()).unwrap();
        let l2 = Instructions::load(&project, None, &masker);
        assert!(
            l2.system_text()
                .is_none_or(|text| !text.contains("PLANTED BY ANOTHER USER"))
        );
        // Owned by the user, the same layout is read.
        nix::unistd::chown(&outer_root.join(".git"), Some(nix::unistd::geteuid()), None).unwrap();
        nix::unistd::chown(
            &outer_root.join("AGENTS.md"),
            Some(nix::unistd::geteuid()),
            None,
        )
        .unwrap();
        let l2 = Instructions::load(&project, None, &masker);
        assert!(
            l2.system_text()
                .unwrap()
                .contains("PLANTED BY ANOTHER USER")
        );
    }
}
