//! A bare HTTP/1.1 client for tests that talk to server processes (or a
//! load balancer in front of them) on loopback: one connection per request,
//! the headers of a client of either protocol era, and event streams read
//! message by message as they arrive.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// How long anything may take before a test calls it stuck. A guard
/// against hanging forever, long enough for a machine busy compiling on
/// every core; no test measures speed.
pub const STUCK: Duration = Duration::from_secs(30);

/// The `_meta` of a 2026-07-28 request from a client declaring
/// `capabilities`.
pub fn stateless_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// Sends one request on a connection of its own. A body whose `_meta`
/// names a protocol version travels with the headers of a 2026-07-28
/// client (`Mcp-Method`, and `Mcp-Name` for a named target or a task); any other
/// with those of a 2025-11-25 client. `extra` replaces or adds headers.
/// The response comes back with its body unread.
pub async fn send(
    addr: SocketAddr,
    method: Method,
    session: Option<&str>,
    body: Option<&Value>,
    extra: &[(&str, &str)],
) -> http::Response<Incoming> {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", addr.to_string())
        .header("accept", "application/json, text/event-stream");
    let stateless = body.and_then(|b| b["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion"));
    match (stateless, body) {
        (Some(version), Some(body)) => {
            request = request.header("mcp-protocol-version", version.as_str().expect("a version string"));
            if let Some(name) = body["method"].as_str() {
                request = request.header("mcp-method", name);
            }
            let params = &body["params"];
            if let Some(target) = params["name"].as_str().or(params["uri"].as_str()).or(params["taskId"].as_str()) {
                request = request.header("mcp-name", target);
            }
        }
        _ => request = request.header("mcp-protocol-version", "2025-11-25"),
    }
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let body = Full::new(Bytes::from(body.map(Value::to_string).unwrap_or_default()));
    let mut request = request.body(body).expect("a request");
    for (name, value) in extra {
        let name = http::HeaderName::from_bytes(name.as_bytes()).expect("a header name");
        request.headers_mut().insert(name, value.parse().expect("a header value"));
    }
    tokio::time::timeout(STUCK, sender.send_request(request)).await.expect("an answer in time").expect("sent")
}

/// A POST of `body` (see [`send`] for the headers).
pub async fn post(addr: SocketAddr, session: Option<&str>, body: &Value) -> http::Response<Incoming> {
    send(addr, Method::POST, session, Some(body), &[]).await
}

/// The events of an event-stream body, as they come.
pub struct Events {
    body: Incoming,
    pending: String,
    /// The id of the last event read that had one.
    pub last_id: Option<String>,
}

impl Events {
    /// The body of `response`, which must be an event stream.
    pub fn of(response: http::Response<Incoming>) -> Events {
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Events { body: response.into_body(), pending: String::new(), last_id: None }
    }

    /// The next JSON-RPC message (priming events, `retry:` and keep-alive
    /// comments skipped); `None` when the stream ends, whether the server
    /// closed it or the connection broke.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                if let Some(id) = event.lines().find_map(|l| l.strip_prefix("id: ")) {
                    self.last_id = Some(id.to_owned());
                }
                let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
                let data = data.join("\n");
                if !data.trim().is_empty() {
                    return Some(serde_json::from_str(&data).expect("JSON data"));
                }
            }
            let frame = tokio::time::timeout(STUCK, self.body.frame()).await.expect("an event in time")?;
            match frame {
                Ok(frame) => {
                    if let Ok(data) = frame.into_data() {
                        self.pending.push_str(&String::from_utf8_lossy(&data));
                    }
                }
                Err(_) => return None,
            }
        }
    }
}

/// The answer to request `id`, read from a JSON body or from an event
/// stream; `check` sees every message on the way.
pub async fn answer(response: http::Response<Incoming>, id: &Value, check: impl Fn(&Value)) -> Value {
    assert_eq!(response.status(), StatusCode::OK);
    if response.headers()["content-type"] == "application/json" {
        let bytes = response.into_body().collect().await.expect("a body").to_bytes();
        let message: Value = serde_json::from_slice(&bytes).expect("JSON");
        check(&message);
        return message;
    }
    let mut events = Events::of(response);
    while let Some(message) = events.next().await {
        check(&message);
        if message["id"] == *id && message.get("method").is_none() {
            return message;
        }
    }
    panic!("the stream ended without the answer to {id}");
}

/// A 2026-07-28 `tools/call` of `name` for an in-process
/// [`McpService`](mcp_runtime::transport::http::McpService), with the
/// headers its body calls for, carrying `principal` as an authentication
/// layer in front would.
pub fn call_as(name: &str, principal: Option<mcp_runtime::auth::Principal>) -> http::Request<String> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": name, "_meta": stateless_meta(json!({}))}});
    let mut request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(body.to_string())
        .expect("a request");
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    request
}

/// A stateless request to an [`McpService`](mcp_runtime::transport::http::McpService)
/// in process, with the headers its body calls for, carrying `principal` as an
/// authentication layer would.
pub fn stateless_request(message: &Value, principal: Option<mcp_runtime::auth::Principal>) -> http::Request<String> {
    let method = message["method"].as_str().expect("a method");
    let mut builder = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    let params = &message["params"];
    if let Some(name) = params["name"].as_str().or(params["uri"].as_str())
        && matches!(method, "tools/call" | "prompts/get" | "resources/read")
    {
        builder = builder.header("mcp-name", name);
    }
    let mut request = builder.body(message.to_string()).expect("a request");
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    request
}

/// A 2025-era POST on `session` (or one opening a session, `initialize`),
/// carrying `principal` in its extensions as an authentication layer in
/// front of the service would.
pub fn session_request(
    session: Option<&str>,
    message: &Value,
    principal: Option<mcp_runtime::auth::Principal>,
) -> http::Request<String> {
    let mut builder = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
    }
    let mut request = builder.body(message.to_string()).expect("a request");
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    request
}
