//! `logging` is a flag.

#[mcp_runtime::main(logging = true)]
async fn main() {}
