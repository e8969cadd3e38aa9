//! The agents a session may run as sub-agents: the built-in `general` and `explore`, then the
//! user's (`~/.config/wright/agents/*.md`) and the project's (`.wright/agents/*.md`), a
//! project's agent replacing the user's or a built-in one of the same name.

use std::path::{Path, PathBuf};

use wright_tools::project_file::read_project_file;

use super::front_matter::{self, Value};

/// The largest agent file read; longer ones are skipped with a warning.
const MAX_AGENT_FILE_BYTES: u64 = 64 * 1024;
/// Agent files read from one directory at most (the first, in name order).
const MAX_AGENT_FILES: usize = 64;
/// The largest `max_steps` an agent file may ask for.
const MAX_AGENT_STEPS: u32 = 200;
/// The longest description kept (it is listed in the Task tool's description, in L1).
const MAX_DESCRIPTION_CHARS: usize = 300;

/// The built-in agent with every tool.
pub const GENERAL: &str = "general";
/// The built-in read-only agent.
pub const EXPLORE: &str = "explore";

/// Where an agent was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSource {
    /// Built into wright.
    Builtin,
    /// The user's agents directory.
    User(PathBuf),
    /// The project's `.wright/agents`.
    Project(PathBuf),
}

impl AgentSource {
    /// `built-in`, or the file.
    pub fn describe(&self) -> String {
        match self {
            AgentSource::Builtin => "built-in".into(),
            AgentSource::User(path) | AgentSource::Project(path) => path.display().to_string(),
        }
    }
}

/// One agent: who it is, what it may use, and its instructions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// Its name, as the Task tool's `agent` argument gives it.
    pub name: String,
    /// When to use it (one line, listed in the Task tool's description).
    pub description: String,
    /// The tools it may use; `None` for all the session has.
    pub tools: Option<Vec<String>>,
    /// Its model; `None` for the session's.
    pub model: Option<String>,
    /// Model calls it may make in its round; `None` for the session's limit.
    pub max_steps: Option<u32>,
    /// Whether it only looks: only read-only tools, and Bash only for commands the checker
    /// judges read-only. Read-only agents of one Task call run at the same time.
    pub read_only: bool,
    /// Its instructions (the file's body), added to its system prompt.
    pub instructions: String,
    /// Where it was defined.
    pub source: AgentSource,
}

impl AgentDefinition {
    fn builtin_general() -> Self {
        Self {
            name: GENERAL.into(),
            description: "General-purpose agent for multi-step tasks: researching, changing \
                          code and running commands, with every tool."
                .into(),
            tools: None,
            model: None,
            max_steps: None,
            read_only: false,
            instructions: String::new(),
            source: AgentSource::Builtin,
        }
    }

    fn builtin_explore() -> Self {
        Self {
            name: EXPLORE.into(),
            description: "Read-only agent for finding and understanding code: searches, reads \
                          and runs read-only commands, changes nothing. Several run at once."
                .into(),
            tools: Some(
                ["Read", "LS", "Glob", "Grep", "Bash"]
                    .map(String::from)
                    .to_vec(),
            ),
            model: None,
            max_steps: None,
            read_only: true,
            instructions: include_str!("../../../../prompts/agents/explore.md")
                .trim()
                .to_string(),
            source: AgentSource::Builtin,
        }
    }
}

/// A problem with one agent file: the agent is skipped, or part of it ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFileError {
    /// The file.
    pub path: PathBuf,
    /// The line the problem is on (1-based), when it has one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// Whether the agent was skipped (else it is used without what the message names).
    pub skipped: bool,
}

impl std::fmt::Display for AgentFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = match self.line {
            Some(line) => format!("{}:{line}", self.path.display()),
            None => self.path.display().to_string(),
        };
        let outcome = if self.skipped {
            "; the agent is skipped"
        } else {
            ""
        };
        write!(f, "{at}: {}{outcome}", self.message)
    }
}

