//! The server every test talks to, a standalone loopback instance of it,
//! and a client that sends exactly the headers a test asks for.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Args, CancellationToken, RequestContext, Server, entry::ToolEntry};
use mcp_tests::exchange::request;
use mcp_tests::wire_schema::{assert_valid_event_stream, assert_valid_line};
use serde_json::{Map, Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

/// How long anything may take before the test calls it stuck. Only a guard
/// against hanging forever; no test measures speed.
pub(crate) const STUCK: Duration = Duration::from_secs(30);

/// The size of the `big` tool's text: far more than socket buffers hold.
pub(crate) const BIG: usize = 32 << 20;

/// What the `slow` and `nap` handlers report: that they started, whether
/// `slow` was dropped before it finished, and whether the token it handed
/// to a task of its own was cancelled.
#[derive(Clone, Default)]
pub(crate) struct Probe {
    started: Arc<Notify>,
    dropped: Arc<AtomicBool>,
    token_cancelled: Arc<Notify>,
}

impl Probe {
    pub(crate) async fn started(&self) {
        tokio::time::timeout(STUCK, self.started.notified()).await.expect("the handler starts");
    }

    pub(crate) fn dropped(&self) -> bool {
        self.dropped.load(Ordering::SeqCst)
    }

    pub(crate) async fn token_cancelled(&self) {
        let cancelled = tokio::time::timeout(STUCK, self.token_cancelled.notified()).await;
        assert!(cancelled.is_ok(), "the token handed to the handler is cancelled");
    }
}

struct SetOnDrop(Probe);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

pub(crate) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// A server with a plain tool, a streaming one, a slow one, a tool with
/// header-mirrored arguments, a prompt and a resource.
pub(crate) fn fixture(probe: Probe) -> Server {
    let (slow_probe, nap_started) = (probe.clone(), Arc::clone(&probe.started));
    let route_schema = object(json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"}
        }
    }));
    Server::builder("http-fixture", "1.0.0")
        .tool(ToolEntry::new("echo", |Args(a): Args<EchoArgs>| async move { a.text }).description("Echoes."))
        .tool(
            ToolEntry::new("route", |cx: RequestContext| async move {
                let _ = cx;
                "routed"
            })
            .input_schema(route_schema),
        )
        .tool(ToolEntry::new("steps", |cx: RequestContext| async move {
            for step in 1..=3 {
                cx.progress(f64::from(step), Some(3.0), None);
                tokio::task::yield_now().await;
            }
            cx.log(mcp_runtime::protocol::LoggingLevel::Info, None, "all steps done");
            "stepped"
        }))
        .tool(ToolEntry::new("slow", move |cancel: CancellationToken| {
            let guard = SetOnDrop(slow_probe.clone());
            let started = Arc::clone(&slow_probe.started);
            // Work the handler started that outlives its future: only the
            // token tells it the request is over.
            let watched = cancel.clone();
            let token_cancelled = Arc::clone(&slow_probe.token_cancelled);
            tokio::spawn(async move {
                watched.cancelled().await;
                token_cancelled.notify_one();
            });
            async move {
                started.notify_one();
                // Finishes only when cancelled (or after far longer than any test).
                tokio::select! {
                    () = cancel.cancelled() => {}
                    () = tokio::time::sleep(Duration::from_secs(600)) => {}
                }
                drop(guard);
                "slow done"
            }
        }))
        .tool(ToolEntry::new("nap", move |Args(a): Args<EchoArgs>| {
            let started = Arc::clone(&nap_started);
            async move {
                started.notify_one();
                tokio::time::sleep(Duration::from_millis(300)).await;
                a.text
            }
        }))
        .tool(ToolEntry::new("big", || async { "x".repeat(BIG) }))
        .tool(ToolEntry::new("pause", |cx: RequestContext| async move {
            cx.progress(1.0, None, None);
            tokio::time::sleep(Duration::from_millis(600)).await;
            cx.progress(2.0, None, None);
            "paused"
        }))
        .prompt(mcp_runtime::entry::PromptEntry::new("greet", || async { "Hello" }).description("Greets."))
        .resource(mcp_runtime::entry::ResourceEntry::fixed("note://daily/1", "note", || async { "bonjour" }))
        .build()
        .expect("a valid fixture")
}

/// A standalone server on an ephemeral loopback port.
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    pub(crate) async fn start(server: Server, config: HttpConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free loopback port");
        let addr = listener.local_addr().expect("a local address");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.serve_http_with_shutdown(listener, config, async {
            let _ = stopped.await;
        }));
        Running { addr, stop: Some(stop), task }
    }

    /// Asks the server to stop and waits until it has.
    pub(crate) async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let result = tokio::time::timeout(STUCK, &mut self.task).await.expect("the server stops");
        result.expect("the server task ends normally").expect("the server returns Ok");
    }
}

