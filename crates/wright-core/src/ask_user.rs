//! AskUser: the model asks the user one question, with choices or without, and reads the
//! answer as the observation (`data.answer`).
//!
//! The tools know nothing about the user, so this tool lives here, next to approvals: the
//! question goes to the agent's [`Approver`] ([`Approver::ask`]), which the interactive
//! terminal answers with a picker. Where no one can answer (`wright exec`, an approver that
//! does not take questions) the call fails with [`NO_ONE_TO_ANSWER`], and the model decides
//! itself. Ctrl-C while the question is open interrupts the round, as it does at an approval.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolError, ToolResult};
use wright_tools::{Prepared, Tool, ToolContext, ToolKind, ToolRegistry};

use crate::approval::Approver;

/// The tool's name, as the model writes it after `Action:`.
pub const ASK_USER: &str = "AskUser";

/// Most choices a question may offer: a picker longer than this is a questionnaire.
pub const MAX_CHOICES: usize = 6;

/// Longest question, in characters (model output: bounded before anyone shows it).
const MAX_QUESTION_CHARS: usize = 2_000;

/// Longest choice, in characters.
const MAX_CHOICE_CHARS: usize = 200;

/// The error observation where no one can answer.
pub const NO_ONE_TO_ANSWER: &str =
    "no one can answer (non-interactive); decide yourself and say what you assumed";

/// The error observation when the user dismisses the question.
pub const DECLINED: &str = "the user declined to answer; decide yourself and say what you assumed";

const SHAPE: &str = r#"{"question": string, "choices"?: [string], "multi"?: boolean}"#;

/// A question the model asks the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserQuestion {
    /// The question.
    pub question: String,
    /// The likely answers, at most [`MAX_CHOICES`]; the user may type another one. Empty: a
    /// free answer only.
    pub choices: Vec<String>,
    /// Whether several choices may be picked.
    pub multi: bool,
}

/// What came of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserAnswer {
    /// The user picked these choices (one, unless the question allows several).
    Chose(Vec<String>),
    /// The user typed an answer of their own.
    Typed(String),
    /// The user dismissed the question.
    Declined,
    /// No one can answer here.
    NoOne,
}

/// The AskUser tool, answered by `answerer` (none: no one can answer).
pub struct AskUserTool {
    answerer: Option<Arc<dyn Approver>>,
}

impl AskUserTool {
    /// The tool, with its questions going to `answerer`.
    pub fn new(answerer: Option<Arc<dyn Approver>>) -> Self {
        Self { answerer }
    }
}

/// Adds AskUser, answered by `answerer`, at the end of a session's `tools` (the agents a
/// session builds, and the L1 `wright context` shows for it).
pub(crate) fn register(tools: &mut ToolRegistry, answerer: Option<Arc<dyn Approver>>) {
    tools.register(Box::new(AskUserTool::new(answerer)));
}

#[derive(Debug, Deserialize, JsonSchema)]
struct AskUserArgs {
    question: String,
    #[serde(default)]
    choices: Vec<String>,
    #[serde(default)]
    multi: bool,
}

impl Tool for AskUserTool {
    fn name(&self) -> &str {
        ASK_USER
    }

    /// It changes nothing, so plan mode and read-only agents keep it.
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &str {
        include_str!("../../../prompts/tools/ask_user.md")
    }

    fn schema(&self) -> Value {
        wright_tools::schema_of::<AskUserArgs>()
    }

    /// One question at a time: the user answers them one by one.
    fn concurrency_safe(&self) -> bool {
        false
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: AskUserArgs = wright_tools::parse_args(ASK_USER, args, SHAPE)?;
        let question = question(args)?;
        Ok(Box::new(AskCall {
            question,
            answerer: self.answerer.clone(),
        }))
    }
}

/// The checked question, or why the arguments will not do.
fn question(args: AskUserArgs) -> Result<UserQuestion, ToolError> {
    let invalid = |problem: &str| wright_tools::invalid(ASK_USER, problem, SHAPE);
    let text = args.question.trim();
    if text.is_empty() {
        return Err(invalid("`question` is empty"));
    }
    if text.chars().count() > MAX_QUESTION_CHARS {
        return Err(invalid(&format!(
            "`question` is longer than {MAX_QUESTION_CHARS} characters; ask one short question"
        )));
    }
    if args.choices.len() > MAX_CHOICES {
        return Err(invalid(&format!(
            "{} choices; offer at most {MAX_CHOICES}",
            args.choices.len()
        )));
    }
    let mut choices: Vec<String> = Vec::with_capacity(args.choices.len());
    for choice in &args.choices {
        let choice = choice.trim();
        if choice.is_empty() {
            return Err(invalid("a choice is empty"));
        }
        if choice.chars().count() > MAX_CHOICE_CHARS {
            return Err(invalid(&format!(
                "a choice is longer than {MAX_CHOICE_CHARS} characters; keep each to a few words"
            )));
        }
        if !choices.iter().any(|c| c == choice) {
            choices.push(choice.to_string());
        }
    }
    Ok(UserQuestion {
        question: text.to_string(),
        multi: args.multi && !choices.is_empty(),
        choices,
    })
}

