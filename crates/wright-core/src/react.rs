//! The ReAct text protocol (DESIGN §2, spec E1): parsing `Thought:` / `Action: Tool[{json}]` /
//! `Action: Finish[answer]` replies, whole or as they stream.

use serde_json::Value;
use wright_protocol::{NativeToolCall, ToolCall};

/// The label that starts an action line.
const ACTION_LABEL: &str = "Action:";
/// The label models put before their reasoning; dropped from a plain answer.
const THOUGHT_LABEL: &str = "Thought:";
/// The pseudo-tool that ends a round.
pub const FINISH: &str = "Finish";
/// Stop sequence sent with every request so the model cannot invent observations (DESIGN §2).
pub const STOP_SEQUENCE: &str = "\nObservation:";

/// Reminder of the format, appended to every format error the model is shown.
pub const FORMAT_REMINDER: &str = "Reply with exactly one step in this format:\n\
Thought: <your reasoning>\n\
Action: <ToolName>[<arguments as one JSON object>]\n\
or, when you are done:\n\
Thought: <why you are done>\n\
Action: Finish[<your answer>]";

/// What the model asked for in one reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run a tool.
    Tool(ToolCall),
    /// End the round with this answer.
    Finish(String),
}

impl Action {
    /// The action line exactly as the model should write it; [`parse_reply`] reads it back.
    pub fn to_text(&self) -> String {
        match self {
            Action::Tool(call) => format!("{ACTION_LABEL} {}[{}]", call.tool, call.args),
            Action::Finish(answer) => {
                // An answer that itself looks like JSON is written as a JSON string so that it
                // reads back unchanged rather than being unwrapped.
                let looks_like_json = answer.starts_with('"') || answer.starts_with('{');
                if looks_like_json || answer.trim() != answer {
                    let quoted = Value::String(answer.clone()).to_string();
                    format!("{ACTION_LABEL} {FINISH}[{quoted}]")
                } else {
                    format!("{ACTION_LABEL} {FINISH}[{answer}]")
                }
            }
        }
    }
}

/// A model reply, understood.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A well-formed step.
    Step {
        /// The reply up to and including the action, as it goes into the transcript.
        text: String,
        /// The requested action.
        action: Action,
    },
    /// A reply without any `Action:` line: the final answer (DESIGN §9.6).
    Answer(String),
    /// An `Action:` line that could not be read.
    Malformed {
        /// The reply as written.
        text: String,
        /// What is wrong, addressed to the model.
        problem: String,
    },
}

/// The action line a native tool call (issue 19) would have been in the text protocol, so a
/// session that called tools natively reads on in text mode as if it had always been text:
/// `Action: Tool[arguments]`, the arguments as the model sent them (even malformed).
pub fn native_call_text(call: &NativeToolCall) -> String {
    format!("{ACTION_LABEL} {}[{}]", call.name, call.arguments.trim())
}

/// Parses a complete reply.
pub fn parse_reply(reply: &str) -> Reply {
    match find_action_line(reply, 0) {
        None => Reply::Answer(plain_answer(reply)),
        Some(start) => {
            let after_label = start + ACTION_LABEL.len();
            match parse_action(&reply[after_label..]) {
                Ok((action, consumed)) => Reply::Step {
                    text: reply[..after_label + consumed].trim().to_string(),
                    action,
                },
                Err(error) => Reply::Malformed {
                    text: reply.trim().to_string(),
                    problem: error.to_string(),
                },
            }
        }
    }
}

/// A reply without an action: drop a leading `Thought:` label, keep the rest.
fn plain_answer(reply: &str) -> String {
    let trimmed = reply.trim();
    trimmed
        .strip_prefix(THOUGHT_LABEL)
        .map(str::trim_start)
        .unwrap_or(trimmed)
        .to_string()
}

/// Byte offset of the action line in a reply, if it has one.
pub fn action_start(reply: &str) -> Option<usize> {
    find_action_line(reply, 0)
}

/// Byte offset of the first `Action:` that starts a line (indentation allowed) at or after `from`.
fn find_action_line(text: &str, from: usize) -> Option<usize> {
    let mut search = from;
    while let Some(found) = text[search..].find(ACTION_LABEL) {
        let at = search + found;
        let line_start = text[..at].rfind('\n').map_or(0, |nl| nl + 1);
        if text[line_start..at].chars().all(|c| c == ' ' || c == '\t') {
            return Some(at);
        }
        search = at + ACTION_LABEL.len();
    }
    None
}

