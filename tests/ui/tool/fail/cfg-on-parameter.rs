use mcp_runtime::tool;

/// Adds.
#[tool]
fn add(a: i64, #[cfg(any())] _b: i64, #[cfg_attr(all(), arg(default = 1))] c: i64) -> i64 {
    a + c
}

fn main() {}
