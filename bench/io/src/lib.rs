//! The I/O-bound tool of the benchmark, `lookup`: `GET key` on a local
//! Redis, then an HTTP GET of a local endpoint, answered as
//! `"<value> <body>"` — the shape of the published comparisons' workload
//! (a tool that reads Redis and calls an HTTP API).
//!
//! Every Rust peer calls [`lookup`] from its own tool, so what differs
//! between them is the framework alone. The clients are made once per
//! process, on the first call, from `BENCH_REDIS_URL` (e.g.
//! `redis://127.0.0.1:6390`) and `BENCH_HTTP_URL` (e.g.
//! `http://127.0.0.1:8080/data`): one multiplexed Redis connection (the
//! `redis` crate's asynchronous default) and one keep-alive HTTP pool
//! (`hyper-util`'s client), both shared by every call.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use redis::AsyncCommands;
use tokio::sync::OnceCell;

/// The variable naming the Redis server.
pub const REDIS_URL: &str = "BENCH_REDIS_URL";
/// The variable naming the HTTP endpoint.
pub const HTTP_URL: &str = "BENCH_HTTP_URL";

/// The tool's description, the same in every peer.
pub const DESCRIPTION: &str = "Reads a key from Redis and calls an HTTP endpoint.";

/// Whether the environment names both backends: the peers that can leave
/// a tool out register `lookup` only then, so that their other
/// measurements see the tool list they always saw.
pub fn configured() -> bool {
    std::env::var_os(REDIS_URL).is_some() && std::env::var_os(HTTP_URL).is_some()
}

struct Backends {
    redis: redis::aio::MultiplexedConnection,
    http: Client<HttpConnector, Empty<Bytes>>,
    url: hyper::Uri,
}

async fn connect() -> Result<Backends, String> {
    let variable = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
    let redis = redis::Client::open(variable(REDIS_URL)?)
        .map_err(|error| format!("{REDIS_URL}: {error}"))?
        .get_multiplexed_async_connection()
        .await
        .map_err(|error| format!("connecting to Redis: {error}"))?;
    let url = variable(HTTP_URL)?.parse().map_err(|error| format!("{HTTP_URL}: {error}"))?;
    let http = Client::builder(TokioExecutor::new()).build_http();
    Ok(Backends { redis, http, url })
}

/// Reads `key` from Redis, then GETs the endpoint: `"<value> <body>"`, or
/// why not (a missing key, an unreachable backend, a non-2xx answer).
///
/// ```no_run
/// # async fn demo() {
/// let text = bench_io::lookup("greeting").await;
/// # }
/// ```
pub async fn lookup(key: &str) -> Result<String, String> {
    static BACKENDS: OnceCell<Backends> = OnceCell::const_new();
    let backends = BACKENDS.get_or_try_init(connect).await?;
    let value: Option<String> =
        backends.redis.clone().get(key).await.map_err(|error| format!("Redis GET {key}: {error}"))?;
    let value = value.ok_or_else(|| format!("no key {key} in Redis"))?;
    let response =
        backends.http.get(backends.url.clone()).await.map_err(|error| format!("GET {}: {error}", backends.url))?;
    let status = response.status();
    let body = response.into_body().collect().await.map_err(|error| format!("reading the body: {error}"))?;
    if !status.is_success() {
        return Err(format!("GET {}: {status}", backends.url));
    }
    let body = String::from_utf8_lossy(&body.to_bytes()).into_owned();
    Ok(format!("{value} {body}"))
}
