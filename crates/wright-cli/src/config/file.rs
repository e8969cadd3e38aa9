//! The settings file format: what a `config.toml` may hold, and its own checks.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Deserialize;
use wright_core::ToolProtocol;
use wright_core::approval::ApprovalMode;
use wright_core::cost::Price;
use wright_core::summarize::SummaryRequestForm;
use wright_llm::ProviderKind;

use wright_tools::project_file::read_project_file;

use super::{ConfigError, expand_path};

/// The largest project settings file read.
pub const MAX_PROJECT_SETTINGS_BYTES: u64 = 1024 * 1024;

/// One settings file. Every key is optional; unknown keys are an error so typos are caught.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `openai` (any OpenAI-compatible server) or `anthropic`.
    pub provider: Option<ProviderKind>,
    /// The provider's base URL, e.g. `https://api.deepseek.com/v1`.
    pub base_url: Option<String>,
    /// The API key (prefer the environment for secrets).
    pub api_key: Option<String>,
    /// The model name as the provider knows it.
    pub model: Option<String>,
    /// Output tokens allowed per model call before the reply is cut and continued.
    pub max_output_tokens: Option<u32>,
    /// Model calls allowed in one round.
    pub max_steps: Option<u32>,
    /// How the model is offered the tools and calls them: `text` (the default) or `native`
    /// (issue 19).
    pub tool_protocol: Option<ToolProtocol>,
    /// Attempts per model call, the first included, before giving up.
    pub max_attempts: Option<u32>,
    /// The first retry's delay in milliseconds; it doubles with each retry.
    pub retry_base_delay_ms: Option<u64>,
    /// Seconds a stream may go without content (keep-alives do not count) before it counts
    /// as stalled.
    pub stream_idle_timeout_secs: Option<u64>,
    /// Seconds one request may take in all, however steadily it streams.
    pub request_timeout_secs: Option<u64>,
    /// The model's context window in tokens (spec E5). Unset, an OpenAI-compatible server
    /// that tells its window (llama.cpp, vLLM, Ollama) is asked at start; else 200,000.
    pub context_window: Option<u64>,
    /// Fraction of the window at which older rounds are compacted (spec A6).
    pub compact_threshold: Option<f64>,
    /// Whole rounds always kept verbatim by compaction (spec C6).
    pub retain_rounds: Option<usize>,
    /// Messages history must hold before compaction is considered (spec A6).
    pub min_messages: Option<usize>,
    /// The model that writes summaries; default the session's model (spec C2).
    pub summary_model: Option<String>,
    /// Seconds the summary call may take (spec E2).
    pub summary_timeout_secs: Option<u64>,
    /// Lines of each Read's content kept in history, 0 to 500 (spec A3's cap); default 50
    /// (`DEFAULT_READ_HISTORY_LINES`, a decision beyond the spec). Fewer make a long
    /// session's prompts smaller and cheaper; the model reads a file again when it needs
    /// lines history no longer has. 500 is the spec's own default.
    pub read_history_lines: Option<usize>,
    /// How the compaction's summary call is asked: `separate` (spec C2, the default: the
    /// summary prompt and the archived messages) or `session` (the session's own prompt with
    /// the summary prompt last, which the provider's prompt cache covers).
    pub summary_request: Option<SummaryRequestForm>,
    /// Which actions run without asking: `ask`, `auto-edit` or `auto`. `wright exec
    /// --approval` wins over it; unset, `exec` uses `auto`.
    pub approval: Option<ApprovalMode>,
    /// Prices per model in USD per million tokens, as `[pricing."model-name"]` tables with
    /// `input`, `output` and optionally `cached_input` (cache reads) and `cache_write` (cache
    /// writes); they win over the built-in prices.
    #[serde(default)]
    pub pricing: HashMap<String, Price>,
    /// `[bash]`: what the dangerous-command checker refuses or lets through beyond its builtin
    /// rules (issue 6).
    #[serde(default)]
    pub bash: BashConfig,
    /// `[secrets]`: masking of credentials in what the tools show the model.
    #[serde(default)]
    pub secrets: SecretsConfig,
    /// `[hooks]`: shell commands run before and after tool calls.
    #[serde(default)]
    pub hooks: HooksConfig,
    /// Directories outside the project the tools may use too (`~/` is the home directory,
    /// relative paths are from the project root).
    #[serde(default)]
    pub allow_outside_project: Vec<String>,
    /// `[sandbox]`: how Bash commands are confined.
    #[serde(default)]
    pub sandbox: SandboxConfig,
    /// `[checkpoints]`: snapshots of the project's files before the agent changes them.
    #[serde(default)]
    pub checkpoints: CheckpointsConfig,
    /// `[checks]`: commands run after steps that edited the files their patterns match.
    #[serde(default)]
    pub checks: ChecksConfig,
    /// `[git]`: commits of the agent's changes to the project's repository.
    #[serde(default)]
    pub git: GitConfig,
    /// `[agents]`: how sub-agents (the Task tool) nest and run at once.
    #[serde(default)]
    pub agents: AgentsConfig,
    /// `[mcp_servers.NAME]`: Model Context Protocol servers whose tools the agent may use
    /// (issue 15). A project's own file may declare them only when the project is trusted:
    /// they run commands.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Projects whose own `.wright/config.toml` may widen what wright does (hooks, `[bash]
    /// allow`, the sandbox, `allow_outside_project`, `base_url`, ...); read from the user's
    /// file only, since a project cannot vouch for itself.
    #[serde(default)]
    pub trusted_projects: Vec<String>,
    /// Where this project's memory is kept (issue 17), instead of under `$WRIGHT_HOME`:
    /// `~/…` from the home directory, a relative path from the project root (e.g.
    /// `.wright/memory` to keep it in the repository). A project's own file may set it only
    /// when the project is trusted.
    pub memory_dir: Option<String>,
    /// Whether a session indexes the project's code in the background when its first round
    /// starts (default true), so that the model's first RepoMap or Definitions call finds the
    /// tag cache warm.
    pub index_code_on_start: Option<bool>,
}

