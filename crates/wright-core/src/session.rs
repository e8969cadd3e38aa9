//! Sessions as the front ends use them: `wright exec` and the interactive session open a new,
//! named or stored session through [`Sessions`], whose [`AgentBuilder`] is the one place an
//! [`Agent`] is put together from the resolved settings; a [`Session`] runs rounds and
//! compactions; [`SessionContext`] is what the next request of a stored session would hold
//! (`wright context`, `/context`). Reading the settings is the command line's business.

mod commit;
mod modes;
mod next_request;

pub use next_request::SessionContext;

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::Local;
use tokio_util::sync::CancellationToken;
use wright_llm::{LlmClient, LlmConfig, LlmError};
use wright_store::memory::MemoryPaths;
use wright_store::{
    BusySession, LoadedSession, NamedSessionFile, Record, SessionFile, SessionMeta, SessionStore,
    StoreError,
};
use wright_tools::{ToolContext, ToolRegistry, ToolSettings};

use crate::approval::{ApprovalMode, Approvals, Approver};
use crate::checkpoint::Checkpoints;
use crate::checks::Checks;
use crate::commit::GitSettings;
use crate::cost::Price;
use crate::environment::Environment;
use crate::error::RoundError;
use crate::history::HistoryManager;
use crate::hooks::Hooks;
use crate::memory::{MEMORY, MemoryTool, SessionMemory, memory_index};
use crate::round::{Agent, AgentConfig, Events, RoundOutcome, summary_client};
use crate::subagent::{
    AgentCatalog, AgentProfile, SubagentSettings, TaskRunner, TaskTool, agent_listing,
};

/// What every agent of a front end is made of, apart from its session: resolved from the
/// settings once, then used for each session opened (`exec`'s one, the interactive session's
/// first and each `/clear` or `/resume`).
#[derive(Clone)]
pub struct AgentSetup {
    /// The project root the tools work in.
    pub root: PathBuf,
    /// How to reach the model.
    pub llm: LlmConfig,
    /// How rounds run.
    pub agent: AgentConfig,
    /// How the tools run (the checker's rules, the credential masker, the sandbox).
    pub tools: ToolSettings,
    /// Which actions run without asking.
    pub approval: ApprovalMode,
    /// Who is asked about the others; `None` denies them (`exec` has no one to ask).
    pub approver: Option<Arc<dyn Approver>>,
    /// The `pre_tool` and `post_tool` hooks.
    pub hooks: Hooks,
    /// The `[checks]` run after steps that edited files.
    pub checks: Checks,
    /// Where snapshots of the project's files are taken before file-changing steps; `None`
    /// turns checkpoints off.
    pub checkpoints: Option<Arc<dyn Checkpoints>>,
    /// The git workflow (`[git]`): commits of the agent's changes.
    pub git: GitSettings,
    /// The agents the Task tool may run (issue 14).
    pub agents: Arc<AgentCatalog>,
    /// How deep sub-agents nest and how many run at once.
    pub subagents: SubagentSettings,
    /// What the session's own agent is (`exec --agent`, `--tools`, `--system-prompt-file`);
    /// the default is the plain agent with every tool.
    pub profile: AgentProfile,
    /// The prices of models (for the cost note of a sub-agent's answer).
    pub prices: HashMap<String, Price>,
    /// Tools from outside wright (MCP servers' tools, issue 15), made for each agent after
    /// the built-in ones, in a stable order; `None` for none.
    pub external_tools: Option<ExternalTools>,
    /// Where project and global memory are kept (issue 17): the agents get the Memory tool
    /// and their L1 ends with the index of memory; `None` for no memory at all.
    pub memory: Option<MemoryPaths>,
}

impl AgentSetup {
    /// The plain agent over `llm` in `root` with every default: the built-in tools and
    /// agents, everything allowed (`auto`, no one to ask), no hooks, checks, checkpoints or
    /// tools from outside. Front ends and tests set what they need over it.
    pub fn new(root: PathBuf, llm: LlmConfig) -> Self {
        Self {
            root,
            llm,
            agent: AgentConfig::default(),
            tools: ToolSettings::default(),
            approval: ApprovalMode::Auto,
            approver: None,
            hooks: Hooks::default(),
            checks: Checks::default(),
            checkpoints: None,
            git: GitSettings::default(),
            agents: Arc::default(),
            subagents: SubagentSettings::default(),
            profile: AgentProfile::default(),
            prices: HashMap::new(),
            external_tools: None,
            memory: None,
        }
    }

