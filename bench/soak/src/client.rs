//! A bare HTTP/1.1 client of one MCP endpoint: keep-alive connections,
//! requests with the headers of either protocol era, whole answers and
//! event streams read event by event.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{self, HeaderMap};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// The revision of stateless requests.
pub(crate) const VERSION: &str = "2026-07-28";

/// The revision of 2025-era sessions.
pub(crate) const LEGACY_VERSION: &str = "2025-11-25";

/// Longest any answer, or the next event of a stream, may take: a guard
/// against a stuck server, far above any healthy answer under load.
pub(crate) const STUCK: Duration = Duration::from_secs(30);

/// Where the server is: its address and the endpoint's path.
#[derive(Clone, Debug)]
pub(crate) struct Endpoint {
    pub(crate) addr: SocketAddr,
    pub(crate) path: String,
}

impl Endpoint {
    /// `http://HOST:PORT/PATH`, with a numeric host.
    pub(crate) fn parse(url: &str) -> Result<Endpoint> {
        let rest = url.strip_prefix("http://").context("the URL must start with http://")?;
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let addr = authority.parse().with_context(|| format!("{authority} is not IP:PORT"))?;
        Ok(Endpoint { addr, path: format!("/{path}") })
    }
}

/// The `_meta` of a 2026-07-28 request from a client with `capabilities`.
pub(crate) fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "bench-soak", "version": "0.1.0"},
    })
}

/// One keep-alive connection.
pub(crate) struct Connection {
    sender: SendRequest<Full<Bytes>>,
    endpoint: Endpoint,
}

/// A whole answer.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Answer {
    /// The JSON-RPC response to `id`: the body when it is JSON, the event
    /// carrying it when it is an event stream.
    pub(crate) fn response(&self, id: &Value) -> Result<Value> {
        if self.status != StatusCode::OK {
            bail!("HTTP {}: {}", self.status, self.excerpt());
        }
        let content_type = self.headers.get(header::CONTENT_TYPE).map(|v| v.as_bytes()).unwrap_or_default();
        if content_type.starts_with(b"application/json") {
            return Ok(serde_json::from_slice(&self.body)?);
        }
        let text = String::from_utf8_lossy(&self.body);
        for data in text.lines().filter_map(|l| l.strip_prefix("data:")) {
            let Ok(message) = serde_json::from_str::<Value>(data.trim()) else { continue };
            if message["id"] == *id && message.get("method").is_none() {
                return Ok(message);
            }
        }
        bail!("no response to {id} in the answer: {}", self.excerpt())
    }

    /// The result of the response to `id`; its error as a failure.
    pub(crate) fn result(&self, id: &Value) -> Result<Value> {
        let mut response = self.response(id)?;
        if let Some(error) = response.get("error") {
            bail!("error answer: {error}");
        }
        Ok(response["result"].take())
    }

    fn excerpt(&self) -> String {
        String::from_utf8_lossy(&self.body[..self.body.len().min(300)]).into_owned()
    }
}

impl Connection {
    /// Opens a connection to the endpoint.
    pub(crate) async fn open(endpoint: &Endpoint) -> Result<Connection> {
        let stream = tokio::time::timeout(STUCK, tokio::net::TcpStream::connect(endpoint.addr))
            .await
            .context("connecting took too long")?
            .with_context(|| format!("connecting to {}", endpoint.addr))?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Connection { sender, endpoint: endpoint.clone() })
    }

    fn request(&self, method: Method, version: &str) -> hyper::http::request::Builder {
        Request::builder()
            .method(method)
            .uri(&self.endpoint.path)
            .header(header::HOST, self.endpoint.addr.to_string())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", version)
    }

    /// Sends `request` and returns the response with its body unread.
    async fn send(&mut self, request: Request<Full<Bytes>>) -> Result<hyper::Response<Incoming>> {
        tokio::time::timeout(STUCK, async {
            self.sender.ready().await?;
            anyhow::Ok(self.sender.send_request(request).await?)
        })
        .await
        .context("no answer in time")?
    }

    async fn whole(&mut self, request: Request<Full<Bytes>>) -> Result<Answer> {
        let response = self.send(request).await?;
        let (parts, body) = response.into_parts();
        let body = tokio::time::timeout(STUCK, body.collect()).await.context("the body took too long")??.to_bytes();
        Ok(Answer { status: parts.status, headers: parts.headers, body })
    }

    /// A 2026-07-28 request (`body` with its `_meta` in place), answered whole.
    pub(crate) async fn modern(&mut self, body: &Value) -> Result<Answer> {
        let request = self.modern_request(body)?;
        self.whole(request).await
    }

    /// A 2026-07-28 request whose answer is an event stream, read as it comes.
    pub(crate) async fn modern_stream(&mut self, body: &Value) -> Result<Events> {
        let request = self.modern_request(body)?;
        let response = self.send(request).await?;
        if response.status() != StatusCode::OK {
            bail!("HTTP {} for a stream", response.status());
        }
        let content_type = response.headers().get(header::CONTENT_TYPE).map(|v| v.as_bytes()).unwrap_or_default();
        if !content_type.starts_with(b"text/event-stream") {
            bail!("a stream answered as {}", String::from_utf8_lossy(content_type));
        }
        Ok(Events { body: response.into_body(), pending: String::new() })
    }

    fn modern_request(&self, body: &Value) -> Result<Request<Full<Bytes>>> {
        let method = body["method"].as_str().context("a request without its method")?;
        let mut request = self.request(Method::POST, VERSION).header("mcp-method", method);
        if let Some(name) = body["params"]["name"].as_str() {
            request = request.header("mcp-name", name);
        }
        Ok(request.body(Full::new(Bytes::from(body.to_string())))?)
    }

    /// A 2025-era message (`session` once one is open), answered whole.
    pub(crate) async fn legacy(
        &mut self,
        session: Option<&str>,
        method: Method,
        body: Option<&Value>,
    ) -> Result<Answer> {
        let mut request = self.request(method, LEGACY_VERSION);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let bytes = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
        let request = request.body(Full::new(bytes))?;
        self.whole(request).await
    }
}

/// The messages of an event stream, as they come.
pub(crate) struct Events {
    body: Incoming,
    pending: String,
}

impl Events {
    /// The next JSON-RPC message; an error when the stream ends first or
    /// nothing comes in time.
    pub(crate) async fn next(&mut self) -> Result<Value> {
        loop {
            while let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim).collect();
                let data = data.join("\n");
                if !data.is_empty() {
                    return Ok(serde_json::from_str(&data)?);
                }
            }
            let frame = tokio::time::timeout(STUCK, self.body.frame()).await.context("no event in time")?;
            let Some(frame) = frame else { bail!("the stream ended") };
            if let Ok(data) = frame?.into_data() {
                self.pending.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }
}