/// What came back for one HTTP request.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Reply {
    pub(crate) fn content_type(&self) -> &str {
        self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// The body as one JSON document, checked against the schema.
    #[track_caller]
    pub(crate) fn json(&self, method: &str) -> Value {
        assert_eq!(self.content_type(), "application/json", "status {}: {:?}", self.status, self.body);
        let text = std::str::from_utf8(&self.body).expect("a UTF-8 body");
        assert_valid_line(method, text)
    }

    /// The body as server-sent events, each message checked against the
    /// schema (notifications, then the response).
    #[track_caller]
    pub(crate) fn events(&self, method: &str) -> Vec<Value> {
        assert_eq!(self.content_type(), "text/event-stream");
        let text = std::str::from_utf8(&self.body).expect("UTF-8 events");
        let events = assert_valid_event_stream(method, text);
        let (last, notifications) = events.split_last().expect("at least the response");
        assert!(notifications.iter().all(|n| n.get("method").is_some()), "only notifications before the response");
        assert!(last.get("id").is_some(), "the stream ends with the response: {last}");
        events
    }

    /// The `error.code` of a JSON error response, after checking that it
    /// echoes `id`.
    #[track_caller]
    pub(crate) fn error_code(&self, method: &str, id: &Value) -> i64 {
        let value = self.json(method);
        assert_eq!(&value["id"], id, "the error echoes the request id: {value}");
        value["error"]["code"].as_i64().unwrap_or_else(|| panic!("an error response: {value}"))
    }
}

/// One POST to the MCP endpoint with the headers a conforming client sends,
/// which a test may then remove or replace.
pub(crate) struct Post {
    path: String,
    method: Method,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

impl Post {
    /// A request for `message`, with `MCP-Protocol-Version`, `Mcp-Method`
    /// and (for the three named methods) `Mcp-Name` derived from it.
    pub(crate) fn mcp(message: &Value) -> Self {
        let mut post = Post::raw(serde_json::to_vec(message).expect("serializable"));
        post = post.header("mcp-protocol-version", "2026-07-28");
        if let Some(method) = message["method"].as_str() {
            post = post.header("mcp-method", method);
            let name = match method {
                "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
                "resources/read" => message["params"]["uri"].as_str(),
                _ => None,
            };
            if let Some(name) = name {
                post = post.header("mcp-name", name);
            }
        }
        post
    }

    /// A POST of `body` with only `Content-Type` and `Accept`.
    pub(crate) fn raw(body: impl Into<Vec<u8>>) -> Self {
        Post {
            path: "/mcp".to_owned(),
            method: Method::POST,
            headers: vec![
                ("content-type".to_owned(), b"application/json".to_vec()),
                ("accept".to_owned(), b"application/json, text/event-stream".to_vec()),
            ],
            body: body.into(),
        }
    }

    /// Sets a header, replacing any value it had (names ignore case).
    pub(crate) fn header(mut self, name: &str, value: impl AsRef<[u8]>) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.as_ref().to_vec()));
        self
    }

    /// Adds one more value of a header.
    pub(crate) fn append(mut self, name: &str, value: impl AsRef<[u8]>) -> Self {
        self.headers.push((name.to_owned(), value.as_ref().to_vec()));
        self
    }

    pub(crate) fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    pub(crate) fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    pub(crate) fn path(mut self, path: &str) -> Self {
        self.path = path.to_owned();
        self
    }

    pub(crate) fn build(self, addr: SocketAddr) -> Request<Full<Bytes>> {
        let mut builder = Request::builder().method(self.method).uri(self.path);
        if !self.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            builder = builder.header("host", addr.to_string());
        }
        for (name, value) in self.headers {
            builder = builder.header(name, value);
        }
        builder.body(Full::new(Bytes::from(self.body))).expect("a valid request")
    }

    pub(crate) async fn send(self, addr: SocketAddr) -> Reply {
        let request = self.build(addr);
        tokio::time::timeout(STUCK, exchange(addr, request)).await.expect("an answer in time")
    }
}

/// One request on a fresh connection, reading the whole response.
pub(crate) async fn exchange<B>(addr: SocketAddr, request: Request<B>) -> Reply
where
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let stream = TcpStream::connect(addr).await.expect("the server accepts");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("an HTTP/1.1 handshake");
    let driver = tokio::spawn(connection);
    let response = sender.send_request(request).await.expect("a response");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("the whole body").to_bytes();
    driver.abort();
    Reply { status: parts.status, headers: parts.headers, body }
}

pub(crate) fn call(id: i64, tool: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": arguments}))
}

pub(crate) async fn standard() -> (Running, Probe) {
    let probe = Probe::default();
    (Running::start(fixture(probe.clone()), HttpConfig::default()).await, probe)
}
