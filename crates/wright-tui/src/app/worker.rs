//! The agent's side of the session: a task that owns the [`Agent`] and runs what the terminal
//! asks (a round, a compaction, a command) one at a time, sending back every event, every
//! approval question and a status when each is done. The terminal stays responsive because
//! none of this runs on its side.

mod init;
mod insights;
mod undo;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::recap::{RECAP_ROUNDS, Recap, recap};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use wright_core::RoundOutcome;
use wright_core::approval::{ApprovalRequest, Approver, Decision};
use wright_core::ask_user::{UserAnswer, UserQuestion};
use wright_core::checkpoint::Checkpoints;
use wright_core::commit::CommitOutcome;
use wright_core::cost::{Price, session_cost};
use wright_core::memory::commands as memory_commands;
use wright_core::session::{AgentBuilder, AgentSetup, Session, SessionError, Sessions};
use wright_core::undo::{UndoRequest, UndoScope};
use wright_protocol::{ActionKind, Event, FailureCode};
use wright_store::{LoadedSession, SessionStore, SessionSummary};

use super::commands::SlashCommand;
use super::jobs;
use super::mcp::{self, McpControl};
use super::modes::SessionMode;
use super::reports::Reports;
use crate::render::StatusInfo;

/// What the terminal asks of the agent.
#[derive(Debug)]
pub enum Request {
    /// Run a round for this input; `cancel` stops it.
    Round {
        /// The user's message.
        input: String,
        /// Fired by Ctrl-C.
        cancel: CancellationToken,
        /// The mode to run it in (the one the user saw when they sent it).
        mode: SessionMode,
    },
    /// Compact the history now.
    Compact {
        /// Fired by Ctrl-C.
        cancel: CancellationToken,
    },
    /// Commit the agent's uncommitted changes to git (`/commit`).
    Commit,
    /// Write the project's instructions file (`/init`), after the user approves its diff.
    Init {
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
    /// The model asks the user a question (AskUser); the answer goes back on the channel.
    Ask(UserQuestion, oneshot::Sender<UserAnswer>),
    /// The user is to pick one of the options (`/rewind`'s rounds, whether `/undo` may
    /// overwrite their changes); the index picked, or `None`, goes back on the channel.
    Choose(Choice, oneshot::Sender<Option<usize>>),
    /// Text for the user.
    Notice(Notice),
    /// The request is done; the status after it, when it touched the model.
    Done(Option<StatusInfo>),
}

/// A question with options to pick from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The lines above the options.
    pub title: Vec<String>,
    /// The options: the key that picks one at once, if any, and what it says.
    pub options: Vec<(Option<char>, String)>,
    /// The option selected at first.
    pub selected: usize,
}

/// Text the user is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Plain information (reports, lists).
    Info(String),
    /// Something failed.
    Error(String),
    /// A unified diff, shown coloured.
    Diff(String),
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
/// after the `approval_requested` (or, for the model's own question, `tool_call`) event that
/// shows what is asked about.
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

    fn ask(&self, question: UserQuestion) -> BoxFuture<'static, UserAnswer> {
        let (answer, answered) = oneshot::channel();
        let asked = self.replies.send(Reply::Ask(question, answer)).is_ok();
        Box::pin(async move {
            if !asked {
                return UserAnswer::NoOne;
            }
            answered.await.unwrap_or(UserAnswer::Declined)
        })
    }
}

/// Everything needed to open sessions and run them.
pub struct Worker {
    /// What the agents are made of (with the terminal as approver), for agents of wright's
    /// own such as `/init`'s writer.
    setup: AgentSetup,
    sessions: Sessions,
    session: Session,
    root: PathBuf,
    prices: HashMap<String, Price>,
    reports: Box<dyn Reports>,
    /// The project's snapshots, for `/undo` and `/diff`.
    checkpoints: Option<Arc<dyn Checkpoints>>,
    /// The MCP servers, if any are configured.
    mcp: Option<Arc<dyn McpControl>>,
    replies: mpsc::UnboundedSender<Reply>,
}

