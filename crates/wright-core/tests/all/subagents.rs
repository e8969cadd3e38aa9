//! Sub-agents end to end (issue 14): a session whose agent calls the Task tool, against the
//! scripted provider, with the children's sessions in a real store.

use std::collections::HashMap;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use wright_core::approval::ApprovalMode;
use wright_core::cost::session_cost;
use wright_core::session::{AgentBuilder, AgentSetup, Session, SessionError, Sessions};
use wright_core::subagent::AgentCatalog;
use wright_core::{AgentConfig, RoundOutcome};
use wright_llm::{LlmConfig, ProviderKind};
use wright_protocol::Event;
use wright_store::SessionStore;
use wright_testkit::{RecordedRequest, Script, ScriptedResponse, TestServer};
use wright_tools::ToolSettings;

struct Project {
    home: tempfile::TempDir,
    root: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            root: tempfile::tempdir().unwrap(),
        }
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.root.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn store(&self) -> SessionStore {
        SessionStore::new(self.home.path(), self.root.path())
    }

    fn setup(&self, server: &TestServer, max_steps: u32) -> AgentSetup {
        let tools = ToolSettings::default();
        let registry = tools.registry();
        let mut names: Vec<&str> = registry.names();
        names.push("Task");
        let (catalog, problems) = AgentCatalog::load(self.root.path(), None, &names, true);
        assert_eq!(problems, vec![]);
        AgentSetup {
            agent: AgentConfig {
                max_steps,
                ..AgentConfig::default()
            },
            tools,
            agents: Arc::new(catalog),
            ..AgentSetup::new(
                self.root.path().to_path_buf(),
                LlmConfig::new(
                    ProviderKind::OpenAi,
                    format!("{}/v1/", server.url()),
                    "main-model",
                ),
            )
        }
    }

    fn session(&self, server: &TestServer) -> Session {
        self.session_with(server, ApprovalMode::Auto)
    }

    fn session_with(&self, server: &TestServer, approval: ApprovalMode) -> Session {
        let mut setup = self.setup(server, 0);
        setup.approval = approval;
        let sessions = Sessions::new(self.store(), AgentBuilder::new(setup).unwrap());
        sessions.create(None).unwrap()
    }
}

async fn run(session: &mut Session, input: &str) -> (RoundOutcome, Vec<Event>) {
    let mut events = Vec::new();
    let outcome = session
        .run_round(input, CancellationToken::new(), &mut |e| events.push(e))
        .await;
    (outcome, events)
}

fn body(request: &RecordedRequest) -> Value {
    request.json().unwrap()
}

