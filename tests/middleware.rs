//! Middleware at the MCP level: the order layers run in, a layer that
//! answers by itself, one that rewrites a result, one that panics, and the
//! built-in layers, in both eras, in process, over stdio and over HTTP.
//! Every message of the in-process client is checked against the official
//! schema of its revision.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::auth::Principal;
use mcp_runtime::client::{Client, Error};
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::input::Elicitation;
use mcp_runtime::middleware::{self, Audit, McpRequest, Next, RETRY_AFTER, RateLimit, ResultCache, TimeLimit};
use mcp_runtime::protocol::ElicitResult;
use mcp_runtime::protocol::{CallToolResult, ClientCapabilities, ErrorObject, Method, ToolAnnotations};
use mcp_runtime::redis::RedisResultStore;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Args, Input, Server, ServerBuilder};
use mcp_tests::http_wire::{self, stateless_meta};
use mcp_tests::stdio_session::Session;
use mcp_tests::validated_client::checked;
use serde_json::{Value, json};

/// `tools/call` of `name`, with the result as the server wrote it (its
/// `resultType` included).
async fn call_raw(client: &Client, name: &str, arguments: Value) -> Result<Value, Error> {
    client.request("tools/call", json!({"name": name, "arguments": arguments})).await
}

/// Records, in order, what each named layer saw on the way in and out.
fn recorder(name: &'static str, trail: Arc<Mutex<Vec<String>>>) -> impl middleware::Layer {
    middleware::from_fn(move |request: McpRequest, next: Next| {
        let trail = Arc::clone(&trail);
        async move {
            trail.lock().unwrap().push(format!("{name} in {}", request.method().name()));
            let response = next.run(request).await;
            trail.lock().unwrap().push(format!("{name} out"));
            response
        }
    })
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

fn add(runs: Arc<AtomicUsize>) -> ToolEntry {
    ToolEntry::new("add", move |Args(p): Args<Pair>| {
        let runs = Arc::clone(&runs);
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            (p.a + p.b).to_string()
        }
    })
}

/// Refuses `forbidden` by policy; adds a line to every tool result.
fn policy() -> impl middleware::Layer {
    middleware::from_fn(|request: McpRequest, next: Next| async move {
        if request.target() == Some("forbidden") {
            return request.error(ErrorObject::invalid_params("Refused by policy"));
        }
        let response = next.run(request.clone()).await;
        if request.method() != Method::ToolsCall {
            return response;
        }
        let Some(Ok(mut result)) = response.as_result().map(serde_json::from_str::<CallToolResult>) else {
            return response;
        };
        result.content.push(mcp_runtime::protocol::ContentBlock::text("(checked)"));
        request.reply(&result)
    })
}

#[tokio::test]
async fn layers_run_outermost_first_then_the_tools_own_then_the_handler() {
    let trail = Arc::new(Mutex::new(Vec::new()));
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("layers", "1.0.0")
        .layer(recorder("first", Arc::clone(&trail)))
        .layer(recorder("second", Arc::clone(&trail)))
        .tool(add(Arc::clone(&runs)).layer(recorder("own", Arc::clone(&trail))))
        .tool(ToolEntry::new("plain", || async { "plain" }))
        .build()
        .expect("a server");
    let client = checked(server);
    let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await.expect("tools/call");
    assert_eq!(sum.first_text(), Some("5"));
    assert_eq!(
        *trail.lock().unwrap(),
        ["first in tools/call", "second in tools/call", "own in tools/call", "own out", "second out", "first out"]
    );
    trail.lock().unwrap().clear();
    // Another tool, and a list: the server's layers only.
    client.call_tool("plain", json!({})).await.expect("tools/call");
    client.list_tools().await.expect("tools/list");
    assert_eq!(
        *trail.lock().unwrap(),
        [
            "first in tools/call",
            "second in tools/call",
            "second out",
            "first out",
            "first in tools/list",
            "second in tools/list",
            "second out",
            "first out"
        ]
    );
}

#[tokio::test]
async fn a_layer_answers_by_itself_or_rewrites_the_result() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("policy", "1.0.0")
        .layer(policy())
        .tool(add(Arc::clone(&runs)))
        .tool(ToolEntry::new("forbidden", || async { "should not run" }))
        .build()
        .expect("a server");
    let client = checked(server);
    let sum = call_raw(&client, "add", json!({"a": 1, "b": 1})).await.expect("tools/call");
    assert_eq!(sum["content"], json!([{"type": "text", "text": "2"}, {"type": "text", "text": "(checked)"}]));
    assert_eq!(sum["resultType"], "complete", "rewritten as the revision reads it: {sum}");
    match client.call_tool("forbidden", json!({})).await {
        Err(Error::Rpc(error)) => assert_eq!((error.code, error.message.as_str()), (-32602, "Refused by policy")),
        other => panic!("refused by the layer, not {other:?}"),
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    // Layers do not filter lists: the refused tool is still listed.
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "forbidden"), "{tools:?}");
}

