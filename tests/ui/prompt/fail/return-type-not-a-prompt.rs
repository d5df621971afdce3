use mcp_runtime::prompt;

/// Asks for a number.
#[prompt]
fn number() -> u32 {
    42
}

fn main() {}
