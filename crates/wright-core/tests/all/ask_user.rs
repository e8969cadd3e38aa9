//! AskUser end to end: an Agent against the scripted provider, its questions answered from a
//! script (or by no one).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use wright_core::approval::{ApprovalMode, ApprovalRequest, Approver, Decision};
use wright_core::ask_user::{AskUserTool, DECLINED, NO_ONE_TO_ANSWER, UserAnswer, UserQuestion};
use wright_core::history::HistoryManager;
use wright_core::{Agent, AgentConfig, RoundOutcome};
use wright_llm::{LlmClient, LlmConfig, ProviderKind};
use wright_protocol::{FailureCode, Role};
use wright_testkit::{Script, ScriptedResponse, TestServer};
use wright_tools::{ToolContext, ToolRegistry};

/// Answers questions from a list, in order, and remembers every question; approves nothing.
#[derive(Default)]
struct Answering {
    answers: Mutex<VecDeque<UserAnswer>>,
    asked: Mutex<Vec<UserQuestion>>,
}

impl Answering {
    fn with(answers: impl IntoIterator<Item = UserAnswer>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into_iter().collect()),
            asked: Mutex::default(),
        })
    }
}

impl Approver for Answering {
    fn decide(&self, _: ApprovalRequest) -> BoxFuture<'static, Decision> {
        panic!("nothing in these tests needs approval")
    }

    fn ask(&self, question: UserQuestion) -> BoxFuture<'static, UserAnswer> {
        self.asked.lock().unwrap().push(question);
        let answer = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .expect("asked more often than the test expected");
        Box::pin(std::future::ready(answer))
    }
}

/// Presses Ctrl-C while the question is open, and never answers.
struct Interrupting(CancellationToken);

impl Approver for Interrupting {
    fn decide(&self, _: ApprovalRequest) -> BoxFuture<'static, Decision> {
        panic!("nothing in these tests needs approval")
    }

    fn ask(&self, _: UserQuestion) -> BoxFuture<'static, UserAnswer> {
        self.0.cancel();
        Box::pin(futures::future::pending())
    }
}

/// Only decides: an approver from before questions, which cannot answer them.
struct DecidesOnly;

impl Approver for DecidesOnly {
    fn decide(&self, _: ApprovalRequest) -> BoxFuture<'static, Decision> {
        Box::pin(std::future::ready(Decision::Once))
    }
}

struct Round {
    outcome: RoundOutcome,
    server: TestServer,
    agent: Agent,
}

