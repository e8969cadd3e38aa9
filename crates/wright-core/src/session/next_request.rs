//! The next request of a stored session, without opening it: what `wright context` and
//! `/context` show, built by the same [`ContextBuilder`] as the requests a round sends.

use std::path::Path;

use chrono::Local;
use wright_protocol::ToolDefinition;
use wright_store::LoadedSession;
use wright_store::memory::MemoryPaths;
use wright_tools::ToolRegistry;

use crate::context::ContextBuilder;
use crate::environment::Environment;
use crate::history::HistoryManager;
use crate::instructions::Instructions;
use crate::memory::{MemoryTool, SessionMemory, memory_index};
use crate::prompt::{agent_system_prompt, native_agent_system_prompt};
use crate::round::{ToolProtocol, definitions_estimate, offered_tools};
use crate::subagent::{AgentCatalog, agent_listing, with_task_description};
use crate::tiers::HistoryView;

/// What the next request of a session would be built from: L1 for a session's tools, the
/// project's L2 (CODE_LAW.md, AGENTS.md, CLAUDE.md, rules) as it is now, the session's history replayed from its records, and
/// the todo list its last TodoWrite left.
pub struct SessionContext {
    system: String,
    tool_count: usize,
    protocol: ToolProtocol,
    /// Natively, the tool definitions the request offers beside its messages.
    offered: Vec<ToolDefinition>,
    instructions: Instructions,
    history: HistoryManager,
    view: HistoryView,
    recap: Option<String>,
}

impl SessionContext {
    /// Reads the project at `root` and replays the records of `session` (none for a session
    /// not begun yet). L1 ends with the session's environment block, or today's for a new one,
    /// then, with `memory`, the Memory tool's index of memory as the session recorded it (or
    /// as it is now). L2 is read with the user's settings directory `user_config_dir`. The
    /// request is built for `protocol`: natively L1 does not describe the tools, which go
    /// beside the messages as definitions ([`offered`](Self::offered)).
    /// Nothing is written and the session file is not locked.
    pub fn load(
        root: &Path,
        session: Option<&LoadedSession>,
        memory: Option<&MemoryPaths>,
        user_config_dir: Option<&Path>,
        protocol: ToolProtocol,
    ) -> Self {
        let mut tools = ToolRegistry::builtin();
        if let Some(paths) = memory {
            let masker = tools.masker().clone();
            let tool = MemoryTool::new(paths.clone(), SessionMemory::default(), &masker);
            tools.register(Box::new(tool));
        }
        let index = memory.map(|paths| {
            session
                .and_then(|s| s.meta.memory.clone())
                .unwrap_or_else(|| memory_index(paths))
        });
        // The Task tool lists the agents the session recorded; a new session (or one from
        // before sessions recorded them) the built-in ones.
        let agents = session
            .and_then(|s| s.meta.agents.clone())
            .unwrap_or_else(|| agent_listing(&AgentCatalog::default()));
        let mut tools = with_task_description(tools, &agents);
        crate::ask_user::register(&mut tools, None);
        let records = session.map_or(&[][..], |s| s.records.as_slice());
        let history = HistoryManager::replay(records, None);
        let environment = session
            .and_then(|s| s.meta.environment.clone())
            .unwrap_or_else(|| Environment::detect(root, Local::now().date_naive()).block());
        let recap = history
            .last_todo_list()
            .and_then(|todos| wright_tools::todo_recap(&todos));
        let (system, offered) = match protocol {
            ToolProtocol::Text => (
                agent_system_prompt(
                    &tools.descriptions(),
                    Some(&environment),
                    index.as_deref(),
                    None,
                    false,
                ),
                Vec::new(),
            ),
            ToolProtocol::Native => (
                native_agent_system_prompt(Some(&environment), index.as_deref(), None, false),
                offered_tools(&tools, false),
            ),
        };
        Self {
            system,
            tool_count: tools.names().len(),
            protocol,
            offered,
            instructions: Instructions::load(root, user_config_dir, tools.masker()),
            view: HistoryView::new(&history),
            history,
            recap,
        }
    }

    /// The ContextBuilder of the next request, with `input` as the user's input and an empty
    /// scratchpad. An unreadable file of L2 is left out, as a round would leave it out.
    pub fn builder<'a>(&'a self, input: &'a str) -> ContextBuilder<'a> {
        ContextBuilder {
            protocol: self.protocol,
            ..self.view.context(
                &self.system,
                Some(&self.instructions),
                input,
                &[],
                self.recap.as_deref(),
            )
        }
    }

    /// The tool protocol the request is built for.
    pub fn protocol(&self) -> ToolProtocol {
        self.protocol
    }

    /// Natively, the tool definitions the request offers (none in the text protocol).
    pub fn offered(&self) -> &[ToolDefinition] {
        &self.offered
    }

    /// The token estimate of [`offered`](Self::offered).
    pub fn offered_estimate(&self) -> u64 {
        definitions_estimate(&self.offered)
    }

    /// L2 as it is now: its parts, and the files that cannot be read or used.
    pub fn instructions(&self) -> &Instructions {
        &self.instructions
    }

    /// The session's history.
    pub fn history(&self) -> &HistoryManager {
        &self.history
    }

    /// How many tools L1 describes.
    pub fn tool_count(&self) -> usize {
        self.tool_count
    }
}
