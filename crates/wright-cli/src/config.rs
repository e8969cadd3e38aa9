//! Settings, layered highest first: flags, environment, `.wright/config.toml` in the project,
//! `~/.config/wright/config.toml`, defaults (DESIGN §8).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use wright_checker::{CommandPolicy, DEFAULT_PROTECTED_BRANCHES};
use wright_checkpoint::CheckpointSettings;
use wright_core::approval::ApprovalMode;
use wright_core::checks::{CheckSpec, Checks, DEFAULT_CHECK_TIMEOUT};
use wright_core::commit::GitSettings;
use wright_core::compaction::{
    ContextSettings, DEFAULT_COMPACT_THRESHOLD, DEFAULT_CONTEXT_WINDOW, DEFAULT_MIN_MESSAGES,
    DEFAULT_READ_HISTORY_LINES, DEFAULT_RETAIN_ROUNDS, DEFAULT_SUMMARY_TIMEOUT,
};
use wright_core::cost::Price;
use wright_core::hooks::{DEFAULT_HOOK_TIMEOUT, HookSpec, Hooks};
use wright_core::session::AgentSetup;
use wright_core::subagent::{AgentCatalog, AgentFileError, AgentProfile, SubagentSettings};
use wright_core::{AgentConfig, DEFAULT_MAX_STEPS, ToolProtocol};
use wright_llm::{
    DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_OUTPUT_TOKENS,
    DEFAULT_OPENAI_BASE_URL, DEFAULT_REQUEST_TIMEOUT, DEFAULT_RETRY_BASE_DELAY,
    DEFAULT_STREAM_IDLE_TIMEOUT, LlmClient, LlmConfig, ProviderKind,
};
use wright_store::memory::MemoryPaths;
use wright_tools::secrets::{SecretMasker, SecretPolicy};
use wright_tools::{ProtectedPath, SandboxPolicy, ToolSettings};

/// Model used against OpenAI's own endpoint when none is configured.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";
/// Model used against Anthropic's own endpoint when none is configured.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";

/// Where the project's settings live, relative to its root.
pub const PROJECT_CONFIG: &str = ".wright/config.toml";

pub use file::{
    ChecksConfig, FileConfig, HookConfig, HooksConfig, McpServerConfig, mcp_server_problem,
};

/// Settings given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--provider`.
    pub provider: Option<ProviderKind>,
    /// `--model`.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--tool-protocol`.
    pub tool_protocol: Option<ToolProtocol>,
}

/// Everything a round needs to know, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How to reach the model.
    pub llm: LlmConfig,
    /// How to run a round.
    pub agent: AgentConfig,
    /// The approval mode of the settings files, if one sets it (each command has its own
    /// default).
    pub approval: Option<ApprovalMode>,
    /// The configured prices, by model name; a file's entry wins over a lower file's entry for
    /// the same model. The built-in prices apply to models not named here.
    pub prices: HashMap<String, Price>,
    /// How the tools run: the checker's rules and the credential masker (see
    /// [`tool_settings`]).
    pub tools: ToolSettings,
    /// The `pre_tool` and `post_tool` hooks of every settings file, highest file first.
    pub hooks: Hooks,
    /// Whether a setting names the context window (`context_window`,
    /// `WRIGHT_CONTEXT_WINDOW`); if none does, [`learn_context_window`] asks the server.
    pub context_window_set: bool,
    /// `[checkpoints]`, resolved.
    pub checkpoints: CheckpointConfig,
    /// The `[checks]` of every settings file (see [`checks`]).
    pub checks: Checks,
    /// `[git]`, resolved.
    pub git: GitSettings,
    /// The agents the Task tool may run: the built-ins, the user's and the project's.
    pub agents: Arc<AgentCatalog>,
    /// Agent files that could not be used (each agent skipped), for the user to see.
    pub agent_problems: Vec<AgentFileError>,
    /// `[agents]`, resolved.
    pub subagents: SubagentSettings,
    /// The MCP servers of the settings (issue 15), in name order.
    pub mcp_servers: Vec<(String, McpServerConfig)>,
    /// `memory_dir`, resolved: where the project's memory is kept instead of under
    /// `$WRIGHT_HOME` (issue 17).
    pub memory_dir: Option<PathBuf>,
}

/// The user's settings directory: `$XDG_CONFIG_HOME/wright`, else `~/.config/wright`.
pub fn user_config_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|dir| dir.join("wright"))
}

/// `[agents]` of the settings files (highest first), each key from the first file that sets
/// it; the concurrency is kept between 1 and 16.
pub fn subagent_settings(files: &[FileConfig]) -> SubagentSettings {
    let defaults = SubagentSettings::default();
    SubagentSettings {
        max_depth: files
            .iter()
            .find_map(|f| f.agents.max_depth)
            .unwrap_or(defaults.max_depth)
            .min(MAX_SUBAGENT_DEPTH),
        concurrency: files
            .iter()
            .find_map(|f| f.agents.concurrency)
            .unwrap_or(defaults.concurrency)
            .clamp(1, 16),
    }
}

