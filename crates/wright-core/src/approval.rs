//! Approvals: before a Bash command or a file change runs, unless the approval mode allows its
//! kind, the user is shown the command or the diff and asked — once, always (for this kind of
//! action, for the rest of the session), or no, with a reason the model is told. A denied
//! action never runs.
//!
//! The core only asks; how the question is put to a person is an [`Approver`]'s business (the
//! interactive terminal implements one). With no approver, an action that needs approval is
//! denied with [`NO_APPROVER_REASON`]. The approver also answers the model's own questions
//! ([`crate::ask_user`]).

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use wright_protocol::{ApprovalVerdict, ErrorCode, Event, ToolCall, ToolResult};
use wright_tools::{PreparedCall, ToolContext};

pub use wright_protocol::ActionKind;

use crate::ask_user::{UserAnswer, UserQuestion};
use crate::round::EventSink;

/// The reason a denial gives when an action needs approval and nobody can give it.
pub const NO_APPROVER_REASON: &str = "no one to ask (non-interactive); run with --approval auto";

/// What the model is told after any denial, so it does not ask again for the same thing.
const AFTER_DENIAL: &str = "Do not retry the same action; ask the user or take another approach.";

/// Which actions run without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Ask before every command and every file change (the interactive session's default).
    Ask,
    /// File changes run without asking; commands are asked about.
    AutoEdit,
    /// Everything runs without asking (the default of `wright exec`).
    Auto,
}

impl ApprovalMode {
    /// Every mode, in order of how much runs without asking.
    pub const ALL: [ApprovalMode; 3] = [
        ApprovalMode::Ask,
        ApprovalMode::AutoEdit,
        ApprovalMode::Auto,
    ];

    /// The mode as written in flags and settings: `ask`, `auto-edit`, `auto`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Ask => "ask",
            ApprovalMode::AutoEdit => "auto-edit",
            ApprovalMode::Auto => "auto",
        }
    }

    /// Whether actions of `kind` run without asking in this mode.
    pub fn allows(self, kind: ActionKind) -> bool {
        match self {
            ApprovalMode::Ask => false,
            ApprovalMode::AutoEdit => kind == ActionKind::FileChange,
            ApprovalMode::Auto => true,
        }
    }
}

impl fmt::Display for ApprovalMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an approval mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval mode {0:?}: expected `ask`, `auto-edit` or `auto`")]
pub struct UnknownApprovalMode(pub String);

impl FromStr for ApprovalMode {
    type Err = UnknownApprovalMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ApprovalMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == s)
            .ok_or_else(|| UnknownApprovalMode(s.to_string()))
    }
}

/// An action waiting for the user's decision.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// 1-based step within the round.
    pub step: u32,
    /// The tool, e.g. `Bash`.
    pub tool: String,
    /// The model's arguments for it.
    pub args: serde_json::Value,
    /// Command or file change.
    pub kind: ActionKind,
    /// What would happen: the command for Bash, the unified diff for a file change.
    pub preview: String,
    /// Why the safety check flags it (rule and reason), if it does: then the user is asked
    /// whatever the mode, and "always" does not cover later flagged actions.
    pub concern: Option<String>,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run this action.
    Once,
    /// Run this action, and every later one of its kind in this session without asking.
    Always,
    /// Do not run it; the reason, if any, is passed to the model.
    Deny {
        /// Why, in the user's words.
        reason: Option<String>,
    },
}

impl Decision {
    /// The decision as the `approval_decided` event names it.
    pub fn verdict(&self) -> ApprovalVerdict {
        match self {
            Decision::Once => ApprovalVerdict::Once,
            Decision::Always => ApprovalVerdict::Always,
            Decision::Deny { .. } => ApprovalVerdict::Denied,
        }
    }
}

/// Whoever decides: the interactive terminal asks its user; tests answer from a script.
pub trait Approver: Send + Sync {
    /// Decides on one action. The round waits for the answer (or for Ctrl-C, which ends the
    /// round as interrupted and drops the future).
    fn decide(&self, request: ApprovalRequest) -> BoxFuture<'static, Decision>;

    /// Answers the model's question ([`AskUser`](crate::ask_user)), waited for like
    /// [`decide`](Self::decide). By default no one can answer.
    fn ask(&self, question: UserQuestion) -> BoxFuture<'static, UserAnswer> {
        let _ = question;
        Box::pin(std::future::ready(UserAnswer::NoOne))
    }
}