    /// The setup of an agent of wright's own that only reads and answers (as `profile` says,
    /// made with [`AgentProfile::read_only`]): it takes no snapshots (it changes nothing),
    /// gets no tools from outside wright, and works from the code alone, without the notes
    /// of earlier sessions.
    pub fn into_reader(mut self, profile: AgentProfile) -> Self {
        self.profile = profile;
        self.checkpoints = None;
        self.external_tools = None;
        self.memory = None;
        self
    }
}

/// Makes the tools from outside wright for one agent (each agent owns its registry): the
/// same tools, in the same order, every time, so that L1 stays byte-identical.
pub type ExternalTools = Arc<dyn Fn() -> Vec<Box<dyn wright_tools::Tool>> + Send + Sync>;

/// Why a session could not be opened or its agent built.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The model's (or the summary model's) client cannot be made from the settings.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The session file cannot be created, read or locked.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The session is a sub-agent's, which only its parent's Task call runs.
    #[error(
        "session {id} is the session of a sub-agent of session {parent}; it cannot be resumed \
         on its own (`wright sessions show {id}` shows it)"
    )]
    Subagent {
        /// The sub-agent's session.
        id: String,
        /// The session whose Task call ran it.
        parent: String,
    },
    /// The project directory cannot be used by the tools.
    #[error("cannot open the project {}: {source}", root.display())]
    Project {
        /// The project root.
        root: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// Where an agent runs: its session, the parts of L1 its session fixed when it started, and
/// how deep it is (0 for a session's own agent, 1 for its sub-agents, …).
#[derive(Clone, Copy)]
pub(crate) struct Place<'a> {
    /// The id of the session it records to.
    pub session: &'a str,
    /// The environment block that ends its L1.
    pub environment: &'a str,
    /// The agents its Task tool lists.
    pub agents: &'a str,
    /// How deep it is.
    pub depth: u32,
    /// The tools its parent may use, which bound its own; `None` for no bound.
    pub allowed: Option<&'a [String]>,
    /// Its parent's approval state, which it shares; `None` for a session's own agent.
    pub approvals: Option<&'a Approvals>,
    /// The session's memory, which its agents share.
    pub memory: &'a SessionMemory,
    /// The index of memory its session fixed when it started, which ends its L1 when it has
    /// the Memory tool.
    pub memory_index: &'a str,
}

/// Builds the [`Agent`] of a session: the model's clients, the tool registry and its context,
/// the agent's settings, approvals and hooks, with the session's history and the todo list
/// that history last wrote.
#[derive(Clone)]
pub struct AgentBuilder {
    root: PathBuf,
    llm: LlmClient,
    summary_llm: LlmClient,
    config: AgentConfig,
    tools: ToolSettings,
    approval: ApprovalMode,
    approver: Option<Arc<dyn Approver>>,
    hooks: Hooks,
    checks: Checks,
    checkpoints: Option<Arc<dyn Checkpoints>>,
    git: GitSettings,
    catalog: Arc<AgentCatalog>,
    subagents: SubagentSettings,
    profile: AgentProfile,
    prices: Arc<HashMap<String, Price>>,
    external_tools: Option<ExternalTools>,
    memory: Option<MemoryPaths>,
    /// Where sub-agents' sessions go: the store of the sessions this builder's agents run
    /// in (set by [`Sessions::new`]); without one there is no Task tool.
    store: Option<SessionStore>,
}

impl AgentBuilder {
    /// Makes the model's clients from `setup` now, so bad model settings fail before any
    /// session is touched.
    pub fn new(setup: AgentSetup) -> Result<Self, LlmError> {
        let llm = LlmClient::new(setup.llm)?;
        let summary_llm = summary_client(&llm, &setup.agent)?;
        Ok(Self {
            root: setup.root,
            llm,
            summary_llm,
            config: setup.agent,
            tools: setup.tools,
            approval: setup.approval,
            approver: setup.approver,
            hooks: setup.hooks,
            checks: setup.checks,
            checkpoints: setup.checkpoints,
            git: setup.git,
            catalog: setup.agents,
            subagents: setup.subagents,
            profile: setup.profile,
            prices: Arc::new(setup.prices),
            external_tools: setup.external_tools,
            memory: setup.memory,
            store: None,
        })
    }

