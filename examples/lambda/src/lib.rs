//! The `everything` example's stateless server as an AWS Lambda function,
//! behind a Lambda function URL or API Gateway (REST APIs send version 1.0
//! payloads; HTTP APIs and function URLs send version 2.0 ones). Deploying
//! it: see `main.rs`.
//!
//! Only the 2026-07-28 revision is served ([`Eras::Stateless`]): no request
//! depends on what an earlier one left in memory, so any instance, warm or
//! cold, answers any request, including the retry of a multi round-trip
//! request, whose `requestState` is sealed with the key every instance
//! shares ([`Settings::request_state_key`]).
//!
//! Lambda's buffered mode sends a response once it is complete, so every
//! answer is a whole document (see [`Handler`]). What follows:
//!
//! - tools, resources, prompts, completion and multi round-trip requests
//!   work as on any server, on every shape, at any path the function is
//!   reached by (the path is not looked at);
//! - progress and log notifications never reach the client: the result
//!   comes alone, as JSON (`logging` is not declared);
//! - `subscriptions/listen` is not offered (`listChanged` is not
//!   declared): it is answered 404 with `-32601`;
//! - 2025-era clients are refused: `initialize` is answered 400 with an
//!   error naming the one version served, and no session is ever opened;
//! - any `Host` is accepted, but a page of another origin is refused (403):
//!   the function answers clients, not browsers' cross-origin calls.

#[path = "../../everything/fixtures.rs"]
mod fixtures;
#[path = "../../everything/json_schema.rs"]
mod json_schema;
#[path = "../../everything/prompts.rs"]
mod prompts;
#[path = "../../everything/resources.rs"]
mod resources;
#[path = "../../everything/round_trips.rs"]
mod round_trips;
#[path = "../../everything/session_fixtures.rs"]
mod session_fixtures;

mod settings;

use std::convert::Infallible;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt as _;
use lambda_http::{Body, BoxFuture, Request, Service};
use mcp_runtime::transport::http::{HttpConfig, McpService};
use mcp_runtime::{BuildError, server::Eras};

pub use settings::{REQUEST_STATE_KEY_VAR, Settings, SettingsError};

/// How long a handler may run: API Gateway gives up on an integration
/// after 29 s (its default), so a handler cut at 25 s still gets its
/// JSON-RPC error to the client instead of the gateway's 504.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(25);

/// The function's handler: one Lambda event (already turned into an HTTP
/// request by `lambda_http`) in, one complete response out. Cheap to
/// clone; what it holds is read-only.
///
/// It is the runtime's [`McpService`] with two adaptations to buffered
/// Lambda responses: a client that takes JSON is asked for JSON only, so
/// that no event stream is started for a request's progress or log
/// notifications (they are dropped; the result comes as JSON), and the
/// response body is read to its end before it is handed back.
#[derive(Clone, Debug)]
pub struct Handler {
    mcp: McpService,
}

impl Handler {
    /// The server with every fixture of the `everything` example, stateless
    /// only, without list-change or log notifications (neither can reach a
    /// client through a buffered response), mounted behind any `Host`: the
    /// function's address is AWS's (or a custom domain in front of it),
    /// not a loopback name a web page could rebind.
    pub fn new(settings: &Settings) -> Result<Self, BuildError> {
        let server = mcp_runtime::server!("lambda-example", env!("CARGO_PKG_VERSION"))
            .tool(json_schema::tool())
            .instructions("A test server exposing the MCP fixtures; its tools are fixtures, not useful work.")
            .eras(Eras::Stateless)
            .list_changed(false)
            .logging(false)
            .request_state_key(settings.request_state_key.clone())
            .build()?;
        // Lambda buffers a response until it ends: a stream's events would
        // all arrive with the result.
        let config = HttpConfig::default().allow_any_host().request_timeout(REQUEST_TIMEOUT).buffered_responses(true);
        Ok(Handler { mcp: server.http_service(config) })
    }

    /// Answers one request completely.
    pub async fn handle(&self, request: Request) -> http::Response<Body> {
        let Ok(response) = self.mcp.handle(request).await;
        let (parts, body) = response.into_parts();
        // Every body served here ends: there are no listen streams or
        // 2025-era session streams, and handlers are bounded in time.
        let Ok(collected) = body.collect().await;
        let bytes = collected.to_bytes();
        let body = if bytes.is_empty() {
            Body::Empty
        } else {
            // JSON and event streams are UTF-8 text: sent as such, not
            // Base64-encoded.
            match String::from_utf8(bytes.to_vec()) {
                Ok(text) => Body::Text(text),
                Err(not_text) => Body::Binary(not_text.into_bytes()),
            }
        };
        http::Response::from_parts(parts, body)
    }
}

/// What `lambda_http::run` drives.
impl Service<Request> for Handler {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<http::Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let handler = self.clone();
        Box::pin(async move { Ok(handler.handle(request).await) })
    }
}