/// Counts each pass of a `tools/call` through it, and the later rounds.
fn rounds(passes: Arc<Mutex<Vec<bool>>>) -> impl middleware::Layer {
    middleware::from_fn(move |request: McpRequest, next: Next| {
        let passes = Arc::clone(&passes);
        async move {
            if request.method() == Method::ToolsCall {
                passes.lock().unwrap().push(request.is_later_round());
            }
            next.run(request).await
        }
    })
}

fn greet() -> ToolEntry {
    ToolEntry::new("greet", |input: Input| async move {
        let answer = input.elicit("user_name", Elicitation::form("Your name?").text("name", true)).await;
        format!("Hello, {}!", answer.field("name").unwrap_or_default())
    })
}

#[tokio::test]
async fn a_handler_that_asks_for_input_passes_the_layers_at_every_round_in_both_eras() {
    let passes = Arc::new(Mutex::new(Vec::new()));
    let server = Server::builder("input", "1.0.0").layer(rounds(Arc::clone(&passes))).tool(greet()).build().unwrap();
    let capabilities: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).expect("capabilities");
    let client = checked(server)
        .capabilities(capabilities)
        .on_elicitation(|_| async { ElicitResult::accept(json!({"name": "Ada"})) });
    let done = client.call_tool("greet", json!({})).await.expect("tools/call");
    assert_eq!(done.first_text(), Some("Hello, Ada!"));
    assert_eq!(*passes.lock().unwrap(), [false, true], "the first round, then the one with the answer");

    // A 2025-era session asks the client in the middle of the call, and
    // runs the handler again with the answer: two passes too.
    passes.lock().unwrap().clear();
    let server = Server::builder("input", "1.0.0").layer(rounds(Arc::clone(&passes))).tool(greet()).build().unwrap();
    let mut session = Session::open(server, json!({"elicitation": {}})).await.0;
    session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}})).await;
    let ask = session.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    session.send(answer).await;
    let done = session.next().await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!", "{done}");
    assert_eq!(*passes.lock().unwrap(), [false, true]);
}

#[tokio::test]
async fn a_request_refused_for_its_scopes_never_reaches_a_layer() {
    let passes = Arc::new(Mutex::new(Vec::new()));
    let service = Server::builder("scoped", "1.0.0")
        .layer(rounds(Arc::clone(&passes)))
        .tool(ToolEntry::new("secret", || async { "secret" }).scopes(["notes:write"]))
        .authenticated_by_layer()
        .build()
        .expect("a server")
        .http_service(HttpConfig::default());
    let call =
        |scopes: &[&str]| http_wire::call_as("secret", Some(Principal::new("ada").with_scopes(scopes.iter().copied())));
    let refused = service.handle(call(&["notes:read"])).await.unwrap_or_else(|never| match never {});
    assert_eq!(refused.status(), 403);
    assert!(passes.lock().unwrap().is_empty(), "refused before any layer");
    let allowed = service.handle(call(&["notes:write"])).await.unwrap_or_else(|never| match never {});
    assert_eq!(allowed.status(), 200);
    assert_eq!(*passes.lock().unwrap(), [false]);
}

#[tokio::test]
async fn a_layer_that_panics_fails_its_request_only() {
    let server = Server::builder("panics", "1.0.0")
        .layer(middleware::from_fn(|request: McpRequest, next: Next| async move {
            if request.target() == Some("boom") {
                panic!("a layer's bug");
            }
            next.run(request).await
        }))
        .tool(ToolEntry::new("boom", || async { "unreached" }))
        .tool(ToolEntry::new("fine", || async { "fine" }))
        .build()
        .expect("a server");
    let client = checked(server);
    match client.call_tool("boom", json!({})).await {
        Err(Error::Rpc(error)) => assert_eq!(error.code, -32603),
        other => panic!("-32603, not {other:?}"),
    }
    let fine = client.call_tool("fine", json!({})).await.expect("the server goes on");
    assert_eq!(fine.first_text(), Some("fine"));
}

