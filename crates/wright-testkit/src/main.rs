//! `wright-testkit serve SCRIPT.json`: runs the scripted fake provider so a person can try
//! wright without an API key.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use wright_testkit::{Script, ServerOptions, TestServer};

const USAGE: &str = "\
wright-testkit: a scripted fake model provider (OpenAI Chat Completions, Anthropic Messages
and OpenAI Responses wire formats)

Usage:
  wright-testkit serve SCRIPT.json [--port N] [--record FILE]
  wright-testkit mcp-serve MCP-SCRIPT.json
  wright-testkit --help

Serves on 127.0.0.1 (a free port unless --port is given), prints its base URL on stdout,
logs each request on stderr, and hands out the script's responses one per request until
killed. Point wright at the printed URL as the base URL of either provider.
With --record, every request is appended to FILE as a JSON line {method, path, body}.

A script is JSON: {\"responses\": [{\"text\": \"...\"}, {\"status\": 429, \"error_message\": \"...\"}]}
See crates/wright-testkit/examples/hello.json.

mcp-serve runs a scripted MCP server on stdin/stdout instead (see src/mcp_server.rs).
";

/// Exit status for bad arguments or a bad script.
const EXIT_USAGE: u8 = 2;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Serve {
        script: PathBuf,
        port: u16,
        record: Option<PathBuf>,
    },
}

/// A command line that could not be understood.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum ArgsError {
    #[error("missing command (expected `serve SCRIPT.json`)")]
    MissingCommand,
    #[error("unknown command `{0}` (expected `serve`)")]
    UnknownCommand(String),
    #[error("`serve` needs a script file")]
    MissingScript,
    #[error("`--record` needs a file")]
    MissingRecord,
    #[error("`--port` needs a number")]
    MissingPort,
    #[error("`--port {0}` is not a port number (expected 0 to 65535)")]
    BadPort(String),
    #[error("unexpected argument `{0}`")]
    Unexpected(String),
}

/// A script file that could not be loaded.
#[derive(Debug, thiserror::Error)]
enum ScriptFileError {
    #[error("cannot read script {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a valid script: {source}", path.display())]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
}

fn parse_args(args: &[String]) -> Result<Command, ArgsError> {
    let mut args = args.iter();
    match args.next().map(String::as_str) {
        None => Err(ArgsError::MissingCommand),
        Some("--help" | "-h" | "help") => Ok(Command::Help),
        Some("serve") => {
            let mut script = None;
            let mut port = 0;
            let mut record = None;
            while let Some(arg) = args.next() {
                if let Some(value) = arg.strip_prefix("--port=") {
                    port = parse_port(value)?;
                    continue;
                }
                match arg.as_str() {
                    "--help" | "-h" => return Ok(Command::Help),
                    "--port" => port = parse_port(args.next().ok_or(ArgsError::MissingPort)?)?,
                    "--record" => {
                        record = Some(PathBuf::from(args.next().ok_or(ArgsError::MissingRecord)?));
                    }
                    _ if script.is_none() && !arg.starts_with('-') => {
                        script = Some(PathBuf::from(arg));
                    }
                    _ => return Err(ArgsError::Unexpected(arg.clone())),
                }
            }
            let script = script.ok_or(ArgsError::MissingScript)?;
            Ok(Command::Serve {
                script,
                port,
                record,
            })
        }
        Some(other) => Err(ArgsError::UnknownCommand(other.to_string())),
    }
}

fn parse_port(value: &str) -> Result<u16, ArgsError> {
    value
        .parse()
        .map_err(|_| ArgsError::BadPort(value.to_string()))
}

fn load_script(path: &Path) -> Result<Script, ScriptFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScriptFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ScriptFileError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

