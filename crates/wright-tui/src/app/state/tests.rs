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
        [Request::Round { input, cancel, .. }] => {
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

/// The one round request the app made: its input and mode.
fn round_sent(app: &mut App) -> (String, SessionMode) {
    match app.take_requests().as_slice() {
        [Request::Round { input, mode, .. }] => (input.clone(), *mode),
        other => panic!("expected one round, got {other:?}"),
    }
}

fn plan_mode() -> SessionMode {
    SessionMode {
        approval: ApprovalMode::Ask,
        plan: true,
    }
}

#[test]
fn shift_tab_cycles_the_mode_and_the_next_round_runs_in_it() {
    let mut app = app();
    let mut seen = Vec::new();
    for _ in 0..4 {
        app.handle_key(key(KeyCode::BackTab));
        seen.push(app.session_mode().label());
    }
    assert_eq!(seen, ["auto-edit", "auto", "plan", "ask"]);
    app.handle_key(key(KeyCode::BackTab));
    assert_eq!(
        app.hint.as_ref().map(|(hint, _)| hint.as_str()),
        Some("auto-edit mode: file changes run without asking; commands are asked about.")
    );
    type_text(&mut app, "go");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        round_sent(&mut app),
        ("go".to_string(), SessionMode::new(ApprovalMode::AutoEdit))
    );
}

#[test]
fn the_footer_shows_the_mode() {
    let mut app = app().with_mode(plan_mode());
    assert!(to_plain(&[app.footer()]).starts_with("plan mode · Enter send"));
    app.handle_key(key(KeyCode::BackTab));
    app.tick(app.now + Duration::from_secs(4));
    assert!(
        to_plain(&[app.footer()]).starts_with("Enter send"),
        "ask is the default"
    );
    app.handle_key(key(KeyCode::BackTab));
    app.tick(app.now + Duration::from_secs(4));
    assert!(to_plain(&[app.footer()]).starts_with("auto-edit mode · Enter send"));
}

#[test]
fn slash_plan_toggles_plan_mode_at_once_even_while_busy() {
    let mut app = app().with_mode(SessionMode::new(ApprovalMode::AutoEdit));
    send(&mut app, "work");
    type_text(&mut app, "/plan");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        app.session_mode(),
        SessionMode {
            approval: ApprovalMode::AutoEdit,
            plan: true
        }
    );
    assert!(output(&mut app).contains("Plan mode: the agent only reads"));
    assert!(
        app.queued.is_empty(),
        "not queued: it changes the next round"
    );
    type_text(&mut app, "/plan");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.session_mode(), SessionMode::new(ApprovalMode::AutoEdit));
}

/// Sends a round in plan mode and ends it with a plan.
fn planned(app: &mut App) {
    type_text(app, "add a --retry flag");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(round_sent(app).1, plan_mode());
    app.handle_reply(Reply::Event(Event::RoundFinished {
        answer: "1. Parse the flag".into(),
        steps: 1,
        usage: Usage::default(),
    }));
    done(app);
}

#[test]
fn after_a_plan_enter_accepts_it_in_ask_mode_and_carries_it_out() {
    let mut app = app().with_mode(plan_mode());
    planned(&mut app);
    assert!(!app.is_busy());
    let question = to_plain(&app.question_lines());
    assert!(
        question.starts_with(
            "The plan is ready. Carry it out?\n  1. Yes, and let file edits run without asking \
             (auto-edit mode)\n› 2. Yes, and ask before each change (ask mode)\n  3. No, keep \
             planning\n  ✎ Refine the plan: type what to change\n"
        ),
        "{question}"
    );
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        round_sent(&mut app),
        (
            CARRY_OUT_THE_PLAN.to_string(),
            SessionMode::new(ApprovalMode::Ask)
        )
    );
    assert!(app.is_busy());
    assert!(output(&mut app).contains("Plan accepted. ask mode:"));
}

#[test]
fn a_plan_accepted_in_auto_edit_mode_leaves_plan_mode_for_auto_edit() {
    let mut app = app().with_mode(plan_mode());
    planned(&mut app);
    app.handle_key(key(KeyCode::Char('1')));
    assert_eq!(
        round_sent(&mut app),
        (
            CARRY_OUT_THE_PLAN.to_string(),
            SessionMode::new(ApprovalMode::AutoEdit)
        )
    );
    // The round that carries it out is no plan: no question after it.
    done(&mut app);
    assert!(app.question_lines().is_empty());
}

#[test]
fn a_refinement_is_the_next_plan_mode_prompt() {
    let mut app = app().with_mode(plan_mode());
    planned(&mut app);
    type_text(&mut app, "also retry on 429");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        round_sent(&mut app),
        ("also retry on 429".to_string(), plan_mode())
    );
}

#[test]
fn a_typed_yes_carries_the_plan_out_asking_and_a_typed_no_keeps_planning() {
    let mut app = app().with_mode(plan_mode());
    planned(&mut app);
    type_text(&mut app, "y");
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(
        round_sent(&mut app),
        (
            CARRY_OUT_THE_PLAN.to_string(),
            SessionMode::new(ApprovalMode::Ask)
        )
    );

    let mut other = self::app().with_mode(plan_mode());
    planned(&mut other);
    type_text(&mut other, "No");
    other.handle_key(key(KeyCode::Enter));
    assert!(other.take_requests().is_empty());
    assert_eq!(other.session_mode(), plan_mode());
}

#[test]
fn keeping_on_planning_or_esc_stays_in_plan_mode_and_sends_nothing() {
    for keys in [vec![KeyCode::Char('3')], vec![KeyCode::Esc]] {
        let mut app = app().with_mode(plan_mode());
        planned(&mut app);
        for code in keys {
            app.handle_key(key(code));
        }
        assert!(app.take_requests().is_empty());
        assert!(!app.is_busy());
        assert_eq!(app.session_mode(), plan_mode());
        assert!(app.question_lines().is_empty());
    }
}

#[test]
fn no_plan_question_after_a_failed_plan_round_or_with_input_queued() {
    let mut app = app().with_mode(plan_mode());
    send(&mut app, "plan it");
    done(&mut app);
    assert!(app.question_lines().is_empty(), "the round gave no plan");

    send(&mut app, "plan it");
    type_text(&mut app, "and look at the tests");
    app.handle_key(key(KeyCode::Enter));
    app.handle_reply(Reply::Event(Event::RoundFinished {
        answer: "a plan".into(),
        steps: 1,
        usage: Usage::default(),
    }));
    done(&mut app);
    assert_eq!(
        round_sent(&mut app),
        ("and look at the tests".to_string(), plan_mode())
    );
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

use super::super::modes::SessionMode;
use wright_core::approval::ApprovalMode;
use wright_core::ask_user::{UserAnswer, UserQuestion};
use wright_core::plan::CARRY_OUT_THE_PLAN;
use wright_protocol::Event;
