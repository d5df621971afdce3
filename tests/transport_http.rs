//! The Streamable HTTP transport against a real loopback server: status
//! codes, every header rule, event-stream framing, limits, `Origin`/`Host`
//! checks, cancellation, shutdown, many connections, and mounting in axum.
//! Every JSON-RPC message read back is checked against the official schema.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Args, BuildError, CancellationToken, RequestContext, Server, ToolEntry};
use mcp_tests::exchange::request;
use mcp_tests::wire_schema::{assert_valid_message, assert_valid_notification, request_meta};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

/// How long anything may take before the test calls it stuck. Only a guard
/// against hanging forever; no test measures speed.
const STUCK: Duration = Duration::from_secs(30);

/// The size of the `big` tool's text: far more than socket buffers hold.
const BIG: usize = 32 << 20;

// ---------------------------------------------------------------- fixture --

/// What the `slow` and `nap` handlers report: that they started, whether
/// `slow` was dropped before it finished, and whether the token it handed
/// to a task of its own was cancelled.
#[derive(Clone, Default)]
struct Probe {
    started: Arc<Notify>,
    dropped: Arc<AtomicBool>,
    token_cancelled: Arc<Notify>,
}

impl Probe {
    async fn started(&self) {
        tokio::time::timeout(STUCK, self.started.notified()).await.expect("the handler starts");
    }

    fn dropped(&self) -> bool {
        self.dropped.load(Ordering::SeqCst)
    }

    async fn token_cancelled(&self) {
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

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// A server with a plain tool, a streaming one, a slow one, a tool with
/// header-mirrored arguments, a prompt and a resource.
fn fixture(probe: Probe) -> Server {
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
        .prompt(mcp_runtime::PromptEntry::new("greet", || async { "Hello" }).description("Greets."))
        .resource(mcp_runtime::ResourceEntry::fixed("note://daily/1", "note", || async { "bonjour" }))
        .build()
        .expect("a valid fixture")
}

/// A standalone server on an ephemeral loopback port.
struct Running {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    async fn start(server: Server, config: HttpConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free loopback port");
        let addr = listener.local_addr().expect("a local address");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.serve_http_with_shutdown(listener, config, async {
            let _ = stopped.await;
        }));
        Running { addr, stop: Some(stop), task }
    }

    /// Asks the server to stop and waits until it has.
    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let result = tokio::time::timeout(STUCK, &mut self.task).await.expect("the server stops");
        result.expect("the server task ends normally").expect("the server returns Ok");
    }
}

/// What came back for one HTTP request.
#[derive(Debug)]
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Reply {
    fn content_type(&self) -> &str {
        self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// The body as one JSON document, checked against the schema.
    #[track_caller]
    fn json(&self, method: &str) -> Value {
        assert_eq!(self.content_type(), "application/json", "status {}: {:?}", self.status, self.body);
        let value: Value = serde_json::from_slice(&self.body).expect("a JSON body");
        assert_valid_message(method, &value);
        value
    }

    /// The body as server-sent events, each `data:` payload parsed and
    /// checked against the schema (notifications, then the response).
    #[track_caller]
    fn events(&self, method: &str) -> Vec<Value> {
        assert_eq!(self.content_type(), "text/event-stream");
        let text = std::str::from_utf8(&self.body).expect("UTF-8 events");
        assert!(text.ends_with("\n\n"), "the stream ends after a complete event: {text:?}");
        let events: Vec<Value> = text
            .split_terminator("\n\n")
            .filter(|event| !event.starts_with(':'))
            .map(|event| {
                let data: Vec<&str> = event
                    .lines()
                    .map(|line| line.strip_prefix("data: ").unwrap_or_else(|| panic!("not a data line: {line:?}")))
                    .collect();
                serde_json::from_str(&data.join("\n")).expect("JSON in each event")
            })
            .collect();
        let (last, notifications) = events.split_last().expect("at least the response");
        for n in notifications {
            assert_valid_notification(n);
        }
        assert_valid_message(method, last);
        events
    }

    /// The `error.code` of a JSON error response, after checking that it
    /// echoes `id`.
    #[track_caller]
    fn error_code(&self, method: &str, id: &Value) -> i64 {
        let value = self.json(method);
        assert_eq!(&value["id"], id, "the error echoes the request id: {value}");
        value["error"]["code"].as_i64().unwrap_or_else(|| panic!("an error response: {value}"))
    }
}

/// One POST to the MCP endpoint with the headers a conforming client sends,
/// which a test may then remove or replace.
struct Post {
    path: String,
    method: Method,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

impl Post {
    /// A request for `message`, with `MCP-Protocol-Version`, `Mcp-Method`
    /// and (for the three named methods) `Mcp-Name` derived from it.
    fn mcp(message: &Value) -> Self {
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
    fn raw(body: impl Into<Vec<u8>>) -> Self {
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
    fn header(mut self, name: &str, value: impl AsRef<[u8]>) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.as_ref().to_vec()));
        self
    }

    /// Adds one more value of a header.
    fn append(mut self, name: &str, value: impl AsRef<[u8]>) -> Self {
        self.headers.push((name.to_owned(), value.as_ref().to_vec()));
        self
    }

    fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    fn path(mut self, path: &str) -> Self {
        self.path = path.to_owned();
        self
    }

    fn build(self, addr: SocketAddr) -> Request<Full<Bytes>> {
        let mut builder = Request::builder().method(self.method).uri(self.path);
        if !self.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            builder = builder.header("host", addr.to_string());
        }
        for (name, value) in self.headers {
            builder = builder.header(name, value);
        }
        builder.body(Full::new(Bytes::from(self.body))).expect("a valid request")
    }

    async fn send(self, addr: SocketAddr) -> Reply {
        let request = self.build(addr);
        tokio::time::timeout(STUCK, exchange(addr, request)).await.expect("an answer in time")
    }
}