#[tokio::test]
async fn a_rate_limited_tool_is_refused_with_a_retry_hint_and_other_tools_go_on() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("limited", "1.0.0")
        .tool(add(Arc::clone(&runs)).layer(RateLimit::per_minute(2)))
        .tool(ToolEntry::new("free", || async { "free" }))
        .build()
        .expect("a server");
    let client = checked(server);
    for _ in 0..2 {
        client.call_tool("add", json!({"a": 1, "b": 2})).await.expect("within the rate");
    }
    let refused = client.call_tool("add", json!({"a": 1, "b": 2})).await.expect("a tool error");
    assert_eq!(refused.is_error, Some(true));
    let text = refused.first_text().expect("text");
    assert!(text.starts_with("Rate limit exceeded for `add`: try again in "), "{text}");
    let retry = refused.meta.as_ref().and_then(|meta| meta.get(RETRY_AFTER)).and_then(Value::as_f64);
    let retry = retry.expect("a retry hint");
    assert!(retry > 0.0 && retry <= 30.0, "{retry}");
    assert_eq!(runs.load(Ordering::SeqCst), 2, "the refused call did not run");
    for _ in 0..3 {
        client.call_tool("free", json!({})).await.expect("a tool without the limit");
    }
}

#[tokio::test]
async fn a_server_wide_rate_limit_can_count_each_tool_apart() {
    let server = |limit: RateLimit| {
        Server::builder("limited", "1.0.0")
            .layer(limit)
            .tool(add(Arc::default()))
            .tool(ToolEntry::new("free", || async { "free" }))
            .build()
            .expect("a server")
    };
    let together = checked(server(RateLimit::per_hour(1)));
    together.call_tool("add", json!({"a": 1, "b": 2})).await.expect("the first call");
    let refused = together.call_tool("free", json!({})).await.expect("a result");
    assert_eq!(refused.is_error, Some(true), "one bucket for every tool");
    together.list_tools().await.expect("lists are not counted");

    let apart = checked(server(RateLimit::per_hour(1).each_tool()));
    apart.call_tool("add", json!({"a": 1, "b": 2})).await.expect("the first call");
    apart.call_tool("free", json!({})).await.expect("a bucket of its own");
    assert_eq!(apart.call_tool("free", json!({})).await.expect("a result").is_error, Some(true));
}

fn slow() -> ToolEntry {
    ToolEntry::new("slow", || async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        "finished"
    })
    .layer(TimeLimit::new(Duration::from_millis(50)))
}

#[tokio::test]
async fn a_time_limit_ends_a_slow_call_with_a_tool_error() {
    let client = checked(Server::builder("slow", "1.0.0").tool(slow()).build().expect("a server"));
    let result = client.call_tool("slow", json!({})).await.expect("a result");
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.first_text(), Some("Took longer than its limit of 50 ms"));
}

fn lookup(runs: Arc<AtomicUsize>, cached: bool) -> ToolEntry {
    lookup_with(runs, cached, ResultCache::new(Duration::from_secs(60)))
}

fn lookup_with(runs: Arc<AtomicUsize>, cached: bool, cache: ResultCache) -> ToolEntry {
    let tool = ToolEntry::new("lookup", move |Args(p): Args<Pair>| {
        let runs = Arc::clone(&runs);
        async move {
            let n = runs.fetch_add(1, Ordering::SeqCst);
            if p.a < 0 {
                return CallToolResult::error("negative");
            }
            CallToolResult::text(format!("{} (run {n})", p.a * p.b))
        }
    });
    if cached {
        tool.annotations(ToolAnnotations::default().with_read_only_hint(true).with_idempotent_hint(true)).layer(cache)
    } else {
        tool
    }
}

