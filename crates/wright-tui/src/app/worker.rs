//! The agent's side of the session: a task that owns the [`Agent`] and runs what the terminal
//! asks (a round, a compaction, a command) one at a time, sending back every event, every
//! approval question and a status when each is done. The terminal stays responsive because
//! none of this runs on its side.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::recap::{RECAP_ROUNDS, Recap, recap};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use wright_core::approval::{ApprovalMode, ApprovalRequest, Approver, Decision};
use wright_core::compaction::ContextSettings;
use wright_core::cost::{Price, session_cost};
use wright_core::history::HistoryManager;
use wright_core::hooks::Hooks;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig};
use wright_protocol::Event;
use wright_store::{LoadedSession, SessionStore, SessionSummary};
use wright_tools::ToolSettings;

use super::commands::SlashCommand;
use crate::render::StatusInfo;

/// Renders `wright context`'s report: project root, the session (if any), the settings, and
/// whether to include the whole request.
pub type ContextReport = fn(&Path, Option<&LoadedSession>, &ContextSettings, bool) -> String;
/// Renders the table `wright sessions list` prints.
pub type SessionTable = fn(&[SessionSummary]) -> String;

/// What the terminal asks of the agent.
#[derive(Debug)]
pub enum Request {
    /// Run a round for this input; `cancel` stops it.
    Round {
        /// The user's message.
        input: String,
        /// Fired by Ctrl-C.
        cancel: CancellationToken,
    },
    /// Compact the history now.
    Compact {
        /// Fired by Ctrl-C.
        cancel: CancellationToken,
    },
    /// A slash command that needs the agent or the store.
    Command(SlashCommand),
}

/// What the agent's side tells the terminal.
pub enum Reply {
    /// A session is open (at start, after `/clear` and `/resume`).
    Opened(SessionOpened),
    /// Something happened in a round or a compaction.
    Event(Event),
    /// An action waits for the user's decision, to be sent on the channel.
    Approval(ApprovalRequest, oneshot::Sender<Decision>),
    /// Text for the user.
    Notice(Notice),
    /// The request is done; the status after it, when it touched the model.
    Done(Option<StatusInfo>),
}

/// Text the user is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Plain information (reports, lists).
    Info(String),
    /// Something failed.
    Error(String),
}

/// The session the agent works in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOpened {
    /// Its id.
    pub id: String,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Rounds it already holds (0 for a new session).
    pub rounds: usize,
    /// Whether it was resumed rather than created.
    pub resumed: bool,
    /// The model talked to.
    pub model: String,
    /// Lines of its file that could not be read.
    pub warnings: Vec<String>,
    /// Its last rounds, shown when it is resumed.
    pub recap: Recap,
}

/// Asks the terminal: every question goes down the same channel as the events, so it arrives
/// after the `approval_requested` event that shows what is asked about.
pub struct ChannelApprover {
    replies: mpsc::UnboundedSender<Reply>,
}

impl Approver for ChannelApprover {
    fn decide(&self, request: ApprovalRequest) -> BoxFuture<'static, Decision> {
        let (answer, answered) = oneshot::channel();
        let asked = self.replies.send(Reply::Approval(request, answer)).is_ok();
        Box::pin(async move {
            if !asked {
                return Decision::Deny {
                    reason: Some("the terminal is closed".to_string()),
                };
            }
            answered.await.unwrap_or(Decision::Deny { reason: None })
        })
    }
}

/// Everything needed to open sessions and run them.
pub struct Worker {
    factory: AgentFactory,
    prices: HashMap<String, Price>,
    context_report: ContextReport,
    session_table: SessionTable,
    replies: mpsc::UnboundedSender<Reply>,
    agent: Agent,
    session_id: String,
    /// Whether the session was created by this worker (not resumed).
    created: bool,
}

/// How the worker is set up.
pub struct WorkerConfig {
    /// The project root.
    pub root: PathBuf,
    /// How to reach the model.
    pub llm: LlmConfig,
    /// How rounds run.
    pub agent: AgentConfig,
    /// Where sessions are.
    pub store: SessionStore,
    /// Which actions run without asking.
    pub approval: ApprovalMode,
    /// Configured prices.
    pub prices: HashMap<String, Price>,
    /// How the tools run.
    pub tools: ToolSettings,
    /// The `pre_tool` and `post_tool` hooks.
    pub hooks: Hooks,
    /// `/context`'s report.
    pub context_report: ContextReport,
    /// `/sessions`' table.
    pub session_table: SessionTable,
}

