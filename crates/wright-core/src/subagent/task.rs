//! The `Task` tool: runs sub-agents, each in a fresh context and a session of its own, and
//! gives back only their answers.

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, Event, FailureCode, ToolError, ToolResult, Usage};
use wright_store::{Record, SessionStore};
use wright_tools::{Prepared, Tool, ToolContext, ToolKind};

use crate::approval::Approvals;
use crate::cost::{format_usd, session_cost};
use crate::history::HistoryManager;
use crate::round::RoundOutcome;
use crate::session::{AgentBuilder, Place};

use super::{AgentCatalog, AgentDefinition, AgentProfile, catalog::GENERAL};

/// The tool's description, `{{agents}}` standing for the list of agents.
const DESCRIPTION: &str = include_str!("../../../../prompts/tools/task.md");
/// The most tasks one call may give.
const MAX_TASKS: usize = 8;

/// How sub-agents run (`[agents]` in the settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubagentSettings {
    /// How deep sub-agents may nest: 1 lets the session's agent run sub-agents that run none,
    /// 2 (the default) lets those run their own once more; 0 turns the Task tool off.
    pub max_depth: u32,
    /// Read-only agents of one call that run at the same time.
    pub concurrency: usize,
}

impl Default for SubagentSettings {
    fn default() -> Self {
        Self {
            max_depth: 2,
            concurrency: 4,
        }
    }
}

/// What a Task call needs to make and run its sub-agents.
pub(crate) struct TaskRunner {
    /// Builds the children, as the session's own agent was built.
    pub builder: AgentBuilder,
    /// Where the children's sessions go.
    pub store: SessionStore,
    /// The session whose agent makes the calls.
    pub parent: String,
    /// The environment block of the parent's session, which the children's L1 ends with too.
    pub environment: String,
    /// The depth of the children (1 for the session agent's).
    pub depth: u32,
    /// The list of agents in the Task tool's description, as the session recorded it.
    pub listing: String,
    /// The tools the calling agent may use, which bound its children's; `None` for all.
    pub allowed: Option<Vec<String>>,
    /// The calling agent's approval state, which its children share.
    pub approvals: Approvals,
    /// The session's memory, which its children share.
    pub memory: crate::memory::SessionMemory,
    /// The index of memory the session fixed, which ends the children's L1 too.
    pub memory_index: String,
}

/// The `Task` tool of one agent.
pub struct TaskTool {
    runner: Arc<TaskRunner>,
    description: String,
}

impl TaskTool {
    pub(crate) fn new(runner: TaskRunner) -> Self {
        let description = DESCRIPTION.replace("{{agents}}", &runner.listing);
        Self {
            runner: Arc::new(runner),
            description,
        }
    }
}

/// `tools` with a stand-in for the Task tool listing `agents`, for showing a session's L1
/// without running anything (`wright context`).
pub(crate) fn with_task_description(
    mut tools: wright_tools::ToolRegistry,
    agents: &str,
) -> wright_tools::ToolRegistry {
    tools.register(Box::new(DescribedTask(
        DESCRIPTION.replace("{{agents}}", agents),
    )));
    tools
}

/// The Task tool as L1 describes it, for a registry that is only shown: every call fails.
struct DescribedTask(String);