/// The MCP servers of the settings files (highest first): the user's, then the project's (a
/// project's file keeps them only when the project is trusted), a higher file's server
/// replacing a lower one of the same name; in name order.
pub fn mcp_servers(files: &[FileConfig]) -> Vec<(String, McpServerConfig)> {
    let mut servers: BTreeMap<String, McpServerConfig> = BTreeMap::new();
    for file in files.iter().rev() {
        for (name, server) in &file.mcp_servers {
            servers.insert(name.clone(), server.clone());
        }
    }
    servers.into_iter().collect()
}

/// The deepest sub-agents may nest whatever the settings say.
const MAX_SUBAGENT_DEPTH: u32 = 4;

/// The agents of the project at `root` for tools `tools` (the Task tool's own name
/// included): the built-ins, the user's `agents/` and the project's `.wright/agents/`.
/// Whether the project is trusted is read from the settings `files` (highest first, the
/// project's own first), already loaded.
pub fn agent_catalog(
    root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    tools: &ToolSettings,
    files: &[FileConfig],
) -> (AgentCatalog, Vec<AgentFileError>) {
    let registry = tools.registry();
    let mut known: Vec<&str> = registry.names();
    known.push("Task");
    let user = user_config_dir(env).map(|dir| dir.join("agents"));
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let home = env("HOME").map(PathBuf::from);
    let trusted = files
        .split_first()
        .is_some_and(|(_, user_files)| trusted_by(user_files, &canonical, home.as_deref()));
    AgentCatalog::load(root, user.as_deref(), &known, trusted)
}

/// The agents of the project at `project_root` (`wright agents list`), from the real
/// environment, without a model.
pub fn load_agents(
    project_root: &Path,
) -> Result<(AgentCatalog, Vec<AgentFileError>), ConfigError> {
    let env = process_env;
    let home = env("HOME").map(PathBuf::from);
    let files = load_files(project_root, &env)?;
    let tools = tool_settings(&files, project_root, home.as_deref(), process_vars())?;
    Ok(agent_catalog(project_root, &env, &tools, &files))
}

/// `[git]` of the settings files (highest first), each key from the first file that sets it.
pub fn git_settings(files: &[FileConfig]) -> GitSettings {
    GitSettings {
        auto_commit: files
            .iter()
            .find_map(|f| f.git.auto_commit)
            .unwrap_or(false),
        commit_prefix: files
            .iter()
            .find_map(|f| f.git.commit_prefix.clone())
            .unwrap_or_default(),
        commit_suffix: files
            .iter()
            .find_map(|f| f.git.commit_suffix.clone())
            .unwrap_or_default(),
        commit_model: files.iter().find_map(|f| f.git.commit_model.clone()),
    }
}

impl Settings {
    /// What the agent of a session in the project at `root` is built from, with `approval`
    /// and checkpoints in the store under `home` (`$WRIGHT_HOME`), as `[checkpoints]` says.
    pub fn agent_setup(&self, root: &Path, home: &Path, approval: ApprovalMode) -> AgentSetup {
        AgentSetup {
            root: root.to_path_buf(),
            llm: self.llm.clone(),
            agent: self.agent.clone(),
            tools: self.tools.clone(),
            approval,
            approver: None,
            hooks: self.hooks.clone(),
            checks: self.checks.clone(),
            checkpoints: crate::checkpoints::for_agent(home, root, &self.checkpoints),
            git: self.git.clone(),
            agents: Arc::clone(&self.agents),
            subagents: self.subagents,
            profile: AgentProfile::default(),
            prices: self.prices.clone(),
            external_tools: None,
            memory: Some(MemoryPaths::new(home, root, self.memory_dir.as_deref())),
        }
    }
}

/// `memory_dir` of the settings `files` (highest first), resolved from the project root and
/// `home` (issue 17).
pub fn memory_dir(
    files: &[FileConfig],
    project_root: &Path,
    home: Option<&Path>,
) -> Option<PathBuf> {
    files
        .iter()
        .find_map(|f| f.memory_dir.as_deref())
        .filter(|dir| !dir.trim().is_empty())
        .map(|dir| expand_path(dir, project_root, home))
}

/// Where the project at `project_root` keeps its memory and the user their global memory, as
/// the settings files and the environment say (`wright memory`, without a model).
pub fn memory_paths(project_root: &Path) -> Result<MemoryPaths, ConfigError> {
    let env = process_env;
    let files = load_files(project_root, &env)?;
    let home = wright_home(&env)?;
    let user_home = env("HOME").map(PathBuf::from);
    let dir = memory_dir(&files, project_root, user_home.as_deref());
    Ok(MemoryPaths::new(&home, project_root, dir.as_deref()))
}

/// Days snapshots are kept unless `[checkpoints] keep_days` says otherwise (issue 13).
pub const DEFAULT_CHECKPOINT_KEEP_DAYS: u64 = 30;

/// MiB the checkpoint store may take unless `[checkpoints] max_store_mb` says otherwise (issue
/// 13: "the store is bounded ... and a size cap"): room for months of snapshots of a large
/// source tree, small beside the disks it lives on.
pub const DEFAULT_CHECKPOINT_MAX_STORE_MB: u64 = 2048;

