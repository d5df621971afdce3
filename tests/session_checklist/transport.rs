//! Rows 22–32: what stdio and Streamable HTTP owe a 2025-era session.

use std::collections::{HashMap, HashSet};
use std::process::Stdio as Piped;
use std::time::Duration;

use http::{Method, StatusCode};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{RequestContext, entry::ToolEntry};
use mcp_tests::session_schema::assert_valid_session;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::fixture::{STUCK, builder, server};
use crate::http::{HttpSession, initialize_message, post, send, with};
use crate::stdio::Stdio;

fn call(id: i64, tool: &str, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}, "_meta": meta}})
}

/// Row 22: a server process writes only newline-delimited messages on
/// stdout, and its own logs (a handler's panic among them) on stderr.
#[tokio::test]
async fn a_process_writes_only_messages_on_stdout_and_logs_on_stderr() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_stdio_server"))
        .stdin(Piped::piped())
        .stdout(Piped::piped())
        .stderr(Piped::piped())
        .env("RUST_LOG", "info")
        .kill_on_drop(true)
        .spawn()
        .expect("the stdio server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut stderr = child.stderr.take().expect("piped stderr");
    let exchanges = [
        (Some("initialize"), initialize_message("2025-11-25", json!({}))),
        (None, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        (
            Some("logging/setLevel"),
            json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "info"}}),
        ),
        (Some("tools/call"), call(2, "report", json!({"progressToken": 7}))),
        (Some("tools/call"), call(3, "explode", json!({}))),
    ];
    let mut seen = 0;
    for (method, message) in exchanges {
        stdin.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        let Some(method) = method else { continue };
        loop {
            let mut line = String::new();
            let read = tokio::time::timeout(STUCK, stdout.read_line(&mut line)).await.expect("an answer in time");
            assert!(read.expect("stdout is UTF-8") > 0, "stdout ended early");
            let text = line.strip_suffix('\n').expect("every message ends its line");
            let received: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            let answer = received.get("method").is_none();
            assert_valid_session(if answer { method } else { "" }, &received);
            seen += 1;
            if answer && received["id"] == message["id"] {
                break;
            }
        }
    }
    assert!(seen >= 6, "progress, a log and four answers: {seen}");
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).await.expect("stdout is UTF-8");
    assert!(rest.is_empty(), "written after the end of input: {rest}");
    let status = tokio::time::timeout(STUCK, child.wait()).await.expect("the server exits").expect("a status");
    assert!(status.success(), "{status}");
    let mut logs = String::new();
    stderr.read_to_string(&mut logs).await.expect("stderr is UTF-8");
    assert!(logs.contains("serving on stdio") && logs.contains("a handler panicked"), "{logs}");
}

/// Row 22: a message whose strings hold line breaks stays on one line.
#[tokio::test]
async fn line_breaks_inside_a_message_stay_escaped_on_one_line() {
    let text = "one\ntwo\r\nthree\u{2028}";
    let mut client = Stdio::open(server(), "2025-11-25", json!({})).await;
    let answer = client.request(1, "tools/call", json!({"name": "echo", "arguments": {"text": text}})).await.1;
    assert_eq!(answer["result"]["content"][0]["text"], text);
    client.close().await;
}

/// Row 23: accepted notifications and answers are 202 with an empty body;
/// GET opens the session's stream, and is 405 without a session.
#[tokio::test]
async fn notifications_and_answers_are_202_with_an_empty_body() {
    let service = server().http_service(HttpConfig::default());
    let session = HttpSession::open(&service, "2025-11-25", json!({"elicitation": {}})).await;
    let notified = session.notify("notifications/roots/list_changed", json!({})).await;
    assert_eq!((notified.status, notified.text().await.as_str()), (StatusCode::ACCEPTED, ""));
    let mut stream = session.post(&call(1, "ask", json!({}))).await;
    let asked = stream.next_message().await.expect("the elicitation");
    let answer =
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    let answered = session.post(&answer).await;
    assert_eq!((answered.status, answered.text().await.as_str()), (StatusCode::ACCEPTED, ""));
    assert_eq!(stream.next_message().await.expect("the answer")["result"]["content"][0]["text"], "Hello, Ada!");
    session.listen().await;
    let get = http::Request::get("/mcp").header("host", "localhost").header("accept", "text/event-stream");
    let sessionless = send(&service, get.body(String::new()).unwrap()).await;
    assert_eq!(sessionless.status, StatusCode::METHOD_NOT_ALLOWED);
}

