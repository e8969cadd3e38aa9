//! The L1 layer (spec A1): the system prompt with the tool descriptions, identical for every
//! request of a session so that providers can cache it.

use wright_tools::ToolRegistry;

/// The system prompt template; `{{tools}}` is replaced by the tool descriptions.
const SYSTEM_TEMPLATE: &str = include_str!("../../../prompts/system.md");

/// The system prompt of the native tool protocol (issue 19): the text protocol's rules without
/// its `Thought:`/`Action:` reply format and without the tool descriptions, which go to the
/// provider as tool definitions.
const NATIVE_SYSTEM_PROMPT: &str = include_str!("../../../prompts/system_native.md");

/// Builds the system prompt for the given tools.
pub fn system_prompt(tools: &ToolRegistry) -> String {
    system_prompt_describing(&tools.descriptions())
}

/// The system prompt with these tool `descriptions` (all of an agent's tools, or those plan
/// mode offers).
fn system_prompt_describing(descriptions: &str) -> String {
    SYSTEM_TEMPLATE.replace("{{tools}}", descriptions.trim_end())
}

/// An agent's L1: the system prompt with its tool `descriptions`, then the session's
/// `environment` block, the session's index of memory ([`crate::memory`]), the agent's
/// `instructions` and, in plan mode, the plan-mode section ([`crate::plan`]), each after a
/// blank line.
pub(crate) fn agent_system_prompt(
    descriptions: &str,
    environment: Option<&str>,
    memory: Option<&str>,
    instructions: Option<&str>,
    plan: bool,
) -> String {
    with_sections(
        system_prompt_describing(descriptions),
        environment,
        memory,
        instructions,
        plan,
    )
}

/// An agent's L1 under the native tool protocol (issue 19): [`NATIVE_SYSTEM_PROMPT`], then the
/// same sections as [`agent_system_prompt`]. The tools are not described here: the request
/// offers them as tool definitions.
pub fn native_agent_system_prompt(
    environment: Option<&str>,
    memory: Option<&str>,
    instructions: Option<&str>,
    plan: bool,
) -> String {
    with_sections(
        NATIVE_SYSTEM_PROMPT.trim_end().to_string(),
        environment,
        memory,
        instructions,
        plan,
    )
}

/// `l1`, then the `environment` block, the index of `memory`, the `instructions` and, in plan
/// mode, the plan-mode section, each after a blank line.
fn with_sections(
    mut l1: String,
    environment: Option<&str>,
    memory: Option<&str>,
    instructions: Option<&str>,
    plan: bool,
) -> String {
    let plan = plan.then_some(crate::plan::PLAN_MODE_PROMPT);
    let memory = memory.filter(|index| !index.trim().is_empty());
    for part in [environment, memory, instructions, plan]
        .into_iter()
        .flatten()
    {
        l1.push_str("\n\n");
        l1.push_str(part.trim_end());
    }
    l1
}

/// L1 of a session: the system prompt for the given tools, ending with the session's
/// environment block ([`crate::environment`]).
pub fn session_system_prompt(tools: &ToolRegistry, environment: &str) -> String {
    format!("{}\n\n{}", system_prompt(tools), environment.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_prompt_describes_every_tool_and_the_format() {
        let tools = ToolRegistry::builtin();
        let prompt = system_prompt(&tools);
        assert!(!prompt.contains("{{tools}}"));
        for name in tools.names() {
            assert!(prompt.contains(&format!("## {name}")), "missing {name}");
        }
        assert!(prompt.contains("Action: Finish["));
    }

    #[test]
    fn the_native_prompt_keeps_the_rules_but_not_the_text_format_or_the_tools() {
        let prompt = native_agent_system_prompt(Some("<env>"), None, Some("Be brief."), false);
        for text_only in [
            "Thought:",
            "Action:",
            "Observation",
            "Finish[",
            "{{tools}}",
            "## Read",
        ] {
            assert!(!prompt.contains(text_only), "{text_only} in {prompt}");
        }
        assert!(prompt.contains("Rules:\n- Paths are relative to the project root."));
        assert!(prompt.ends_with("\n\n<env>\n\nBe brief."), "{prompt}");
    }

    #[test]
    fn system_prompt_is_stable_across_builds() {
        let tools = ToolRegistry::builtin();
        assert_eq!(system_prompt(&tools), system_prompt(&tools));
    }
}
