//! Background commands (issue 14). Bash with `"run_in_background": true` starts the command
//! and returns at once with a short id (`b1`, `b2`, … per session); BashOutput shows what it
//! printed since the last read, KillBash stops it, and once it has ended the next request
//! carries a reminder ([`Jobs::take_ended`], [`job_reminder`]) unless BashOutput or KillBash
//! told the model first.
//!
//! A background command is a Bash call in every way but the wait: the dangerous-command
//! checker, the hooks and the approval have passed on the call before it starts; it is
//! started by the same code (`bash::start_confined`), so it is confined by the same sandbox
//! and mount namespace, runs in a process group of its own that dies with wright
//! ([`crate::process_group`]) and gets no provider keys; what BashOutput and KillBash show of
//! its output is masked like every tool result. The guard ([`crate::guard`]) looks at the
//! protected paths before each Bash command, BashOutput and KillBash, so what a job changed
//! there is undone and reported at the next of them.
//!
//! Its lifetime: no timeout unless the call gives `timeout_ms` (a server or a watcher is
//! meant to run until stopped; the step does not wait for it, so no step is held up). Ctrl-C
//! stops the round, not the session's jobs. It is stopped — SIGTERM to its group, SIGKILL
//! after [`TERM_GRACE`] — by KillBash, by its timeout, when the session's last
//! [`ToolContext`] goes (`/clear`, `/resume`), and when wright exits
//! ([`crate::stop_running_commands`]). Like a Bash call it ends when bash exits, and what it
//! left running in its group is killed then.
//!
//! Its output — stdout and stderr on one pipe, in the order written, as `2>&1` would have it
//! — is kept in memory, the last [`MAX_JOB_OUTPUT_BYTES`] of it ([`output`]).

mod output;
pub(crate) mod tools;

use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, JobEnded, JobStatus, ToolError, ToolResult};

use crate::bash::{
    DRAIN_TIMEOUT, OUTPUT_GRACE, OutputSink, Pipe, Running, Started, TERM_GRACE, describe_exit,
    start_confined,
};
use crate::data::{BashData, to_value};
use crate::process_group::ProcessGroup;
use crate::{ToolContext, failure};

pub(crate) use output::MAX_JOB_OUTPUT_BYTES;
use output::{OutputBuffer, Unread};

/// Lines of output a reminder gives of a job that ended.
const REMINDER_LINES: usize = 5;

/// The background jobs of a session: shared by the clones of its [`ToolContext`] (and so by
/// sub-agents working in it). When the last clone goes, the jobs still running are stopped.
#[derive(Clone, Default)]
pub struct Jobs {
    table: Arc<Table>,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.list()).finish()
    }
}

/// The jobs, in the order they were started.
#[derive(Default)]
struct Table {
    jobs: Mutex<Vec<Arc<Job>>>,
}

impl Drop for Table {
    fn drop(&mut self) {
        let jobs = self.jobs.get_mut().unwrap_or_else(PoisonError::into_inner);
        for job in jobs.iter() {
            job.stop(StopReason::SessionEnd);
        }
    }
}

/// A background job as `/jobs` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    /// Its id, e.g. `b1`.
    pub id: String,
    /// The command as it was started.
    pub command: String,
    /// Running, exited or killed.
    pub status: JobStatus,
    /// Its exit code, once it has ended.
    pub exit_code: Option<i32>,
    /// How long it has run (until it ended).
    pub runtime: Duration,
}

impl Jobs {
    /// Every job of the session, oldest first.
    pub fn list(&self) -> Vec<JobInfo> {
        self.jobs().iter().map(|job| job.info()).collect()
    }

    /// The jobs that have ended and that the model has not been told of, each told of now:
    /// for the reminder the next request carries ([`job_reminder`]). Their last lines are
    /// output, to be masked by whoever shows them.
    pub fn take_ended(&self) -> Vec<JobEnded> {
        self.jobs()
            .iter()
            .filter_map(|job| {
                let mut state = job.state();
                let end = state.end.clone()?;
                if state.reported {
                    return None;
                }
                state.reported = true;
                Some(JobEnded {
                    id: job.id.clone(),
                    command: job.command.clone(),
                    status: end.status,
                    exit_code: end.exit_code,
                    last_lines: state.output.last_lines(REMINDER_LINES),
                })
            })
            .collect()
    }

