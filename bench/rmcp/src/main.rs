//! The echo server written with rmcp 3.11 as its documentation shows: a
//! `#[tool_router]` impl with one `#[tool]` taking `Parameters<T>`, a
//! `#[tool_handler]` `ServerHandler`, and over HTTP a `StreamableHttpService`
//! nested in axum, stateless (legacy session mode off) with JSON responses.
//!
//! `bench-rmcp http 127.0.0.1:PORT [--tools N] [--sessions]` or
//! `bench-rmcp stdio [--tools N]`. `--tools N` serves N tools in all: `echo`
//! and N - 1 more with the same input, for the scaling runs. `--sessions`
//! serves 2025-era clients in sessions instead (legacy session mode on, the
//! `LocalSessionManager` keeping them), for the 2025-era rows; rmcp then
//! answers every request with an event stream, whatever `json_response` says.
//!
//! Built with the `io` feature, and with `BENCH_REDIS_URL` and
//! `BENCH_HTTP_URL` set, it also serves `lookup` (`bench_io::lookup`: a
//! Redis GET, then an HTTP GET) from a second `#[tool_router]`, added to
//! the first as rmcp's documentation combines routers.

use std::sync::Arc;

use axum::serve::ListenerExt;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServiceExt, schemars, tool, tool_handler, tool_router};

/// The arguments of `echo`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

/// The server. The router is built once and shared, as the documentation's
/// servers keep it in a field; stateless HTTP makes one handler per request.
#[derive(Clone)]
struct Echo {
    tool_router: Arc<ToolRouter<Echo>>,
}

#[tool_router]
impl Echo {
    /// Echoes the text back.
    #[tool]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text // bench: edited by the rebuild measurement
    }
}

/// The arguments of `lookup`.
#[cfg(feature = "io")]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct LookupArgs {
    /// The Redis key to read.
    key: String,
}

#[cfg(feature = "io")]
#[tool_router(router = io_router)]
impl Echo {
    /// Reads a key from Redis and calls an HTTP endpoint.
    #[tool]
    async fn lookup(&self, Parameters(LookupArgs { key }): Parameters<LookupArgs>) -> Result<String, String> {
        bench_io::lookup(&key).await
    }
}

#[tool_handler(router = self.tool_router)]
impl rmcp::ServerHandler for Echo {}

/// `echo` plus `tools - 1` tools with the same input schema.
fn router(tools: usize) -> ToolRouter<Echo> {
    let mut router = Echo::tool_router();
    #[cfg(feature = "io")]
    if bench_io::configured() {
        router += Echo::io_router();
    }
    for i in 1..tools {
        let mut attr = Echo::echo_tool_attr();
        attr.name = format!("filler_{i:04}").into();
        attr.description =
            Some(format!("Extra tool number {i}, registered so that lookups have {tools} tools to search.").into());
        router.add_route(ToolRoute::new_dyn(attr, |_| {
            Box::pin(async { Ok(CallToolResult::success(vec![ContentBlock::text("filler")]).into()) })
        }));
    }
    router
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tools = match args.iter().position(|a| a == "--tools") {
        Some(i) => args.get(i + 1).ok_or("--tools needs a number")?.parse()?,
        None => 1,
    };
    let tool_router = Arc::new(router(tools));
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("http"), Some(addr)) => {
            let sessions = args.iter().any(|a| a == "--sessions");
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(sessions)
                .with_json_response(true)
                .with_sse_keep_alive(None);
            let service = StreamableHttpService::new(
                move || Ok(Echo { tool_router: Arc::clone(&tool_router) }),
                Arc::new(LocalSessionManager::default()),
                config,
            );
            let app = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
            if sessions {
                // An event stream leaves in several writes; with Nagle's
                // algorithm on (axum's default) each answer would wait for
                // the client's delayed ACK, about 40 ms, which is not rmcp's
                // work. The stateless JSON answer leaves in one write.
                let listener = listener.tap_io(|stream| {
                    let _ = stream.set_nodelay(true);
                });
                axum::serve(listener, app).await?;
            } else {
                axum::serve(listener, app).await?;
            }
        }
        (Some("stdio"), _) => {
            let running = Echo { tool_router }.serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        _ => return Err("usage: bench-rmcp (http ADDR [--sessions] | stdio) [--tools N]".into()),
    }
    Ok(())
}