/// One request on a fresh connection, reading the whole response.
async fn exchange<B>(addr: SocketAddr, request: Request<B>) -> Reply
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

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": arguments}))
}

async fn standard() -> (Running, Probe) {
    let probe = Probe::default();
    (Running::start(fixture(probe.clone()), HttpConfig::default()).await, probe)
}

// ------------------------------------------------------------ statuses --

#[tokio::test]
async fn a_request_is_answered_with_json() {
    let (server, _) = standard().await;
    let reply = Post::mcp(&request(1, "server/discover", Value::Null)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    let value = reply.json("server/discover");
    assert_eq!(value["id"], 1);
    assert_eq!(value["result"]["supportedVersions"], json!(["2026-07-28"]));

    let reply = Post::mcp(&call(2, "echo", json!({"text": "hi"}))).send(server.addr).await;
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "hi");
    server.stop().await;
}

#[tokio::test]
async fn a_notification_is_accepted_with_an_empty_202() {
    let (server, _) = standard().await;
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let reply = Post::raw(serde_json::to_vec(&notification).expect("JSON")).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.body.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn only_post_is_allowed() {
    let (server, _) = standard().await;
    for method in [Method::GET, Method::DELETE, Method::PUT, Method::OPTIONS] {
        let reply = Post::raw("").method(method.clone()).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.headers["allow"], "POST", "{method}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_body_must_be_declared_json() {
    let (server, _) = standard().await;
    let body = serde_json::to_vec(&request(1, "server/discover", Value::Null)).expect("JSON");
    let reply = Post::raw(body.clone()).header("content-type", "text/plain").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let reply = Post::raw(body.clone()).without("content-type").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let message = request(1, "server/discover", Value::Null);
    let reply = Post::mcp(&message).header("content-type", "application/json; charset=utf-8").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn accept_must_allow_json_or_an_event_stream() {
    let (server, _) = standard().await;
    let message = request(1, "server/discover", Value::Null);
    let reply = Post::mcp(&message).header("accept", "text/html").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);
    for lenient in ["*/*", "application/*", "application/json"] {
        let reply = Post::mcp(&message).header("accept", lenient).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::OK, "{lenient}");
        reply.json("server/discover");
    }
    let reply = Post::mcp(&message).without("accept").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    // A client that only takes a stream gets one, even for a single message.
    let reply = Post::mcp(&message).header("accept", "text/event-stream").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.events("server/discover").len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn other_paths_are_not_found() {
    let (server, _) = standard().await;
    let message = request(1, "server/discover", Value::Null);
    for path in ["/", "/mcp/", "/other"] {
        let reply = Post::mcp(&message).path(path).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
    }
    server.stop().await;

    let custom = Running::start(fixture(Probe::default()), HttpConfig::default().endpoint("api/mcp")).await;
    assert_eq!(Post::mcp(&message).path("/api/mcp").send(custom.addr).await.status, StatusCode::OK);
    assert_eq!(Post::mcp(&message).send(custom.addr).await.status, StatusCode::NOT_FOUND);
    custom.stop().await;
}

#[tokio::test]
async fn dispatcher_errors_carry_their_status_and_the_id() {
    let (server, _) = standard().await;
    let addr = server.addr;

    let reply = Post::raw("{not json").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json("server/discover")["error"]["code"], -32700);

    let reply = Post::raw(r#"[{"jsonrpc":"2.0","id":1,"method":"server/discover"}]"#).send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json("server/discover")["error"]["code"], -32600);

    // `_meta` is checked before the headers, even when they are wrong.
    let no_meta = json!({"jsonrpc": "2.0", "id": "m", "method": "server/discover", "params": {}});
    let reply = Post::mcp(&no_meta).header("mcp-method", "tools/list").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.error_code("server/discover", &json!("m")), -32602);

    // An unsupported version whose header matches: -32022 with its data.
    let mut meta = request_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let message = request(7, "server/discover", json!({"_meta": meta}));
    let reply = Post::mcp(&message).header("mcp-protocol-version", "v999.0.0").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.error_code("server/discover", &json!(7)), -32022);
    assert_eq!(reply.json("server/discover")["error"]["data"]["requested"], "v999.0.0");

    for method in ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nothing"] {
        let reply = Post::mcp(&request(8, method, Value::Null)).send(addr).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
        assert_eq!(reply.error_code("server/discover", &json!(8)), -32601, "{method}");
    }

    // Errors found after routing ride on 200.
    let reply = Post::mcp(&call(9, "no-such-tool", json!({}))).send(addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.error_code("tools/call", &json!(9)), -32602);
    server.stop().await;
}

