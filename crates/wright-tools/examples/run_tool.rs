//! Runs one built-in tool and prints its observation, like `wright tool` but without the CLI
//! crate, so the benchmarks in `bench/` can run while other crates are mid-change.
//!
//! Usage: `run_tool [-C DIR] [--json] NAME [ARGS_JSON]`

use std::path::PathBuf;
use std::process::ExitCode;

use wright_protocol::ToolCall;
use wright_tools::{ToolContext, ToolRegistry};

const USAGE: &str = "usage: run_tool [-C DIR] [--json] NAME [ARGS_JSON]";

#[tokio::main]
async fn main() -> ExitCode {
    let mut dir = PathBuf::from(".");
    let mut json = false;
    let mut positional = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-C" => match args.next() {
                Some(value) => dir = PathBuf::from(value),
                None => return fail(USAGE),
            },
            "--json" => json = true,
            _ => positional.push(arg),
        }
    }
    let (name, raw_args) = match positional.as_slice() {
        [name] => (name.clone(), "{}".to_string()),
        [name, raw] => (name.clone(), raw.clone()),
        _ => return fail(USAGE),
    };
    let call_args = match serde_json::from_str(&raw_args) {
        Ok(value) => value,
        Err(err) => return fail(&format!("the arguments are not valid JSON: {err}")),
    };
    let ctx = match ToolContext::new(&dir) {
        Ok(ctx) => ctx,
        Err(err) => return fail(&format!("cannot open {}: {err}", dir.display())),
    };
    let call = ToolCall {
        tool: name,
        args: call_args,
    };
    let result = ToolRegistry::builtin().run(&call, &ctx).await;
    if json {
        match serde_json::to_string(&result) {
            Ok(line) => println!("{line}"),
            Err(err) => return fail(&format!("cannot serialise the result: {err}")),
        }
    } else {
        println!("{}", result.text);
    }
    if result.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("run_tool: {message}");
    ExitCode::from(2)
}
