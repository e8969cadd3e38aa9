//! Bash commands as process groups that die with wright (issue 11: nothing left running).
//!
//! Every command leads its own session, and so its own process group (issue 12): it has no
//! controlling terminal, so it cannot open `/dev/tty` or type into the terminal wright runs in
//! (`TIOCSTI` needs the terminal to be the caller's), the terminal's Ctrl-C does not reach it,
//! and the whole group — grandchildren included — can be stopped at once (the session leader's
//! group id is its process id). Four things stop a group when wright ends:
//!
//! - a [`ProcessGroup`] kills its group when it is dropped, so a command whose call is given
//!   up leaves nothing behind;
//! - every live group is listed, and [`kill_running_commands`] kills them all: the binary calls
//!   it when SIGTERM, SIGHUP or a second Ctrl-C ends wright, which skips every destructor;
//! - on Unix each group has a watchdog: a small `bash` of its own, outside the group, that
//!   waits for the end of a pipe only wright holds. Wright kills it before it stops the group
//!   itself; if wright dies first, however it dies, the pipe's end closes and the watchdog
//!   kills the group, including what the command started in the background;
//! - on Linux the group's leader is started with `PR_SET_PDEATHSIG(SIGKILL)`, so the kernel
//!   kills it when wright dies even if its watchdog could not be started.
//!
//! The kernel sends the parent-death signal when the *thread* that forked exits, not the
//! process. A runtime thread may retire while the command still runs (tokio's blocking
//! threads do after [`thread_keep_alive`]), so commands are never forked by the caller's
//! thread: [`spawn`] hands each one to a single thread that lives as long as wright.
//!
//! Not covered: a process that left the command's group (`setsid`, a shell's job control)
//! is no longer the group's, and is not stopped by any of these.
//!
//! [`thread_keep_alive`]: tokio::runtime::Builder::thread_keep_alive

use std::collections::BTreeMap;
use std::io;
#[cfg(unix)]
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};
use tokio::runtime::Handle;
use tokio::sync::oneshot;

/// The process groups of the commands running now, by group id, with the process id of each
/// one's watchdog.
static RUNNING: Mutex<BTreeMap<i32, Option<i32>>> = Mutex::new(BTreeMap::new());

/// The watchdog's script, run as `bash -c WATCHDOG wright-watchdog PGID` with its stdin the
/// pipe whose other end only wright holds: `read` returns at the pipe's end, when wright is
/// gone. Terminal signals are ignored: only wright stops a watchdog, with SIGKILL.
const WATCHDOG: &str = r#"trap '' HUP INT QUIT TERM; read -r _; kill -KILL -- "-$1""#;

/// Kills every command still running, with every process in its group (SIGKILL).
///
/// For the binary's way out when it cannot unwind: a signal that ends wright, or a second
/// Ctrl-C. Commands that end normally are stopped by their own call; calling this when none
/// runs does nothing.
pub fn kill_running_commands() {
    let groups = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(PoisonError::into_inner));
    #[cfg(unix)]
    for (pgid, watchdog) in groups {
        use nix::sys::signal::{Signal, kill, killpg};
        use nix::unistd::Pid;
        if let Some(watchdog) = watchdog {
            let _ = kill(Pid::from_raw(watchdog), Signal::SIGKILL);
        }
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
    #[cfg(not(unix))]
    drop(groups);
}

/// How long [`stop_running_commands`] gives commands between SIGTERM and SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// How often [`stop_running_commands`] looks whether the groups have ended.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Stops every command still running — at wright's exit, the background jobs (issue 14) — as
/// gently as it can: SIGTERM to each process group, so a server can close its connections and
/// a build its files; then, once every group has ended or `grace` has passed, SIGKILL to what
/// is left ([`kill_running_commands`]).
///
/// For the binary's way out, normal or by a signal: it blocks the calling thread, so nothing
/// else runs on it meanwhile (a round cannot go on to its next step), and it reaps the
/// groups' leaders itself, since their own tasks do not run while it waits. Calling it when
/// nothing runs returns at once.
pub fn stop_running_commands(grace: Duration) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        let mut running = running_groups();
        if running.is_empty() {
            return;
        }
        for &pgid in &running {
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
        }
        let deadline = Instant::now() + grace;
        loop {
            running.retain(|&pgid| {
                let alive = group_alive(pgid);
                if !alive {
                    forget(pgid);
                }
                alive
            });
            if running.is_empty() || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(STOP_POLL);
        }
    }
    #[cfg(not(unix))]
    let _ = grace;
    kill_running_commands();
}