// --------------------------------------------------------- header rules --

/// Expects 400 with `-32020` echoing `id`.
#[track_caller]
fn mismatch(reply: &Reply, id: i64, case: &str) {
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{case}: {:?}", reply.body);
    assert_eq!(reply.error_code("tools/call", &json!(id)), -32020, "{case}");
}

#[tokio::test]
async fn standard_headers_must_match_the_body() {
    let (server, _) = standard().await;
    let addr = server.addr;
    let list = request(1, "tools/list", Value::Null);

    let cases: Vec<(&str, Post)> = vec![
        ("missing MCP-Protocol-Version", Post::mcp(&list).without("mcp-protocol-version")),
        ("other MCP-Protocol-Version", Post::mcp(&list).header("mcp-protocol-version", "2025-11-25")),
        ("missing Mcp-Method", Post::mcp(&list).without("mcp-method")),
        ("other Mcp-Method", Post::mcp(&list).header("mcp-method", "prompts/list")),
        ("Mcp-Method in another case", Post::mcp(&list).header("mcp-method", "TOOLS/LIST")),
        ("repeated Mcp-Method", Post::mcp(&list).append("mcp-method", "tools/list")),
        ("non-ASCII Mcp-Method", Post::mcp(&list).header("mcp-method", "tools/lïst".as_bytes())),
    ];
    for (case, post) in cases {
        mismatch(&post.send(addr).await, 1, case);
    }
    for name in ["mcp-method", "MCP-METHOD", "Mcp-Method"] {
        let reply = Post::mcp(&list).without("mcp-method").header(name, "tools/list").send(addr).await;
        assert_eq!(reply.status, StatusCode::OK, "header name {name}");
    }
    let reply = Post::mcp(&list).header("mcp-method", "  tools/list\t").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK, "surrounding whitespace is trimmed");
    server.stop().await;
}

#[tokio::test]
async fn mcp_name_must_match_the_target() {
    let (server, _) = standard().await;
    let addr = server.addr;
    let echo = call(2, "echo", json!({"text": "x"}));
    mismatch(&Post::mcp(&echo).without("mcp-name").send(addr).await, 2, "missing Mcp-Name");
    mismatch(&Post::mcp(&echo).header("mcp-name", "route").send(addr).await, 2, "other Mcp-Name");
    mismatch(&Post::mcp(&echo).header("mcp-name", "=?base64?ZWNobw?=").send(addr).await, 2, "bad Base64");
    let reply = Post::mcp(&echo).header("mcp-name", "=?base64?ZWNobw==?=").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK, "Base64 sentinel: {:?}", reply.body);
    let reply = Post::mcp(&echo).header("mcp-name", "  echo  ").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK);

    let greet = request(3, "prompts/get", json!({"name": "greet"}));
    assert_eq!(Post::mcp(&greet).send(addr).await.status, StatusCode::OK);
    let reply = Post::mcp(&greet).header("mcp-name", "other").send(addr).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.error_code("prompts/get", &json!(3)), -32020);

    // Any value may travel Base64-encoded.
    let read = request(4, "resources/read", json!({"uri": "note://daily/1"}));
    let reply = Post::mcp(&read).header("mcp-name", "=?base64?bm90ZTovL2RhaWx5LzE=?=").send(addr).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.json("resources/read")["result"]["contents"][0]["text"], "bonjour");
    let reply = Post::mcp(&read).header("mcp-name", "note://other").send(addr).await;
    assert_eq!(reply.error_code("resources/read", &json!(4)), -32020);
    server.stop().await;
}

