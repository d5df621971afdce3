//! Callers who attack the transport: a page that rebinds a name to a server
//! bound wide, a client that expects its connection back after a refusal,
//! and clients that take every connection, listen stream or HTTP/2 stream
//! there is; what the audit trail records of them. Each test is named for
//! an attack, and failed before the defence it checks existed.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mcp_runtime::Server;
use mcp_runtime::auth::{Authorization, Principal};
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::middleware::Audit;
use mcp_runtime::transport::http::{ForwardedHeader, HttpConfig};
use mcp_tests::http_wire::{self, STUCK, stateless_meta};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Serves `server` on `listener` with `config` until the test ends.
fn serve_on(server: Server, listener: tokio::net::TcpListener, config: HttpConfig) {
    tokio::spawn(server.serve_http_with_shutdown(listener, config, std::future::pending()));
}

/// A server with one tool that answers at once.
fn echo() -> Server {
    Server::builder("transport", "1.0.0").tool(ToolEntry::new("echo", || async { "echo" })).build().expect("a server")
}

fn call(id: i64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": {}, "_meta": stateless_meta(json!({}))}})
}

#[tokio::test]
async fn a_rebound_name_is_refused_by_a_server_bound_to_every_address() {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.expect("bind");
    let port = listener.local_addr().expect("an address").port();
    serve_on(echo(), listener, HttpConfig::default());
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let rebound = format!("rebind.attacker.example:{port}");
    let origin = format!("http://{rebound}");
    let response = http_wire::send(
        addr,
        http::Method::POST,
        None,
        Some(&call(1, "echo")),
        &[("host", &rebound), ("origin", &origin)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN, "a page on a rebound name reached the server");
    let body = response.into_body().collect().await.expect("a body").to_bytes();
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("public_url"), "the refusal says what to set: {text}");
    // The loopback names and the server's addresses still work.
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let response =
            http_wire::send(addr, http::Method::POST, None, Some(&call(2, "echo")), &[("host", &host)]).await;
        assert_eq!(response.status(), StatusCode::OK, "{host}");
    }
}

#[tokio::test]
async fn a_server_told_its_public_url_answers_for_that_name_only() {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.expect("bind");
    let port = listener.local_addr().expect("an address").port();
    let config = HttpConfig::default().public_url(format!("http://mcp.example.test:{port}/mcp"));
    serve_on(echo(), listener, config);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let named = format!("mcp.example.test:{port}");
    let origin = format!("http://{named}");
    let response = http_wire::send(
        addr,
        http::Method::POST,
        None,
        Some(&call(1, "echo")),
        &[("host", &named), ("origin", &origin)],
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let other = format!("other.example.test:{port}");
    let response = http_wire::send(addr, http::Method::POST, None, Some(&call(2, "echo")), &[("host", &other)]).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
}

type H1 = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

/// One HTTP/1.1 connection, kept alive between requests.
async fn keep_alive(addr: SocketAddr) -> H1 {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    sender
}

/// A 2026-07-28 `tools/call` of `echo` with `authorization` and `padding`
/// bytes of arguments.
fn protected_call(addr: SocketAddr, authorization: Option<&str>, padding: usize) -> Request<Full<Bytes>> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"pad": "x".repeat(padding)}, "_meta": stateless_meta(json!({}))}});
    let mut request = Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo");
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    request.body(Full::new(Bytes::from(body.to_string()))).expect("a request")
}

/// A server that needs a bearer token (from an issuer that is never asked:
/// these requests carry none worth verifying), with `audit` when given.
async fn protected(audit: Option<Audit>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    let mut builder = Server::builder("protected", "1.0.0")
        .tool(ToolEntry::new("echo", || async { "echo" }))
        .authorization(Authorization::new("http://127.0.0.1:9/", format!("http://{addr}/mcp")));
    if let Some(audit) = audit {
        builder = builder.layer(audit);
    }
    serve_on(builder.build().expect("a server"), listener, HttpConfig::default());
    addr
}

#[tokio::test]
async fn a_401_leaves_the_keep_alive_connection_usable() {
    let addr = protected(None).await;
    let mut sender = keep_alive(addr).await;
    // What every client's OAuth discovery starts with: a request without a
    // token, then the next one on the same connection.
    for round in 0..30 {
        let authorization = [None, Some("Bearer not a token"), Some("Basic YTpi")][round % 3];
        tokio::time::timeout(STUCK, sender.ready()).await.expect("in time").unwrap_or_else(|e| {
            panic!("the connection was closed after {round} refusals: {e}");
        });
        let response = tokio::time::timeout(STUCK, sender.send_request(protected_call(addr, authorization, 1000)))
            .await
            .expect("in time")
            .unwrap_or_else(|e| panic!("request {round} on the kept connection failed: {e}"));
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{authorization:?}");
        assert!(response.headers().get("connection").is_none(), "a small body is read, the connection kept");
        response.into_body().collect().await.expect("a body");
    }
    // A body too large to be worth reading closes the connection, and says so.
    let response = sender.send_request(protected_call(addr, None, 512 * 1024)).await.expect("an answer");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(response.headers().get("connection").map(|v| v.as_bytes()), Some(&b"close"[..]));
}

