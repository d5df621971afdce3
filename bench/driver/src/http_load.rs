//! The HTTP load: keep-alive connections, each sending the same request
//! again as soon as the previous answer arrived, until a fixed number of
//! calls has been made.
//!
//! For the 2025-era rows each connection is one client: it opens a session
//! (`initialize`, then `notifications/initialized`) before its warm-up,
//! sends every call with the session's id, and ends the session (DELETE)
//! once the round's figures are taken.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::{http1, http2};
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Method, Request, StatusCode, header};
use hyper_util::rt::TokioIo;

use crate::procfs;
use crate::requests::{Call, LEGACY_VERSION, VERSION};
use crate::stats::Sample;

/// Longest any single call may take before the run is declared stuck.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Calls per connection before the timed part, so that connection set-up
/// and first-call paths are not measured.
const WARMUP_PER_CONNECTION: usize = 20;

/// How long the server gets after the last answer to finish work it does
/// after responding (task teardown), which is part of a call's cost.
const SETTLE: Duration = Duration::from_millis(100);

/// The session id sent to a server that holds no sessions (the floor), so
/// that it reads requests as long as the others do; shaped like rmcp's.
const NO_SESSION: &str = "00000000-0000-0000-0000-000000000000";

/// `Mcp-Session-Id`.
const SESSION_ID: &str = "mcp-session-id";

/// How a connection sends: HTTP/1.1, or HTTP/2 with prior knowledge when
/// the environment has `H2C=1` (one stream at a time per connection, as
/// HTTP/1.1 sends one request at a time).
enum Sender {
    Http1(http1::SendRequest<Full<Bytes>>),
    Http2(http2::SendRequest<Full<Bytes>>),
}

/// One keep-alive connection.
struct Connection {
    sender: Sender,
    host: String,
    /// The 2025-era session its calls belong to, once opened.
    session: Option<HeaderValue>,
    /// `Authorization: Bearer <BEARER>` for a protected server, when the
    /// environment has `BEARER`: every request carries it, as a client of
    /// such a server sends it.
    bearer: Option<HeaderValue>,
}

async fn connect(addr: SocketAddr) -> Result<Connection> {
    let stream = tokio::net::TcpStream::connect(addr).await.with_context(|| format!("connecting to {addr}"))?;
    stream.set_nodelay(true)?;
    let sender = if std::env::var("H2C").as_deref() == Ok("1") {
        let executor = hyper_util::rt::TokioExecutor::new();
        let (sender, connection) = http2::handshake(executor, TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Sender::Http2(sender)
    } else {
        let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Sender::Http1(sender)
    };
    let bearer = match std::env::var("BEARER") {
        Ok(token) => Some(HeaderValue::try_from(format!("Bearer {token}")).context("BEARER is not a header value")?),
        Err(_) => None,
    };
    Ok(Connection { sender, host: addr.to_string(), session: None, bearer })
}

impl Connection {
    /// A request to the endpoint with the headers every request carries.
    fn request(&self, method: Method) -> hyper::http::request::Builder {
        // HTTP/2 carries the authority in the request's target.
        let uri = match self.sender {
            Sender::Http1(_) => "/mcp".to_owned(),
            Sender::Http2(_) => format!("http://{}/mcp", self.host),
        };
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::HOST, &self.host)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        match &self.bearer {
            Some(bearer) => request.header(header::AUTHORIZATION, bearer),
            None => request,
        }
    }

    /// A request of this connection's 2025-era session.
    fn session_request(&self, method: Method) -> Result<hyper::http::request::Builder> {
        let session = self.session.as_ref().context("no session opened on this connection")?;
        Ok(self.request(method).header("mcp-protocol-version", LEGACY_VERSION).header(SESSION_ID, session))
    }

    /// Sends one request and reads its whole answer.
    async fn exchange(&mut self, request: Request<Full<Bytes>>) -> Result<(StatusCode, HeaderMap, Bytes)> {
        let response = tokio::time::timeout(CALL_TIMEOUT, async {
            let response = match &mut self.sender {
                Sender::Http1(sender) => {
                    sender.ready().await?;
                    sender.send_request(request).await?
                }
                Sender::Http2(sender) => {
                    sender.ready().await?;
                    sender.send_request(request).await?
                }
            };
            let (parts, body) = response.into_parts();
            let body = body.collect().await?.to_bytes();
            anyhow::Ok((parts.status, parts.headers, body))
        })
        .await
        .context("a call took longer than 30 s")??;
        Ok(response)
    }

    /// The request of one call, with the headers of its era.
    fn call_request(&self, call: &Call) -> Result<Request<Full<Bytes>>> {
        let request = if call.legacy && call.sessionless {
            self.request(Method::POST).header("mcp-protocol-version", LEGACY_VERSION)
        } else if call.legacy {
            self.session_request(Method::POST)?
        } else {
            let mut request =
                self.request(Method::POST).header("mcp-protocol-version", VERSION).header("mcp-method", call.method);
            if let Some(name) = call.name {
                request = request.header("mcp-name", name);
            }
            request
        };
        Ok(request.body(Full::new(call.body.clone()))?)
    }

    /// Sends one request and checks the answer; returns the body size.
    async fn call(&mut self, call: &Call) -> Result<usize> {
        let (status, headers, body) = self.exchange(self.call_request(call)?).await?;
        check(call, status, &headers, &body)?;
        Ok(body.len())
    }

    /// Opens a 2025-era session: `initialize`, whose answer names the
    /// session, then `notifications/initialized`.
    async fn open_session(&mut self) -> Result<()> {
        let request = self.request(Method::POST).body(Full::new(Call::initialize()))?;
        let (status, headers, body) = self.exchange(request).await?;
        let version = format!(r#""protocolVersion":"{LEGACY_VERSION}""#);
        let answered = answer(&headers, &body).is_some_and(|a| contains(a, version.as_bytes()));
        let session = headers.get(SESSION_ID).filter(|_| status == StatusCode::OK && answered);
        let Some(session) = session else {
            bail!(
                "initialize not answered with a {LEGACY_VERSION} session ({status}): {}",
                String::from_utf8_lossy(&body[..body.len().min(400)])
            );
        };
        self.session = Some(session.clone());
        let request = self.session_request(Method::POST)?.body(Full::new(Call::initialized()))?;
        let (status, _, body) = self.exchange(request).await?;
        if status != StatusCode::ACCEPTED {
            bail!("notifications/initialized answered {status}: {}", String::from_utf8_lossy(&body));
        }
        Ok(())
    }

    /// Ends the session, as a client that is done does.
    async fn close_session(&mut self) -> Result<()> {
        let request = self.session_request(Method::DELETE)?.body(Full::new(Bytes::new()))?;
        let (status, _, body) = self.exchange(request).await?;
        if !status.is_success() {
            bail!("DELETE of the session answered {status}: {}", String::from_utf8_lossy(&body));
        }
        self.session = None;
        Ok(())
    }
}

/// Fails unless the answer is a 200 carrying the call's expected result.
fn check(call: &Call, status: StatusCode, headers: &HeaderMap, body: &[u8]) -> Result<()> {
    if status != StatusCode::OK || !answer(headers, body).is_some_and(|a| contains(a, call.expect)) {
        bail!("unexpected answer ({status}): {}", String::from_utf8_lossy(&body[..body.len().min(400)]));
    }
    Ok(())
}

/// The JSON-RPC message of an answer: the body when it is JSON; the data of
/// the last event carrying any when it is an event stream (priming events
/// carry none, and the answer ends the stream).
fn answer<'a>(headers: &HeaderMap, body: &'a [u8]) -> Option<&'a [u8]> {
    let content_type = headers.get(header::CONTENT_TYPE)?.as_bytes();
    if content_type.starts_with(b"application/json") {
        return Some(body);
    }
    if !content_type.starts_with(b"text/event-stream") {
        return None;
    }
    body.split(|&b| b == b'\n')
        .filter_map(|line| line.strip_prefix(b"data:"))
        .map(|data| {
            let data = data.strip_suffix(b"\r").unwrap_or(data);
            data.strip_prefix(b" ").unwrap_or(data)
        })
        .rfind(|data| !data.is_empty())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The processes whose CPU time a round counts as the server side's.
