//! `#[mcp_runtime::test]` takes tokio's arguments, and `crate = path` for a
//! runtime reached by another name. (A binary compiles `#[test]` functions
//! out: `tests/test_attribute.rs` runs them.)

extern crate mcp_runtime as renamed;

#[mcp_runtime::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_two_workers() {
    mcp_runtime::tokio::task::yield_now().await;
}

#[renamed::test(crate = ::renamed)]
async fn through_a_renamed_runtime() -> Result<(), Box<dyn std::error::Error>> {
    Ok(())
}

fn main() {}