/// The ids of the process groups running now.
#[cfg(unix)]
fn running_groups() -> Vec<i32> {
    RUNNING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .keys()
        .copied()
        .collect()
}

/// Whether any process of group `pgid` is still alive. Its leader is reaped first if it has
/// exited (it is wright's child; a zombie still counts as a member of its group).
#[cfg(unix)]
fn group_alive(pgid: i32) -> bool {
    use nix::sys::wait::{WaitPidFlag, waitpid};
    use nix::unistd::Pid;
    let _ = waitpid(Pid::from_raw(pgid), Some(WaitPidFlag::WNOHANG));
    nix::sys::signal::killpg(Pid::from_raw(pgid), None).is_ok() && has_live_member(pgid)
}

/// Whether a process of group `pgid` is alive and not a zombie: the rest of a group that
/// ended are orphans its leader did not reap, which the init process reaps in its own time
/// (some do only now and then).
#[cfg(target_os = "linux")]
fn has_live_member(pgid: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|entry| {
        std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|stat| live_group_of(&stat))
            == Some(pgid)
    })
}

/// Elsewhere a member that is a zombie counts as alive.
#[cfg(all(unix, not(target_os = "linux")))]
fn has_live_member(_: i32) -> bool {
    true
}

/// The process group of a process from its `/proc/PID/stat` line, unless it is a zombie.
#[cfg(any(target_os = "linux", test))]
fn live_group_of(stat: &str) -> Option<i32> {
    // `pid (name) state ppid pgrp ...`: the name may hold spaces and parentheses.
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let state = fields.next()?;
    let _parent = fields.next()?;
    let group = fields.next()?.parse().ok()?;
    (!matches!(state, "Z" | "X")).then_some(group)
}

/// Forgets group `pgid`, which has ended, and kills its watchdog: neither may signal its id
/// again, which another group could now have.
#[cfg(unix)]
fn forget(pgid: i32) {
    let watchdog = RUNNING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&pgid)
        .flatten();
    if let Some(watchdog) = watchdog {
        use nix::sys::signal::{Signal, kill};
        let _ = kill(nix::unistd::Pid::from_raw(watchdog), Signal::SIGKILL);
    }
}

/// Starts `command` as the leader of a new session and process group that dies with wright
/// (see the module doc), from the thread that starts every command. For processes started
/// elsewhere in wright too (MCP servers): every way out of wright stops them with the commands.
pub async fn spawn(mut command: Command) -> io::Result<(Child, ProcessGroup)> {
    new_session(&mut command);
    die_with_wright(&mut command);
    let runtime = Handle::try_current().map_err(io::Error::other)?;
    let starter = starter()
        .ok_or_else(|| io::Error::other("the thread that starts commands could not be started"))?;
    let (reply, started) = oneshot::channel();
    starter
        .send(SpawnRequest {
            command,
            runtime,
            reply,
        })
        .map_err(|_| io::Error::other("the thread that starts commands has stopped"))?;
    started
        .await
        .map_err(|_| io::Error::other("the thread that starts commands has stopped"))?
}

/// One command for the starter thread, with the runtime its pipes and exit are watched by.
struct SpawnRequest {
    command: Command,
    runtime: Handle,
    reply: oneshot::Sender<io::Result<(Child, ProcessGroup)>>,
}

/// The channel to the thread that starts every command, started on first use; `None` if it
/// could not be started.
fn starter() -> Option<&'static mpsc::Sender<SpawnRequest>> {
    static STARTER: OnceLock<Option<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    STARTER
        .get_or_init(|| {
            let (requests, incoming) = mpsc::channel();
            std::thread::Builder::new()
                .name("wright-commands".into())
                .spawn(move || start_commands(&incoming))
                .ok()?;
            Some(requests)
        })
        .as_ref()
}

/// The starter thread: starts each command it is sent, for as long as wright runs (the
/// sender is never dropped).
fn start_commands(incoming: &mpsc::Receiver<SpawnRequest>) {
    for mut request in incoming {
        // tokio registers the child's pipes and exit with the runtime entered here.
        let _runtime = request.runtime.enter();
        let started = request.command.spawn().map(|child| {
            let group = ProcessGroup::start(&child);
            (child, group)
        });
        // A caller that gave up meanwhile drops the answer, which kills the group.
        let _ = request.reply.send(started);
    }
}

