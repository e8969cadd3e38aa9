//! AskUser in `wright exec`: no one can answer, so the model is told to decide itself.

use crate::common::{Project, last_message, reply, serve};

#[test]
fn exec_answers_the_models_question_with_an_error_saying_no_one_can_answer() {
    let project = Project::new();
    let server = serve(vec![
        reply(
            "Thought: only the user knows\nAction: AskUser[{\"question\": \"On or off by \
             default?\", \"choices\": [\"on\", \"off\"]}]",
        ),
        reply("Thought: I will assume off\nAction: Finish[Off by default (assumed).]"),
    ]);
    let run = project.exec(&server, "openai", &["--json"], "add a --retry flag");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);

    let observation = last_message(&server.requests()[1]);
    assert!(
        observation.contains(
            "Error (unanswered): no one can answer (non-interactive); decide yourself and say \
             what you assumed"
        ),
        "{observation}"
    );
    let results: Vec<_> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["tool"], "AskUser");
    assert_eq!(results[0]["error"]["code"], "unanswered");
}
