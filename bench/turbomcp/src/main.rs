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
