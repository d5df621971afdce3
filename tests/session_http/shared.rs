//! Two services of one process sharing a store as replicas share Redis: a
//! session opened on one is served by the other, an answer reaches the
//! handler waiting on the other, a DELETE ends it on both; and a store
//! that fails is answered 503.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use mcp_runtime::server::Eras;
use mcp_runtime::session::{
    MemorySessionStore, SessionChange, SessionLimits, SessionRecord, SessionStore, StoreError, StoreFuture,
};
use mcp_runtime::transport::http::{HttpConfig, McpService};

use super::{bare, call, initialize, json_of, next, open, post, send, server, stateless_call, text};

/// One replica's handle on records and a bus shared with the others.
struct Twin {
    records: Arc<MemorySessionStore>,
    replica: &'static str,
    bus: broadcast::Sender<(Option<String>, String)>,
}

impl SessionStore for Twin {
    fn create(&self, record: SessionRecord, limits: SessionLimits) -> StoreFuture<'_, ()> {
        self.records.create(record, limits)
    }

    fn load<'a>(&'a self, id: &'a str, limits: SessionLimits) -> StoreFuture<'a, Option<SessionRecord>> {
        self.records.load(id, limits)
    }

    fn update<'a>(&'a self, id: &'a str, change: SessionChange) -> StoreFuture<'a, bool> {
        self.records.update(id, change)
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        self.records.remove(id)
    }

    fn replica_id(&self) -> Option<&str> {
        Some(self.replica)
    }

    fn publish<'a>(&'a self, to: Option<&'a str>, message: String) -> StoreFuture<'a, ()> {
        let _ = self.bus.send((to.map(str::to_owned), message));
        Box::pin(std::future::ready(Ok(())))
    }

    fn subscribe(&self) -> Option<broadcast::Receiver<String>> {
        let (tx, rx) = broadcast::channel(64);
        let (mut all, me) = (self.bus.subscribe(), self.replica);
        tokio::spawn(async move {
            while let Ok((to, message)) = all.recv().await {
                if to.as_deref().is_none_or(|to| to == me) && tx.send(message).is_err() {
                    return;
                }
            }
        });
        Some(rx)
    }
}

fn twins() -> (McpService, McpService) {
    let records = Arc::new(MemorySessionStore::new());
    let bus = broadcast::channel(64).0;
    let server = server(Eras::Dual, Arc::default());
    let service = |replica| {
        let store = Twin { records: Arc::clone(&records), replica, bus: bus.clone() };
        server.http_service(HttpConfig::default().session_store(store))
    };
    (service("a"), service("b"))
}

/// The next JSON-RPC message of an event stream.
async fn message(body: &mut mcp_runtime::transport::http::McpBody) -> Option<Value> {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), next(body)).await.expect("an event in time")?;
        if let Some(data) = event.lines().find_map(|l| l.strip_prefix("data: ")).filter(|d| !d.is_empty()) {
            return Some(serde_json::from_str(data).expect("JSON"));
        }
    }
}

#[tokio::test]
async fn a_session_is_served_by_either_of_two_services_sharing_a_store() {
    let (a, b) = twins();
    let id = open(&a, "2025-11-25").await;
    // Told on the other replica, `initialized` lets this one ask the client.
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(&b, post(Some(&id), &initialized)).await.status(), 202);
    let level = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}});
    assert_eq!(json_of(send(&b, post(Some(&id), &level)).await).await["result"], json!({}));

    let mut stream = send(&a, post(Some(&id), &call(2, "ask"))).await.into_body();
    let asked = message(&mut stream).await.expect("the elicitation");
    assert_eq!(asked["method"], "elicitation/create");
    assert!(asked["id"].as_str().is_some_and(|id| id.starts_with("a:")), "the id names the replica: {asked}");
    let answer =
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(send(&b, post(Some(&id), &answer)).await.status(), 202);
    let done = message(&mut stream).await.expect("the answer");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!");

    let standalone = send(&a, bare(http::Method::GET, &id)).await;
    assert_eq!(standalone.status(), 200);
    assert_eq!(send(&b, bare(http::Method::DELETE, &id)).await.status(), 204);
    let rest = tokio::time::timeout(Duration::from_secs(5), text(standalone)).await.expect("a's stream ended");
    assert!(rest.starts_with("id: a.0-"), "event ids name the replica: {rest}");
    assert_eq!(send(&a, post(Some(&id), &call(3, "echo"))).await.status(), 404);
}

/// A store that cannot be reached.
struct Down;

impl SessionStore for Down {
    fn create(&self, _: SessionRecord, _: SessionLimits) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Err(StoreError::backend("down"))))
    }

    fn load<'a>(&'a self, _: &'a str, _: SessionLimits) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(std::future::ready(Err(StoreError::backend("down"))))
    }

    fn update<'a>(&'a self, _: &'a str, _: SessionChange) -> StoreFuture<'a, bool> {
        Box::pin(std::future::ready(Err(StoreError::backend("down"))))
    }

    fn remove<'a>(&'a self, _: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(std::future::ready(Err(StoreError::backend("down"))))
    }
}

#[tokio::test]
async fn a_store_out_of_reach_is_503_and_the_stateless_path_never_asks_it() {
    let service = server(Eras::Dual, Arc::default()).http_service(HttpConfig::default().session_store(Down));
    let refused = send(&service, post(None, &initialize("2025-11-25"))).await;
    assert_eq!(refused.status(), 503);
    assert!(refused.headers().get("mcp-session-id").is_none());
    assert_eq!(json_of(refused).await["error"]["code"], -32603);
    assert_eq!(send(&service, post(Some("0123456789abcdef"), &call(1, "echo"))).await.status(), 503);
    assert_eq!(send(&service, stateless_call(2)).await.status(), 200);
}
