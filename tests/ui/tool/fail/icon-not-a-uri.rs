use mcp_runtime::tool;

/// Adds two numbers.
#[tool(icons = [42])]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
