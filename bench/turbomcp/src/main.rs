//! The echo server written with turbomcp 4.0.0-alpha.5 as its documentation
//! shows: a `#[server]` impl with one `#[tool]` method taking its argument by
//! name; over HTTP the one-liner `into_server().run_http(addr,
//! HttpConfig::new())` (endpoint `/mcp`, `DELETE` session termination wired
//! in), over stdio `run_stdio()`.
//!
//! `bench-turbomcp http 127.0.0.1:PORT [--sessions]` or `bench-turbomcp stdio`.
//! One endpoint serves both eras with every default: 2026-07-28 requests
//! statelessly, 2025-11-25 clients in sessions opened by `initialize`; each
//! answer is JSON unless the handler sends something first. turbomcp has no
//! switch between the two, so `--sessions` is accepted and changes nothing.
//!
//! It also serves `lookup` (`bench_io::lookup`: a Redis GET, then an HTTP
//! GET, from `BENCH_REDIS_URL` and `BENCH_HTTP_URL`), a second `#[tool]`
//! method, always: the `#[server]` macro does not honour a `#[cfg]` on a
//! method, so unlike the other peers it is listed whether or not the
//! variables are set.

use std::net::SocketAddr;

use turbomcp::http::{HttpConfig, ServeHttp};
use turbomcp::prelude::*;

/// The server: no state, the tool list comes from the `#[server]` impl.
#[derive(Clone)]
struct Echo;

#[server(name = "bench-turbomcp", version = "0.1.0")]
impl Echo {
    /// Echoes the text back.
    #[tool]
    async fn echo(&self, #[description("The text to return.")] text: String) -> String {
        text // bench: edited by the rebuild measurement
    }

    /// Reads a key from Redis and calls an HTTP endpoint.
    #[tool]
    async fn lookup(&self, #[description("The Redis key to read.")] key: String) -> McpResult<String> {
        bench_io::lookup(&key).await.map_err(|why| McpError::tool_execution_failed("lookup", why))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("http"), Some(addr)) => {
            let addr: SocketAddr = addr.parse()?;
            Echo.into_server().run_http(addr, HttpConfig::new()).await?;
        }
        (Some("stdio"), _) => Echo.run_stdio().await?,
        _ => return Err("usage: bench-turbomcp (http ADDR [--sessions] | stdio)".into()),
    }
    Ok(())
}
