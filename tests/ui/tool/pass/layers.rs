use std::time::Duration;

use mcp_runtime::middleware::{Audit, TimeLimit};
use mcp_runtime::tool;

/// Waits, timed and audited: two layers, the first the outermost.
#[tool(layer = Audit::new(), layer = TimeLimit::new(Duration::from_secs(5)))]
async fn wait() -> String {
    "waited".to_owned()
}

fn main() {
    let _server = mcp_runtime::Server::builder("s", "1").tools(mcp_runtime::tools![wait]).build();
}
