use mcp_runtime::tool;

#[derive(serde::Deserialize)]
struct Filter {
    tag: String,
}

/// Lists notes.
#[tool]
fn list(filter: Filter) -> String {
    filter.tag
}

fn main() {}