#[tokio::test]
async fn a_read_only_idempotent_tool_is_answered_from_the_cache() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = checked(Server::builder("cache", "1.0.0").tool(lookup(Arc::clone(&runs), true)).build().unwrap());
    let first = call_raw(&client, "lookup", json!({"a": 6, "b": 7})).await.expect("tools/call");
    assert_eq!(first["content"][0]["text"], "42 (run 0)");
    // The same arguments in another order: the same call.
    let again = call_raw(&client, "lookup", json!({"b": 7, "a": 6})).await.expect("tools/call");
    assert_eq!(again["content"], first["content"]);
    assert_eq!(again["resultType"], "complete", "{again}");
    let other = client.call_tool("lookup", json!({"a": 1, "b": 7})).await.expect("tools/call");
    assert_eq!(other.first_text(), Some("7 (run 1)"));
    // Tool errors are not kept.
    for _ in 0..2 {
        client.call_tool("lookup", json!({"a": -1, "b": 1})).await.expect("tools/call");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 4);

    // A tool that is not declared read-only and idempotent is never cached
    // by a server-wide cache...
    let runs = Arc::new(AtomicUsize::new(0));
    let server = Server::builder("cache", "1.0.0").layer(ResultCache::new(Duration::from_secs(60)));
    let client = checked(server.tool(lookup(Arc::clone(&runs), false)).build().unwrap());
    for _ in 0..2 {
        client.call_tool("lookup", json!({"a": 6, "b": 7})).await.expect("tools/call");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    // ...and a cache of its own, which would never serve, stops the build.
    let own = lookup(Arc::default(), false).layer(ResultCache::new(Duration::from_secs(60)));
    let error = Server::builder("cache", "1.0.0").tool(own).build().expect_err("a cache that never serves");
    assert!(matches!(&error, mcp_runtime::BuildError::Cache { tool, .. } if tool == "lookup"), "{error}");
    assert!(error.to_string().contains("annotations(read_only, idempotent)"), "{error}");
}

#[tokio::test]
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
async fn replicas_share_cached_results_through_redis() {
    let redis = mcp_tests::redis::start().await;
    let replica = |runs: &Arc<AtomicUsize>| {
        let (runs, url) = (Arc::clone(runs), redis.url.clone());
        async move {
            let store = RedisResultStore::connect(&url, "middleware-test").await.expect("Redis");
            let cache = ResultCache::new(Duration::from_secs(60)).shared(store);
            checked(Server::builder("cache", "1.0.0").tool(lookup_with(runs, true, cache)).build().expect("a server"))
        }
    };
    let (runs_a, runs_b) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (a, b) = (replica(&runs_a).await, replica(&runs_b).await);
    let first = a.call_tool("lookup", json!({"a": 6, "b": 7})).await.expect("tools/call");
    let shared = b.call_tool("lookup", json!({"b": 7, "a": 6})).await.expect("tools/call");
    assert_eq!(shared.content, first.content, "answered by what the other replica computed");
    assert_eq!((runs_a.load(Ordering::SeqCst), runs_b.load(Ordering::SeqCst)), (1, 0));
    b.call_tool("lookup", json!({"a": 2, "b": 2})).await.expect("tools/call");
    assert_eq!(runs_b.load(Ordering::SeqCst), 1, "other arguments run");

    // Without Redis the calls run, uncached, and nothing fails.
    redis.kill().await;
    for run in 1..3 {
        let result = a.call_tool("lookup", json!({"a": 6, "b": 7})).await.expect("tools/call");
        assert_eq!(result.first_text(), Some(format!("42 (run {run})").as_str()));
    }
}

/// Every layer of these tests on one server: what each sees is recorded.
fn everything(seen: Arc<Mutex<Vec<String>>>) -> ServerBuilder {
    Server::builder("layers", "1.0.0")
        .layer(Audit::new())
        .layer(middleware::from_fn(move |request: McpRequest, next: Next| {
            let seen = Arc::clone(&seen);
            async move {
                let address = request.client_address().map(|a| a.ip().to_string());
                seen.lock().unwrap().push(format!(
                    "{} {} {} {}",
                    request.method().name(),
                    request.target().unwrap_or("-"),
                    request.protocol_version(),
                    address.as_deref().unwrap_or("-"),
                ));
                next.run(request).await
            }
        }))
        .layer(policy())
        .tool(add(Arc::default()).layer(RateLimit::per_hour(2)))
        .tool(slow())
        .tool(lookup(Arc::default(), true))
        .tool(ToolEntry::new("forbidden", || async { "should not run" }))
}

