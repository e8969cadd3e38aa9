//! `/init` and `wright init` (issue 17, item 3): a read-only agent studies the project and
//! writes its instructions file — a first `AGENTS.md` at the root, or the project's
//! `CODE_LAW.md` updated when it has one — as the whole text of the file in its answer. The
//! front end shows the change as a unified diff and writes it only when the user approves.
//!
//! The answer is model output, so untrusted: a surrounding code fence is taken off, an empty
//! or oversized text is refused, and the file is written only inside the project, the way the
//! file tools write (no link out of it is followed).

use std::path::{Path, PathBuf};
use std::time::Duration;

use similar::TextDiff;
use tokio_util::sync::CancellationToken;
use wright_protocol::Event;
use wright_tools::ToolContext;
use wright_tools::project_file::{ProjectFileError, read_project_file};

use crate::RoundOutcome;
use crate::code_law::{self, CODE_LAW_FILE, MAX_CODE_LAW_BYTES};
use crate::session::Session;
use crate::subagent::AgentProfile;

/// The agent that writes the file, as its session names it.
pub const INIT_AGENT: &str = "init";

/// The file written when the project has no `CODE_LAW.md`.
pub const AGENTS_FILE: &str = "AGENTS.md";

/// The most the new text may hold: what L2 reads of `CODE_LAW.md` (spec C5); more would be
/// cut from every request anyway.
pub const MAX_INSTRUCTIONS_BYTES: usize = MAX_CODE_LAW_BYTES;

/// The tools the writer may use: reading only (Bash limited to read-only commands).
const INIT_TOOLS: [&str; 5] = ["Read", "Grep", "Glob", "LS", "Bash"];

/// What the writer is told, after the system prompt.
const INSTRUCTIONS: &str = include_str!("../../../prompts/init.md");

/// Lines of context around each change in the diff, as `diff -u` shows them.
const DIFF_CONTEXT: usize = 3;

/// Past this the diff settles for a coarser (still correct) one.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

/// Why no instructions file was proposed or written.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The current file cannot be read (a link out of the project, not a regular file, …).
    #[error("cannot read {name}: {source}")]
    Read {
        /// The file's name.
        name: String,
        /// Why.
        #[source]
        source: ProjectFileError,
    },
    /// The file is not one wright may write.
    #[error("cannot write {name}: {reason}")]
    Refused {
        /// The file's name.
        name: String,
        /// Why.
        reason: String,
    },
    /// The agent's round ended without an answer.
    #[error("the agent did not finish: {0}")]
    NoAnswer(String),
    /// The answer holds no text.
    #[error("the agent's answer was empty; nothing to write")]
    Empty,
    /// The answer is longer than an instructions file may be.
    #[error(
        "the agent's answer is {bytes} bytes, more than the {max} an instructions file may hold; \
         nothing was written",
        max = MAX_INSTRUCTIONS_BYTES
    )]
    TooLong {
        /// Its size.
        bytes: usize,
    },
    /// The file could not be written.
    #[error("cannot write {name}: {source}")]
    Write {
        /// The file's name.
        name: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The profile of the agent that writes the file: read-only tools and its instructions.
pub fn profile() -> AgentProfile {
    AgentProfile::read_only(&INIT_TOOLS, INSTRUCTIONS.trim())
}

/// The file `/init` writes in a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitTarget {
    /// Its name at the project root (`AGENTS.md`, or `CODE_LAW.md` as it is spelled there).
    pub name: String,
    /// Its text now; `None` when it does not exist yet.
    pub current: Option<String>,
}

