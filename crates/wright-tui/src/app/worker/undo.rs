//! `/undo`, `/redo`, `/rewind` and `/diff` (issue 13): what `wright undo` and `wright diff` do,
//! for the session the user is in. The undo is `wright_core::undo`'s, as for the command line;
//! here the user is asked before their own changes are overwritten (the command line refuses
//! without `--force`), and the conversation goes on without the undone rounds at once.
//! Snapshots are compared and restored off the terminal's thread.

use std::sync::Arc;

use tokio::sync::oneshot;
use wright_core::checkpoint::{ChangeCounts, Checkpoints};
use wright_core::rewind::{UndoError, diff_range, round_states};
use wright_core::undo::{
    Overwrites, UndoRequest, UndoScope, UndoStep, carry_out, overwrites, report,
};
use wright_store::Record;

use super::{Choice, Notice, Reply, Worker};

/// The scopes `/rewind` offers after the round is picked, in order.
const SCOPES: [(char, &str, UndoScope); 3] = [
    ('b', "files and conversation", UndoScope::Both),
    ('f', "files only", UndoScope::FilesOnly),
    ('c', "conversation only", UndoScope::ConversationOnly),
];

/// The snapshots a round's file changes lie between: its first, and its end (`None`: the
/// round did not end, so the files as they are now).
type Span = (String, Option<String>);

/// Runs `job` (which may run `git`) off the runtime's thread.
async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| e.to_string())?
}

/// An [`UndoError`] as the interactive session says it: rounds are listed by `/rewind`.
fn undo_error(error: &UndoError) -> String {
    match error {
        UndoError::NothingToRedo => "Nothing to redo: no /undo to take back.".to_string(),
        UndoError::UnknownRound { .. } => format!("{}; /rewind lists the rounds.", capital(error)),
        _ => format!("{}.", capital(error)),
    }
}

