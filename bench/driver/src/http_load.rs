//! The HTTP load: keep-alive connections, each sending the same request
//! again as soon as the previous answer arrived, until a fixed number of
//! calls has been made.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, header};
use hyper_util::rt::TokioIo;

use crate::procfs;
use crate::requests::{Call, VERSION};
use crate::stats::Sample;

/// Longest any single call may take before the run is declared stuck.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Calls per connection before the timed part, so that connection set-up
/// and first-call paths are not measured.
const WARMUP_PER_CONNECTION: usize = 20;

/// How long the server gets after the last answer to finish work it does
/// after responding (task teardown), which is part of a call's cost.
const SETTLE: Duration = Duration::from_millis(100);

/// One keep-alive connection.
struct Connection {
    sender: SendRequest<Full<Bytes>>,
    host: String,
}

async fn connect(addr: SocketAddr) -> Result<Connection> {
    let stream = tokio::net::TcpStream::connect(addr).await.with_context(|| format!("connecting to {addr}"))?;
    stream.set_nodelay(true)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(Connection { sender, host: addr.to_string() })
}

impl Connection {
    /// Sends one request and checks the answer; returns the body size.
    async fn call(&mut self, call: &Call) -> Result<usize> {
        let mut request = Request::post("/mcp")
            .header(header::HOST, &self.host)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", VERSION)
            .header("mcp-method", call.method);
        if let Some(name) = call.name {
            request = request.header("mcp-name", name);
        }
        let request = request.body(Full::new(call.body.clone()))?;
        self.sender.ready().await?;
        let response = tokio::time::timeout(CALL_TIMEOUT, async {
            let response = self.sender.send_request(request).await?;
            let status = response.status();
            let body = response.into_body().collect().await?.to_bytes();
            anyhow::Ok((status, body))
        })
        .await
        .context("a call took longer than 30 s")??;
        let (status, body) = response;
        if status != hyper::StatusCode::OK || !contains(&body, call.expect) {
            bail!("unexpected answer ({status}): {}", String::from_utf8_lossy(&body[..body.len().min(400)]));
        }
        Ok(body.len())
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// One round against one server: `concurrency` connections share `calls`
/// calls. Returns the timed sample and the number of calls the server
/// answered in all (warm-up included).
pub(crate) async fn round(
    addr: SocketAddr,
    pid: u32,
    call: &Call,
    concurrency: usize,
    calls: usize,
) -> Result<(Sample, u64)> {
    let mut connections = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        let mut connection = connect(addr).await?;
        for _ in 0..WARMUP_PER_CONNECTION {
            connection.call(call).await?;
        }
        connections.push(connection);
    }
    let next = Arc::new(AtomicUsize::new(0));
    let cpu_before = procfs::cpu_ticks(pid)?;
    let own_before = procfs::cpu_ticks(std::process::id())?;
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for mut connection in connections {
        let next = Arc::clone(&next);
        let call = call.clone();
        tasks.spawn(async move {
            let mut latencies = Vec::with_capacity(calls / concurrency + 1);
            let mut bytes = 0;
            while next.fetch_add(1, Ordering::Relaxed) < calls {
                let sent = Instant::now();
                bytes = connection.call(&call).await?;
                latencies.push(sent.elapsed().as_nanos() as u64);
            }
            anyhow::Ok((latencies, bytes, connection))
        });
    }
    let mut sample = Sample::default();
    let mut open = Vec::with_capacity(concurrency);
    while let Some(done) = tasks.join_next().await {
        let (latencies, bytes, connection) = done??;
        sample.latencies.extend(latencies);
        sample.response_bytes = sample.response_bytes.max(bytes);
        open.push(connection);
    }
    sample.elapsed = start.elapsed();
    sample.client_ticks = procfs::cpu_ticks(std::process::id())? - own_before;
    tokio::time::sleep(SETTLE).await;
    sample.cpu_ticks = procfs::cpu_ticks(pid)? - cpu_before;
    sample.calls = calls as u64;
    drop(open);
    Ok((sample, (calls + concurrency * WARMUP_PER_CONNECTION) as u64))
}
