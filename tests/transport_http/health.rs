//! Liveness and readiness probes: off by default, outside the MCP checks,
//! failing with the stores the server depends on, and failing first when
//! shutdown begins.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http::{Method, StatusCode};
use http_body_util::BodyExt;
use mcp_runtime::events::{EventBus, LocalBus, ReadyFuture, ServerEvent};
use mcp_runtime::session::{
    MemorySessionStore, SessionChange, SessionLimits, SessionRecord, SessionStore, StoreError, StoreFuture,
};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{CancellationToken, Server, entry::ToolEntry};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::{Notify, broadcast, oneshot};

use crate::fixture::{Post, Probe, Reply, Running, STUCK, call, fixture};

fn probes() -> HttpConfig {
    HttpConfig::default().health_endpoints("/healthz", "/readyz")
}

/// A GET of `path`, the way a balancer probes: by address, no MCP headers.
async fn probe(addr: std::net::SocketAddr, path: &str) -> Reply {
    Post::raw(Vec::new()).method(Method::GET).without("content-type").without("accept").path(path).send(addr).await
}

#[tokio::test]
async fn probes_are_off_by_default() {
    let server = Running::start(fixture(Probe::default()), HttpConfig::default()).await;
    assert_eq!(probe(server.addr, "/healthz").await.status, StatusCode::NOT_FOUND);
    assert_eq!(probe(server.addr, "/readyz").await.status, StatusCode::NOT_FOUND);
    server.stop().await;
}

#[tokio::test]
async fn live_and_ready_answer_ok_and_the_endpoint_is_unchanged() {
    let server = Running::start(fixture(Probe::default()), probes()).await;
    for path in ["/healthz", "/readyz"] {
        let reply = probe(server.addr, path).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(&reply.body[..], b"ok\n");
        assert_eq!(reply.headers["cache-control"], "no-store");
        // A balancer probes by address, which the Host rule does not know.
        let by_address = Post::raw(Vec::new()).method(Method::GET).path(path).header("host", "10.0.3.7:3000");
        assert_eq!(by_address.send(server.addr).await.status, StatusCode::OK, "{path} by address");
        let head = Post::raw(Vec::new()).method(Method::HEAD).path(path).send(server.addr).await;
        assert_eq!((head.status, head.body.len()), (StatusCode::OK, 0));
        let post = Post::raw(Vec::new()).path(path).send(server.addr).await;
        assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(post.headers["allow"], "GET, HEAD");
    }
    let reply = Post::mcp(&call(1, "echo", json!({"text": "still here"}))).send(server.addr).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "still here");
    // The MCP endpoint keeps its Host check.
    let foreign = Post::mcp(&call(2, "echo", json!({"text": "x"}))).header("host", "10.0.3.7:3000");
    assert_eq!(foreign.send(server.addr).await.status, StatusCode::FORBIDDEN);
    assert_eq!(probe(server.addr, "/elsewhere").await.status, StatusCode::NOT_FOUND);
    server.stop().await;
}

/// A bus in this process whose engine can be switched off.
struct FlakyBus {
    local: LocalBus,
    up: Arc<AtomicBool>,
}

impl EventBus for FlakyBus {
    fn publish(&self, event: ServerEvent) {
        self.local.publish(event);
    }

    fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.local.subscribe()
    }

    fn ready(&self) -> ReadyFuture<'_> {
        let up = self.up.load(Ordering::SeqCst);
        Box::pin(async move { if up { Ok(()) } else { Err("the bus is down".into()) } })
    }
}

#[tokio::test]
async fn ready_fails_while_the_event_bus_does_not_answer() {
    let up = Arc::new(AtomicBool::new(true));
    let server = Server::builder("health", "1.0.0")
        .event_bus(FlakyBus { local: LocalBus::default(), up: Arc::clone(&up) })
        .build()
        .expect("a valid server");
    let server = Running::start(server, probes()).await;
    assert_eq!(probe(server.addr, "/readyz").await.status, StatusCode::OK);
    up.store(false, Ordering::SeqCst);
    let reply = probe(server.addr, "/readyz").await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(&reply.body[..], b"not ready\n", "the reason is logged, not sent");
    assert_eq!(probe(server.addr, "/healthz").await.status, StatusCode::OK, "still alive");
    up.store(true, Ordering::SeqCst);
    assert_eq!(probe(server.addr, "/readyz").await.status, StatusCode::OK, "ready again");
    server.stop().await;
}

/// The memory store, with a backend that can be switched off.
struct FlakyStore {
    memory: MemorySessionStore,
    up: Arc<AtomicBool>,
}

