use mcp_runtime::tool;

/// Spins.
#[tool]
fn spin() -> ! {
    loop {}
}

fn main() {}
