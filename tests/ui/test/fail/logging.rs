//! `logging` is `main`'s, not a test's.

#[mcp_runtime::test(logging)]
async fn logs() {}

fn main() {}
