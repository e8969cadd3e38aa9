//! Slash commands: what the prompt does instead of sending a message when the input starts
//! with `/name`.

use wright_core::memory::commands::MemoryCommand;

/// A command typed at the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    /// `/help`: list the commands and keys.
    Help,
    /// `/clear`: start a new session.
    Clear,
    /// `/compact`: summarise older rounds now.
    Compact,
    /// `/context`: what the next request would contain.
    Context,
    /// `/todo`: the agent's todo list.
    Todo,
    /// `/jobs`: the session's background commands.
    Jobs,
    /// `/mcp`: the MCP servers and their tools in this session.
    Mcp,
    /// `/mcp reconnect [SERVER]`: start a server again (every one not up, without a name).
    McpReconnect(Option<String>),
    /// `/memory [search WORDS | rm ID]`: list, search or remove memory entries (issue 17).
    Memory(MemoryCommand),
    /// `/sessions`: this project's sessions.
    Sessions,
    /// `/resume ID|NAME`: continue another session.
    Resume(String),
    /// `/model NAME`: talk to another model from the next round on; without a name, say which.
    Model(Option<String>),
    /// `/cost`: tokens and cost of the session.
    Cost,
    /// `/undo`: take back the last round not undone, files and conversation.
    Undo,
    /// `/redo`: take back the last undo.
    Redo,
    /// `/rewind`: pick a round and undo back to before it.
    Rewind,
    /// `/diff [N]`: what the session (or round N) changed in the files.
    Diff(Option<u32>),
    /// `/commit`: commit the files the agent changed (and not yet committed) to git.
    Commit,
    /// `/plan`: plan mode on or off for the next rounds.
    Plan,
    /// `/init`: a read-only agent writes the project's AGENTS.md (or updates its
    /// CODE_LAW.md), shown as a diff to approve (issue 17).
    Init,
    /// `/exit`: leave.
    Exit,
}

/// Every command: name, argument, what it does.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    ("/help", "", "list commands and keys"),
    ("/clear", "", "start a new session"),
    ("/compact", "", "summarise older rounds now to free context"),
    (
        "/context",
        "",
        "show what the next request would contain, layer by layer",
    ),
    ("/todo", "", "show the agent's todo list"),
    (
        "/jobs",
        "",
        "list the background commands: id, status, runtime, command",
    ),
    (
        "/mcp",
        "[reconnect [SERVER]]",
        "list the MCP servers and their tools; reconnect starts one again and adds its tools",
    ),
    (
        "/memory",
        "[search WORDS | rm ID]",
        "list the memory the agent keeps across sessions; search it, or remove an entry",
    ),
    ("/sessions", "", "list this project's sessions"),
    (
        "/resume",
        "ID|NAME",
        "continue another session of this project",
    ),
    ("/model", "[NAME]", "switch the model for the next rounds"),
    ("/cost", "", "tokens and cost of this session"),
    (
        "/undo",
        "",
        "take back the last round: its file changes and its messages",
    ),
    ("/redo", "", "take back the last /undo"),
    ("/rewind", "", "pick a round and undo back to before it"),
    (
        "/diff",
        "[N]",
        "what this session (or round N) changed in the files",
    ),
    (
        "/commit",
        "",
        "commit the files the agent changed to git, with a written message",
    ),
    (
        "/plan",
        "",
        "plan mode on or off: the agent only reads, then offers a plan",
    ),
    (
        "/init",
        "",
        "write the project's AGENTS.md (or update CODE_LAW.md), shown as a diff to approve",
    ),
    ("/exit", "", "leave wright"),
];

/// The keys, for `/help`.
pub const KEYS: &[(&str, &str)] = &[
    ("Enter", "send"),
    ("Alt-Enter, or \\ at the end of a line", "new line"),
    ("Up / Down", "earlier input"),
    ("Tab", "complete a /command or an @path"),
    ("Shift-Tab", "next mode: ask, auto-edit, auto, plan"),
    (
        "Ctrl-C",
        "stop the model or tool; twice on an empty prompt: exit",
    ),
    ("Ctrl-D", "exit (on an empty prompt)"),
];

/// Reads `input` as a command: `None` when it is a message (it does not start with `/`, or
/// its first word looks like a path such as `/etc/hosts`); `Err` for an unknown command or a
/// missing argument.
pub fn parse(input: &str) -> Option<Result<SlashCommand, String>> {
    let input = input.trim();
    let rest = input.strip_prefix('/')?;
    let (name, arg) = match rest.split_once(char::is_whitespace) {
        Some((name, arg)) => (name, arg.trim()),
        None => (rest, ""),
    };
    if name.contains('/') {
        return None;
    }
    let arg = (!arg.is_empty()).then(|| arg.to_string());
    let command = match name {
        "help" | "?" => SlashCommand::Help,
        "clear" | "new" => SlashCommand::Clear,
        "compact" => SlashCommand::Compact,
        "context" => SlashCommand::Context,
        "todo" | "todos" => SlashCommand::Todo,
        "jobs" => SlashCommand::Jobs,
        "mcp" => match arg
            .as_deref()
            .map(|a| a.split_once(char::is_whitespace).unwrap_or((a, "")))
        {
            None => SlashCommand::Mcp,
            Some(("reconnect", server)) => SlashCommand::McpReconnect(
                Some(server.trim())
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            ),
            Some(_) => {
                return Some(Err(
                    "/mcp takes nothing, or `reconnect [SERVER]`".to_string()
                ));
            }
        },
        "memory" => match memory_command(arg.as_deref()) {
            Ok(command) => SlashCommand::Memory(command),
            Err(problem) => return Some(Err(problem)),
        },
        "sessions" => SlashCommand::Sessions,
        "resume" => match arg {
            Some(query) => SlashCommand::Resume(query),
            None => {
                return Some(Err(
                    "/resume needs a session: /resume ID|NAME (/sessions lists them)".to_string(),
                ));
            }
        },
        "model" => SlashCommand::Model(arg),
        "cost" => SlashCommand::Cost,
        "undo" => SlashCommand::Undo,
        "redo" => SlashCommand::Redo,
        "rewind" => SlashCommand::Rewind,
        "diff" => match arg.map(|n| n.parse::<u32>()) {
            None => SlashCommand::Diff(None),
            Some(Ok(round)) => SlashCommand::Diff(Some(round)),
            Some(Err(_)) => {
                return Some(Err(
                    "/diff takes a round number: /diff N (/rewind lists the rounds)".to_string(),
                ));
            }
        },
        "commit" => SlashCommand::Commit,
        "plan" => SlashCommand::Plan,
        "init" => SlashCommand::Init,
        "exit" | "quit" | "q" => SlashCommand::Exit,
        _ => {
            return Some(Err(format!(
                "unknown command /{name}; /help lists the commands"
            )));
        }
    };
    Some(Ok(command))
}

