//! Callers who try to switch a limit off or read across to another caller:
//! each test is named for an attack, and failed before the defence it
//! checks existed.
//!
//! The rate limit and the sealed `requestState` (a request a field cannot
//! switch off), the result cache (a result a caller cannot read across),
//! callers behind a proxy or an IPv6 prefix (a key a caller cannot
//! change), and task quotas (a store one caller cannot fill). The
//! transport's share (names, connections, streams) is in
//! `hostile_connections.rs`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http::StatusCode;
use http_body_util::BodyExt;
use mcp_runtime::auth::Principal;
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::input::Elicitation;
use mcp_runtime::middleware::{RateLimit, ResultCache};
use mcp_runtime::protocol::ToolAnnotations;
use mcp_runtime::tasks::{MemoryTaskStore, TaskSupport};
use mcp_runtime::transport::http::{ForwardedHeader, HttpConfig, McpService, PeerAddress};
use mcp_runtime::{Input, RequestContext, Server};
use mcp_tests::exchange::{request, send};
use mcp_tests::http_wire::{self, stateless_meta};
use serde_json::{Value, json};

/// A client's answer to `confirm`'s question.
fn yes() -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": true}}})
}

/// The `_meta` of a client that answers elicitation.
fn eliciting_meta() -> Value {
    stateless_meta(json!({"elicitation": {"form": {}}}))
}

/// A tool that asks before it acts, limited to `calls` an hour.
fn confirm(calls: u32, runs: Arc<AtomicUsize>) -> ToolEntry {
    ToolEntry::new("confirm", move |input: Input| {
        let runs = Arc::clone(&runs);
        async move {
            let answer = input.elicit("confirm", Elicitation::form("Sure?").boolean("ok", true)).await;
            runs.fetch_add(1, Ordering::SeqCst);
            format!("done, ok={}", answer.field("ok").unwrap_or_default())
        }
    })
    .layer(RateLimit::per_hour(calls))
}

/// A tool limited to `calls` an hour.
fn add(calls: u32) -> ToolEntry {
    ToolEntry::new("add", |mcp_runtime::Args(p): mcp_runtime::Args<Value>| async move {
        (p["a"].as_i64().unwrap_or(0) + p["b"].as_i64().unwrap_or(0)).to_string()
    })
    .layer(RateLimit::per_hour(calls))
}

/// Whether a `tools/call` answer is the rate limit's refusal.
fn limited(answer: &Value) -> bool {
    answer["result"]["isError"] == true
        && answer["result"]["content"][0]["text"].as_str().is_some_and(|t| t.starts_with("Rate limit exceeded"))
}

#[tokio::test]
async fn an_empty_input_responses_object_does_not_switch_the_rate_limit_off() {
    let server = Server::builder("limits", "1.0.0").tool(add(3)).build().expect("a server");
    let call = |id: i64, extra: Value| {
        let mut params = json!({"name": "add", "arguments": {"a": 1, "b": 2}});
        params.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
        request(id, "tools/call", params)
    };
    for id in 0..3 {
        let answer = send(&server, &call(id, json!({}))).await;
        assert!(!limited(answer.response()), "{}", answer.response());
    }
    assert!(limited(send(&server, &call(3, json!({}))).await.response()), "the fourth plain call");
    // Answers with no state are no later round: each is counted.
    for id in 4..10 {
        let answer = send(&server, &call(id, json!({"inputResponses": {}}))).await;
        assert!(limited(answer.response()), "`inputResponses: {{}}` bought a free call: {}", answer.response());
    }
    // Nor is a state that does not open.
    let forged = send(&server, &call(10, json!({"inputResponses": {}, "requestState": "v1.e30.AAAA"}))).await;
    assert!(limited(forged.response()), "{}", forged.response());
}

#[tokio::test]
async fn a_replayed_request_state_buys_one_uncounted_round_only() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("limits", "1.0.0").tool(confirm(2, Arc::clone(&runs))).build().expect("a server");
    let call = |id: i64, round: Option<(&Value, Value)>| {
        let mut params = json!({"name": "confirm", "_meta": eliciting_meta()});
        if let Some((state, answers)) = round {
            params["requestState"] = state.clone();
            params["inputResponses"] = answers;
        }
        request(id, "tools/call", params)
    };
    // The first round is counted (1 of 2).
    let first = send(&server, &call(1, None)).await;
    assert_eq!(first.result()["resultType"], "input_required", "{}", first.response());
    let state = first.result()["requestState"].clone();
    // Its later round is the same call: not counted.
    let second = send(&server, &call(2, Some((&state, yes())))).await;
    assert_eq!(second.result()["content"][0]["text"], "done, ok=true", "{}", second.response());
    // The same state again is a new call, counted (2 of 2)...
    let replay = send(&server, &call(3, Some((&state, yes())))).await;
    assert_eq!(replay.result()["content"][0]["text"], "done, ok=true", "{}", replay.response());
    // ...and one more is over the rate.
    for id in 4..8 {
        let replay = send(&server, &call(id, Some((&state, yes())))).await;
        assert!(limited(replay.response()), "a replayed state bought a free call: {}", replay.response());
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2, "the handler ran for the two counted calls only");
}