/// How checkpoints are taken and kept (`[checkpoints]`, issue 13).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointConfig {
    /// Whether the agent snapshots the files before each step that can change them.
    pub enabled: bool,
    /// How long snapshots are kept.
    pub keep: Duration,
    /// Bytes the store may take on disk before its oldest chains of snapshots are dropped.
    pub max_store_bytes: u64,
    /// How snapshots are taken (the size cap).
    pub store: CheckpointSettings,
}

/// `[checkpoints]` of the settings files (highest first), each key from the first file that
/// sets it.
pub fn checkpoint_config(files: &[FileConfig]) -> CheckpointConfig {
    let keep_days = files
        .iter()
        .find_map(|f| f.checkpoints.keep_days)
        .unwrap_or(DEFAULT_CHECKPOINT_KEEP_DAYS);
    CheckpointConfig {
        enabled: files
            .iter()
            .find_map(|f| f.checkpoints.enabled)
            .unwrap_or(true),
        keep: Duration::from_secs(keep_days.saturating_mul(24 * 60 * 60)),
        max_store_bytes: files
            .iter()
            .find_map(|f| f.checkpoints.max_store_mb)
            .unwrap_or(DEFAULT_CHECKPOINT_MAX_STORE_MB)
            .saturating_mul(1024 * 1024),
        store: CheckpointSettings {
            max_file_bytes: files
                .iter()
                .find_map(|f| f.checkpoints.max_file_bytes)
                .unwrap_or(CheckpointSettings::DEFAULT_MAX_FILE_BYTES),
        },
    }
}

/// When no setting names the context window, asks an OpenAI-compatible server for it
/// (llama.cpp, vLLM, Ollama; see `LlmClient::discover_context_window`) and uses its answer.
/// Takes at most 2 s; any failure keeps the default, silently.
pub async fn learn_context_window(settings: &mut Settings) {
    if settings.context_window_set {
        return;
    }
    let Ok(client) = LlmClient::new(settings.llm.clone()) else {
        return;
    };
    if let Some(window) = client.discover_context_window().await {
        settings.agent.context.context_window = window;
    }
}

/// The tool settings of the settings files (highest first): the `[bash]` policy, the
/// `[sandbox]` and `allow_outside_project` (every file's paths), and the `[secrets]` masker, which also masks every API key the files or `env_vars` hold and the
/// values of the variables in `env_vars` whose name says they are secret.
pub fn tool_settings(
    files: &[FileConfig],
    project_root: &Path,
    home: Option<&Path>,
    env_vars: impl IntoIterator<Item = (String, String)>,
) -> Result<ToolSettings, ConfigError> {
    let policy = SecretPolicy {
        enabled: files.iter().find_map(|f| f.secrets.mask).unwrap_or(true),
        patterns: files
            .iter()
            .flat_map(|f| f.secrets.patterns.clone())
            .collect(),
        literals: files.iter().filter_map(|f| f.api_key.clone()).collect(),
    };
    let masker = SecretMasker::new(&policy)
        .map_err(|e| ConfigError::Secrets(e.to_string()))?
        .from_env(env_vars);
    Ok(ToolSettings {
        command_policy: command_policy(files),
        masker,
        sandbox: SandboxPolicy {
            enabled: files.iter().find_map(|f| f.sandbox.enabled).unwrap_or(true),
            writable: files
                .iter()
                .flat_map(|f| f.sandbox.writable.iter())
                .map(|path| expand_path(path, project_root, home))
                .collect(),
            network: files.iter().find_map(|f| f.sandbox.network).unwrap_or(true),
        },
        extra_roots: files
            .iter()
            .flat_map(|f| f.allow_outside_project.iter())
            .map(|path| expand_path(path, project_root, home))
            .collect(),
        protected: Vec::new(),
        code_cache: None,
        // Any file may turn it off, none can turn it back on: a project cannot make wright
        // parse it at start-up against the user's `false`.
        index_code_on_start: !files.iter().any(|f| f.index_code_on_start == Some(false)),
    })
}

/// What the tools may not change besides the project's own `.git` settings and `.wright/`
/// (issue 12), wherever the project is: the user's settings directory, `$WRIGHT_HOME` (the
/// sessions), and every existing file a hook command names (`./scripts/vet.sh`, `python3
/// tools/check.py`), since wright runs hooks outside the sandbox. The settings directory and
/// `$WRIGHT_HOME` are protected even before they exist.
pub fn protected_paths(
    files: &[FileConfig],
    project_root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<ProtectedPath> {
    let mut paths = Vec::new();
    for settings in config_files(project_root, env).iter().skip(1) {
        if let Some(dir) = settings.parent() {
            paths.push(ProtectedPath::new(dir, "your wright settings"));
        }
    }
    if let Ok(home) = wright_home(env) {
        paths.push(ProtectedPath::new(
            &home,
            "wright's sessions and state ($WRIGHT_HOME)",
        ));
    }
    let hook_commands = files
        .iter()
        .flat_map(|f| f.hooks.pre_tool.iter().chain(&f.hooks.post_tool))
        .map(|hook| hook.command.as_str());
    for command in hook_commands {
        // A word that names an existing file, as `sh -c` in the project root would find it.
        let words = shlex::split(command)
            .unwrap_or_else(|| command.split_whitespace().map(String::from).collect());
        for word in words {
            let path = project_root.join(&word);
            if word.contains('/') && path.is_file() {
                paths.extend(ProtectedPath::existing(
                    &path,
                    "a script a hook runs outside the sandbox",
                ));
            }
        }
    }
    paths
}

/// A configured path: `~` and `~/…` from `home`, relative paths from the project root.
fn expand_path(path: &str, project_root: &Path, home: Option<&Path>) -> PathBuf {
    let expanded = match (path.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) if rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(path),
    };
    project_root.join(expanded)
}

