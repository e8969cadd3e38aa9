//! The interactive session `wright` opens with no arguments.
//!
//! The agent runs in its own task and talks to the terminal over channels: events and
//! approval questions come up ([`Reply`]), requests go down ([`Request`]). The terminal side is a loop that waits on
//! whichever comes first — a key or a paste, a reply from the agent, or a tick of ~100 ms for
//! spinners — hands it to the [`App`] state machine, writes the lines it produced into the
//! scrollback, and redraws the inline viewport under them.

mod commands;
mod complete;
mod history;
mod input;
mod jobs;
mod mcp;
mod modes;
mod picker;
mod plan;
mod question;
mod recap;
mod reports;
mod state;
mod terminal;
mod transcript;
mod view;
mod worker;
mod wrap;

use std::collections::HashMap;
use std::io::{self, IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, Event as TermEvent, EventStream,
};
use crossterm::terminal::{disable_raw_mode, enable_raw_mode};
use futures::StreamExt as _;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;
use wright_core::checkpoint::Checkpoints;
use wright_core::cost::Price;
use wright_core::session::AgentSetup;
use wright_store::{LoadedSession, SessionStore, project_key};

pub use commands::{COMMANDS, SlashCommand};
pub use complete::FileIndex;
pub use history::InputHistory;
pub use mcp::{McpControl, McpLaunch};
pub use modes::SessionMode;
pub use reports::Reports;
pub use state::{App, EXIT_CONFIRM_WINDOW};
pub use terminal::{Screen, TrackedBackend};
pub use worker::{Choice, Notice, Reply, Request, SessionOpened};

use crate::render::Theme;
use worker::{Worker, WorkerConfig};

/// Exit code: the session cannot start (no terminal, bad settings, unreadable session).
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the session ended because something broke.
pub const EXIT_FAILED: u8 = 1;
/// How often spinners and elapsed times move.
const TICK: Duration = Duration::from_millis(100);
/// How long leaving waits for a running round to stop and be recorded.
const STOP_GRACE: Duration = Duration::from_secs(3);
/// Replies handled before the screen is redrawn, so a fast stream cannot starve the keys.
const REPLIES_PER_FRAME: usize = 256;

/// Everything the interactive session needs, resolved by the command line.
pub struct Launch {
    /// What the session's agents are made of: the project root, the model, how rounds and
    /// tools run, the approval mode, the hooks. Its approver is replaced by the terminal.
    pub setup: AgentSetup,
    /// `$WRIGHT_HOME` (sessions, input history).
    pub home: PathBuf,
    /// This project's sessions.
    pub store: SessionStore,
    /// The session to continue (`--resume`, `--continue`); `None` starts a new one.
    pub session: Option<LoadedSession>,
    /// Configured prices, by model.
    pub prices: HashMap<String, Price>,
    /// Writes what `/context` and `/sessions` print (the `wright context` report and the
    /// `wright sessions list` table).
    pub reports: Box<dyn Reports>,
    /// The project's snapshots, for `/undo`, `/redo`, `/rewind` and `/diff` (whether or not
    /// the agent takes new ones); `None`: those commands rewind only the conversation.
    pub checkpoints: Option<Arc<dyn Checkpoints>>,
    /// Start in plan mode (`--plan`).
    pub plan: bool,
    /// The MCP servers, starting in the background; `None` when none are configured.
    pub mcp: Option<McpLaunch>,
}

