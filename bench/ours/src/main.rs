//! The echo server written with mcp-runtime, as its documentation shows:
//! one `#[tool]` function, collected by `server!()`.
//!
//! `bench-ours http 127.0.0.1:PORT [--health] [--tools N]` or `bench-ours stdio [--tools N]`;
//! built with the `redis` feature, `--redis URL` shares change events (`RedisBus`), tasks
//! (`RedisTaskStore`) and 2025-era sessions (`RedisSessionStore`) through that Redis (one
//! server, or a cluster by a `redis+cluster://` URL), as replicas behind a balancer do.
//! `--tools N` serves N tools in all: `echo` and N - 1 more with the same
//! input, for the scaling runs; `--page-size N` sets how many items one
//! `tools/list` page holds (default 100); `--health` (HTTP only) answers
//! the liveness and readiness probes `/healthz` and `/readyz`, for a load
//! balancer's health checks. Without it the server runs `serve_http` with
//! every default, the code the instruction counts measure.
//!
//! `--log LEVEL` installs a `tracing-subscriber` fmt subscriber at LEVEL
//! (writing to stderr), so that the request spans are recorded; `--otel`
//! (built with the `otel` feature) sets up logs and OTLP export from the
//! environment with `mcp_runtime::otel::init`. Without either, no
//! subscriber is installed.
//!
//! `--forward URL` (built with the `forward` feature) makes it a pure gateway: no tool of its
//! own, the server at URL mounted as a remote under `fwd` (its `echo` served as `fwd_echo`),
//! each call forwarded over HTTP.
//!
//! Built with the `io` feature, and with `BENCH_REDIS_URL` and `BENCH_HTTP_URL` set, it also
//! serves `lookup` (`bench_io::lookup`: a Redis GET, then an HTTP GET), for the I/O-bound
//! workload of `bench/run.sh peers`; a `ToolEntry` added to the builder, as a tool known only
//! at start is.
//!
//! `--issuer URL` (built with the `auth` feature) protects the server:
//! every request needs `Authorization: Bearer <token>`, an access token
//! from that authorization server for the resource `http://ADDR/mcp`,
//! verified on every request against the issuer's cached keys.

use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Args, ServerBuilder, entry::ToolEntry, tool};

// `async fn`, the style for a function that never blocks: it runs in
// place, where a sync `fn` would be handed to the blocking pool.
/// Echoes the text back.
#[tool]
async fn echo(
    /// The text to return.
    text: String,
) -> String {
    text // bench: edited by the rebuild measurement
}

/// The arguments of the extra tools of the scaling runs.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Filler {
    /// The text to return.
    #[allow(dead_code)]
    text: String,
}

/// The arguments of `lookup`.
#[cfg(feature = "io")]
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Lookup {
    /// The Redis key to read.
    key: String,
}

#[cfg(feature = "io")]
fn with_lookup(builder: ServerBuilder) -> ServerBuilder {
    if !bench_io::configured() {
        return builder;
    }
    builder.tool(
        ToolEntry::new("lookup", |Args(Lookup { key }): Args<Lookup>| async move { bench_io::lookup(&key).await })
            .description(bench_io::DESCRIPTION),
    )
}