/// The `[hooks]` of the settings files, highest file first.
pub fn hooks(files: &[FileConfig]) -> Result<Hooks, ConfigError> {
    let specs = |pick: fn(&HooksConfig) -> &Vec<HookConfig>| -> Vec<HookSpec> {
        files
            .iter()
            .flat_map(|f| pick(&f.hooks).iter())
            .map(|hook| HookSpec {
                tool: hook.tool.clone(),
                command: hook.command.clone(),
                timeout: hook
                    .timeout_secs
                    .map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_secs),
            })
            .collect()
    };
    Hooks::new(specs(|h| &h.pre_tool), specs(|h| &h.post_tool))
        .map_err(|e| ConfigError::Hooks(e.to_string()))
}

/// The `[checks]` of the settings files, highest file first: a pattern's command from the
/// highest file that names the pattern (an empty command turns a lower file's off), the
/// timeout from the highest file that sets one. Patterns are taken in sorted order.
pub fn checks(files: &[FileConfig]) -> Result<Checks, ConfigError> {
    let mut commands: BTreeMap<&str, &str> = BTreeMap::new();
    for file in files.iter().rev() {
        for (pattern, command) in &file.checks.commands {
            commands.insert(pattern, command);
        }
    }
    let specs = commands
        .into_iter()
        .filter(|(_, command)| !command.trim().is_empty())
        .map(|(pattern, command)| CheckSpec {
            pattern: pattern.to_string(),
            command: command.to_string(),
        })
        .collect();
    let timeout = files
        .iter()
        .find_map(|f| f.checks.timeout_secs)
        .map_or(DEFAULT_CHECK_TIMEOUT, Duration::from_secs);
    Checks::new(specs, timeout).map_err(|e| ConfigError::Checks(e.to_string()))
}

/// The `[bash]` tables of the settings files (highest first) as one policy: every file's
/// `allow` and `deny` patterns, and `protected_branches` from the highest file that sets it.
pub fn command_policy(files: &[FileConfig]) -> CommandPolicy {
    let protected_branches = files
        .iter()
        .find_map(|f| f.bash.protected_branches.clone())
        .unwrap_or_else(|| DEFAULT_PROTECTED_BRANCHES.map(String::from).to_vec());
    CommandPolicy::new(
        files.iter().flat_map(|f| f.bash.allow.clone()).collect(),
        files.iter().flat_map(|f| f.bash.deny.clone()).collect(),
        protected_branches,
    )
}

/// The `[pricing]` tables of the settings files (highest first) merged per model.
pub fn prices(files: &[FileConfig]) -> Result<HashMap<String, Price>, ConfigError> {
    let mut prices = HashMap::new();
    for file in files.iter().rev() {
        for (model, price) in &file.pricing {
            if !price.is_valid() {
                return Err(ConfigError::Price {
                    model: model.clone(),
                });
            }
            prices.insert(model.clone(), *price);
        }
    }
    Ok(prices)
}

/// The tool protocol the settings choose when no flag does: `WRIGHT_TOOL_PROTOCOL`, then the
/// first settings file that sets `tool_protocol`, else `text`.
pub fn tool_protocol(
    env: &impl Fn(&str) -> Option<String>,
    files: &[FileConfig],
) -> Result<ToolProtocol, ConfigError> {
    if let Some(value) = env("WRIGHT_TOOL_PROTOCOL") {
        return value.parse().map_err(|_| ConfigError::Env {
            name: "WRIGHT_TOOL_PROTOCOL",
            value,
            expected: "expected `text` or `native`",
        });
    }
    Ok(files
        .iter()
        .find_map(|f| f.tool_protocol)
        .unwrap_or_default())
}