#[tokio::test]
async fn mcp_param_headers_mirror_annotated_arguments() {
    let (server, _) = standard().await;
    let addr = server.addr;
    let routed = |args: Value| call(5, "route", args);
    let ok = |reply: Reply, case: &str| {
        assert_eq!(reply.status, StatusCode::OK, "{case}: {:?}", reply.body);
        assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "routed", "{case}");
    };

    ok(Post::mcp(&routed(json!({}))).send(addr).await, "no annotated argument, no header");
    ok(Post::mcp(&routed(json!({"region": null}))).send(addr).await, "null argument, no header");
    let eu = routed(json!({"region": "eu-west", "count": 42}));
    let with_both = || Post::mcp(&eu).header("Mcp-Param-Region", "eu-west").header("mcp-param-count", "42");
    ok(with_both().send(addr).await, "both headers");
    ok(with_both().header("MCP-PARAM-COUNT", "42.0").send(addr).await, "integers compare numerically");
    ok(with_both().header("mcp-param-region", "=?base64?ZXUtd2VzdA==?=").send(addr).await, "Base64 value");
    let spaced = routed(json!({"region": " padded "}));
    ok(Post::mcp(&spaced).header("mcp-param-region", "=?base64?IHBhZGRlZCA=?=").send(addr).await, "padded value");

    mismatch(&with_both().without("mcp-param-region").send(addr).await, 5, "missing header");
    mismatch(&with_both().header("mcp-param-region", "EU-WEST").send(addr).await, 5, "other value");
    mismatch(&with_both().header("mcp-param-count", "41").send(addr).await, 5, "other number");
    mismatch(&with_both().header("mcp-param-region", "=?base64?ZXUtd2VzdA?=").send(addr).await, 5, "bad padding");
    mismatch(&with_both().header("mcp-param-region", "=?base64?ZX!!d2VzdA==?=").send(addr).await, 5, "bad alphabet");
    let absent = Post::mcp(&routed(json!({}))).header("mcp-param-region", "eu-west");
    mismatch(&absent.send(addr).await, 5, "header for an absent argument");
    // A value that only looks half like the sentinel is literal.
    let literal = routed(json!({"region": "=?base64?ZXU="}));
    ok(Post::mcp(&literal).header("mcp-param-region", "=?base64?ZXU=").send(addr).await, "literal value");
    server.stop().await;
}

#[test]
fn invalid_header_annotations_stop_the_build() {
    let bad = |property: Value| {
        let schema = object(json!({"type": "object", "properties": {"p": property}}));
        Server::builder("t", "1").tool(ToolEntry::new("t", || async { "" }).input_schema(schema)).build()
    };
    for property in [
        json!({"type": "number", "x-mcp-header": "P"}),
        json!({"type": "string", "x-mcp-header": "has space"}),
        json!({"type": "string", "x-mcp-header": ""}),
        json!({"type": "array", "items": {"type": "string", "x-mcp-header": "P"}}),
    ] {
        match bad(property.clone()) {
            Err(BuildError::HeaderParam { tool, .. }) => assert_eq!(tool, "t"),
            other => panic!("{property}: expected a header error, got {other:?}"),
        }
    }
    let twice = object(json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "Key"},
        "b": {"type": "boolean", "x-mcp-header": "KEY"}
    }}));
    let built = Server::builder("t", "1").tool(ToolEntry::new("t", || async { "" }).input_schema(twice)).build();
    let message = built.expect_err("duplicate header names").to_string();
    assert!(message.contains("Mcp-Param-KEY"), "{message}");
}

// -------------------------------------------------------- event streams --

#[tokio::test]
async fn notifications_turn_the_response_into_an_event_stream() {
    let (server, _) = standard().await;
    let mut meta = request_meta();
    meta["progressToken"] = json!("p-1");
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    let message = request(11, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta}));
    let reply = Post::mcp(&message).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers["cache-control"], "no-cache");
    let text = std::str::from_utf8(&reply.body).expect("UTF-8");
    assert!(text.starts_with("data: {"), "{text}");
    let events = reply.events("tools/call");
    let methods: Vec<&str> = events.iter().map(|e| e["method"].as_str().unwrap_or("<response>")).collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/progress",
            "notifications/message",
            "<response>"
        ]
    );
    let progress: Vec<f64> = events[..3].iter().map(|e| e["params"]["progress"].as_f64().unwrap_or(-1.0)).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    assert!(events[..3].iter().all(|e| e["params"]["progressToken"] == "p-1"));
    assert_eq!(events[4]["id"], 11);
    assert_eq!(events[4]["result"]["content"][0]["text"], "stepped");
    server.stop().await;
}

