use mcp_runtime::tool;

// schemars 0.8's `JsonSchema` is not the schemars 1 trait the runtime needs.
#[derive(serde::Deserialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
struct Filter {
    tag: String,
}

/// Lists notes.
#[tool]
fn list(filter: Filter) -> String {
    filter.tag
}

fn main() {}
