//! Plan mode (issue 14): the agent investigates with the tools that change nothing — no
//! Write, Edit or MultiEdit; Bash only for commands that change nothing, in a read-only tool
//! context — and ends the round with a plan, its Finish answer, for the user to accept,
//! refine or keep working on. `wright exec --plan`, `wright --plan`, `/plan` and Shift-Tab
//! turn it on ([`Agent::set_plan_mode`](crate::Agent::set_plan_mode)).
//!
//! # One L1 per mode
//!
//! L1 is byte-identical for every request of a session (DESIGN §3), so that providers can
//! cache it. Plan mode changes what L1 holds (fewer tools, the [`PLAN_MODE_PROMPT`] section),
//! so it cannot share the normal L1. Decision: plan mode and normal mode each have one fixed
//! L1, both built from the same parts (the agent's tools, the session's environment block, the
//! agent's instructions), and switching modes switches between them. A switch costs one cache
//! break — the first request after it; every later request of that mode is cached again, and
//! switching back gives the earlier L1 byte for byte.

use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{Tool, ToolRegistry};

/// The section that ends L1 in plan mode: investigate, change nothing, finish with a plan.
pub const PLAN_MODE_PROMPT: &str = include_str!("../../../prompts/plan_mode.md");

/// The input of the round that carries out an accepted plan.
pub const CARRY_OUT_THE_PLAN: &str = "Carry out the plan above.";

/// Whether `tool` is offered where nothing may be changed (plan mode, read-only agents): the
/// tools that change nothing, Bash (limited there to commands that change nothing) and
/// KillBash (a job started while planning can be stopped), as
/// [`wright_tools::usable_read_only`] says — the test the registry refuses other calls by.
pub fn offers(tool: &dyn Tool) -> bool {
    wright_tools::usable_read_only(tool)
}

/// The descriptions of the tools `tools` offers in plan mode, as L1 lists them.
pub(crate) fn descriptions(tools: &ToolRegistry) -> String {
    tools.descriptions_where(offers)
}

/// The observation of a call plan mode does not offer (Write, Edit, …): refused before
/// anything looks at its arguments, naming the tools it may use.
pub(crate) fn refusal(call: &ToolCall, tools: &ToolRegistry) -> Option<ToolResult> {
    if tools.get(&call.tool).is_none_or(offers) {
        // Offered, or unknown: the registry names the valid tools for an unknown one.
        return None;
    }
    let offered: Vec<&str> = tools
        .names()
        .into_iter()
        .filter(|name| tools.get(name).is_some_and(offers))
        .collect();
    let mut result = ToolResult::error(
        ErrorCode::Refused,
        format!(
            "`{}` is not available in plan mode, where nothing may be changed; the tools are: \
             {}. Investigate, then finish with your plan.",
            call.tool,
            offered.join(", ")
        ),
    );
    result.context = call.args.clone();
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn plan_mode_offers_the_tools_that_change_nothing_and_bash() {
        let tools = ToolRegistry::builtin();
        let offered: Vec<&str> = tools
            .names()
            .into_iter()
            .filter(|name| tools.get(name).is_some_and(offers))
            .collect();
        assert_eq!(
            offered,
            [
                "Read",
                "LS",
                "Glob",
                "Grep",
                "Definitions",
                "RepoMap",
                "TodoWrite",
                "Bash",
                "BashOutput",
                "KillBash"
            ]
        );
        let described = descriptions(&tools);
        assert!(described.starts_with("## Read\n"), "{described}");
        assert!(!described.contains("## Write"), "{described}");
    }

    #[test]
    fn a_file_change_is_refused_naming_the_tools_there_are() {
        let tools = ToolRegistry::builtin();
        let write = ToolCall {
            tool: "Write".into(),
            args: json!({"file_path": "a.txt", "content": "x"}),
        };
        let refused = refusal(&write, &tools).unwrap();
        let error = refused.error.unwrap();
        assert_eq!(error.code, ErrorCode::Refused);
        assert_eq!(
            error.message,
            "`Write` is not available in plan mode, where nothing may be changed; the tools \
             are: Read, LS, Glob, Grep, Definitions, RepoMap, TodoWrite, Bash, BashOutput, KillBash. Investigate, then finish with your plan."
        );
        assert_eq!(refused.context, write.args);
        for tool in ["Read", "Bash", "Nope"] {
            let call = ToolCall {
                tool: tool.into(),
                args: json!({}),
            };
            assert_eq!(refusal(&call, &tools), None, "{tool}");
        }
    }
}