/// The system prompt and the rest of a request's messages, as text.
fn parts(request: &RecordedRequest) -> (String, String) {
    let body = body(request);
    let messages = body["messages"].as_array().unwrap();
    let system = messages[0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let rest = messages[1..]
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n---\n");
    (system, rest)
}

fn reply(text: &str) -> ScriptedResponse {
    ScriptedResponse::text(text).with_usage(100, 10)
}

/// A scripted server giving `replies` in order, each reporting 100 prompt and 10 completion
/// tokens.
fn serve(replies: &[&str]) -> TestServer {
    TestServer::start(Script::new(replies.iter().map(|r| reply(r)).collect())).unwrap()
}

/// Runs a round that must finish; its answer and events.
async fn finish(session: &mut Session, input: &str) -> (String, Vec<Event>) {
    let (outcome, events) = run(session, input).await;
    match outcome {
        RoundOutcome::Finished { answer, .. } => (answer, events),
        failed => panic!("the round failed: {failed:?}"),
    }
}

#[tokio::test]
async fn the_parent_keeps_only_the_childs_answer_and_the_child_starts_from_its_task_alone() {
    let project = Project::new();
    let lines: String = (1..=300)
        .map(|i| format!("BIGLINE-{i:04} some text\n"))
        .collect();
    project.write("big.txt", &lines);
    let server = serve(&[
        "Thought: delegate\nAction: Task[{\"agent\": \"explore\", \"description\": \"Summarise big.txt\", \"prompt\": \"Read big.txt and say how many lines it has.\"}]",
        "Thought: read it\nAction: Read[{\"file_path\": \"big.txt\"}]",
        "Thought: done\nAction: Finish[CHILD-ANSWER: big.txt has 300 lines.]",
        "Thought: relay\nAction: Finish[It has 300 lines.]",
    ]);
    let mut session = project.session(&server);
    let (answer, events) = finish(&mut session, "PARENT-INPUT: how long is big.txt?").await;
    assert_eq!(answer, "It has 300 lines.");

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // The child's first request: its own L1 (read-only tools, the sub-agent preamble, the
    // explore instructions) and its task, nothing of the parent's conversation.
    let (child_system, child_rest) = parts(&requests[1]);
    assert!(
        child_system.contains("You are a sub-agent"),
        "{child_system}"
    );
    assert!(child_system.contains("You explore"), "{child_system}");
    assert!(child_system.contains("## Read") && child_system.contains("## Grep"));
    for absent in [
        "## Write",
        "## Edit",
        "## MultiEdit",
        "## Task",
        "## TodoWrite",
    ] {
        assert!(
            !child_system.contains(absent),
            "{absent} offered to explore"
        );
    }
    assert!(child_rest.contains("Read big.txt and say how many lines it has."));
    assert!(!child_rest.contains("PARENT-INPUT"), "{child_rest}");
    // The child saw the file whole in its round…
    let (_, child_second) = parts(&requests[2]);
    assert!(child_second.contains("BIGLINE-0300"));
    // …the parent sees only the answer, with the note of the child's cost.
    let (parent_system, parent_next) = parts(&requests[3]);
    assert!(parent_system.contains("## Task") && parent_system.contains("`explore` (read-only)"));
    assert!(
        parent_next.contains("CHILD-ANSWER: big.txt has 300 lines."),
        "{parent_next}"
    );
    assert!(
        parent_next.contains("[explore · 2 steps · 220 tokens"),
        "{parent_next}"
    );
    assert!(
        !parent_next.contains("BIGLINE"),
        "the child's observation reached the parent"
    );

    // The child's steps are reported as it makes them, under the Task call's step, and
    // before the Task call's own result.
    let subagent: Vec<(u32, String, String)> = events
        .iter()
        .filter_map(|event| match event {
            Event::Subagent {
                step, agent, event, ..
            } => Some((*step, agent.clone(), format!("{event:?}"))),
            _ => None,
        })
        .collect();
    assert!(
        subagent.iter().any(|(step, agent, event)| *step == 1
            && agent == "explore"
            && event.starts_with("ToolCall")
            && event.contains("big.txt")),
        "{subagent:?}"
    );
    assert!(
        subagent
            .iter()
            .any(|(_, _, event)| event.starts_with("ToolResult") && event.contains("Read")),
        "{subagent:?}"
    );
    assert!(
        !subagent
            .iter()
            .any(|(_, _, event)| event.starts_with("AssistantDelta") || event.starts_with("Usage")),
        "{subagent:?}"
    );
    let task_result = events
        .iter()
        .position(|e| matches!(e, Event::ToolResult { tool, .. } if tool == "Task"))
        .unwrap();
    let last_child = events
        .iter()
        .rposition(|e| matches!(e, Event::Subagent { .. }))
        .unwrap();
    assert!(last_child < task_result);

    // The child's session is linked to the parent's and holds its steps.
    let children = project.store().children(session.id()).unwrap();
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].meta.agent.as_deref(), Some("explore"));
    assert_eq!(children[0].meta.parent.as_deref(), Some(session.id()));
    assert_eq!(children[0].meta.task.as_deref(), Some("Summarise big.txt"));
    assert_eq!(children[0].rounds, 1);
    assert_eq!(children[0].tokens, 220);
    // The parent's cost counts the child's calls.
    let cost = session_cost(
        session.agent().history().usage_records(),
        "main-model",
        &HashMap::new(),
    );
    assert_eq!(cost.steps.usage.total_tokens, 220);
    assert_eq!(cost.subagents.usage.total_tokens, 220);
    assert_eq!(cost.total.usage.total_tokens, 440);

    // The child's session is shown, never resumed on its own.
    let child = project.store().find(&children[0].meta.id).unwrap().unwrap();
    let sessions = Sessions::new(
        project.store(),
        AgentBuilder::new(project.setup(&server, 0)).unwrap(),
    );
    let Err(error) = sessions.resume(child) else {
        panic!("a sub-agent's session was resumed");
    };
    assert!(
        matches!(error, SessionError::Subagent { ref parent, .. } if parent == session.id()),
        "{error}"
    );
}

#[tokio::test]
async fn an_unknown_agent_is_an_error_listing_the_agents_and_the_parent_goes_on() {
    let project = Project::new();
    let server = serve(&[
        "Action: Task[{\"agent\": \"wizard\", \"description\": \"x\", \"prompt\": \"do it\"}]",
        "Action: Finish[went on]",
    ]);
    let mut session = project.session(&server);
    finish(&mut session, "go").await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "no child ran");
    let (_, next) = parts(&requests[1]);
    assert!(
        next.contains("there is no agent named `wizard`; the agents are: general, explore"),
        "{next}"
    );
}