fn main() -> ExitCode {
    if let Some(exit) = mcp_serve(&std::env::args().skip(1).collect::<Vec<_>>()) {
        return exit;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (script_path, port, record) = match parse_args(&args) {
        Ok(Command::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Command::Serve {
            script,
            port,
            record,
        }) => (script, port, record),
        Err(error) => {
            eprintln!("wright-testkit: {error}\nRun `wright-testkit --help` for usage.");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let script = match load_script(&script_path) {
        Ok(script) => script,
        Err(error) => {
            eprintln!("wright-testkit: {error}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let options = ServerOptions {
        port,
        log_requests: true,
    };
    let server = match TestServer::start_with(script, options) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("wright-testkit: cannot listen on 127.0.0.1:{port}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut stdout = std::io::stdout().lock();
    if writeln!(stdout, "{}", server.url())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    drop(stdout);
    // Serve until killed; the server runs on its own thread.
    match record {
        Some(path) => record_requests(&server, &path),
        None => loop {
            std::thread::park();
        },
    }
}

/// How often `--record` looks for new requests.
const RECORD_INTERVAL: std::time::Duration = std::time::Duration::from_millis(20);

/// Appends each new request to `path` as a JSON line, until killed or the file fails.
fn record_requests(server: &TestServer, path: &Path) -> ExitCode {
    let mut file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        Ok(file) => file,
        Err(error) => {
            eprintln!("wright-testkit: cannot open {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let mut written = 0;
    loop {
        let requests = server.requests();
        for request in &requests[written..] {
            let line = serde_json::json!({
                "method": request.method,
                "path": request.path,
                "body": request.body,
            });
            if let Err(error) = writeln!(file, "{line}").and_then(|()| file.flush()) {
                eprintln!("wright-testkit: cannot write {}: {error}", path.display());
                return ExitCode::FAILURE;
            }
        }
        written = requests.len();
        std::thread::sleep(RECORD_INTERVAL);
    }
}

/// `mcp-serve SCRIPT.json`: the scripted MCP server; `None` for any other command.
fn mcp_serve(args: &[String]) -> Option<ExitCode> {
    let [command, script] = args else {
        return None;
    };
    if command != "mcp-serve" {
        return None;
    }
    let outcome = wright_testkit::mcp_server::McpScript::load(Path::new(script))
        .and_then(|script| wright_testkit::mcp_server::serve_stdio(&script));
    Some(match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("wright-testkit mcp-serve: {script}: {error}");
            ExitCode::from(EXIT_USAGE)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn serve_takes_a_script_and_an_optional_port() {
        assert_eq!(
            parse_args(&args("serve s.json --port 8080")),
            Ok(Command::Serve {
                script: PathBuf::from("s.json"),
                port: 8080,
                record: None,
            })
        );
        assert_eq!(
            parse_args(&args("serve --port=0 s.json")),
            Ok(Command::Serve {
                script: PathBuf::from("s.json"),
                port: 0,
                record: None,
            })
        );
        assert_eq!(
            parse_args(&args("serve s.json --record r.jsonl")),
            Ok(Command::Serve {
                script: PathBuf::from("s.json"),
                port: 0,
                record: Some(PathBuf::from("r.jsonl")),
            })
        );
    }

    #[test]
    fn help_is_recognised() {
        assert_eq!(parse_args(&args("--help")), Ok(Command::Help));
        assert_eq!(parse_args(&args("serve -h")), Ok(Command::Help));
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        assert_eq!(parse_args(&[]), Err(ArgsError::MissingCommand));
        assert_eq!(parse_args(&args("serve")), Err(ArgsError::MissingScript));
        assert_eq!(
            parse_args(&args("serve s.json --port")),
            Err(ArgsError::MissingPort)
        );
        assert_eq!(
            parse_args(&args("serve s.json --port 70000")),
            Err(ArgsError::BadPort("70000".to_string()))
        );
        assert_eq!(
            parse_args(&args("run s.json")),
            Err(ArgsError::UnknownCommand("run".to_string()))
        );
        assert_eq!(
            parse_args(&args("serve a.json b.json")),
            Err(ArgsError::Unexpected("b.json".to_string()))
        );
    }
}
