//! The Bash sandbox end to end (issue 6): real `bash` processes confined by Landlock and seccomp.
//!
//! The project is a temporary directory, and the temporary directory is writable by design, so
//! the "outside" directories of these tests live where the sandbox does not open for writing
//! (see `scratch_outside_the_sandbox`).
//!
//! Where the kernel cannot confine commands, the tests that need confinement check the "not
//! confined" note instead of passing silently.
#![cfg(target_os = "linux")]

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::CommandPolicy;
use wright_tools::{SandboxPolicy, SandboxStatus, ToolContext, ToolRegistry};

use crate::common::python3_has;

fn project() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A directory outside every temporary directory (see
/// [`wright_testkit::scratch::outside_temporary_dirs`]).
fn scratch_outside_the_sandbox() -> PathBuf {
    wright_testkit::scratch::outside_temporary_dirs(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .expect("a writable directory outside the temporary directories to test with")
}

/// A directory neither in the project nor in the temporary directory.
fn outside() -> tempfile::TempDir {
    tempfile::tempdir_in(scratch_outside_the_sandbox()).unwrap()
}

fn context(dir: &Path, policy: SandboxPolicy) -> ToolContext {
    ToolContext::new(dir).unwrap().with_sandbox(policy)
}

fn network(on: bool) -> SandboxPolicy {
    SandboxPolicy {
        network: on,
        ..SandboxPolicy::default()
    }
}

async fn bash(ctx: &ToolContext, command: &str) -> ToolResult {
    bash_with(ctx, json!({"command": command, "timeout_ms": 20_000})).await
}

/// Runs python3 code in a confined command in a fresh project; the command must succeed.
async fn python3_in_a_sandbox(script: &str) -> ToolResult {
    let dir = project();
    let ctx = context(dir.path(), SandboxPolicy::default());
    let command = format!("python3 -c {}", shlex::try_quote(script).unwrap());
    let result = bash(&ctx, &command).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    result
}

/// Runs a Bash call as if the user approved it: the checker's questions are waived (a write
/// outside the project is asked about), so only the sandbox stands in the way. A call the
/// checker refuses outright comes back refused.
async fn bash_with(ctx: &ToolContext, args: Value) -> ToolResult {
    let call = ToolCall {
        tool: "Bash".into(),
        args,
    };
    let registry = ToolRegistry::builtin();
    match registry.prepare(&call, ctx) {
        Ok(prepared) => prepared.run(ctx).await,
        Err(refused) => *refused,
    }
}

fn exit_code(result: &ToolResult) -> i64 {
    result.data["exit_code"].as_i64().unwrap()
}

fn stderr(result: &ToolResult) -> &str {
    result.data["stderr"].as_str().unwrap()
}

fn quoted(path: &Path) -> String {
    shlex::try_quote(path.to_str().unwrap())
        .unwrap()
        .into_owned()
}

/// Whether `ctx` confines commands' files here; when it does not, the first result (`result`)
/// must carry the note saying so.
fn confined(ctx: &ToolContext, result: &ToolResult) -> bool {
    match ctx.sandbox_status() {
        SandboxStatus::Confined => {
            assert!(!result.text.contains("confined"), "{}", result.text);
            true
        }
        status => {
            let note = status.note().unwrap();
            assert!(
                result.text.starts_with(&format!("Note: {note}")),
                "{}",
                result.text
            );
            assert!(note.contains("confined: "), "{note}");
            false
        }
    }
}

/// Runs a command that must be refused and checks it was, with "Permission denied" and exit 1.
fn assert_denied(result: &ToolResult) {
    assert_eq!(exit_code(result), 1, "{}", result.text);
    assert!(
        stderr(result).contains("Permission denied"),
        "{}",
        result.text
    );
}

#[test]
fn the_default_context_confines_bash() {
    let dir = project();
    let ctx = ToolContext::new(dir.path()).unwrap();
    assert_eq!(ctx.sandbox_policy(), &SandboxPolicy::default());
    assert_ne!(ctx.sandbox_status(), &SandboxStatus::Disabled);
}

#[tokio::test]
async fn a_command_writes_inside_the_project() {
    let dir = project();
    let ctx = context(dir.path(), SandboxPolicy::default());
    let result = bash(
        &ctx,
        "mkdir -p out && echo hi > out/file.txt && cat out/file.txt",
    )
    .await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    confined(&ctx, &result);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/file.txt")).unwrap(),
        "hi\n"
    );
}

#[tokio::test]
async fn a_write_outside_the_project_is_denied_and_leaves_no_file() {
    let dir = project();
    let elsewhere = outside();
    let target = elsewhere.path().join("escaped.txt");
    let ctx = context(dir.path(), SandboxPolicy::default());
    let result = bash(&ctx, &format!("echo leaked > {}", quoted(&target))).await;
    if confined(&ctx, &result) {
        assert_denied(&result);
        assert!(!target.exists());
    }
}

/// The dangerous-command checker refuses writes to /etc before they run; the user's allow
/// pattern lets this one through to the sandbox, which must stop it on its own.
#[tokio::test]
async fn writes_to_system_directories_are_denied_even_when_the_checker_allows_them() {
    let dir = project();
    let allow = CommandPolicy::new(
        vec!["touch /etc/wright-sandbox-test-*".into()],
        vec![],
        vec![],
    );
    let ctx = context(dir.path(), SandboxPolicy::default()).with_command_policy(allow);
    let target = PathBuf::from(format!("/etc/wright-sandbox-test-{}", std::process::id()));
    let result = bash(&ctx, &format!("touch {}", target.display())).await;
    let was_confined = confined(&ctx, &result);
    // Never leave the file behind, whatever happened.
    let escaped = std::fs::remove_file(&target).is_ok();
    if was_confined {
        assert_denied(&result);
        assert!(!escaped, "the command created {}", target.display());
    }
}

#[tokio::test]
async fn deleting_outside_the_project_is_denied() {
    let dir = project();
    let elsewhere = outside();
    let keep = elsewhere.path().join("keep.txt");
    std::fs::write(&keep, "precious").unwrap();
    let ctx = context(dir.path(), SandboxPolicy::default());
    let result = bash(&ctx, &format!("rm {}", quoted(&keep))).await;
    if confined(&ctx, &result) {
        assert_eq!(exit_code(&result), 1, "{}", result.text);
        assert_eq!(std::fs::read_to_string(&keep).unwrap(), "precious");
    }
}

#[tokio::test]
async fn the_temporary_directory_and_dev_null_are_writable() {
    let dir = project();
    let ctx = context(dir.path(), SandboxPolicy::default());
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("scratch.txt");
    let command = format!("echo x > /dev/null && echo tmp > {}", quoted(&file));
    let result = bash(&ctx, &command).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "tmp\n");
}