#[tokio::test]
async fn a_child_that_runs_out_of_steps_is_an_error_observation_and_the_parent_goes_on() {
    let project = Project::new();
    project.write(
        ".wright/agents/brief.md",
        "---\nname: brief\ndescription: Gives up fast\nmax_steps: 1\n---\nBe brief.\n",
    );
    let server = serve(&[
        "Action: Task[{\"agent\": \"brief\", \"description\": \"look\", \"prompt\": \"list files\"}]",
        "Action: LS[{\"path\": \".\"}]",
        "Action: Finish[the child gave up]",
    ]);
    let mut session = project.session(&server);
    let (answer, _) = finish(&mut session, "go").await;
    assert_eq!(answer, "the child gave up");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let (_, next) = parts(&requests[2]);
    assert!(
        next.contains("the `brief` agent stopped without an answer"),
        "{next}"
    );
    assert!(
        next.contains("Observation: Error (other): the `brief`"),
        "{next}"
    );
    assert!(next.contains("[brief · 1 step · 110 tokens]"), "{next}");
}

#[tokio::test]
async fn a_named_agent_gets_its_tools_model_and_instructions() {
    let project = Project::new();
    project.write(
        ".wright/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews code\ntools: Read, LS\nmodel: small-model\n---\nREVIEWER-INSTRUCTIONS: be strict.\n",
    );
    let server = serve(&[
        "Action: Task[{\"agent\": \"reviewer\", \"description\": \"review\", \"prompt\": \"review src\"}]",
        "Action: Finish[looks fine]",
        "Action: Finish[ok]",
    ]);
    let mut session = project.session(&server);
    finish(&mut session, "go").await;
    let requests = server.requests();
    assert_eq!(body(&requests[0])["model"], "main-model");
    assert_eq!(body(&requests[1])["model"], "small-model");
    assert_eq!(body(&requests[2])["model"], "main-model");
    let (system, _) = parts(&requests[1]);
    assert!(
        system.contains("REVIEWER-INSTRUCTIONS: be strict."),
        "{system}"
    );
    assert!(system.contains("# Your role: reviewer"), "{system}");
    let offered: Vec<&str> = system
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .collect();
    assert_eq!(offered, vec!["Read", "LS"], "{system}");
    // The parent's L1 lists the project's agent with its description.
    let (parent_system, _) = parts(&requests[0]);
    assert!(
        parent_system.contains("- `reviewer`: Reviews code"),
        "{parent_system}"
    );
}

#[tokio::test]
async fn several_tasks_answer_in_the_order_given_whichever_finishes_first() {
    let project = Project::new();
    // Each child is told apart by its task (the user message), answered by a route; the
    // first task's answer comes late.
    let script = Script::new(vec![
        reply("Action: Task[{\"tasks\": [{\"agent\": \"explore\", \"description\": \"first\", \"prompt\": \"TASK-ONE\"}, {\"agent\": \"explore\", \"description\": \"second\", \"prompt\": \"TASK-TWO\"}]}]"),
        reply("Action: Finish[both done]"),
    ])
    .with_route(
        "\"content\":\"TASK-ONE",
        reply("Action: Finish[ANSWER-ONE]").with_delay_ms(400),
    )
    .with_route("\"content\":\"TASK-TWO", reply("Action: Finish[ANSWER-TWO]"));
    let server = TestServer::start(script).unwrap();
    let mut session = project.session(&server);
    let (_, events) = finish(&mut session, "go").await;
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "{requests:#?}");
    let (_, next) = parts(&requests[3]);
    let one = next.find("ANSWER-ONE").expect("first answer");
    let two = next.find("ANSWER-TWO").expect("second answer");
    assert!(one < two, "answers out of order: {next}");
    assert!(next.contains("## Task 1: first (explore)"), "{next}");
    assert!(next.contains("## Task 2: second (explore)"), "{next}");
    // Both ran at once: the second, answered at once, finished while the first was still
    // waiting on the model (one after another, the first would finish first).
    let finished = |description: &str| {
        events
            .iter()
            .position(|event| {
                matches!(event, Event::Subagent { description: d, event, .. }
                    if d == description && matches!(**event, Event::RoundFinished { .. }))
            })
            .unwrap_or_else(|| panic!("{description} never finished: {events:?}"))
    };
    assert!(finished("second") < finished("first"), "{events:?}");
    let children = project.store().children(session.id()).unwrap();
    assert_eq!(children.len(), 2);
}