/// One POST to `service`, made by `principal` from `peer` as an
/// authentication layer and a host application in front would say; the
/// status and the JSON-RPC answer.
async fn post(
    service: &McpService,
    body: &Value,
    principal: Option<&Principal>,
    peer: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", body["method"].as_str().unwrap_or_default());
    let params = &body["params"];
    if let Some(name) = params["name"].as_str().or(params["uri"].as_str()).or(params["taskId"].as_str()) {
        request = request.header("mcp-name", name);
    }
    let mut request = request.body(body.to_string()).expect("a request");
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal.clone());
    }
    if let Some(peer) = peer {
        request.extensions_mut().insert(PeerAddress(peer.parse().expect("an address")));
    }
    let response = service.handle(request).await.expect("infallible");
    let status = response.status();
    let bytes = response.into_body().collect().await.expect("a body").to_bytes();
    let text = String::from_utf8_lossy(&bytes);
    // One JSON document, or the answer at the end of an event stream.
    let json = text.lines().filter_map(|l| l.strip_prefix("data: ")).next_back().unwrap_or(&text).to_owned();
    (status, serde_json::from_str(&json).unwrap_or(Value::String(text.into_owned())))
}

fn call(id: i64, name: &str, arguments: Value, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments, "_meta": meta}})
}

#[tokio::test]
async fn another_callers_request_state_does_not_open() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("limits", "1.0.0").tool(confirm(100, Arc::clone(&runs))).build().expect("a server");
    let service = server.http_service(HttpConfig::default());
    let alice = Principal::new("alice").with_issuer("https://issuer.example").with_client_id("app");
    let mallory = Principal::new("mallory").with_issuer("https://issuer.example").with_client_id("app");
    let (_, first) = post(&service, &call(1, "confirm", json!({}), eliciting_meta()), Some(&alice), None).await;
    let state = first["result"]["requestState"].clone();
    assert!(state.is_string(), "{first}");
    let mut retry = call(2, "confirm", json!({}), eliciting_meta());
    retry["params"]["requestState"] = state;
    retry["params"]["inputResponses"] = yes();
    let (_, stolen) = post(&service, &retry, Some(&mallory), None).await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert!(stolen["error"]["message"].as_str().is_some_and(|m| m.contains("another caller")), "{stolen}");
    // Another client of the same user is another caller too.
    let other_app = Principal::new("alice").with_issuer("https://issuer.example").with_client_id("other");
    let (_, stolen) = post(&service, &retry, Some(&other_app), None).await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "the handler never got past its question");
    // Its own caller resumes it.
    let (_, resumed) = post(&service, &retry, Some(&alice), None).await;
    assert_eq!(resumed["result"]["content"][0]["text"], "done, ok=true", "{resumed}");
}

/// A read-only, idempotent tool whose answer depends on its caller, cached
/// by `cache`; `runs` counts its runs.
fn whoami(cache: ResultCache, runs: Arc<AtomicUsize>) -> ToolEntry {
    ToolEntry::new("whoami", move |cx: RequestContext| {
        let runs = Arc::clone(&runs);
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            let principal = cx.http_request().and_then(|head| head.extensions.get::<Principal>().cloned());
            principal.and_then(|p| p.subject().map(str::to_owned)).unwrap_or_else(|| "nobody".to_owned())
        }
    })
    .annotations(ToolAnnotations::default().with_read_only_hint(true).with_idempotent_hint(true))
    .layer(cache)
}

