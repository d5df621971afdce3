use mcp_runtime::tool;

/// Exports everything.
#[tool(task(requried))]
async fn export() -> String {
    "exported".to_owned()
}

fn main() {}