/// A raw connection that said nothing, and whether the server has closed it
/// within `within`.
async fn closed_within(stream: &mut tokio::net::TcpStream, within: Duration) -> bool {
    let mut byte = [0u8; 1];
    matches!(tokio::time::timeout(within, stream.read(&mut byte)).await, Ok(Ok(0) | Err(_)))
}

#[tokio::test]
async fn one_address_cannot_hold_every_connection() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    serve_on(echo(), listener, HttpConfig::default().max_connections_per_address(3));
    // Three connections that say nothing hold this address's places...
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        assert!(!closed_within(&mut stream, Duration::from_millis(200)).await, "within the limit");
        held.push(stream);
    }
    // ...so the fourth is closed at once.
    let mut fourth = tokio::net::TcpStream::connect(addr).await.expect("connect");
    assert!(closed_within(&mut fourth, Duration::from_secs(5)).await, "a fourth connection from one address");
    // One place given back, a request is served again.
    drop(held.pop());
    let deadline = Instant::now() + STUCK;
    loop {
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let body = call(1, "echo").to_string();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json\r\n\
             mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: echo\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes()).await;
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer).await;
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "the place was never given back: {answer:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A `subscriptions/listen` of tool changes, from the client
/// `forwarded_for` behind the trusted proxy.
async fn listen(addr: SocketAddr, id: i64, forwarded_for: &str) -> http::Response<hyper::body::Incoming> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": stateless_meta(json!({})), "notifications": {"toolsListChanged": true}}});
    http_wire::send(addr, http::Method::POST, None, Some(&body), &[("x-forwarded-for", forwarded_for)]).await
}

