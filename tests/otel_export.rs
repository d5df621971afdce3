//! What a server exports over OTLP/HTTP, checked where it arrives: a
//! receiver on loopback decodes the protobuf payloads with the official
//! OpenTelemetry definitions, and the spans and the duration histogram of
//! a run of calls are checked against the semantic conventions for MCP, on
//! both transports and both protocol eras. The server is a process of its
//! own (`otel_server`), configured only by the standard `OTEL_*` variables.

#[path = "otel_export/receiver.rs"]
mod receiver;

use std::process::Stdio;
use std::time::Duration;

use mcp_tests::http_wire::{self, stateless_meta};
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{Metric, metric};
use opentelemetry_proto::tonic::trace::v1::{Span, span, status};
use receiver::Receiver;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, Command};

/// The buckets the conventions give `mcp.server.operation.duration`.
const BUCKETS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// The client spans the requests name as their parents (W3C trace context).
const TRACE_META: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_META: &str = "00f067aa0ba902b7";
const TRACE_HEADER: &str = "0af7651916cd43dd8448eb211c80319c";
const SPAN_HEADER: &str = "b7ad6b7169203331";
const TRACE_SESSION: &str = "11111111111111111111111111111111";
const SPAN_SESSION: &str = "2222222222222222";

fn traceparent(trace: &str, span: &str) -> String {
    format!("00-{trace}-{span}-01")
}

/// An attribute's value as text (strings as they are, numbers and booleans
/// as written).
fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?.value.as_ref()?;
    Some(match value {
        any_value::Value::StringValue(s) => s.clone(),
        any_value::Value::IntValue(i) => i.to_string(),
        any_value::Value::BoolValue(b) => b.to_string(),
        any_value::Value::DoubleValue(d) => d.to_string(),
        other => format!("{other:?}"),
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The one span named `name` for which `pick` holds.
fn one<'a>(spans: &'a [Span], name: &str, pick: impl Fn(&Span) -> bool) -> &'a Span {
    let found: Vec<&Span> = spans.iter().filter(|s| s.name == name && pick(s)).collect();
    assert_eq!(found.len(), 1, "spans named {name:?}: {:#?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>());
    found[0]
}

fn attr(span: &Span, key: &str) -> Option<String> {
    attribute(&span.attributes, key)
}

/// Checks what every request span carries, and its parent.
fn assert_request_span(span: &Span, method: &str, transport: &str, parent: Option<(&str, &str)>) {
    assert_eq!(span.kind, span::SpanKind::Server as i32, "{}: kind", span.name);
    assert_eq!(attr(span, "mcp.method.name").as_deref(), Some(method), "{}", span.name);
    assert_eq!(attr(span, "network.transport").as_deref(), Some(transport), "{}", span.name);
    assert!(attr(span, "jsonrpc.request.id").is_some(), "{}: jsonrpc.request.id", span.name);
    if let Some((trace, parent)) = parent {
        assert_eq!(hex(&span.trace_id), trace, "{}: the client's trace", span.name);
        assert_eq!(hex(&span.parent_span_id), parent, "{}: the client's span as parent", span.name);
    }
}

fn status_code(span: &Span) -> i32 {
    span.status.as_ref().map_or(status::StatusCode::Unset as i32, |s| s.code)
}

/// The data points of `mcp.server.operation.duration` whose attributes
/// include every one of `with`: their count, summed.
fn calls(metrics: &[Metric], with: &[(&str, &str)]) -> u64 {
    let mut count = 0;
    for metric in metrics.iter().filter(|m| m.name == "mcp.server.operation.duration") {
        assert_eq!(metric.unit, "s");
        let Some(metric::Data::Histogram(histogram)) = &metric.data else { panic!("not a histogram: {metric:?}") };
        for point in &histogram.data_points {
            assert_eq!(point.explicit_bounds, BUCKETS, "the conventions' buckets");
            if with.iter().all(|(k, v)| attribute(&point.attributes, k).as_deref() == Some(*v)) {
                count += point.count;
            }
        }
    }
    count
}

/// Starts `otel_server MODE` exporting to `receiver`.
fn spawn(receiver: &Receiver, mode: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_otel_server"))
        .arg(mode)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{}", receiver.addr))
        .env_remove("OTEL_SERVICE_NAME")
        .env_remove("OTEL_SDK_DISABLED")
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("otel_server starts")
}

/// Waits for the server to end, which flushes its export.
async fn finish(mut child: Child) {
    drop(child.stdin.take());
    let status =
        tokio::time::timeout(Duration::from_secs(30), child.wait()).await.expect("ends in time").expect("wait");
    assert!(status.success(), "otel_server: {status}");
}

fn call(id: i64, tool: &str, arguments: Value, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments, "_meta": meta}})
}

