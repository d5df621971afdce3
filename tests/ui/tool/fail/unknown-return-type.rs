use mcp_runtime::tool;

/// Looks something up.
#[tool]
fn lookup(query: String) -> Strng {
    query
}

fn main() {}
