//! An existing axum application that serves MCP beside its own routes.
//!
//! - `GET /health` is the application's own, open to all;
//! - `GET /api/counter` and `POST /api/counter` are its small JSON API;
//! - `POST /mcp` is the MCP endpoint, whose tools share the application's
//!   counter and see the caller the application identified.
//!
//! `/api/*` and `/mcp` sit behind the application's own bearer-token layer
//! ([`auth`], a demonstration, not real authentication), which answers 401
//! before MCP sees anything and otherwise puts the caller's [`auth::User`]
//! in the request's extensions; a tool reads it with
//! [`Extension<User>`](mcp_runtime::extract::Extension).
//!
//! ```text
//! cargo run -p examples --bin axum_app                # http://127.0.0.1:3000
//! cargo run -p examples --bin axum_app -- --addr 127.0.0.1:8080
//! curl -H 'Authorization: Bearer ada-token' -X POST http://127.0.0.1:3000/api/counter
//! ```

mod auth;
#[path = "../observability.rs"]
mod observability;
mod tools;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context as _, bail};
use axum::Router;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use mcp_runtime::Server;
use mcp_runtime::transport::http::HttpConfig;

use crate::auth::{Tokens, User};

/// The application's state, shared by its own routes and the MCP tools.
#[derive(Debug, Clone, Default)]
pub(crate) struct Counter(Arc<AtomicU64>);

impl Counter {
    /// Adds one; returns the new value.
    pub(crate) fn increment(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The current value.
    pub(crate) fn value(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The whole application: its routes, and MCP at `/mcp`, behind its auth
/// layer.
pub(crate) fn app(counter: Counter, tokens: Tokens) -> anyhow::Result<Router> {
    let mcp =
        Server::builder("axum-app", env!("CARGO_PKG_VERSION")).tools(tools::all()).state(counter.clone()).build()?;
    // The service keeps its own `Host`/`Origin` checks (loopback names by
    // default); list the names it is reached by when deployed elsewhere.
    let protected = Router::new()
        .route("/api/counter", get(read_counter).post(bump_counter))
        .route_service("/mcp", mcp.http_service(HttpConfig::default()))
        .layer(axum::middleware::from_fn_with_state(tokens, auth::require_bearer));
    Ok(Router::new().route("/health", get(|| async { "ok" })).merge(protected).with_state(counter))
}

async fn read_counter(State(counter): State<Counter>) -> impl IntoResponse {
    json(&serde_json::json!({ "value": counter.value() }))
}

async fn bump_counter(
    State(counter): State<Counter>,
    axum::Extension(user): axum::Extension<User>,
) -> impl IntoResponse {
    json(&serde_json::json!({ "value": counter.increment(), "by": user.name }))
}

/// A JSON body: axum's `Json` needs a feature this workspace does not
/// otherwise use.
fn json(value: &serde_json::Value) -> impl IntoResponse + use<> {
    ([(CONTENT_TYPE, "application/json")], value.to_string())
}

const USAGE: &str = "usage: axum_app [--addr ADDR]

Serves /health, /api/counter and the MCP endpoint /mcp over HTTP.

  --addr ADDR    the address to listen on (default 127.0.0.1:3000)
  --help, -h     this text";

/// The address to serve at, or `None` when the usage was asked for.
fn parse_args(args: impl IntoIterator<Item = String>) -> anyhow::Result<Option<SocketAddr>> {
    let mut addr: SocketAddr = "127.0.0.1:3000".parse()?;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--addr" => {
                let value = args.next().context("--addr needs an address such as 127.0.0.1:3000")?;
                addr = value.parse().with_context(|| format!("`{value}` is not an address"))?;
            }
            "--help" | "-h" => return Ok(None),
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    Ok(Some(addr))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let Some(addr) = parse_args(std::env::args().skip(1))? else {
        use std::io::Write as _;
        writeln!(std::io::stdout(), "{USAGE}")?;
        return Ok(());
    };
    let _telemetry = observability::init("axum_app")?;
    let app = app(Counter::default(), Tokens::demo())?;
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("binding {addr}"))?;
    tracing::info!(
        "serving http://{addr}/health, /api/counter and /mcp (demonstration tokens: ada-token, grace-token)"
    );
    axum::serve(listener, app).with_graceful_shutdown(shutdown()).await?;
    Ok(())
}

async fn shutdown() {
    // A process that cannot watch for Ctrl-C serves until it is killed.
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests;
