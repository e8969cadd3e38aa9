//! Which processes still run in a directory, read from `/proc` (Linux only).
//!
//! A test that proves a command's processes were killed waits with [`wait_until_none_run_in`]
//! instead of sleeping for as long as they would have lived: it returns as soon as the last one
//! is gone, and only a process still running past a generous deadline fails the test. A
//! command's processes are found by their working directory, the test's own temporary
//! project, so the test needs to know neither their ids nor their process group. A test that
//! knows the ids (a command wrote them to a file) waits with [`wait_until_gone`].

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long [`wait_until_none_run_in`] gives killed processes to be gone: far longer than
/// dying takes, so that a loaded machine does not fail a test.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// How often [`wait_until_none_run_in`] looks.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// The ids of the live processes whose working directory is `dir`. A zombie (dead, not yet
/// reaped) has no working directory and is not counted; nor is a process this user may not
/// inspect.
pub fn running_in(dir: &Path) -> io::Result<Vec<u32>> {
    let dir = dir.canonicalize()?;
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        else {
            continue;
        };
        if std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == dir) {
            pids.push(pid);
        }
    }
    Ok(pids)
}

/// Waits until no live process has `dir` as its working directory, or [`DEADLINE`] passes, and
/// returns the ids of those still running then: none when every one is gone.
pub fn wait_until_none_run_in(dir: &Path) -> io::Result<Vec<u32>> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let running = running_in(dir)?;
        if running.is_empty() || Instant::now() >= deadline {
            return Ok(running);
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Whether process `pid` is alive: it exists and is not a zombie (dead, not yet reaped).
pub fn is_running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (name) state ...`: the name may hold spaces and parentheses, the state follows the
    // last `)`.
    let state = stat
        .rfind(')')
        .and_then(|end| stat[end + 1..].trim_start().chars().next());
    !matches!(state, None | Some('Z' | 'X'))
}

/// Waits until none of `pids` is alive ([`is_running`]), or [`DEADLINE`] passes, and returns
/// those still alive then: none when every one is gone.
pub fn wait_until_gone(pids: &[u32]) -> Vec<u32> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let alive: Vec<u32> = pids
            .iter()
            .copied()
            .filter(|&pid| is_running(pid))
            .collect();
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_seen_in_its_directory_until_it_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(dir.path())
            .spawn()
            .unwrap();
        assert_eq!(running_in(dir.path()).unwrap(), vec![child.id()]);
        child.kill().unwrap();
        // Not reaped yet: a zombie, which no longer counts.
        assert_eq!(
            wait_until_none_run_in(dir.path()).unwrap(),
            Vec::<u32>::new()
        );
        child.wait().unwrap();
    }

    #[test]
    fn a_killed_process_is_gone_even_before_it_is_reaped() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        assert!(is_running(child.id()));
        child.kill().unwrap();
        assert_eq!(wait_until_gone(&[child.id()]), Vec::<u32>::new());
        child.wait().unwrap();
    }
}
