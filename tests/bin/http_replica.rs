//! One replica of an HTTP server whose 2025-era sessions are kept in Redis,
//! on loopback. Spawned twice by the `redis_sessions` test.
//!
//! Usage: `http_replica <redis-url> <prefix> <port>`

use std::time::Duration;

use mcp_runtime::input::Elicitation;
use mcp_runtime::legacy::RedisSessionStore;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Input, Logger, RequestContext, ResourceEntry, Server, ToolEntry};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(prefix), Some(port)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: http_replica <redis-url> <prefix> <port>".into());
    };
    let port: u16 = port.parse()?;
    // Warnings (a message between replicas that could not be read, a store
    // out of reach) show in the test's output.
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_max_level(tracing::Level::WARN).init();
    let store = RedisSessionStore::connect(&url, &prefix).await?;
    let server = Server::builder("replica", "1.0.0")
        .tool(ToolEntry::new("ask", |input: Input, log: Logger| async move {
            log.info("asking for a name");
            let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
            format!("Hello, {}!", answer.field("name").unwrap_or_default())
        }))
        .tool(ToolEntry::new("wait", |cx: RequestContext| async move {
            tokio::select! {
                () = cx.cancellation().cancelled() => "cancelled",
                () = tokio::time::sleep(Duration::from_secs(60)) => "waited",
            }
        }))
        .tool(ToolEntry::new("touch_doc", |cx: RequestContext| async move {
            cx.server().notify_resource_updated("mem://doc");
            "touched"
        }))
        .resource(ResourceEntry::fixed("mem://doc", "doc", || async { "a document" }))
        .build()?;
    server.serve_http_with(("127.0.0.1", port), HttpConfig::default().session_store(store)).await?;
    Ok(())
}