    fn jobs(&self) -> MutexGuard<'_, Vec<Arc<Job>>> {
        self.table
            .jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A new job for `command`, with the next id.
    fn add(&self, command: String) -> Arc<Job> {
        let mut jobs = self.jobs();
        let job = Arc::new(Job {
            id: format!("b{}", jobs.len() + 1),
            command,
            started: Instant::now(),
            state: Mutex::default(),
            stop: CancellationToken::new(),
            ended: CancellationToken::new(),
        });
        jobs.push(Arc::clone(&job));
        release_old_outputs(&jobs);
        job
    }

    /// `Err` (the observation) when [`MAX_RUNNING_JOBS`] jobs are running already.
    pub(crate) fn check_room(&self) -> Result<(), ToolError> {
        let running: Vec<JobInfo> = self
            .list()
            .into_iter()
            .filter(|job| job.status == JobStatus::Running)
            .collect();
        if running.len() < MAX_RUNNING_JOBS {
            return Ok(());
        }
        Err(failure(
            ErrorCode::Refused,
            format!(
                "{} background jobs are running, the most a session may have; stop one with \
                 KillBash first: {}",
                running.len(),
                running
                    .iter()
                    .map(|job| format!("{} `{}`", job.id, job.command))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    }

    /// The job called `id`, or the error the model sees, naming the jobs there are.
    pub(crate) fn find(&self, id: &str) -> Result<Arc<Job>, ToolError> {
        let jobs = self.jobs();
        if let Some(job) = jobs.iter().find(|job| job.id == id.trim()) {
            return Ok(Arc::clone(job));
        }
        let known = match jobs.is_empty() {
            true => "no background job was started in this session (Bash with \
                     `\"run_in_background\": true` starts one)"
                .to_string(),
            false => format!(
                "the jobs are: {}",
                jobs.iter()
                    .map(|job| {
                        let info = job.info();
                        format!("{} ({}) `{}`", info.id, status_words(&info), info.command)
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(failure(
            ErrorCode::NotFound,
            format!("there is no background job `{id}`; {known}"),
        ))
    }
}

/// The most background jobs one session may have running at once.
const MAX_RUNNING_JOBS: usize = 16;
/// Ended jobs whose output is kept (the latest; the model was told of each): older ones let go
/// of theirs, so a session that starts hundreds of jobs holds at most this many outputs.
const KEPT_ENDED_OUTPUTS: usize = 16;

/// Lets go of the output of ended jobs the model was told of, but the latest
/// [`KEPT_ENDED_OUTPUTS`].
fn release_old_outputs(jobs: &[Arc<Job>]) {
    let mut kept = 0;
    for job in jobs.iter().rev() {
        let mut state = job.state();
        if state.end.is_none() || !state.reported {
            continue;
        }
        if kept < KEPT_ENDED_OUTPUTS {
            kept += 1;
        } else {
            state.output.release();
        }
    }
}

/// `running`, `exited 0`, `killed`: a job's status in a few words.
fn status_words(info: &JobInfo) -> String {
    match (info.status, info.exit_code) {
        (JobStatus::Exited, Some(code)) => format!("exited {code}"),
        (status, _) => status.to_string(),
    }
}

/// The longest command a reminder repeats whole.
const MAX_REMINDER_COMMAND_CHARS: usize = 300;

/// The note that tells the model background jobs have ended: for each its id, its command,
/// how it ended and its last lines.
pub fn job_reminder(ended: &[JobEnded]) -> String {
    let mut text = String::from("<background-jobs>");
    for job in ended {
        let exit = match job.exit_code {
            Some(code) => format!("exit code {code}"),
            None => "exit code unknown".to_string(),
        };
        let how = match job.status {
            JobStatus::Killed => format!("was stopped ({exit})"),
            _ => format!("has exited ({exit})"),
        };
        text.push_str(&format!(
            "\nBackground job {} {how}: `{}`.",
            job.id,
            wright_protocol::text::clip(&job.command, MAX_REMINDER_COMMAND_CHARS)
        ));
        match job.last_lines.is_empty() {
            true => text.push_str(" It printed nothing."),
            false => text.push_str(&format!(" Its last lines:\n{}", job.last_lines)),
        }
    }
    text.push_str("\n</background-jobs>");
    text
}

/// Why a job was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    /// The model called KillBash.
    KillBash,
    /// It ran past the `timeout_ms` it was started with.
    Timeout,
    /// The session it belonged to ended (its last context went).
    SessionEnd,
}

impl StopReason {
    fn as_str(self) -> &'static str {
        match self {
            StopReason::KillBash => "KillBash",
            StopReason::Timeout => "timeout",
            StopReason::SessionEnd => "session_end",
        }
    }
}

/// One background command.
pub(crate) struct Job {
    id: String,
    command: String,
    started: Instant,
    state: Mutex<JobState>,
    /// Cancelled to have the job stopped (the reason is in the state).
    stop: CancellationToken,
    /// Cancelled once it has ended and its output is all read.
    ended: CancellationToken,
}

#[derive(Debug, Default)]
struct JobState {
    output: OutputBuffer,
    /// Set once it has ended.
    end: Option<End>,
    /// Why it was asked to stop, if it was.
    stop_reason: Option<StopReason>,
    /// Whether the model has been told that it ended.
    reported: bool,
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
struct End {
    status: JobStatus,
    exit_code: Option<i32>,
    signal: Option<String>,
    stopped_by: Option<StopReason>,
    runtime: Duration,
}

/// A job as one look at it found it: how it stands and what it printed.
pub(crate) struct Look {
    pub(crate) data: crate::data::JobData,
    /// The output not read before (BashOutput), or its last lines (KillBash).
    pub(crate) unread: Unread,
}

impl Job {
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    pub(crate) fn command(&self) -> &str {
        &self.command
    }

    fn state(&self) -> MutexGuard<'_, JobState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn info(&self) -> JobInfo {
        let state = self.state();
        JobInfo {
            id: self.id.clone(),
            command: self.command.clone(),
            status: state.end.as_ref().map_or(JobStatus::Running, |e| e.status),
            exit_code: state.end.as_ref().and_then(|e| e.exit_code),
            runtime: state
                .end
                .as_ref()
                .map_or_else(|| self.started.elapsed(), |e| e.runtime),
        }
    }

    /// Asks the job to stop (once; the first reason stays).
    fn stop(&self, reason: StopReason) {
        let mut state = self.state();
        if state.end.is_none() && state.stop_reason.is_none() {
            state.stop_reason = Some(reason);
        }
        drop(state);
        self.stop.cancel();
    }

    /// Stops the job for KillBash and waits until it has ended (or `within` passes).
    pub(crate) async fn kill(&self, within: Duration) {
        self.stop(StopReason::KillBash);
        let _ = tokio::time::timeout(within, self.ended.cancelled()).await;
    }

    /// How the job stands. With `read_unread` the output not read before is taken (and marked
    /// read); otherwise [`Look::unread`] holds its last `last_lines` lines. Either way, a job
    /// seen to have ended counts as told of.
    pub(crate) fn look(&self, read_unread: bool, last_lines: usize) -> Look {
        let mut state = self.state();
        let ended = state.end.clone();
        if ended.is_some() {
            state.reported = true;
        }
        let unread = match read_unread {
            true => state.output.take_unread(ended.is_some()),
            false => Unread {
                text: state.output.last_lines(last_lines),
                dropped_bytes: 0,
            },
        };
        let runtime = ended
            .as_ref()
            .map_or_else(|| self.started.elapsed(), |e| e.runtime);
        let data = crate::data::JobData {
            id: self.id.clone(),
            command: self.command.clone(),
            status: ended.as_ref().map_or(JobStatus::Running, |e| e.status),
            exit_code: ended.as_ref().and_then(|e| e.exit_code),
            signal: ended.as_ref().and_then(|e| e.signal.clone()),
            stopped_by: ended
                .as_ref()
                .and_then(|e| e.stopped_by)
                .map(|r| r.as_str().to_string()),
            runtime_secs: (runtime.as_millis() as f64 / 1000.0),
            ..Default::default()
        };
        Look { data, unread }
    }

    /// Records how the job ended, once its output is all read.
    fn finish(&self, status: Option<&Result<std::process::ExitStatus, String>>) {
        let exit = status.map(describe_exit);
        let mut state = self.state();
        let stopped_by = state.stop_reason;
        state.end = Some(End {
            status: match stopped_by {
                Some(_) => JobStatus::Killed,
                None => JobStatus::Exited,
            },
            exit_code: exit.as_ref().and_then(|e| e.code),
            signal: exit.and_then(|e| e.signal),
            stopped_by,
            runtime: self.started.elapsed(),
        });
        drop(state);
        self.ended.cancel();
    }
}

/// Where a job's output goes: its buffer, both streams together.
struct JobSink(Arc<Job>);

impl OutputSink for JobSink {
    fn stdout(&mut self, bytes: &[u8]) {
        self.0.state().output.push(bytes);
    }
    fn stderr(&mut self, bytes: &[u8]) {
        self.0.state().output.push(bytes);
    }
}

/// Starts `command` as a background job of `ctx`'s session (see the module doc), stopped
/// after `timeout` if one is given, and returns the result that gives its id.
pub(crate) async fn start(
    command: String,
    timeout: Option<Duration>,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolError> {
    ctx.jobs().check_room()?;
    let (stdout, stderr, output) = one_pipe().map_err(|err| {
        failure(
            ErrorCode::Io,
            format!("could not make the pipe for the command's output: {err}"),
        )
    })?;
    let Started {
        child,
        group,
        mut notes,
    } = start_confined(&command, ctx, stdout, stderr).await?;
    let job = ctx.jobs().add(command.clone());
    let id = job.id.clone();
    let running = Running::merged(child, output, JobSink(Arc::clone(&job)));
    tokio::spawn(drive(job, running, group, timeout));
    let until = match timeout {
        Some(timeout) => format!("it is stopped after {} ms", timeout.as_millis()),
        None => "it runs until it exits or is stopped".to_string(),
    };
    notes.push(format!(
        "Started background job {id} ({until}): `{command}`\n\
         BashOutput {{\"id\": \"{id}\"}} shows what it printed since you last looked; \
         KillBash {{\"id\": \"{id}\"}} stops it. You will be told when it ends."
    ));
    let data = BashData {
        command,
        job_id: Some(id),
        ..BashData::default()
    };
    Ok(ToolResult::success(notes.join("\n"), to_value(&data)))
}

/// One pipe for both of a command's streams, as a terminal or `2>&1` would have it: its
/// output keeps the order in which it was written. The two ends to give the command, and the
/// end to read.
#[cfg(unix)]
fn one_pipe() -> std::io::Result<(Stdio, Stdio, Pipe)> {
    let (reader, writer) = std::io::pipe()?;
    let reader =
        tokio::net::unix::pipe::Receiver::from_owned_fd(std::os::fd::OwnedFd::from(reader))?;
    Ok((
        Stdio::from(writer.try_clone()?),
        Stdio::from(writer),
        Box::new(reader),
    ))
}

/// Elsewhere background commands are not started: wright confines and stops commands with
/// what Unix gives.
#[cfg(not(unix))]
fn one_pipe() -> std::io::Result<(Stdio, Stdio, Pipe)> {
    Err(std::io::Error::other(
        "background commands need a Unix system",
    ))
}

/// Runs a job until it ends or is stopped, keeping its output; then kills what is left of
/// its group and records the end.
async fn drive(
    job: Arc<Job>,
    mut running: Running<JobSink>,
    mut group: ProcessGroup,
    timeout: Option<Duration>,
) {
    let deadline = timeout.map(|timeout| Instant::now() + timeout);
    let stopping = loop {
        if running.status.is_some() {
            break false;
        }
        tokio::select! {
            () = running.step() => {}
            () = sleep_until(deadline) => {
                job.stop(StopReason::Timeout);
                break true;
            }
            () = job.stop.cancelled() => break true,
        }
    };
    if stopping {
        group.terminate();
        let _ = tokio::time::timeout(TERM_GRACE, running.finish()).await;
    } else {
        let _ = tokio::time::timeout(OUTPUT_GRACE, running.finish()).await;
    }
    group.kill();
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, running.finish()).await;
    job.finish(running.status.as_ref());
}

/// Resolves at `deadline`; never without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_reminder_gives_each_job_its_id_command_end_and_last_lines() {
        let ended = [
            JobEnded {
                id: "b1".into(),
                command: "cargo test".into(),
                status: JobStatus::Exited,
                exit_code: Some(101),
                last_lines: "test result: FAILED".into(),
            },
            JobEnded {
                id: "b2".into(),
                command: "sleep 300".into(),
                status: JobStatus::Killed,
                exit_code: Some(143),
                last_lines: String::new(),
            },
        ];
        assert_eq!(
            job_reminder(&ended),
            "<background-jobs>\n\
             Background job b1 has exited (exit code 101): `cargo test`. Its last lines:\n\
             test result: FAILED\n\
             Background job b2 was stopped (exit code 143): `sleep 300`. It printed nothing.\n\
             </background-jobs>"
        );
    }

    #[test]
    fn an_unknown_id_is_an_error_that_names_the_jobs() {
        let jobs = Jobs::default();
        let none = jobs.find("b1").err().unwrap();
        assert_eq!(none.code, ErrorCode::NotFound);
        assert!(
            none.message.contains("no background job was started"),
            "{}",
            none.message
        );
        jobs.add("npm run dev".into());
        let error = jobs.find("b7").err().unwrap();
        assert_eq!(
            error.message,
            "there is no background job `b7`; the jobs are: b1 (running) `npm run dev`"
        );
        assert_eq!(jobs.find(" b1 ").unwrap().id(), "b1");
    }

    #[test]
    fn a_session_runs_at_most_so_many_jobs_and_keeps_the_output_of_the_latest_ended() {
        let jobs = Jobs::default();
        let running: Vec<Arc<Job>> = (0..MAX_RUNNING_JOBS)
            .map(|i| jobs.add(format!("server {i}")))
            .collect();
        let full = jobs.check_room().unwrap_err();
        assert_eq!(full.code, ErrorCode::Refused);
        assert!(
            full.message.contains("stop one with KillBash"),
            "{}",
            full.message
        );
        running[0].finish(None);
        assert!(jobs.check_room().is_ok());

        // Ended jobs the model was told of keep their output, the latest so many of them.
        let ended: Vec<Arc<Job>> = (0..KEPT_ENDED_OUTPUTS + 2)
            .map(|i| {
                let job = jobs.add(format!("step {i}"));
                job.state().output.push(b"line\n");
                job.finish(None);
                job
            })
            .collect();
        let _ = jobs.take_ended();
        jobs.add("one more".into());
        let kept = |job: &Arc<Job>| job.look(false, 1).unread.text;
        assert_eq!(kept(&ended[0]), "", "the oldest let go of its output");
        assert_eq!(kept(&ended[1]), "");
        assert_eq!(kept(&ended[2]), "line");
        assert_eq!(kept(&ended[KEPT_ENDED_OUTPUTS + 1]), "line");
    }

    #[test]
    fn ids_count_up_per_session() {
        let (one, two) = (Jobs::default(), Jobs::default());
        assert_eq!(one.add("a".into()).id(), "b1");
        assert_eq!(one.clone().add("b".into()).id(), "b2");
        assert_eq!(two.add("c".into()).id(), "b1");
        let ids: Vec<String> = one.list().into_iter().map(|info| info.id).collect();
        assert_eq!(ids, ["b1", "b2"]);
    }

    #[test]
    fn an_ended_job_is_told_of_once() {
        let jobs = Jobs::default();
        let job = jobs.add("make".into());
        job.state().output.push(b"1\n2\n3\n4\n5\n6\n");
        assert_eq!(jobs.take_ended(), Vec::new(), "still running");
        job.finish(None);
        let ended = jobs.take_ended();
        assert_eq!(
            ended,
            vec![JobEnded {
                id: "b1".into(),
                command: "make".into(),
                status: JobStatus::Exited,
                exit_code: None,
                last_lines: "2\n3\n4\n5\n6".into(),
            }]
        );
        assert_eq!(jobs.take_ended(), Vec::new());
    }

    #[test]
    fn a_look_that_sees_the_end_counts_as_telling() {
        let jobs = Jobs::default();
        let job = jobs.add("make".into());
        job.finish(None);
        let look = job.look(true, 0);
        assert_eq!(look.data.status, JobStatus::Exited);
        assert_eq!(jobs.take_ended(), Vec::new());
    }

    #[test]
    fn a_stopped_job_ends_killed_with_the_reason() {
        let jobs = Jobs::default();
        let job = jobs.add("sleep 9".into());
        job.stop(StopReason::KillBash);
        job.stop(StopReason::SessionEnd);
        job.finish(None);
        let look = job.look(false, 5);
        assert_eq!(look.data.status, JobStatus::Killed);
        assert_eq!(look.data.stopped_by.as_deref(), Some("KillBash"));
    }
}
