//! The L1 layer (spec A1): the system prompt with the tool descriptions, identical for every
//! request of a session so that providers can cache it.

use wright_tools::ToolRegistry;

/// The system prompt template; `{{tools}}` is replaced by the tool descriptions.
const SYSTEM_TEMPLATE: &str = include_str!("../../../prompts/system.md");

/// Builds the system prompt for the given tools.
pub fn system_prompt(tools: &ToolRegistry) -> String {
    SYSTEM_TEMPLATE.replace("{{tools}}", tools.descriptions().trim_end())
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
