//! The interactive session as a state machine, free of the terminal: keys, pastes and the
//! agent's replies go in; lines for the scrollback and requests for the agent come out, and
//! [`view`](super::view) draws the rest. Tests drive it directly.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::text::Line;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use wright_core::approval::{ApprovalMode, ApprovalRequest, Decision};
use wright_core::ask_user::UserAnswer;

use super::commands::{self, SlashCommand};
use super::complete::{self, Completion, FileIndex};
use super::history::InputHistory;
use super::input::{Composer, Edit};
use super::modes::SessionMode;
use super::picker::{Picked, Picker};
use super::plan::{PlanRound, plan_question};
use super::question::Answering;
use wright_protocol::Event;
use wright_protocol::text::plural;

use super::transcript::{Transcript, styled};
use super::worker::{Choice, Notice, Reply, Request, SessionOpened};
use crate::render::palette::{DIM, WARNING};
use crate::render::{self, StatusInfo, Theme};

/// A second Ctrl-C on an empty prompt within this long exits.
pub const EXIT_CONFIRM_WINDOW: Duration = Duration::from_secs(2);
/// How long the footer says what the mode Shift-Tab switched to does.
const MODE_HINT: Duration = Duration::from_secs(3);

/// What the agent's side is doing.
pub(super) struct Busy {
    pub(super) cancel: CancellationToken,
    pub(super) started: Instant,
    pub(super) stopping: bool,
}

/// An action waiting for the user's decision.
pub(super) struct Question {
    pub(super) request: ApprovalRequest,
    answer: Option<oneshot::Sender<Decision>>,
    /// After `n`: the reason being typed.
    pub(super) reason: Option<Composer>,
}

/// Options waiting for the user to pick one.
pub(super) struct Choosing {
    pub(super) choice: Choice,
    pub(super) selected: usize,
    answer: Option<oneshot::Sender<Option<usize>>>,
}

impl Choosing {
    /// What `key` picks: `Some(Some(i))` option `i`, `Some(None)` nothing (cancel), `None`:
    /// no pick yet.
    fn key(&mut self, key: KeyEvent) -> Option<Option<usize>> {
        let last = self.choice.options.len().saturating_sub(1);
        match key.code {
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::Enter => return Some(Some(self.selected)),
            KeyCode::Esc => return Some(None),
            KeyCode::Char(c) => {
                let c = c.to_ascii_lowercase();
                let keyed = self.choice.options.iter().position(|(k, _)| *k == Some(c));
                if keyed.is_some() {
                    return Some(keyed);
                }
            }
            _ => {}
        }
        None
    }
}

/// Where the session is.
pub(super) enum Mode {
    /// Waiting for input.
    Idle,
    /// The agent is working; input is still taken (and queued).
    Busy(Busy),
    /// The agent waits for an approval.
    Asking(Busy, Box<Question>),
    /// A command waits for the user to pick an option (`/rewind`, `/undo`'s question).
    Choosing(Busy, Box<Choosing>),
    /// The agent waits for the answer to the model's question.
    Answering(Busy, Box<Answering>),
    /// A plan-mode round ended with a plan: carry it out, keep planning, or refine it.
    PlanReady(Box<Picker>),
}

/// The interactive session's state.
pub struct App {
    pub(super) theme: Theme,
    pub(super) width: u16,
    pub(super) now: Instant,
    pub(super) composer: Composer,
    files: FileIndex,
    pub(super) completion: Option<Completion>,
    transcript: Transcript,
    pub(super) mode: Mode,
    pub(super) queued: VecDeque<String>,
    pub(super) status: Option<StatusInfo>,
    /// How the next round runs.
    pub(super) session_mode: SessionMode,
    pub(super) plan_round: Option<PlanRound>,
    /// Shown in the footer until the given time (e.g. "Ctrl-C again to exit").
    pub(super) hint: Option<(String, Instant)>,
    ctrl_c_at: Option<Instant>,
    output: Vec<Line<'static>>,
    requests: Vec<Request>,
    exit: bool,
}