/// Why an `Action:` line cannot be read; the message is what the model is told.
#[derive(Debug, thiserror::Error)]
enum ActionError {
    #[error("`Action:` must be followed by a tool name, e.g. `Action: Read[{{...}}]`.")]
    NoToolName,
    #[error(
        "`Action: {tool}` must be followed by `[` and the arguments, e.g. `Action: {tool}[{{...}}]`."
    )]
    NoBracket { tool: String },
    #[error(
        "the arguments of `{tool}` must be one JSON object inside the brackets: `{tool}[{{\"param\": \"value\"}}]`."
    )]
    NotAnObject { tool: String },
    #[error("the JSON arguments of `{tool}` are incomplete: a `}}` or a closing quote is missing.")]
    Incomplete { tool: String },
    #[error("the arguments of `{tool}` are not valid JSON: {source}.")]
    InvalidJson {
        tool: String,
        source: serde_json::Error,
    },
    #[error("expected `]` after the JSON arguments of `{tool}`; write one action per reply.")]
    NoClosingBracket { tool: String },
}

/// What the model is told when the arguments of `tool` are not valid JSON, in either protocol.
pub(crate) fn invalid_json(tool: &str, source: serde_json::Error) -> String {
    ActionError::InvalidJson {
        tool: tool.to_string(),
        source,
    }
    .to_string()
}

/// Parses what follows `Action:`; returns the action and how many bytes of `rest` it used.
fn parse_action(rest: &str) -> Result<(Action, usize), ActionError> {
    let name_start = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    let name_len = rest[name_start..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len() - name_start);
    let name = &rest[name_start..name_start + name_len];
    if name.is_empty() {
        return Err(ActionError::NoToolName);
    }
    let tool = || name.to_string();
    let after_name = name_start + name_len;
    let bracket = after_name + (rest[after_name..].len() - rest[after_name..].trim_start().len());
    if !rest[bracket..].starts_with('[') {
        return Err(ActionError::NoBracket { tool: tool() });
    }
    let body_start = bracket + 1;
    if name == FINISH {
        return Ok(parse_finish(rest, body_start));
    }
    let json_start =
        body_start + (rest[body_start..].len() - rest[body_start..].trim_start().len());
    if !rest[json_start..].starts_with('{') {
        return Err(ActionError::NotAnObject { tool: tool() });
    }
    let Some(json_len) = json_object_len(&rest[json_start..]) else {
        return Err(ActionError::Incomplete { tool: tool() });
    };
    let json_end = json_start + json_len;
    let args: Value = serde_json::from_str(&rest[json_start..json_end]).map_err(|source| {
        ActionError::InvalidJson {
            tool: tool(),
            source,
        }
    })?;
    let after_json = &rest[json_end..];
    let close = json_end + (after_json.len() - after_json.trim_start().len());
    let consumed = if rest[close..].starts_with(']') {
        close + 1
    } else if rest[close..].trim().is_empty() {
        // The closing bracket was lost (e.g. to the stop sequence); the call itself is whole.
        json_end
    } else {
        return Err(ActionError::NoClosingBracket { tool: tool() });
    };
    Ok((
        Action::Tool(ToolCall {
            tool: name.to_string(),
            args,
        }),
        consumed,
    ))
}

/// `Finish[...]` takes free text up to the last `]`; a JSON string (or `{"answer": ...}`) is unwrapped.
fn parse_finish(rest: &str, body_start: usize) -> (Action, usize) {
    let body = &rest[body_start..];
    let (inner, consumed) = match body.rfind(']') {
        Some(close) => (&body[..close], body_start + close + 1),
        None => (body, rest.len()),
    };
    let inner = inner.trim();
    let answer = match serde_json::from_str::<Value>(inner) {
        Ok(Value::String(text)) => text,
        Ok(Value::Object(map)) if map.len() == 1 => match map.get("answer") {
            Some(Value::String(text)) => text.clone(),
            _ => inner.to_string(),
        },
        _ => inner.to_string(),
    };
    (Action::Finish(answer), consumed)
}

