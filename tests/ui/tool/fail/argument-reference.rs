use mcp_runtime::tool;

/// Echoes its input.
#[tool]
fn echo(text: &str) -> String {
    text.to_owned()
}

fn main() {}
