use mcp_runtime::resource;

/// The answer.
#[resource("answers://everything")]
fn answer() -> u32 {
    42
}

fn main() {}
