//! Renders scripted responses in the OpenAI Responses wire format (`POST .../responses`), the
//! only format Codex CLI speaks.
//!
//! A reply is a `response` object whose `output` holds items: a `reasoning` item (the scripted
//! reasoning, as a summary), a `message` item (the text) and one `function_call` item per tool
//! call (`custom_tool_call` for a custom tool's). Streamed, each item is announced
//! (`response.output_item.added`), filled by deltas and closed (`response.output_item.done`),
//! between `response.created` and `response.completed` (`response.incomplete` for the finish
//! reason `length`); every event carries a `sequence_number` and there is no `[DONE]`.

use serde_json::{Value, json};

use crate::openai;
use crate::script::{ScriptedResponse, ScriptedToolCall};
use crate::wire::{EventKind, RequestInfo, SseEvent};

/// The `id` of every response.
const RESPONSE_ID: &str = "resp_testkit";

/// The `id` of the message item.
const MESSAGE_ID: &str = "msg_testkit";

/// The `id` of the reasoning item.
const REASONING_ID: &str = "rs_testkit";

/// The scripted finish reason that ends a response as `incomplete` (cut by the token limit).
const LENGTH_FINISH_REASON: &str = "length";

/// `incomplete_details.reason` of a response cut by the token limit.
const MAX_OUTPUT_TOKENS: &str = "max_output_tokens";

/// The Responses API reports errors in the Chat Completions shape.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    openai::error_body(status, message)
}

/// A whole `response` object, as a non-streaming request gets it.
pub(crate) fn message_body(response: &ScriptedResponse, request: &RequestInfo) -> Value {
    let outcome = Outcome::of(response);
    let output = output_items(response)
        .iter()
        .map(|item| item.done(outcome))
        .collect();
    response_object(request, Some(outcome), output, usage_json(response))
}

/// The event stream: `response.created`, `response.in_progress`, each output item's events,
/// then `response.completed` (or `response.incomplete`).
pub(crate) fn stream_events(response: &ScriptedResponse, request: &RequestInfo) -> Vec<SseEvent> {
    let outcome = Outcome::of(response);
    let items = output_items(response);
    let pending = response_object(request, None, Vec::new(), Value::Null);
    let mut events = vec![
        (
            EventKind::Frame,
            json!({ "type": "response.created", "response": pending }),
        ),
        (
            EventKind::Frame,
            json!({ "type": "response.in_progress", "response": pending }),
        ),
    ];
    for (output_index, item) in items.iter().enumerate() {
        item_events(response, item, output_index, outcome, &mut events);
    }
    let output = items.iter().map(|item| item.done(outcome)).collect();
    let finished = response_object(request, Some(outcome), output, usage_json(response));
    let terminal = match outcome {
        Outcome::Completed => "response.completed",
        Outcome::Incomplete => "response.incomplete",
    };
    events.push((
        EventKind::Final,
        json!({ "type": terminal, "response": finished }),
    ));

    events
        .into_iter()
        .enumerate()
        .map(|(sequence_number, (kind, mut data))| {
            let name = data["type"].as_str().unwrap_or_default().to_string();
            if let Some(object) = data.as_object_mut() {
                object.insert("sequence_number".into(), json!(sequence_number));
            }
            SseEvent::named(kind, &name, &data)
        })
        .collect()
}

/// How the response ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// `status: "completed"`, ended by `response.completed`.
    Completed,
    /// `status: "incomplete"` (the finish reason `length`), ended by `response.incomplete`.
    Incomplete,
}

impl Outcome {
    fn of(response: &ScriptedResponse) -> Outcome {
        if response.finish_reason == LENGTH_FINISH_REASON {
            Outcome::Incomplete
        } else {
            Outcome::Completed
        }
    }

    /// The `status` of the response and of its finished items.
    fn status(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Incomplete => "incomplete",
        }
    }
}

/// One item of a response's `output`.
#[derive(Debug, Clone, Copy)]
enum OutputItem<'a> {
    /// The scripted reasoning, as a reasoning summary.
    Reasoning(&'a str),
    /// The reply text, as one `output_text` part.
    Message(&'a str),
    /// A native tool call, a `function_call` item or (for a custom tool) a `custom_tool_call`
    /// item; `index` numbers the calls of the reply from 0.
    ToolCall {
        index: usize,
        call: &'a ScriptedToolCall,
    },
}

impl OutputItem<'_> {
    fn id(&self) -> String {
        match self {
            OutputItem::Reasoning(_) => REASONING_ID.to_string(),
            OutputItem::Message(_) => MESSAGE_ID.to_string(),
            OutputItem::ToolCall { index, call } if call.custom => format!("ctc_testkit_{index}"),
            OutputItem::ToolCall { index, .. } => format!("fc_testkit_{index}"),
        }
    }

    /// The item as `response.output_item.added` announces it: nothing generated yet.
    fn added(&self) -> Value {
        let id = self.id();
        match self {
            OutputItem::Reasoning(_) => json!({ "id": id, "type": "reasoning", "summary": [] }),
            OutputItem::Message(_) => json!({
                "id": id,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }),
            OutputItem::ToolCall { call, .. } => tool_call_item(id, call, "in_progress", ""),
        }
    }

    /// The finished item, as `response.output_item.done` and the final `output` carry it.
    fn done(&self, outcome: Outcome) -> Value {
        let id = self.id();
        match self {
            OutputItem::Reasoning(text) => json!({
                "id": id,
                "type": "reasoning",
                "summary": [summary_part(text)],
            }),
            OutputItem::Message(text) => json!({
                "id": id,
                "type": "message",
                "status": outcome.status(),
                "role": "assistant",
                "content": [text_part(text)],
            }),
            OutputItem::ToolCall { call, .. } => {
                tool_call_item(id, call, outcome.status(), &call.arguments)
            }
        }
    }
}