    /// The agents the Task tool may run.
    pub fn catalog(&self) -> &AgentCatalog {
        &self.catalog
    }

    /// How sub-agents nest and run at once.
    pub(crate) fn subagent_settings(&self) -> SubagentSettings {
        self.subagents
    }

    /// The prices of models.
    pub(crate) fn prices(&self) -> &HashMap<String, Price> {
        &self.prices
    }

    /// An agent over `history`, in a fresh tool context whose todo list is the one the
    /// history's last successful TodoWrite left, its L1 ending with the session's
    /// `environment` block; `session` is the id of the session it runs in (sub-agents'
    /// sessions are linked to it); `memory` is the session's memory and `memory_index` the
    /// index of memory the session fixed when it started.
    pub fn build(
        &self,
        history: HistoryManager,
        environment: &str,
        agents: &str,
        session: &str,
        memory: (&SessionMemory, &str),
    ) -> Result<Agent, SessionError> {
        let ctx = self
            .tools
            .context(&self.root)
            .map_err(|source| SessionError::Project {
                root: self.root.clone(),
                source,
            })?;
        if let Some(todos) = history.last_todo_list() {
            ctx.set_todos(todos);
        }
        let ctx = ctx.with_read_only(self.profile.read_only);
        let place = Place {
            session,
            environment,
            agents,
            depth: 0,
            allowed: None,
            approvals: None,
            memory: memory.0,
            memory_index: memory.1,
        };
        self.assemble(history, ctx, &self.profile, &place)
    }

    /// An agent at `place` (its depth: 0 for a session's own, 1 for its sub-agents, …) over
    /// `history` in `ctx`, as `profile` says: its tools (a Task tool while sub-agents may nest deeper),
    /// its L1, its model and step limit. Only the session's own agent takes checkpoints: a
    /// sub-agent's changes are covered by the checkpoint its parent takes before the Task
    /// call.
    pub(crate) fn assemble(
        &self,
        history: HistoryManager,
        ctx: ToolContext,
        profile: &AgentProfile,
        place: &Place<'_>,
    ) -> Result<Agent, SessionError> {
        let approvals = place
            .approvals
            .cloned()
            .unwrap_or_else(|| Approvals::new(self.approval, self.approver.clone()));
        let place = Place {
            approvals: Some(&approvals),
            ..*place
        };
        let tools = self.registry(profile, &place);
        let Place {
            environment,
            depth,
            memory_index,
            ..
        } = place;
        // The index is for an agent that can retrieve what it lists.
        let memory_index = tools.get(MEMORY).map(|_| memory_index);
        let mut config = self.config.clone();
        if let Some(max_steps) = profile.max_steps {
            config.max_steps = max_steps;
        }
        let (llm, summary_llm) = match &profile.model {
            Some(model) if *model != self.llm.config().model => {
                let mut llm_config = self.llm.config().clone();
                llm_config.model = model.clone();
                let llm = LlmClient::new(llm_config)?;
                let summary_llm = summary_client(&llm, &config)?;
                (llm, summary_llm)
            }
            _ => (self.llm.clone(), self.summary_llm.clone()),
        };
        let agent = Agent::with_clients(llm, summary_llm, tools, ctx, config, history);
        let checkpoints = if depth == 0 {
            self.checkpoints.clone()
        } else {
            None
        };
        Ok(agent
            .with_environment(environment)
            .with_memory_index(memory_index)
            .with_instructions(profile.instructions.as_deref())
            .with_approval_state(approvals)
            .with_hooks(self.hooks.clone())
            .with_checks(self.checks.clone())
            .with_checkpoints(checkpoints))
    }