/// Resolves the context settings (flags have none): environment, then files, then defaults.
pub fn context_settings(
    env: &dyn Fn(&str) -> Option<String>,
    files: &[FileConfig],
) -> Result<ContextSettings, ConfigError> {
    let env_number = |name: &'static str| -> Result<Option<u64>, ConfigError> {
        match env(name).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(value) => value
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| ConfigError::Env {
                    name,
                    value,
                    expected: "expected a whole number",
                }),
        }
    };
    let context_window = env_number("WRIGHT_CONTEXT_WINDOW")?
        .or_else(|| files.iter().find_map(|f| f.context_window))
        .unwrap_or(DEFAULT_CONTEXT_WINDOW);
    let retain_rounds = env_number("WRIGHT_RETAIN_ROUNDS")?
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        .or_else(|| files.iter().find_map(|f| f.retain_rounds))
        .unwrap_or(DEFAULT_RETAIN_ROUNDS);
    let summary_timeout = env_number("WRIGHT_SUMMARY_TIMEOUT_SECS")?
        .or_else(|| files.iter().find_map(|f| f.summary_timeout_secs))
        .map_or(DEFAULT_SUMMARY_TIMEOUT, Duration::from_secs);
    let compact_threshold = files
        .iter()
        .find_map(|f| f.compact_threshold)
        .unwrap_or(DEFAULT_COMPACT_THRESHOLD);
    if !(compact_threshold > 0.0 && compact_threshold <= 1.0) {
        return Err(ConfigError::Invalid {
            key: "compact_threshold",
            expected: "a fraction of the context window above 0 and at most 1, e.g. 0.8",
        });
    }
    if context_window == 0 {
        return Err(ConfigError::Invalid {
            key: "context_window",
            expected: "a number of tokens above 0, e.g. 200000",
        });
    }
    let read_history_lines = files
        .iter()
        .find_map(|f| f.read_history_lines)
        .unwrap_or(DEFAULT_READ_HISTORY_LINES);
    if read_history_lines > wright_tools::READ_MAX_LINES {
        return Err(ConfigError::Invalid {
            key: "read_history_lines",
            expected: "a number of lines from 0 to 500 (spec A3 keeps at most 500 of a Read)",
        });
    }
    Ok(ContextSettings {
        context_window,
        compact_threshold,
        retain_rounds: retain_rounds.max(1),
        min_messages: files
            .iter()
            .find_map(|f| f.min_messages)
            .unwrap_or(DEFAULT_MIN_MESSAGES),
        summary_timeout,
        summary_model: files.iter().find_map(|f| f.summary_model.clone()),
        read_history_lines,
        summary_request: files
            .iter()
            .find_map(|f| f.summary_request)
            .unwrap_or_default(),
    })
}

/// A configuration problem; the binary exits with code 2.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Neither a key nor a server is configured.
    #[error("{}", NOT_CONFIGURED)]
    NotConfigured,
    /// A custom server without a model name.
    #[error(
        "no model is configured for {base_url}.\nSet WRIGHT_MODEL (or `model` in {PROJECT_CONFIG}) to a model that server serves, e.g. WRIGHT_MODEL=qwen2.5-coder:7b."
    )]
    MissingModel {
        /// The server in question.
        base_url: String,
    },
    /// A settings file could not be read or parsed.
    #[error("invalid settings file {}:\n{message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A setting holds a value that does not fit.
    #[error("invalid `{key}`: expected {expected}")]
    Invalid {
        /// The setting.
        key: &'static str,
        /// What it should be.
        expected: &'static str,
    },
    /// A setting in a settings file holds a value that cannot be used.
    #[error("invalid `{key}` in {}: {problem}", path.display())]
    Setting {
        /// The settings file.
        path: PathBuf,
        /// The setting.
        key: &'static str,
        /// What is wrong and what would do.
        problem: String,
    },
    /// A `[pricing."model"]` table holds a negative or non-finite price.
    #[error(
        "invalid `[pricing.\"{model}\"]`: expected prices in USD per million tokens, 0 or more, e.g. input = 3.0, output = 15.0, cached_input = 0.3, cache_write = 3.75"
    )]
    Price {
        /// The model whose price is wrong.
        model: String,
    },
    /// A `[secrets]` pattern does not compile.
    #[error("invalid `[secrets]` setting: {0}")]
    Secrets(String),
    /// A `[checks]` file pattern does not compile.
    #[error("{0}")]
    Checks(String),
    /// A `[[hooks.*]]` entry's tool pattern does not compile.
    #[error("invalid `[hooks]` setting: {0}")]
    Hooks(String),
    /// An environment variable holds a value that does not fit.
    #[error("invalid {name}={value:?}: {expected}")]
    Env {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
}

const NOT_CONFIGURED: &str = "no model provider is configured.

Set an API key, and for other providers a base URL and model. For example:

  OpenAI     export OPENAI_API_KEY=sk-...
  DeepSeek   export WRIGHT_BASE_URL=https://api.deepseek.com/v1 WRIGHT_API_KEY=sk-... WRIGHT_MODEL=deepseek-chat
  Anthropic  export ANTHROPIC_API_KEY=sk-ant-...
  Ollama     export WRIGHT_BASE_URL=http://localhost:11434/v1 WRIGHT_MODEL=qwen2.5-coder:7b

Environment: WRIGHT_PROVIDER (openai | anthropic), WRIGHT_BASE_URL, WRIGHT_API_KEY, WRIGHT_MODEL;
OPENAI_API_KEY, OPENAI_BASE_URL and ANTHROPIC_API_KEY are used when those are unset.
The same settings (provider, base_url, api_key, model) can go in .wright/config.toml in the
project or in ~/.config/wright/config.toml.";

/// The settings files that apply to `project_root`, highest first.
pub fn config_files(project_root: &Path, env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let mut files = vec![project_root.join(PROJECT_CONFIG)];
    if let Some(dir) = user_config_dir(env) {
        files.push(dir.join("config.toml"));
    }
    files
}