/// A `function_call` item with `arguments`, or a `custom_tool_call` item with `input`.
fn tool_call_item(id: String, call: &ScriptedToolCall, status: &str, arguments: &str) -> Value {
    let (kind, field) = if call.custom {
        ("custom_tool_call", "input")
    } else {
        ("function_call", "arguments")
    };
    json!({
        "id": id,
        "type": kind,
        "status": status,
        "call_id": call.id,
        "name": call.name,
        field: arguments,
    })
}

/// The reply's output items in order: reasoning, the message (unless the reply is only tool
/// calls), the tool calls.
fn output_items(response: &ScriptedResponse) -> Vec<OutputItem<'_>> {
    let mut items = Vec::new();
    if let Some(reasoning) = &response.reasoning {
        items.push(OutputItem::Reasoning(reasoning));
    }
    if response.has_text_block() {
        items.push(OutputItem::Message(&response.text));
    }
    items.extend(
        response
            .tool_calls
            .iter()
            .enumerate()
            .map(|(index, call)| OutputItem::ToolCall { index, call }),
    );
    items
}

/// Appends the events that stream `item` (at `output_index`), from `output_item.added` to
/// `output_item.done`.
fn item_events(
    response: &ScriptedResponse,
    item: &OutputItem<'_>,
    output_index: usize,
    outcome: Outcome,
    events: &mut Vec<(EventKind, Value)>,
) {
    let item_id = item.id();
    let frame = |kind: &str, fields: Value| {
        let mut data = json!({ "type": kind, "item_id": item_id, "output_index": output_index });
        if let (Some(data), Value::Object(fields)) = (data.as_object_mut(), fields) {
            data.extend(fields);
        }
        data
    };
    events.push((
        EventKind::Frame,
        json!({
            "type": "response.output_item.added",
            "output_index": output_index,
            "item": item.added(),
        }),
    ));
    match item {
        OutputItem::Reasoning(text) => {
            let part = |text: &str| json!({ "summary_index": 0, "part": summary_part(text) });
            events.push((
                EventKind::Frame,
                frame("response.reasoning_summary_part.added", part("")),
            ));
            for piece in response.reasoning_pieces() {
                events.push((
                    EventKind::ContentDelta,
                    frame(
                        "response.reasoning_summary_text.delta",
                        json!({ "summary_index": 0, "delta": piece }),
                    ),
                ));
            }
            events.push((
                EventKind::Frame,
                frame(
                    "response.reasoning_summary_text.done",
                    json!({ "summary_index": 0, "text": text }),
                ),
            ));
            events.push((
                EventKind::Frame,
                frame("response.reasoning_summary_part.done", part(text)),
            ));
        }
        OutputItem::Message(text) => {
            let part = |text: &str| json!({ "content_index": 0, "part": text_part(text) });
            events.push((
                EventKind::Frame,
                frame("response.content_part.added", part("")),
            ));
            for piece in response.text_pieces() {
                events.push((
                    EventKind::ContentDelta,
                    frame(
                        "response.output_text.delta",
                        json!({ "content_index": 0, "delta": piece, "logprobs": [] }),
                    ),
                ));
            }
            events.push((
                EventKind::Frame,
                frame(
                    "response.output_text.done",
                    json!({ "content_index": 0, "text": text, "logprobs": [] }),
                ),
            ));
            events.push((
                EventKind::Frame,
                frame("response.content_part.done", part(text)),
            ));
        }
        OutputItem::ToolCall { call, .. } => {
            let (delta, done, done_fields) = if call.custom {
                (
                    "response.custom_tool_call_input.delta",
                    "response.custom_tool_call_input.done",
                    json!({ "input": call.arguments }),
                )
            } else {
                (
                    "response.function_call_arguments.delta",
                    "response.function_call_arguments.done",
                    json!({ "name": call.name, "arguments": call.arguments }),
                )
            };
            for piece in response.argument_pieces(call) {
                events.push((
                    EventKind::ContentDelta,
                    frame(delta, json!({ "delta": piece })),
                ));
            }
            events.push((EventKind::Frame, frame(done, done_fields)));
        }
    }
    events.push((
        EventKind::Frame,
        json!({
            "type": "response.output_item.done",
            "output_index": output_index,
            "item": item.done(outcome),
        }),
    ));
}

fn text_part(text: &str) -> Value {
    json!({ "type": "output_text", "text": text, "annotations": [] })
}

fn summary_part(text: &str) -> Value {
    json!({ "type": "summary_text", "text": text })
}

/// A `response` object: `in_progress` (empty, no usage) until it has an outcome.
fn response_object(
    request: &RequestInfo,
    outcome: Option<Outcome>,
    output: Vec<Value>,
    usage: Value,
) -> Value {
    let status = outcome.map_or("in_progress", Outcome::status);
    let incomplete_details = match outcome {
        Some(Outcome::Incomplete) => json!({ "reason": MAX_OUTPUT_TOKENS }),
        Some(Outcome::Completed) | None => Value::Null,
    };
    json!({
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 0,
        "status": status,
        "model": request.model,
        "output": output,
        "usage": usage,
        "error": null,
        "incomplete_details": incomplete_details,
    })
}

/// The `usage` object, or `null` when none is scripted. The Responses API always sends the
/// details objects, so unscripted cached tokens are 0.
fn usage_json(response: &ScriptedResponse) -> Value {
    let Some(usage) = response.usage else {
        return Value::Null;
    };
    json!({
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": { "cached_tokens": usage.cached_tokens.unwrap_or(0) },
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": { "reasoning_tokens": 0 },
        "total_tokens": usage.prompt_tokens.saturating_add(usage.completion_tokens),
    })
}
