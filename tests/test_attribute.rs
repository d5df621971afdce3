//! `#[mcp_runtime::test]` in a test build, where its functions run: one
//! thread by default, tokio's arguments passed on, a `Result` returned, and
//! the runtime named by `crate = path`. `::mcp_runtime` is this crate here,
//! so a generated path that forgot `crate = ...` would not resolve.

extern crate mcp_runtime as renamed;
#[allow(unused_extern_crates, reason = "what `::mcp_runtime` means here, not something to use")]
extern crate self as mcp_runtime;

use renamed::tokio::runtime::{Handle, RuntimeFlavor};

#[renamed::test(crate = ::renamed)]
async fn runs_on_one_thread_by_default() {
    assert_eq!(Handle::current().runtime_flavor(), RuntimeFlavor::CurrentThread);
}

#[renamed::test(crate = ::renamed, flavor = "multi_thread", worker_threads = 2)]
async fn passes_tokio_arguments_on() {
    assert_eq!(Handle::current().runtime_flavor(), RuntimeFlavor::MultiThread);
    assert_eq!(Handle::current().metrics().num_workers(), 2);
}

#[renamed::test(crate = ::renamed)]
async fn returns_a_result() -> Result<(), Box<dyn std::error::Error>> {
    let ping = renamed::entry::ToolEntry::new("ping", || async { "pong" });
    let server = renamed::Server::builder("test-attribute", "1.0.0").tool(ping).build()?;
    let client = renamed::client::Client::in_process(server);
    let result = client.call_tool("ping", renamed::serde_json::json!({})).await?;
    let renamed::protocol::ContentBlock::Text(text) = &result.content[0] else { panic!("a text block: {result:?}") };
    assert_eq!(text.text, "pong");
    Ok(())
}
