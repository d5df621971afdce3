use mcp_runtime::tool;

/// Adds.
#[tool]
fn add(a: i64, b: i64) -> i64
where
    i64: Copy,
{
    a + b
}

fn main() {}
