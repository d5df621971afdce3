use mcp_runtime::tool;

/// Adds the two halves of a pair.
#[tool]
fn sum((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