/// Length in bytes of the JSON object at the start of `text`, found by scanning with string and
/// escape awareness so that brackets and quotes inside strings never end it. `None` if the
/// object does not close.
pub fn json_object_len(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Follows a reply as it streams and tells what may be shown to the user as thought: the text
/// before the `Action:` line. Text that could still turn out to be the start of an action line is
/// held back until it cannot. Work per pushed piece is proportional to the piece, so long replies
/// stream in linear time.
#[derive(Debug, Default)]
pub struct ReplyStream {
    text: String,
    /// Bytes of `text` already released as thought.
    shown: usize,
    /// Byte offset where the current (last) line starts.
    line_start: usize,
    /// Set once the action line has begun; nothing after it is thought.
    action_at: Option<usize>,
}

impl ReplyStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a piece of the reply; returns the newly showable thought text, if any.
    pub fn push(&mut self, piece: &str) -> Option<&str> {
        if self.action_at.is_some() {
            self.text.push_str(piece);
            return None;
        }
        let old_len = self.text.len();
        self.text.push_str(piece);
        // Check each line completed or extended by this piece for a leading `Action:`.
        let mut line_start = self.line_start;
        let mut scan = old_len;
        loop {
            let newline = self.text[scan..].find('\n').map(|i| scan + i);
            let line_end = newline.unwrap_or(self.text.len());
            if line_is_action(&self.text[line_start..line_end]) {
                self.action_at = Some(line_start);
                return self.release(line_start);
            }
            match newline {
                Some(nl) => {
                    line_start = nl + 1;
                    scan = nl + 1;
                }
                None => break,
            }
        }
        self.line_start = line_start;
        let tail = &self.text[line_start..];
        let undecided = ACTION_LABEL.starts_with(tail.trim_start_matches([' ', '\t']));
        let safe_end = if undecided {
            line_start
        } else {
            self.text.len()
        };
        self.release(safe_end)
    }

    /// Releases `text[shown..end]` as thought.
    fn release(&mut self, end: usize) -> Option<&str> {
        if end <= self.shown {
            return None;
        }
        let start = self.shown;
        self.shown = end;
        Some(&self.text[start..end])
    }

    /// The whole reply so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Text held back that turned out to be thought after all (the reply ended without an action
    /// line); call once the reply is complete.
    pub fn finish(&mut self) -> Option<&str> {
        match self.action_at {
            Some(_) => None,
            None => self.release(self.text.len()),
        }
    }

    /// Forgets everything (the provider is re-sending the request).
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// Whether a (possibly partial) line is an action line: `Action:` after optional indentation.
fn line_is_action(line: &str) -> bool {
    line.trim_start_matches([' ', '\t'])
        .starts_with(ACTION_LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn step(reply: &str) -> Action {
        match parse_reply(reply) {
            Reply::Step { action, .. } => action,
            other => panic!("expected a step, got {other:?}"),
        }
    }

    fn problem(reply: &str) -> String {
        match parse_reply(reply) {
            Reply::Malformed { problem, .. } => problem,
            other => panic!("expected a malformed reply, got {other:?}"),
        }
    }

    fn tool(name: &str, args: Value) -> Action {
        Action::Tool(ToolCall {
            tool: name.into(),
            args,
        })
    }

    #[test]
    fn reads_a_tool_action_and_keeps_the_step_text() {
        let reply =
            "Thought: look first\nAction: Read[{\"file_path\": \"a.rs\"}]\nsome trailing junk";
        assert_eq!(
            parse_reply(reply),
            Reply::Step {
                text: "Thought: look first\nAction: Read[{\"file_path\": \"a.rs\"}]".into(),
                action: tool("Read", json!({"file_path": "a.rs"})),
            }
        );
    }

    #[test]
    fn brackets_braces_and_quotes_inside_json_strings_do_not_end_the_action() {
        let reply = r#"Action: Bash[{"command": "echo \"]}\" [x] {y} \\"}]"#;
        assert_eq!(
            step(reply),
            tool("Bash", json!({"command": "echo \"]}\" [x] {y} \\"}))
        );
    }

    #[test]
    fn nested_arrays_and_objects_are_part_of_the_arguments() {
        let reply = r#"Action: TodoWrite[{"todos": [{"id": "1", "tags": ["a]"]}]}]"#;
        assert_eq!(
            step(reply),
            tool("TodoWrite", json!({"todos": [{"id": "1", "tags": ["a]"]}]}))
        );
    }

    #[test]
    fn finish_takes_free_text_up_to_the_last_bracket() {
        assert_eq!(
            step("Thought: done\nAction: Finish[Fixed `a[0]` in parse]"),
            Action::Finish("Fixed `a[0]` in parse".into())
        );
    }

    #[test]
    fn finish_unwraps_a_json_string_and_an_answer_object() {
        assert_eq!(
            step(r#"Action: Finish["line one\nline two"]"#),
            Action::Finish("line one\nline two".into())
        );
        assert_eq!(
            step(r#"Action: Finish[{"answer": "42"}]"#),
            Action::Finish("42".into())
        );
    }

    #[test]
    fn finish_without_closing_bracket_takes_the_rest() {
        assert_eq!(
            step("Action: Finish[all good"),
            Action::Finish("all good".into())
        );
    }

    #[test]
    fn a_reply_without_action_is_the_answer() {
        assert_eq!(
            parse_reply("Thought: The answer is 4.\n"),
            Reply::Answer("The answer is 4.".into())
        );
        assert_eq!(parse_reply("Just 4."), Reply::Answer("Just 4.".into()));
    }

    #[test]
    fn action_mentioned_mid_line_is_not_an_action() {
        assert_eq!(
            parse_reply("I will write Action: Read[...] next time."),
            Reply::Answer("I will write Action: Read[...] next time.".into())
        );
    }

    #[test]
    fn indented_action_line_is_accepted() {
        assert_eq!(
            step("Thought: x\n  Action: Bash[{\"command\": \"ls\"}]"),
            tool("Bash", json!({"command": "ls"}))
        );
    }

    #[test]
    fn missing_closing_bracket_after_complete_json_is_tolerated() {
        assert_eq!(
            step("Action: Read[{\"file_path\": \"a\"}\n"),
            tool("Read", json!({"file_path": "a"}))
        );
    }

    #[test]
    fn bad_json_is_malformed_and_names_the_tool() {
        let message = problem("Action: Read[{\"file_path\": 'a'}]");
        assert!(
            message.contains("arguments of `Read` are not valid JSON"),
            "{message}"
        );
    }

    #[test]
    fn unclosed_json_is_malformed() {
        let message = problem("Action: Bash[{\"command\": \"ls]");
        assert!(message.contains("incomplete"), "{message}");
    }

    #[test]
    fn missing_bracket_is_malformed() {
        let message = problem("Action: Read {\"file_path\": \"a\"}");
        assert!(message.contains("must be followed by `[`"), "{message}");
    }

    #[test]
    fn non_object_arguments_are_malformed() {
        let message = problem("Action: Read[\"a.rs\"]");
        assert!(message.contains("one JSON object"), "{message}");
    }

    #[test]
    fn text_after_the_json_is_malformed() {
        let message = problem("Action: Read[{\"file_path\": \"a\"} Action: Read[{}]]");
        assert!(message.contains("expected `]`"), "{message}");
    }

    #[test]
    fn empty_action_is_malformed() {
        let message = problem("Thought: hm\nAction:\n");
        assert!(message.contains("tool name"), "{message}");
    }

    #[test]
    fn problems_are_told_to_the_model_word_for_word() {
        let cases = [
            (
                "Action:\n",
                "`Action:` must be followed by a tool name, e.g. `Action: Read[{...}]`.",
            ),
            (
                "Action: Read {}",
                "`Action: Read` must be followed by `[` and the arguments, e.g. `Action: Read[{...}]`.",
            ),
            (
                "Action: Read[1]",
                "the arguments of `Read` must be one JSON object inside the brackets: `Read[{\"param\": \"value\"}]`.",
            ),
            (
                "Action: Bash[{\"command\": \"ls]",
                "the JSON arguments of `Bash` are incomplete: a `}` or a closing quote is missing.",
            ),
            (
                "Action: Read[{} x]",
                "expected `]` after the JSON arguments of `Read`; write one action per reply.",
            ),
            (
                "Action: Read[{'a': 1}]",
                "the arguments of `Read` are not valid JSON: key must be a string at line 1 column 2.",
            ),
        ];
        for (reply, expected) in cases {
            assert_eq!(problem(reply), expected, "{reply}");
        }
    }

    #[test]
    fn json_object_len_respects_escapes() {
        assert_eq!(json_object_len(r#"{"a": "\\"} tail"#), Some(11));
        assert_eq!(json_object_len(r#"{"a": "\"}"#), None);
        assert_eq!(json_object_len("}"), None);
    }

    fn stream_in_pieces(reply: &str, size: usize) -> (String, String) {
        let mut stream = ReplyStream::new();
        let mut shown = String::new();
        let chars: Vec<char> = reply.chars().collect();
        for piece in chars.chunks(size) {
            let piece: String = piece.iter().collect();
            if let Some(text) = stream.push(&piece) {
                shown.push_str(text);
            }
        }
        if let Some(text) = stream.finish() {
            shown.push_str(text);
        }
        (shown, stream.text().to_string())
    }

    #[test]
    fn stream_shows_the_thought_and_never_the_action_line() {
        let reply = "Thought: read it\nthen act\nAction: Read[{\"file_path\": \"a\"}]";
        for size in 1..=reply.len() {
            let (shown, whole) = stream_in_pieces(reply, size);
            assert_eq!(shown, "Thought: read it\nthen act\n", "piece size {size}");
            assert_eq!(whole, reply);
        }
    }

    #[test]
    fn stream_releases_held_back_text_when_it_is_not_an_action() {
        let reply = "Thought: x\nAct now.\nActually fine";
        for size in 1..=reply.len() {
            let (shown, _) = stream_in_pieces(reply, size);
            assert_eq!(shown, reply, "piece size {size}");
        }
    }

    #[test]
    fn stream_reset_forgets_everything() {
        let mut stream = ReplyStream::new();
        stream.push("Thought: a\nAction: Re");
        stream.reset();
        assert_eq!(stream.push("Thought: b"), Some("Thought: b"));
        assert_eq!(stream.text(), "Thought: b");
    }
}