/// Runs the interactive session until the user leaves; returns the process's exit code.
pub async fn run(launch: Launch) -> u8 {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        eprintln!(
            "wright: the interactive session needs a terminal, and stdin or stdout is not one.\n\
             For scripts and pipes use `wright exec \"...\"` (see `wright exec --help`)."
        );
        return EXIT_USAGE;
    }
    let (reply_tx, replies) = mpsc::unbounded_channel();
    let root = launch.setup.root.clone();
    let mode = SessionMode {
        approval: launch.setup.approval,
        plan: launch.plan,
    };
    let config = WorkerConfig {
        setup: launch.setup,
        store: launch.store,
        prices: launch.prices,
        reports: launch.reports,
        checkpoints: launch.checkpoints,
        mcp: launch.mcp.as_ref().map(|mcp| mcp.control.clone()),
    };
    if let Some(McpLaunch { mut notices, .. }) = launch.mcp {
        // The servers' progress shows as it comes, rounds or not.
        let replies = reply_tx.clone();
        tokio::spawn(async move {
            while let Some(line) = notices.recv().await {
                if replies.send(Reply::Notice(Notice::Info(line))).is_err() {
                    break;
                }
            }
        });
    }
    let worker = match Worker::open(config, launch.session, reply_tx) {
        Ok(worker) => worker,
        Err(message) => {
            eprintln!("wright: {message}");
            return EXIT_USAGE;
        }
    };
    let (requests, request_rx) = mpsc::unbounded_channel();
    let worker = tokio::spawn(worker.serve(request_rx));

    let history = InputHistory::load(&launch.home, &project_key(&root));
    let files = FileIndex::new(&root);
    let guard = match RawMode::enter() {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("wright: cannot set up the terminal: {e}");
            return EXIT_FAILED;
        }
    };
    let code = match Screen::new(CrosstermBackend::new(io::stdout()), 3) {
        Ok(mut screen) => {
            let mut app = App::new(Theme::detect(), screen.width(), history, files).with_mode(mode);
            let code = match drive(&mut app, &mut screen, replies, &requests).await {
                Ok(code) => code,
                Err(e) => {
                    let _ = screen.finish();
                    drop(guard);
                    eprintln!("wright: the terminal failed: {e}");
                    worker.abort();
                    return EXIT_FAILED;
                }
            };
            let _ = screen.finish();
            code
        }
        Err(e) => {
            drop(guard);
            eprintln!("wright: cannot set up the terminal: {e}");
            worker.abort();
            return EXIT_FAILED;
        }
    };
    drop(guard);
    drop(requests);
    if tokio::time::timeout(STOP_GRACE, worker).await.is_err() {
        eprintln!("wright: the agent did not stop in time; its last step may be unrecorded.");
    }
    code
}

/// The loop: waits for a key, a reply or a tick, updates `app`, writes and draws.
async fn drive<B>(
    app: &mut App,
    screen: &mut Screen<B>,
    mut replies: mpsc::UnboundedReceiver<Reply>,
    requests: &mpsc::UnboundedSender<Request>,
) -> io::Result<u8>
where
    B: ratatui::backend::Backend,
    B::Error: Send + Sync + 'static,
{
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    loop {
        app.tick(Instant::now());
        screen.insert(app.take_output())?;
        for request in app.take_requests() {
            if requests.send(request).is_err() {
                return Ok(EXIT_FAILED);
            }
        }
        if app.should_exit() {
            return finish(app, screen, &mut replies).await;
        }
        screen.draw(app.viewport_height(), |frame| app.render(frame))?;
        let woke = tokio::select! {
            event = input.next() => Woke::Terminal(event),
            reply = replies.recv() => Woke::Reply(reply),
            _ = tick.tick(), if app.is_animated() => Woke::Tick,
        };
        // Whatever woke the loop happened now, not when it went to sleep.
        app.tick(Instant::now());
        match woke {
            Woke::Terminal(Some(Ok(event))) => {
                if matches!(event, TermEvent::Resize(..)) {
                    screen.resized()?;
                }
                app.handle_terminal(event);
            }
            Woke::Terminal(Some(Err(e))) => return Err(e),
            Woke::Terminal(None) => return Ok(0),
            Woke::Reply(Some(reply)) => {
                app.handle_reply(reply);
                for _ in 1..REPLIES_PER_FRAME {
                    match replies.try_recv() {
                        Ok(reply) => app.handle_reply(reply),
                        Err(_) => break,
                    }
                }
            }
            Woke::Reply(None) => {
                screen.insert(app.take_output())?;
                return Ok(EXIT_FAILED);
            }
            Woke::Tick => {}
        }
    }
}

/// What ended the loop's wait.
enum Woke {
    Terminal(Option<io::Result<TermEvent>>),
    Reply(Option<Reply>),
    Tick,
}

/// Leaving: a round still running was cancelled by the app; wait a little for it to end so
/// its interruption is recorded and shown.
async fn finish<B>(
    app: &mut App,
    screen: &mut Screen<B>,
    replies: &mut mpsc::UnboundedReceiver<Reply>,
) -> io::Result<u8>
where
    B: ratatui::backend::Backend,
    B::Error: Send + Sync + 'static,
{
    let deadline = Instant::now() + STOP_GRACE;
    while app.is_busy() {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, replies.recv()).await {
            Ok(Some(reply)) => app.handle_reply(reply),
            _ => break,
        }
    }
    app.tick(Instant::now());
    screen.insert(app.take_output())?;
    Ok(0)
}

/// Raw mode and bracketed paste, for as long as it lives (also after a panic).
struct RawMode;

impl RawMode {
    fn enter() -> io::Result<Self> {
        enable_raw_mode()?;
        let mut stdout = io::stdout();
        crossterm::execute!(stdout, EnableBracketedPaste)?;
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
        Ok(Self)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn restore_terminal() {
    let mut stdout = io::stdout();
    let _ = crossterm::execute!(stdout, DisableBracketedPaste);
    let _ = disable_raw_mode();
    let _ = stdout.flush();
}