#[tokio::test]
async fn sub_agents_nest_no_deeper_than_the_limit() {
    let project = Project::new();
    let server = serve(&[
        "Action: Task[{\"description\": \"level one\", \"prompt\": \"go deeper\"}]",
        "Action: Task[{\"description\": \"level two\", \"prompt\": \"deeper still\"}]",
        "Action: Finish[bottom]",
        "Action: Finish[middle]",
        "Action: Finish[top]",
    ]);
    let mut session = project.session(&server);
    let (answer, _) = finish(&mut session, "go").await;
    assert_eq!(answer, "top");
    let requests = server.requests();
    let systems: Vec<String> = requests.iter().map(|r| parts(r).0).collect();
    // The session's agent and its child may run sub-agents; the grandchild (depth 2) may not.
    assert!(systems[0].contains("## Task"));
    assert!(systems[1].contains("## Task"));
    assert!(!systems[2].contains("## Task"), "{}", systems[2]);
    let child = &project.store().children(session.id()).unwrap()[0];
    let grandchildren = project.store().children(&child.meta.id).unwrap();
    assert_eq!(grandchildren.len(), 1);
    assert_eq!(grandchildren[0].meta.task.as_deref(), Some("level two"));
}

#[tokio::test]
async fn ctrl_c_stops_a_child_waiting_on_the_model() {
    let project = Project::new();
    let server = TestServer::start(Script::new(vec![
        reply("Action: Task[{\"agent\": \"explore\", \"description\": \"slow\", \"prompt\": \"take your time\"}]"),
        reply("Action: Finish[too late]").with_delay_ms(20_000),
    ]))
    .unwrap();
    let mut session = project.session(&server);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let outcome = session.run_round("go", cancel, &mut |_| {}).await;
    assert!(
        matches!(
            outcome,
            RoundOutcome::Failed {
                code: wright_protocol::FailureCode::Interrupted,
                ..
            }
        ),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_child_asks_as_the_parent_would_and_with_no_one_to_ask_its_write_is_denied() {
    let project = Project::new();
    let server = serve(&[
        "Action: Task[{\"description\": \"write\", \"prompt\": \"create notes.txt\"}]",
        "Action: Write[{\"file_path\": \"notes.txt\", \"content\": \"hi\"}]",
        "Action: Finish[I could not write it]",
        "Action: Finish[parent done]",
    ]);
    let mut session = project.session_with(&server, ApprovalMode::Ask);
    finish(&mut session, "go").await;
    assert!(!project.root.path().join("notes.txt").exists());
    let (_, child_next) = parts(&server.requests()[2]);
    assert!(
        child_next.contains("The user denied this action."),
        "{child_next}"
    );
    assert!(
        child_next.contains(wright_core::approval::NO_APPROVER_REASON),
        "{child_next}"
    );
}

#[tokio::test]
async fn a_resumed_session_lists_the_agents_it_started_with() {
    let project = Project::new();
    project.write(
        ".wright/agents/first.md",
        "---\nname: first\ndescription: There from the start\n---\n",
    );
    let server = serve(&["Action: Finish[one]", "Action: Finish[two]"]);
    let mut session = project.session(&server);
    run(&mut session, "first round").await;
    let id = session.id().to_string();
    drop(session);

    // An agent file added later does not change the resumed session's L1…
    project.write(
        ".wright/agents/second.md",
        "---\nname: second\ndescription: Added later\n---\n",
    );
    let sessions = Sessions::new(
        project.store(),
        AgentBuilder::new(project.setup(&server, 0)).unwrap(),
    );
    let loaded = project.store().find(&id).unwrap().unwrap();
    let mut resumed = sessions.resume(loaded).unwrap();
    run(&mut resumed, "second round").await;
    let requests = server.requests();
    let (before, _) = parts(&requests[0]);
    let (after, _) = parts(&requests[1]);
    assert_eq!(before, after, "L1 changed on resume");
    assert!(after.contains("`first`: There from the start"));
    assert!(!after.contains("`second`"), "{after}");
    // …and a new session lists it.
    let new = sessions.create(None).unwrap();
    assert!(
        new.agent()
            .system_prompt()
            .contains("- `second`: Added later")
    );
}

#[tokio::test]
async fn in_plan_mode_only_read_only_agents_run() {
    let project = Project::new();
    let server = serve(&[
        "Action: Task[{\"agent\": \"general\", \"description\": \"change\", \"prompt\": \"edit things\"}]",
        "Action: Task[{\"agent\": \"explore\", \"description\": \"look\", \"prompt\": \"look around\"}]",
        "Action: Finish[looked]",
        "Action: Finish[the plan]",
    ]);
    let mut session = project.session(&server);
    session.set_plan_mode(true);
    finish(&mut session, "plan it").await;
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "general never ran; explore did");
    let (_, after_general) = parts(&requests[1]);
    assert!(
        after_general.contains("only read-only agents run here")
            && after_general.contains("`general` can change files"),
        "{after_general}"
    );
    let children = project.store().children(session.id()).unwrap();
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].meta.agent.as_deref(), Some("explore"));
}