/// `/memory`'s argument: nothing (list), `search WORDS` or `rm ID`.
fn memory_command(arg: Option<&str>) -> Result<MemoryCommand, String> {
    let usage = || "/memory takes nothing, `search WORDS` or `rm ID`".to_string();
    let Some(arg) = arg else {
        return Ok(MemoryCommand::List { scope: None });
    };
    let (verb, rest) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
    let rest = rest.trim();
    match verb {
        "search" if !rest.is_empty() => Ok(MemoryCommand::Search {
            words: rest.to_string(),
            tags: Vec::new(),
        }),
        "rm" if !rest.is_empty() && !rest.contains(char::is_whitespace) => {
            Ok(MemoryCommand::Remove {
                id: Some(rest.to_string()),
                tags: Vec::new(),
            })
        }
        _ => Err(usage()),
    }
}

/// The commands whose names start with `prefix` (which starts with `/`).
pub fn matching(prefix: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    COMMANDS
        .iter()
        .filter(|(name, _, _)| name.starts_with(prefix))
        .copied()
        .collect()
}

/// The `/help` text.
pub fn help() -> String {
    let mut text = String::from("Commands:\n");
    for (name, arg, what) in COMMANDS {
        let usage = if arg.is_empty() {
            (*name).to_string()
        } else {
            format!("{name} {arg}")
        };
        text.push_str(&format!("  {usage:<18} {what}\n"));
    }
    text.push_str("Keys:\n");
    for (keys, what) in KEYS {
        text.push_str(&format!("  {keys:<38} {what}\n"));
    }
    text.push_str("Mention a file with @path (Tab completes it) to have the model read it.\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn commands_and_their_arguments_are_read() {
        assert_eq!(parse("/help"), Some(Ok(SlashCommand::Help)));
        assert_eq!(parse("/init"), Some(Ok(SlashCommand::Init)));
        assert_eq!(
            parse(" /resume  feature-x "),
            Some(Ok(SlashCommand::Resume("feature-x".into())))
        );
        assert_eq!(
            parse("/model gpt-4o"),
            Some(Ok(SlashCommand::Model(Some("gpt-4o".into()))))
        );
        assert_eq!(parse("/model"), Some(Ok(SlashCommand::Model(None))));
        assert_eq!(parse("/diff"), Some(Ok(SlashCommand::Diff(None))));
        assert_eq!(parse("/diff 2"), Some(Ok(SlashCommand::Diff(Some(2)))));
        assert_eq!(parse("/undo"), Some(Ok(SlashCommand::Undo)));
        assert_eq!(parse("/jobs"), Some(Ok(SlashCommand::Jobs)));
        assert_eq!(
            parse("/memory"),
            Some(Ok(SlashCommand::Memory(MemoryCommand::List {
                scope: None
            })))
        );
        assert_eq!(
            parse("/memory search  cargo tests "),
            Some(Ok(SlashCommand::Memory(MemoryCommand::Search {
                words: "cargo tests".into(),
                tags: Vec::new()
            })))
        );
        assert_eq!(
            parse("/memory rm 1a2b3c4d"),
            Some(Ok(SlashCommand::Memory(MemoryCommand::Remove {
                id: Some("1a2b3c4d".into()),
                tags: Vec::new()
            })))
        );
        assert!(parse("/memory rm").unwrap().is_err());
        assert!(parse("/memory forget x").unwrap().is_err());
        assert_eq!(parse("/mcp"), Some(Ok(SlashCommand::Mcp)));
        assert_eq!(
            parse("/mcp reconnect"),
            Some(Ok(SlashCommand::McpReconnect(None)))
        );
        assert_eq!(
            parse("/mcp reconnect  db "),
            Some(Ok(SlashCommand::McpReconnect(Some("db".to_string()))))
        );
        assert!(parse("/mcp restart").unwrap().is_err());
    }

    #[test]
    fn a_diff_of_something_else_than_a_round_number_is_an_error() {
        assert!(parse("/diff two").unwrap().is_err());
    }

    #[test]
    fn messages_and_paths_are_not_commands() {
        assert_eq!(parse("fix the bug"), None);
        assert_eq!(parse("/etc/hosts has a typo"), None);
    }

    #[test]
    fn unknown_commands_and_missing_arguments_are_errors() {
        assert!(parse("/frobnicate").unwrap().is_err());
        assert!(parse("/resume").unwrap().is_err());
    }

    #[test]
    fn completion_candidates_share_the_prefix() {
        let names: Vec<_> = matching("/c").iter().map(|c| c.0).collect();
        assert_eq!(
            names,
            ["/clear", "/compact", "/context", "/cost", "/commit"]
        );
    }
}