/// The observation the model gets for a denied action.
pub fn denial_message(reason: Option<&str>) -> String {
    let mut message = "The user denied this action.".to_string();
    if let Some(reason) = reason.map(str::trim).filter(|r| !r.is_empty()) {
        message.push_str(" Reason: ");
        message.push_str(reason);
        if !reason.ends_with(['.', '!', '?']) {
            message.push('.');
        }
    }
    message.push(' ');
    message.push_str(AFTER_DENIAL);
    message
}

/// The result of a denied call: an error with code `denied` whose observation is exactly the
/// [`denial_message`].
fn denied_result(call: &ToolCall, reason: Option<&str>) -> ToolResult {
    let message = denial_message(reason);
    let mut result = ToolResult::error(ErrorCode::Denied, message.clone());
    result.text = message;
    result.context = call.args.clone();
    result
}

/// What the round does with a call after asking.
#[derive(Debug)]
pub(crate) enum Gate {
    /// Run the tool.
    Run,
    /// Do not run it; this is its result.
    Denied(Box<ToolResult>),
    /// The user interrupted while the question was open.
    Interrupted,
    /// A check flagged it and no one may allow it here: refuse it with the check's reason.
    Refused,
}

/// An agent's approval state: its mode, who to ask, and the kinds approved "always".
///
/// Clones share the mode and the kinds approved "always": a sub-agent asks as its parent
/// does at the time (a mode switched with Shift-Tab reaches the children the parent runs from
/// then on), and "always" said to a child holds for the session.
#[derive(Clone)]
pub(crate) struct Approvals {
    state: Arc<Mutex<ApprovalState>>,
    approver: Option<Arc<dyn Approver>>,
    /// Held while a question is open.
    turn: Arc<tokio::sync::Mutex<()>>,
}

/// What [`Approvals`] clones share.
struct ApprovalState {
    mode: ApprovalMode,
    always: HashSet<ActionKind>,
    /// Tools from outside approved "always", one by one (an MCP server's tool may do
    /// anything: "always" for one is not for all).
    always_tools: HashSet<String>,
}

impl Default for Approvals {
    /// Everything allowed, no one to ask: the library default, as for `wright exec`.
    fn default() -> Self {
        Self::new(ApprovalMode::Auto, None)
    }
}

