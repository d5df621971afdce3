use mcp_runtime::tool;

/// Adds two numbers.
#[tool(nmae = "add")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
