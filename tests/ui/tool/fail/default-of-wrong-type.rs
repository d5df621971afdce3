use mcp_runtime::tool;

/// Lists notes.
#[tool]
fn list(#[arg(default = "ten")] limit: u32) -> String {
    format!("{limit} notes")
}

fn main() {}