/// Row 24: a request is answered with JSON or an event stream, the stream
/// ending with the answer.
#[tokio::test]
async fn requests_are_answered_as_json_or_a_stream_ending_with_the_answer() {
    let service = server().http_service(HttpConfig::default());
    let session = HttpSession::open(&service, "2025-11-25", json!({})).await;
    let (before, answer) =
        session.exchange(1, "tools/call", json!({"name": "work", "_meta": {"progressToken": 1}})).await;
    assert_eq!(before.len(), 2, "{before:?}");
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    let json_only = with(session.request_for(&call(2, "work", json!({}))), "accept", "application/json");
    let reply = session.send(json_only).await;
    assert_eq!(reply.json().await["id"], 2);
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let mut stream_only = session.send(with(session.request_for(&ping), "accept", "text/event-stream")).await;
    assert_eq!(stream_only.next_message().await.expect("the answer")["result"], json!({}));
    assert!(stream_only.next_event().await.is_none(), "the stream ends after the answer");
}

/// Row 25: a request's messages travel on its own stream only; the GET
/// stream carries the rest and never an answer.
#[tokio::test]
async fn each_message_travels_on_one_stream_and_the_get_stream_has_no_answers() {
    let server = server();
    let service = server.http_service(HttpConfig::default());
    let session = HttpSession::open(&service, "2025-11-25", json!({})).await;
    session.exchange(1, "logging/setLevel", json!({"level": "info"})).await;
    let mut standalone = session.listen().await;
    let (own, _) = session.exchange(2, "tools/call", json!({"name": "work", "_meta": {"progressToken": 1}})).await;
    assert_eq!(own.len(), 4, "progress twice and two logs: {own:?}");
    server.remove_tool("echo");
    let first = standalone.next_message().await.expect("the list change");
    assert_eq!(first["method"], "notifications/tools/list_changed", "a request's message went astray: {first}");
    // A request answered with JSON has no stream: its messages take the GET stream.
    let json_only =
        with(session.request_for(&call(3, "work", json!({"progressToken": 2}))), "accept", "application/json");
    assert_eq!(session.send(json_only).await.json().await["id"], 3);
    server.remove_tool("fails");
    let mut on_get = Vec::new();
    while on_get.last().is_none_or(|m: &Value| m["method"] != "notifications/tools/list_changed") {
        on_get.push(standalone.next_message().await.expect("the second list change"));
    }
    assert_eq!(on_get.len(), 5, "{on_get:?}");
    assert!(on_get.iter().all(|m| m.get("method").is_some()), "an answer on the GET stream: {on_get:?}");
}

/// Row 26: session ids are visible ASCII, 128 random bits, never repeated.
#[tokio::test]
async fn session_ids_are_visible_ascii_random_and_distinct() {
    let service = server().http_service(HttpConfig::default());
    let mut ids = HashSet::new();
    for _ in 0..8 {
        let (session, _) = HttpSession::initialize(&service, "2025-11-25", json!({})).await;
        assert!(session.id.len() >= 32 && session.id.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{}", session.id);
        assert!(ids.insert(session.id), "a session id came twice");
    }
}

/// Row 28: a `MCP-Protocol-Version` no session speaks is 400, whatever the
/// method; the session is left as it was.
#[tokio::test]
async fn an_unknown_protocol_version_header_is_400() {
    let service = server().http_service(HttpConfig::default());
    let session = HttpSession::open(&service, "2025-11-25", json!({})).await;
    for version in ["banana", "2024-11-05", "2026-07-28", ""] {
        for method in [Method::POST, Method::GET, Method::DELETE] {
            let request = match &method {
                &Method::POST => session.request_for(&call(1, "echo", json!({}))),
                other => session.bare(other.clone()),
            };
            let reply = session.send(with(request, "mcp-protocol-version", version)).await;
            assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{method} with {version:?}");
        }
    }
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(session.post(&ping).await.json().await["result"], json!({}));
}

/// Row 29: event ids are unique across every stream of a session, and
/// each names its stream.
#[tokio::test]
async fn event_ids_are_unique_across_the_streams_of_a_session() {
    let server = server();
    let service = server.http_service(HttpConfig::default());
    let session = HttpSession::open(&service, "2025-11-25", json!({})).await;
    let mut standalone = session.listen().await;
    let mut streams: HashMap<String, Vec<String>> = HashMap::new();
    let mut keep = |event_id: Option<String>, stream: &str| {
        let event_id = event_id.expect("every event of a 2025-11-25 session has an id");
        streams.entry(stream.to_owned()).or_default().push(event_id);
    };
    for id in 1..=3 {
        let reply = session.post(&call(id, "work", json!({"progressToken": id}))).await;
        for event in reply.all_events().await {
            keep(event.id, &format!("post-{id}"));
        }
    }
    server.remove_tool("echo");
    loop {
        let event = standalone.next_event().await.expect("the list change");
        let done = event.message.is_some();
        keep(event.id, "get");
        if done {
            break;
        }
    }
    let all: Vec<&String> = streams.values().flatten().collect();
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), all.len(), "an event id came twice: {streams:?}");
    let prefix = |id: &str| id.split_once('-').expect("`<stream>-<n>`").0.to_owned();
    let named: HashSet<String> = streams.values().map(|ids| prefix(&ids[0])).collect();
    assert_eq!(named.len(), streams.len(), "two streams share a name: {streams:?}");
    assert!(streams.values().all(|ids| ids.iter().all(|id| prefix(id) == prefix(&ids[0]))), "{streams:?}");
}