/// The `[sandbox]` table of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxConfig {
    /// Whether Bash commands are confined (default true).
    pub enabled: Option<bool>,
    /// Paths commands may write besides the project, the temporary directory and the
    /// `allow_outside_project` roots, e.g. `["~/.cargo"]`.
    #[serde(default)]
    pub writable: Vec<String>,
    /// Whether commands may use the network (default true).
    pub network: Option<bool>,
}

/// The `[checkpoints]` table of a settings file (issue 13).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointsConfig {
    /// Whether the project's files are snapshotted before each step that can change them
    /// (default true).
    pub enabled: Option<bool>,
    /// Days snapshots are kept (default 30).
    pub keep_days: Option<u64>,
    /// MiB the checkpoint store may take on disk before its oldest snapshots are dropped
    /// (default 2048).
    pub max_store_mb: Option<u64>,
    /// Files larger than this many bytes are not snapshotted (default 16 MiB).
    pub max_file_bytes: Option<u64>,
}

/// The `[checks]` table of a settings file (issue 13): file patterns and the command each
/// runs, beside the one setting of the table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ChecksConfig {
    /// Seconds each check may run before it is stopped (default 120).
    pub timeout_secs: Option<u64>,
    /// `"<pattern>" = "<command>"`, e.g. `"*.rs" = "cargo check -q --message-format short"`;
    /// `{files}` in the command becomes the edited files the pattern matched, shell-quoted.
    #[serde(flatten)]
    pub commands: BTreeMap<String, String>,
}

/// One `[mcp_servers.NAME]` table (issue 15): a server started as a command (`command`,
/// `args`, `env`, `cwd`) or reached over Streamable HTTP (`url`, `headers`,
/// `bearer_token_env_var`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerConfig {
    /// The program that serves MCP on its standard input and output.
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Variables set for it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The directory it runs in (default the project root).
    pub cwd: Option<String>,
    /// The URL of a Streamable HTTP server.
    pub url: Option<String>,
    /// Headers sent to it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The variable holding the bearer token sent to it (never the token itself).
    pub bearer_token_env_var: Option<String>,
    /// Only these of its tools are used (default all).
    pub enabled_tools: Option<Vec<String>>,
    /// These of its tools are never used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_tools: Vec<String>,
    /// Seconds it may take to start and list its tools (default 10).
    pub startup_timeout_secs: Option<u64>,
    /// Seconds one call may take (default 60).
    pub tool_timeout_secs: Option<u64>,
}