/// Makes the agent of a session.
struct AgentFactory {
    root: PathBuf,
    llm: LlmConfig,
    config: AgentConfig,
    store: SessionStore,
    approval: ApprovalMode,
    tools: ToolSettings,
    hooks: Hooks,
    replies: mpsc::UnboundedSender<Reply>,
}

impl Worker {
    /// Opens `session` (a new one when `None`) and announces it on `replies`. Fails when the
    /// model's client, the project or the session file cannot be opened.
    pub fn open(
        config: WorkerConfig,
        session: Option<LoadedSession>,
        replies: mpsc::UnboundedSender<Reply>,
    ) -> Result<Self, String> {
        let factory = AgentFactory {
            root: config.root,
            llm: config.llm,
            config: config.agent,
            store: config.store,
            approval: config.approval,
            tools: config.tools,
            hooks: config.hooks,
            replies: replies.clone(),
        };
        let (agent, opened) = factory.open(session)?;
        let _ = replies.send(Reply::Opened(opened.clone()));
        Ok(Self {
            factory,
            prices: config.prices,
            context_report: config.context_report,
            session_table: config.session_table,
            replies,
            agent,
            created: !opened.resumed,
            session_id: opened.id,
        })
    }

    /// Runs requests until the terminal hangs up.
    pub async fn serve(mut self, mut requests: mpsc::UnboundedReceiver<Request>) {
        while let Some(request) = requests.recv().await {
            let status = self.handle(request).await;
            if self.replies.send(Reply::Done(status)).is_err() {
                break;
            }
        }
        let unused = self.unused();
        let (store, id) = (self.factory.store.clone(), self.session_id.clone());
        // The session file stays locked while its agent lives.
        drop(self);
        if unused {
            let _ = store.remove(&id);
        }
    }

    /// Whether the session was made here and nothing was ever written to it: it is removed
    /// when left, so opening wright and leaving does not bury the last real session under an
    /// empty one (`--continue` takes the most recent).
    fn unused(&self) -> bool {
        self.created && self.agent.history().all_messages().is_empty()
    }

    async fn handle(&mut self, request: Request) -> Option<StatusInfo> {
        let replies = self.replies.clone();
        let mut events = move |event: Event| {
            let _ = replies.send(Reply::Event(event));
        };
        match request {
            Request::Round { input, cancel } => {
                self.agent.set_cancellation(cancel);
                let outcome = self.agent.run_round(&input, &mut events).await;
                let round_tokens = match outcome {
                    RoundOutcome::Finished { usage, .. } => usage.total_tokens,
                    RoundOutcome::Failed { .. } => 0,
                };
                Some(self.status(round_tokens))
            }
            Request::Compact { cancel } => {
                self.agent.set_cancellation(cancel);
                match self.agent.compact_now(&mut events).await {
                    Ok(true) => Some(self.status(0)),
                    Ok(false) => {
                        self.notice(Notice::Info(format!(
                            "Nothing to compact: the history holds no rounds before the last {} (kept as they are).",
                            self.agent.context_settings().retain_rounds
                        )));
                        None
                    }
                    Err(message) => {
                        self.notice(Notice::Error(format!("Compaction failed: {message}")));
                        None
                    }
                }
            }
            Request::Command(command) => {
                self.command(command);
                None
            }
        }
    }

    fn notice(&self, notice: Notice) {
        let _ = self.replies.send(Reply::Notice(notice));
    }

