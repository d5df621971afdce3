//! The echo server written with tower-mcp 0.25 as its documentation shows: a
//! `ToolBuilder` tool whose handler takes a `Deserialize + JsonSchema` input
//! and returns `CallToolResult::text`, in an `McpRouter`; over HTTP an
//! `HttpTransport` mounted at `/mcp` with `into_router_at` and served by axum
//! (the deployment guide's "Standalone or mounted" form), built with the
//! `protocol-2026-07-28` feature.
//!
//! `bench-tower-mcp http 127.0.0.1:PORT [--sessions]` or `bench-tower-mcp stdio`.
//! One transport serves both eras on the same endpoint with every default:
//! 2026-07-28 requests sessionless, answered with JSON; 2025-era clients in
//! sessions opened by `initialize` (also answered with JSON, tower-mcp's
//! default). `--sessions` adds `require_sessions()`, the guide's setting for
//! strict 2025-11-25 session semantics (a 2025-era request without
//! `Mcp-Session-Id` is refused); the 2026-07-28 path is the same either way.
//!
//! Built with the `io` feature, and with `BENCH_REDIS_URL` and
//! `BENCH_HTTP_URL` set, it also serves `lookup` (`bench_io::lookup`: a
//! Redis GET, then an HTTP GET), a second `ToolBuilder` tool.

use tower_mcp::{BoxError, CallToolResult, HttpTransport, McpRouter, StdioTransport, ToolBuilder};

/// The arguments of `echo`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

/// The arguments of `lookup`.
#[cfg(feature = "io")]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// The Redis key to read.
    key: String,
}

/// The router with its tool, `echo` (and `lookup` when configured).
fn router() -> McpRouter {
    let echo = ToolBuilder::new("echo")
        .description("Echoes the text back.")
        .handler(|EchoArgs { text }: EchoArgs| async move {
            Ok(CallToolResult::text(
                text, // bench: edited by the rebuild measurement
            ))
        })
        .build();
    let router = McpRouter::new().server_info("bench-tower-mcp", "0.1.0").tool(echo);
    #[cfg(feature = "io")]
    if bench_io::configured() {
        let lookup = ToolBuilder::new("lookup")
            .description(bench_io::DESCRIPTION)
            .handler(|LookupArgs { key }: LookupArgs| async move {
                Ok(match bench_io::lookup(&key).await {
                    Ok(text) => CallToolResult::text(text),
                    Err(why) => CallToolResult::error(why),
                })
            })
            .build();
        return router.tool(lookup);
    }
    router
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("http"), Some(addr)) => {
            let mut transport = HttpTransport::new(router());
            if args.iter().any(|a| a == "--sessions") {
                transport = transport.require_sessions();
            }
            let app = transport.into_router_at("/mcp");
            let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
            axum::serve(listener, app).await?;
        }
        (Some("stdio"), _) => StdioTransport::new(router()).run().await?,
        _ => return Err("usage: bench-tower-mcp (http ADDR [--sessions] | stdio)".into()),
    }
    Ok(())
}
