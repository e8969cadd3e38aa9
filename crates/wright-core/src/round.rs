//! The round loop: from a user message to the model's final answer, one ReAct step at a time.

use tokio_util::sync::CancellationToken;
use wright_llm::{ChatMessage, ChatRequest, LlmClient, StreamEvent};
use wright_protocol::{ErrorCode, Event, FailureCode, ToolCall, ToolResult, Usage};
use wright_tools::{ToolContext, ToolRegistry};

use crate::prompt::system_prompt;
use crate::react::{Action, FORMAT_REMINDER, Reply, ReplyStream, STOP_SEQUENCE, parse_reply};
use crate::summary::result_summary;

/// Default cap on model calls in one round.
pub const DEFAULT_MAX_STEPS: u32 = 50;
/// Malformed replies in a row that end a round (DESIGN §2).
pub const MAX_MALFORMED_REPLIES: u32 = 3;

/// How a round is run.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Model calls allowed in one round before it is stopped.
    pub max_steps: u32,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_steps: DEFAULT_MAX_STEPS,
        }
    }
}

/// How a round ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundOutcome {
    /// The model answered.
    Finished {
        /// The answer.
        answer: String,
        /// Model calls made.
        steps: u32,
        /// Tokens billed over the round.
        usage: Usage,
    },
    /// The round stopped without an answer.
    Failed {
        /// Why, for programs.
        code: FailureCode,
        /// Why, for people.
        message: String,
    },
}

/// The agent: a model, the tools, and the project they work in.
pub struct Agent {
    llm: LlmClient,
    tools: ToolRegistry,
    ctx: ToolContext,
    system: String,
    config: AgentConfig,
}

impl Agent {
    /// An agent over `tools` in the project of `ctx`; the system prompt is built once here, so
    /// every request of the session starts with the same bytes.
    pub fn new(llm: LlmClient, tools: ToolRegistry, ctx: ToolContext, config: AgentConfig) -> Self {
        let system = system_prompt(&tools);
        Self {
            llm,
            tools,
            ctx,
            system,
            config,
        }
    }

    /// The system prompt (layer L1) every request starts with.
    pub fn system_prompt(&self) -> &str {
        &self.system
    }

    fn cancellation(&self) -> &CancellationToken {
        self.ctx.cancellation()
    }

    /// Runs one round for `prompt`, reporting each step to `events`. Ends early with
    /// [`FailureCode::Interrupted`] once the tool context's cancellation token fires.
    pub async fn run_round(
        &self,
        prompt: &str,
        events: &mut (dyn FnMut(Event) + Send),
    ) -> RoundOutcome {
        events(Event::RoundStarted {
            prompt: prompt.to_string(),
        });
        let mut scratchpad = vec![ChatMessage::user(prompt)];
        let mut usage = Usage::default();
        let mut malformed_in_a_row = 0;
        for step in 1..=self.config.max_steps {
            let request = ChatRequest {
                system: self.system.clone(),
                messages: scratchpad.clone(),
                stop: vec![STOP_SEQUENCE.to_string()],
            };
            let completion = match self.call_model(&request, events).await {
                Ok(completion) => completion,
                Err(outcome) => return self.fail(outcome, events),
            };
            if let Some(call_usage) = &completion.usage {
                usage.add(call_usage);
                events(Event::usage(call_usage));
            }
            let (text, observation, malformed) = match parse_reply(&completion.text) {
                Reply::Answer(answer) if answer.is_empty() => (
                    completion.text.clone(),
                    format!("Error: your reply was empty.\n{FORMAT_REMINDER}"),
                    true,
                ),
                Reply::Answer(answer)
                | Reply::Step {
                    action: Action::Finish(answer),
                    ..
                } => return self.finish(answer, step, usage, events),
                Reply::Step {
                    text,
                    action: Action::Tool(call),
                } => {
                    let result = self.run_tool(step, &call, events).await;
                    if self.cancellation().is_cancelled() {
                        return self.fail(interrupted(), events);
                    }
                    let malformed = is_malformed_call(&result);
                    let observation = if malformed {
                        format!("{}\n{FORMAT_REMINDER}", result.text)
                    } else {
                        result.text
                    };
                    (text, observation, malformed)
                }
                Reply::Malformed { text, problem } => {
                    events(Event::FormatError {
                        step,
                        message: problem.clone(),
                    });
                    let observation = format!(
                        "Error: your action could not be read: {problem}\n{FORMAT_REMINDER}"
                    );
                    (text, observation, true)
                }
            };
            malformed_in_a_row = if malformed { malformed_in_a_row + 1 } else { 0 };
            if malformed_in_a_row >= MAX_MALFORMED_REPLIES {
                let message = format!(
                    "The model wrote {MAX_MALFORMED_REPLIES} malformed replies in a row, so the round was stopped. \
                     The model may not follow the Thought/Action format; try a stronger model (--model)."
                );
                return self.fail((FailureCode::MalformedReplies, message), events);
            }
            scratchpad.push(ChatMessage::assistant(text));
            scratchpad.push(ChatMessage::user(format!("Observation: {observation}")));
        }
        let message = format!(
            "Stopped after {} steps without an answer. Raise `max_steps` in .wright/config.toml, \
             or split the task into smaller requests.",
            self.config.max_steps
        );
        self.fail((FailureCode::MaxSteps, message), events)
    }

