//! The [`Agent`]: a model, the tools, the project they work in and the session's history,
//! with what a round needs to know about each; built once per session.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use tokio_util::sync::CancellationToken;
use wright_llm::{LlmClient, LlmError};
use wright_protocol::{TodoItem, Usage};
use wright_tools::{JobInfo, ToolContext, ToolRegistry};

use crate::approval::{ApprovalMode, Approvals, Approver};
use crate::checkpoint::{Checkpointer, Checkpoints};
use crate::checks::Checks;
use crate::compaction::ContextSettings;
use crate::history::HistoryManager;
use crate::hooks::Hooks;
use crate::plan;
use crate::prompt::{agent_system_prompt, native_agent_system_prompt};

use super::DEFAULT_MAX_STEPS;

/// Bounds of the factor that calibrates the local `len // 3` estimate against the provider's
/// own count of the last request (tokenizers differ: about 3 to 4 characters a token).
const CALIBRATION_RANGE: (f64, f64) = (0.5, 2.0);

/// How a round is run.
#[derive(Debug, Clone, Default)]
pub struct AgentConfig {
    /// Model calls allowed in one round before it is stopped (0 means the default).
    pub max_steps: u32,
    /// Window, threshold, retained rounds, summary settings.
    pub context: ContextSettings,
    /// wright's user settings directory (`~/.config/wright`), whose `AGENTS.md` and `rules/`
    /// join L2 ([`crate::instructions`]); `None` for none.
    pub user_config_dir: Option<std::path::PathBuf>,
    /// How tools are offered to the model and how it calls them (issue 19).
    pub tool_protocol: ToolProtocol,
}

/// How the model is offered the tools and calls them (issue 19).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolProtocol {
    /// The tools are described in the system prompt and called in the reply's text, as
    /// `Action: Tool[args]` lines (ReAct); works with any model.
    #[default]
    Text,
    /// The tools are sent as the provider's tool definitions and called through its
    /// tool-call API.
    Native,
}

impl ToolProtocol {
    /// Every protocol, the default first.
    pub const ALL: [ToolProtocol; 2] = [ToolProtocol::Text, ToolProtocol::Native];

    /// The protocol as written in flags and settings: `text` or `native`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolProtocol::Text => "text",
            ToolProtocol::Native => "native",
        }
    }
}

impl fmt::Display for ToolProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a tool protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool protocol {0:?}: expected `text` or `native`")]
pub struct UnknownToolProtocol(pub String);

impl FromStr for ToolProtocol {
    type Err = UnknownToolProtocol;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ToolProtocol::ALL
            .into_iter()
            .find(|protocol| protocol.as_str() == s)
            .ok_or_else(|| UnknownToolProtocol(s.to_string()))
    }
}

impl AgentConfig {
    pub(super) fn max_steps(&self) -> u32 {
        if self.max_steps == 0 {
            DEFAULT_MAX_STEPS
        } else {
            self.max_steps
        }
    }
}

/// The agent: a model, the tools, the project they work in, and the session's history.
pub struct Agent {
    pub(super) llm: LlmClient,
    pub(super) summary_llm: LlmClient,
    pub(super) tools: ToolRegistry,
    pub(super) ctx: ToolContext,
    /// L1 as the requests of the mode the agent is in send it (see [`plan`] for the two).
    pub(super) system: String,
    /// The session's environment block and the agent's instructions, which end L1 in either
    /// mode.
    environment: Option<String>,
    /// The session's index of memory, after the environment block.
    memory_index: Option<String>,
    instructions: Option<String>,
    /// Whether the agent is in plan mode ([`plan`]).
    pub(super) planning: bool,
    /// Whether its tool context is read-only outside plan mode too (a read-only agent).
    read_only: bool,
    pub(super) config: AgentConfig,
    pub(super) history: HistoryManager,
    pub(super) approvals: Approvals,
    pub(super) hooks: Hooks,
    /// The `[checks]` run after steps that edited files (issue 13).
    pub(super) checks: Checks,
    /// Provider tokens per locally estimated token, from the last request whose usage came
    /// back; 1.0 until one has.
    pub(super) calibration: f64,
    /// Takes the snapshots of the project's files before file-changing steps (issue 13).
    pub(super) checkpoints: Checkpointer,
}