/// Row 30: at 2025-11-25 a stream opens with a priming event (an id, empty
/// data) and `retry:` comes before the server ends a connection; older
/// sessions get neither, and keep the connection to the answer.
#[tokio::test]
async fn priming_events_and_retry_only_at_2025_11_25() {
    let pause = ToolEntry::new("pause", |cx: RequestContext| async move {
        cx.close_sse_stream();
        tokio::time::sleep(Duration::from_millis(20)).await;
        "after the pause"
    });
    // A request answered at once, or soon having sent nothing, is answered
    // with JSON: one that waits after sending something gets a stream.
    let waits = ToolEntry::new("waits", |cx: RequestContext| async move {
        tokio::task::yield_now().await;
        cx.progress(1.0, None, None);
        tokio::task::yield_now().await;
        "after waiting"
    });
    let service = builder().tool(pause).tool(waits).build().unwrap().http_service(HttpConfig::default());
    let session = HttpSession::open(&service, "2025-11-25", json!({})).await;
    let reporting = |id: i64| {
        let mut call = call(id, "waits", json!({}));
        call["params"]["_meta"] = json!({"progressToken": "waits"});
        call
    };
    let events = session.post(&reporting(1)).await.all_events().await;
    assert!(events[0].id.is_some() && events[0].data.as_deref() == Some("") && events[0].retry.is_some());
    let priming = session.listen().await.next_event().await.expect("a priming event");
    assert!(priming.id.is_some() && priming.message.is_none(), "{priming:?}");
    let paused = session.post(&call(2, "pause", json!({}))).await.all_events().await;
    assert!(paused.last().is_some_and(|e| e.retry.is_some() && e.data.is_none()), "{paused:?}");
    assert!(paused.iter().all(|e| e.message.is_none()), "the answer comes after reconnecting: {paused:?}");

    let older = HttpSession::open(&service, "2025-06-18", json!({})).await;
    let events = older.post(&reporting(1)).await.all_events().await;
    assert!(events.iter().all(|e| e.id.is_none() && e.retry.is_none() && e.message.is_some()), "{events:?}");
    assert_eq!(events.last().and_then(|e| e.message.as_ref()).expect("the answer")["id"], 1);
    // Nothing to resume before 2025-11-25: asking to end the connection
    // is ignored, and the request, having sent nothing, is answered as JSON.
    let paused = older.post(&call(2, "pause", json!({}))).await.json().await;
    assert_eq!(paused["id"], 2);
    assert_eq!(paused["result"]["content"][0]["text"], "after the pause");
}

/// Row 32: a foreign `Origin` is 403 on every request of the 2025-era
/// path, and opens or ends nothing.
#[tokio::test]
async fn a_foreign_origin_is_403_on_the_session_path() {
    let service = server().http_service(HttpConfig::default());
    let evil = |request| with(request, "origin", "https://evil.example");
    let refused = send(&service, evil(post(&initialize_message("2025-11-25", json!({}))))).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.headers.get("mcp-session-id").is_none());
    let session = HttpSession::open(&service, "2025-11-25", json!({})).await;
    for request in
        [session.request_for(&call(1, "echo", json!({}))), session.bare(Method::GET), session.bare(Method::DELETE)]
    {
        assert_eq!(session.send(evil(request)).await.status, StatusCode::FORBIDDEN);
    }
    let local = with(
        session.request_for(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})),
        "origin",
        "http://localhost:3000",
    );
    assert_eq!(session.send(local).await.json().await["result"], json!({}), "the session lives on");
}
