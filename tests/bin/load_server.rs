//! An HTTP server on loopback with tight limits and tools that misbehave,
//! for the `backpressure` tests, which measure its memory and open files
//! from outside (`/proc/<pid>/status`, `/proc/<pid>/fd`).
//!
//! Usage: `load_server <port> [<write-timeout-seconds>]`; the limits:
//!
//! | limit | value |
//! |---|---|
//! | requests handled at once | 4 |
//! | request timeout | 2 s |
//! | header read timeout (idle keep-alive) | 1 s |
//! | write timeout | 5 s, or as given |
//! | unread bytes on one event stream | 64 KiB |
//! | connections | 4096 |
//!
//! Both protocol eras are served. Tools: `slow` (answers after 1 s), `hang` (never answers, never looks
//! at its token), `flood` (announces `{count}` changes of `mem://doc`),
//! `chatter` (a task of its own sends progress notifications, 1 KiB each,
//! without pause until the request ends), `echo`.

use std::sync::OnceLock;
use std::time::Duration;

use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{
    Args, RequestContext, Server,
    entry::{ResourceEntry, ToolEntry},
    server::Eras,
};
use serde::Deserialize;

/// The server, for the tools that announce changes through it.
static SERVER: OnceLock<Server> = OnceLock::new();

#[derive(Deserialize, schemars::JsonSchema)]
struct Flood {
    count: u32,
    /// Announces `mem://doc/<pad bytes>` instead: a sub-resource of
    /// `mem://doc`, as long as asked.
    #[serde(default)]
    pad: usize,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().ok_or("usage: load_server <port> [<write-timeout-seconds>]")?.parse()?;
    let write_timeout = Duration::from_secs(args.next().map_or(Ok(5), |s| s.parse())?);
    // Warnings, and the runtime's line with the address it bound (`port` 0:
    // the system's choice), which the tests read.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn,mcp_runtime=info"))
        .init();
    let server = Server::builder("load", "1.0.0")
        .eras(Eras::Dual)
        .tool(ToolEntry::new("echo", |Args(t): Args<Text>| async move { t.text }))
        .tool(ToolEntry::new("slow", || async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            "slept"
        }))
        .tool(ToolEntry::new("hang", std::future::pending::<&'static str>))
        .tool(ToolEntry::new("flood", |Args(f): Args<Flood>| async move {
            let Some(server) = SERVER.get() else { return 0 };
            let uri = if f.pad == 0 { "mem://doc".to_owned() } else { format!("mem://doc/{}", "p".repeat(f.pad)) };
            for n in 0..f.count {
                server.notify_resource_updated(uri.clone());
                if n % 64 == 63 {
                    tokio::task::yield_now().await;
                }
            }
            f.count
        }))
        .tool(ToolEntry::new("chatter", |cx: RequestContext| async move {
            let token = cx.cancellation().clone();
            let words = "w".repeat(1024);
            tokio::spawn(async move {
                let mut n = 0.0;
                // Sent from a task of its own, so nothing waits for the
                // client to read them; stops once the request is over.
                while !token.is_cancelled() && cx.progress(n, None, Some(words.clone())) {
                    n += 1.0;
                    if n % 64.0 == 0.0 {
                        tokio::task::yield_now().await;
                    }
                }
            });
            std::future::pending::<&'static str>().await
        }))
        .resource(ResourceEntry::fixed("mem://doc", "doc", || async { "doc" }))
        .build()?;
    let _ = SERVER.set(server.clone());
    let config = HttpConfig::default()
        .max_in_flight(4)
        .request_timeout(Duration::from_secs(2))
        .header_read_timeout(Duration::from_secs(1))
        .write_timeout(write_timeout)
        .max_stream_buffer(64 * 1024)
        .max_connections(4096)
        // The floods of the tests come from one address; what they check is
        // the reaping of idle connections, not the per-address limit.
        .max_connections_per_address(4096);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    server.serve_http_with_shutdown(listener, config, std::future::pending()).await?;
    Ok(())
}