impl Tool for DescribedTask {
    fn name(&self) -> &str {
        "Task"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &str {
        &self.0
    }

    fn schema(&self) -> Value {
        json!({"type": "object"})
    }

    fn prepare(&self, _: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Err(tool_error(
            ErrorCode::Other,
            "sub-agents run only in a session (`wright exec`, the interactive session)",
        ))
    }
}

/// The catalog's agents as the Task tool's description lists them, one line each.
pub fn agent_listing(catalog: &AgentCatalog) -> String {
    catalog
        .agents()
        .iter()
        .map(|agent| {
            let access = if agent.read_only { " (read-only)" } else { "" };
            format!("- `{}`{access}: {}", agent.name, agent.description)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One task as the model gives it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskArgs {
    #[serde(default)]
    agent: Option<String>,
    description: String,
    prompt: String,
}

/// The arguments: one task, or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Args {
    Many { tasks: Vec<TaskArgs> },
    One(TaskArgs),
}

/// One task, its agent found.
#[derive(Debug, Clone)]
struct Job {
    agent: AgentDefinition,
    description: String,
    prompt: String,
}

impl Tool for TaskTool {
    fn name(&self) -> &str {
        "Task"
    }

    /// The call itself only reads; what its agents do is asked about by them, step by step,
    /// and [`Prepared::kind`] says whether any of them can change files.
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn schema(&self) -> Value {
        let task = json!({
            "type": "object",
            "properties": {
                "agent": {"type": "string", "description": "The agent; default `general`."},
                "description": {"type": "string", "description": "The task in 3-8 words."},
                "prompt": {"type": "string", "description": "The full, self-contained task."}
            },
            "required": ["description", "prompt"]
        });
        json!({
            "type": "object",
            "properties": {
                "agent": task["properties"]["agent"].clone(),
                "description": task["properties"]["description"].clone(),
                "prompt": task["properties"]["prompt"].clone(),
                "tasks": {
                    "type": "array",
                    "items": task,
                    "description": "Several tasks instead of one; answers in this order."
                }
            }
        })
    }

    fn prepare(&self, args: Value, ctx: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: Args = serde_json::from_value(args).map_err(|e| {
            invalid(format!(
                "Task takes {{\"agent\"?, \"description\", \"prompt\"}} or {{\"tasks\": [...]}}: {e}"
            ))
        })?;
        let tasks = match args {
            Args::One(task) => vec![task],
            Args::Many { tasks } => tasks,
        };
        if tasks.is_empty() || tasks.len() > MAX_TASKS {
            return Err(invalid(format!(
                "give 1 to {MAX_TASKS} tasks, not {}",
                tasks.len()
            )));
        }
        let catalog = self.runner.builder.catalog();
        let mut jobs = Vec::with_capacity(tasks.len());
        for task in tasks {
            let name = task.agent.as_deref().unwrap_or(GENERAL);
            let Some(agent) = catalog.get(name) else {
                return Err(invalid(format!(
                    "there is no agent named `{name}`; the agents are: {}",
                    catalog.names().join(", ")
                )));
            };
            if task.prompt.trim().is_empty() {
                return Err(invalid(
                    "a task's `prompt` is empty: say what the agent is to do",
                ));
            }
            if ctx.is_read_only() && !agent.read_only {
                return Err(tool_error(
                    ErrorCode::Refused,
                    format!(
                        "only read-only agents run here (plan mode or a read-only agent), and \
                         `{name}` can change files; use `explore`, or put the change in your \
                         answer"
                    ),
                ));
            }
            jobs.push(Job {
                agent: agent.clone(),
                description: task.description.trim().to_string(),
                prompt: task.prompt,
            });
        }
        Ok(Box::new(TaskCall {
            runner: Arc::clone(&self.runner),
            jobs,
        }))
    }
}

fn tool_error(code: ErrorCode, message: impl Into<String>) -> ToolError {
    ToolError {
        code,
        message: message.into(),
    }
}

fn invalid(message: impl Into<String>) -> ToolError {
    tool_error(ErrorCode::InvalidArguments, message)
}

/// A Task call ready to run.
struct TaskCall {
    runner: Arc<TaskRunner>,
    jobs: Vec<Job>,
}

impl Prepared for TaskCall {
    fn kind(&self) -> Option<ToolKind> {
        // An agent that can write makes the call one that changes files: the parent takes a
        // checkpoint before it, so undo takes back what the children changed.
        let writes = self.jobs.iter().any(|job| !job.agent.read_only);
        Some(if writes {
            ToolKind::Execute
        } else {
            ToolKind::Read
        })
    }

    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let TaskCall { runner, jobs } = *self;
            let several = jobs.len() > 1;
            let outcomes = runner.run_all(jobs, ctx).await;
            if several {
                many_result(&outcomes)
            } else {
                match outcomes.into_iter().next() {
                    Some(outcome) => outcome.result(),
                    None => ToolResult::error(ErrorCode::Other, "no task ran"),
                }
            }
        })
    }
}

/// How one task ended.
struct Outcome {
    agent: String,
    description: String,
    session: Option<String>,
    /// The answer, or why there is none.
    ended: Result<String, (ErrorCode, String)>,
    steps: u32,
    usage: Usage,
    cost_usd: Option<f64>,
    /// What its calls (and its own sub-agents') used, per model.
    spent: Vec<(String, Usage)>,
}

impl Outcome {
    fn failed(job: &Job, code: ErrorCode, message: String) -> Self {
        Self {
            agent: job.agent.name.clone(),
            description: job.description.clone(),
            session: None,
            ended: Err((code, message)),
            steps: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
            spent: Vec::new(),
        }
    }

