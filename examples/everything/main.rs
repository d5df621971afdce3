//! Every feature of the framework in one server, and every fixture the
//! official MCP conformance suite calls.
//!
//! ```text
//! cargo run -p examples --bin everything -- --http 127.0.0.1:3000   # Streamable HTTP at /mcp
//! cargo run -p examples --bin everything -- --stdio                 # stdio
//! ```
//!
//! Everything here is declared with `#[tool]`, `#[resource]` and `#[prompt]`
//! (but for one tool that shows the full JSON Schema dialect, see
//! `json_schema.rs`); schemas come from the Rust types.

mod fixtures;
mod json_schema;
mod prompts;
mod resources;
mod round_trips;
mod session_fixtures;

use std::net::SocketAddr;

use anyhow::Context as _;

/// How to serve, from the command line.
enum Mode {
    Http(SocketAddr),
    Stdio,
}

fn parse_args() -> anyhow::Result<Mode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => Ok(Mode::Http("127.0.0.1:3000".parse()?)),
        [flag] if flag == "--stdio" => Ok(Mode::Stdio),
        [flag, addr] if flag == "--http" => {
            Ok(Mode::Http(addr.parse().with_context(|| format!("`{addr}` is not an address like 127.0.0.1:3000"))?))
        }
        _ => anyhow::bail!("usage: everything [--stdio | --http ADDR]"),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // Logs go to stderr: over stdio, stdout carries nothing but JSON-RPC.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .init();

    let mode = parse_args()?;
    let server = mcp_runtime::server!("everything", env!("CARGO_PKG_VERSION"))
        .tool(json_schema::tool())
        .instructions("A test server exposing every MCP feature; its tools are fixtures, not useful work.")
        .build()?;
    match mode {
        Mode::Stdio => server.serve_stdio().await?,
        Mode::Http(addr) => {
            tracing::info!("serving MCP at http://{addr}/mcp");
            server.serve_http(addr).await?;
        }
    }
    Ok(())
}
