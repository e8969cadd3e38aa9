//! The L1 cost of MCP tools (issue 15, "many tools, small context"): the size of the tool
//! descriptions `ToolRegistry::descriptions` renders for 0, 20 and 150 tools of the testkit's
//! scripted server (past the budget, tools are listed by name and one line); and the cold
//! start of two servers, from nothing to their tools listed.
//! `cargo bench -p wright-mcp --bench l1_size`.

use std::collections::BTreeMap;

use wright_mcp::{McpServerConfig, McpServers, McpTransport};
use wright_tools::ToolRegistry;

/// A rough token count: about four bytes a token for English and JSON.
const BYTES_PER_TOKEN: usize = 4;
/// The spec's local estimate (`len // 3`), which the request-fitting uses.
const SPEC_BYTES_PER_TOKEN: usize = 3;

fn scripted(script: &std::path::Path) -> McpServerConfig {
    McpServerConfig::new(McpTransport::Stdio {
        command: wright_testkit::mcp_server::binary().display().to_string(),
        args: vec!["mcp-serve".into(), script.display().to_string()],
        env: BTreeMap::new(),
        cwd: None,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    println!("tools  L1 bytes  ~tokens (/4)  ~tokens (/3)  bytes/tool");
    for count in [0usize, 20, 150] {
        let script = dir.path().join(format!("{count}.json"));
        std::fs::write(&script, format!(r#"{{"generate_tools": {count}}}"#))?;
        let config = scripted(&script);
        let (servers, problems) = McpServers::start(vec![("bench".into(), config)]).await;
        if let Some(problem) = problems.first() {
            return Err(problem.to_string().into());
        }
        let mut registry = ToolRegistry::new();
        for tool in servers.tools() {
            registry.register(tool);
        }
        let bytes = registry.descriptions().len();
        println!(
            "{count:>5}  {bytes:>8}  {:>12}  {:>12}  {:>10}",
            bytes / BYTES_PER_TOKEN,
            bytes / SPEC_BYTES_PER_TOKEN,
            bytes.checked_div(count).unwrap_or(0)
        );
        servers.shutdown().await;
    }

    // Cold start: two servers of 20 tools each, started together, until both listed.
    let script = dir.path().join("two.json");
    std::fs::write(&script, r#"{"generate_tools": 20}"#)?;
    let mut times = Vec::new();
    for _ in 0..10 {
        let started = std::time::Instant::now();
        let (servers, problems) = McpServers::start(vec![
            ("one".into(), scripted(&script)),
            ("two".into(), scripted(&script)),
        ])
        .await;
        let elapsed = started.elapsed();
        if let Some(problem) = problems.first() {
            return Err(problem.to_string().into());
        }
        times.push(elapsed.as_secs_f64() * 1000.0);
        servers.shutdown().await;
    }
    times.sort_by(f64::total_cmp);
    println!(
        "\ncold start of two servers (20 tools each), 10 runs: median {:.1} ms, max {:.1} ms",
        times[times.len() / 2],
        times[times.len() - 1]
    );
    Ok(())
}
