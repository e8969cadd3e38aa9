//! Plan mode and the model's questions in the interactive session, end to end: the real
//! `wright` in a pseudo-terminal against the scripted provider.

use pretty_assertions::assert_eq;

use crate::common::{Project, last_message, messages, reply, serve};
use crate::interactive::pty::Session;

/// The system message (L1) of a recorded request.
fn system(request: &wright_testkit::RecordedRequest) -> String {
    let body = request.json().unwrap();
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

#[test]
fn a_plan_accepted_with_enter_is_carried_out_in_ask_mode() {
    let project = Project::new();
    let server = serve(vec![
        reply("Thought: planned\nAction: Finish[1. Create notes.txt]"),
        reply("Thought: do it\nAction: Write[{\"file_path\": \"notes.txt\", \"content\": \"hi\"}]"),
        reply("Thought: done\nAction: Finish[notes.txt created]"),
    ]);
    let mut session = Session::start(&project, &server, &["--plan"]);
    session.expect("plan mode · Enter send");
    session.type_text("add notes");
    session.enter();
    session.expect("The plan is ready. Carry it out?");
    session.enter();
    session.expect("Plan accepted. ask mode");
    session.expect("Allow Write?");
    session.type_text("y");
    session.expect("notes.txt created");
    assert_eq!(
        std::fs::read_to_string(project.path().join("notes.txt")).unwrap(),
        "hi"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(system(&requests[0]).contains("# Plan mode\n"));
    assert!(!system(&requests[0]).contains("## Write\n"));
    let carrying_out = messages(&requests[1]);
    assert_eq!(
        carrying_out.last().unwrap(),
        &("user".to_string(), "Carry out the plan above.".to_string())
    );
    assert!(system(&requests[1]).contains("## Write\n"));
    assert!(!system(&requests[1]).contains("# Plan mode\n"));
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn shift_tab_reaches_plan_mode_and_the_next_round_plans() {
    let project = Project::new();
    let server = serve(vec![reply("Action: Finish[a plan]")]);
    let mut session = Session::start(&project, &server, &["--approval", "auto"]);
    session.expect("auto mode · Enter send");
    // Shift-Tab, as terminals send it.
    session.send(b"\x1b[Z");
    session.expect("Plan mode: the agent only reads");
    session.type_text("look around");
    session.enter();
    session.expect("The plan is ready. Carry it out?");
    // Keep planning.
    session.type_text("3");
    session.expect("Still planning");
    assert!(system(&server.requests()[0]).contains("# Plan mode\n"));
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn the_models_question_is_answered_from_the_picker() {
    let project = Project::new();
    let server = serve(vec![
        reply(
            "Thought: ask\nAction: AskUser[{\"question\": \"On or off by default?\", \
             \"choices\": [\"on\", \"off\"]}]",
        ),
        reply("Thought: done\nAction: Finish[off it is]"),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("add a flag");
    session.enter();
    session.expect("? On or off by default?");
    session.expect("✎ type an answer");
    session.type_text("2");
    session.expect("off it is");
    let observation = last_message(&server.requests()[1]);
    assert!(
        observation.contains("The user answered: off"),
        "{observation}"
    );
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}
