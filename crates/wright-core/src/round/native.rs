//! A step under the native tool protocol (issue 19): the tools go to the provider as tool
//! definitions, the model calls them through its tool-call API, and a reply that calls none is
//! the answer.
//!
//! History stays protocol-neutral: the reply is stored (spec D3: before any call runs) as an
//! assistant message with its calls in `metadata.tool_calls`, each result as a tool message
//! with the call's id; the text protocol renders the same messages as `Action:` lines. Each call
//! is one scratchpad step and one history tool message, compressed as in text mode (A2/A3).
//! Arguments that are not a JSON object get the same observation as a malformed `Action:` line.
//! The calls of one reply run one after another, in order, unless every one only reads
//! (`Read`, `Grep`, `Glob`, `LS`, read-only MCP tools, read-only `Task`s): those run side by side
//! and their results are kept in the reply's order.

use serde_json::Value;
use wright_llm::{Completion, FinishReason};
use wright_protocol::{
    Event, Message, MessageMetadata, NativeToolCall, ToolCall, ToolDefinition, ToolResult,
};

use wright_tools::ToolRegistry;

use crate::compaction::estimate_tokens;
use crate::error::RoundError;
use crate::plan;
use crate::react::invalid_json;
use crate::tiers::tool_message;
use crate::trim::history_call;

use super::step::{StepRecord, interrupted_history_form};
use super::{Round, ToolProtocol, jobs};

/// What a malformed native call's observation ends with, as [`crate::react::FORMAT_REMINDER`]
/// ends a malformed text step's.
pub(crate) const NATIVE_FORMAT_REMINDER: &str = "Call a tool through the tool-calling interface, \
with its arguments as one JSON object that matches the tool's schema; to give your final answer, \
reply with text and call no tool.";

/// Said of arguments cut short by the output-token limit.
const CUT_SHORT: &str = "Your reply reached the output-token limit while writing them, so they \
were cut short: make smaller calls (write a large file in parts: Write the first part, then Edit \
to add the rest).";

/// Tools that only read but must not run beside another call: they speak to the user or change
/// state whose order matters (the agent's list, what a job's output was last read up to).
const ONE_AT_A_TIME: [&str; 3] = ["AskUser", "TodoWrite", "BashOutput"];

/// A native call's arguments as the tool takes them: one JSON object (an empty string, which
/// some servers send for a call without arguments, is `{}`); otherwise what is wrong, worded
/// as the text protocol words it.
pub(crate) fn parse_arguments(call: &NativeToolCall) -> Result<Value, String> {
    let raw = call.arguments.trim();
    if raw.is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    let tool = &call.name;
    match serde_json::from_str::<Value>(raw) {
        Ok(args @ Value::Object(_)) => Ok(args),
        Ok(_) => Err(format!(
            "the arguments of `{tool}` must be one JSON object, e.g. {{\"param\": \"value\"}}."
        )),
        Err(error) => Err(invalid_json(tool, error)),
    }
}