#[tokio::test]
async fn one_callers_cached_result_is_not_served_to_another() {
    let runs = Arc::new(AtomicUsize::new(0));
    let cache = ResultCache::new(Duration::from_secs(600));
    let server = Server::builder("cache", "1.0.0").tool(whoami(cache, Arc::clone(&runs))).build().expect("a server");
    let service = server.http_service(HttpConfig::default());
    let meta = stateless_meta(json!({}));
    let alice = Principal::new("alice").with_issuer("https://issuer.example");
    let bob = Principal::new("bob").with_issuer("https://issuer.example");
    let (_, first) = post(&service, &call(1, "whoami", json!({}), meta.clone()), Some(&alice), None).await;
    assert_eq!(first["result"]["content"][0]["text"], "alice", "{first}");
    let (_, again) = post(&service, &call(2, "whoami", json!({}), meta.clone()), Some(&alice), None).await;
    assert_eq!(again["result"]["content"][0]["text"], "alice", "{again}");
    assert_eq!(runs.load(Ordering::SeqCst), 1, "alice's second call came from the cache");
    let (_, other) = post(&service, &call(3, "whoami", json!({}), meta.clone()), Some(&bob), None).await;
    assert_eq!(other["result"]["content"][0]["text"], "bob", "bob got alice's cached result: {other}");

    // Unauthenticated callers by their address...
    let before = runs.load(Ordering::SeqCst);
    for peer in ["192.0.2.1:1000", "192.0.2.2:1000", "192.0.2.1:2000"] {
        post(&service, &call(4, "whoami", json!({}), meta.clone()), None, Some(peer)).await;
    }
    assert_eq!(runs.load(Ordering::SeqCst), before + 2, "one run per address");
    // ...and callers over HTTP that nothing tells apart are not cached at all.
    let before = runs.load(Ordering::SeqCst);
    for id in 5..8 {
        post(&service, &call(id, "whoami", json!({}), meta.clone()), None, None).await;
    }
    assert_eq!(runs.load(Ordering::SeqCst), before + 3, "an unknown caller's result was kept");
}

