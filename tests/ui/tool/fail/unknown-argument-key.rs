use mcp_runtime::tool;

/// Greets someone.
#[tool]
fn greet(#[arg(descripton = "Who to greet")] name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