    /// `[explore · 4 steps · 12,345 tokens · $0.0123]`
    fn note(&self) -> String {
        let steps = wright_protocol::text::plural(self.steps as usize, "step");
        let cost = self
            .cost_usd
            .map(|cost| format!(" · {}", format_usd(cost)))
            .unwrap_or_default();
        format!(
            "[{} · {steps} · {} tokens{cost}]",
            self.agent, self.usage.total_tokens
        )
    }

    fn data(&self) -> Value {
        let (answer, error) = match &self.ended {
            Ok(answer) => (Some(answer.as_str()), None),
            Err((_, message)) => (None, Some(message.as_str())),
        };
        json!({
            "agent": self.agent,
            "description": self.description,
            "answer": answer,
            "error": error,
            "steps": self.steps,
            "tokens": self.usage.total_tokens,
            "cost_usd": self.cost_usd,
            "session": self.session,
        })
    }

    /// The observation of a call with this one task.
    fn result(self) -> ToolResult {
        let note = self.note();
        match &self.ended {
            Ok(answer) => {
                let mut result = ToolResult::success(format!("{answer}\n\n{note}"), self.data());
                result.stats = spent_stats(std::slice::from_ref(&self));
                result
            }
            Err((code, message)) => {
                let message = format!("{message}\n{note}");
                let mut result = ToolResult::error(*code, message);
                result.data = self.data();
                result.stats = spent_stats(std::slice::from_ref(&self));
                result
            }
        }
    }
}

/// The observation of a call with several tasks: each answer under its own heading, in the
/// order given; an error only when none answered.
fn many_result(outcomes: &[Outcome]) -> ToolResult {
    let mut text = String::new();
    for (i, outcome) in outcomes.iter().enumerate() {
        let body = match &outcome.ended {
            Ok(answer) => answer.clone(),
            Err((code, message)) => format!("Error ({code}): {message}"),
        };
        if i > 0 {
            text.push_str("\n\n");
        }
        text.push_str(&format!(
            "## Task {}: {} ({})\n{body}\n{}",
            i + 1,
            outcome.description,
            outcome.agent,
            outcome.note()
        ));
    }
    let data = json!({"tasks": outcomes.iter().map(Outcome::data).collect::<Vec<_>>()});
    let answered = outcomes.iter().filter(|o| o.ended.is_ok()).count();
    let mut result = if answered > 0 {
        ToolResult::success(text, data)
    } else {
        let mut result = ToolResult::error(
            ErrorCode::Other,
            format!(
                "none of the {} tasks gave an answer:\n\n{text}",
                outcomes.len()
            ),
        );
        result.data = data;
        result
    };
    result.stats = spent_stats(outcomes);
    result
}

/// The key of a result's `stats` under which a Task call says what its sub-agents used, per
/// model, for the parent's session to record ([`subagent_spending`]).
const SPENT_KEY: &str = "subagents";

/// `{"subagents": [{"model": …, "usage": …}, …]}`: what `outcomes` used, per model.
fn spent_stats(outcomes: &[Outcome]) -> Value {
    let mut spent: Vec<(String, Usage)> = Vec::new();
    for (model, usage) in outcomes.iter().flat_map(|o| o.spent.iter()) {
        match spent.iter_mut().find(|(m, _)| m == model) {
            Some((_, total)) => total.add(usage),
            None => spent.push((model.clone(), *usage)),
        }
    }
    let entries: Vec<Value> = spent
        .into_iter()
        .map(|(model, usage)| json!({"model": model, "usage": usage}))
        .collect();
    json!({ SPENT_KEY: entries })
}