impl Agent {
    /// An agent over `tools` in the project of `ctx`, continuing `history`. The system prompt
    /// is built once here, so every request of the session starts with the same bytes. Fails
    /// only if the summary model's client cannot be made.
    pub fn new(
        llm: LlmClient,
        tools: ToolRegistry,
        ctx: ToolContext,
        config: AgentConfig,
        history: HistoryManager,
    ) -> Result<Self, LlmError> {
        let summary_llm = summary_client(&llm, &config)?;
        Ok(Self::with_clients(
            llm,
            summary_llm,
            tools,
            ctx,
            config,
            history,
        ))
    }

    /// [`new`](Self::new) with the summary model's client already made (see
    /// [`summary_client`]).
    pub(crate) fn with_clients(
        llm: LlmClient,
        summary_llm: LlmClient,
        tools: ToolRegistry,
        ctx: ToolContext,
        config: AgentConfig,
        mut history: HistoryManager,
    ) -> Self {
        history.set_read_history_lines(config.context.read_history_lines);
        let system = match config.tool_protocol {
            ToolProtocol::Text => {
                agent_system_prompt(&tools.descriptions(), None, None, None, false)
            }
            ToolProtocol::Native => native_agent_system_prompt(None, None, None, false),
        };
        Self {
            llm,
            summary_llm,
            tools,
            read_only: ctx.is_read_only(),
            ctx,
            system,
            environment: None,
            memory_index: None,
            instructions: None,
            planning: false,
            config,
            calibration: history.calibration().map_or(1.0, clamp_calibration),
            history,
            approvals: Approvals::default(),
            hooks: Hooks::default(),
            checks: Checks::default(),
            checkpoints: Checkpointer::default(),
        }
    }

    /// Snapshots the project's files through `checkpoints` before each step that can change
    /// them (see [`checkpoint`](crate::checkpoint)).
    pub fn with_checkpoints(mut self, checkpoints: Option<Arc<dyn Checkpoints>>) -> Self {
        self.checkpoints = Checkpointer::new(checkpoints);
        self
    }

    /// Ends L1 with the session's environment block ([`crate::environment`]), made when the
    /// session started, so every request of the session starts with the same bytes.
    pub fn with_environment(mut self, block: &str) -> Self {
        self.environment = Some(block.to_string());
        self.system = self.layer_one();
        self
    }

    /// Puts the session's index of memory ([`crate::memory`]) after the environment block,
    /// fixed when the session started like it; `None` or an empty index adds nothing.
    pub fn with_memory_index(mut self, index: Option<&str>) -> Self {
        self.memory_index = index.map(str::to_string);
        self.system = self.layer_one();
        self
    }

    /// Ends L1 with `instructions` (a named agent's, or `--system-prompt-file`'s), after the
    /// environment block; call it after [`with_environment`](Self::with_environment).
    pub fn with_instructions(mut self, instructions: Option<&str>) -> Self {
        if let Some(instructions) = instructions.map(str::trim).filter(|i| !i.is_empty()) {
            self.instructions = Some(instructions.to_string());
            self.system = self.layer_one();
        }
        self
    }

    /// L1 of the mode the agent is in, from its parts: the same bytes every time. Under the
    /// native tool protocol the tools are not described in it: requests offer them as tool
    /// definitions.
    fn layer_one(&self) -> String {
        if self.config.tool_protocol == ToolProtocol::Native {
            return native_agent_system_prompt(
                self.environment.as_deref(),
                self.memory_index.as_deref(),
                self.instructions.as_deref(),
                self.planning,
            );
        }
        let descriptions = if self.planning {
            plan::descriptions(&self.tools)
        } else {
            self.tools.descriptions()
        };
        agent_system_prompt(
            &descriptions,
            self.environment.as_deref(),
            self.memory_index.as_deref(),
            self.instructions.as_deref(),
            self.planning,
        )
    }