pub(crate) struct Processes {
    /// The servers answering the calls (several behind a balancer).
    pub(crate) servers: Vec<u32>,
    /// A balancer in front of them: counted in the server side's CPU, and
    /// on its own as well.
    pub(crate) proxy: Option<u32>,
}

impl Processes {
    /// One server, reached directly.
    pub(crate) fn server(pid: u32) -> Processes {
        Processes { servers: vec![pid], proxy: None }
    }

    /// CPU ticks so far: of every process, and of the balancer alone.
    fn ticks(&self) -> Result<(u64, u64)> {
        let proxy = self.proxy.map(procfs::cpu_ticks).transpose()?.unwrap_or(0);
        let mut all = proxy;
        for &pid in &self.servers {
            all += procfs::cpu_ticks(pid)?;
        }
        Ok((all, proxy))
    }
}

/// Which replica a balancer sent one `call` to, by the `X-Mcp-Replica`
/// header of its answer (checked like any other); `None` without one.
pub(crate) async fn answered_by(addr: SocketAddr, call: &Call) -> Result<Option<String>> {
    let mut connection = connect(addr).await?;
    let (status, headers, body) = connection.exchange(connection.call_request(call)?).await?;
    check(call, status, &headers, &body)?;
    Ok(headers.get("x-mcp-replica").and_then(|v| v.to_str().ok()).map(str::to_owned))
}

/// One round against one server, or against a balancer and the servers
/// behind it: `concurrency` connections share `calls` calls. Returns the
/// timed sample and the number of calls answered in all (warm-up
/// included).
///
/// With `sessions`, each connection of a 2025-era call opens a session
/// first and ends it after the figures are taken; without, a 2025-era call
/// carries a fixed session id the server (the floor) does not look at.
pub(crate) async fn round(
    addr: SocketAddr,
    processes: &Processes,
    call: &Call,
    concurrency: usize,
    calls: usize,
    sessions: bool,
) -> Result<(Sample, u64)> {
    let sessions = sessions && call.legacy;
    let mut connections = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        let mut connection = connect(addr).await?;
        if sessions {
            connection.open_session().await?;
        } else if call.legacy && !call.sessionless {
            connection.session = Some(HeaderValue::from_static(NO_SESSION));
        }
        for _ in 0..WARMUP_PER_CONNECTION {
            connection.call(call).await?;
        }
        connections.push(connection);
    }
    let next = Arc::new(AtomicUsize::new(0));
    let (cpu_before, proxy_before) = processes.ticks()?;
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
    let (cpu_after, proxy_after) = processes.ticks()?;
    sample.cpu_ticks = cpu_after - cpu_before;
    sample.proxy_ticks = proxy_after - proxy_before;
    sample.calls = calls as u64;
    if sessions {
        for connection in &mut open {
            connection.close_session().await?;
        }
    }
    drop(open);
    Ok((sample, (calls + concurrency * WARMUP_PER_CONNECTION) as u64))
}
