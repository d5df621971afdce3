//! Liveness and readiness probes, for load balancers and orchestrators
//! ([`HttpConfig::health_endpoints`](super::HttpConfig::health_endpoints)).
//!
//! A probe skips the `Origin`/`Host` check: balancers and orchestrators
//! probe by address (`Host: 10.0.3.7:3000`), which the host rule may not
//! know, and a probe's answer reveals nothing but `ok` or `not ready` (why
//! a replica is not ready is logged, never sent).

use std::time::Duration;

use http::header::{ALLOW, CACHE_CONTROL};
use http::{HeaderValue, Method, StatusCode};

use super::config::Probe;
use super::shared::Shared;
use crate::transport::http::body::McpBody;
use crate::transport::http::responses::with_body;

/// How long the readiness checks may take together before the replica is
/// reported not ready: an orchestrator's probe usually gives up after a
/// second, and a store that slow is not serving requests either.
const READY_TIMEOUT: Duration = Duration::from_secs(1);

/// The answer to a probe: 200 `ok`, or 503 `not ready`; 405 for methods
/// other than GET and HEAD.
pub(crate) async fn answer(shared: &Shared, probe: Probe, method: &Method) -> http::Response<McpBody> {
    if method != Method::GET && method != Method::HEAD {
        let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n", method);
        response.headers_mut().insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let ready = match probe {
        Probe::Live => true,
        Probe::Ready => is_ready(shared).await,
    };
    if ready {
        text(StatusCode::OK, "ok\n", method)
    } else {
        text(StatusCode::SERVICE_UNAVAILABLE, "not ready\n", method)
    }
}

/// Not draining, and the event bus and (when 2025-era sessions are served
/// from a configured store) the session store answer in time.
pub(crate) async fn is_ready(shared: &Shared) -> bool {
    if shared.draining.load(std::sync::atomic::Ordering::Acquire) {
        return false;
    }
    let checks = async {
        if let Err(error) = shared.server.bus_ready().await {
            tracing::warn!(%error, "not ready: the event bus does not answer");
            return false;
        }
        #[cfg(feature = "session")]
        if let (Some(_), Some(store)) = (&shared.session, &shared.config.session_store)
            && let Err(error) = store.0.ready().await
        {
            tracing::warn!(%error, "not ready: the session store does not answer");
            return false;
        }
        true
    };
    tokio::time::timeout(READY_TIMEOUT, checks).await.unwrap_or_else(|_| {
        tracing::warn!("not ready: the readiness checks did not finish within a second");
        false
    })
}

fn text(status: StatusCode, body: &'static str, method: &Method) -> http::Response<McpBody> {
    let body = if method == Method::HEAD {
        McpBody::empty()
    } else {
        McpBody::full(bytes::Bytes::from_static(body.as_bytes()))
    };
    let mut response = with_body(status, "text/plain; charset=utf-8", body);
    // A cached "ok" would hide the replica's state from the next probe.
    response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
