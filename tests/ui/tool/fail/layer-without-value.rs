use mcp_runtime::tool;

/// Waits, with a layer named but not given.
#[tool(layer)]
async fn wait() -> String {
    "waited".to_owned()
}

fn main() {}
