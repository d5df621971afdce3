use mcp_runtime::tool;

/// Looks something up.
#[tool]
fn lookup(query: Strng) -> String {
    query.to_string()
}

fn main() {}
