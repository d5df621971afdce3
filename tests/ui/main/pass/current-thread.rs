//! `#[mcp_runtime::main]` passes tokio's arguments on and runs the body.

#[mcp_runtime::main(flavor = "current_thread")]
async fn main() {
    let server = mcp_runtime::Server::builder("ui", "0.0.0").build().unwrap();
    assert_eq!(server.tools().count(), 0);
    mcp_runtime::tokio::task::yield_now().await;
}
