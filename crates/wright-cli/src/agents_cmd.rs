//! `wright agents list`, and what `wright exec --agent/--tools/--system-prompt-file` make of
//! the session's agent (issue 14).

use std::io::Read as _;
use std::path::Path;

use clap::{Args, Subcommand};
use serde_json::json;
use wright_core::subagent::{AgentDefinition, AgentProfile};

use crate::config::{self, Settings};

/// The largest `--system-prompt-file` read.
const MAX_SYSTEM_PROMPT_FILE_BYTES: u64 = 256 * 1024;

#[derive(Debug, Args)]
pub struct AgentsArgs {
    #[command(subcommand)]
    command: AgentsCommand,
}

#[derive(Debug, Subcommand)]
enum AgentsCommand {
    /// List the agents: name, where it is defined, its tools and model, and when to use it.
    List {
        /// One JSON object per agent, one per line.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `wright agents …`. Agent files that cannot be used are reported on stderr (their
/// agents are skipped); the exit code is 1 when there are such files.
pub fn run(root: &Path, args: &AgentsArgs) -> u8 {
    // Listing needs no model: only the tools an agent file may name.
    let (catalog, problems) = match config::load_agents(root) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("wright: {e}");
            return crate::EXIT_USAGE;
        }
    };
    let AgentsCommand::List { json } = args.command;
    let mut out = String::new();
    for agent in catalog.agents() {
        if json {
            out.push_str(&agent_json(agent).to_string());
            out.push('\n');
        } else {
            out.push_str(&agent_text(agent));
        }
    }
    use std::io::Write as _;
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    for problem in &problems {
        eprintln!("wright: {problem}");
    }
    u8::from(!problems.is_empty())
}

fn agent_json(agent: &AgentDefinition) -> serde_json::Value {
    json!({
        "name": agent.name,
        "description": agent.description,
        "source": agent.source.describe(),
        "tools": agent.tools,
        "read_only": agent.read_only,
        "model": agent.model,
        "max_steps": agent.max_steps,
    })
}

/// `explore  (built-in, read-only)\n  tools: Read, LS …\n  description\n`
fn agent_text(agent: &AgentDefinition) -> String {
    let access = if agent.read_only { ", read-only" } else { "" };
    let tools = agent
        .tools
        .as_ref()
        .map_or_else(|| "all".to_string(), |tools| tools.join(", "));
    let mut text = format!("{}  ({}{access})\n", agent.name, agent.source.describe());
    text.push_str(&format!("  tools: {tools}"));
    if let Some(model) = &agent.model {
        text.push_str(&format!("; model: {model}"));
    }
    if let Some(steps) = agent.max_steps {
        text.push_str(&format!("; max_steps: {steps}"));
    }
    text.push_str(&format!("\n  {}\n", agent.description));
    text
}

/// What `exec --agent NAME --tools LIST --system-prompt-file FILE` make the session's agent:
/// the agent's tools, instructions, model (unless `--model` was given) and step limit, then
/// the tool list and the file's text over them. `Err` is the usage error to report.
pub fn exec_profile(
    settings: &mut Settings,
    agent: Option<&str>,
    tools: Option<&[String]>,
    system_prompt_file: Option<&Path>,
    model_flag: bool,
) -> Result<AgentProfile, String> {
    let mut profile = AgentProfile::default();
    if let Some(name) = agent {
        let Some(definition) = settings.agents.get(name) else {
            return Err(format!(
                "there is no agent named `{name}`; the agents are: {} (`wright agents list`)",
                settings.agents.names().join(", ")
            ));
        };
        profile = AgentProfile::for_session(definition);
        if let Some(model) = definition.model.clone().filter(|_| !model_flag) {
            settings.llm.model = model;
        }
        if let Some(steps) = definition.max_steps {
            settings.agent.max_steps = steps;
        }
    }
    if let Some(tools) = tools {
        let registry = settings.tools.registry();
        let mut known: Vec<&str> = registry.names();
        known.push("Task");
        let tools: Vec<String> = tools
            .iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        if let Some(unknown) = tools.iter().find(|t| !known.contains(&t.as_str())) {
            return Err(format!(
                "--tools: there is no tool named `{unknown}`; the tools are: {}",
                known.join(", ")
            ));
        }
        if tools.is_empty() {
            return Err("--tools: name at least one tool, e.g. --tools Read,Grep".into());
        }
        profile.tools = Some(tools);
    }
    if let Some(path) = system_prompt_file {
        let text = read_prompt_file(path)?;
        profile.instructions = Some(match profile.instructions.take() {
            Some(instructions) => format!("{instructions}\n\n{text}"),
            None => text,
        });
    }
    Ok(profile)
}

/// The text of `--system-prompt-file`, at most [`MAX_SYSTEM_PROMPT_FILE_BYTES`].
fn read_prompt_file(path: &Path) -> Result<String, String> {
    let fail = |why: String| format!("--system-prompt-file {}: {why}", path.display());
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    if !file.metadata().map_err(|e| fail(e.to_string()))?.is_file() {
        return Err(fail("not a regular file".into()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_SYSTEM_PROMPT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_SYSTEM_PROMPT_FILE_BYTES {
        return Err(fail(format!(
            "longer than {} KiB",
            MAX_SYSTEM_PROMPT_FILE_BYTES / 1024
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".into()))?;
    let text = text.trim().to_string();
    if text.is_empty() {
        return Err(fail("the file is empty".into()));
    }
    Ok(text)
}