    /// Turns plan mode on or off for the next rounds ([`plan`]): in plan mode the agent is
    /// offered only the tools that change nothing and Bash, its tool context is read-only,
    /// and L1 is plan mode's, which ends by asking for a plan. Each mode has one fixed L1, so
    /// a switch breaks the provider's prompt cache once, and switching back restores the
    /// earlier L1 byte for byte.
    pub fn set_plan_mode(&mut self, on: bool) {
        if on == self.planning {
            return;
        }
        self.planning = on;
        self.system = self.layer_one();
        self.ctx = self.ctx.clone().with_read_only(on || self.read_only);
    }

    /// The approval state it asks through (shared with its sub-agents).
    pub(crate) fn approval_state(&self) -> &Approvals {
        &self.approvals
    }

    /// Offers `tools` from the next request on, L1 made anew with them.
    pub(crate) fn set_tools(&mut self, tools: ToolRegistry) {
        self.tools = tools;
        self.system = self.layer_one();
    }

    /// Whether the agent is in plan mode.
    pub fn is_planning(&self) -> bool {
        self.planning
    }

    /// Lets `mode` decide which actions run without asking from the next call on; kinds
    /// approved "always" stay approved.
    pub fn set_approval_mode(&mut self, mode: ApprovalMode) {
        self.approvals.set_mode(mode);
    }

    /// Which actions run without asking.
    pub fn approval_mode(&self) -> ApprovalMode {
        self.approvals.mode()
    }

    /// Asks through `approvals`, an approval state shared with others (a sub-agent shares
    /// its parent's).
    pub(crate) fn with_approval_state(mut self, approvals: Approvals) -> Self {
        self.approvals = approvals;
        self
    }