    /// The tools of an agent at `place` as `profile` says: the built-in ones, the tools from
    /// outside (MCP servers') as they are now, a Task tool while sub-agents may nest deeper,
    /// AskUser for a session's own agent; bounded by the agent's and its parent's tool lists,
    /// and to the read-only ones for a read-only agent.
    fn registry(&self, profile: &AgentProfile, place: &Place<'_>) -> ToolRegistry {
        let Place {
            session,
            environment,
            agents,
            depth,
            allowed,
            approvals,
            memory,
            memory_index,
        } = *place;
        // A sub-agent may use no tool its parent could not: the agent's own list within the
        // parent's.
        let allowed: Option<Vec<String>> = match (&profile.tools, allowed) {
            (None, None) => None,
            (Some(own), None) => Some(own.clone()),
            (None, Some(parents)) => Some(parents.to_vec()),
            (Some(own), Some(parents)) => Some(
                own.iter()
                    .filter(|name| parents.contains(name))
                    .cloned()
                    .collect(),
            ),
        };
        // A sub-agent asks as its parent does, in its parent's current mode.
        let approvals = approvals
            .cloned()
            .unwrap_or_else(|| Approvals::new(self.approval, self.approver.clone()));
        let mut tools = self.tools.registry();
        if let Some(paths) = &self.memory {
            let tool = MemoryTool::new(paths.clone(), memory.clone(), tools.masker());
            tools.register(Box::new(tool));
        }
        if let Some(external) = &self.external_tools {
            for tool in external() {
                tools.register(tool);
            }
        }
        if let Some(store) = self
            .store
            .as_ref()
            .filter(|_| depth < self.subagents.max_depth)
        {
            tools.register(Box::new(TaskTool::new(TaskRunner {
                builder: self.clone(),
                store: store.clone(),
                parent: session.to_string(),
                environment: environment.to_string(),
                depth: depth + 1,
                listing: agents.to_string(),
                allowed: allowed.clone(),
                approvals,
                memory: memory.clone(),
                memory_index: memory_index.to_string(),
            })));
        }
        // A sub-agent reports to its parent, which asks the user if need be.
        if depth == 0 {
            crate::ask_user::register(&mut tools, self.approver.clone());
        }
        if let Some(names) = &allowed {
            tools.retain(|tool| names.iter().any(|name| name == tool.name()));
        }
        if profile.read_only {
            tools.retain(crate::plan::offers);
        }
        tools
    }

    /// What a session of these agents commits with.
    fn committer(&self) -> commit::Committer {
        commit::Committer {
            root: self.root.clone(),
            git: self.git.clone(),
            checkpoints: self.checkpoints.clone(),
            policy: self.tools.command_policy.clone(),
        }
    }

    /// The agents a session starting now lists in its Task tool's description.
    pub fn agent_listing(&self) -> String {
        agent_listing(&self.catalog)
    }

    /// The index of memory a session starting now ends its L1 with (empty without memory).
    pub fn memory_index(&self) -> String {
        self.memory.as_ref().map(memory_index).unwrap_or_default()
    }

    /// The environment block of a session starting now in this project.
    pub fn environment(&self) -> String {
        Environment::detect(&self.root, Local::now().date_naive()).block()
    }

    /// Agents built from now on talk to `model` (and summarise with it, unless a summary
    /// model is set).
    pub fn set_model(&mut self, model: &str) -> Result<(), LlmError> {
        let mut config = self.llm.config().clone();
        config.model = model.to_string();
        let llm = LlmClient::new(config)?;
        self.summary_llm = summary_client(&llm, &self.config)?;
        self.llm = llm;
        Ok(())
    }
}

/// How long [`Sessions::open`] waits for a named session another wright is running a round
/// in (issue 11 item 13: of processes creating one name at once, one wins and the others
/// wait on the lock). Longer than most rounds; past it the session is reported in use.
pub const NAMED_SESSION_WAIT: Duration = Duration::from_secs(10 * 60);

/// A project's sessions: where they are stored and how their agents are built.
pub struct Sessions {
    store: SessionStore,
    agents: AgentBuilder,
    lock_wait: Duration,
}

