//! [`Session::commit`]: the git workflow's steps in order (see [`crate::commit`]): what is
//! pending, whether the repository can take a commit, which of the agent's files can be
//! committed, the message (a model call, or the plain one), the commit, and its record.

use std::path::PathBuf;
use std::sync::Arc;

use chrono::Utc;
use wright_protocol::{Event, UsageCall};
use wright_store::{CommitRecord, UsageKind};
use wright_tools::CommandPolicy;

use super::Session;
use crate::checkpoint::Checkpoints;
use crate::commit::message::{
    COMMIT_MESSAGE_TIMEOUT, SubjectCall, fallback_subject, full_message, message_request,
    write_subject,
};
use crate::commit::{
    CommitOutcome, GitError, GitSettings, Pending, Repository, SKIP_CHANGED_AFTER,
    SKIP_CHANGED_BEFORE, SKIP_STAGED, SkippedFile, pending,
};
use crate::round::Events;

/// What a session commits with: the project, the `[git]` settings, the checkpoints that tell
/// the agent's files, and the protected branches.
#[derive(Clone)]
pub(super) struct Committer {
    pub(super) root: PathBuf,
    pub(super) git: GitSettings,
    pub(super) checkpoints: Option<Arc<dyn Checkpoints>>,
    pub(super) policy: CommandPolicy,
}

/// The agent's files sorted into those to commit and those left out.
struct Sorted {
    repo: Repository,
    branch: String,
    commit: Vec<PathBuf>,
    skipped: Vec<SkippedFile>,
}

impl Committer {
    /// Opens the repository and sorts the agent's files of `pending`; blocking (runs git).
    fn sort(&self, pending: &Pending, allow_protected: bool) -> Result<Sorted, Box<CommitOutcome>> {
        self.sort_unboxed(pending, allow_protected)
            .map_err(Box::new)
    }

    #[expect(
        clippy::result_large_err,
        reason = "made once per commit; boxed by `sort` for the trip back from the blocking task"
    )]
    fn sort_unboxed(
        &self,
        pending: &Pending,
        allow_protected: bool,
    ) -> Result<Sorted, CommitOutcome> {
        let failed = |e: Box<dyn std::error::Error + Send + Sync>| {
            CommitOutcome::Failed(format!("cannot tell which files the agent changed: {e}"))
        };
        let Some(store) = &self.checkpoints else {
            return Err(CommitOutcome::Failed(
                "checkpoints are off (`[checkpoints] enabled = false`), so which files the agent \
                 changed is unknown"
                    .into(),
            ));
        };
        let (repo, branch) = Repository::open(&self.root).map_err(CommitOutcome::NotCommittable)?;
        if !allow_protected && self.policy.protects_branch(&branch) {
            return Err(CommitOutcome::ProtectedBranch(branch));
        }
        let files = store
            .changed_files(&pending.from, pending.to.as_deref())
            .map_err(failed)?;
        if files.is_empty() {
            return Err(CommitOutcome::NothingToCommit);
        }
        let after = match &pending.to {
            Some(to) => store.changed_files(to, None).map_err(failed)?,
            None => Vec::new(),
        };
        let before = store.blob_ids(&pending.from, &files).map_err(failed)?;
        let git = |e: GitError| CommitOutcome::Failed(e.to_string());
        let mut sorted = Sorted {
            repo,
            branch,
            commit: Vec::new(),
            skipped: Vec::new(),
        };
        for (path, before) in files.into_iter().zip(before) {
            let head = sorted.repo.head_entry(&path).map_err(git)?;
            let index = sorted.repo.index_entry(&path).map_err(git)?;
            let why = if index != head {
                Some(SKIP_STAGED)
            } else if before != head.map(|(_, oid)| oid) {
                Some(SKIP_CHANGED_BEFORE)
            } else if after.contains(&path) {
                Some(SKIP_CHANGED_AFTER)
            } else {
                None
            };
            match why {
                Some(why) => sorted.skipped.push(SkippedFile { path, why }),
                None => sorted.commit.push(path),
            }
        }
        Ok(sorted)
    }
}

