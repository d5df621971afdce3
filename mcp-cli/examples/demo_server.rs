//! A small server for the CLI's tests, over its stdio, or over HTTP on a
//! loopback port of the system's choice (`--http`: its URL is the first
//! line of stdout). Any era.

use mcp_runtime::entry::{PromptEntry, ResourceEntry, ToolEntry};
use mcp_runtime::server::Eras;
use mcp_runtime::{Args, Server};
use serde_json::Value;

fn server() -> Server {
    Server::builder("demo", "1.0.0")
        .eras(Eras::Dual)
        .tool(ToolEntry::new("add", |Args(args): Args<Value>| async move {
            (args["a"].as_i64().unwrap_or_default() + args["b"].as_i64().unwrap_or_default()).to_string()
        }))
        .tool(ToolEntry::new("fail", || async { Err::<String, _>("it failed, as asked".to_owned()) }))
        .prompt(PromptEntry::new("greet", || async { "Say hello." }))
        .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Demo" }))
        .build()
        .expect("a valid server")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("--http") {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        use std::io::Write as _;
        writeln!(std::io::stdout(), "http://{}/mcp", listener.local_addr()?)?;
        let config = mcp_runtime::transport::http::HttpConfig::default();
        return server().serve_http_with_shutdown(listener, config, std::future::pending()).await;
    }
    server().serve_stdio().await
}
