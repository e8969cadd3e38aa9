use super::*;
use crate::render::to_plain;
use pretty_assertions::assert_eq;
use serde_json::json;
use wright_protocol::{ActionKind, Usage};

fn app() -> App {
    App::new(
        Theme::PLAIN,
        80,
        InputHistory::in_memory(Vec::new()),
        FileIndex::of(&["src/main.rs", "src/parser.rs"]),
    )
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
}

fn output(app: &mut App) -> String {
    to_plain(&app.take_output())
}

/// Types `text`, presses Enter, and returns the round's cancellation token.
fn send(app: &mut App, text: &str) -> CancellationToken {
    type_text(app, text);
    app.handle_key(key(KeyCode::Enter));
    match app.take_requests().as_slice() {
        [Request::Round { input, cancel }] => {
            assert_eq!(input, text);
            cancel.clone()
        }
        other => panic!("expected one round, got {other:?}"),
    }
}

fn done(app: &mut App) {
    app.handle_reply(Reply::Done(Some(StatusInfo {
        model: "m".into(),
        context_tokens: 1000,
        context_window: 10_000,
        round_tokens: 1000,
        cost_usd: None,
    })));
}

fn approval(step: u32) -> (ApprovalRequest, oneshot::Receiver<Decision>, Reply) {
    let request = ApprovalRequest {
        step,
        tool: "Bash".into(),
        args: json!({"command": "rm -rf target"}),
        kind: ActionKind::Command,
        preview: "rm -rf target".into(),
        concern: None,
    };
    let (tx, rx) = oneshot::channel();
    (request.clone(), rx, Reply::Approval(request, tx))
}

#[test]
fn enter_sends_a_round_and_the_app_is_busy_until_done() {
    let mut app = app();
    send(&mut app, "fix it");
    assert!(app.is_busy());
    done(&mut app);
    assert!(!app.is_busy());
    assert!(output(&mut app).contains("m · context 1k/10k (10%)"));
}