/// One question, ready to be put.
struct AskCall {
    question: UserQuestion,
    answerer: Option<Arc<dyn Approver>>,
}

impl Prepared for AskCall {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let AskCall { question, answerer } = *self;
            let answer = match answerer {
                None => UserAnswer::NoOne,
                Some(answerer) => {
                    tokio::select! {
                        // Ctrl-C closes the question too: the interruption, not the closed
                        // question, is what happened.
                        biased;
                        () = ctx.cancellation().cancelled() => {
                            return ToolResult::error(
                                ErrorCode::Interrupted,
                                "the user interrupted the round while the question was open",
                            );
                        }
                        answer = answerer.ask(question.clone()) => answer,
                    }
                }
            };
            result(&question, answer)
        })
    }
}

/// The observation of `answer` to `question`.
fn result(question: &UserQuestion, answer: UserAnswer) -> ToolResult {
    match answer {
        UserAnswer::Chose(chosen) if question.multi => ToolResult::success(
            format!("The user chose: {}", chosen.join("; ")),
            json!({ "answer": chosen }),
        ),
        UserAnswer::Chose(chosen) => {
            let answer = chosen.join("; ");
            ToolResult::success(
                format!("The user answered: {answer}"),
                json!({ "answer": answer }),
            )
        }
        UserAnswer::Typed(text) => ToolResult::success(
            format!("The user answered: {text}"),
            json!({ "answer": text }),
        ),
        UserAnswer::Declined => ToolResult::error(ErrorCode::Unanswered, DECLINED),
        UserAnswer::NoOne => ToolResult::error(ErrorCode::Unanswered, NO_ONE_TO_ANSWER),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn parsed(args: Value) -> Result<UserQuestion, String> {
        wright_tools::parse_args::<AskUserArgs>(ASK_USER, args, SHAPE)
            .and_then(question)
            .map_err(|e| e.message)
    }

    #[test]
    fn a_question_is_read_with_its_choices_trimmed_and_deduplicated() {
        assert_eq!(
            parsed(json!({"question": " Which? ", "choices": ["a", " b ", "a"], "multi": true})),
            Ok(UserQuestion {
                question: "Which?".into(),
                choices: vec!["a".into(), "b".into()],
                multi: true,
            })
        );
        assert_eq!(
            parsed(json!({"question": "Why?", "multi": true})),
            Ok(UserQuestion {
                question: "Why?".into(),
                choices: Vec::new(),
                multi: false,
            }),
            "several of no choices is a free answer"
        );
    }

    #[test]
    fn too_many_choices_an_empty_question_or_a_long_choice_are_invalid() {
        let seven: Vec<String> = (1..=7).map(|n| n.to_string()).collect();
        for (args, problem) in [
            (
                json!({"question": "?", "choices": seven}),
                "7 choices; offer at most 6",
            ),
            (json!({"question": "  "}), "`question` is empty"),
            (
                json!({"question": "?", "choices": ["x".repeat(201)]}),
                "a choice is longer",
            ),
            (json!({"choices": ["a"]}), "missing field `question`"),
        ] {
            let message = parsed(args).unwrap_err();
            assert!(message.contains(problem), "{message}");
            assert!(
                message.contains("Expected: AskUser[{\"question\""),
                "{message}"
            );
        }
    }

    #[test]
    fn each_answer_has_its_observation() {
        let single = UserQuestion {
            question: "On or off?".into(),
            choices: vec!["on".into(), "off".into()],
            multi: false,
        };
        let on = result(&single, UserAnswer::Chose(vec!["on".into()]));
        assert_eq!(on.text, "The user answered: on");
        assert_eq!(on.data, json!({"answer": "on"}));
        let typed = result(&single, UserAnswer::Typed("neither".into()));
        assert_eq!(typed.data, json!({"answer": "neither"}));

        let multi = UserQuestion {
            multi: true,
            ..single.clone()
        };
        let both = result(&multi, UserAnswer::Chose(vec!["on".into(), "off".into()]));
        assert_eq!(both.text, "The user chose: on; off");
        assert_eq!(both.data, json!({"answer": ["on", "off"]}));

        let declined = result(&single, UserAnswer::Declined);
        assert_eq!(
            declined.text,
            "Error (unanswered): the user declined to answer; decide yourself and say what you \
             assumed"
        );
        let no_one = result(&single, UserAnswer::NoOne);
        assert_eq!(
            no_one.error.map(|e| (e.code, e.message)),
            Some((ErrorCode::Unanswered, NO_ONE_TO_ANSWER.to_string()))
        );
    }
}
