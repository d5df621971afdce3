use std::time::Duration;

use mcp_runtime::tool;

/// Waits, within a limit given the wrong way.
#[tool(layer = Duration::from_secs(5))]
async fn wait() -> String {
    "waited".to_owned()
}

fn main() {}