fn capital(text: &impl ToString) -> String {
    let text = text.to_string();
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

impl Worker {
    /// The session's records as stored now (its file is this worker's).
    fn records(&self) -> Result<Vec<Record>, String> {
        match self.sessions.store().find(self.session.id()) {
            Ok(Some(loaded)) => Ok(loaded.records),
            Ok(None) => Err(format!("Session {} is not stored.", self.session.id())),
            Err(e) => Err(e.to_string()),
        }
    }

    fn store(&self) -> Result<Arc<dyn Checkpoints>, String> {
        self.checkpoints
            .clone()
            .ok_or_else(|| "The project's checkpoints are not available.".to_string())
    }

    /// Asks the user to pick one of `choice`'s options; `None` when they did not.
    pub(super) async fn ask(&mut self, choice: Choice) -> Option<usize> {
        let (answer, answered) = oneshot::channel();
        self.replies.send(Reply::Choose(choice, answer)).ok()?;
        answered.await.ok().flatten()
    }

    /// `/undo` (`Undo(None)`), `/redo`, and the undo `/rewind` picked.
    pub(super) async fn undo(&mut self, request: UndoRequest, scope: UndoScope) {
        if let Err(message) = self.try_undo(request, scope).await {
            self.notice(Notice::Error(message));
        }
    }

    async fn try_undo(&mut self, request: UndoRequest, scope: UndoScope) -> Result<(), String> {
        let records = self.records()?;
        let step = UndoStep::plan(&records, request, scope).map_err(|e| undo_error(&e))?;
        let store = if step.restores_files() {
            let store = self.store()?;
            let (asked, known, planned) = (store.clone(), records.clone(), step.clone());
            let found = blocking(move || {
                overwrites(asked.as_ref(), &known, &planned).map_err(|e| e.to_string())
            })
            .await?;
            match found {
                Overwrites::Nothing => {}
                Overwrites::Unknown => self.notice(Notice::Info(
                    "Note: the session's last round did not end, so changes made since its last \
                     step cannot be told apart from the agent's."
                        .to_string(),
                )),
                Overwrites::UserChanges(changed) => {
                    let mut title = vec![
                        "These files changed after the agent last touched them; undoing \
                         overwrites them:"
                            .to_string(),
                    ];
                    title.extend(changed.iter().map(|change| format!("  {change}")));
                    title.push("Overwrite them? (/redo can take the undo back)".to_string());
                    let choice = Choice {
                        title,
                        options: vec![
                            (Some('y'), "yes, undo and overwrite them".to_string()),
                            (Some('n'), "no, leave everything as it is".to_string()),
                        ],
                        selected: 1,
                    };
                    if self.ask(choice).await != Some(0) {
                        self.notice(Notice::Info("Nothing was undone.".to_string()));
                        return Ok(());
                    }
                }
            }
            Some(store)
        } else {
            None
        };
        let planned = step.clone();
        let done = blocking(move || {
            carry_out(&planned, store.as_deref()).map_err(|e| format!("The undo failed: {e}"))
        })
        .await?;
        if let Some(record) = done.record.clone() {
            self.session
                .record_rewind(&records, record)
                .map_err(|e| format!("The undo could not be recorded in the session: {e}"))?;
        }
        let mut text = report(&step, &done, "/redo");
        if !step.redo && done.record.is_some() {
            text.push_str("/undo again undoes one more round.\n");
        }
        self.notice(Notice::Info(text));
        Ok(())
    }

    /// `/rewind`: the session's rounds to pick from, then what to undo of them.
    pub(super) async fn rewind(&mut self) {
        match self.pick_rewind().await {
            Ok(Some((round, scope))) => self.undo(UndoRequest::Undo(Some(round)), scope).await,
            Ok(None) => self.notice(Notice::Info("Nothing was undone.".to_string())),
            Err(message) => self.notice(Notice::Error(message)),
        }
    }

    async fn pick_rewind(&mut self) -> Result<Option<(u32, UndoScope)>, String> {
        let records = self.records()?;
        // Each round's number, request, and the snapshots its file changes lie between.
        let rounds: Vec<(u32, String, Option<Span>)> = round_states(&records)
            .iter()
            .filter(|state| !state.undone)
            .filter_map(|state| {
                let span = state.first_checkpoint().map(|first| {
                    let end = state.end_checkpoint().map(|end| end.id.clone());
                    (first.id.clone(), end)
                });
                Some((state.number?, state.request.clone(), span))
            })
            .collect();
        if rounds.is_empty() {
            return Err("The session has no round to undo.".to_string());
        }
        let spans: Vec<_> = rounds.iter().map(|(_, _, span)| span.clone()).collect();
        let store = self.checkpoints.clone();
        let counts = blocking(move || {
            Ok(spans
                .into_iter()
                .map(|span| {
                    let (from, to) = span?;
                    let changes = store.as_ref()?.changes(&from, to.as_deref()).ok()?;
                    Some(ChangeCounts::of(&changes))
                })
                .collect::<Vec<_>>())
        })
        .await?;
        let options = rounds
            .iter()
            .zip(counts)
            .map(|((number, request, _), counts)| {
                let files = counts.map_or_else(|| "no file changes".to_string(), |c| c.to_string());
                (None, format!("{number:>3}  {request}  ({files})"))
            })
            .collect::<Vec<_>>();
        let choice = Choice {
            title: vec!["Undo back to before which round? (Enter picks, Esc cancels)".to_string()],
            selected: options.len() - 1,
            options,
        };
        let Some(picked) = self.ask(choice).await else {
            return Ok(None);
        };
        let round = rounds[picked].0;
        let choice = Choice {
            title: vec![format!("Undo rounds from {round} on: what?")],
            options: SCOPES
                .iter()
                .map(|(key, what, _)| (Some(*key), (*what).to_string()))
                .collect(),
            selected: 0,
        };
        Ok(self
            .ask(choice)
            .await
            .and_then(|i| SCOPES.get(i))
            .map(|(_, _, scope)| (round, *scope)))
    }

    /// `/diff [N]`: the session's (or round N's) changes to the files as a unified diff.
    pub(super) async fn diff(&mut self, round: Option<u32>) {
        match self.try_diff(round).await {
            Ok(notices) => notices.into_iter().for_each(|n| self.notice(n)),
            Err(message) => self.notice(Notice::Error(message)),
        }
    }

    async fn try_diff(&mut self, round: Option<u32>) -> Result<Vec<Notice>, String> {
        let records = self.records()?;
        let what = round.map_or_else(|| "This session".to_string(), |n| format!("Round {n}"));
        let Some(range) = diff_range(&records, round).map_err(|e| undo_error(&e))? else {
            return Ok(vec![Notice::Info(format!(
                "{what} recorded no file changes."
            ))]);
        };
        let store = self.store()?;
        let (from, to) = (range.from.clone(), range.to.clone());
        let text = blocking(move || {
            store
                .diff(&from, to.as_deref())
                .map_err(|e| format!("The diff failed: {e}"))
        })
        .await?;
        let until = if range.to.is_some() {
            "its end"
        } else {
            "the files as they are now (the round did not end)"
        };
        if text.is_empty() {
            return Ok(vec![Notice::Info(format!(
                "{what}: nothing changed from before its first change to {until}."
            ))]);
        }
        Ok(vec![
            Notice::Info(format!("{what}: from before its first change to {until}:")),
            Notice::Diff(text),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn undo_errors_read_as_sentences_and_point_at_rewind() {
        assert_eq!(
            undo_error(&UndoError::NoRounds),
            "The session has no round to undo."
        );
        let unknown = UndoError::UnknownRound {
            asked: 7,
            why: "is not in this session",
            choices: Vec::new(),
        };
        assert_eq!(
            undo_error(&unknown),
            "Round 7 is not in this session; /rewind lists the rounds."
        );
    }
}