/// Resolves the settings from flags, the environment (`env`) and settings files (highest
/// first).
pub fn resolve(
    flags: &Flags,
    env: &dyn Fn(&str) -> Option<String>,
    files: &[FileConfig],
    project_root: &Path,
) -> Result<Settings, ConfigError> {
    let env = |name: &str| env(name).filter(|value| !value.is_empty());
    let from_files = |pick: &dyn Fn(&FileConfig) -> Option<String>| files.iter().find_map(pick);
    let file_value = |pick: fn(&FileConfig) -> Option<u64>| files.iter().find_map(pick);

    let env_provider = match env("WRIGHT_PROVIDER") {
        Some(value) => Some(
            value
                .parse::<ProviderKind>()
                .map_err(|_| ConfigError::Env {
                    name: "WRIGHT_PROVIDER",
                    value,
                    expected: "expected `openai` or `anthropic`",
                })?,
        ),
        None => None,
    };
    let explicit_key = env("WRIGHT_API_KEY").or_else(|| from_files(&|f| f.api_key.clone()));
    let provider = flags
        .provider
        .or(env_provider)
        .or_else(|| files.iter().find_map(|f| f.provider))
        .unwrap_or_else(|| {
            let only_anthropic_key = explicit_key.is_none()
                && env("OPENAI_API_KEY").is_none()
                && env("ANTHROPIC_API_KEY").is_some();
            if only_anthropic_key {
                ProviderKind::Anthropic
            } else {
                ProviderKind::OpenAi
            }
        });
    let fallback_key = match provider {
        ProviderKind::OpenAi => env("OPENAI_API_KEY"),
        ProviderKind::Anthropic => env("ANTHROPIC_API_KEY"),
    };
    let api_key = explicit_key.or(fallback_key);
    let fallback_base_url = match provider {
        ProviderKind::OpenAi => env("OPENAI_BASE_URL"),
        ProviderKind::Anthropic => None,
    };
    let custom_base_url = flags
        .base_url
        .clone()
        .or_else(|| env("WRIGHT_BASE_URL"))
        .or_else(|| from_files(&|f| f.base_url.clone()))
        .or(fallback_base_url);
    if api_key.is_none() && custom_base_url.is_none() {
        return Err(ConfigError::NotConfigured);
    }
    let model = flags
        .model
        .clone()
        .or_else(|| env("WRIGHT_MODEL"))
        .or_else(|| from_files(&|f| f.model.clone()));
    let (base_url, model) = match (custom_base_url, model) {
        (Some(base_url), Some(model)) => (base_url, model),
        (Some(base_url), None) => return Err(ConfigError::MissingModel { base_url }),
        (None, model) => match provider {
            ProviderKind::OpenAi => (
                DEFAULT_OPENAI_BASE_URL.to_string(),
                model.unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_string()),
            ),
            ProviderKind::Anthropic => (
                DEFAULT_ANTHROPIC_BASE_URL.to_string(),
                model.unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_string()),
            ),
        },
    };

    let mut llm = LlmConfig::new(provider, base_url, model);
    llm.api_key = api_key;
    llm.max_output_tokens = files
        .iter()
        .find_map(|f| f.max_output_tokens)
        .unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS);
    llm.max_attempts = files
        .iter()
        .find_map(|f| f.max_attempts)
        .unwrap_or(DEFAULT_MAX_ATTEMPTS);
    llm.retry_base_delay = file_value(|f| f.retry_base_delay_ms)
        .map_or(DEFAULT_RETRY_BASE_DELAY, Duration::from_millis);
    llm.stream_idle_timeout = file_value(|f| f.stream_idle_timeout_secs)
        .map_or(DEFAULT_STREAM_IDLE_TIMEOUT, Duration::from_secs);
    llm.request_timeout =
        file_value(|f| f.request_timeout_secs).map_or(DEFAULT_REQUEST_TIMEOUT, Duration::from_secs);
    let agent = AgentConfig {
        max_steps: files
            .iter()
            .find_map(|f| f.max_steps)
            .unwrap_or(DEFAULT_MAX_STEPS),
        context: context_settings(&env, files)?,
        user_config_dir: user_config_dir(&env),
        tool_protocol: match flags.tool_protocol {
            Some(protocol) => protocol,
            None => tool_protocol(&env, files)?,
        },
    };
    Ok(Settings {
        llm,
        agent,
        approval: files.iter().find_map(|f| f.approval),
        prices: prices(files)?,
        tools: tool_settings(
            files,
            project_root,
            env("HOME").as_deref().map(Path::new),
            KEY_VARIABLES
                .iter()
                .filter_map(|name| Some((name.to_string(), env(name)?))),
        )?,
        hooks: hooks(files)?,
        context_window_set: env("WRIGHT_CONTEXT_WINDOW").is_some_and(|v| !v.is_empty())
            || files.iter().any(|f| f.context_window.is_some()),
        checkpoints: checkpoint_config(files),
        checks: checks(files)?,
        git: git_settings(files),
        agents: Arc::default(),
        agent_problems: Vec::new(),
        subagents: subagent_settings(files),
        mcp_servers: mcp_servers(files),
        memory_dir: memory_dir(files, project_root, env("HOME").as_deref().map(Path::new)),
    })
}