/// What the sub-agents of a finished call used, per model, as its `stats` say (nothing for
/// any other tool's result).
pub(crate) fn subagent_spending(stats: &Value) -> Vec<(String, Usage)> {
    stats[SPENT_KEY]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| {
                    let model = entry["model"].as_str()?.to_string();
                    let usage = serde_json::from_value(entry["usage"].clone()).ok()?;
                    Some((model, usage))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a sub-agent's event is shown to the user: its steps, questions, warnings and end,
/// not its streamed text or per-call usage (the Task call's note sums that up).
fn shown(event: &Event) -> bool {
    !matches!(
        event,
        Event::AssistantDelta { .. }
            | Event::ReasoningDelta { .. }
            | Event::Usage { .. }
            | Event::SessionStarted { .. }
            | Event::RoundStarted { .. }
    )
}

/// The usage of `records`, summed per model (a record naming none is `default_model`'s).
fn spent_per_model(records: &[Record], default_model: &str) -> Vec<(String, Usage)> {
    let mut spent: Vec<(String, Usage)> = Vec::new();
    for record in records {
        let Record::Usage { usage, model, .. } = record else {
            continue;
        };
        let model = model.as_deref().unwrap_or(default_model);
        match spent.iter_mut().find(|(m, _)| m == model) {
            Some((_, total)) => total.add(usage),
            None => spent.push((model.to_string(), *usage)),
        }
    }
    spent
}

impl TaskRunner {
    /// Runs `jobs` in order: a run of read-only agents at the same time (at most the
    /// configured number at once), an agent that can write alone. Outcomes in the order given.
    async fn run_all(&self, jobs: Vec<Job>, ctx: &ToolContext) -> Vec<Outcome> {
        let concurrency = self.builder.subagent_settings().concurrency.max(1);
        let mut outcomes = Vec::with_capacity(jobs.len());
        let mut pending = jobs.into_iter().peekable();
        while let Some(job) = pending.next() {
            if !job.agent.read_only {
                outcomes.push(self.run_one(&job, ctx).await);
                continue;
            }
            let mut batch = vec![job];
            while let Some(next) = pending.next_if(|next| next.agent.read_only) {
                batch.push(next);
            }
            // Made before they are streamed: a closure in the stream's type would have to be
            // proved `Send` for every lifetime, which the compiler cannot do for it.
            let runs: Vec<BoxFuture<'_, Outcome>> = batch
                .iter()
                .map(|job| Box::pin(self.run_one(job, ctx)) as BoxFuture<'_, Outcome>)
                .collect();
            let done: Vec<Outcome> = futures::stream::iter(runs)
                .buffered(concurrency)
                .collect()
                .await;
            outcomes.extend(done);
        }
        outcomes
    }

    /// Runs one sub-agent to its answer, in a session of its own under the parent's.
    async fn run_one(&self, job: &Job, ctx: &ToolContext) -> Outcome {
        if ctx.cancellation().is_cancelled() {
            return Outcome::failed(
                job,
                ErrorCode::Interrupted,
                "interrupted by the user before it started".into(),
            );
        }
        let (meta, file) =
            match self
                .store
                .create_child(&self.parent, &job.agent.name, &job.description)
            {
                Ok(created) => created,
                Err(e) => {
                    return Outcome::failed(
                        job,
                        ErrorCode::Io,
                        format!("the sub-agent's session cannot be created: {e}"),
                    );
                }
            };
        let profile = AgentProfile::of(&job.agent);
        let mut child_ctx = ctx.for_child();
        if job.agent.read_only {
            child_ctx = child_ctx.with_read_only(true);
        }
        let place = Place {
            session: &meta.id,
            environment: &self.environment,
            agents: &self.listing,
            depth: self.depth,
            allowed: self.allowed.as_deref(),
            approvals: Some(&self.approvals),
            memory: &self.memory,
            memory_index: &self.memory_index,
        };
        let built =
            self.builder
                .assemble(HistoryManager::new(Some(file)), child_ctx, &profile, &place);
        let mut agent = match built {
            Ok(agent) => agent,
            Err(e) => {
                return Outcome::failed(
                    job,
                    ErrorCode::Other,
                    format!("the agent cannot start: {e}"),
                );
            }
        };
        let (agent_name, description) = (job.agent.name.clone(), job.description.clone());
        let mut forward = |event: Event| {
            if shown(&event) {
                ctx.emit(Event::Subagent {
                    step: 0,
                    agent: agent_name.clone(),
                    description: description.clone(),
                    event: Box::new(event),
                });
            }
        };
        let outcome = agent.run_round(&job.prompt, &mut forward).await;
        let cost = session_cost(
            agent.history().usage_records(),
            agent.model(),
            self.builder.prices(),
        );
        let (ended, steps) = match outcome {
            RoundOutcome::Finished { answer, steps, .. } => (Ok(answer), steps),
            RoundOutcome::Failed { code, message } => {
                let code = match code {
                    FailureCode::Interrupted => ErrorCode::Interrupted,
                    _ => ErrorCode::Other,
                };
                let message = format!(
                    "the `{}` agent stopped without an answer: {message}",
                    job.agent.name
                );
                (Err((code, message)), cost.steps.calls as u32)
            }
        };
        Outcome {
            agent: job.agent.name.clone(),
            description: job.description.clone(),
            session: Some(meta.id),
            ended,
            steps,
            usage: cost.total.usage,
            cost_usd: cost.total.cost_usd,
            spent: spent_per_model(agent.history().usage_records(), agent.model()),
        }
    }
}
