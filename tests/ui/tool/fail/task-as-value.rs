use mcp_runtime::tool;

/// Exports everything.
#[tool(task = "required")]
async fn export() -> String {
    "exported".to_owned()
}

fn main() {}