#[tokio::test]
async fn a_2025_era_session_over_stdio_passes_the_same_layers() {
    let audit = Buffer::default();
    let _logging = tracing::subscriber::set_default(audit.subscriber());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (mut session, _) = Session::open(everything(Arc::clone(&seen)).build().expect("a server"), json!({})).await;
    let sum = session.request(1, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 2}})).await;
    assert_eq!(sum["result"]["content"], json!([{"type": "text", "text": "4"}, {"type": "text", "text": "(checked)"}]));
    assert!(sum["result"].get("resultType").is_none(), "written for the session's version: {sum}");
    let refused = session.request(2, "tools/call", json!({"name": "forbidden"})).await;
    assert_eq!(refused["error"]["code"], -32602);
    let slow = session.request(3, "tools/call", json!({"name": "slow"})).await;
    assert_eq!(slow["result"]["isError"], true, "{slow}");
    session.request(4, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})).await;
    let limited = session.request(5, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})).await;
    assert_eq!(limited["result"]["isError"], true, "{limited}");
    for id in [7, 8] {
        let cached = session.request(id, "tools/call", json!({"name": "lookup", "arguments": {"a": 3, "b": 3}})).await;
        assert_eq!(cached["result"]["content"][0]["text"], "9 (run 0)", "{cached}");
    }
    // The session's own housekeeping passes no layer.
    session.request(6, "ping", json!({})).await;
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 6, "the call over the rate is refused before any layer's call: {seen:?}");
    let lines = audit.audit_lines();
    assert_eq!(lines.len(), 7, "one audit line per request that passed the layers, and one refusal: {lines:?}");
    assert!(
        lines[0].contains(r#"caller="anonymous" client="host" method="tools/call" target="add" outcome="ok""#),
        "{}",
        lines[0]
    );
    assert!(
        lines[4].contains(r#"method="tools/call" target="add" outcome="refused" reason="admission""#),
        "{}",
        lines[4]
    );
    assert!(lines[1].contains(r#"target="forbidden" outcome="error" error_code=-32602"#), "{}", lines[1]);
    assert!(lines[2].contains(r#"target="slow" outcome="tool_error""#), "{}", lines[2]);
    assert_eq!(seen[0], "tools/call add 2025-11-25 -");
}

#[tokio::test]
async fn over_http_layers_see_the_client_address_in_both_eras() {
    let audit = Buffer::default();
    let _logging = tracing::subscriber::set_default(audit.subscriber());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = everything(Arc::clone(&seen)).build().expect("a server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), async {
        let _ = stopped.await;
    }));

    let call = |id: i64, name: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": {"a": 20, "b": 22}, "_meta": stateless_meta(json!({}))}})
    };
    let response = http_wire::post(addr, None, &call(1, "add")).await;
    let answer = http_wire::answer(response, &json!(1), |_| {}).await;
    assert_eq!(answer["result"]["content"][1]["text"], "(checked)", "{answer}");
    let response = http_wire::post(addr, None, &call(2, "forbidden")).await;
    assert_eq!(http_wire::answer(response, &json!(2), |_| {}).await["error"]["code"], -32602);
    let response = http_wire::post(addr, None, &call(4, "slow")).await;
    assert_eq!(http_wire::answer(response, &json!(4), |_| {}).await["result"]["isError"], true);
    for id in [5, 6] {
        let response = http_wire::post(addr, None, &call(id, "lookup")).await;
        let answer = http_wire::answer(response, &json!(id), |_| {}).await;
        assert_eq!(answer["result"]["content"][0]["text"], "440 (run 0)", "{answer}");
        assert_eq!(answer["result"]["content"][1]["text"], "(checked)", "the outer layer rewrites a cached result too");
    }

    // A 2025-era session on the same server.
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let opened = http_wire::post(addr, None, &initialize).await;
    let session = opened.headers()["mcp-session-id"].to_str().expect("a session id").to_owned();
    let _ = http_wire::answer(opened, &json!(0), |_| {}).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let _ = http_wire::post(addr, Some(&session), &initialized).await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}});
    let response = http_wire::post(addr, Some(&session), &call).await;
    let answer = http_wire::answer(response, &json!(3), |_| {}).await;
    assert_eq!(answer["result"]["content"][0]["text"], "3", "{answer}");
    // The third call of `add` from this address, in either era: over the rate.
    let response = http_wire::post(
        addr,
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}),
    )
    .await;
    let limited = http_wire::answer(response, &json!(7), |_| {}).await;
    assert_eq!(limited["result"]["isError"], true, "{limited}");
    assert!(limited["result"]["content"][0]["text"].as_str().is_some_and(|t| t.starts_with("Rate limit exceeded")));

    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            "tools/call add 2026-07-28 127.0.0.1",
            "tools/call forbidden 2026-07-28 127.0.0.1",
            "tools/call slow 2026-07-28 127.0.0.1",
            "tools/call lookup 2026-07-28 127.0.0.1",
            "tools/call lookup 2026-07-28 127.0.0.1",
            "tools/call add 2025-11-25 127.0.0.1",
        ],
        "the call over the rate is refused before any layer's call"
    );
    let lines = audit.audit_lines();
    assert_eq!(lines.len(), seen.len() + 1, "{lines:?}");
    assert!(lines[0].contains(r#"caller="127.0.0.1" method="tools/call" target="add" outcome="ok""#), "{}", lines[0]);
    assert!(
        lines.last().is_some_and(|l| l
            .contains(r#"caller="127.0.0.1" method="tools/call" target="add" outcome="refused" reason="admission""#)),
        "{lines:?}"
    );
    stop.send(()).expect("serving");
    serving.await.expect("joined").expect("served");
}

#[tokio::test]
async fn a_task_passes_the_layers_once_with_its_final_result() {
    let passes = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&passes);
    let server = Server::builder("tasks", "1.0.0")
        .layer(middleware::from_fn(move |request: McpRequest, next: Next| {
            let counted = Arc::clone(&counted);
            async move {
                if request.is_task() {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                next.run(request).await
            }
        }))
        .layer(policy())
        .tool(add(Arc::default()).task(mcp_runtime::tasks::TaskSupport::optional()))
        .build()
        .expect("a server");
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})).expect("capabilities");
    // Unchecked: the validating client reads a `tools/call` as the plain call's.
    let client = Client::in_process(server).capabilities(capabilities);
    let created = call_raw(&client, "add", json!({"a": 5, "b": 5})).await.expect("a task");
    assert_eq!(created["resultType"], "task", "{created}");
    let task_id = created["taskId"].as_str().expect("an id").to_owned();
    // As long as the other tests wait for a task: a busy machine may take a while.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let done: Value = loop {
        let task = client.request("tasks/get", json!({"taskId": task_id})).await.expect("tasks/get");
        if task["status"] == "completed" {
            break task;
        }
        assert!(tokio::time::Instant::now() < deadline, "the task did not complete within 20 s: {task}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "10"}, {"type": "text", "text": "(checked)"}])
    );
    client.request("tasks/get", json!({"taskId": task_id})).await.expect("tasks/get");
    assert_eq!(passes.load(Ordering::SeqCst), 1, "the call passed once, in its task");
}

