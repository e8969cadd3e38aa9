//! The real `wright` binary in a pseudo-terminal, its output read by an in-memory terminal
//! (vt100), so tests type keys and read the screen as a person would.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use wright_testkit::TestServer;

use crate::common::Project;

/// Rows of the pseudo-terminal: tall enough that a test's output never scrolls away.
pub const ROWS: u16 = 100;
/// Columns of the pseudo-terminal.
pub const COLS: u16 = 100;
/// How long a test waits for something to appear.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A running `wright` in a pseudo-terminal.
pub struct Session {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
}

impl Session {
    /// `wright ARGS` in `project`, configured for `server` (OpenAI wire format).
    pub fn start(project: &Project, server: &TestServer, args: &[&str]) -> Self {
        Self::start_with(project, server, args, &[])
    }

    /// Like [`Session::start`], with extra environment variables.
    pub fn start_with(
        project: &Project,
        server: &TestServer,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_wright"));
        command.args(args);
        command.cwd(project.path());
        command.env_clear();
        command.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        command.env("HOME", project.home.path());
        command.env("WRIGHT_HOME", state_dir(project.home.path()));
        command.env("TERM", "xterm-256color");
        command.env("NO_COLOR", "1");
        command.env("WRIGHT_PROVIDER", "openai");
        command.env("WRIGHT_BASE_URL", server.url());
        command.env("WRIGHT_MODEL", "test-model");
        command.env("WRIGHT_API_KEY", "test-key");
        for (key, value) in env {
            command.env(key, value);
        }
        let child = pty.slave.spawn_command(command).unwrap();
        drop(pty.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            NonZeroU16::new(ROWS).unwrap(),
            NonZeroU16::new(COLS).unwrap(),
            0,
        )));
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = Arc::new(Mutex::new(pty.master.take_writer().unwrap()));
        let answers = Arc::clone(&writer);
        let parsed = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                feed(&parsed, &answers, &buf[..n]);
            }
        });
        Self {
            screen,
            writer: Box::new(SharedWriter(writer)),
            child,
            _master: pty.master,
        }
    }

    /// The screen's text, row by row.
    pub fn screen(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// How many cells on screen have a colour of their own (foreground or background).
    pub fn coloured_cells(&self) -> usize {
        let parser = self.screen.lock().unwrap();
        let screen = parser.screen();
        let (rows, cols) = screen.size();
        (0..rows.get())
            .flat_map(|row| (0..cols.get()).map(move |col| (row, col)))
            .filter_map(|(row, col)| screen.cell(row, col))
            .filter(|cell| {
                cell.fgcolor() != vt100::Color::Default || cell.bgcolor() != vt100::Color::Default
            })
            .count()
    }

    /// Waits until the screen shows `text`; panics with the screen after [`PATIENCE`].
    pub fn expect(&self, text: &str) {
        self.expect_that(&format!("{text:?} on the screen"), |screen| {
            screen.contains(text)
        });
    }

    /// Waits until `check` holds for the screen's text.
    pub fn expect_that(&self, what: &str, check: impl Fn(&str) -> bool) {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if check(&screen) {
                return;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `text` (each character a key).
    pub fn type_text(&mut self, text: &str) {
        self.send(text.as_bytes());
    }

    /// Sends raw bytes (control keys, escape sequences).
    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// Enter.
    pub fn enter(&mut self) {
        self.send(b"\r");
    }

    /// Ctrl-C (as a key: the terminal is in raw mode).
    pub fn ctrl_c(&mut self) {
        self.send(&[0x03]);
    }

    /// Ctrl-D.
    pub fn ctrl_d(&mut self) {
        self.send(&[0x04]);
    }

    /// A bracketed paste of `text`.
    pub fn paste(&mut self, text: &str) {
        self.send(format!("\x1b[200~{text}\x1b[201~").as_bytes());
    }

    /// Waits for the process to end; its exit code.
    pub fn wait(&mut self) -> u32 {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            assert!(
                started.elapsed() < PATIENCE,
                "wright did not exit; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Where the sessions of `home` live (as `common::Project` sets `WRIGHT_HOME`).
pub fn state_dir(home: &Path) -> std::path::PathBuf {
    home.join("state")
}

/// Parses output; answers the cursor position queries (`ESC [6n`) a terminal would answer.
fn feed(screen: &Mutex<vt100::Parser>, answers: &Mutex<Box<dyn Write + Send>>, bytes: &[u8]) {
    const QUERY: &[u8] = b"\x1b[6n";
    let mut parser = screen.lock().unwrap();
    let mut rest = bytes;
    while let Some(at) = rest.windows(QUERY.len()).position(|w| w == QUERY) {
        parser.process(&rest[..at]);
        let (row, col) = parser.screen().cursor_position();
        let answer = format!("\x1b[{};{}R", row + 1, col + 1);
        let mut writer = answers.lock().unwrap();
        let _ = writer.write_all(answer.as_bytes());
        let _ = writer.flush();
        rest = &rest[at + QUERY.len()..];
    }
    parser.process(rest);
}

struct SharedWriter(Arc<Mutex<Box<dyn Write + Send>>>);

impl Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap().flush()
    }
}