impl Round<'_> {
    /// Chooses the tools this round's requests offer: none in the text protocol; natively,
    /// those L1 would describe (plan mode's in plan mode), with their token estimate.
    pub(super) fn offer_tools(&mut self) {
        let agent = &*self.agent;
        self.offered = match agent.config.tool_protocol {
            ToolProtocol::Text => Vec::new(),
            ToolProtocol::Native => offered_tools(&agent.tools, agent.planning),
        };
        self.offered_estimate = definitions_estimate(&self.offered);
    }

    /// Handles a reply under the native protocol: `Some(answer)` when it calls no tool,
    /// otherwise runs its calls and keeps each as a step (`None`: the round goes on).
    pub(super) async fn native_step(
        &mut self,
        completion: &Completion,
    ) -> Result<Option<String>, RoundError> {
        let text = completion.text.trim();
        let calls = &completion.tool_calls;
        if calls.is_empty() {
            if text.is_empty() {
                let record = StepRecord::format_error(
                    completion.text.clone(),
                    "your reply was empty.",
                    NATIVE_FORMAT_REMINDER,
                );
                self.keep(record);
                return Ok(None);
            }
            self.store(Message::assistant(text), None);
            return Ok(Some(text.to_string()));
        }
        // D3: the reply is written before any call runs, its calls as history keeps them.
        let stored_calls = calls
            .iter()
            .map(|call| history_call(call, self.agent.tools.get(&call.name)))
            .collect();
        self.store_with(
            Message::assistant(text),
            MessageMetadata {
                tool_calls: stored_calls,
                ..MessageMetadata::default()
            },
        );
        // A reply cut by the output limit is not continued once it calls tools: arguments cut
        // short say why, so the model writes less per call rather than the same again.
        let cut = completion.finish_reason == FinishReason::Length;
        let parsed: Vec<Result<ToolCall, String>> = calls
            .iter()
            .map(|call| {
                parse_arguments(call)
                    .map(|args| ToolCall {
                        tool: call.name.clone(),
                        args,
                    })
                    .map_err(|problem| {
                        if cut {
                            format!("{problem} {CUT_SHORT}")
                        } else {
                            problem
                        }
                    })
            })
            .collect();
        let malformed_before = self.malformed_in_a_row;
        let mut all_malformed = true;
        // Every call readable and only reading: side by side, unless one turns out to write.
        let together = if self.side_by_side(&parsed) {
            let runnable: Vec<ToolCall> = parsed.iter().flatten().cloned().collect();
            let results = self.run_tools_side_by_side(&runnable).await;
            results.map(|results| (runnable, results))
        } else {
            None
        };
        if let Some((runnable, results)) = together {
            let interrupted = self.agent.cancellation().is_cancelled()
                || results.len() < runnable.len()
                || results.iter().any(Option::is_none);
            if interrupted {
                self.store_interrupted(calls, &parsed, results);
                return Err(RoundError::Interrupted);
            }
            let ran = calls
                .iter()
                .zip(runnable)
                .zip(results.into_iter().flatten());
            for (i, ((native, call), result)) in ran.enumerate() {
                all_malformed &= self.keep_call(i, completion, native, Ok((call, result)));
            }
        } else {
            // One after another, each result written as soon as it is there (spec D3): a
            // kill loses only the call running.
            for (i, native) in calls.iter().enumerate() {
                let outcome = match &parsed[i] {
                    Err(problem) => Err(problem.clone()),
                    Ok(call) => {
                        let result = if self.agent.cancellation().is_cancelled() {
                            None
                        } else {
                            self.run_tool(call).await
                        };
                        match result {
                            Some(result) if !self.agent.cancellation().is_cancelled() => {
                                Ok((call.clone(), result))
                            }
                            result => {
                                self.store_interrupted(&calls[i..], &parsed[i..], vec![result]);
                                return Err(RoundError::Interrupted);
                            }
                        }
                    }
                };
                all_malformed &= self.keep_call(i, completion, native, outcome);
            }
        }
        self.malformed_in_a_row = if all_malformed {
            malformed_before + 1
        } else {
            0
        };
        Ok(None)
    }

    /// Keeps the `i`-th call of the reply `completion` as a step: its result, or the problem
    /// with its arguments (already written with the reply, so only the error result is kept).
    /// The reply's first call carries the reply for the scratchpad. Says whether the call
    /// counts as malformed.
    fn keep_call(
        &mut self,
        i: usize,
        completion: &Completion,
        native: &NativeToolCall,
        outcome: Result<(ToolCall, ToolResult), String>,
    ) -> bool {
        let assistant = if i == 0 {
            completion.text.clone()
        } else {
            String::new()
        };
        let record = match outcome {
            Ok((call, mut result)) => {
                jobs::tell_with_result(&mut result, self.agent.take_ended_jobs());
                let reminder = self.rule_reminders(&call, &result);
                StepRecord::tool_step(assistant, call, result, NATIVE_FORMAT_REMINDER)
                    .with_reminder(reminder)
            }
            Err(problem) => {
                self.sink.emit(Event::FormatError {
                    step: self.step,
                    message: problem.clone(),
                });
                StepRecord {
                    stored_text: None,
                    tool: Some(native.name.clone()),
                    ..StepRecord::format_error(assistant, &problem, NATIVE_FORMAT_REMINDER)
                }
            }
        };
        let malformed = record.malformed;
        let reply_calls = if i == 0 {
            completion.tool_calls.clone()
        } else {
            Vec::new()
        };
        self.keep(record.answering(&native.id, reply_calls));
        malformed
    }

    /// Whether the calls of one reply run side by side: more than one, every one readable and
    /// of a tool that only reads (and may run beside others).
    fn side_by_side(&self, parsed: &[Result<ToolCall, String>]) -> bool {
        parsed.len() > 1
            && parsed.iter().all(|call| {
                call.as_ref().is_ok_and(|call| {
                    !ONE_AT_A_TIME.contains(&call.tool.as_str())
                        && self
                            .agent
                            .tools
                            .get(&call.tool)
                            .is_some_and(|tool| tool.kind().is_read_only())
                })
            })
    }

    /// After Ctrl-C: every call of the reply gets its result in history, so the reply stays
    /// whole for the provider — what a call returned before it was stopped, or that it was
    /// interrupted (or never ran, or could not be read).
    fn store_interrupted(
        &mut self,
        calls: &[NativeToolCall],
        parsed: &[Result<ToolCall, String>],
        results: Vec<Option<ToolResult>>,
    ) {
        let mut results = results.into_iter();
        for (native, parsed) in calls.iter().zip(parsed) {
            let stored = match parsed {
                Ok(call) => interrupted_history_form(&call.tool, results.next().flatten().as_ref()),
                Err(problem) => StepRecord::format_error(String::new(), problem, "").compressed,
            };
            self.store_with(
                tool_message(&stored),
                MessageMetadata {
                    tool_name: Some(native.name.clone()),
                    tool_call_id: Some(native.id.clone()),
                    ..MessageMetadata::default()
                },
            );
        }
    }
}