impl Sessions {
    /// The sessions in `store`, with agents from `agents`.
    pub fn new(store: SessionStore, mut agents: AgentBuilder) -> Self {
        let store = store
            .with_environment(agents.environment())
            .with_agents(agents.agent_listing());
        agents.store = Some(store.clone());
        Self {
            store,
            agents,
            lock_wait: NAMED_SESSION_WAIT,
        }
    }

    /// [`open`](Self::open) waits at most `limit` for a session another wright holds,
    /// rather than [`NAMED_SESSION_WAIT`].
    pub fn with_lock_wait(mut self, limit: Duration) -> Self {
        self.lock_wait = limit;
        self
    }

    /// Where project and global memory are kept, if the agents keep memory.
    pub fn memory_paths(&self) -> Option<&MemoryPaths> {
        self.agents.memory.as_ref()
    }

    /// Where the sessions are stored (for listing, finding and removing them).
    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    /// Starts a new session, called `name` if given.
    pub fn create(&self, name: Option<&str>) -> Result<Session, SessionError> {
        let (meta, file) = self.store_now().create(name)?;
        self.start(meta, file)
    }

    /// Starts a session of its own for a task the session `parent` hands to an agent
    /// outside the Task tool (`wright sec scan --verify`'s verifiers): stored with `parent`'s
    /// sub-agents (`wright sessions show PARENT` lists it), as `agent` doing `task`.
    pub fn create_child(
        &self,
        parent: &str,
        agent: &str,
        task: &str,
    ) -> Result<Session, SessionError> {
        let (meta, file) = self.store_now().create_child(parent, agent, task)?;
        self.start(meta, file)
    }

    /// The store, its sessions created from now on recording the index of memory as it is
    /// now: each session (a `/clear`'s too) starts with the memory saved before it, and keeps
    /// that index for its life.
    fn store_now(&self) -> SessionStore {
        match &self.agents.memory {
            Some(_) => self
                .store
                .clone()
                .with_memory_index(self.agents.memory_index()),
            None => self.store.clone(),
        }
    }

    /// A session over the file of a session just created.
    fn start(&self, meta: SessionMeta, file: SessionFile) -> Result<Session, SessionError> {
        let environment = environment_of(&meta, &self.agents);
        let listing = listing_of(&meta, &self.agents);
        let index = memory_of(&meta, &self.agents);
        let memory = SessionMemory::default();
        let agent = self.agents.build(
            HistoryManager::new(Some(file)),
            &environment,
            &listing,
            &meta.id,
            (&memory, &index),
        )?;
        Ok(Session {
            id: meta.id,
            name: meta.name,
            resumed: false,
            warnings: Vec::new(),
            agent,
            committer: self.agents.committer(),
            environment,
            listing,
            memory,
            memory_index: index,
        })
    }

    /// Goes on with a stored session: its history is replayed and new records are appended
    /// to its file, which stays locked while the session lives.
    pub fn resume(&self, loaded: LoadedSession) -> Result<Session, SessionError> {
        if let Some(parent) = &loaded.meta.parent {
            return Err(SessionError::Subagent {
                id: loaded.meta.id.clone(),
                parent: parent.clone(),
            });
        }
        let file = self.store.open_for_append(&loaded)?;
        self.resume_locked(loaded, file)
    }

    /// A session over `loaded`, whose `file` this process has locked.
    fn resume_locked(
        &self,
        loaded: LoadedSession,
        file: SessionFile,
    ) -> Result<Session, SessionError> {
        let environment = environment_of(&loaded.meta, &self.agents);
        let listing = listing_of(&loaded.meta, &self.agents);
        let index = memory_of(&loaded.meta, &self.agents);
        let memory = SessionMemory::default();
        let agent = self.agents.build(
            HistoryManager::replay(&loaded.records, Some(file)),
            &environment,
            &listing,
            &loaded.meta.id,
            (&memory, &index),
        )?;
        Ok(Session {
            id: loaded.meta.id,
            name: loaded.meta.name,
            resumed: true,
            warnings: loaded.warnings,
            agent,
            committer: self.agents.committer(),
            environment,
            listing,
            memory,
            memory_index: index,
        })
    }