impl Session {
    /// Whether the agent's changes are committed after each round (`[git] auto_commit`).
    pub fn auto_commits(&self) -> bool {
        self.committer.git.auto_commit
    }

    /// Commits the session's uncommitted agent changes (see [`crate::commit`]) on the current
    /// branch; on a protected branch only with `allow_protected` (the user said yes). The
    /// commit-message call's usage is reported to `events` and recorded.
    pub async fn commit(&mut self, allow_protected: bool, events: Events<'_>) -> CommitOutcome {
        let records = match self.agent.history().file_path() {
            Some(path) => match wright_store::load(path) {
                Ok(loaded) => loaded.records,
                Err(e) => return CommitOutcome::Failed(format!("cannot read the session: {e}")),
            },
            None => return CommitOutcome::NothingToCommit,
        };
        let Some(pending) = pending(&records) else {
            return CommitOutcome::NothingToCommit;
        };
        let committer = self.committer.clone();
        let job = pending.clone();
        let sorted = tokio::task::spawn_blocking(move || {
            let sorted = committer.sort(&job, allow_protected)?;
            let staged = sorted
                .repo
                .stage(&sorted.commit)
                .map_err(|e| Box::new(CommitOutcome::Failed(e.to_string())))?;
            Ok::<_, Box<CommitOutcome>>((sorted, staged))
        })
        .await;
        let (sorted, staged) = match sorted {
            Ok(Ok(done)) => done,
            Ok(Err(outcome)) => return *outcome,
            Err(e) => return CommitOutcome::Failed(e.to_string()),
        };
        let Some(staged) = staged else {
            return if sorted.skipped.is_empty() {
                CommitOutcome::NothingToCommit
            } else {
                CommitOutcome::AllSkipped(sorted.skipped)
            };
        };
        let names: Vec<String> = sorted
            .commit
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let (subject, fallback) = self.subject(&pending, &names, &staged.diff, events).await;
        let git = &self.committer.git;
        let message = full_message(&subject, &git.commit_prefix, &git.commit_suffix, &names);
        let subject_line = wright_protocol::text::first_line(&message).to_string();
        let made = tokio::task::spawn_blocking(move || staged.commit(&message)).await;
        let commit = match made {
            Ok(Ok(commit)) => commit,
            Ok(Err(GitError::Failed { output, .. })) => return CommitOutcome::Failed(output),
            Ok(Err(e)) => return CommitOutcome::Failed(e.to_string()),
            Err(e) => return CommitOutcome::Failed(e.to_string()),
        };
        let recorded = self.agent.history_mut().record_commit(CommitRecord {
            at: Utc::now(),
            round: pending.last_round,
            commit: commit.clone(),
            files: names,
        });
        if let Err(e) = recorded {
            events(Event::Warning {
                message: format!("the session could not be saved: {e}"),
            });
        }
        CommitOutcome::Committed {
            commit,
            branch: sorted.branch,
            subject: subject_line,
            files: sorted.commit,
            skipped: sorted.skipped,
            fallback,
        }
    }

    /// The subject from the commit-message call, or the plain one with why the call gave none.
    async fn subject(
        &mut self,
        pending: &Pending,
        files: &[String],
        diff: &str,
        events: Events<'_>,
    ) -> (String, Option<String>) {
        let llm = match self
            .agent
            .commit_client(self.committer.git.commit_model.as_deref())
        {
            Ok(llm) => llm,
            Err(e) => return (fallback_subject(&pending.requests), Some(e.to_string())),
        };
        let request = message_request(&pending.requests, files, diff);
        let SubjectCall { subject, usage } =
            write_subject(&llm, &request, COMMIT_MESSAGE_TIMEOUT).await;
        if let Some(usage) = usage {
            events(Event::usage_of(&usage, UsageCall::Commit));
            let model = llm.config().model.clone();
            let recorded = self
                .agent
                .history_mut()
                .record_usage(usage, UsageKind::Commit, &model);
            if let Err(e) = recorded {
                events(Event::Warning {
                    message: format!("the session could not be saved: {e}"),
                });
            }
        }
        match subject {
            Ok(subject) => (subject, None),
            Err(why) => (fallback_subject(&pending.requests), Some(why)),
        }
    }
}