/// The tool definitions a native request offers: every tool of `tools`, or in plan mode
/// those plan mode offers, their descriptions without the text protocol's examples.
pub(crate) fn offered_tools(tools: &ToolRegistry, planning: bool) -> Vec<ToolDefinition> {
    let mut offered = if planning {
        tools.definitions_where(plan::offers)
    } else {
        tools.definitions_where(|_| true)
    };
    for definition in &mut offered {
        definition.description = native_description(&definition.name, &definition.description);
    }
    offered
}

/// A tool's description for the native protocol: its text-protocol examples
/// (`Example:` then `Action: Name[{...}]`) become `Example arguments: {...}`.
pub(crate) fn native_description(name: &str, description: &str) -> String {
    let action = format!("Action: {name}[");
    let lines: Vec<&str> = description.lines().collect();
    let mut native = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let example_follows = lines
            .get(i + 1)
            .is_some_and(|next| next.starts_with(&action));
        if *line == "Example:" && example_follows {
            continue;
        }
        native.push(match line.strip_prefix(&action) {
            Some(rest) => format!(
                "Example arguments: {}",
                rest.strip_suffix(']').unwrap_or(rest)
            ),
            None => (*line).to_string(),
        });
    }
    native.join("\n")
}

/// The token estimate of tool definitions as a request carries them (their JSON, spec A6's
/// `len // 3`).
pub(crate) fn definitions_estimate(definitions: &[ToolDefinition]) -> u64 {
    definitions
        .iter()
        .map(|definition| {
            serde_json::to_string(definition).map_or(0, |json| estimate_tokens(&json))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn examples_become_argument_objects() {
        let description = "Reads a file.\n\nExample:\nAction: Read[{\"file_path\": \"a\"}]";
        assert_eq!(
            native_description("Read", description),
            "Reads a file.\n\nExample arguments: {\"file_path\": \"a\"}"
        );
        // Another tool's action line, or prose mentioning one, is left alone.
        let other = "Example:\nAction: Bash[{}]";
        assert_eq!(native_description("Read", other), other);
    }

    #[test]
    fn arguments_must_be_one_json_object() {
        let call = |arguments: &str| NativeToolCall::new("c", "Read", arguments);
        assert_eq!(parse_arguments(&call("  ")), Ok(serde_json::json!({})));
        assert_eq!(
            parse_arguments(&call(r#"{"file_path": "a"}"#)),
            Ok(serde_json::json!({"file_path": "a"}))
        );
        assert_eq!(
            parse_arguments(&call(r#"["a"]"#)),
            Err(
                "the arguments of `Read` must be one JSON object, e.g. {\"param\": \"value\"}."
                    .into()
            )
        );
        let error = parse_arguments(&call(r#"{"file_path": "a""#)).unwrap_err();
        assert!(
            error.starts_with("the arguments of `Read` are not valid JSON: EOF"),
            "{error}"
        );
    }
}