#[tokio::test]
async fn one_caller_cannot_hold_every_listen_stream() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    let server = echo();
    let config = HttpConfig::default().max_listen_streams(3, 2).trusted_proxies(1, ForwardedHeader::XForwardedFor);
    serve_on(server, listener, config);
    let mut streams = Vec::new();
    for id in 0..2 {
        let response = listen(addr, id, "198.51.100.1").await;
        assert_eq!(response.status(), StatusCode::OK);
        let mut events = http_wire::Events::of(response);
        assert_eq!(events.next().await.expect("acknowledged")["method"], "notifications/subscriptions/acknowledged");
        streams.push(events);
    }
    let refused = listen(addr, 2, "198.51.100.1").await;
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE, "a third stream of one caller");
    assert!(refused.headers().contains_key("retry-after"));
    let body: Value = serde_json::from_slice(&refused.into_body().collect().await.expect("a body").to_bytes())
        .expect("a JSON-RPC error");
    assert_eq!(body["id"], 2);
    assert!(body["error"]["message"].as_str().is_some_and(|m| m.contains("limit of 2")), "{body}");
    // Another caller has room, until the server's own limit.
    let other = listen(addr, 3, "198.51.100.2").await;
    assert_eq!(other.status(), StatusCode::OK);
    let _other = http_wire::Events::of(other);
    assert_eq!(listen(addr, 4, "198.51.100.3").await.status(), StatusCode::SERVICE_UNAVAILABLE, "the server's limit");
    // A stream closed gives its place back.
    drop(streams.pop());
    let deadline = Instant::now() + STUCK;
    while listen(addr, 5, "198.51.100.1").await.status() != StatusCode::OK {
        assert!(Instant::now() < deadline, "the place was never given back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_http2_connection_runs_no_more_streams_than_it_announced() {
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (now, peak) = (Arc::clone(&running), Arc::clone(&most));
    let server = Server::builder("h2", "1.0.0")
        .tool(ToolEntry::new("hold", move || {
            let (now, peak) = (Arc::clone(&now), Arc::clone(&peak));
            async move {
                let at_once = now.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(at_once, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(200)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                "held"
            }
        }))
        .build()
        .expect("a server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    serve_on(server, listener, HttpConfig::default().http2_max_concurrent_streams(2));
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.expect("h2 handshake");
    tokio::spawn(connection);
    let calls = (0..6).map(|id| {
        let mut sender = sender.clone();
        async move {
            let body = call(id, "hold").to_string();
            let request = Request::post(format!("http://{addr}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "hold")
                .body(Full::new(Bytes::from(body)))
                .expect("a request");
            tokio::time::timeout(STUCK, sender.send_request(request)).await.expect("in time").map(|r| r.status())
        }
    });
    let statuses = futures_util::future::join_all(calls).await;
    let answered = statuses.iter().filter(|s| matches!(s, Ok(StatusCode::OK))).count();
    assert!(answered >= 2, "{statuses:?}");
    let most = most.load(Ordering::SeqCst);
    assert!(most <= 2, "{most} calls ran at once on one connection announced to take 2");
}

/// What a `tracing` fmt subscriber writes, kept for the test to read.
#[derive(Clone, Default)]
struct Logged(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logged {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logged {
    fn audit_lines(&self) -> Vec<String> {
        let logged = String::from_utf8(self.0.lock().unwrap().clone()).expect("UTF-8");
        logged.lines().filter(|l| l.contains("mcp_runtime::audit")).map(str::to_owned).collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_before_the_layers_are_audited() {
    let logged = Logged::default();
    let writer = logged.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    let _logging = tracing::subscriber::set_global_default(subscriber);
    let addr = protected(Some(Audit::new())).await;
    let mut sender = keep_alive(addr).await;
    let response = sender.send_request(protected_call(addr, None, 10)).await.expect("an answer");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    response.into_body().collect().await.expect("a body");
    let response =
        http_wire::send(addr, http::Method::POST, None, Some(&call(1, "echo")), &[("origin", "http://evil.example")])
            .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let lines = logged.audit_lines();
    assert!(
        lines.iter().any(|l| l.contains(r#"request refused caller="127.0.0.1""#)
            && l.contains(r#"outcome="refused" reason="unauthenticated" http_status=401"#)),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains(r#"reason="origin" http_status=403"#)), "{lines:?}");
}

#[test]
fn a_subject_cannot_forge_fields_of_the_audit_line() {
    let logged = Logged::default();
    let writer = logged.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            let server = Server::builder("audited", "1.0.0")
                .tool(ToolEntry::new("echo", || async { "echo" }))
                .layer(Audit::new())
                .build()
                .expect("a server");
            let service = server.http_service(HttpConfig::default());
            let forger = Principal::new(r#"mallory outcome="error" target="admin" x=""#);
            let response = service.handle(http_wire::call_as("echo", Some(forger))).await.expect("infallible");
            assert_eq!(response.status(), StatusCode::OK);
        });
    });
    let lines = logged.audit_lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains(r#"caller="mallory outcome=\"error\" target=\"admin\" x=\"""#), "{}", lines[0]);
    assert!(lines[0].contains(r#"target="echo" outcome="ok""#), "{}", lines[0]);
}

#[test]
fn a_request_refused_for_its_scopes_is_audited() {
    let logged = Logged::default();
    let writer = logged.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            let server = Server::builder("audited", "1.0.0")
                .tool(ToolEntry::new("admin", || async { "done" }).scopes(["admin"]))
                .layer(Audit::new())
                .authenticated_by_layer()
                .build()
                .expect("a server");
            let service = server.http_service(HttpConfig::default());
            let response = service.handle(http_wire::call_as("admin", Some(Principal::new("mallory")))).await;
            assert_eq!(response.expect("infallible").status(), StatusCode::FORBIDDEN);
        });
    });
    let lines = logged.audit_lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains(r#"caller="mallory" method="tools/call" target="admin" outcome="refused" reason="forbidden" http_status=403"#),
        "{}",
        lines[0]
    );
}

#[tokio::test]
async fn in_axum_the_client_address_comes_from_connect_info() {
    let seen: Arc<Mutex<Vec<Option<SocketAddr>>>> = Arc::default();
    let record = Arc::clone(&seen);
    let server = Server::builder("mounted", "1.0.0")
        .tool(ToolEntry::new("echo", || async { "echo" }))
        .layer(mcp_runtime::middleware::from_fn(move |request: mcp_runtime::middleware::McpRequest, next| {
            record.lock().unwrap().push(request.client_address());
            next.run(request)
        }))
        .build()
        .expect("a server");
    let app = axum::Router::new().route_service("/mcp", server.http_service(HttpConfig::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await.expect("served");
    });
    let response = http_wire::post(addr, None, &call(1, "echo")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let address = seen[0].expect("the layer saw the client's address");
    assert_eq!(address.ip(), addr.ip());
    assert_ne!(address.port(), addr.port(), "the client's port, not the server's");
}