impl SessionStore for FlakyStore {
    fn create(&self, record: SessionRecord, limits: SessionLimits) -> StoreFuture<'_, ()> {
        self.memory.create(record, limits)
    }

    fn load<'a>(&'a self, id: &'a str, limits: SessionLimits) -> StoreFuture<'a, Option<SessionRecord>> {
        self.memory.load(id, limits)
    }

    fn update<'a>(&'a self, id: &'a str, change: SessionChange) -> StoreFuture<'a, bool> {
        self.memory.update(id, change)
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        self.memory.remove(id)
    }

    fn ready(&self) -> StoreFuture<'_, ()> {
        let up = self.up.load(Ordering::SeqCst);
        Box::pin(async move { if up { Ok(()) } else { Err(StoreError::backend("the store is down")) } })
    }
}

#[tokio::test]
async fn ready_fails_while_the_session_store_does_not_answer() {
    let up = Arc::new(AtomicBool::new(true));
    let store = FlakyStore { memory: MemorySessionStore::new(), up: Arc::clone(&up) };
    let server = Running::start(fixture(Probe::default()), probes().session_store(store)).await;
    assert_eq!(probe(server.addr, "/readyz").await.status, StatusCode::OK);
    up.store(false, Ordering::SeqCst);
    assert_eq!(probe(server.addr, "/readyz").await.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(probe(server.addr, "/healthz").await.status, StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn ready_fails_first_at_shutdown_while_requests_in_flight_finish() {
    let (started, release) = (Arc::new(Notify::new()), CancellationToken::new());
    let (on_start, on_release) = (Arc::clone(&started), release.clone());
    let server = Server::builder("health", "1.0.0")
        .tool(ToolEntry::new("hold", move || {
            let (started, release) = (Arc::clone(&on_start), on_release.clone());
            async move {
                started.notify_one();
                release.cancelled().await;
                "released"
            }
        }))
        .build()
        .expect("a valid server");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free loopback port");
    let addr = listener.local_addr().expect("a local address");
    let (stop, stopped) = oneshot::channel::<()>();
    let config = probes().shutdown_drain(Duration::from_secs(2));
    let serving = tokio::spawn(server.serve_http_with_shutdown(listener, config, async {
        let _ = stopped.await;
    }));
    let in_flight = tokio::spawn(Post::mcp(&call(7, "hold", json!({}))).send(addr));
    tokio::time::timeout(STUCK, started.notified()).await.expect("the handler starts");
    assert_eq!(probe(addr, "/readyz").await.status, StatusCode::OK);

    stop.send(()).expect("the server listens for shutdown");
    let not_ready = tokio::time::timeout(STUCK, async {
        while probe(addr, "/readyz").await.status == StatusCode::OK {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(not_ready.is_ok(), "readiness turns 503 once shutdown begins");
    assert!(!in_flight.is_finished(), "before the request in flight finishes");
    assert_eq!(probe(addr, "/healthz").await.status, StatusCode::OK, "alive while draining");
    let during = Post::mcp(&call(8, "hold", json!({}))).send(addr);
    let during = tokio::spawn(during);
    tokio::time::timeout(STUCK, started.notified()).await.expect("requests are still served while draining");

    release.cancel();
    for (reply, id) in [(in_flight, 7), (during, 8)] {
        let reply = reply.await.expect("the client task ends");
        assert_eq!(reply.status, StatusCode::OK, "request {id}");
        assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "released");
    }
    let result = tokio::time::timeout(STUCK, serving).await.expect("the server stops");
    result.expect("the server task ends").expect("the server returns Ok");
}

#[tokio::test]
async fn a_mounted_service_answers_probes_on_the_paths_routed_to_it_and_drains_when_told() {
    let server = Server::builder("health", "1.0.0").build().expect("a valid server");
    let service = server.http_service(probes());
    let get = |path: &str| http::Request::get(path).header("host", "10.0.3.7").body(String::new()).expect("a request");
    let ready = service.handle(get("/readyz")).await.expect("infallible");
    assert_eq!(ready.status(), StatusCode::OK);
    let body = ready.into_body().collect().await.expect("a body").to_bytes();
    assert_eq!(&body[..], b"ok\n");
    assert!(service.is_ready().await);

    service.drain();
    assert!(!service.is_ready().await);
    assert_eq!(service.handle(get("/readyz")).await.expect("infallible").status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(service.handle(get("/healthz")).await.expect("infallible").status(), StatusCode::OK);
    // Without probes configured, those paths are the MCP endpoint's own.
    let plain = server.http_service(HttpConfig::default());
    let refused = plain.handle(get("/readyz")).await.expect("infallible");
    assert_eq!(refused.status(), StatusCode::FORBIDDEN, "the Host check, as before");
}
