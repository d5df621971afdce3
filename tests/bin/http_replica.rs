//! One replica of an HTTP server on loopback that shares what replicas must
//! share through Redis (2025-era sessions, change events, tasks, with a
//! one-second task lease so that a lost replica's tasks fail quickly) and,
//! when given one, the key sealing `requestState`; with health probes at
//! `/healthz` and `/readyz`. Spawned by the `redis_sessions`,
//! `redis_tasks` and `replica_loss` tests.
//!
//! Usage: `http_replica <redis-url> <prefix> <port> [<request-state-key>]`;
//! `TASK_LEASE_SECS` sets another task lease (`redis_cluster` outlasts
//! failovers with it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_runtime::input::Elicitation;
use mcp_runtime::redis::RedisBus;
use mcp_runtime::redis::RedisSessionStore;
use mcp_runtime::redis::RedisTaskStore;
use mcp_runtime::tasks::TaskSupport;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{
    CancellationToken, Input, RequestContext, Server,
    entry::{ResourceEntry, ToolEntry},
    extract::Logger,
    server::RequestStateKey,
};

/// How many `slow` handlers of this process saw their token fire.
static CANCELLED: AtomicU64 = AtomicU64::new(0);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(prefix), Some(port)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: http_replica <redis-url> <prefix> <port> [<request-state-key>]".into());
    };
    let key = args.next();
    let port: u16 = port.parse()?;
    // Warnings (a message between replicas that could not be read, a store
    // out of reach) show in the test's output, beside the runtime's line
    // with the address it bound (`port` 0: the system's choice), which the
    // tests read.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn,mcp_runtime=info"))
        .init();
    let store = RedisSessionStore::connect(&url, &prefix).await?;
    let bus = RedisBus::connect(&url, &format!("{prefix}:events")).await?;
    let tasks = RedisTaskStore::connect(&url, &prefix).await?;
    let lease = std::env::var("TASK_LEASE_SECS").ok().and_then(|secs| secs.parse().ok()).unwrap_or(1);
    let mut builder =
        Server::builder("replica", "1.0.0").event_bus(bus).task_store(tasks).task_lease(Duration::from_secs(lease));
    if let Some(key) = key {
        builder = builder.request_state_key(RequestStateKey::from_secret(key.as_bytes()));
    }
    let server = builder
        .tool(
            ToolEntry::new("ask", |input: Input, log: Logger| async move {
                log.info("asking for a name");
                let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
                format!("Hello, {}!", answer.field("name").unwrap_or_default())
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("slow", |cancel: CancellationToken| async move {
                tokio::select! {
                    () = cancel.cancelled() => {
                        CANCELLED.fetch_add(1, Ordering::SeqCst);
                        "cancelled"
                    }
                    () = tokio::time::sleep(Duration::from_secs(60)) => "slept",
                }
            })
            .task(TaskSupport::required()),
        )
        .tool(ToolEntry::new("cancelled_here", || async { CANCELLED.load(Ordering::SeqCst).to_string() }))
        .tool(ToolEntry::new("wait", |cx: RequestContext, log: Logger| async move {
            // Tells the caller that the handler runs, so that a test cancels
            // it then and not before.
            log.info("waiting");
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
    let config = HttpConfig::default().session_store(store).health_endpoints("/healthz", "/readyz");
    server.serve_http_with(("127.0.0.1", port), config).await?;
    Ok(())
}
