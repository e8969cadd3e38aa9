//! The names MCP tools are offered under: `mcp__SERVER__TOOL`, in the characters every
//! provider accepts, unique and deterministic (issue 15).

use std::collections::BTreeSet;

/// Providers' function names allow at most 64 characters (OpenAI's limit, the tightest).
pub const MAX_NAME_CHARS: usize = 64;

/// The prefix of every MCP tool's name, which also keeps them apart from built-in tools.
pub const PREFIX: &str = "mcp__";

/// The name of the server's tool `tool` of server `server`, before collisions are resolved:
/// `mcp__SERVER__TOOL`, every character outside `[A-Za-z0-9_-]` replaced by `_`, cut to
/// [`MAX_NAME_CHARS`].
pub fn tool_name(server: &str, tool: &str) -> String {
    let name = format!("{PREFIX}{}__{}", sanitise(server), sanitise(tool));
    name.chars().take(MAX_NAME_CHARS).collect()
}

/// `text` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
fn sanitise(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The offered names of `tools` (server name, tool name), in their order: each
/// [`tool_name`], and when one is already taken by an earlier tool, the same with `_2`, `_3`,
/// … (cut to fit [`MAX_NAME_CHARS`]). Given the same list in the same order, the same names.
pub fn unique_names<'a>(tools: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let mut taken = BTreeSet::new();
    let mut names = Vec::new();
    for (server, tool) in tools {
        let base = tool_name(server, tool);
        let mut name = base.clone();
        let mut n = 2;
        while taken.contains(&name) {
            let suffix = format!("_{n}");
            let keep = MAX_NAME_CHARS - suffix.len();
            name = base.chars().take(keep).collect::<String>() + &suffix;
            n += 1;
        }
        taken.insert(name.clone());
        names.push(name);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn names_keep_only_portable_characters() {
        assert_eq!(
            tool_name("git hub", "search.issues"),
            "mcp__git_hub__search_issues"
        );
        assert_eq!(tool_name("fs", "read-file_2"), "mcp__fs__read-file_2");
        assert_eq!(tool_name("é", "工具"), "mcp_______");
    }

    #[test]
    fn long_names_are_cut_to_64_characters() {
        let name = tool_name("server", &"x".repeat(100));
        assert_eq!(name.chars().count(), MAX_NAME_CHARS);
        assert!(name.starts_with("mcp__server__xxx"));
    }

    #[test]
    fn collisions_get_numbered_in_order() {
        let long = "y".repeat(80);
        let names = unique_names([
            ("a", "do.it"),
            ("a", "do_it"),
            ("a", "do-it"),
            ("a", "do it"),
            ("b", &long),
            ("b", &format!("{long}z")),
        ]);
        assert_eq!(
            names[..4],
            [
                "mcp__a__do_it",
                "mcp__a__do_it_2",
                "mcp__a__do-it",
                "mcp__a__do_it_3"
            ]
        );
        assert_eq!(names[4].len(), 64);
        assert_eq!(names[5].len(), 64);
        assert!(names[5].ends_with("yy_2"), "{}", names[5]);
    }
}