/// How the worker is set up.
pub struct WorkerConfig {
    /// What the agents are made of; their approver is the terminal (a [`ChannelApprover`]).
    pub setup: AgentSetup,
    /// Where sessions are.
    pub store: SessionStore,
    /// Configured prices.
    pub prices: HashMap<String, Price>,
    /// Writes `/context`'s report and `/sessions`' table.
    pub reports: Box<dyn Reports>,
    /// The project's snapshots, compared and restored by `/undo`, `/rewind` and `/diff`;
    /// `None` leaves them only the conversation.
    pub checkpoints: Option<Arc<dyn Checkpoints>>,
    /// The MCP servers (`/mcp`, `/mcp reconnect`); `None` when none are configured.
    pub mcp: Option<Arc<dyn McpControl>>,
}

impl Worker {
    /// Opens `session` (a new one when `None`) and announces it on `replies`. Fails when the
    /// model's client, the project or the session file cannot be opened.
    pub fn open(
        config: WorkerConfig,
        session: Option<LoadedSession>,
        replies: mpsc::UnboundedSender<Reply>,
    ) -> Result<Self, String> {
        let mut setup = config.setup;
        setup.approver = Some(Arc::new(ChannelApprover {
            replies: replies.clone(),
        }));
        let root = setup.root.clone();
        let agents = AgentBuilder::new(setup.clone()).map_err(|e| e.to_string())?;
        let sessions = Sessions::new(config.store, agents);
        let (session, opened) = open(&sessions, session).map_err(|e| e.to_string())?;
        let _ = replies.send(Reply::Opened(opened));
        Ok(Self {
            setup,
            sessions,
            session,
            root,
            prices: config.prices,
            reports: config.reports,
            checkpoints: config.checkpoints,
            mcp: config.mcp,
            replies,
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
        let unused = self.session.is_unused();
        let (store, id) = (self.sessions.store().clone(), self.session.id().to_string());
        // The session file stays locked while its agent lives.
        drop(self);
        if unused {
            let _ = store.remove(&id);
        }
    }

    async fn handle(&mut self, request: Request) -> Option<StatusInfo> {
        let replies = self.replies.clone();
        let mut events = move |event: Event| {
            let _ = replies.send(Reply::Event(event));
        };
        match request {
            Request::Round {
                input,
                cancel,
                mode,
            } => {
                if self.mcp.as_ref().is_some_and(|mcp| mcp.settle()) {
                    self.sessions.reload_tools(&mut self.session);
                }
                self.session.set_plan_mode(mode.plan);
                self.session.set_approval_mode(mode.approval);
                let summaries = self.summaries();
                let outcome = self.session.run_round(&input, cancel, &mut events).await;
                let interrupted = matches!(
                    outcome,
                    RoundOutcome::Failed {
                        code: FailureCode::Interrupted,
                        ..
                    }
                );
                if self.session.auto_commits() && !interrupted {
                    self.commit(false).await;
                }
                let round_tokens = match outcome {
                    RoundOutcome::Finished { usage, .. } => usage.total_tokens,
                    RoundOutcome::Failed { .. } => 0,
                };
                self.offer_insights(summaries).await;
                Some(self.status(round_tokens))
            }
            Request::Compact { cancel } => {
                let summaries = self.summaries();
                self.compact(cancel, summaries).await
            }
            Request::Command(SlashCommand::Undo) => {
                self.undo(UndoRequest::Undo(None), UndoScope::Both).await;
                None
            }
            Request::Command(SlashCommand::Redo) => {
                self.undo(UndoRequest::Redo, UndoScope::Both).await;
                None
            }
            Request::Command(SlashCommand::Rewind) => {
                self.rewind().await;
                None
            }
            Request::Command(SlashCommand::Diff(round)) => {
                self.diff(round).await;
                None
            }
            Request::Command(SlashCommand::McpReconnect(server)) => {
                self.reconnect(server.as_deref()).await;
                None
            }
            Request::Commit => {
                self.commit(true).await;
                Some(self.status(0))
            }
            Request::Init { cancel } => {
                self.init(cancel).await;
                None
            }
            Request::Command(command) => {
                self.command(command);
                None
            }
        }
    }

    /// `/compact`: compacts now, then offers to keep what the summary says should last.
    async fn compact(&mut self, cancel: CancellationToken, summaries: usize) -> Option<StatusInfo> {
        let replies = self.replies.clone();
        let mut events = move |event: Event| {
            let _ = replies.send(Reply::Event(event));
        };
        match self.session.compact(cancel, &mut events).await {
            Ok(true) => {
                self.offer_insights(summaries).await;
                Some(self.status(0))
            }
            Ok(false) => {
                self.notice(Notice::Info(format!(
                    "Nothing to compact: the history holds no rounds before the last {} (kept as they are).",
                    self.session.agent().context_settings().retain_rounds
                )));
                None
            }
            Err(message) => {
                self.notice(Notice::Error(format!("Compaction failed: {message}")));
                None
            }
        }
    }

    /// Commits the agent's uncommitted changes (see `wright_core::commit`); on a protected
    /// branch only if the user says yes at the approval prompt. `on_demand` (`/commit`) says
    /// so when there is nothing to commit.
    async fn commit(&mut self, on_demand: bool) {
        let replies = self.replies.clone();
        let mut events = move |event: Event| {
            let _ = replies.send(Reply::Event(event));
        };
        let mut outcome = self.session.commit(false, &mut events).await;
        if let CommitOutcome::ProtectedBranch(branch) = &outcome {
            let (answer, answered) = oneshot::channel();
            let question = ApprovalRequest {
                step: 0,
                tool: "git commit".to_string(),
                args: serde_json::json!({ "branch": branch }),
                kind: ActionKind::Command,
                preview: format!("git commit (the files the agent changed) on {branch}"),
                concern: Some(format!(
                    "{branch} is a protected branch ([bash] protected_branches)"
                )),
            };
            // The question line names only the tool: the event shows the branch and why.
            events(Event::ApprovalRequested {
                step: question.step,
                tool: question.tool.clone(),
                kind: question.kind,
                preview: question.preview.clone(),
                concern: question.concern.clone(),
            });
            let _ = self.replies.send(Reply::Approval(question, answer));
            let decision = answered.await.unwrap_or(Decision::Deny { reason: None });
            events(Event::ApprovalDecided {
                step: 0,
                decision: decision.verdict(),
                reason: match &decision {
                    Decision::Deny { reason } => reason.clone(),
                    _ => None,
                },
            });
            if matches!(decision, Decision::Once | Decision::Always) {
                outcome = self.session.commit(true, &mut events).await;
            }
        }
        match (&outcome, outcome.report()) {
            (CommitOutcome::Committed { .. }, Some(line)) => self.notice(Notice::Info(line)),
            (_, Some(line)) => self.notice(Notice::Error(line)),
            (_, None) if on_demand => self.notice(Notice::Info(
                "Nothing to commit: the agent changed no file since the last commit.".to_string(),
            )),
            (_, None) => {}
        }
    }

    /// `/mcp reconnect [SERVER]`: the servers started again, and the agent given their
    /// tools (its L1 changes with them, once).
    async fn reconnect(&mut self, server: Option<&str>) {
        let Some(mcp) = self.mcp.clone() else {
            self.notice(Notice::Error(mcp::NO_SERVERS.to_string()));
            return;
        };
        match mcp.reconnect(server).await {
            Ok(text) => {
                self.sessions.reload_tools(&mut self.session);
                self.notice(Notice::Info(text));
            }
            Err(message) => self.notice(Notice::Error(message)),
        }
    }

    fn notice(&self, notice: Notice) {
        let _ = self.replies.send(Reply::Notice(notice));
    }

    fn command(&mut self, command: SlashCommand) {
        let agent = self.session.agent();
        match command {
            SlashCommand::Clear => self.switch(None),
            SlashCommand::Resume(query) => match self.sessions.store().find(&query) {
                Ok(Some(found)) if found.meta.id == self.session.id() => {
                    self.notice(Notice::Info("That is the session you are in.".to_string()));
                }
                Ok(Some(found)) => self.switch(Some(found)),
                Ok(None) => self.notice(Notice::Error(format!(
                    "No session {query:?} in this project; /sessions lists them."
                ))),
                Err(e) => self.notice(Notice::Error(e.to_string())),
            },
            SlashCommand::Model(None) => {
                let text = format!("The model is {}.", agent.model());
                self.notice(Notice::Info(text));
            }
            SlashCommand::Model(Some(model)) => {
                match self.sessions.set_model(&mut self.session, &model) {
                    Ok(()) => {
                        self.notice(Notice::Info(format!("The next rounds talk to {model}.")))
                    }
                    Err(e) => self.notice(Notice::Error(e.to_string())),
                }
            }
            SlashCommand::Todo => {
                let text = wright_tools::todo_recap(&agent.todos())
                    .unwrap_or_else(|| "No todo list yet.".to_string());
                self.notice(Notice::Info(text));
            }
            SlashCommand::Jobs => self.notice(Notice::Info(jobs::report(&agent.jobs()))),
            SlashCommand::Mcp => {
                let text = match &self.mcp {
                    Some(mcp) => mcp.report(&agent.tool_names()),
                    None => mcp::NO_SERVERS.to_string(),
                };
                self.notice(Notice::Info(text));
            }
            SlashCommand::Memory(command) => {
                let notice = match self.sessions.memory_paths() {
                    Some(paths) => {
                        let out =
                            memory_commands::run(paths, Some(self.session.memory()), &command);
                        let mut text = out.text.trim_end().to_string();
                        for problem in &out.problems {
                            text.push_str(&format!("\n{problem}"));
                        }
                        if out.ok {
                            Notice::Info(text)
                        } else {
                            Notice::Error(text.trim_start().to_string())
                        }
                    }
                    None => Notice::Info("Memory is not kept in this session.".to_string()),
                };
                self.notice(notice);
            }
            SlashCommand::Cost => {
                let report =
                    session_cost(agent.history().usage_records(), agent.model(), &self.prices);
                self.notice(Notice::Info(report.to_string()));
            }
            SlashCommand::Context => match self.sessions.store().find(self.session.id()) {
                Ok(session) => {
                    let report = self.reports.context(
                        &self.root,
                        session.as_ref(),
                        agent.context_settings(),
                    );
                    self.notice(Notice::Info(report));
                }
                Err(e) => self.notice(Notice::Error(e.to_string())),
            },
            SlashCommand::Sessions => match self.sessions.store().summaries() {
                Ok(list) if list.is_empty() => {
                    self.notice(Notice::Info("No sessions yet.".to_string()));
                }
                Ok(list) => {
                    let table = self.reports.session_table(&list);
                    let text = format!("{table}You are in {}.", self.session.id());
                    self.notice(Notice::Info(text));
                }
                Err(e) => self.notice(Notice::Error(e.to_string())),
            },
            SlashCommand::Help
            | SlashCommand::Compact
            | SlashCommand::Exit
            | SlashCommand::Undo
            | SlashCommand::McpReconnect(_)
            | SlashCommand::Redo
            | SlashCommand::Rewind
            | SlashCommand::Diff(_)
            | SlashCommand::Commit
            | SlashCommand::Init
            | SlashCommand::Plan => {}
        }
    }

    /// Opens another session (a new one for `None`) in place of the current one; the one
    /// left is removed if nothing was ever written to it.
    fn switch(&mut self, session: Option<LoadedSession>) {
        match open(&self.sessions, session) {
            Ok((session, opened)) => {
                let left = std::mem::replace(&mut self.session, session);
                let (unused, id) = (left.is_unused(), left.id().to_string());
                // Its file is unlocked once its agent is gone.
                drop(left);
                if unused {
                    let _ = self.sessions.store().remove(&id);
                }
                let _ = self.replies.send(Reply::Opened(opened));
            }
            Err(e) => self.notice(Notice::Error(e.to_string())),
        }
    }

    /// The status line's facts after a request.
    fn status(&self, round_tokens: u64) -> StatusInfo {
        let agent = self.session.agent();
        let model = agent.model().to_string();
        let report = session_cost(agent.history().usage_records(), &model, &self.prices);
        StatusInfo {
            context_tokens: agent
                .history()
                .last_usage()
                .map_or(0, |usage| usage.total_tokens),
            context_window: agent.context_settings().context_window,
            round_tokens,
            cost_usd: report.total.cost_usd.filter(|_| report.total.calls > 0),
            model,
        }
    }
}

/// Opens `loaded` (a new session for `None`) and says what was opened: for a stored session,
/// how many rounds it holds and a recap of its last ones.
fn open(
    sessions: &Sessions,
    loaded: Option<LoadedSession>,
) -> Result<(Session, SessionOpened), SessionError> {
    let (session, rounds, recap) = match loaded {
        Some(loaded) => {
            let rounds = SessionSummary::of(&loaded).rounds;
            let recap = recap(&loaded.records, RECAP_ROUNDS);
            (sessions.resume(loaded)?, rounds, recap)
        }
        None => (sessions.create(None)?, 0, Recap::default()),
    };
    let opened = SessionOpened {
        id: session.id().to_string(),
        name: session.name().map(str::to_string),
        rounds,
        resumed: session.is_resumed(),
        model: session.agent().model().to_string(),
        warnings: session.warnings().to_vec(),
        recap,
    };
    Ok((session, opened))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::Path;
    use wright_core::approval::ApprovalMode;
    use wright_core::compaction::ContextSettings;
    use wright_llm::{LlmConfig, ProviderKind};

    /// Says what it was asked for, so the test sees the worker went through it.
    struct Named;

    impl Reports for Named {
        fn context(
            &self,
            _: &Path,
            session: Option<&LoadedSession>,
            settings: &ContextSettings,
        ) -> String {
            let id = session.map_or("none", |s| s.meta.id.as_str());
            format!("context of {id} in a window of {}", settings.context_window)
        }

        fn session_table(&self, summaries: &[SessionSummary]) -> String {
            format!("{} sessions\n", summaries.len())
        }
    }

    fn notices(replies: &mut mpsc::UnboundedReceiver<Reply>) -> Vec<Notice> {
        let mut out = Vec::new();
        while let Ok(reply) = replies.try_recv() {
            if let Reply::Notice(notice) = reply {
                out.push(notice);
            }
        }
        out
    }

    #[tokio::test]
    async fn context_and_sessions_are_written_by_the_launchers_reports() {
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let config = WorkerConfig {
            setup: AgentSetup {
                approval: ApprovalMode::Ask,
                ..AgentSetup::new(
                    root.path().to_path_buf(),
                    LlmConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:9/v1/", "m"),
                )
            },
            store: SessionStore::new(home.path(), root.path()),
            prices: HashMap::new(),
            reports: Box::new(Named),
            checkpoints: None,
            mcp: None,
        };
        let (reply_tx, mut replies) = mpsc::unbounded_channel();
        let mut worker = Worker::open(config, None, reply_tx).unwrap();
        let id = worker.session.id().to_string();
        worker.handle(Request::Command(SlashCommand::Context)).await;
        worker
            .handle(Request::Command(SlashCommand::Sessions))
            .await;
        assert_eq!(
            notices(&mut replies),
            vec![
                Notice::Info(format!("context of {id} in a window of 200000")),
                Notice::Info(format!("1 sessions\nYou are in {id}.")),
            ]
        );
    }

    #[tokio::test]
    async fn memory_lists_searches_and_removes_the_entries_of_every_scope() {
        use wright_core::memory::commands::MemoryCommand;
        use wright_store::memory::{MemoryPaths, MemoryScope};
        let (home, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let paths = MemoryPaths::new(home.path(), root.path(), None);
        let saved = paths
            .file(MemoryScope::Project)
            .unwrap()
            .add(vec!["tests".into()], "Run cargo nextest.".into())
            .unwrap();
        let config = WorkerConfig {
            setup: AgentSetup {
                memory: Some(paths.clone()),
                ..AgentSetup::new(
                    root.path().to_path_buf(),
                    LlmConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:9/v1/", "m"),
                )
            },
            store: SessionStore::new(home.path(), root.path()),
            prices: HashMap::new(),
            reports: Box::new(Named),
            checkpoints: None,
            mcp: None,
        };
        let (reply_tx, mut replies) = mpsc::unbounded_channel();
        let mut worker = Worker::open(config, None, reply_tx).unwrap();
        let memory = |command| Request::Command(SlashCommand::Memory(command));
        worker
            .handle(memory(MemoryCommand::List { scope: None }))
            .await;
        worker
            .handle(memory(MemoryCommand::Search {
                words: "nextest".into(),
                tags: Vec::new(),
            }))
            .await;
        worker
            .handle(memory(MemoryCommand::Remove {
                id: Some(saved.id.clone()),
                tags: Vec::new(),
            }))
            .await;
        let notices = notices(&mut replies);
        let [
            Notice::Info(list),
            Notice::Info(found),
            Notice::Info(removed),
        ] = &notices[..]
        else {
            panic!("{notices:?}");
        };
        assert!(
            list.contains(&format!("  {} ", saved.id))
                && list.contains("session (this session only): no entries"),
            "{list}"
        );
        assert!(found.contains("Run cargo nextest."), "{found}");
        assert_eq!(removed, &format!("removed {} (project)", saved.id));
        assert_eq!(
            paths.file(MemoryScope::Project).unwrap().load().unwrap(),
            vec![]
        );
    }
}