    /// One model call, streaming its thought to `events`.
    async fn call_model(
        &self,
        request: &ChatRequest,
        events: &mut (dyn FnMut(Event) + Send),
    ) -> Result<wright_llm::Completion, (FailureCode, String)> {
        let mut stream = ReplyStream::new();
        let mut on_event = |event: StreamEvent| match event {
            StreamEvent::Text(piece) => {
                if let Some(thought) = stream.push(&piece) {
                    events(Event::AssistantDelta {
                        text: thought.to_string(),
                    });
                }
            }
            StreamEvent::Reasoning(piece) => events(Event::ReasoningDelta { text: piece }),
            StreamEvent::Retry {
                attempt,
                max_attempts,
                reason,
                delay,
            } => {
                stream.reset();
                events(Event::Retry {
                    attempt,
                    max_attempts,
                    reason,
                    delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                });
            }
            StreamEvent::Continuation { attempt } => events(Event::Continuation { attempt }),
        };
        let result = tokio::select! {
            result = self.llm.complete(request, &mut on_event) => result,
            () = self.cancellation().cancelled() => return Err(interrupted()),
        };
        let completion = result.map_err(|e| (FailureCode::Provider, e.to_string()))?;
        if let Some(rest) = stream.finish() {
            events(Event::AssistantDelta {
                text: rest.to_string(),
            });
        }
        Ok(completion)
    }

    /// Runs a tool call (unknown tools included: the registry answers those with an error).
    async fn run_tool(
        &self,
        step: u32,
        call: &ToolCall,
        events: &mut (dyn FnMut(Event) + Send),
    ) -> ToolResult {
        events(Event::ToolCall {
            step,
            tool: call.tool.clone(),
            args: call.args.clone(),
        });
        let result = self.tools.run(call, &self.ctx).await;
        events(Event::ToolResult {
            step,
            tool: call.tool.clone(),
            status: result.status,
            summary: result_summary(&result),
        });
        result
    }

    fn finish(
        &self,
        answer: String,
        steps: u32,
        usage: Usage,
        events: &mut (dyn FnMut(Event) + Send),
    ) -> RoundOutcome {
        events(Event::RoundFinished {
            answer: answer.clone(),
            steps,
            usage,
        });
        RoundOutcome::Finished {
            answer,
            steps,
            usage,
        }
    }

    fn fail(
        &self,
        (code, message): (FailureCode, String),
        events: &mut (dyn FnMut(Event) + Send),
    ) -> RoundOutcome {
        events(Event::Error {
            code,
            message: message.clone(),
        });
        RoundOutcome::Failed { code, message }
    }
}

fn interrupted() -> (FailureCode, String) {
    (FailureCode::Interrupted, "Interrupted.".to_string())
}

/// A call that names no tool or gives arguments the tool cannot take counts as a malformed reply.
fn is_malformed_call(result: &ToolResult) -> bool {
    matches!(
        result.error.as_ref().map(|e| e.code),
        Some(ErrorCode::UnknownTool | ErrorCode::InvalidArguments)
    )
}