#[tokio::test]
async fn results_are_shared_across_callers_only_when_asked() {
    let runs = Arc::new(AtomicUsize::new(0));
    let cache = ResultCache::new(Duration::from_secs(600)).same_for_every_caller();
    let server = Server::builder("cache", "1.0.0").tool(whoami(cache, Arc::clone(&runs))).build().expect("a server");
    let service = server.http_service(HttpConfig::default());
    let meta = stateless_meta(json!({}));
    for (id, who) in [(1, "alice"), (2, "bob")] {
        let principal = Principal::new(who);
        let (_, answer) = post(&service, &call(id, "whoami", json!({}), meta.clone()), Some(&principal), None).await;
        assert_eq!(answer["result"]["content"][0]["text"], "alice", "shared on purpose: {answer}");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_flood_of_new_addresses_shares_one_bucket_beyond_the_bound() {
    let server = Server::builder("limits", "1.0.0")
        .tool(ToolEntry::new("add", || async { "3" }).layer(RateLimit::per_hour(1).max_callers(2)))
        .build()
        .expect("a server");
    let service = server.http_service(HttpConfig::default());
    let meta = stateless_meta(json!({}));
    let mut answers = Vec::new();
    for (id, peer) in ["198.51.100.1:1", "198.51.100.2:1", "198.51.100.3:1", "198.51.100.4:1", "198.51.100.5:1"]
        .into_iter()
        .enumerate()
    {
        let (_, answer) = post(&service, &call(id as i64, "add", json!({}), meta.clone()), None, Some(peer)).await;
        answers.push(limited(&answer));
    }
    // Two callers have buckets; the next three share one, whose one call
    // the third made.
    assert_eq!(answers, [false, false, false, true, true], "{answers:?}");
}

#[tokio::test]
async fn addresses_of_one_ipv6_prefix_are_one_caller() {
    let server = Server::builder("limits", "1.0.0").tool(add(1)).build().expect("a server");
    let service = server.http_service(HttpConfig::default());
    let meta = stateless_meta(json!({}));
    let (_, first) = post(&service, &call(1, "add", json!({}), meta.clone()), None, Some("[2001:db8:1:2::1]:1")).await;
    assert!(!limited(&first), "{first}");
    let (_, second) =
        post(&service, &call(2, "add", json!({}), meta.clone()), None, Some("[2001:db8:1:2:ffff::9]:1")).await;
    assert!(limited(&second), "a new address of the same /64 got a bucket of its own: {second}");
    let (_, elsewhere) = post(&service, &call(3, "add", json!({}), meta), None, Some("[2001:db8:1:3::1]:1")).await;
    assert!(!limited(&elsewhere), "{elsewhere}");
}

/// Serves `server` on loopback with `config`; the address and what stops it.
async fn serve(server: Server, config: HttpConfig) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.serve_http_with_shutdown(listener, config, async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// A call of `add` over HTTP, with `forwarded_for` as `X-Forwarded-For`.
async fn add_from(addr: SocketAddr, id: i64, forwarded_for: Option<&str>) -> Value {
    let body = call(id, "add", json!({"a": 1, "b": 2}), stateless_meta(json!({})));
    let extra: Vec<(&str, &str)> = forwarded_for.map(|f| ("x-forwarded-for", f)).into_iter().collect();
    let response = http_wire::send(addr, http::Method::POST, None, Some(&body), &extra).await;
    http_wire::answer(response, &json!(id), |_| {}).await
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_bucket() {
    let server = Server::builder("limits", "1.0.0").tool(add(1)).build().expect("a server");
    let config = HttpConfig::default().trusted_proxies(1, ForwardedHeader::XForwardedFor);
    let (addr, stop) = serve(server, config).await;
    assert!(!limited(&add_from(addr, 1, Some("198.51.100.1")).await));
    assert!(!limited(&add_from(addr, 2, Some("198.51.100.2")).await), "another client behind the same proxy");
    assert!(limited(&add_from(addr, 3, Some("198.51.100.1")).await), "the first one again");
    // What a client writes in front of the proxy's entry is not believed.
    assert!(limited(&add_from(addr, 4, Some("203.0.113.9, 198.51.100.1")).await));
    let _ = stop.send(());
}

#[tokio::test]
async fn a_forwarded_header_is_not_believed_unless_the_proxy_is_trusted() {
    let server = Server::builder("limits", "1.0.0").tool(add(1)).build().expect("a server");
    let (addr, stop) = serve(server, HttpConfig::default()).await;
    assert!(!limited(&add_from(addr, 1, Some("198.51.100.1")).await));
    assert!(limited(&add_from(addr, 2, Some("198.51.100.2")).await), "a forged header bought a new bucket");
    let _ = stop.send(());
}

/// A tool that runs as a task, limited to one call an hour.
fn long_job() -> ToolEntry {
    ToolEntry::new("long_job", || async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        "done"
    })
    .task(TaskSupport::optional())
    .layer(RateLimit::per_hour(1))
}

fn tasks_meta() -> Value {
    stateless_meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
}

#[tokio::test]
async fn a_call_over_the_rate_limit_creates_no_task() {
    let server = Server::builder("jobs", "1.0.0").tool(long_job()).build().expect("a server");
    let service = server.http_service(HttpConfig::default());
    let (_, first) = post(&service, &call(1, "long_job", json!({}), tasks_meta()), None, Some("192.0.2.1:1")).await;
    assert_eq!(first["result"]["resultType"], "task", "{first}");
    let (_, second) = post(&service, &call(2, "long_job", json!({}), tasks_meta()), None, Some("192.0.2.1:1")).await;
    assert_ne!(second["result"]["resultType"], "task", "a refused call made a task: {second}");
    assert!(limited(&second), "{second}");
}

#[tokio::test]
async fn one_caller_cannot_fill_the_task_store_for_everyone() {
    let store = MemoryTaskStore::new().with_max_tasks(100).with_max_tasks_per_quota(3);
    let server = Server::builder("jobs", "1.0.0")
        .tool(ToolEntry::new("job", || async { "done" }).task(TaskSupport::optional()))
        .task_store(store)
        .build()
        .expect("a server");
    let service = server.http_service(HttpConfig::default());
    for id in 0..3 {
        let (_, made) = post(&service, &call(id, "job", json!({}), tasks_meta()), None, Some("192.0.2.1:1")).await;
        assert_eq!(made["result"]["resultType"], "task", "{made}");
    }
    let (_, refused) = post(&service, &call(3, "job", json!({}), tasks_meta()), None, Some("192.0.2.1:1")).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains("maximum of 3")), "{refused}");
    let (_, other) = post(&service, &call(4, "job", json!({}), tasks_meta()), None, Some("192.0.2.2:1")).await;
    assert_eq!(other["result"]["resultType"], "task", "another caller still has room: {other}");
}

#[tokio::test]
async fn an_authenticated_callers_tasks_are_its_own_by_default() {
    let server = Server::builder("jobs", "1.0.0")
        .tool(ToolEntry::new("job", || async { "done" }).task(TaskSupport::optional()))
        .build()
        .expect("a server");
    let service = server.http_service(HttpConfig::default());
    let alice = Principal::new("alice").with_issuer("https://issuer.example");
    let bob = Principal::new("bob").with_issuer("https://issuer.example");
    let (_, made) = post(&service, &call(1, "job", json!({}), tasks_meta()), Some(&alice), None).await;
    let task_id = made["result"]["taskId"].as_str().expect("a task").to_owned();
    let get = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get",
               "params": {"taskId": task_id, "_meta": tasks_meta()}})
    };
    let (_, theirs) = post(&service, &get(2), Some(&bob), None).await;
    assert_eq!(theirs["error"]["code"], -32602, "bob read alice's task: {theirs}");
    let (_, mine) = post(&service, &get(3), Some(&alice), None).await;
    assert!(mine["result"]["status"].is_string(), "{mine}");
}