/// What a `tracing` fmt subscriber writes, kept for the test to read.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    /// A subscriber writing here, without colours.
    fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync {
        let writer = self.clone();
        tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish()
    }

    /// The audit layer's lines so far.
    fn audit_lines(&self) -> Vec<String> {
        let logged = String::from_utf8(self.0.lock().unwrap().clone()).expect("UTF-8");
        logged.lines().filter(|l| l.contains("mcp_runtime::audit")).map(str::to_owned).collect()
    }
}

#[test]
fn the_audit_layer_records_who_did_what_and_arguments_only_where_asked() {
    let buffer = Buffer::default();
    let subscriber = buffer.subscriber();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async {
            let server = Server::builder("audited", "1.0.0")
                .layer(Audit::new().arguments_of(["add"]))
                .tool(add(Arc::default()))
                .tool(lookup(Arc::default(), false))
                .tool(
                    ToolEntry::new("traced", |Args(p): Args<Pair>| async move { p.a.to_string() }).trace_content(true),
                )
                .build()
                .expect("a server");
            let client = checked(server);
            client.call_tool("add", json!({"a": 1, "b": 2})).await.expect("tools/call");
            client.call_tool("lookup", json!({"a": -1, "b": 2})).await.expect("tools/call");
            let _ = client.call_tool("nope", json!({})).await;
            client.call_tool("traced", json!({"a": 5, "b": 6})).await.expect("tools/call");
        })
    });
    let lines = buffer.audit_lines();
    assert_eq!(lines.len(), 4, "an unknown tool is refused before the layers, and recorded so: {lines:?}");
    assert!(
        lines[0].contains(
            r#"caller="anonymous" client="mcp-runtime-client" method="tools/call" target="add" outcome="ok""#
        ),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains(r#"arguments="{\"a\":1,\"b\":2}""#), "{}", lines[0]);
    assert!(lines[1].contains(r#"target="lookup" outcome="tool_error""#), "{}", lines[1]);
    assert!(!lines[1].contains("arguments"), "not asked for: {}", lines[1]);
    assert!(
        lines[2].contains(r#"request refused caller="anonymous" method="tools/call" target="nope" outcome="refused" reason="invalid" error_code=-32602"#),
        "{}",
        lines[2]
    );
    assert!(lines[3].contains(r#"arguments="{\"a\":5,\"b\":6}""#), "the tool opted in: {}", lines[3]);
}