    /// `exec --session NAME`: continues the newest session called `name` in this project, or
    /// creates it; without a name, a new unnamed session. Processes opening one new name at
    /// once make one session of it (see [`SessionStore::open_named_for_append`]): one
    /// creates it and the others continue it in turn. While another wright is running a
    /// round in the session, this waits for it to finish (`on_busy` is told when the wait
    /// starts), at most [`NAMED_SESSION_WAIT`], and then the session is in use.
    pub fn open(
        &self,
        name: Option<&str>,
        on_busy: &mut dyn FnMut(&BusySession),
    ) -> Result<Session, SessionError> {
        let Some(name) = name else {
            return self.create(None);
        };
        match self
            .store_now()
            .open_named_for_append(name, self.lock_wait, on_busy)?
        {
            NamedSessionFile::Stored(loaded, file) => self.resume_locked(loaded, file),
            NamedSessionFile::Created(meta, file) => self.start(meta, file),
        }
    }

    /// Gives `session`'s agent the tools an agent built now would have — the tools of the
    /// MCP servers as they are now (issue 15: servers that started late, or were
    /// reconnected) — keeping its history, todo list and approvals. L1 changes with them, so
    /// this is for an explicit step of the user's, never between rounds by itself.
    pub fn reload_tools(&self, session: &mut Session) {
        let approvals = session.agent.approval_state().clone();
        let place = Place {
            session: &session.id,
            environment: &session.environment,
            agents: &session.listing,
            depth: 0,
            allowed: None,
            approvals: Some(&approvals),
            memory: &session.memory,
            memory_index: &session.memory_index,
        };
        let tools = self.agents.registry(&self.agents.profile, &place);
        session.agent.set_tools(tools);
    }

    /// Switches `session` to `model`, and the sessions opened after it too.
    pub fn set_model(&mut self, session: &mut Session, model: &str) -> Result<(), LlmError> {
        session.agent.set_model(model)?;
        self.agents.set_model(model)
    }
}

/// The environment block of a session: the one it recorded when it started, or, for a session
/// from before wrights recorded it, the one of now.
fn environment_of(meta: &SessionMeta, agents: &AgentBuilder) -> String {
    meta.environment
        .clone()
        .unwrap_or_else(|| agents.environment())
}

/// The agents a session's Task tool lists: those it recorded when it started, or, for a
/// session from before wrights recorded them, those of now.
fn listing_of(meta: &SessionMeta, agents: &AgentBuilder) -> String {
    meta.agents
        .clone()
        .unwrap_or_else(|| agents.agent_listing())
}

/// The index of memory a session's L1 ends with: the one it recorded when it started, or, for
/// a session from before wrights recorded it, the one of now.
fn memory_of(meta: &SessionMeta, agents: &AgentBuilder) -> String {
    meta.memory.clone().unwrap_or_else(|| agents.memory_index())
}

/// An open session: its identity and its agent.
pub struct Session {
    id: String,
    name: Option<String>,
    resumed: bool,
    warnings: Vec<String>,
    agent: Agent,
    committer: commit::Committer,
    /// The environment block and the agent listing its agents were built with: the tools
    /// are made anew with them ([`Sessions::reload_tools`]).
    environment: String,
    listing: String,
    /// Its session memory, and the index of memory its L1 ends with.
    memory: SessionMemory,
    memory_index: String,
}

impl Session {
    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its name, if it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Whether it was stored before (resumed) rather than created.
    pub fn is_resumed(&self) -> bool {
        self.resumed
    }

    /// Lines of its file that could not be read when it was resumed.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// How many of its records could not be written to its file: while not 0, the stored
    /// session lacks part of what happened.
    pub fn unsaved_records(&self) -> usize {
        self.agent.history().unsaved_records()
    }

    /// Its session memory (the Memory tool's `"scope": "session"`).
    pub fn memory(&self) -> &SessionMemory {
        &self.memory
    }

    /// Its agent: the history, the model, the todo list, the settings.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// Runs one round for `input`, reporting to `events`; `cancel` stops it (Ctrl-C).
    pub async fn run_round(
        &mut self,
        input: &str,
        cancel: CancellationToken,
        events: Events<'_>,
    ) -> RoundOutcome {
        self.agent.set_cancellation(cancel);
        self.agent.run_round(input, events).await
    }