#[test]
fn input_sent_while_busy_is_queued_and_sent_after_the_round() {
    let mut app = app();
    send(&mut app, "first");
    type_text(&mut app, "second");
    app.handle_key(key(KeyCode::Enter));
    assert!(app.take_requests().is_empty());
    done(&mut app);
    match app.take_requests().as_slice() {
        [Request::Round { input, .. }] => assert_eq!(input, "second"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ctrl_c_while_busy_cancels_the_round() {
    let mut app = app();
    let cancel = send(&mut app, "long job");
    app.handle_key(ctrl('c'));
    assert!(cancel.is_cancelled());
    assert!(!app.should_exit());
}

#[test]
fn ctrl_c_twice_on_an_empty_prompt_exits() {
    let mut app = app();
    app.handle_key(ctrl('c'));
    assert!(!app.should_exit());
    app.tick(app.now + Duration::from_millis(500));
    app.handle_key(ctrl('c'));
    assert!(app.should_exit());
}

#[test]
fn ctrl_c_twice_far_apart_does_not_exit() {
    let mut app = app();
    app.handle_key(ctrl('c'));
    app.tick(app.now + EXIT_CONFIRM_WINDOW + Duration::from_millis(1));
    app.handle_key(ctrl('c'));
    assert!(!app.should_exit());
}

#[test]
fn ctrl_c_with_text_clears_the_prompt_first() {
    let mut app = app();
    type_text(&mut app, "draft");
    app.handle_key(ctrl('c'));
    assert!(app.composer.is_empty());
    assert!(app.hint.is_none());
}

#[test]
fn ctrl_d_on_an_empty_prompt_exits() {
    let mut app = app();
    app.handle_key(ctrl('d'));
    assert!(app.should_exit());
}

#[test]
fn y_allows_once() {
    let mut app = app();
    send(&mut app, "clean");
    let (_, mut answer, reply) = approval(1);
    app.handle_reply(reply);
    app.handle_key(key(KeyCode::Char('y')));
    assert_eq!(answer.try_recv().unwrap(), Decision::Once);
    assert!(app.is_busy());
}

#[test]
fn a_allows_always() {
    let mut app = app();
    send(&mut app, "clean");
    let (_, mut answer, reply) = approval(1);
    app.handle_reply(reply);
    app.handle_key(key(KeyCode::Char('a')));
    assert_eq!(answer.try_recv().unwrap(), Decision::Always);
}

#[test]
fn n_then_a_reason_denies_with_the_reason() {
    let mut app = app();
    send(&mut app, "clean");
    let (_, mut answer, reply) = approval(1);
    app.handle_reply(reply);
    app.handle_key(key(KeyCode::Char('n')));
    type_text(&mut app, "not the target dir");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        answer.try_recv().unwrap(),
        Decision::Deny {
            reason: Some("not the target dir".into())
        }
    );
    assert!(
        app.composer.is_empty(),
        "the reason is not typed into the prompt"
    );
}

#[test]
fn n_then_enter_denies_without_a_reason() {
    let mut app = app();
    send(&mut app, "clean");
    let (_, mut answer, reply) = approval(1);
    app.handle_reply(reply);
    app.handle_key(key(KeyCode::Char('n')));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(answer.try_recv().unwrap(), Decision::Deny { reason: None });
}

#[test]
fn ctrl_c_while_asked_cancels_the_round_and_drops_the_question() {
    let mut app = app();
    let cancel = send(&mut app, "clean");
    let (_, mut answer, reply) = approval(1);
    app.handle_reply(reply);
    app.handle_key(ctrl('c'));
    assert!(cancel.is_cancelled());
    assert!(answer.try_recv().is_err());
}

#[test]
fn help_is_shown_at_once_even_while_busy() {
    let mut app = app();
    send(&mut app, "job");
    type_text(&mut app, "/help");
    app.handle_key(key(KeyCode::Enter));
    assert!(output(&mut app).contains("/compact"));
}

#[test]
fn an_unknown_command_is_an_error_and_sends_nothing() {
    let mut app = app();
    type_text(&mut app, "/nope");
    app.handle_key(key(KeyCode::Enter));
    assert!(output(&mut app).contains("unknown command /nope"));
    assert!(app.take_requests().is_empty());
}

#[test]
fn compact_and_commands_go_to_the_agent() {
    let mut app = app();
    type_text(&mut app, "/compact");
    app.handle_key(key(KeyCode::Enter));
    assert!(matches!(
        app.take_requests().as_slice(),
        [Request::Compact { .. }]
    ));
    done(&mut app);
    type_text(&mut app, "/resume feature");
    app.handle_key(key(KeyCode::Enter));
    assert!(matches!(
        app.take_requests().as_slice(),
        [Request::Command(SlashCommand::Resume(name))] if name == "feature"
    ));
}

#[test]
fn tab_completes_a_command_name() {
    let mut app = app();
    type_text(&mut app, "/comp");
    app.handle_key(key(KeyCode::Tab));
    assert_eq!(app.composer.text(), "/compact");
}

#[test]
fn tab_completes_an_at_path() {
    let mut app = app();
    type_text(&mut app, "look at @pars");
    assert!(app.completion.is_some(), "the list opens while typing");
    app.handle_key(key(KeyCode::Tab));
    assert_eq!(app.composer.text(), "look at @src/parser.rs ");
    assert!(app.completion.is_none());
}

#[test]
fn a_paste_lands_in_the_prompt_without_sending() {
    let mut app = app();
    app.handle_terminal(TermEvent::Paste("a\nb\nc".into()));
    assert_eq!(app.composer.text(), "a\nb\nc");
    assert!(app.take_requests().is_empty());
}

#[test]
fn undo_is_refused_while_a_round_runs_and_not_queued() {
    let mut app = app();
    send(&mut app, "work");
    output(&mut app);
    type_text(&mut app, "/undo");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        output(&mut app),
        "› /undo\n/undo cannot run while the agent works: wait for the round to end, or Ctrl-C \
         to stop it.\n"
    );
    assert!(app.queued.is_empty());
    assert!(app.take_requests().is_empty());
}

/// Sends `/rewind` and hands the app a choice of three options; the answer's receiver.
fn choosing(app: &mut App) -> oneshot::Receiver<Option<usize>> {
    type_text(app, "/rewind");
    app.handle_key(key(KeyCode::Enter));
    assert!(matches!(
        app.take_requests().as_slice(),
        [Request::Command(SlashCommand::Rewind)]
    ));
    let (answer, answered) = oneshot::channel();
    let choice = Choice {
        title: vec!["Which?".into()],
        options: vec![
            (None, "one".into()),
            (Some('t'), "two".into()),
            (None, "three".into()),
        ],
        selected: 2,
    };
    app.handle_reply(Reply::Choose(choice, answer));
    answered
}

#[test]
fn a_choice_is_picked_with_the_arrows_and_enter() {
    let mut app = app();
    let mut answered = choosing(&mut app);
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(answered.try_recv(), Ok(Some(0)));
    assert!(app.is_busy(), "the command goes on until it is done");
}

#[test]
fn a_choice_is_picked_by_its_key_and_cancelled_by_esc_or_ctrl_c() {
    let mut app = app();
    let mut answered = choosing(&mut app);
    app.handle_key(key(KeyCode::Char('t')));
    assert_eq!(answered.try_recv(), Ok(Some(1)));
    done(&mut app);

    let mut answered = choosing(&mut app);
    app.handle_key(key(KeyCode::Esc));
    assert_eq!(answered.try_recv(), Ok(None));
    done(&mut app);

    let mut answered = choosing(&mut app);
    app.handle_key(ctrl('c'));
    assert_eq!(answered.try_recv(), Ok(None));
    assert!(!app.should_exit());
}

/// Sends a round and hands the app the model's question; the answer's receiver.
fn asked(app: &mut App, choices: &[&str], multi: bool) -> oneshot::Receiver<UserAnswer> {
    send(app, "add a flag");
    let (answer, answered) = oneshot::channel();
    let question = UserQuestion {
        question: "On or off by default?".into(),
        choices: choices.iter().map(|c| c.to_string()).collect(),
        multi,
    };
    app.handle_reply(Reply::Ask(question, answer));
    answered
}

#[test]
fn the_models_question_is_a_picker_of_its_choices_and_a_typed_answer() {
    let mut app = app();
    let mut answered = asked(&mut app, &["on", "off"], false);
    let shown = to_plain(&app.question_lines());
    assert_eq!(
        shown,
        "? On or off by default?\n› 1. on\n  2. off\n  ✎ type an answer\n\
         ↑↓ move · Enter pick · Esc decline\n"
    );
    app.handle_key(key(KeyCode::Down));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        answered.try_recv(),
        Ok(UserAnswer::Chose(vec!["off".into()]))
    );
    assert!(app.is_busy(), "the round goes on");
    assert!(app.question_lines().is_empty());
}