fn with_fillers(builder: ServerBuilder, tools: usize) -> ServerBuilder {
    builder.tools((1..tools).map(|i| {
        ToolEntry::new(format!("filler_{i:04}"), |Args(_): Args<Filler>| async { "filler" })
            .description(format!("Extra tool number {i}, registered so that lookups have {tools} tools to search."))
    }))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| -> Result<Option<usize>, Box<dyn std::error::Error>> {
        match args.iter().position(|a| a == name) {
            Some(i) => Ok(Some(args.get(i + 1).ok_or(format!("{name} needs a number"))?.parse()?)),
            None => Ok(None),
        }
    };
    let mut builder = with_fillers(mcp_runtime::server!(), option("--tools")?.unwrap_or(1));
    #[cfg(feature = "io")]
    {
        builder = with_lookup(builder);
    }
    #[cfg(feature = "forward")]
    if let Some(i) = args.iter().position(|a| a == "--forward") {
        let url = args.get(i + 1).ok_or("--forward needs a URL")?;
        let remote = mcp_runtime::client::Remote::connect(mcp_runtime::client::Client::http(url.as_str())).await?;
        builder = mcp_runtime::Server::builder("bench-gateway", "0.1.0").mount_remote("fwd", remote);
    }
    #[cfg(not(feature = "forward"))]
    if args.iter().any(|a| a == "--forward") {
        return Err("--forward needs bench-ours built with the `forward` feature".into());
    }
    if let Some(size) = option("--page-size")? {
        builder = builder.page_size(size);
    }
    #[cfg(feature = "auth")]
    if let Some(i) = args.iter().position(|a| a == "--issuer") {
        let issuer = args.get(i + 1).ok_or("--issuer needs a URL")?;
        let addr = args.get(1).ok_or("--issuer needs http ADDR")?;
        builder =
            builder.authorization(mcp_runtime::auth::Authorization::new(issuer.as_str(), format!("http://{addr}/mcp")));
    }
    #[cfg(not(feature = "auth"))]
    if args.iter().any(|a| a == "--issuer") {
        return Err("--issuer needs bench-ours built with the `auth` feature".into());
    }
    #[cfg(feature = "rate-limit")]
    if args.iter().any(|a| a == "--rate-limit") {
        // Never reached: the cost measured is the layer's, not a refusal's.
        builder = builder.layer(mcp_runtime::middleware::RateLimit::per_second(u32::MAX));
    }
    #[cfg(not(feature = "rate-limit"))]
    if args.iter().any(|a| a == "--rate-limit") {
        return Err("--rate-limit needs bench-ours built with the `rate-limit` feature".into());
    }
    #[cfg(feature = "redis")]
    let redis = match args.iter().position(|a| a == "--redis") {
        Some(i) => {
            let url = args.get(i + 1).ok_or("--redis needs a URL")?;
            builder = builder
                .event_bus(mcp_runtime::redis::RedisBus::connect(url, "bench-ours:events").await?)
                .task_store(mcp_runtime::redis::RedisTaskStore::connect(url, "bench-ours").await?);
            Some(mcp_runtime::redis::RedisSessionStore::connect(url, "bench-ours").await?)
        }
        None => None,
    };
    #[cfg(not(feature = "redis"))]
    if args.iter().any(|a| a == "--redis") {
        return Err("--redis needs bench-ours built with the `redis` feature".into());
    }
    let server = builder.build()?;
    if let Some(i) = args.iter().position(|a| a == "--log") {
        let level: tracing_subscriber::filter::LevelFilter = args.get(i + 1).ok_or("--log needs a level")?.parse()?;
        tracing_subscriber::fmt().with_max_level(level).with_writer(std::io::stderr).init();
    }
    #[cfg(feature = "otel")]
    let _telemetry = match args.iter().any(|a| a == "--otel") {
        true => Some(mcp_runtime::otel::init("bench-ours")?),
        false => None,
    };
    let health = args.iter().any(|a| a == "--health");
    // `--buffered`: a 2025-era session's answers as JSON even when the
    // handler waits, to measure what the event stream costs.
    let buffered = args.iter().any(|a| a == "--buffered");
    #[cfg(feature = "redis")]
    if let Some(store) = redis {
        let addr = args.get(1).ok_or("--redis needs http ADDR")?;
        return Ok(server.serve_http_with(addr.as_str(), HttpConfig::default().session_store(store)).await?);
    }
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("http"), Some(addr)) if buffered => {
            server.serve_http_with(addr.as_str(), HttpConfig::default().buffered_responses(true)).await?
        }
        (Some("http"), Some(addr)) if health => {
            let config = HttpConfig::default().health_endpoints("/healthz", "/readyz");
            server.serve_http_with(addr.as_str(), config).await?
        }
        (Some("http"), Some(addr)) => server.serve_http(addr.as_str()).await?,
        (Some("stdio"), _) => server.serve_stdio().await?,
        _ => return Err("usage: bench-ours (http ADDR [--health] | stdio) [--tools N] [--page-size N]".into()),
    }
    Ok(())
}