/// The agents of a session, in a stable order: the built-ins, then the others by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCatalog {
    agents: Vec<AgentDefinition>,
}

impl Default for AgentCatalog {
    /// The built-in agents alone.
    fn default() -> Self {
        Self {
            agents: vec![
                AgentDefinition::builtin_general(),
                AgentDefinition::builtin_explore(),
            ],
        }
    }
}

impl AgentCatalog {
    /// The built-ins, then the agents of `user_dir` (`~/.config/wright/agents`), then those of
    /// the project's `.wright/agents`, each replacing one of the same name. `known_tools` are
    /// the tools an agent's `tools` may name (plus MCP tools, `mcp__…`). Files that cannot
    /// be used are skipped and reported.
    ///
    /// A project the user does not trust (`trusted`) may add agents but not widen what runs:
    /// its agents do not replace the built-ins, pick no model (the user's account pays) and
    /// take no more steps than the default; what is ignored is reported.
    pub fn load(
        project_root: &Path,
        user_dir: Option<&Path>,
        known_tools: &[&str],
        trusted: bool,
    ) -> (Self, Vec<AgentFileError>) {
        let mut catalog = Self::default();
        let mut problems = Vec::new();
        if let Some(dir) = user_dir {
            let files = read_dir_files(dir, None, &mut problems);
            let keep = |_: &mut AgentDefinition| Checked::Use(Vec::new());
            catalog.add_files(files, known_tools, AgentSource::User, &mut problems, keep);
        }
        let project_dir = project_root.join(".wright").join("agents");
        let files = read_dir_files(&project_dir, Some(project_root), &mut problems);
        let restrict = |agent: &mut AgentDefinition| {
            if trusted {
                return Checked::Use(Vec::new());
            }
            restrict_untrusted(agent)
        };
        catalog.add_files(
            files,
            known_tools,
            AgentSource::Project,
            &mut problems,
            restrict,
        );
        (catalog, problems)
    }

    /// Adds the agents of one directory's `files`, later ones replacing earlier ones of the
    /// same name (a name given twice in one directory is reported); `check` may change an
    /// agent (`Ok` with notes) or refuse it.
    fn add_files(
        &mut self,
        files: Vec<(PathBuf, String)>,
        known_tools: &[&str],
        source: fn(PathBuf) -> AgentSource,
        problems: &mut Vec<AgentFileError>,
        check: impl Fn(&mut AgentDefinition) -> Checked,
    ) {
        let mut seen: Vec<(String, PathBuf)> = Vec::new();
        for (path, text) in files {
            let mut agent = match parse_agent(&text, known_tools, source(path.clone())) {
                Ok(agent) => agent,
                Err(problem) => {
                    problems.push(problem.at(path));
                    continue;
                }
            };
            let notes = match check(&mut agent) {
                Checked::Use(notes) => notes,
                Checked::Skip(why) => {
                    problems.push(AgentFileError {
                        path,
                        line: None,
                        message: why,
                        skipped: true,
                    });
                    continue;
                }
            };
            for note in notes {
                problems.push(AgentFileError {
                    path: path.clone(),
                    line: None,
                    message: note,
                    skipped: false,
                });
            }
            if let Some((_, first)) = seen.iter().find(|(name, _)| *name == agent.name) {
                problems.push(AgentFileError {
                    path: path.clone(),
                    line: None,
                    message: format!(
                        "the agent `{}` is also defined in {}; this file wins",
                        agent.name,
                        first.display()
                    ),
                    skipped: false,
                });
            }
            seen.push((agent.name.clone(), path));
            self.insert(agent);
        }
    }

    /// Adds `agent`, replacing one of the same name in its place.
    fn insert(&mut self, agent: AgentDefinition) {
        match self.agents.iter_mut().find(|a| a.name == agent.name) {
            Some(slot) => *slot = agent,
            None => {
                self.agents.push(agent);
                // The two built-ins (or what replaced them) stay first.
                if let Some(rest) = self.agents.get_mut(2..) {
                    rest.sort_by(|a, b| a.name.cmp(&b.name));
                }
            }
        }
    }

