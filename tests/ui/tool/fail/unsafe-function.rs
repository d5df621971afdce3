use mcp_runtime::tool;

/// Reads a raw pointer.
#[tool]
unsafe fn peek(address: usize) -> u8 {
    unsafe { *(address as *const u8) }
}

fn main() {}
