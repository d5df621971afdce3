use mcp_runtime::tool;

/// Adds two numbers.
#[tool(icons = ["add.png"])]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