    /// Every agent, in the catalog's order.
    pub fn agents(&self) -> &[AgentDefinition] {
        &self.agents
    }

    /// The agent called `name`.
    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The agents' names, in order, for messages.
    pub fn names(&self) -> Vec<&str> {
        self.agents.iter().map(|a| a.name.as_str()).collect()
    }
}

/// A problem in a file's text, before the file is known.
struct Problem {
    line: Option<usize>,
    message: String,
}

impl Problem {
    fn at(self, path: PathBuf) -> AgentFileError {
        AgentFileError {
            path,
            line: self.line,
            message: self.message,
            skipped: true,
        }
    }
}

fn problem(line: usize, message: impl Into<String>) -> Problem {
    Problem {
        line: Some(line),
        message: message.into(),
    }
}

/// The `*.md` files of `dir` with their text, in name order, at most [`MAX_AGENT_FILES`].
/// With `project` given, files are read as project files (never out of it, never a FIFO).
fn read_dir_files(
    dir: &Path,
    project: Option<&Path>,
    problems: &mut Vec<AgentFileError>,
) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    paths.sort();
    if paths.len() > MAX_AGENT_FILES {
        problems.push(AgentFileError {
            path: dir.to_path_buf(),
            line: None,
            message: format!(
                "{} agent files; only the first {MAX_AGENT_FILES} are read",
                paths.len()
            ),
            skipped: false,
        });
        paths.truncate(MAX_AGENT_FILES);
    }
    let mut files = Vec::new();
    for path in paths {
        let read = match project {
            Some(root) => {
                read_project_file(root, &path, MAX_AGENT_FILE_BYTES).map_err(|e| e.to_string())
            }
            None => read_bounded(&path),
        };
        let fail = |message: String| AgentFileError {
            path: path.clone(),
            line: None,
            message,
            skipped: true,
        };
        match read {
            Ok(bytes) if bytes.len() as u64 > MAX_AGENT_FILE_BYTES => problems.push(fail(format!(
                "longer than {} KiB",
                MAX_AGENT_FILE_BYTES / 1024
            ))),
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => files.push((path, text)),
                Err(_) => problems.push(fail("not UTF-8 text".into())),
            },
            Err(message) => problems.push(fail(format!("cannot be read: {message}"))),
        }
    }
    files
}

/// What becomes of an agent a check looked at.
enum Checked {
    /// It is used, with notes of what was ignored.
    Use(Vec<String>),
    /// It is skipped, for this reason.
    Skip(String),
}

/// An untrusted project's `agent` without what it may not do: it does not replace a
/// built-in agent, and picks no model and no more steps than the default.
fn restrict_untrusted(agent: &mut AgentDefinition) -> Checked {
    let mut notes = Vec::new();
    if agent.name == GENERAL || agent.name == EXPLORE {
        return Checked::Skip(format!(
            "this project is not trusted, so its agent `{}` does not replace the built-in one \
             (add the project to trusted_projects in your settings to allow it)",
            agent.name
        ));
    }
    if let Some(model) = agent.model.take() {
        notes.push(format!(
            "`model: {model}` ignored: this project is not trusted, and its agents use your \
             session's model"
        ));
    }
    if agent
        .max_steps
        .is_some_and(|steps| steps > crate::DEFAULT_MAX_STEPS)
    {
        agent.max_steps = None;
        notes.push(format!(
            "`max_steps` above {} ignored: this project is not trusted",
            crate::DEFAULT_MAX_STEPS
        ));
    }
    Checked::Use(notes)
}