impl Approvals {
    pub(crate) fn new(mode: ApprovalMode, approver: Option<Arc<dyn Approver>>) -> Self {
        Self {
            state: Arc::new(Mutex::new(ApprovalState {
                mode,
                always: HashSet::new(),
                always_tools: HashSet::new(),
            })),
            approver,
            turn: Arc::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, ApprovalState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Which actions run without asking.
    pub(crate) fn mode(&self) -> ApprovalMode {
        self.state().mode
    }

    /// Lets `mode` decide from the next call on; the kinds approved "always" stay approved.
    pub(crate) fn set_mode(&mut self, mode: ApprovalMode) {
        self.state().mode = mode;
    }

    /// Asks about a prepared call if its kind needs approval or a check flagged it,
    /// reporting the question and the answer to `events`. A flagged call (a
    /// [`Concern`](wright_tools::Concern)) is asked about even when the mode allows its kind,
    /// and refused in `auto` mode, where no one is asked.
    pub(crate) async fn gate(
        &mut self,
        step: u32,
        prepared: &mut PreparedCall<'_>,
        ctx: &ToolContext,
        events: &mut EventSink<'_>,
    ) -> Gate {
        let Some(kind) = prepared.kind().action() else {
            return Gate::Run;
        };
        let concern = prepared
            .concern()
            .map(|c| format!("rule `{}`: {}", c.rule, c.reason));
        let (mode, always) = {
            let state = self.state();
            let always = match kind {
                ActionKind::External => state.always_tools.contains(&prepared.call().tool),
                _ => state.always.contains(&kind),
            };
            (state.mode, always)
        };
        match &concern {
            None if mode.allows(kind) || always => return Gate::Run,
            Some(_) if mode == ApprovalMode::Auto => return Gate::Refused,
            _ => {}
        }
        // A dry run that fails means the call itself will fail without changing anything: let
        // it run, so the model reads the tool's own error rather than a question's answer.
        // A flagged call is never run unasked.
        let Some(preview) = prepared.preview(ctx).await else {
            return match concern {
                None => Gate::Run,
                Some(_) => Gate::Refused,
            };
        };
        // One question at a time: sub-agents running side by side share this state and take
        // turns, so the user is never asked two things at once.
        let turn = Arc::clone(&self.turn);
        let _turn = tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => return Gate::Interrupted,
            turn = turn.lock() => turn,
        };
        let call = prepared.call();
        events.emit(Event::ApprovalRequested {
            step,
            tool: call.tool.clone(),
            kind,
            preview: preview.clone(),
            concern: concern.clone(),
        });
        let decision = match &self.approver {
            None => Decision::Deny {
                reason: Some(NO_APPROVER_REASON.to_string()),
            },
            Some(approver) => {
                let request = ApprovalRequest {
                    step,
                    tool: call.tool.clone(),
                    args: call.args.clone(),
                    kind,
                    preview,
                    concern,
                };
                tokio::select! {
                    biased;
                    () = ctx.cancellation().cancelled() => return Gate::Interrupted,
                    decision = approver.decide(request) => decision,
                }
            }
        };
        let reason = match &decision {
            Decision::Deny { reason } => reason
                .as_deref()
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_string),
            Decision::Once | Decision::Always => None,
        };
        events.emit(Event::ApprovalDecided {
            step,
            decision: decision.verdict(),
            reason: reason.clone(),
        });
        match decision {
            Decision::Once => Gate::Run,
            Decision::Always => {
                let mut state = self.state();
                match kind {
                    ActionKind::External => {
                        state.always_tools.insert(call.tool.clone());
                    }
                    _ => {
                        state.always.insert(kind);
                    }
                }
                Gate::Run
            }
            Decision::Deny { .. } => Gate::Denied(Box::new(denied_result(call, reason.as_deref()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn modes_read_and_print_as_their_flag_names() {
        for mode in ApprovalMode::ALL {
            assert_eq!(mode.as_str().parse::<ApprovalMode>(), Ok(mode));
            assert_eq!(mode.to_string(), mode.as_str());
            assert_eq!(
                serde_json::to_value(mode).unwrap(),
                serde_json::json!(mode.as_str())
            );
        }
        assert_eq!(
            "yolo".parse::<ApprovalMode>().unwrap_err().to_string(),
            "unknown approval mode \"yolo\": expected `ask`, `auto-edit` or `auto`"
        );
    }

    #[test]
    fn each_mode_allows_its_kinds() {
        let allowed = |mode: ApprovalMode| {
            [ActionKind::Command, ActionKind::FileChange].map(|kind| mode.allows(kind))
        };
        assert_eq!(allowed(ApprovalMode::Ask), [false, false]);
        assert_eq!(allowed(ApprovalMode::AutoEdit), [false, true]);
        assert_eq!(allowed(ApprovalMode::Auto), [true, true]);
    }

    #[test]
    fn only_commands_and_file_changes_need_approval() {
        let tools = wright_tools::ToolRegistry::builtin();
        let kinds: Vec<(&str, Option<ActionKind>)> = tools
            .names()
            .into_iter()
            .map(|name| (name, tools.get(name).and_then(|t| t.kind().action())))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("Read", None),
                ("Write", Some(ActionKind::FileChange)),
                ("Edit", Some(ActionKind::FileChange)),
                ("MultiEdit", Some(ActionKind::FileChange)),
                ("LS", None),
                ("Glob", None),
                ("Grep", None),
                ("Definitions", None),
                ("RepoMap", None),
                ("TodoWrite", None),
                ("Bash", Some(ActionKind::Command)),
                ("BashOutput", None),
                ("KillBash", Some(ActionKind::Command)),
            ]
        );
    }

    /// Answers after a pause, counting the questions open at once.
    #[derive(Default)]
    struct Slow {
        open: std::sync::atomic::AtomicUsize,
        most: std::sync::atomic::AtomicUsize,
    }

    impl Approver for Arc<Slow> {
        fn decide(&self, _: ApprovalRequest) -> BoxFuture<'static, Decision> {
            use std::sync::atomic::Ordering::SeqCst;
            let slow = Arc::clone(self);
            let open = slow.open.fetch_add(1, SeqCst) + 1;
            slow.most.fetch_max(open, SeqCst);
            Box::pin(async move {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                slow.open.fetch_sub(1, SeqCst);
                Decision::Once
            })
        }
    }

    #[tokio::test]
    async fn agents_sharing_an_approval_state_ask_one_question_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(dir.path()).unwrap();
        let tools = wright_tools::ToolRegistry::builtin();
        let slow = Arc::new(Slow::default());
        let parent = Approvals::new(ApprovalMode::Ask, Some(Arc::new(Arc::clone(&slow))));
        let ask = |approvals: Approvals, file: &'static str| {
            let (ctx, tools) = (ctx.clone(), &tools);
            async move {
                let mut approvals = approvals;
                let call = ToolCall {
                    tool: "Write".into(),
                    args: serde_json::json!({"file_path": file, "content": "x"}),
                };
                let mut prepared = tools.prepare(&call, &ctx).unwrap();
                let mut events = |_: Event| {};
                let mut sink = EventSink::new(&mut events);
                matches!(
                    approvals.gate(1, &mut prepared, &ctx, &mut sink).await,
                    Gate::Run
                )
            }
        };
        let (a, b, c) = tokio::join!(
            ask(parent.clone(), "a.txt"),
            ask(parent.clone(), "b.txt"),
            ask(parent, "c.txt")
        );
        assert!(a && b && c);
        assert_eq!(slow.most.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    /// A tool from outside: asked about one tool at a time.
    struct Outside(&'static str);

    impl wright_tools::Tool for Outside {
        fn name(&self) -> &str {
            self.0
        }
        fn kind(&self) -> wright_tools::ToolKind {
            wright_tools::ToolKind::External
        }
        fn description(&self) -> &str {
            "outside"
        }
        fn schema(&self) -> serde_json::Value {
            serde_json::json!({"type": "object"})
        }
        fn prepare(
            &self,
            _: serde_json::Value,
            _: &ToolContext,
        ) -> Result<Box<dyn wright_tools::Prepared>, wright_protocol::ToolError> {
            Ok(Box::new(OutsideCall))
        }
    }

    struct OutsideCall;

    impl wright_tools::Prepared for OutsideCall {
        fn preview<'a>(&'a mut self, _: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
            Box::pin(std::future::ready(Some("call".to_string())))
        }
        fn run<'a>(self: Box<Self>, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
            Box::pin(std::future::ready(ToolResult::success(
                "ran",
                serde_json::Value::Null,
            )))
        }
    }

    /// Answers "always" and counts the questions.
    #[derive(Default)]
    struct AlwaysYes(std::sync::atomic::AtomicUsize);

    impl Approver for Arc<AlwaysYes> {
        fn decide(&self, _: ApprovalRequest) -> BoxFuture<'static, Decision> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::pin(std::future::ready(Decision::Always))
        }
    }

