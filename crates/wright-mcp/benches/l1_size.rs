//! The L1 cost of MCP tools (issue 15, "many tools, small context"): the size of the tool
//! descriptions `ToolRegistry::descriptions` renders for 0, 20 and 150 tools of the testkit's
//! scripted server. `cargo bench -p wright-mcp --bench l1_size`.

use std::collections::BTreeMap;

use wright_mcp::{McpServerConfig, McpServers, McpTransport};
use wright_tools::ToolRegistry;

/// A rough token count: about four bytes a token for English and JSON.
const BYTES_PER_TOKEN: usize = 4;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    println!("tools  L1 bytes  ~tokens  bytes/tool");
    for count in [0usize, 20, 150] {
        let script = dir.path().join(format!("{count}.json"));
        std::fs::write(&script, format!(r#"{{"generate_tools": {count}}}"#))?;
        let config = McpServerConfig::new(McpTransport::Stdio {
            command: wright_testkit::mcp_server::binary().display().to_string(),
            args: vec!["mcp-serve".into(), script.display().to_string()],
            env: BTreeMap::new(),
            cwd: None,
        });
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
            "{count:>5}  {bytes:>8}  {:>7}  {:>10}",
            bytes / BYTES_PER_TOKEN,
            bytes.checked_div(count).unwrap_or(0)
        );
        servers.shutdown().await;
    }
    Ok(())
}
