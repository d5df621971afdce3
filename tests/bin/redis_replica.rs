//! One replica of a server whose change events travel through Redis,
//! served over stdio. Spawned twice by the `redis_bus` test.
//!
//! Usage: `redis_replica <redis-url> <channel>`

use mcp_runtime::events::ServerEvent;
use mcp_runtime::redis::RedisBus;
use mcp_runtime::{
    RequestContext, Server,
    entry::{ResourceEntry, ToolEntry},
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(channel)) = (args.next(), args.next()) else {
        return Err("usage: redis_replica <redis-url> <channel>".into());
    };
    let bus = RedisBus::connect(&url, &channel).await?;
    let server = Server::builder("replica", "1.0.0")
        .event_bus(bus)
        .tool(ToolEntry::new("announce_tools_changed", |cx: RequestContext| async move {
            cx.server().notify(ServerEvent::ToolsListChanged);
            "announced"
        }))
        .tool(ToolEntry::new("touch_doc", |cx: RequestContext| async move {
            cx.server().notify_resource_updated("mem://doc");
            "touched"
        }))
        .resource(ResourceEntry::fixed("mem://doc", "doc", || async { "a document" }))
        .build()?;
    server.serve_stdio().await?;
    Ok(())
}