#[tokio::test]
async fn everyday_shell_plumbing_works_confined() {
    let dir = project();
    let ctx = context(dir.path(), network(false));
    let command = "echo out > /dev/stdout; echo err > /dev/stderr; \
                   head -c 4 /dev/urandom | wc -c; f=$(mktemp) && echo t > \"$f\" && rm \"$f\"; \
                   mkfifo pipe && rm pipe; ln -s target link && rm link; printf 'a\\n' | sort";
    let result = bash(&ctx, command).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert_eq!(result.data["stdout"], "out\n4\na\n");
    assert_eq!(result.data["stderr"], "err\n");
}

#[tokio::test]
async fn configured_writable_paths_can_be_written() {
    let dir = project();
    let elsewhere = outside();
    let policy = SandboxPolicy {
        writable: vec![
            elsewhere.path().to_path_buf(),
            PathBuf::from("/no/such/dir"),
        ],
        ..SandboxPolicy::default()
    };
    let ctx = context(dir.path(), policy);
    let target = elsewhere.path().join("allowed.txt");
    let result = bash(&ctx, &format!("echo ok > {}", quoted(&target))).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    confined(&ctx, &result);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ok\n");
}

#[tokio::test]
async fn extra_roots_are_writable() {
    let dir = project();
    let elsewhere = outside();
    let ctx = ToolContext::new(dir.path())
        .unwrap()
        .with_extra_roots(vec![elsewhere.path().to_path_buf()])
        .unwrap();
    let target = elsewhere.path().join("shared.txt");
    let result = bash(&ctx, &format!("echo shared > {}", quoted(&target))).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    confined(&ctx, &result);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "shared\n");
}

