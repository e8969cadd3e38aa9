//! `wright mcp list|add|remove` (issue 15): the MCP servers of the settings, and adding or
//! removing one in the user's settings file (`~/.config/wright/config.toml`), keeping the
//! rest of that file — comments included — as it was.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use toml_edit::{DocumentMut, Item, Table};

use crate::config::{self, McpServerConfig, mcp_server_problem};

#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(subcommand)]
    command: McpCommand,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// List the configured servers: name, how each is reached, and the file it is set in.
    List,
    /// Add a server to your settings: `wright mcp add NAME -- CMD ARGS…` for a program that
    /// serves MCP on its standard input and output, `wright mcp add NAME --url URL` for a
    /// Streamable HTTP server.
    Add {
        /// The server's name (its tools are called mcp__NAME__TOOL).
        name: String,
        /// The URL of a Streamable HTTP server.
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// A header sent to an HTTP server, `KEY=VALUE` (repeatable).
        #[arg(long = "header", value_name = "KEY=VALUE", requires = "url")]
        headers: Vec<String>,
        /// The variable that holds an HTTP server's bearer token.
        #[arg(long, value_name = "VAR", requires = "url")]
        bearer_token_env_var: Option<String>,
        /// A variable set for a program server, `KEY=VALUE` (repeatable).
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// The program and its arguments, after `--`.
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Remove a server from your settings.
    Remove {
        /// The server's name.
        name: String,
    },
}

/// Runs `wright mcp …`; the exit code.
pub async fn run(root: &Path, args: &McpArgs) -> u8 {
    let result = match &args.command {
        McpCommand::List => list(root).await,
        McpCommand::Add {
            name,
            url,
            headers,
            bearer_token_env_var,
            env,
            command,
        } => pairs(headers, "--header")
            .and_then(|headers| Ok((headers, pairs(env, "--env")?)))
            .and_then(|(headers, env)| {
                let mut server = McpServerConfig {
                    url: url.clone(),
                    bearer_token_env_var: bearer_token_env_var.clone(),
                    ..McpServerConfig::default()
                };
                server.headers = headers;
                server.env = env;
                if let Some((program, rest)) = command.split_first() {
                    server.command = Some(program.clone());
                    server.args = rest.to_vec();
                }
                add(name, &server)
            }),
        McpCommand::Remove { name } => remove(name),
    };
    match result {
        Ok(text) => {
            use std::io::Write as _;
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            0
        }
        Err(message) => {
            eprintln!("wright: {message}");
            crate::EXIT_USAGE
        }
    }
}

/// `KEY=VALUE` arguments of `flag`, as a map.
fn pairs(
    items: &[String],
    flag: &str,
) -> Result<std::collections::BTreeMap<String, String>, String> {
    items
        .iter()
        .map(|item| match item.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
            _ => Err(format!("{flag} takes KEY=VALUE, not {item:?}")),
        })
        .collect()
}

/// The user's settings file.
fn user_settings() -> Result<PathBuf, String> {
    config::user_config_dir(&config::process_env)
        .map(|dir| dir.join("config.toml"))
        .ok_or_else(|| "neither XDG_CONFIG_HOME nor HOME is set: no user settings file".into())
}

/// The configured servers, one line each, then each started as a session would start it:
/// the tools it offers (as the model sees their names), or why it did not start.
async fn list(root: &Path) -> Result<String, String> {
    let files = config::load_files(root, &config::process_env).map_err(|e| e.to_string())?;
    let servers = config::mcp_servers(&files);
    if servers.is_empty() {
        return Ok(
            "No MCP servers are configured. `wright mcp add NAME -- CMD ARGS…` adds one.\n".into(),
        );
    }
    let mut text = String::new();
    for (name, server) in &servers {
        let reached = match (&server.command, &server.url) {
            (Some(command), _) => {
                let mut words = vec![command.clone()];
                words.extend(server.args.iter().cloned());
                format!(
                    "command: {}",
                    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_default()
                )
            }
            (None, Some(url)) => format!("url: {url}"),
            (None, None) => String::new(),
        };
        text.push_str(&format!("{name}  {reached}\n"));
        if let Some(tools) = &server.enabled_tools {
            text.push_str(&format!("  enabled_tools: {}\n", tools.join(", ")));
        }
        if !server.disabled_tools.is_empty() {
            text.push_str(&format!(
                "  disabled_tools: {}\n",
                server.disabled_tools.join(", ")
            ));
        }
    }
    let (started, _problems) =
        wright_mcp::McpServers::start(crate::mcp_setup::server_configs(root, &servers)).await;
    text.push('\n');
    text.push_str(&crate::mcp_setup::status_report(&started.statuses(), None));
    started.shutdown().await;
    Ok(text)
}

/// Adds `[mcp_servers.NAME]` to the user's settings file.
fn add(name: &str, server: &McpServerConfig) -> Result<String, String> {
    if let Some(problem) = mcp_server_problem(name, server) {
        return Err(format!("cannot add the server {name:?}: {problem}"));
    }
    let path = user_settings()?;
    let mut document = read_document(&path)?;
    let servers = document
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| format!("{}: `mcp_servers` is not a table", path.display()))?;
    if servers.contains_key(name) {
        return Err(format!(
            "{} already has a server called {name:?}; `wright mcp remove {name}` first",
            path.display()
        ));
    }
    let text = toml::to_string(server).map_err(|e| e.to_string())?;
    let table: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    servers.insert(name, Item::Table(table.as_table().clone()));
    write_document(&path, &document)?;
    Ok(format!(
        "Added the MCP server {name:?} to {}.\n",
        path.display()
    ))
}

/// Removes `[mcp_servers.NAME]` from the user's settings file.
fn remove(name: &str) -> Result<String, String> {
    let path = user_settings()?;
    let mut document = read_document(&path)?;
    let removed = document
        .get_mut("mcp_servers")
        .and_then(Item::as_table_mut)
        .and_then(|servers| servers.remove(name));
    if removed.is_none() {
        return Err(format!(
            "{} has no server called {name:?} (`wright mcp list` shows the servers)",
            path.display()
        ));
    }
    write_document(&path, &document)?;
    Ok(format!(
        "Removed the MCP server {name:?} from {}.\n",
        path.display()
    ))
}

/// The settings file at `path` (empty when there is none).
fn read_document(path: &Path) -> Result<DocumentMut, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    text.parse()
        .map_err(|e: toml_edit::TomlError| format!("{} is not valid TOML: {e}", path.display()))
}

/// Writes `document` to `path` through a temporary file, so a failure leaves the old file.
fn write_document(path: &Path, document: &DocumentMut) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let temporary = dir.join(".config.toml.wright-tmp");
    std::fs::write(&temporary, document.to_string()).map_err(fail)?;
    std::fs::rename(&temporary, path).map_err(fail)
}