impl InitTarget {
    /// The project's `CODE_LAW.md` (name matched without regard to case, as spec C5 says)
    /// when it has one, else `AGENTS.md`; with its current text, read as wright reads project
    /// files (only inside the project, at most [`MAX_INSTRUCTIONS_BYTES`]).
    pub fn find(root: &Path) -> Result<Self, InitError> {
        // Either name in any case, as L2 reads them: an `agents.md` is updated, not shadowed
        // by a second file.
        let name = code_law::name_in_any_case(root, CODE_LAW_FILE)
            .or_else(|| code_law::name_in_any_case(root, AGENTS_FILE))
            .unwrap_or_else(|| AGENTS_FILE.to_string());
        let path = root.join(&name);
        let current = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            _ => {
                let bytes = read_project_file(root, &path, MAX_INSTRUCTIONS_BYTES as u64).map_err(
                    |source| InitError::Read {
                        name: name.clone(),
                        source,
                    },
                )?;
                if bytes.len() > MAX_INSTRUCTIONS_BYTES {
                    // The diff would be against a cut text, and the write would drop the rest.
                    return Err(InitError::Refused {
                        name,
                        reason: format!(
                            "it is larger than the {MAX_INSTRUCTIONS_BYTES} bytes an instructions \
                             file may hold; edit it by hand"
                        ),
                    });
                }
                Some(String::from_utf8_lossy(&bytes).into_owned())
            }
        };
        Ok(Self { name, current })
    }

    /// The task the agent is given.
    pub fn task(&self) -> String {
        match &self.current {
            Some(_) => format!(
                "Update this project's `{name}`: Read it first, study the project, then answer \
                 with the whole new text of `{name}` (its build and test commands, layout and \
                 conventions), keeping what is still true.",
                name = self.name
            ),
            None => format!(
                "Write this project's first `{}`: study the project, then answer with the whole \
                 text of the file — its build and test commands, layout and conventions.",
                self.name
            ),
        }
    }

    /// The unified diff from the current text to `text` (empty when they are the same).
    pub fn diff(&self, text: &str) -> String {
        let old = self.current.as_deref().unwrap_or_default();
        if old == text {
            return String::new();
        }
        let from = match self.current {
            Some(_) => format!("a/{}", self.name),
            None => "/dev/null".to_string(),
        };
        TextDiff::configure()
            .timeout(DIFF_TIMEOUT)
            .diff_lines(old, text)
            .unified_diff()
            .context_radius(DIFF_CONTEXT)
            .header(&from, &format!("b/{}", self.name))
            .to_string()
    }

    /// Writes `text` as the file in the project at `root`, atomically and only inside the
    /// project: the path is checked as the file tools check theirs, and the write follows no
    /// link swapped in meanwhile.
    pub async fn write(&self, root: &Path, text: &str) -> Result<PathBuf, InitError> {
        let refused = |reason: String| InitError::Refused {
            name: self.name.clone(),
            reason,
        };
        // Changed since it was read (the user edited it while the agent worked): the diff
        // approved is not what would be written over.
        let now = Self::find(root)?;
        if now.name != self.name || now.current != self.current {
            return Err(refused(
                "it changed while the new text was being written; run /init again".to_string(),
            ));
        }
        let ctx = ToolContext::new(root).map_err(|e| refused(e.to_string()))?;
        let path = ctx.resolve(&self.name).map_err(|e| refused(e.message))?;
        ctx.write_file_atomically(&path, text.as_bytes().to_vec())
            .await
            .map_err(|source| InitError::Write {
                name: self.name.clone(),
                source,
            })?;
        Ok(path)
    }
}

/// A new text for the file, and how it differs from the current one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// The file.
    pub target: InitTarget,
    /// Its new text.
    pub text: String,
    /// The unified diff; empty when the text is the current one.
    pub diff: String,
}

/// Runs the writer's round in `session` (made with [`profile`]) for the project at `root`,
/// reporting to `events`, and makes its answer a [`Proposal`]. Nothing is written.
pub async fn propose(
    session: &mut Session,
    root: &Path,
    cancel: CancellationToken,
    events: &mut (dyn FnMut(Event) + Send),
) -> Result<Proposal, InitError> {
    let target = InitTarget::find(root)?;
    let answer = match session.run_round(&target.task(), cancel, events).await {
        RoundOutcome::Finished { answer, .. } => answer,
        RoundOutcome::Failed { message, .. } => return Err(InitError::NoAnswer(message)),
    };
    let text = file_text(&answer)?;
    let diff = target.diff(&text);
    Ok(Proposal { target, text, diff })
}

/// The file's text from the agent's answer: trimmed, without a code fence around the whole
/// (models add one though told not to), ending with one newline; refused when empty or
/// longer than [`MAX_INSTRUCTIONS_BYTES`].
pub fn file_text(answer: &str) -> Result<String, InitError> {
    let text = unfenced(answer.trim()).trim();
    if text.is_empty() {
        return Err(InitError::Empty);
    }
    let text = format!("{text}\n");
    if text.len() > MAX_INSTRUCTIONS_BYTES {
        return Err(InitError::TooLong { bytes: text.len() });
    }
    Ok(text)
}