    /// Runs `hooks` around every tool call (see [`hooks`](crate::hooks)).
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Runs `checks` after each step that edited files they cover (see
    /// [`checks`](crate::checks)).
    pub fn with_checks(mut self, checks: Checks) -> Self {
        self.checks = checks;
        self
    }

    /// Asks `approver` before a command or a file change that `mode` does not allow (see
    /// [`approval`](crate::approval)). Without this, everything runs without asking
    /// ([`ApprovalMode::Auto`]). With a mode that asks and no approver, such actions are denied.
    /// Kinds approved "always" stay approved for this agent's lifetime.
    pub fn with_approvals(
        mut self,
        mode: ApprovalMode,
        approver: Option<Arc<dyn Approver>>,
    ) -> Self {
        self.approvals = Approvals::new(mode, approver);
        self
    }

    /// The system prompt (layer L1) every request starts with.
    pub fn system_prompt(&self) -> &str {
        &self.system
    }

    /// The session's history.
    pub fn history(&self) -> &HistoryManager {
        &self.history
    }

    /// The session's history, to change between rounds (undo, commits).
    pub(crate) fn history_mut(&mut self) -> &mut HistoryManager {
        &mut self.history
    }

    /// The client that writes commit messages: `model`'s, or the summary model's.
    pub(crate) fn commit_client(&self, model: Option<&str>) -> Result<LlmClient, LlmError> {
        match model {
            Some(model) if model != self.summary_llm.config().model => {
                let mut config = self.llm.config().clone();
                config.model = model.to_string();
                LlmClient::new(config)
            }
            _ => Ok(self.summary_llm.clone()),
        }
    }

    pub(super) fn cancellation(&self) -> &CancellationToken {
        self.ctx.cancellation()
    }

    /// Uses `token` to stop the next round (Ctrl-C). A cancelled token stays cancelled, so an
    /// interactive session gives every round a fresh one.
    pub fn set_cancellation(&mut self, token: CancellationToken) {
        self.ctx = self.ctx.clone().with_cancellation(token);
    }

    /// Switches the model for the next rounds (the summary model too, unless one is set).
    pub fn set_model(&mut self, model: &str) -> Result<(), LlmError> {
        let mut config = self.llm.config().clone();
        config.model = model.to_string();
        let llm = LlmClient::new(config)?;
        if self.config.context.summary_model.is_none() {
            self.summary_llm = llm.clone();
        }
        self.llm = llm;
        Ok(())
    }

    /// The model the next round talks to.
    pub fn model(&self) -> &str {
        &self.llm.config().model
    }

    /// The current todo list.
    pub fn todos(&self) -> Vec<TodoItem> {
        self.ctx.todos()
    }

    /// The session's background commands (Bash `run_in_background`), oldest first.
    pub fn jobs(&self) -> Vec<JobInfo> {
        self.ctx.jobs().list()
    }

    /// The names of the tools the agent is offered, in L1's order (`/mcp` reads the MCP
    /// servers' from them).
    pub fn tool_names(&self) -> Vec<String> {
        self.tools.names().into_iter().map(str::to_string).collect()
    }

    /// What the user should know about how commands are confined, when they are not fully
    /// (no sandbox on this system, or only part of one).
    pub fn sandbox_note(&self) -> Option<String> {
        self.ctx.sandbox_status().note()
    }

    /// The context settings (window, threshold, retained rounds).
    pub fn context_settings(&self) -> &ContextSettings {
        &self.config.context
    }

    /// The local estimate scaled by the provider's own count of the last request, rounded up
    /// so an estimate calibrated to a count gives back at least that count.
    pub(super) fn calibrated(&self, estimate: u64) -> u64 {
        (estimate as f64 * self.calibration).ceil() as u64
    }

    /// Learns how the provider's token count relates to the local estimate of a request.
    pub(super) fn calibrate(&mut self, estimate: u64, usage: &Usage) {
        if usage.prompt_tokens > 0 && estimate > 0 {
            self.calibration = clamp_calibration(usage.prompt_tokens as f64 / estimate as f64);
        }
    }
}

/// The client that writes summaries: the configured summary model's, or `llm` itself when
/// there is none or it is the same model. Fails only if that client cannot be made.
pub(crate) fn summary_client(llm: &LlmClient, config: &AgentConfig) -> Result<LlmClient, LlmError> {
    match &config.context.summary_model {
        Some(model) if *model != llm.config().model => {
            let mut summary_config = llm.config().clone();
            summary_config.model = model.clone();
            LlmClient::new(summary_config)
        }
        _ => Ok(llm.clone()),
    }
}

fn clamp_calibration(factor: f64) -> f64 {
    let (low, high) = CALIBRATION_RANGE;
    factor.clamp(low, high)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wright_llm::{LlmConfig, ProviderKind};

    fn agent(ctx: ToolContext) -> Agent {
        let llm = LlmClient::new(LlmConfig::new(
            ProviderKind::OpenAi,
            "http://127.0.0.1:9/v1/",
            "m",
        ))
        .unwrap();
        Agent::new(
            llm,
            ToolRegistry::builtin(),
            ctx,
            AgentConfig::default(),
            HistoryManager::new(None),
        )
        .unwrap()
    }

    #[test]
    fn plan_mode_makes_the_tool_context_read_only_until_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let mut agent = agent(ToolContext::new(dir.path()).unwrap());
        agent.set_plan_mode(true);
        assert!(agent.ctx.is_read_only());
        agent.set_cancellation(CancellationToken::new());
        assert!(agent.ctx.is_read_only(), "a round's new token keeps it");
        agent.set_plan_mode(false);
        assert!(!agent.ctx.is_read_only());
    }

    #[test]
    fn a_read_only_agent_stays_read_only_after_plan_mode() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(dir.path()).unwrap().with_read_only(true);
        let mut agent = agent(ctx);
        agent.set_plan_mode(true);
        agent.set_plan_mode(false);
        assert!(agent.ctx.is_read_only());
    }
}