/// At most [`MAX_AGENT_FILE_BYTES`] + 1 bytes of a regular file of the user's, opened
/// without blocking (a FIFO never blocks the start).
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
            .open(path)
    };
    #[cfg(not(unix))]
    let file = std::fs::File::open(path);
    let file = file.map_err(|e| e.to_string())?;
    let metadata = file.metadata().map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err("it is not a regular file".into());
    }
    let mut bytes = Vec::new();
    file.take(MAX_AGENT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Whether `name` may name an agent: 1 to 40 of lowercase letters, digits, `-` and `_`,
/// starting with a letter or digit.
fn valid_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// Reads one agent file.
fn parse_agent(
    text: &str,
    known_tools: &[&str],
    source: AgentSource,
) -> Result<AgentDefinition, Problem> {
    let doc = front_matter::parse(text).map_err(|e| problem(e.line, e.message))?;
    let mut agent = AgentDefinition {
        name: String::new(),
        description: String::new(),
        tools: None,
        model: None,
        max_steps: None,
        read_only: false,
        instructions: doc.body,
        source,
    };
    for entry in doc.entries {
        let line = entry.line;
        let text = |value: Value| match value {
            Value::Text(text) => Ok(text),
            Value::List(items) if items.is_empty() => {
                Err(problem(line, format!("`{}` has no value", entry.key)))
            }
            Value::List(_) => Err(problem(line, format!("`{}` takes one value", entry.key))),
        };
        match entry.key.as_str() {
            "name" => {
                let name = text(entry.value)?;
                if !valid_name(&name) {
                    return Err(problem(
                        line,
                        format!(
                            "{name:?} is not a valid agent name (1-40 lowercase letters, \
                             digits, `-` or `_`)"
                        ),
                    ));
                }
                agent.name = name;
            }
            "description" => {
                let description = text(entry.value)?
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                agent.description =
                    wright_protocol::text::clip(&description, MAX_DESCRIPTION_CHARS).into_owned();
            }
            "tools" => {
                let names: Vec<String> = match entry.value {
                    Value::Text(text) => text
                        .split(',')
                        .map(|t| t.trim().to_string())
                        .filter(|t| !t.is_empty())
                        .collect(),
                    Value::List(items) => items,
                };
                for name in &names {
                    let known = name == "*"
                        || known_tools.contains(&name.as_str())
                        || name.starts_with("mcp__");
                    if !known {
                        return Err(problem(
                            line,
                            format!(
                                "unknown tool `{name}`; the tools are: {}",
                                known_tools.join(", ")
                            ),
                        ));
                    }
                }
                if names.is_empty() {
                    return Err(problem(
                        line,
                        "`tools` names no tool; leave it out (or write `*`) for every tool",
                    ));
                }
                agent.tools = if names.iter().any(|n| n == "*") {
                    None
                } else {
                    Some(names)
                };
            }
            "model" => {
                let model = text(entry.value)?;
                if !model.is_empty() && model != "inherit" {
                    agent.model = Some(model);
                }
            }
            "max_steps" => {
                let value = text(entry.value)?;
                let steps = value
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=MAX_AGENT_STEPS).contains(n))
                    .ok_or_else(|| {
                        problem(
                            line,
                            format!("max_steps must be a number from 1 to {MAX_AGENT_STEPS}, not {value:?}"),
                        )
                    })?;
                agent.max_steps = Some(steps);
            }
            "read_only" => {
                let value = text(entry.value)?;
                agent.read_only = match value.as_str() {
                    "true" | "yes" => true,
                    "false" | "no" => false,
                    _ => {
                        return Err(problem(
                            line,
                            format!("read_only must be true or false, not {value:?}"),
                        ));
                    }
                };
            }
            // Other agents' files carry keys wright has no use for (`color`, …).
            _ => {}
        }
    }
    if agent.name.is_empty() {
        return Err(problem(doc.end_line, "the front matter has no `name`"));
    }
    if agent.description.is_empty() {
        return Err(problem(
            doc.end_line,
            "the front matter has no `description` (the parent agent picks agents by it)",
        ));
    }
    Ok(agent)
}

#[cfg(test)]
mod tests;
