//! The L1 layer (spec A1): the system prompt with the tool descriptions, identical for every
//! request of a session so that providers can cache it.

use wright_tools::ToolRegistry;

/// The system prompt template; `{{tools}}` is replaced by the tool descriptions.
const SYSTEM_TEMPLATE: &str = include_str!("../../../prompts/system.md");

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
    let mut l1 = system_prompt_describing(descriptions);
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
    fn system_prompt_is_stable_across_builds() {
        let tools = ToolRegistry::builtin();
        assert_eq!(system_prompt(&tools), system_prompt(&tools));
    }
}
