use mcp_runtime::tool;

/// What to search for: the user's own type, named like the `Input` context.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Input {
    query: String,
}

/// Searches.
#[tool]
fn search(input: Input) -> String {
    input.query
}

fn main() {}