#[tokio::test]
async fn an_explore_child_cannot_write_through_bash() {
    let project = Project::new();
    let server = serve(&[
        "Action: Task[{\"agent\": \"explore\", \"description\": \"look\", \"prompt\": \"look\"}]",
        "Action: Bash[{\"command\": \"echo pwned > X.txt\"}]",
        "Action: Bash[{\"command\": \"ls\"}]",
        "Action: Finish[looked]",
        "Action: Finish[done]",
    ]);
    let mut session = project.session(&server);
    finish(&mut session, "go").await;
    assert!(!project.root.path().join("X.txt").exists());
    let requests = server.requests();
    let (_, refused) = parts(&requests[2]);
    assert!(
        refused.contains("only read-only commands run here"),
        "{refused}"
    );
    // A command that only reads runs.
    let (_, listed) = parts(&requests[3]);
    assert!(listed.contains("Observation: "), "{listed}");
    assert!(
        !listed.contains("only read-only commands run here\n"),
        "{listed}"
    );
}

#[tokio::test]
async fn a_child_may_use_no_tool_its_parent_may_not() {
    let project = Project::new();
    let server = serve(&[
        "Action: Task[{\"agent\": \"general\", \"description\": \"write\", \"prompt\": \"write it\"}]",
        "Action: Write[{\"file_path\": \"notes.txt\", \"content\": \"hi\"}]",
        "Action: Finish[could not]",
        "Action: Finish[done]",
    ]);
    let mut setup = project.setup(&server, 0);
    setup.profile.tools = Some(vec!["Read".into(), "Task".into()]);
    let sessions = Sessions::new(project.store(), AgentBuilder::new(setup).unwrap());
    let mut session = sessions.create(None).unwrap();
    finish(&mut session, "go").await;
    assert!(!project.root.path().join("notes.txt").exists());
    let requests = server.requests();
    let (child_system, _) = parts(&requests[1]);
    let offered: Vec<&str> = child_system
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .collect();
    assert_eq!(offered, vec!["Read", "Task"], "{child_system}");
    let (_, after) = parts(&requests[2]);
    assert!(after.contains("there is no tool named `Write`"), "{after}");
}

#[tokio::test]
async fn a_child_asks_in_the_mode_its_parent_is_in_now() {
    let project = Project::new();
    let server = serve(&[
        "Action: Task[{\"description\": \"write\", \"prompt\": \"write it\"}]",
        "Action: Write[{\"file_path\": \"notes.txt\", \"content\": \"hi\"}]",
        "Action: Finish[denied]",
        "Action: Finish[done]",
    ]);
    // Started in auto, switched to ask (Shift-Tab) before the round: the child asks, and with
    // no one to ask its write is denied.
    let mut session = project.session_with(&server, ApprovalMode::Auto);
    session.set_approval_mode(ApprovalMode::Ask);
    finish(&mut session, "go").await;
    assert!(!project.root.path().join("notes.txt").exists());
    let (_, after) = parts(&server.requests()[2]);
    assert!(after.contains("The user denied this action."), "{after}");
}

/// A tool from outside wright, as an MCP server's would be.
struct Outside;

impl wright_tools::Tool for Outside {
    fn name(&self) -> &str {
        "mcp__demo__echo"
    }
    fn kind(&self) -> wright_tools::ToolKind {
        wright_tools::ToolKind::Read
    }
    fn description(&self) -> &str {
        "Echoes its text."
    }
    fn schema(&self) -> Value {
        serde_json::json!({"type": "object"})
    }
    fn prepare(
        &self,
        args: Value,
        _: &wright_tools::ToolContext,
    ) -> Result<Box<dyn wright_tools::Prepared>, wright_protocol::ToolError> {
        Ok(Box::new(Echoed(args)))
    }
}