/// What makes the server `name` unusable, if anything (see `FileConfig::check_mcp_servers`).
pub fn mcp_server_problem(name: &str, server: &McpServerConfig) -> Option<String> {
    let valid_name = (1..=32).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_name {
        return Some(
            "a server's name is 1 to 32 letters, digits, `-` or `_` (it becomes part of its \
             tools' names, mcp__NAME__TOOL)"
                .into(),
        );
    }
    match (&server.command, &server.url) {
        (None, None) => return Some("give `command` (a program) or `url` (an HTTP server)".into()),
        (Some(_), Some(_)) => return Some("give `command` or `url`, not both".into()),
        (Some(command), None) if command.trim().is_empty() => {
            return Some("`command` is empty".into());
        }
        (Some(_), None) if !server.headers.is_empty() || server.bearer_token_env_var.is_some() => {
            return Some("`headers` and `bearer_token_env_var` are for a `url` server".into());
        }
        (None, Some(url)) if !(url.starts_with("http://") || url.starts_with("https://")) => {
            return Some(format!(
                "`url` must be an http:// or https:// URL, not {url:?}"
            ));
        }
        (None, Some(_))
            if !server.args.is_empty() || !server.env.is_empty() || server.cwd.is_some() =>
        {
            return Some("`args`, `env` and `cwd` are for a `command` server".into());
        }
        _ => {}
    }
    if server.startup_timeout_secs == Some(0) || server.tool_timeout_secs == Some(0) {
        return Some("timeouts are 1 second or more".into());
    }
    None
}

/// The `[agents]` table of a settings file (issue 14).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsConfig {
    /// How deep sub-agents may nest (default 2; 0 turns the Task tool off).
    pub max_depth: Option<u32>,
    /// Read-only sub-agents of one Task call that run at the same time (default 4).
    pub concurrency: Option<usize>,
}

/// The `[git]` table of a settings file (issue 13).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitConfig {
    /// Whether the files the agent changed are committed after each round that changed them
    /// (default false).
    pub auto_commit: Option<bool>,
    /// Put before the subject of every commit message (default none).
    pub commit_prefix: Option<String>,
    /// Put after the subject of every commit message (default none).
    pub commit_suffix: Option<String>,
    /// The model that writes commit messages (default the summary model).
    pub commit_model: Option<String>,
}

/// The `[secrets]` table of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretsConfig {
    /// Whether credentials in tool output are masked (default true).
    pub mask: Option<bool>,
    /// Extra regular expressions whose matches are masked.
    #[serde(default)]
    pub patterns: Vec<String>,
}

/// The `[hooks]` table of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HooksConfig {
    /// `[[hooks.pre_tool]]`: run before a call; exiting non-zero blocks it.
    #[serde(default)]
    pub pre_tool: Vec<HookConfig>,
    /// `[[hooks.post_tool]]`: run after a call; exiting non-zero adds a note to its result.
    #[serde(default)]
    pub post_tool: Vec<HookConfig>,
}

/// One `[[hooks.pre_tool]]` or `[[hooks.post_tool]]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// The tools it applies to, e.g. `"Bash"` or `"Write|Edit|MultiEdit"`; default every tool.
    #[serde(default = "every_tool")]
    pub tool: String,
    /// The shell command, run in the project root with the call as JSON on stdin.
    pub command: String,
    /// Seconds it may run before it is killed (default 30).
    pub timeout_secs: Option<u64>,
}

fn every_tool() -> String {
    "*".to_string()
}

