use mcp_runtime::prompt;

/// Greets.
#[prompt(name = "")]
fn greet() -> String {
    "Hello".to_owned()
}

fn main() {}