    /// Compacts now (`/compact`); `Ok(false)` when there is nothing to archive. `cancel`
    /// stops it.
    pub async fn compact(
        &mut self,
        cancel: CancellationToken,
        events: Events<'_>,
    ) -> Result<bool, RoundError> {
        self.agent.set_cancellation(cancel);
        self.agent.compact_now(events).await
    }

    /// Records an undo or a redo (`record`, made by [`undo::carry_out`](crate::undo::carry_out))
    /// in the session file after its `stored` records (as loaded now, the file being this
    /// session's), and goes on with the conversation as it leaves it. Between rounds only.
    pub fn record_rewind(&mut self, stored: &[Record], record: Record) -> Result<(), StoreError> {
        self.agent.history_mut().apply_rewind(stored, record)
    }

    /// Whether the session was created here and nothing was ever written to it: such a
    /// session is removed when it is left, so opening wright and leaving does not bury the
    /// last real session under an empty one (`--continue` takes the most recent).
    pub fn is_unused(&self) -> bool {
        !self.resumed && self.agent.history().all_messages().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::Path;
    use wright_llm::ProviderKind;
    use wright_protocol::{Message, MessageMetadata, Role, TodoStatus};
    use wright_store::RoundStatus;

    fn setup(root: &Path) -> AgentSetup {
        AgentSetup::new(
            root.to_path_buf(),
            LlmConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:9/v1/", "m"),
        )
    }

    fn sessions(home: &Path, root: &Path) -> Sessions {
        let agents = AgentBuilder::new(setup(root)).unwrap();
        Sessions::new(SessionStore::new(home, root), agents)
    }

    /// A round that wrote a todo list.
    fn plan(history: &mut HistoryManager) {
        history.open_round("plan").unwrap();
        history
            .push(Message::assistant(
                "Action: TodoWrite[{\"todos\": [{\"id\": \"1\", \"content\": \"ship\", \"status\": \"in_progress\"}]}]",
            ))
            .unwrap();
        history
            .push(Message {
                role: Role::Tool,
                content: r#"{"status":"success","data":{}}"#.into(),
                metadata: MessageMetadata {
                    tool_name: Some("TodoWrite".into()),
                    step: Some(1),
                    ..MessageMetadata::default()
                },
            })
            .unwrap();
        history.end_round(RoundStatus::Finished).unwrap();
    }

    #[test]
    fn open_goes_on_with_the_named_session_and_its_todo_list() {
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sessions = sessions(home.path(), root.path());
        let (meta, file) = sessions.store().create(Some("work")).unwrap();
        plan(&mut HistoryManager::new(Some(file)));

        let again = sessions.open(Some("work"), &mut |_| {}).unwrap();
        assert_eq!(again.id(), meta.id);
        assert_eq!(again.name(), Some("work"));
        assert!(again.is_resumed());
        assert!(!again.is_unused());
        let todos = again.agent().todos();
        assert_eq!(todos.len(), 1);
        assert_eq!(
            (todos[0].content.as_str(), todos[0].status),
            ("ship", TodoStatus::InProgress)
        );
    }

    #[test]
    fn open_waits_for_a_round_running_in_the_session_and_goes_on_after_it() {
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sessions = sessions(home.path(), root.path());
        // Another wright created the session and is running its first round.
        let (meta, file) = sessions.store().create(Some("work")).unwrap();
        let (busy_tx, busy_rx) = std::sync::mpsc::channel();
        let session = std::thread::scope(|scope| {
            scope.spawn(move || {
                busy_rx
                    .recv_timeout(std::time::Duration::from_secs(60))
                    .unwrap();
                plan(&mut HistoryManager::new(Some(file)));
            });
            sessions
                .open(Some("work"), &mut |busy: &BusySession| {
                    busy_tx.send(busy.id.clone()).unwrap()
                })
                .unwrap()
        });
        assert_eq!(session.id(), meta.id);
        assert!(session.is_resumed());
        // The round the other wright finished while this one waited is part of the session.
        assert_eq!(session.agent().todos().len(), 1);
    }

    #[test]
    fn open_gives_up_on_a_session_held_past_the_wait() {
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sessions =
            sessions(home.path(), root.path()).with_lock_wait(std::time::Duration::from_millis(50));
        let (_, _held) = sessions.store().create(Some("work")).unwrap();
        let mut told = Vec::new();
        let Err(error) = sessions.open(Some("work"), &mut |busy| told.push(busy.to_string()))
        else {
            panic!("opened a session another wright holds");
        };
        assert!(
            matches!(error, SessionError::Store(StoreError::Locked { .. })),
            "{error}"
        );
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(told[0].starts_with("session \"work\" ("), "{told:?}");
    }

    /// A tool from outside, as an MCP server offers one: it is never called here.
    struct Outside(String);

    impl wright_tools::Tool for Outside {
        fn name(&self) -> &str {
            &self.0
        }
        fn kind(&self) -> wright_tools::ToolKind {
            wright_tools::ToolKind::External
        }
        fn description(&self) -> &str {
            "A tool from outside."
        }
        fn schema(&self) -> serde_json::Value {
            serde_json::json!({"type": "object"})
        }
        fn prepare(
            &self,
            _: serde_json::Value,
            _: &ToolContext,
        ) -> Result<Box<dyn wright_tools::Prepared>, wright_protocol::ToolError> {
            Err(wright_tools::invalid(&self.0, "not here", "{}"))
        }
    }

    #[test]
    fn reload_tools_offers_the_tools_from_outside_as_they_are_now_keeping_the_history() {
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let offered = Arc::new(std::sync::Mutex::new(vec!["mcp__db__query".to_string()]));
        let mut setup = setup(root.path());
        let now = offered.clone();
        setup.external_tools = Some(Arc::new(move || {
            now.lock()
                .unwrap()
                .iter()
                .map(|name| Box::new(Outside(name.clone())) as Box<dyn wright_tools::Tool>)
                .collect()
        }));
        let sessions = Sessions::new(
            SessionStore::new(home.path(), root.path()),
            AgentBuilder::new(setup).unwrap(),
        );
        let mut session = sessions.create(None).unwrap();
        plan(session.agent.history_mut());
        let before = session.agent().system_prompt().to_string();
        assert!(before.contains("## mcp__db__query"));

        offered.lock().unwrap().push("mcp__web__fetch".to_string());
        // Nothing changes by itself: L1 stays the same bytes until the tools are reloaded.
        assert_eq!(session.agent().system_prompt(), before);
        sessions.reload_tools(&mut session);
        let names = session.agent().tool_names();
        assert!(names.contains(&"mcp__web__fetch".to_string()), "{names:?}");
        // Task and AskUser are still there, after the tools from outside.
        let task = names.iter().position(|n| n == "Task").unwrap();
        assert!(names.iter().position(|n| n == "mcp__web__fetch").unwrap() < task);
        assert!(names.contains(&"AskUser".to_string()), "{names:?}");
        assert!(
            session
                .agent()
                .system_prompt()
                .contains("## mcp__web__fetch")
        );
        // The history is the session's still.
        assert_eq!(session.agent().history().all_messages().len(), 3);
    }

    #[test]
    fn without_a_name_open_creates_a_new_session_with_nothing_written() {
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sessions = sessions(home.path(), root.path());
        let session = sessions.open(None, &mut |_| {}).unwrap();
        assert!(!session.is_resumed());
        assert!(session.is_unused());
        assert_eq!(session.name(), None);
    }

    #[test]
    fn a_project_the_tools_cannot_open_names_the_project() {
        let home = tempfile::tempdir().unwrap();
        let missing = home.path().join("no-such-project");
        let sessions = sessions(home.path(), &missing);
        let Err(error) = sessions.create(None) else {
            panic!("a missing project opened");
        };
        assert!(
            matches!(&error, SessionError::Project { root, .. } if *root == missing),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot open the project {}: ", missing.display())),
            "{error}"
        );
    }

    #[test]
    fn bad_model_settings_fail_before_any_session_is_touched() {
        let root = tempfile::tempdir().unwrap();
        let mut bad = setup(root.path());
        bad.llm.base_url = "not a url".into();
        assert!(matches!(
            AgentBuilder::new(bad),
            Err(LlmError::InvalidConfig {
                setting: "base_url",
                ..
            })
        ));
    }
}