struct Echoed(Value);

impl wright_tools::Prepared for Echoed {
    fn run<'a>(
        self: Box<Self>,
        _: &'a wright_tools::ToolContext,
    ) -> futures::future::BoxFuture<'a, wright_protocol::ToolResult> {
        let text = format!("ECHO {}", self.0["text"].as_str().unwrap_or(""));
        Box::pin(std::future::ready(wright_protocol::ToolResult::success(
            text,
            Value::Null,
        )))
    }
}

#[tokio::test]
async fn tools_from_outside_join_the_session_agent_and_its_children() {
    let project = Project::new();
    let server = serve(&[
        "Action: mcp__demo__echo[{\"text\": \"hi\"}]",
        "Action: Task[{\"description\": \"look\", \"prompt\": \"look\"}]",
        "Action: Finish[child done]",
        "Action: Finish[done]",
    ]);
    let mut setup = project.setup(&server, 0);
    setup.external_tools = Some(Arc::new(|| {
        vec![Box::new(Outside) as Box<dyn wright_tools::Tool>]
    }));
    let sessions = Sessions::new(project.store(), AgentBuilder::new(setup).unwrap());
    let mut session = sessions.create(None).unwrap();
    finish(&mut session, "go").await;
    let requests = server.requests();
    let (system, _) = parts(&requests[0]);
    assert!(
        system.contains("## mcp__demo__echo\nEchoes its text."),
        "{system}"
    );
    let (_, next) = parts(&requests[1]);
    assert!(next.contains("ECHO hi"), "{next}");
    // A child with every tool gets them too (explore keeps its own short list).
    let (child_system, _) = parts(&requests[2]);
    assert!(
        child_system.contains("## mcp__demo__echo"),
        "{child_system}"
    );
}

#[tokio::test]
async fn a_childs_save_changes_neither_its_parents_l1_nor_its_own_and_a_new_session_sees_it() {
    use wright_store::memory::{MemoryPaths, MemoryScope};
    let project = Project::new();
    let paths = MemoryPaths::new(project.home.path(), project.root.path(), None);
    paths
        .file(MemoryScope::Project)
        .unwrap()
        .add(vec!["style".into()], "No unwrap.".into())
        .unwrap();
    let server = serve(&[
        "Thought: delegate\nAction: Task[{\"agent\": \"general\", \"description\": \"Note it\", \"prompt\": \"Save a note.\"}]",
        "Thought: save\nAction: Memory[{\"action\": \"save\", \"tags\": [\"build\"], \"content\": \"Build with make.\"}]",
        "Thought: and for the session\nAction: Memory[{\"action\": \"save\", \"scope\": \"session\", \"content\": \"Child was here.\"}]",
        "Thought: done\nAction: Finish[saved]",
        "Thought: look\nAction: Memory[{\"action\": \"retrieve\", \"query\": \"child\"}]",
        "Thought: ok\nAction: Finish[done]",
        "Action: Finish[fresh]",
    ]);
    let mut setup = project.setup(&server, 0);
    setup.memory = Some(paths);
    let sessions = Sessions::new(project.store(), AgentBuilder::new(setup).unwrap());
    let mut session = sessions.create(None).unwrap();
    finish(&mut session, "remember the build").await;

    let requests = server.requests();
    let (parent_first, _) = parts(&requests[0]);
    assert!(
        parent_first.contains("- project, 1 entry: style (1)"),
        "{parent_first}"
    );
    // The child ends its L1 with the index its parent's session fixed, before and after its save.
    let (child_first, _) = parts(&requests[1]);
    let (child_after, _) = parts(&requests[3]);
    assert!(child_first.contains("- project, 1 entry: style (1)"));
    assert_eq!(child_after, child_first);
    // The parent's L1 is the same bytes after its child saved, and it shares session memory.
    let (parent_after, _) = parts(&requests[4]);
    assert_eq!(parent_after, parent_first);
    let (_, rest_after_retrieve) = parts(&requests[5]);
    assert!(
        rest_after_retrieve.contains("Child was here."),
        "{rest_after_retrieve}"
    );

    // A session opened after it (what /clear does) starts with both entries in its index.
    let mut fresh = sessions.create(None).unwrap();
    finish(&mut fresh, "hello").await;
    let (fresh_system, _) = parts(&server.requests()[6]);
    assert!(
        fresh_system.contains("- project, 2 entries: build (1), style (1)"),
        "{fresh_system}"
    );
}
