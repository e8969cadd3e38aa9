//! `/mcp`: the MCP servers' tools this session offers, by server (issue 15). A server that
//! did not start was reported when the session began and offers none.

/// The `/mcp` text: each server with the tools it offers, in L1's order.
pub fn report(tool_names: &[String]) -> String {
    let mut servers: Vec<(String, Vec<String>)> = Vec::new();
    for name in tool_names {
        let Some((server, tool)) = name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
        else {
            continue;
        };
        match servers.iter_mut().find(|(s, _)| s == server) {
            Some((_, tools)) => tools.push(tool.to_string()),
            None => servers.push((server.to_string(), vec![tool.to_string()])),
        }
    }
    if servers.is_empty() {
        return "No MCP server's tools in this session. `wright mcp add NAME -- CMD ARGS…` \
                adds a server; `wright mcp list` shows why one did not start."
            .to_string();
    }
    let mut text = String::from("MCP servers in this session:\n");
    for (server, tools) in servers {
        text.push_str(&format!(
            "  {server}: {} — {}\n",
            wright_protocol::text::plural(tools.len(), "tool"),
            tools.join(", ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn tools_are_listed_by_server_and_built_ins_left_out() {
        let names: Vec<String> = [
            "Read",
            "Bash",
            "mcp__db__query",
            "mcp__db__tables",
            "mcp__web__fetch",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            report(&names),
            "MCP servers in this session:\n  db: 2 tools — query, tables\n  web: 1 tool — fetch\n"
        );
        assert!(report(&["Read".to_string()]).starts_with("No MCP server's tools"));
    }
}