#[tokio::test]
async fn a_disabled_sandbox_allows_the_outside_write_and_says_nothing() {
    let dir = project();
    let elsewhere = outside();
    let target = elsewhere.path().join("unconfined.txt");
    let policy = SandboxPolicy {
        enabled: false,
        ..SandboxPolicy::default()
    };
    let ctx = context(dir.path(), policy);
    assert_eq!(ctx.sandbox_status(), &SandboxStatus::Disabled);
    let result = bash(&ctx, &format!("echo free > {}", quoted(&target))).await;
    assert_eq!(
        result.text,
        "Exit code: 0\n<stdout></stdout>\n<stderr></stderr>"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "free\n");
}

/// Connects to `port` on loopback with bash's `/dev/tcp`, and says so.
fn connect_command(port: u16) -> String {
    format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
}

#[tokio::test]
async fn network_off_blocks_a_loopback_connect() {
    let dir = project();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let ctx = context(dir.path(), network(false));
    let result = bash(&ctx, &connect_command(port)).await;
    assert_eq!(exit_code(&result), 1, "{}", result.text);
    assert!(
        stderr(&result).contains("Operation not permitted")
            || stderr(&result).contains("Permission denied"),
        "{}",
        result.text
    );
    assert_eq!(result.data["stdout"], "");
    let accepted = listener.accept().map(|_| ()).map_err(|err| err.kind());
    assert_eq!(accepted, Err(ErrorKind::WouldBlock));
}

#[tokio::test]
async fn network_on_allows_a_loopback_connect() {
    let dir = project();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepting = std::thread::spawn(move || listener.accept().map(|_| ()).is_ok());
    let ctx = context(dir.path(), network(true));
    let result = bash(&ctx, &connect_command(port)).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert_eq!(result.data["stdout"], "connected\n");
    assert!(accepting.join().unwrap());
}