#[test]
fn an_answer_of_ones_own_is_typed_in_the_last_row() {
    let mut app = app();
    let mut answered = asked(&mut app, &["on", "off"], false);
    for _ in 0..2 {
        app.handle_key(key(KeyCode::Down));
    }
    app.handle_key(key(KeyCode::Enter));
    type_text(&mut app, "off on ci");
    app.handle_terminal(TermEvent::Paste(", on locally".into()));
    assert!(
        app.composer.is_empty(),
        "the answer is not typed into the prompt"
    );
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        answered.try_recv(),
        Ok(UserAnswer::Typed("off on ci, on locally".into()))
    );
}

#[test]
fn several_choices_are_ticked_with_space_and_sent_with_enter() {
    let mut app = app();
    let mut answered = asked(&mut app, &["linux", "macos", "windows"], true);
    app.handle_key(key(KeyCode::Char(' ')));
    app.handle_key(key(KeyCode::Char('3')));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        answered.try_recv(),
        Ok(UserAnswer::Chose(vec!["linux".into(), "windows".into()]))
    );
}

#[test]
fn esc_declines_the_models_question() {
    let mut app = app();
    let mut answered = asked(&mut app, &[], false);
    type_text(&mut app, "draft");
    app.handle_key(key(KeyCode::Esc));
    assert_eq!(answered.try_recv(), Ok(UserAnswer::Declined));
    assert!(app.is_busy());
}

#[test]
fn ctrl_c_while_the_model_asks_cancels_the_round_and_drops_the_question() {
    let mut app = app();
    let mut answered = asked(&mut app, &["on", "off"], false);
    app.handle_key(ctrl('c'));
    assert!(answered.try_recv().is_err(), "no answer is sent");
    assert!(app.question_lines().is_empty());
    assert!(!app.should_exit());
    // Stopping: a question that comes now is declined at once.
    let (answer, mut late) = oneshot::channel();
    let question = UserQuestion {
        question: "Still there?".into(),
        choices: Vec::new(),
        multi: false,
    };
    app.handle_reply(Reply::Ask(question, answer));
    assert_eq!(late.try_recv(), Ok(UserAnswer::Declined));
}

#[test]
fn events_become_scrollback_lines() {
    let mut app = app();
    send(&mut app, "q");
    app.handle_reply(Reply::Event(Event::RoundStarted { prompt: "q".into() }));
    app.handle_reply(Reply::Event(Event::AssistantDelta {
        text: "Thought: hm\n".into(),
    }));
    app.handle_reply(Reply::Event(Event::RoundFinished {
        answer: "The **answer**.".into(),
        steps: 1,
        usage: Usage::default(),
    }));
    assert_eq!(output(&mut app), "\n› q\nThought: hm\n\nThe answer.\n");
}

use wright_core::ask_user::{UserAnswer, UserQuestion};
use wright_protocol::Event;