#[tokio::test]
async fn without_notifications_or_stream_support_the_response_is_json() {
    let (server, _) = standard().await;
    // No progress token, no log level: nothing to stream.
    let quiet = request(12, "tools/call", json!({"name": "steps", "arguments": {}}));
    let reply = Post::mcp(&quiet).send(server.addr).await;
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "stepped");

    // Progress requested, but the client only takes JSON: notifications are dropped.
    let mut meta = request_meta();
    meta["progressToken"] = json!(5);
    let loud = request(13, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta}));
    let reply = Post::mcp(&loud).header("accept", "application/json").send(server.addr).await;
    assert_eq!(reply.json("tools/call")["id"], 13);
    server.stop().await;
}

#[tokio::test]
async fn concurrent_streams_do_not_mix() {
    let (server, _) = standard().await;
    let tasks: Vec<_> = (0..3)
        .map(|i| {
            let mut meta = request_meta();
            meta["progressToken"] = json!(format!("token-{i}"));
            let message = request(100 + i, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta}));
            let addr = server.addr;
            tokio::spawn(async move { (i, Post::mcp(&message).send(addr).await) })
        })
        .collect();
    for task in tasks {
        let (i, reply) = task.await.expect("the client task ends");
        let events = reply.events("tools/call");
        assert_eq!(events.len(), 4, "three progress events and the response");
        assert!(events[..3].iter().all(|e| e["params"]["progressToken"] == format!("token-{i}")));
        assert_eq!(events[3]["id"], 100 + i);
    }
    server.stop().await;
}

#[tokio::test]
async fn quiet_streams_carry_keep_alive_comments() {
    let config = HttpConfig::default().sse_keep_alive(Duration::from_millis(50));
    let server = Running::start(fixture(Probe::default()), config).await;
    let mut meta = request_meta();
    meta["progressToken"] = json!("k");
    let message = request(14, "tools/call", json!({"name": "pause", "arguments": {}, "_meta": meta}));
    let reply = Post::mcp(&message).send(server.addr).await;
    let text = String::from_utf8_lossy(&reply.body).into_owned();
    assert!(text.contains("\n\n: keep-alive\n\n"), "{text}");
    let events = reply.events("tools/call");
    assert_eq!(events.len(), 3, "two progress notifications and the response");
    assert_eq!(events[2]["result"]["content"][0]["text"], "paused");
    server.stop().await;
}

/// Reads a streamed response one event (or comment) at a time.
struct EventReader {
    body: hyper::body::Incoming,
    buffer: String,
}

impl EventReader {
    async fn next(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                return Some(event);
            }
            let frame = tokio::time::timeout(STUCK, self.body.frame()).await.expect("an event in time")?;
            if let Ok(data) = frame.expect("a readable stream").into_data() {
                self.buffer.push_str(std::str::from_utf8(&data).expect("UTF-8"));
            }
        }
    }

    /// The next event that is not a comment, parsed.
    async fn next_message(&mut self) -> Option<Value> {
        loop {
            let event = self.next().await?;
            if let Some(data) = event.strip_prefix("data: ") {
                return Some(serde_json::from_str(data.trim_end()).expect("JSON data"));
            }
        }
    }
}

#[tokio::test]
async fn listen_streams_outlive_the_request_timeout_and_close_at_shutdown() {
    let app = fixture(Probe::default());
    let config =
        HttpConfig::default().request_timeout(Duration::from_millis(100)).sse_keep_alive(Duration::from_millis(50));
    let server = Running::start(app.clone(), config).await;
    let message = request(61, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let response = sender.send_request(Post::mcp(&message).build(server.addr)).await.expect("a response");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut events = EventReader { body: response.into_body(), buffer: String::new() };

    let ack = events.next_message().await.expect("the acknowledgement");
    let json_only =
        Post::mcp(&request(62, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})));
    let refused = json_only.header("accept", "application/json").send(server.addr).await;
    assert_eq!(refused.status, StatusCode::NOT_ACCEPTABLE, "a listen stream needs an event stream");
    assert_eq!(refused.error_code("subscriptions/listen", &json!(62)), -32600);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_valid_notification(&ack);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(events.next().await.as_deref(), Some(": keep-alive\n\n"), "still open past the request timeout");

    app.add_tool(ToolEntry::new("late", || async { "late" })).expect("a valid tool");
    let changed = events.next_message().await.expect("a change notification");
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_valid_notification(&changed);

    let stopping = tokio::spawn(server.stop());
    let closing = events.next_message().await.expect("the closing result");
    assert_eq!(closing["id"], 61);
    assert_valid_message("subscriptions/listen", &closing);
    assert_eq!(events.next().await, None, "the stream ends after its result");
    tokio::time::timeout(STUCK, stopping).await.expect("the server stops").expect("stop task");
}