#[tokio::test]
async fn network_off_still_allows_unix_sockets() {
    let dir = project();
    let socket = dir.path().join("s.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let accepting = std::thread::spawn(move || listener.accept().map(|_| ()).is_ok());
    let ctx = context(dir.path(), network(false));
    // Perl's core Socket module: bash has no Unix-socket redirection.
    let command = format!(
        "perl -MSocket -e 'socket(S, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\"; \
         connect(S, pack_sockaddr_un($ARGV[0])) or die \"connect: $!\"; print \"connected\\n\"' {}",
        quoted(&socket)
    );
    let result = bash(&ctx, &command).await;
    assert_eq!(exit_code(&result), 0, "{}", result.text);
    assert_eq!(result.data["stdout"], "connected\n");
    assert!(accepting.join().unwrap());
}

#[tokio::test]
async fn a_timeout_still_kills_the_confined_process_group() {
    let dir = project();
    let ctx = context(dir.path(), network(false));
    let command = "(sleep 1; touch marker) & sleep 30";
    let result = bash_with(&ctx, json!({"command": command, "timeout_ms": 300})).await;
    assert_eq!(result.error.as_ref().unwrap().code, ErrorCode::Timeout);
    crate::bash::assert_the_background_job_was_killed(dir.path());
}

#[tokio::test]
async fn cancellation_still_stops_a_confined_command() {
    let dir = project();
    let cancel = CancellationToken::new();
    let ctx = context(dir.path(), network(false)).with_cancellation(cancel.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let result = bash(&ctx, "(sleep 1; touch marker) & sleep 30").await;
    canceller.await.unwrap();
    assert_eq!(result.error.as_ref().unwrap().code, ErrorCode::Interrupted);
    crate::bash::assert_the_background_job_was_killed(dir.path());
}

#[tokio::test]
async fn the_status_note_comes_once_per_context_at_most() {
    let dir = project();
    let ctx = context(dir.path(), SandboxPolicy::default());
    let first = bash(&ctx, "true").await;
    confined(&ctx, &first);
    let second = bash(&ctx.clone(), "true").await;
    assert_eq!(
        second.text,
        "Exit code: 0\n<stdout></stdout>\n<stderr></stderr>"
    );
}

/// Issue 12: the seccomp filter refuses the `ioctl`s that type into a terminal (`TIOCSTI`,
/// also with high bits set in the request, and `TIOCLINUX`), even on a terminal the command
/// controls. The terminal is a fresh pty made inside the command, never a real one: a forked
/// child starts a session and makes the pty its controlling terminal, so without the filter
/// `TIOCSTI` would succeed (or fail with `EIO` where the kernel disables it) and `TIOCLINUX`
/// would fail with something other than `EPERM`.
#[tokio::test]
async fn commands_cannot_push_input_into_a_terminal() {
    if !python3_has("ctypes, termios") {
        eprintln!("skipped: python3 with ctypes and termios is needed");
        return;
    }
    let script = r#"
import ctypes, errno, os, termios
libc = ctypes.CDLL(None, use_errno=True)
def ioctl(fd, request):
    byte = ctypes.c_char(b"x")
    done = libc.ioctl(fd, ctypes.c_ulong(request), ctypes.byref(byte))
    return "ok" if done == 0 else errno.errorcode[ctypes.get_errno()]
child = os.fork()
if child == 0:
    os.setsid()
    _, pty = os.openpty()
    ctty = ioctl(pty, termios.TIOCSCTTY)
    print("TIOCSCTTY=%s TIOCSTI=%s TIOCSTI_HIGH=%s TIOCLINUX=%s" % (
        ctty,
        ioctl(pty, termios.TIOCSTI),
        ioctl(pty, termios.TIOCSTI | 1 << 32),
        ioctl(pty, 0x541C),
    ), flush=True)
    os._exit(0)
os.waitpid(child, 0)
"#;
    let result = python3_in_a_sandbox(script).await;
    assert_eq!(
        result.data["stdout"], "TIOCSCTTY=ok TIOCSTI=EPERM TIOCSTI_HIGH=EPERM TIOCLINUX=EPERM\n",
        "{}",
        result.text
    );
}

/// Issue 12: no confined command may create a device node, not even root in the project or the
/// temporary directory (a node for the disk, `b 7 0` here, would let it write the raw device
/// past every other rule), while FIFOs are still made. Only root can make device nodes at all,
/// so elsewhere there is nothing to check.
#[tokio::test]
async fn root_cannot_create_device_nodes_but_can_make_fifos() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: only root can create device nodes");
        return;
    }
    let dir = project();
    let scratch = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), SandboxPolicy::default());
    let in_project = bash(&ctx, "mknod disk b 7 0").await;
    if !confined(&ctx, &in_project) {
        return;
    }
    assert_denied(&in_project);
    let in_temporary = scratch.path().join("disk");
    assert_denied(&bash(&ctx, &format!("mknod {} b 7 0", quoted(&in_temporary))).await);
    assert_denied(&bash(&ctx, "mknod tty c 5 0").await);
    assert!(!dir.path().join("disk").exists());
    assert!(!in_temporary.exists());

    let fifo = bash(&ctx, "mkfifo pipe && test -p pipe").await;
    assert_eq!(exit_code(&fifo), 0, "{}", fifo.text);
}

/// Issue 12: on x86_64 a system call numbered with the x32 bit (`0x4000_0000`) is refused with
/// `EPERM`, so the x32 numbers of `ioctl` (514), `socket` or `mount` cannot slip past the
/// filter's rules, which compare plain numbers. Most kernels, this one perhaps too, have x32
/// turned off and answer `ENOSYS`; the filter must answer `EPERM` before the kernel looks,
/// whichever it is. (The filter's unit tests check the rule itself.)
#[cfg(target_arch = "x86_64")]
#[tokio::test]
async fn x32_system_calls_are_refused() {
    if !python3_has("ctypes") {
        eprintln!("skipped: python3 with ctypes is needed");
        return;
    }
    let script = r#"
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
X32 = 0x40000000
def call(number, *args):
    done = libc.syscall(ctypes.c_long(X32 | number), *(ctypes.c_long(a) for a in args))
    return "ok" if done >= 0 else errno.errorcode[ctypes.get_errno()]
# getpid, and TIOCSTI on standard input (/dev/null) through x32's own ioctl number.
print("getpid=%s ioctl=%s" % (call(39), call(514, 0, 0x5412, 0)))
"#;
    let result = python3_in_a_sandbox(script).await;
    assert_eq!(
        result.data["stdout"], "getpid=EPERM ioctl=EPERM\n",
        "{}",
        result.text
    );
}