impl App {
    /// A session at an empty prompt; `width` is the terminal's.
    pub fn new(theme: Theme, width: u16, history: InputHistory, files: FileIndex) -> Self {
        Self {
            theme,
            width,
            now: Instant::now(),
            composer: Composer::new(history),
            files,
            completion: None,
            transcript: Transcript::new(theme),
            mode: Mode::Idle,
            queued: VecDeque::new(),
            status: None,
            session_mode: SessionMode::new(ApprovalMode::Ask),
            plan_round: None,
            hint: None,
            ctrl_c_at: None,
            output: Vec::new(),
            requests: Vec::new(),
            exit: false,
        }
    }

    /// The session starts in `mode` (the approval mode of the settings, `--plan`).
    pub fn with_mode(mut self, mode: SessionMode) -> Self {
        self.session_mode = mode;
        self
    }

    /// How the next round runs.
    pub fn session_mode(&self) -> SessionMode {
        self.session_mode
    }

    /// Lines to write into the scrollback, oldest first; they are handed out once.
    pub fn take_output(&mut self) -> Vec<Line<'static>> {
        std::mem::take(&mut self.output)
    }

    /// Requests for the agent, oldest first; they are handed out once.
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    /// Whether the user asked to leave.
    pub fn should_exit(&self) -> bool {
        self.exit
    }

    /// Whether the agent is working.
    pub fn is_busy(&self) -> bool {
        !matches!(self.mode, Mode::Idle | Mode::PlanReady(_))
    }

    /// Whether something on screen moves with time (spinners, elapsed times).
    pub fn is_animated(&self) -> bool {
        self.is_busy() || self.hint.is_some()
    }

    /// Moves the clock (spinners, elapsed times, the Ctrl-C window) to `now`.
    pub fn tick(&mut self, now: Instant) {
        self.now = now;
        if self.hint.as_ref().is_some_and(|(_, until)| now >= *until) {
            self.hint = None;
        }
    }

    /// The live lines above the prompt.
    pub(super) fn live(&self) -> Vec<Line<'static>> {
        self.transcript.live(self.now)
    }

    /// Handles something the terminal reported.
    pub fn handle_terminal(&mut self, event: TermEvent) {
        match event {
            TermEvent::Key(key) if key.kind != KeyEventKind::Release => self.handle_key(key),
            TermEvent::Paste(text) => {
                match &mut self.mode {
                    Mode::Asking(_, question) if question.reason.is_some() => {
                        if let Some(reason) = &mut question.reason {
                            reason.paste(&text);
                        }
                    }
                    Mode::Answering(_, answering) => answering.picker.paste(&text),
                    Mode::PlanReady(picker) => picker.paste(&text),
                    _ => self.composer.paste(&text),
                }
                self.update_completion();
            }
            TermEvent::Resize(width, _) => self.width = width,
            _ => {}
        }
    }

    /// Handles a key.
    pub fn handle_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => {
                return self.request_exit();
            }
            _ => {}
        }
        if let Mode::Choosing(_, choosing) = &mut self.mode {
            if let Some(picked) = choosing.key(key) {
                self.pick(picked);
            }
            return;
        }
        if let Mode::Answering(_, answering) = &mut self.mode {
            if let Some(picked) = answering.picker.key(key) {
                let answer = answering.answer(picked);
                self.answer_question(answer);
            }
            return;
        }
        if let Mode::PlanReady(picker) = &mut self.mode {
            if let Some(picked) = picker.key(key) {
                self.mode = Mode::Idle;
                self.plan_decided(picked);
            }
            return;
        }
        if let Mode::Asking(_, question) = &mut self.mode {
            let decision = match &mut question.reason {
                None => match key.code {
                    KeyCode::Char('y' | 'Y') => Some(Decision::Once),
                    KeyCode::Char('a' | 'A') => Some(Decision::Always),
                    KeyCode::Char('n' | 'N') => {
                        let mut reason = Composer::new(InputHistory::in_memory(Vec::new()));
                        reason.set_placeholder("why not? (optional; Enter to send)");
                        question.reason = Some(reason);
                        None
                    }
                    KeyCode::Esc => Some(Decision::Deny { reason: None }),
                    _ => None,
                },
                Some(reason) => match key.code {
                    KeyCode::Esc => Some(Decision::Deny { reason: None }),
                    KeyCode::Enter if key.modifiers.is_empty() => {
                        let text = reason.text().trim().to_string();
                        Some(Decision::Deny {
                            reason: (!text.is_empty()).then_some(text),
                        })
                    }
                    _ => {
                        reason.key(key);
                        None
                    }
                },
            };
            if let Some(decision) = decision {
                self.answer(decision);
            }
            return;
        }
        if self.completion.is_some() {
            match key.code {
                KeyCode::Tab => return self.accept_completion(),
                KeyCode::Up => return self.select_completion(-1),
                KeyCode::Down | KeyCode::BackTab => return self.select_completion(1),
                KeyCode::Esc => {
                    self.completion = None;
                    return;
                }
                _ => {}
            }
        }
        if key.code == KeyCode::BackTab {
            self.session_mode = self.session_mode.next();
            self.hint = Some((self.session_mode.announcement(), self.now + MODE_HINT));
            return;
        }
        if key.code == KeyCode::Tab {
            self.update_completion();
            if self
                .completion
                .as_ref()
                .is_some_and(|c| c.candidates.len() == 1)
            {
                self.accept_completion();
            }
            return;
        }
        match self.composer.key(key) {
            Edit::Submitted(text) => {
                self.completion = None;
                self.submit(text);
            }
            Edit::Changed => self.update_completion(),
            Edit::Ignored => {}
        }
    }

    fn select_completion(&mut self, delta: isize) {
        if let Some(completion) = &mut self.completion {
            completion.select(delta);
        }
    }

    fn accept_completion(&mut self) {
        if let Some(completion) = self.completion.take()
            && let Some(chosen) = completion.chosen()
        {
            self.composer
                .replace_word(completion.start, &chosen.replacement);
        }
    }

    /// Opens, updates or closes the list of completions for the word at the cursor.
    fn update_completion(&mut self) {
        let (row, _) = self.composer.cursor();
        self.completion = self.composer.word_at_cursor().and_then(|(start, word)| {
            complete::complete(&word, start, row == 0 && start == 0, &mut self.files)
        });
    }

    fn ctrl_c(&mut self) {
        if matches!(self.mode, Mode::Choosing(..)) {
            return self.pick(None);
        }
        if matches!(self.mode, Mode::PlanReady(_)) {
            self.mode = Mode::Idle;
            return self.plan_decided(Picked::Dismissed);
        }
        match &mut self.mode {
            Mode::Busy(busy) | Mode::Asking(busy, _) | Mode::Answering(busy, _) => {
                if busy.stopping {
                    // Stopping takes too long: leave anyway.
                    self.exit = true;
                    return;
                }
                busy.stopping = true;
                busy.cancel.cancel();
                // The question is dropped unanswered: the round ends as interrupted.
                match std::mem::replace(&mut self.mode, Mode::Idle) {
                    Mode::Asking(busy, _) | Mode::Answering(busy, _) => {
                        self.mode = Mode::Busy(busy);
                    }
                    other => self.mode = other,
                }
                self.queued.clear();
            }
            // Cancelled above.
            Mode::Choosing(..) | Mode::PlanReady(_) => {}
            Mode::Idle if !self.composer.is_empty() => {
                self.composer.clear();
                self.completion = None;
            }
            Mode::Idle => {
                if self
                    .ctrl_c_at
                    .is_some_and(|at| self.now.saturating_duration_since(at) < EXIT_CONFIRM_WINDOW)
                {
                    self.exit = true;
                } else {
                    self.ctrl_c_at = Some(self.now);
                    self.hint = Some((
                        "Press Ctrl-C again to exit".to_string(),
                        self.now + EXIT_CONFIRM_WINDOW,
                    ));
                }
            }
        }
    }

    /// Leaves: at once when idle, after stopping the agent otherwise.
    fn request_exit(&mut self) {
        if let Mode::Busy(busy)
        | Mode::Asking(busy, _)
        | Mode::Choosing(busy, _)
        | Mode::Answering(busy, _) = &mut self.mode
        {
            busy.stopping = true;
            busy.cancel.cancel();
        }
        self.exit = true;
    }

    /// Sends what the user picked (`None`: nothing) to the command that asked.
    fn pick(&mut self, picked: Option<usize>) {
        if let Mode::Choosing(busy, mut choosing) = std::mem::replace(&mut self.mode, Mode::Idle) {
            if let Some(answer) = choosing.answer.take() {
                let _ = answer.send(picked);
            }
            self.mode = Mode::Busy(busy);
        }
    }

    /// Sends the answer to the model's question.
    fn answer_question(&mut self, answer: UserAnswer) {
        if let Mode::Answering(busy, answering) = std::mem::replace(&mut self.mode, Mode::Idle) {
            answering.send(answer);
            self.mode = Mode::Busy(busy);
        }
    }

    fn answer(&mut self, decision: Decision) {
        if let Mode::Asking(busy, mut question) = std::mem::replace(&mut self.mode, Mode::Idle) {
            if let Some(answer) = question.answer.take() {
                let _ = answer.send(decision);
            }
            self.mode = Mode::Busy(busy);
        }
    }

    /// Sends `text` (a message or a command), or queues it while the agent works.
    pub fn submit(&mut self, text: String) {
        let command = commands::parse(&text);
        let immediate = matches!(
            command,
            Some(
                Ok(SlashCommand::Help
                    | SlashCommand::Plan
                    | SlashCommand::Exit
                    | SlashCommand::Undo
                    | SlashCommand::Redo
                    | SlashCommand::Rewind)
                    | Err(_)
            )
        );
        if command.is_some() && (immediate || !self.is_busy()) {
            // Commands open no round, which would show them; a queued one shows when it runs.
            self.output
                .push(styled(format!("› {}", text.trim()), DIM, &self.theme));
        }
        match command {
            Some(Ok(SlashCommand::Help)) => {
                self.info(&commands::help());
                return;
            }
            Some(Ok(SlashCommand::Plan)) => {
                self.session_mode = self.session_mode.toggled_plan();
                self.info(&self.session_mode.announcement());
                return;
            }
            Some(Ok(SlashCommand::Exit)) => return self.request_exit(),
            Some(Err(message)) => {
                self.output.extend(render::error(&message, &self.theme));
                return;
            }
            Some(Ok(SlashCommand::Undo | SlashCommand::Redo | SlashCommand::Rewind))
                if self.is_busy() =>
            {
                // Queued, it would undo whatever the running round is about to do.
                let message = format!(
                    "{} cannot run while the agent works: wait for the round to end, \
                     or Ctrl-C to stop it.",
                    text.trim()
                );
                self.output.extend(render::error(&message, &self.theme));
                return;
            }
            _ => {}
        }
        if self.is_busy() {
            self.queued.push_back(text);
            return;
        }
        let cancel = CancellationToken::new();
        let request = match command {
            Some(Ok(SlashCommand::Compact)) => Request::Compact {
                cancel: cancel.clone(),
            },
            Some(Ok(SlashCommand::Commit)) => Request::Commit,
            Some(Ok(SlashCommand::Init)) => Request::Init {
                cancel: cancel.clone(),
            },
            Some(Ok(command)) => Request::Command(command),
            _ => {
                self.files.refresh();
                self.plan_round = self.session_mode.plan.then_some(PlanRound::Running);
                Request::Round {
                    input: text,
                    cancel: cancel.clone(),
                    mode: self.session_mode,
                }
            }
        };
        self.requests.push(request);
        self.mode = Mode::Busy(Busy {
            cancel,
            started: self.now,
            stopping: false,
        });
    }

    /// Handles what the agent's side sent.
    pub fn handle_reply(&mut self, reply: Reply) {
        match reply {
            Reply::Opened(opened) => self.opened(&opened),
            Reply::Event(event) => {
                if matches!(event, Event::RoundFinished { .. })
                    && self.plan_round == Some(PlanRound::Running)
                {
                    self.plan_round = Some(PlanRound::Planned);
                }
                self.transcript
                    .event(&event, self.now, self.width, &mut self.output);
            }
            Reply::Approval(request, answer) => match std::mem::replace(&mut self.mode, Mode::Idle)
            {
                Mode::Busy(busy) if !busy.stopping => {
                    let question = Box::new(Question {
                        request,
                        answer: Some(answer),
                        reason: None,
                    });
                    self.mode = Mode::Asking(busy, question);
                }
                other => {
                    // Nobody to ask (stopping): the round is being cancelled anyway.
                    let _ = answer.send(Decision::Deny { reason: None });
                    self.mode = other;
                }
            },
            Reply::Ask(question, answer) => match std::mem::replace(&mut self.mode, Mode::Idle) {
                Mode::Busy(busy) if !busy.stopping => {
                    let answering = Box::new(Answering::new(question, answer));
                    self.mode = Mode::Answering(busy, answering);
                }
                other => {
                    // Stopping: the round is being cancelled anyway.
                    let _ = answer.send(UserAnswer::Declined);
                    self.mode = other;
                }
            },
            Reply::Choose(choice, answer) => match std::mem::replace(&mut self.mode, Mode::Idle) {
                Mode::Busy(busy) if !busy.stopping => {
                    let selected = choice.selected.min(choice.options.len().saturating_sub(1));
                    let choosing = Box::new(Choosing {
                        choice,
                        selected,
                        answer: Some(answer),
                    });
                    self.mode = Mode::Choosing(busy, choosing);
                }
                other => {
                    let _ = answer.send(None);
                    self.mode = other;
                }
            },
            Reply::Notice(Notice::Diff(text)) => {
                self.output.extend(render::diff(&text, &self.theme));
            }
            Reply::Notice(Notice::Info(text)) => self.info(&text),
            Reply::Notice(Notice::Error(text)) => {
                self.output.extend(render::error(&text, &self.theme));
            }
            Reply::Done(status) => {
                self.mode = Mode::Idle;
                if let Some(status) = status {
                    self.output.push(render::status_line(&status, &self.theme));
                    self.status = Some(status);
                }
                let planned = self.plan_round.take() == Some(PlanRound::Planned);
                if let Some(next) = self.queued.pop_front() {
                    // Typed while the plan was made: the user goes on planning.
                    self.submit(next);
                } else if planned && self.session_mode.plan {
                    self.mode = Mode::PlanReady(Box::new(plan_question()));
                }
            }
        }
    }

    pub(super) fn info(&mut self, text: &str) {
        for line in text.trim_end().lines() {
            self.output.push(Line::from(super::transcript::clean(line)));
        }
    }

    fn opened(&mut self, opened: &SessionOpened) {
        let name = opened
            .name
            .as_deref()
            .map(|n| format!(" \"{n}\""))
            .unwrap_or_default();
        let what = if opened.resumed {
            format!(
                "resumed session {}{name} ({})",
                opened.id,
                plural(opened.rounds as u64, "round")
            )
        } else {
            format!("new session {}{name}", opened.id)
        };
        self.output.push(styled(
            format!("wright · {} · {what} · /help for commands", opened.model),
            DIM,
            &self.theme,
        ));
        for warning in &opened.warnings {
            self.output
                .push(styled(format!("⚠ {warning}"), WARNING, &self.theme));
        }
        self.output
            .extend(super::recap::render(&opened.recap, &self.theme));
        // The status of another session does not apply to this one.
        self.status = None;
    }
}

#[cfg(test)]
mod tests;