/// `text` without a fence (```` ``` ````, ```` ```markdown ````, `~~~`) around all of it.
fn unfenced(text: &str) -> &str {
    for fence in ["```", "~~~"] {
        let Some(rest) = text.strip_prefix(fence) else {
            continue;
        };
        let Some((info, body)) = rest.split_once('\n') else {
            continue;
        };
        if info.trim().contains(char::is_whitespace) {
            continue;
        }
        if let Some(body) = body.trim_end().strip_suffix(fence) {
            return body;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_agents_md_in_any_case_is_updated_a_huge_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("agents.md"), "Build with make.\n").unwrap();
        let target = InitTarget::find(dir.path()).unwrap();
        assert_eq!(target.name, "agents.md");
        assert_eq!(target.current.as_deref(), Some("Build with make.\n"));
        std::fs::write(
            dir.path().join("agents.md"),
            "x".repeat(MAX_INSTRUCTIONS_BYTES + 10),
        )
        .unwrap();
        let refused = InitTarget::find(dir.path()).unwrap_err().to_string();
        assert!(refused.contains("edit it by hand"), "{refused}");
    }

    #[tokio::test]
    async fn a_file_changed_while_the_agent_worked_is_not_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("AGENTS.md"), "old\n").unwrap();
        let target = InitTarget::find(&root).unwrap();
        std::fs::write(root.join("AGENTS.md"), "the user's edit\n").unwrap();
        let refused = target.write(&root, "new\n").await.unwrap_err().to_string();
        assert!(refused.contains("changed while"), "{refused}");
        assert_eq!(
            std::fs::read_to_string(root.join("AGENTS.md")).unwrap(),
            "the user's edit\n"
        );
        let target = InitTarget::find(&root).unwrap();
        target.write(&root, "new\n").await.unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("AGENTS.md")).unwrap(),
            "new\n"
        );
    }

    #[test]
    fn agents_md_is_the_target_unless_the_project_has_a_code_law() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            InitTarget::find(dir.path()).unwrap(),
            InitTarget {
                name: "AGENTS.md".into(),
                current: None
            }
        );
        std::fs::write(dir.path().join("Code_Law.md"), "Use tabs.\n").unwrap();
        assert_eq!(
            InitTarget::find(dir.path()).unwrap(),
            InitTarget {
                name: "Code_Law.md".into(),
                current: Some("Use tabs.\n".into())
            }
        );
    }

    #[test]
    fn a_fence_around_the_whole_answer_is_taken_off() {
        for answer in [
            "# Project\n\nRun `make`.",
            "```\n# Project\n\nRun `make`.\n```",
            "  ```markdown\n# Project\n\nRun `make`.\n```\n",
            "~~~md\n# Project\n\nRun `make`.\n~~~",
        ] {
            assert_eq!(
                file_text(answer).unwrap(),
                "# Project\n\nRun `make`.\n",
                "{answer:?}"
            );
        }
        // A fence inside the text stays.
        let inner = "# Build\n```\nmake\n```";
        assert_eq!(file_text(inner).unwrap(), format!("{inner}\n"));
    }

    #[test]
    fn an_empty_or_oversized_answer_is_refused() {
        assert!(matches!(file_text("```\n```"), Err(InitError::Empty)));
        let long = "x".repeat(MAX_INSTRUCTIONS_BYTES + 1);
        assert!(matches!(
            file_text(&long),
            Err(InitError::TooLong { bytes }) if bytes == MAX_INSTRUCTIONS_BYTES + 2
        ));
    }

    #[test]
    fn the_diff_of_a_new_file_starts_from_dev_null() {
        let target = InitTarget {
            name: "AGENTS.md".into(),
            current: None,
        };
        assert_eq!(
            target.diff("# A\n"),
            "--- /dev/null\n+++ b/AGENTS.md\n@@ -0,0 +1 @@\n+# A\n"
        );
        let same = InitTarget {
            current: Some("# A\n".into()),
            ..target
        };
        assert_eq!(same.diff("# A\n"), "");
    }

    #[tokio::test]
    async fn the_file_is_written_inside_the_project_only() {
        let dir = tempfile::tempdir().unwrap();
        let target = InitTarget::find(dir.path()).unwrap();
        target.write(dir.path(), "# A\n").await.unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("AGENTS.md")).unwrap(),
            "# A\n"
        );
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("AGENTS.md"), "theirs").unwrap();
        std::fs::remove_file(dir.path().join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("AGENTS.md"),
            dir.path().join("AGENTS.md"),
        )
        .unwrap();
        assert!(matches!(
            target.write(dir.path(), "# B\n").await,
            Err(InitError::Refused { .. } | InitError::Read { .. })
        ));
        assert_eq!(
            std::fs::read_to_string(outside.path().join("AGENTS.md")).unwrap(),
            "theirs"
        );
    }
}
