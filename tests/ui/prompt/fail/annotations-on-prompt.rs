use mcp_runtime::prompt;

/// Asks for a haiku.
#[prompt(annotations(read_only))]
fn haiku() -> String {
    "Write a haiku".to_owned()
}

fn main() {}
