use mcp_runtime::tool;

/// Greets someone.
#[tool]
fn greet(name: impl Into<String>) -> String {
    format!("Hello, {}!", name.into())
}

fn main() {}
