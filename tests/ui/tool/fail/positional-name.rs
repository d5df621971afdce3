use mcp_runtime::tool;

/// Adds.
#[tool("add")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