    /// Whether a call of `tool` gets past the gate.
    async fn gate(
        approvals: &mut Approvals,
        tools: &wright_tools::ToolRegistry,
        ctx: &ToolContext,
        tool: &str,
    ) -> bool {
        let call = ToolCall {
            tool: tool.into(),
            args: serde_json::json!({}),
        };
        let mut prepared = tools.prepare(&call, ctx).unwrap();
        let mut events = |_: Event| {};
        let mut sink = EventSink::new(&mut events);
        matches!(
            approvals.gate(1, &mut prepared, ctx, &mut sink).await,
            Gate::Run
        )
    }

    #[tokio::test]
    async fn always_for_a_tool_from_outside_covers_that_tool_only() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(dir.path()).unwrap();
        let mut tools = wright_tools::ToolRegistry::builtin();
        tools.register(Box::new(Outside("mcp__a__one")));
        tools.register(Box::new(Outside("mcp__a__two")));
        let asked = Arc::new(AlwaysYes::default());
        let mut approvals = Approvals::new(ApprovalMode::Auto, Some(Arc::new(Arc::clone(&asked))));
        approvals.set_mode(ApprovalMode::AutoEdit);
        for tool in ["mcp__a__one", "mcp__a__one", "mcp__a__two"] {
            assert!(gate(&mut approvals, &tools, &ctx, tool).await, "{tool}");
        }
        let questions = asked.0.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(
            questions, 2,
            "one question per tool from outside, not one for all"
        );
    }

    #[test]
    fn the_denial_message_carries_the_reason_and_says_not_to_retry() {
        assert_eq!(
            denial_message(None),
            "The user denied this action. Do not retry the same action; ask the user or take \
             another approach."
        );
        assert_eq!(
            denial_message(Some(" use the staging db ")),
            "The user denied this action. Reason: use the staging db. Do not retry the same \
             action; ask the user or take another approach."
        );
        assert_eq!(
            denial_message(Some("")),
            denial_message(None),
            "an empty reason is no reason"
        );
    }

    #[test]
    fn a_denied_result_is_an_error_whose_observation_is_the_message() {
        let call = ToolCall {
            tool: "Bash".into(),
            args: serde_json::json!({"command": "rm -rf target"}),
        };
        let result = denied_result(&call, Some("no"));
        assert_eq!(result.text, denial_message(Some("no")));
        assert_eq!(
            result.error,
            Some(wright_protocol::ToolError {
                code: ErrorCode::Denied,
                message: denial_message(Some("no")),
            })
        );
    }
}
