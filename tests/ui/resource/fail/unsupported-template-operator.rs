use mcp_runtime::resource;

/// Search results.
#[resource("search://results{?query}")]
fn results(query: String) -> String {
    query
}

fn main() {}