// ------------------------------------------------------------- limits --

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let server = Running::start(fixture(Probe::default()), HttpConfig::default().max_body_bytes(1024)).await;
    let big = call(1, "echo", json!({"text": "x".repeat(2000)}));
    let reply = Post::mcp(&big).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);

    // Without a Content-Length (chunked), the limit still holds.
    let (parts, _) = Post::mcp(&big).build(server.addr).into_parts();
    let reply = tokio::time::timeout(STUCK, exchange(server.addr, Request::from_parts(parts, Chunks(8))))
        .await
        .expect("an answer");
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);

    let small = call(2, "echo", json!({"text": "fits"}));
    assert_eq!(Post::mcp(&small).send(server.addr).await.status, StatusCode::OK);
    server.stop().await;
}

/// A body of `n` chunks of 512 spaces, of unknown length (sent chunked).
struct Chunks(usize);

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        if self.0 == 0 {
            return std::task::Poll::Ready(None);
        }
        self.0 -= 1;
        std::task::Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from(vec![b' '; 512])))))
    }
}

#[tokio::test]
async fn oversized_headers_are_refused() {
    let server = Running::start(fixture(Probe::default()), HttpConfig::default().max_header_bytes(8192)).await;
    let message = request(1, "server/discover", Value::Null);
    let reply = Post::mcp(&message).header("x-padding", "a".repeat(16 * 1024)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert_eq!(Post::mcp(&message).send(server.addr).await.status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn a_handler_past_the_request_timeout_is_dropped_with_an_error() {
    let probe = Probe::default();
    let config = HttpConfig::default().request_timeout(Duration::from_millis(200));
    let server = Running::start(fixture(probe.clone()), config).await;
    let reply = Post::mcp(&call(21, "slow", json!({}))).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.error_code("tools/call", &json!(21)), -32603);
    assert!(probe.dropped(), "the handler was dropped");
    probe.token_cancelled().await;
    server.stop().await;
}

#[tokio::test]
async fn idle_connections_are_closed_but_requests_in_progress_are_never_cut() {
    let config = HttpConfig::default().header_read_timeout(Duration::from_millis(200));
    let server = Running::start(fixture(Probe::default()), config).await;
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    let driver = tokio::spawn(connection);

    // A handler (300 ms) and then a stream (600 ms) on the same connection,
    // each longer than the wait allowed between requests.
    let nap = call(1, "nap", json!({"text": "rested"}));
    let response = sender.send_request(Post::mcp(&nap).build(server.addr)).await.expect("the nap is answered");
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.expect("a body").to_bytes();
    assert!(String::from_utf8_lossy(&body).contains("rested"), "{body:?}");
    let mut meta = request_meta();
    meta["progressToken"] = json!("w");
    let pause = request(2, "tools/call", json!({"name": "pause", "arguments": {}, "_meta": meta}));
    let response = sender.send_request(Post::mcp(&pause).build(server.addr)).await.expect("the pause is answered");
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.expect("a whole stream").to_bytes();
    assert!(String::from_utf8_lossy(&body).contains("paused"), "{body:?}");

    // Left waiting for a request, the connection is closed by the server.
    let closed = tokio::time::timeout(STUCK, driver).await;
    assert!(closed.is_ok(), "the idle connection is closed");
    server.stop().await;
}

#[tokio::test]
async fn a_stalled_client_does_not_hold_up_the_others() {
    let config = HttpConfig::default().header_read_timeout(Duration::from_secs(1)).body_timeout(Duration::from_secs(1));
    let server = Running::start(fixture(Probe::default()), config).await;

    // One client sends half a request head and stops; another, a head that
    // announces a body it never sends.
    let mut half_head = TcpStream::connect(server.addr).await.expect("connect");
    half_head.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n").await.expect("write");
    let mut no_body = TcpStream::connect(server.addr).await.expect("connect");
    let head =
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    no_body.write_all(head.as_bytes()).await.expect("write");

    let reply = Post::mcp(&request(1, "server/discover", Value::Null)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK, "served while others stall");

    // The stalled head is dropped; the missing body gets 408.
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(STUCK, half_head.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the connection with a stalled head is closed");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(STUCK, no_body.read_to_end(&mut answer)).await.expect("answered in time");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    server.stop().await;
}

#[tokio::test]
async fn a_client_that_stops_reading_loses_its_connection() {
    let config = HttpConfig::default().max_connections(1).write_timeout(Duration::from_millis(300));
    let server = Running::start(fixture(Probe::default()), config).await;
    let message = serde_json::to_string(&call(51, "big", json!({}))).expect("JSON");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: big\r\nContent-Length: {}\r\n\r\n",
        message.len()
    );
    let mut stalled = TcpStream::connect(server.addr).await.expect("connect");
    stalled.write_all(head.as_bytes()).await.expect("write");
    stalled.write_all(message.as_bytes()).await.expect("write");

    // The only connection slot is taken until the stalled reader is dropped.
    let reply = Post::mcp(&request(52, "server/discover", Value::Null)).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);

    let mut received = Vec::new();
    let _ = tokio::time::timeout(STUCK, stalled.read_to_end(&mut received)).await.expect("the connection ends");
    assert!(received.len() < BIG, "the stalled reader never got the whole answer");
    server.stop().await;
}

// ------------------------------------------------------- origin and host --

#[tokio::test]
async fn dns_rebinding_is_refused_on_loopback() {
    let (server, _) = standard().await;
    let message = request(1, "server/discover", Value::Null);
    let port = server.addr.port();
    for host in ["evil.example.com".to_owned(), format!("evil.example.com:{port}")] {
        let reply = Post::mcp(&message).header("host", &host).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{host}");
    }
    let reply = Post::mcp(&message).header("origin", "http://evil.example.com").send(server.addr).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    for host in
        [format!("localhost:{port}"), format!("127.0.0.1:{port}"), format!("[::1]:{port}"), "localhost".to_owned()]
    {
        let reply = Post::mcp(&message).header("host", &host).send(server.addr).await;
        assert_eq!(reply.status, StatusCode::OK, "{host}");
    }
    let reply = Post::mcp(&message).header("origin", format!("http://localhost:{port}")).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn allow_lists_replace_the_loopback_default() {
    let config = HttpConfig::default().allowed_hosts(["mcp.example.com"]).allowed_origins(["https://app.example.com"]);
    let server = Running::start(fixture(Probe::default()), config).await;
    let message = request(1, "server/discover", Value::Null);
    let status = |post: Post| async { post.send(server.addr).await.status };
    assert_eq!(status(Post::mcp(&message).header("host", "mcp.example.com")).await, StatusCode::OK);
    assert_eq!(status(Post::mcp(&message)).await, StatusCode::FORBIDDEN, "loopback no longer listed");
    let from_app = Post::mcp(&message).header("host", "mcp.example.com").header("origin", "https://app.example.com");
    assert_eq!(status(from_app).await, StatusCode::OK);
    let from_else = Post::mcp(&message).header("host", "mcp.example.com").header("origin", "https://else.example.com");
    assert_eq!(status(from_else).await, StatusCode::FORBIDDEN);
    server.stop().await;

    let open = Running::start(fixture(Probe::default()), HttpConfig::default().allow_any_host()).await;
    let message = request(2, "server/discover", Value::Null);
    assert_eq!(Post::mcp(&message).header("host", "anything.example").send(open.addr).await.status, StatusCode::OK);
    let cross = Post::mcp(&message).header("host", "a.example").header("origin", "https://b.example");
    assert_eq!(cross.send(open.addr).await.status, StatusCode::FORBIDDEN);
    open.stop().await;
}

// ---------------------------------------------- cancellation and shutdown --

#[tokio::test]
async fn a_client_that_disconnects_cancels_its_request() {
    let (server, probe) = standard().await;
    let request = Post::mcp(&call(31, "slow", json!({}))).build(server.addr);
    let stream = TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    let driver = tokio::spawn(connection);
    let pending = tokio::spawn(async move { sender.send_request(request).await });
    probe.started().await;
    pending.abort();
    driver.abort();
    let cancelled = tokio::time::timeout(STUCK, async {
        while !probe.dropped() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(cancelled.is_ok(), "the handler is dropped once the client is gone");
    probe.token_cancelled().await;
    server.stop().await;
}

#[tokio::test]
async fn shutdown_finishes_requests_in_flight() {
    let (server, probe) = standard().await;
    let addr = server.addr;
    let in_flight = tokio::spawn(Post::mcp(&call(41, "nap", json!({"text": "finished"}))).send(addr));
    probe.started().await;
    server.stop().await;
    let reply = in_flight.await.expect("the client task ends");
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "finished");
    assert!(TcpStream::connect(addr).await.is_err(), "nothing listens after shutdown");
}

#[tokio::test]
async fn shutdown_closes_what_outlives_the_grace_period() {
    let probe = Probe::default();
    let config = HttpConfig::default().shutdown_grace(Duration::from_millis(200));
    let server = Running::start(fixture(probe.clone()), config).await;
    let addr = server.addr;
    let stuck = tokio::spawn(async move {
        let request = Post::mcp(&call(42, "slow", json!({}))).build(addr);
        let stream = TcpStream::connect(addr).await.expect("connect");
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
        tokio::spawn(connection);
        sender.send_request(request).await
    });
    probe.started().await;
    server.stop().await;
    assert!(probe.dropped(), "the handler was dropped at the end of the grace period");
    let outcome = tokio::time::timeout(STUCK, stuck).await.expect("the client sees the end").expect("task ends");
    assert!(outcome.is_err(), "the connection closed without a response");
}

// ---------------------------------------------------- many connections --

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_256_concurrent_connections() {
    let (server, _) = standard().await;
    let addr = server.addr;
    let served = Arc::new(AtomicUsize::new(0));
    // Open every connection first, then send every request.
    let mut streams = Vec::new();
    for _ in 0..256 {
        streams.push(TcpStream::connect(addr).await.expect("connect"));
    }
    let tasks: Vec<_> = streams
        .into_iter()
        .enumerate()
        .map(|(i, stream)| {
            let served = Arc::clone(&served);
            tokio::spawn(async move {
                let id = i64::try_from(i).expect("small");
                let message = call(id, "echo", json!({"text": format!("n{i}")}));
                let request = Post::mcp(&message).build(addr);
                let (mut sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
                let driver = tokio::spawn(connection);
                let response = sender.send_request(request).await.expect("a response");
                assert_eq!(response.status(), StatusCode::OK);
                let body = response.into_body().collect().await.expect("a body").to_bytes();
                let value: Value = serde_json::from_slice(&body).expect("JSON");
                assert_eq!(value["result"]["content"][0]["text"], format!("n{i}"));
                driver.abort();
                served.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    let all = async {
        for task in tasks {
            task.await.expect("every client succeeds");
        }
    };
    tokio::time::timeout(STUCK, all).await.expect("all served in time");
    assert_eq!(served.load(Ordering::SeqCst), 256);
    server.stop().await;
}

#[tokio::test]
async fn clients_beyond_the_connection_limit_wait_their_turn() {
    let config = HttpConfig::default().max_connections(4);
    let server = Running::start(fixture(Probe::default()), config).await;
    let tasks: Vec<_> = (0..24)
        .map(|i| tokio::spawn(Post::mcp(&call(i, "echo", json!({"text": "queued"}))).send(server.addr)))
        .collect();
    for task in tasks {
        assert_eq!(task.await.expect("client task").status, StatusCode::OK);
    }
    server.stop().await;
}

// ---------------------------------------------------------- embedding --

#[tokio::test]
async fn mounts_in_an_axum_router_next_to_other_routes() {
    let server = fixture(Probe::default());
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .route_service("/mcp", server.http_service(HttpConfig::default()));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let stop = CancellationToken::new();
    let until = stop.clone().cancelled_owned();
    let serving = tokio::spawn(async move { axum::serve(listener, app).with_graceful_shutdown(until).await });

    let health = Post::raw("").method(Method::GET).path("/health").send(addr).await;
    assert_eq!((health.status, &health.body[..]), (StatusCode::OK, &b"ok"[..]));
    let reply = Post::mcp(&call(1, "echo", json!({"text": "from axum"}))).send(addr).await;
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "from axum");
    let mut meta = request_meta();
    meta["progressToken"] = json!("ax");
    let streamed = Post::mcp(&request(2, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta})));
    assert_eq!(streamed.send(addr).await.events("tools/call").len(), 4);
    assert_eq!(Post::raw("").method(Method::GET).send(addr).await.status, StatusCode::METHOD_NOT_ALLOWED);

    stop.cancel();
    tokio::time::timeout(STUCK, serving).await.expect("axum stops").expect("task").expect("serve result");
}

#[tokio::test]
async fn the_service_works_without_a_listener() {
    use tower_service::Service as _;
    let mut service = fixture(Probe::default()).http_service(HttpConfig::default());
    let message = request(1, "tools/list", Value::Null);
    let request = Post::mcp(&message).header("host", "localhost").build("127.0.0.1:1".parse().expect("addr"));
    let response = service.call(request).await.expect("infallible");
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.expect("a body").to_bytes();
    let value: Value = serde_json::from_slice(&body).expect("JSON");
    assert_valid_message("tools/list", &value);
    assert!(value["result"]["tools"].as_array().is_some_and(|t| t.len() == 7));
}
