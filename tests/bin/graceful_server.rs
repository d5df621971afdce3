//! A server on a loopback port, serving both protocol eras, whose `slow`
//! tool holds every call until a file appears: `sigterm` sends SIGTERM
//! while calls are held and checks what the shutdown lets through. Each
//! call writes `started <n>` to stderr when its handler begins; the
//! server's own warnings and notes go there too.
//!
//! Usage: `graceful_server <port> <release-file>`

use std::path::PathBuf;
use std::time::Duration;

use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Args, Server, entry::ToolEntry};
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
struct SlowArgs {
    n: u64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(port), Some(release)) = (args.next(), args.next()) else {
        return Err("usage: graceful_server <port> <release-file>".into());
    };
    let port: u16 = port.parse()?;
    let release = PathBuf::from(release);
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_max_level(tracing::Level::INFO).init();
    let server = Server::builder("graceful", "1.0.0")
        .tool(ToolEntry::new("slow", move |Args(a): Args<SlowArgs>| {
            let release = release.clone();
            async move {
                eprintln!("started {}", a.n);
                while !release.exists() {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                format!("done {}", a.n)
            }
        }))
        .tool(ToolEntry::new("quick", || async { "quick" }))
        .build()?;
    server.serve_http_with(("127.0.0.1", port), HttpConfig::default()).await?;
    Ok(())
}