/// Has the command start a session of its own (`setsid`), which makes it the leader of a new
/// process group whose id is its process id, and leaves it without a controlling terminal.
/// `Command::process_group` is not used with it: a group leader cannot start a session.
#[cfg(unix)]
#[allow(unsafe_code)]
fn new_session(command: &mut Command) {
    let setsid = || -> io::Result<()> {
        nix::unistd::setsid()?;
        Ok(())
    };
    // SAFETY: the closure runs in the forked child, where only async-signal-safe calls are
    // allowed: it makes one system call (setsid) and builds an `io::Error` from an errno,
    // which does not allocate; it takes no lock and touches nothing shared.
    unsafe {
        command.pre_exec(setsid);
    }
}

#[cfg(not(unix))]
fn new_session(_: &mut Command) {}

/// Has the command's first process (the group's leader) killed when wright dies: the
/// parent-death signal, then a check that wright did not die before it was set, in which
/// case the signal would never come and the command is not run.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_wright(command: &mut Command) {
    let wright = nix::unistd::getpid();
    let die = move || -> io::Result<()> {
        nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)?;
        if nix::unistd::getppid() != wright {
            return Err(io::Error::from(nix::errno::Errno::ESRCH));
        }
        Ok(())
    };
    // SAFETY: the closure runs in the forked child, where only async-signal-safe calls are
    // allowed: it makes two system calls (prctl, getppid) and builds an `io::Error` from an
    // errno, which does not allocate; it takes no lock and touches nothing shared.
    unsafe {
        command.pre_exec(die);
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_wright(_: &mut Command) {}

/// Starts the watchdog of group `pgid` (see [`WATCHDOG`]) in a process group of its own, so
/// neither the terminal's signals nor a kill of the command's group reach it.
#[cfg(unix)]
fn watchdog(pgid: i32) -> io::Result<Child> {
    let mut watchdog = Command::new("bash");
    for name in crate::PROVIDER_KEY_VARIABLES {
        watchdog.env_remove(name);
    }
    watchdog
        .arg("-c")
        .arg(WATCHDOG)
        .arg("wright-watchdog")
        .arg(pgid.to_string())
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
}

/// The process group of a spawned command, killed when dropped (so a dropped future — the
/// registry gave up, the agent quit — leaves no grandchildren behind).
pub struct ProcessGroup {
    #[cfg_attr(not(unix), allow(dead_code))]
    pgid: Option<i32>,
    /// The group's watchdog, holding the pipe it waits on; `None` if it could not be started
    /// (the leader's parent-death signal is then all that stops the group if wright dies).
    watchdog: Option<Child>,
}

impl ProcessGroup {
    /// The group `child` leads, with its watchdog started, listed among the running ones.
    fn start(child: &Child) -> Self {
        let pgid = child.id().and_then(|id| i32::try_from(id).ok());
        #[cfg(unix)]
        let watchdog = pgid.and_then(|pgid| watchdog(pgid).ok());
        #[cfg(not(unix))]
        let watchdog = None;
        if let Some(pgid) = pgid {
            let watchdog_pid = watchdog
                .as_ref()
                .and_then(Child::id)
                .and_then(|id| i32::try_from(id).ok());
            RUNNING
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(pgid, watchdog_pid);
        }
        Self { pgid, watchdog }
    }

    /// Asks every process of the group to stop (SIGTERM).
    pub fn terminate(&self) {
        #[cfg(unix)]
        self.signal(nix::sys::signal::Signal::SIGTERM);
    }

    /// Kills every process of the group (SIGKILL), once. Errors (the group is already gone)
    /// are ignored. The watchdog goes first, so it can never signal the group's id once the
    /// group is gone and the id may be another's.
    pub fn kill(&mut self) {
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.start_kill();
        }
        #[cfg(unix)]
        self.signal(nix::sys::signal::Signal::SIGKILL);
        if let Some(pgid) = self.pgid.take() {
            RUNNING
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&pgid);
        }
    }

    /// Signals the group while it is still known to be running: one that
    /// [`stop_running_commands`] saw gone was forgotten, and its id may be another's now.
    #[cfg(unix)]
    fn signal(&self, signal: nix::sys::signal::Signal) {
        let Some(pgid) = self.pgid else {
            return;
        };
        let known = RUNNING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(&pgid);
        if known {
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), signal);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_group_of_a_live_process_is_read_past_a_name_with_parentheses() {
        let stat = "4242 (my (odd) name) S 1 4240 4240 0 -1 4194560 107 0 0 0";
        assert_eq!(live_group_of(stat), Some(4240));
        let zombie = "4243 (sleep) Z 1 4240 4240 0 -1 4194560 107 0 0 0";
        assert_eq!(live_group_of(zombie), None);
        assert_eq!(live_group_of("garbage"), None);
    }
}
