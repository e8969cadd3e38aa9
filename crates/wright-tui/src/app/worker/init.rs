//! `/init` (issue 17, item 3): `wright init` in the session — a read-only agent of its own
//! (`wright_core::init`) writes the project's instructions file; its text is shown as a diff
//! and written only when the user picks yes. The agent's session is stored as a sub-agent's
//! of the session the user is in, and its steps are shown as a sub-agent's are.

use tokio_util::sync::CancellationToken;
use wright_core::init::{self, INIT_AGENT, Proposal};
use wright_core::session::{AgentBuilder, Sessions};
use wright_protocol::Event;

use super::{Choice, Notice, Reply, Worker};

impl Worker {
    /// `/init`: the proposal, the diff, the question, and the file written on a yes.
    pub(super) async fn init(&mut self, cancel: CancellationToken) {
        let proposal = match self.propose(cancel.clone()).await {
            Ok(proposal) => proposal,
            Err(_) if cancel.is_cancelled() => {
                self.notice(Notice::Info(
                    "/init stopped; nothing was written.".to_string(),
                ));
                return;
            }
            Err(message) => {
                self.notice(Notice::Error(format!("/init: {message}")));
                return;
            }
        };
        let name = proposal.target.name.clone();
        if proposal.diff.is_empty() {
            self.notice(Notice::Info(format!(
                "{name} already says this; nothing to change."
            )));
            return;
        }
        self.notice(Notice::Diff(proposal.diff.clone()));
        let verb = match proposal.target.current {
            Some(_) => "Update",
            None => "Write",
        };
        let choice = Choice {
            title: vec![format!("{verb} {name} as shown above?")],
            options: vec![
                (Some('y'), format!("yes, write {name}")),
                (Some('n'), "no, leave it as it is".to_string()),
            ],
            // "no" first, so Enter typed ahead writes nothing.
            selected: 1,
        };
        if self.ask(choice).await != Some(0) {
            self.notice(Notice::Info(format!("{name} was left as it is.")));
            return;
        }
        match proposal.target.write(&self.root, &proposal.text).await {
            Ok(_) => self.notice(Notice::Info(format!(
                "{name} {}; every request reads it from now on.",
                match proposal.target.current {
                    Some(_) => "updated",
                    None => "written",
                }
            ))),
            Err(e) => self.notice(Notice::Error(format!("/init: {e}."))),
        }
    }

    /// Runs the writer in a session of its own and makes its answer a proposal.
    async fn propose(&mut self, cancel: CancellationToken) -> Result<Proposal, String> {
        let mut setup = self.setup.clone().into_reader(init::profile());
        // The model the user talks to now (`/model` may have changed it).
        setup.llm.model = self.session.agent().model().to_string();
        let agents = AgentBuilder::new(setup).map_err(|e| e.to_string())?;
        let sessions = Sessions::new(self.sessions.store().clone(), agents);
        let task = "write the project's instructions file";
        let mut session = sessions
            .create_child(self.session.id(), INIT_AGENT, task)
            .map_err(|e| e.to_string())?;
        let replies = self.replies.clone();
        let mut events = move |event: Event| {
            // Shown as a sub-agent's steps: its answer is the file, shown as the diff.
            let _ = replies.send(Reply::Event(Event::Subagent {
                step: 0,
                agent: INIT_AGENT.to_string(),
                description: task.to_string(),
                event: Box::new(event),
            }));
        };
        init::propose(&mut session, &self.root, cancel, &mut events)
            .await
            .map_err(|e| e.to_string())
    }
}