impl Round {
    /// The last message of the `n`th (0-based) request the model got.
    fn last_message_of_request(&self, n: usize) -> String {
        let body = self.server.requests()[n].json().unwrap();
        let messages = body["messages"].as_array().unwrap();
        messages.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The compressed tool results history kept, as JSON.
    fn stored_tool_results(&self) -> Vec<Value> {
        self.agent
            .history()
            .all_messages()
            .iter()
            .filter(|m| m.message.role == Role::Tool)
            .map(|m| serde_json::from_str(&m.message.content).unwrap())
            .collect()
    }
}

fn ask(args: Value) -> String {
    format!("Thought: only the user knows.\nAction: AskUser[{args}]")
}

const FINISH: &str = "Thought: done.\nAction: Finish[done]";

async fn run_round(
    replies: &[String],
    answerer: Option<Arc<dyn Approver>>,
    cancel: CancellationToken,
) -> Round {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(Script::new(
        replies.iter().map(ScriptedResponse::text).collect(),
    ))
    .unwrap();
    let mut config = LlmConfig::new(ProviderKind::OpenAi, format!("{}/v1/", server.url()), "m");
    config.api_key = Some("test-key".into());
    config.retry_base_delay = Duration::from_millis(5);
    let llm = LlmClient::new(config).unwrap();
    let ctx = ToolContext::new(dir.path())
        .unwrap()
        .with_cancellation(cancel);
    let mut tools = ToolRegistry::builtin();
    tools.register(Box::new(AskUserTool::new(answerer.clone())));
    let mut agent = Agent::new(
        llm,
        tools,
        ctx,
        AgentConfig::default(),
        HistoryManager::new(None),
    )
    .unwrap()
    .with_approvals(ApprovalMode::Ask, answerer);
    let outcome = agent.run_round("add a flag", &mut |_| {}).await;
    Round {
        outcome,
        server,
        agent,
    }
}

#[tokio::test]
async fn the_users_pick_is_the_next_observation() {
    let answerer = Answering::with([UserAnswer::Chose(vec!["off".into()])]);
    let replies = [
        ask(json!({"question": "On or off by default?", "choices": ["on", "off"]})),
        FINISH.to_string(),
    ];
    let round = run_round(&replies, Some(answerer.clone()), CancellationToken::new()).await;

    assert!(matches!(round.outcome, RoundOutcome::Finished { .. }));
    assert_eq!(
        *answerer.asked.lock().unwrap(),
        vec![UserQuestion {
            question: "On or off by default?".into(),
            choices: vec!["on".into(), "off".into()],
            multi: false,
        }]
    );
    let observation = round.last_message_of_request(1);
    assert!(
        observation.contains("The user answered: off"),
        "{observation}"
    );
    assert_eq!(
        round.stored_tool_results(),
        vec![json!({"status": "success", "data": {"answer": "off"}})]
    );
}

#[tokio::test]
async fn a_typed_answer_and_several_picks_come_back_as_given() {
    let answerer = Answering::with([
        UserAnswer::Typed("use the env var".into()),
        UserAnswer::Chose(vec!["linux".into(), "macos".into()]),
    ]);
    let replies = [
        ask(json!({"question": "How is it set?", "choices": ["flag", "config"]})),
        ask(json!({"question": "Where?", "choices": ["linux", "macos", "windows"], "multi": true})),
        FINISH.to_string(),
    ];
    let round = run_round(&replies, Some(answerer), CancellationToken::new()).await;

    assert_eq!(
        round.stored_tool_results(),
        vec![
            json!({"status": "success", "data": {"answer": "use the env var"}}),
            json!({"status": "success", "data": {"answer": ["linux", "macos"]}}),
        ]
    );
}

#[tokio::test]
async fn where_no_one_can_answer_the_model_is_told_to_decide_itself() {
    for answerer in [None, Some(Arc::new(DecidesOnly) as Arc<dyn Approver>)] {
        let replies = [ask(json!({"question": "Which?"})), FINISH.to_string()];
        let round = run_round(&replies, answerer, CancellationToken::new()).await;

        assert!(matches!(round.outcome, RoundOutcome::Finished { .. }));
        let observation = round.last_message_of_request(1);
        assert!(
            observation.contains(&format!("Error (unanswered): {NO_ONE_TO_ANSWER}")),
            "{observation}"
        );
    }
}

#[tokio::test]
async fn a_declined_question_says_so() {
    let answerer = Answering::with([UserAnswer::Declined]);
    let replies = [ask(json!({"question": "Which?"})), FINISH.to_string()];
    let round = run_round(&replies, Some(answerer), CancellationToken::new()).await;

    assert_eq!(
        round.stored_tool_results(),
        vec![json!({
            "status": "error",
            "data": null,
            "error": {"code": "unanswered", "message": DECLINED},
        })]
    );
}

#[tokio::test]
async fn ctrl_c_while_the_question_is_open_interrupts_the_round() {
    let cancel = CancellationToken::new();
    let answerer = Arc::new(Interrupting(cancel.clone()));
    let replies = [ask(json!({"question": "Which?"})), FINISH.to_string()];
    let round = run_round(&replies, Some(answerer), cancel).await;

    assert_eq!(
        round.outcome,
        RoundOutcome::Failed {
            code: FailureCode::Interrupted,
            message: "Interrupted.".into(),
        }
    );
    assert_eq!(round.server.requests().len(), 1);
    let stored = round.stored_tool_results();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["error"]["code"], "interrupted", "{stored:?}");
}

#[tokio::test]
async fn ask_user_is_described_in_l1_and_asks_one_question_at_a_time() {
    let round = run_round(&[FINISH.to_string()], None, CancellationToken::new()).await;
    let system = round.agent.system_prompt();
    assert!(
        system.contains("## AskUser\nAsks the user one question"),
        "{system}"
    );
    let tool = AskUserTool::new(None);
    use wright_tools::Tool;
    assert!(tool.read_only());
    assert!(!tool.concurrency_safe());
}
