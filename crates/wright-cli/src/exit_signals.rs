//! The signals that end wright from outside (SIGTERM, SIGHUP when the terminal closes): the
//! Bash commands still running — background jobs included — are stopped with their process
//! groups before wright exits (issue 11: nothing left running).

/// Handles SIGTERM and SIGHUP: stop every running command (SIGTERM to its group, SIGKILL
/// after [`wright_tools::STOP_GRACE`]: [`wright_tools::stop_running_commands`]), then exit
/// with 128 + the signal's number, as if the signal had ended wright. A signal ignored when wright started (`nohup` ignores SIGHUP)
/// stays ignored. Call once, inside the runtime, when nothing will block its thread for long
/// (a blocked runtime thread would never run the handler, and the signal would not end wright).
pub fn stop_commands_on_exit_signals() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        for kind in [SignalKind::terminate(), SignalKind::hangup()] {
            if ignored_at_start(kind.as_raw_value()) {
                continue;
            }
            // Without the handler the signal keeps its default action, which ends wright and
            // leaves the commands to their watchdogs.
            let Ok(mut received) = signal(kind) else {
                continue;
            };
            tokio::spawn(async move {
                if received.recv().await.is_some() {
                    wright_tools::stop_running_commands(wright_tools::STOP_GRACE);
                    std::process::exit(128 + kind.as_raw_value());
                }
            });
        }
    }
}

/// Whether `signal` is ignored by this process, read from `/proc/self/status` on Linux;
/// elsewhere assumed not.
#[cfg(unix)]
fn ignored_at_start(signal: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_to_string("/proc/self/status")
            .is_ok_and(|status| ignored_in_status(&status, signal))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = signal;
        false
    }
}

/// Whether the `SigIgn:` mask of a `/proc/<pid>/status` text has `signal`'s bit (bit
/// `signal - 1`).
#[cfg(any(target_os = "linux", test))]
fn ignored_in_status(status: &str, signal: i32) -> bool {
    let mask = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok());
    let bit = u32::try_from(signal - 1)
        .ok()
        .and_then(|shift| 1u64.checked_shl(shift));
    matches!((mask, bit), (Some(mask), Some(bit)) if mask & bit != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ignored_mask_is_read_bit_by_signal_number() {
        // SIGHUP (1) and SIGPIPE (13) ignored, as under `nohup` with a broken pipe ignored.
        let status = "Name:\twright\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000001001\n";
        assert!(ignored_in_status(status, 1));
        assert!(ignored_in_status(status, 13));
        assert!(!ignored_in_status(status, 15));
        assert!(!ignored_in_status("Name:\twright\n", 1));
        assert!(!ignored_in_status(status, 0));
    }
}
