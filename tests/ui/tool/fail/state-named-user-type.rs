use mcp_runtime::tool;

/// The user's own type, named like the runtime's `State<T>`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct State<T> {
    value: T,
}

/// Reads a value.
#[tool]
fn read(state: State<String>) -> String {
    state.value
}

fn main() {}