fn with_trace(mut meta: Value, trace: &str, span: &str) -> Value {
    meta["traceparent"] = Value::from(traceparent(trace, span));
    meta["tracestate"] = Value::from("rojo=00f067aa0ba902b7");
    meta
}

async fn post(addr: std::net::SocketAddr, session: Option<&str>, body: &Value, headers: &[(&str, &str)]) -> Value {
    let response = http_wire::send(addr, http::Method::POST, session, Some(body), headers).await;
    http_wire::answer(response, &body["id"], |_| {}).await
}

#[tokio::test(flavor = "multi_thread")]
async fn http_requests_of_both_eras_are_exported_as_the_conventions_name_them() {
    let receiver = Receiver::start().await;
    let mut child = spawn(&receiver, "http");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).await.expect("the address");
    let addr: std::net::SocketAddr = line.trim().parse().expect("an address");
    let meta = stateless_meta(json!({}));

    let added = post(
        addr,
        None,
        &call(1, "add", json!({"a": 2, "b": 3}), with_trace(meta.clone(), TRACE_META, SPAN_META)),
        &[],
    )
    .await;
    assert_eq!(added["result"]["content"][0]["text"], "5");
    let header = traceparent(TRACE_HEADER, SPAN_HEADER);
    post(addr, None, &call(2, "lookup", json!({"key": "k"}), meta.clone()), &[("traceparent", &header)]).await;
    let failed = post(addr, None, &call(3, "fail", json!({}), meta.clone()), &[]).await;
    assert_eq!(failed["result"]["isError"], true);
    let unknown = post(addr, None, &call(4, "nosuch", json!({}), meta.clone()), &[]).await;
    assert_eq!(unknown["error"]["code"], -32602);
    post(addr, None, &call(5, "echo", json!({"text": "visible words"}), meta.clone()), &[]).await;
    let secret = call(6, "login", json!({"text": "hunter2-password"}), meta.clone());
    post(addr, None, &secret, &[("authorization", "Bearer s3cret-token")]).await;

    // Refused by the transport after the pipeline: a listen stream for a
    // client that takes no stream.
    let listen = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": meta.clone()}});
    let refused =
        http_wire::send(addr, http::Method::POST, None, Some(&listen), &[("accept", "application/json")]).await;
    assert_eq!(refused.status(), http::StatusCode::NOT_ACCEPTABLE);

    // A 2025-era session on the same endpoint.
    let initialize = json!({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let response = http_wire::send(addr, http::Method::POST, None, Some(&initialize), &[]).await;
    let session = response.headers()["mcp-session-id"].to_str().expect("a session id").to_owned();
    http_wire::answer(response, &json!(10), |_| {}).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    http_wire::send(addr, http::Method::POST, Some(&session), Some(&initialized), &[]).await;
    let session_meta = json!({"traceparent": traceparent(TRACE_SESSION, SPAN_SESSION)});
    let in_session = post(addr, Some(&session), &call(11, "add", json!({"a": 1, "b": 1}), session_meta), &[]).await;
    assert_eq!(in_session["result"]["content"][0]["text"], "2");
    finish(child).await;

    let spans = receiver.spans();
    let stateless = |s: &Span| attr(s, "mcp.session.id").is_none();
    let add = one(&spans, "tools/call add", stateless);
    assert_request_span(add, "tools/call", "tcp", Some((TRACE_META, SPAN_META)));
    assert_eq!(attr(add, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(attr(add, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(attr(add, "mcp.protocol.version").as_deref(), Some("2026-07-28"));
    assert_eq!(attr(add, "jsonrpc.request.id").as_deref(), Some("1"));
    assert_eq!(attr(add, "network.protocol.name").as_deref(), Some("http"));
    assert_eq!(attr(add, "network.protocol.version").as_deref(), Some("1.1"));
    assert_eq!(status_code(add), status::StatusCode::Unset as i32);
    assert_eq!(attr(add, "error.type"), None);

    // Without trace context in `_meta`, the W3C headers'; the handler's own
    // span nests under the request's.
    let lookup = one(&spans, "tools/call lookup", |_| true);
    assert_request_span(lookup, "tools/call", "tcp", Some((TRACE_HEADER, SPAN_HEADER)));
    let query = one(&spans, "db.query", |s| s.trace_id == lookup.trace_id);
    assert_eq!(query.parent_span_id, lookup.span_id, "the handler's span is a child of the request's");

    let fail = one(&spans, "tools/call fail", |_| true);
    assert_eq!(attr(fail, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(status_code(fail), status::StatusCode::Error as i32);

    // Refused before routing: no target in the name, the code and stage said.
    let refused = one(&spans, "tools/call", |s| attr(s, "jsonrpc.request.id").as_deref() == Some("4"));
    assert_eq!(attr(refused, "error.type").as_deref(), Some("-32602"));
    assert_eq!(attr(refused, "rpc.response.status_code").as_deref(), Some("-32602"));
    assert_eq!(attr(refused, "mcp_runtime.validation.stage").as_deref(), Some("params"));
    let status = refused.status.as_ref().expect("a status");
    assert_eq!(status.code, status::StatusCode::Error as i32);
    assert!(status.message.contains("Unknown tool"), "the JSON-RPC message: {status:?}");

    let listen = one(&spans, "subscriptions/listen", |_| true);
    assert_eq!(attr(listen, "error.type").as_deref(), Some("-32600"));
    assert_eq!(attr(listen, "mcp_runtime.validation.stage").as_deref(), Some("envelope"));

    // Content only for the tool that opted in; never a secret.
    let echo = one(&spans, "tools/call echo", |_| true);
    assert!(attr(echo, "gen_ai.tool.call.arguments").is_some_and(|a| a.contains("visible words")));
    assert!(attr(echo, "gen_ai.tool.call.result").is_some_and(|r| r.contains("visible words")));
    let login = one(&spans, "tools/call login", |_| true);
    assert_eq!(attr(login, "gen_ai.tool.call.arguments"), None);
    for span in &spans {
        for kv in &span.attributes {
            let text = format!("{:?}", kv.value);
            assert!(!text.contains("hunter2") && !text.contains("s3cret"), "{}: {} = {text}", span.name, kv.key);
        }
    }

    // The session's requests: one span each, with the session.
    let opened = one(&spans, "initialize", |_| true);
    assert_eq!(attr(opened, "mcp.session.id").as_deref(), Some(session.as_str()));
    assert_eq!(attr(opened, "mcp.protocol.version").as_deref(), Some("2025-11-25"));
    let session_add = one(&spans, "tools/call add", |s| !stateless(s));
    assert_request_span(session_add, "tools/call", "tcp", Some((TRACE_SESSION, SPAN_SESSION)));
    assert_eq!(attr(session_add, "mcp.session.id").as_deref(), Some(session.as_str()));
    assert_eq!(attr(session_add, "mcp.protocol.version").as_deref(), Some("2025-11-25"));

    let metrics = receiver.metrics();
    let tcp = ("network.transport", "tcp");
    let add_call = [("mcp.method.name", "tools/call"), ("gen_ai.tool.name", "add"), tcp];
    assert_eq!(calls(&metrics, &[&add_call[..], &[("mcp.protocol.version", "2026-07-28")]].concat()), 1);
    assert_eq!(calls(&metrics, &[&add_call[..], &[("mcp.protocol.version", "2025-11-25")]].concat()), 1);
    assert_eq!(calls(&metrics, &[("gen_ai.tool.name", "fail"), ("error.type", "tool_error")]), 1);
    assert_eq!(calls(&metrics, &[("error.type", "-32602"), ("rpc.response.status_code", "-32602")]), 1);
    assert_eq!(calls(&metrics, &[("mcp.method.name", "tools/call"), tcp]), 7);
    assert!(metrics.iter().any(|m| m.name == "mcp_runtime.server.active_requests"));
    assert!(metrics.iter().any(|m| m.name == "mcp_runtime.server.active_sessions"));
}

#[tokio::test(flavor = "multi_thread")]
async fn stdio_requests_of_both_eras_are_exported_as_the_conventions_name_them() {
    let receiver = Receiver::start().await;
    let mut child = spawn(&receiver, "stdio");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let meta = with_trace(stateless_meta(json!({})), TRACE_META, SPAN_META);
    let initialize = json!({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let session_meta = json!({"traceparent": traceparent(TRACE_SESSION, SPAN_SESSION)});
    // Cancelled once it has started (a request cancelled before it is
    // looked at is never a span).
    let mut slow_meta = meta.clone();
    slow_meta["progressToken"] = json!("slow");
    stdin.write_all(format!("{}\n", call(2, "slow", json!({}), slow_meta)).as_bytes()).await.expect("write");
    let line = tokio::time::timeout(Duration::from_secs(10), stdout.next_line()).await.expect("progress");
    let progress: Value = serde_json::from_str(&line.expect("read").expect("a line")).expect("JSON");
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}});
    for message in [
        cancel,
        call(1, "add", json!({"a": 2, "b": 3}), meta),
        initialize,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(11, "lookup", json!({"key": "k"}), session_meta),
    ] {
        stdin.write_all(format!("{message}\n").as_bytes()).await.expect("write");
    }
    for _ in 0..3 {
        let line = tokio::time::timeout(Duration::from_secs(10), stdout.next_line()).await.expect("an answer");
        let answer: Value = serde_json::from_str(&line.expect("read").expect("a line")).expect("JSON");
        assert!(answer.get("result").is_some(), "{answer}");
    }
    drop(stdin);
    finish(child).await;

    let spans = receiver.spans();
    let add = one(&spans, "tools/call add", |_| true);
    assert_request_span(add, "tools/call", "pipe", Some((TRACE_META, SPAN_META)));
    assert_eq!(attr(add, "network.protocol.name"), None);
    assert_eq!(attr(add, "mcp.session.id"), None);
    let opened = one(&spans, "initialize", |_| true);
    let session = attr(opened, "mcp.session.id").expect("the session's id");
    assert_eq!(attr(opened, "mcp.protocol.version").as_deref(), Some("2025-06-18"));
    let lookup = one(&spans, "tools/call lookup", |_| true);
    assert_request_span(lookup, "tools/call", "pipe", Some((TRACE_SESSION, SPAN_SESSION)));
    assert_eq!(attr(lookup, "mcp.session.id"), Some(session));
    let query = one(&spans, "db.query", |_| true);
    assert_eq!(query.parent_span_id, lookup.span_id, "the handler's span is a child of the request's");
    // Given up on by the client.
    let slow = one(&spans, "tools/call slow", |_| true);
    assert_eq!(attr(slow, "error.type").as_deref(), Some("cancelled"));
    assert_eq!(status_code(slow), status::StatusCode::Error as i32);

    let metrics = receiver.metrics();
    let pipe = ("network.transport", "pipe");
    assert_eq!(calls(&metrics, &[("gen_ai.tool.name", "add"), ("mcp.protocol.version", "2026-07-28"), pipe]), 1);
    assert_eq!(calls(&metrics, &[("gen_ai.tool.name", "lookup"), ("mcp.protocol.version", "2025-06-18"), pipe]), 1);
    assert_eq!(calls(&metrics, &[("mcp.method.name", "initialize"), pipe]), 1);
    assert_eq!(calls(&metrics, &[("gen_ai.tool.name", "slow"), ("error.type", "cancelled"), pipe]), 1);
}