/// The `[bash]` table of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BashConfig {
    /// Command patterns let through the checker's overridable rules, e.g.
    /// `["sudo apt-get install*"]`; a `*` matches any run of characters.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Command patterns always refused, e.g. `["git push*"]`; deny wins over allow.
    #[serde(default)]
    pub deny: Vec<String>,
    /// Branches `git push --force` and `--delete` may not touch; default `["main", "master"]`.
    pub protected_branches: Option<Vec<String>>,
}

impl FileConfig {
    /// Reads a settings file; a missing file is an empty one.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => {
                return Err(ConfigError::File {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                });
            }
        };
        Self::parse(path, &text)
    }

    /// The project's own settings file at `path`, read as wright reads every file a repository
    /// supplies ([`read_project_file`]): inside the project at `root`, a regular file, at most
    /// [`MAX_PROJECT_SETTINGS_BYTES`]. A missing file is no settings.
    pub fn load_from_project(root: &Path, path: &Path) -> Result<Self, ConfigError> {
        let error = |message: String| ConfigError::File {
            path: path.to_path_buf(),
            message,
        };
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(error(e.to_string())),
            Ok(_) => {}
        }
        let bytes = read_project_file(root, path, MAX_PROJECT_SETTINGS_BYTES)
            .map_err(|e| error(e.to_string()))?;
        if bytes.len() as u64 > MAX_PROJECT_SETTINGS_BYTES {
            return Err(error(format!(
                "it is larger than {} KiB",
                MAX_PROJECT_SETTINGS_BYTES / 1024
            )));
        }
        let text = String::from_utf8(bytes).map_err(|_| error("it is not UTF-8".into()))?;
        Self::parse(path, &text)
    }

    fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let config: Self = toml::from_str(text).map_err(|e| ConfigError::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        config.check_counts(path)?;
        config.check_mcp_servers(path)?;
        Ok(config)
    }

    /// Refuses an `[mcp_servers.NAME]` that cannot be started: a name that cannot become part
    /// of a tool name, neither or both of `command` and `url`, zero timeouts, HTTP settings on
    /// a command or command settings on a URL.
    fn check_mcp_servers(&self, path: &Path) -> Result<(), ConfigError> {
        for (name, server) in &self.mcp_servers {
            let problem = mcp_server_problem(name, server);
            if let Some(problem) = problem {
                return Err(ConfigError::Setting {
                    path: path.to_path_buf(),
                    key: "mcp_servers",
                    problem: format!("[mcp_servers.{name}]: {problem}"),
                });
            }
        }
        Ok(())
    }

    /// Refuses counts of zero that would make wright do nothing: no model call in a round,
    /// no attempt at a call, no time for one. Said, not silently raised to one.
    fn check_counts(&self, path: &Path) -> Result<(), ConfigError> {
        let zero = |key: &'static str, expected: &str| ConfigError::Setting {
            path: path.to_path_buf(),
            key,
            problem: format!("0 {expected}"),
        };
        if self.max_steps == Some(0) {
            return Err(zero(
                "max_steps",
                "would end every round before its first model call; expected 1 or more (default 50)",
            ));
        }
        if self.max_attempts == Some(0) {
            return Err(zero(
                "max_attempts",
                "would never call the model; expected 1 or more, the first attempt included (default 5)",
            ));
        }
        if self.request_timeout_secs == Some(0) {
            return Err(zero(
                "request_timeout_secs",
                "would end every model call at once; expected 1 or more seconds (default 600)",
            ));
        }
        Ok(())
    }

    /// Refuses `[sandbox] writable` paths that do not exist: the sandbox could not grant them,
    /// and a command that needs one would fail in a way that hides why.
    pub(super) fn check_writable(
        &self,
        path: &Path,
        project_root: &Path,
        home: Option<&Path>,
    ) -> Result<(), ConfigError> {
        for writable in &self.sandbox.writable {
            let expanded = expand_path(writable, project_root, home);
            if !expanded.exists() {
                return Err(ConfigError::Setting {
                    path: path.to_path_buf(),
                    key: "[sandbox] writable",
                    problem: format!(
                        "{writable:?} ({}) does not exist; create it, or take it out of the list",
                        expanded.display()
                    ),
                });
            }
        }
        Ok(())
    }
}