/// The settings files of a project, read, highest first. The project's own file is
/// restricted unless the project is trusted (see [`restrict_untrusted`]); what was ignored is
/// said on stderr.
pub fn load_files(
    project_root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<FileConfig>, ConfigError> {
    let paths = config_files(project_root, env);
    // The first is the project's own file: read as every file a repository supplies.
    let mut files = paths
        .iter()
        .enumerate()
        .map(|(index, path)| match index {
            0 => FileConfig::load_from_project(project_root, path),
            _ => FileConfig::load(path),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let home = env("HOME").map(PathBuf::from);
    for warning in restrict_untrusted(&mut files, project_root, home.as_deref()) {
        eprintln!("wright: {warning}");
    }
    // Only what is left after the restriction is used, so only that is checked.
    for (file, path) in files.iter().zip(&paths) {
        file.check_writable(path, project_root, home.as_deref())?;
    }
    Ok(files)
}

/// Whether a user settings file among `user_files` lists the project at (canonical) `root`
/// in `trusted_projects`.
fn trusted_by(user_files: &[FileConfig], root: &Path, home: Option<&Path>) -> bool {
    user_files
        .iter()
        .flat_map(|f| f.trusted_projects.iter())
        .map(|path| expand_path(path, root, home))
        .filter_map(|path| path.canonicalize().ok())
        .any(|path| root.starts_with(path))
}

/// Takes out of the project's own settings file (`files[0]`) what would let a repository
/// someone else wrote widen what wright does on this machine — run commands of its choosing
/// (`[hooks]`, `[checks]`), let more commands or writes through (`[bash] allow`, `[sandbox]`,
/// `allow_outside_project`), show secrets (`[secrets] mask = false`), skip questions
/// (`approval`), send the API key elsewhere (`base_url`), run the user's traffic under another
/// account or model (`api_key`, `provider`, `model`, `summary_model`), protect fewer
/// branches (`[bash] protected_branches`), or take undo away (`[checkpoints]`), declare MCP servers
/// (`[mcp_servers]`) or raise `[agents]` — unless a user settings file lists the project in
/// `trusted_projects`. Returns one line per thing ignored.
pub fn restrict_untrusted(
    files: &mut [FileConfig],
    project_root: &Path,
    home: Option<&Path>,
) -> Vec<String> {
    let Some((project, user_files)) = files.split_first_mut() else {
        return Vec::new();
    };
    let root = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_path_buf());
    if trusted_by(user_files, &root, home) {
        return Vec::new();
    }
    let mut ignored = Vec::new();
    // An MCP server is a command the repository picks, run on every session start.
    if !project.mcp_servers.is_empty() {
        project.mcp_servers.clear();
        ignored.push("[mcp_servers]");
    }
    // Sub-agents multiply calls: a repository may have fewer of them, not more.
    let defaults = SubagentSettings::default();
    if project
        .agents
        .max_depth
        .is_some_and(|d| d > defaults.max_depth)
    {
        project.agents.max_depth = None;
        ignored.push("[agents] max_depth");
    }
    if project
        .agents
        .concurrency
        .is_some_and(|c| c > defaults.concurrency)
    {
        project.agents.concurrency = None;
        ignored.push("[agents] concurrency");
    }
    if !project.hooks.pre_tool.is_empty() || !project.hooks.post_tool.is_empty() {
        project.hooks = HooksConfig::default();
        ignored.push("[hooks]");
    }
    // Checks run commands of the file's choosing (confined, but on every edit).
    if !project.checks.commands.is_empty() || project.checks.timeout_secs.is_some() {
        project.checks = ChecksConfig::default();
        ignored.push("[checks]");
    }
    if !project.bash.allow.is_empty() {
        project.bash.allow.clear();
        ignored.push("[bash] allow");
    }
    if project.sandbox.enabled == Some(false) {
        project.sandbox.enabled = None;
        ignored.push("[sandbox] enabled = false");
    }
    if !project.sandbox.writable.is_empty() {
        project.sandbox.writable.clear();
        ignored.push("[sandbox] writable");
    }
    if project.sandbox.network == Some(true) {
        project.sandbox.network = None;
        ignored.push("[sandbox] network = true");
    }
    if !project.allow_outside_project.is_empty() {
        project.allow_outside_project.clear();
        ignored.push("allow_outside_project");
    }
    // Undo is the user's safety net: a repository does not take it away, nor shrink it.
    if project.checkpoints.enabled == Some(false) {
        project.checkpoints.enabled = None;
        ignored.push("[checkpoints] enabled = false");
    }
    if project.checkpoints.keep_days.take().is_some() {
        ignored.push("[checkpoints] keep_days");
    }
    if project.checkpoints.max_file_bytes.take().is_some() {
        ignored.push("[checkpoints] max_file_bytes");
    }
    if project.checkpoints.max_store_mb.take().is_some() {
        ignored.push("[checkpoints] max_store_mb");
    }
    if project.secrets.mask == Some(false) {
        project.secrets.mask = None;
        ignored.push("[secrets] mask = false");
    }
    if matches!(
        project.approval,
        Some(ApprovalMode::Auto | ApprovalMode::AutoEdit)
    ) {
        project.approval = None;
        ignored.push("approval");
    }
    if project.base_url.take().is_some() {
        ignored.push("base_url");
    }
    // The user's account and choice of model: a repository does not pick them.
    if project.api_key.take().is_some() {
        ignored.push("api_key");
    }
    if project.provider.take().is_some() {
        ignored.push("provider");
    }
    if project.model.take().is_some() {
        ignored.push("model");
    }
    if project.summary_model.take().is_some() {
        ignored.push("summary_model");
    }
    // Commits run the repository's hooks and write the user's history: the user turns them on.
    if project.git.auto_commit == Some(true) {
        project.git.auto_commit = None;
        ignored.push("[git] auto_commit = true");
    }
    if project.git.commit_model.take().is_some() {
        ignored.push("[git] commit_model");
    }
    // A project may protect more branches, not fewer.
    let protected: Vec<String> = user_files
        .iter()
        .find_map(|f| f.bash.protected_branches.clone())
        .unwrap_or_else(|| {
            DEFAULT_PROTECTED_BRANCHES
                .iter()
                .map(|b| (*b).to_string())
                .collect()
        });
    if project
        .bash
        .protected_branches
        .as_ref()
        .is_some_and(|branches| protected.iter().any(|b| !branches.contains(b)))
    {
        project.bash.protected_branches = None;
        ignored.push("[bash] protected_branches (it protects fewer branches)");
    }
    // Memory ends up in every session's prompt: a repository does not pick where it is read
    // from, nor where wright writes it.
    if project.memory_dir.take().is_some() {
        ignored.push("memory_dir");
    }
    project.trusted_projects.clear();
    if ignored.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "ignoring {} in {PROJECT_CONFIG}: this project is not trusted, and those settings would \
         widen what wright does here. If you trust it, add trusted_projects = [\"{}\"] to your \
         user settings (~/.config/wright/config.toml).",
        ignored.join(", "),
        root.display()
    )]
}