    fn command(&mut self, command: SlashCommand) {
        match command {
            SlashCommand::Clear => self.switch(None),
            SlashCommand::Resume(query) => match self.factory.store.find(&query) {
                Ok(Some(found)) if found.meta.id == self.session_id => {
                    self.notice(Notice::Info("That is the session you are in.".to_string()));
                }
                Ok(Some(found)) => self.switch(Some(found)),
                Ok(None) => self.notice(Notice::Error(format!(
                    "No session {query:?} in this project; /sessions lists them."
                ))),
                Err(e) => self.notice(Notice::Error(e.to_string())),
            },
            SlashCommand::Model(None) => {
                let text = format!("The model is {}.", self.agent.model());
                self.notice(Notice::Info(text));
            }
            SlashCommand::Model(Some(model)) => match self.agent.set_model(&model) {
                Ok(()) => {
                    self.factory.llm.model = model.clone();
                    self.notice(Notice::Info(format!("The next rounds talk to {model}.")));
                }
                Err(e) => self.notice(Notice::Error(e.to_string())),
            },
            SlashCommand::Todo => {
                let text = wright_tools::todo_recap(&self.agent.todos())
                    .unwrap_or_else(|| "No todo list yet.".to_string());
                self.notice(Notice::Info(text));
            }
            SlashCommand::Cost => {
                let report = session_cost(
                    self.agent.history().usage_records(),
                    self.agent.model(),
                    &self.prices,
                );
                self.notice(Notice::Info(report.to_string()));
            }
            SlashCommand::Context => match self.factory.store.find(&self.session_id) {
                Ok(session) => {
                    let report = (self.context_report)(
                        &self.factory.root,
                        session.as_ref(),
                        self.agent.context_settings(),
                        false,
                    );
                    self.notice(Notice::Info(report));
                }
                Err(e) => self.notice(Notice::Error(e.to_string())),
            },
            SlashCommand::Sessions => match self.factory.store.summaries() {
                Ok(list) if list.is_empty() => {
                    self.notice(Notice::Info("No sessions yet.".to_string()));
                }
                Ok(list) => {
                    let table = (self.session_table)(&list);
                    let text = format!("{table}You are in {}.", self.session_id);
                    self.notice(Notice::Info(text));
                }
                Err(e) => self.notice(Notice::Error(e.to_string())),
            },
            SlashCommand::Help | SlashCommand::Compact | SlashCommand::Exit => {}
        }
    }

    /// Opens another session (a new one for `None`) in place of the current one.
    fn switch(&mut self, session: Option<LoadedSession>) {
        match self.factory.open(session) {
            Ok((agent, opened)) => {
                let unused = self.unused();
                let previous = std::mem::replace(&mut self.session_id, opened.id.clone());
                drop(std::mem::replace(&mut self.agent, agent));
                self.created = !opened.resumed;
                if unused {
                    let _ = self.factory.store.remove(&previous);
                }
                let _ = self.replies.send(Reply::Opened(opened));
            }
            Err(message) => self.notice(Notice::Error(message)),
        }
    }

    /// The status line's facts after a request.
    fn status(&self, round_tokens: u64) -> StatusInfo {
        let model = self.agent.model().to_string();
        let report = session_cost(self.agent.history().usage_records(), &model, &self.prices);
        StatusInfo {
            context_tokens: self
                .agent
                .history()
                .last_usage()
                .map_or(0, |usage| usage.total_tokens),
            context_window: self.agent.context_settings().context_window,
            round_tokens,
            cost_usd: report.total.cost_usd.filter(|_| report.total.calls > 0),
            model,
        }
    }
}

impl AgentFactory {
    /// An agent over `session` (a new session when `None`).
    fn open(&self, session: Option<LoadedSession>) -> Result<(Agent, SessionOpened), String> {
        let (history, opened) = match session {
            Some(loaded) => {
                let file = self
                    .store
                    .open_for_append(&loaded)
                    .map_err(|e| e.to_string())?;
                let rounds = SessionSummary::of(&loaded).rounds;
                let history = HistoryManager::replay(&loaded.records, Some(file));
                let opened = SessionOpened {
                    id: loaded.meta.id,
                    name: loaded.meta.name,
                    rounds,
                    resumed: true,
                    model: self.llm.model.clone(),
                    recap: recap(&loaded.records, RECAP_ROUNDS),
                    warnings: loaded.warnings,
                };
                (history, opened)
            }
            None => {
                let (meta, file) = self.store.create(None).map_err(|e| e.to_string())?;
                let opened = SessionOpened {
                    id: meta.id,
                    name: meta.name,
                    rounds: 0,
                    resumed: false,
                    model: self.llm.model.clone(),
                    warnings: Vec::new(),
                    recap: Recap::default(),
                };
                (HistoryManager::new(Some(file)), opened)
            }
        };
        let ctx = self
            .tools
            .context(&self.root)
            .map_err(|e| format!("cannot open the project {}: {e}", self.root.display()))?;
        if let Some(todos) = history.last_todo_list() {
            ctx.set_todos(todos);
        }
        let llm = LlmClient::new(self.llm.clone()).map_err(|e| e.to_string())?;
        let approver: Arc<dyn Approver> = Arc::new(ChannelApprover {
            replies: self.replies.clone(),
        });
        let agent = Agent::new(
            llm,
            self.tools.registry(),
            ctx,
            self.config.clone(),
            history,
        )
        .map_err(|e| e.to_string())?
        .with_approvals(self.approval, Some(approver))
        .with_hooks(self.hooks.clone());
        Ok((agent, opened))
    }
}
