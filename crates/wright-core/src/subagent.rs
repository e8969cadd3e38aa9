//! Sub-agents (issue 14): the `Task` tool runs a child agent on a task, in a fresh context
//! and a session of its own linked to the parent's; only its answer (and a one-line note of
//! its steps and cost) comes back, so the parent keeps one answer instead of every
//! observation. Agents are the built-in `general` and `explore` and those defined in agent
//! files ([`AgentCatalog`]); `wright exec --agent NAME` runs a session as one of them.

mod catalog;
pub(crate) mod front_matter;
mod task;

pub use catalog::{AgentCatalog, AgentDefinition, AgentFileError, AgentSource, EXPLORE, GENERAL};
pub(crate) use task::with_task_description;
pub use task::{SubagentSettings, TaskTool, agent_listing};
pub(crate) use task::{TaskRunner, subagent_spending};

/// What makes an agent one of the catalog's rather than the plain session agent: the tools
/// it may use, instructions added to its system prompt, and whether it may change anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentProfile {
    /// The tools it may use, by name; `None` for all.
    pub tools: Option<Vec<String>>,
    /// Added to the end of its system prompt.
    pub instructions: Option<String>,
    /// Only read-only tools, Bash limited to read-only commands.
    pub read_only: bool,
    /// Its model, when not the session's.
    pub model: Option<String>,
    /// Its limit of model calls in a round, when not the session's.
    pub max_steps: Option<u32>,
}

/// The instructions every sub-agent's system prompt gets before its own.
const SUBAGENT_PREAMBLE: &str = include_str!("../../../prompts/subagent.md");

impl AgentProfile {
    /// A read-only agent that may use only `tools` (Bash limited to read-only commands), its
    /// system prompt ending with `instructions` (`wright sec scan --verify`'s verifiers,
    /// `wright init`'s writer).
    pub fn read_only(tools: &[&str], instructions: &str) -> Self {
        Self {
            tools: Some(tools.iter().map(|tool| tool.to_string()).collect()),
            instructions: Some(instructions.to_string()),
            read_only: true,
            model: None,
            max_steps: None,
        }
    }

    /// The profile of a sub-agent running as `agent`: the sub-agent preamble, then the
    /// agent's own instructions.
    pub fn of(agent: &AgentDefinition) -> Self {
        let mut instructions = SUBAGENT_PREAMBLE.trim().to_string();
        if !agent.instructions.trim().is_empty() {
            instructions.push_str(&format!(
                "\n\n# Your role: {}\n\n{}",
                agent.name,
                agent.instructions.trim()
            ));
        }
        Self {
            tools: agent.tools.clone(),
            instructions: Some(instructions),
            read_only: agent.read_only,
            model: agent.model.clone(),
            max_steps: agent.max_steps,
        }
    }

    /// The profile of a session run as `agent` (`wright exec --agent NAME`): its tools and
    /// its instructions, without the sub-agent preamble (a person or a program, not another
    /// agent, reads its answer).
    pub fn for_session(agent: &AgentDefinition) -> Self {
        Self {
            tools: agent.tools.clone(),
            instructions: Some(agent.instructions.trim().to_string()).filter(|i| !i.is_empty()),
            read_only: agent.read_only,
            model: agent.model.clone(),
            max_steps: agent.max_steps,
        }
    }
}