/// The variables that hold a provider key.
const KEY_VARIABLES: [&str; 3] = wright_tools::PROVIDER_KEY_VARIABLES;

/// The provider keys wright was started with, moved out of its environment by
/// [`take_provider_keys`] (issue 12).
static PROVIDER_KEYS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();

/// Moves the provider-key variables out of wright's environment into memory only
/// [`process_env`] reads, so that nothing wright starts (commands, hooks, the watchdog)
/// inherits them, whatever spawns it. The bytes wright was started with stay in its
/// `/proc/PID/environ`; wright's process is made non-dumpable for that.
///
/// # Safety
///
/// Changing the environment races with any other thread reading it: call this at the very
/// start of `main`, while wright has one thread.
#[allow(unsafe_code)]
pub unsafe fn take_provider_keys() {
    let keys = KEY_VARIABLES
        .iter()
        .filter_map(|&name| Some((name, std::env::var(name).ok()?)))
        .collect();
    for name in KEY_VARIABLES {
        // SAFETY: the caller guarantees no other thread exists yet.
        unsafe { std::env::remove_var(name) };
    }
    let _ = PROVIDER_KEYS.set(keys);
}

/// The variable `name` of wright's environment, provider keys included (see
/// [`take_provider_keys`]).
pub fn process_env(name: &str) -> Option<String> {
    PROVIDER_KEYS
        .get()
        .and_then(|keys| keys.iter().find(|(key, _)| *key == name))
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var(name).ok())
}

/// wright's environment, provider keys included (see [`take_provider_keys`]).
fn process_vars() -> impl Iterator<Item = (String, String)> {
    let keys = PROVIDER_KEYS.get().into_iter().flatten();
    keys.map(|(name, value)| (name.to_string(), value.clone()))
        .chain(std::env::vars())
}

/// Loads and resolves the settings for a project, reading the real environment; the values of
/// its secret-named variables are masked in tool output.
pub fn load(project_root: &Path, flags: &Flags) -> Result<Settings, ConfigError> {
    let env = process_env;
    let files = load_files(project_root, &env)?;
    let mut settings = resolve(flags, &env, &files, project_root)?;
    settings.tools.protected = protected_paths(&files, project_root, &env);
    settings.tools.code_cache = code_cache(&env);
    settings.tools.masker = std::mem::take(&mut settings.tools.masker).from_env(process_vars());
    let (agents, problems) = agent_catalog(project_root, &env, &settings.tools, &files);
    settings.agents = Arc::new(agents);
    settings.agent_problems = problems;
    Ok(settings)
}

/// The tool settings for a project without a model (`wright tool`), from the real
/// environment.
pub fn load_tool_settings(project_root: &Path) -> Result<ToolSettings, ConfigError> {
    let env = process_env;
    let home = env("HOME").map(PathBuf::from);
    let files = load_files(project_root, &env)?;
    let mut settings = tool_settings(&files, project_root, home.as_deref(), process_vars())?;
    settings.protected = protected_paths(&files, project_root, &env);
    settings.code_cache = code_cache(&env);
    Ok(settings)
}

/// Where code intelligence caches its parses: `$WRIGHT_HOME/cache/code`.
fn code_cache(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    wright_home(env)
        .ok()
        .map(|home| home.join("cache").join("code"))
}

/// The state directory: `WRIGHT_HOME`, else the platform data directory.
pub fn wright_home(env: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, ConfigError> {
    env("WRIGHT_HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(|| wright_store::default_home(env))
        .ok_or(ConfigError::Invalid {
            key: "WRIGHT_HOME",
            expected: "a directory for wright's sessions (HOME is not set either)",
        })
}

mod file;
#[cfg(test)]
mod tests;
