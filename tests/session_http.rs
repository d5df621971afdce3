//! 2025-era sessions through the tower service, request by request. Every
//! message a session's client receives here (JSON bodies and the data of
//! every event) is checked against the official 2025-11-25 JSON Schema.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http_body::Body as _;
use serde_json::{Value, json};

use mcp_runtime::input::Elicitation;
use mcp_runtime::protocol::META_PROTOCOL_VERSION;
use mcp_runtime::transport::http::{HttpConfig, McpBody, McpService};
use mcp_runtime::{Input, RequestContext, Server, entry::ToolEntry, server::Eras};
use mcp_tests::session_schema::assert_valid_session_envelope;

type Reply = http::Response<McpBody>;

/// Waits (at most ten seconds) for `flag` to be set.
async fn until(flag: &AtomicBool, what: &str) {
    let waited = tokio::time::timeout(Duration::from_secs(10), async {
        while !flag.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{what}: not within ten seconds");
}

/// Where the calls of the `slow` tool are.
#[derive(Default)]
struct Slow {
    /// Set when a call starts.
    started: AtomicBool,
    /// Set when a call ends uncancelled.
    finished: AtomicBool,
}

fn server(eras: Eras, slow: Arc<Slow>) -> Server {
    Server::builder("sessions", "1.0.0")
        .eras(eras)
        .tool(ToolEntry::new("echo", || async { "echoed" }))
        .tool(ToolEntry::new("pause", |cx: RequestContext| async move {
            cx.close_sse_stream();
            tokio::time::sleep(Duration::from_millis(50)).await;
            "after the pause"
        }))
        .tool(ToolEntry::new("ask", |input: Input| async move {
            let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
            format!("Hello, {}!", answer.field("name").unwrap_or_default())
        }))
        .tool(ToolEntry::new("slow", move |cx: RequestContext| {
            let slow = Arc::clone(&slow);
            async move {
                slow.started.store(true, Ordering::SeqCst);
                // Gives up when cancelled: a dropped handler would otherwise
                // run on through the cancellation grace.
                tokio::select! {
                    () = cx.cancellation().cancelled() => "cancelled",
                    () = tokio::time::sleep(Duration::from_millis(100)) => {
                        slow.finished.store(true, Ordering::SeqCst);
                        "slow and done"
                    }
                }
            }
        }))
        .tool(ToolEntry::new("later", |cx: RequestContext| async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            cx.progress(1.0, None, None);
            tokio::time::sleep(Duration::from_secs(5)).await;
            "later and done"
        }))
        .tool(ToolEntry::new("long", || async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            "long and done"
        }))
        .build()
        .expect("a valid server")
}

fn service(config: HttpConfig) -> McpService {
    server(Eras::Dual, Arc::default()).http_service(config)
}

/// A POST with the headers every client sends, and those of `session`.
fn post(session: Option<&str>, body: &Value) -> http::Request<String> {
    let mut request = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
    }
    request.body(body.to_string()).expect("a request")
}

fn without(mut request: http::Request<String>, header: &str) -> http::Request<String> {
    request.headers_mut().remove(header);
    request
}

fn with(mut request: http::Request<String>, header: &'static str, value: &'static str) -> http::Request<String> {
    request.headers_mut().insert(header, http::HeaderValue::from_static(value));
    request
}

fn bare(method: http::Method, session: &str) -> http::Request<String> {
    http::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", "localhost")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .body(String::new())
        .expect("a request")
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "test", "version": "1.0.0"},
    }})
}

/// Marks the reply to a session's request (or to `initialize`), whose
/// messages [`text`] then checks against the 2025-11-25 schema.
#[derive(Clone, Copy)]
struct SessionReply;

async fn send(service: &McpService, request: http::Request<String>) -> Reply {
    let session = is_session_request(&request);
    let mut reply = service.handle(request).await.unwrap_or_else(|never| match never {});
    if session {
        reply.extensions_mut().insert(SessionReply);
    }
    reply
}

/// A request of the 2025-era wire: it carries a session id or opens a
/// session, and not the stateless revision's `_meta`.
fn is_session_request(request: &http::Request<String>) -> bool {
    let body: Value = serde_json::from_str(request.body()).unwrap_or(Value::Null);
    let stateless = body["params"]["_meta"].get(META_PROTOCOL_VERSION).is_some();
    !stateless && (request.headers().contains_key("mcp-session-id") || body["method"] == "initialize")
}

/// Checks every message of a session's body: a JSON body (one message or
/// a batch's answers), or the data of each event of a stream.
fn check_messages(text: &str) {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        match serde_json::from_str::<Value>(trimmed).expect("a JSON body") {
            Value::Array(items) => items.iter().for_each(assert_valid_session_envelope),
            message => assert_valid_session_envelope(&message),
        }
        return;
    }
    for data in text.lines().filter_map(|l| l.strip_prefix("data: ")).filter(|d| !d.trim().is_empty()) {
        assert_valid_session_envelope(&serde_json::from_str(data).expect("an event's data is JSON"));
    }
}

/// Opens a session; its id.
async fn open(service: &McpService, version: &str) -> String {
    let reply = send(service, post(None, &initialize(version))).await;
    assert_eq!(reply.status(), 200);
    reply.headers()["mcp-session-id"].to_str().expect("ASCII").to_owned()
}

/// The next piece of a body (an event, for an event stream); `None` at its end.
async fn next(body: &mut McpBody) -> Option<String> {
    let frame = poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await?;
    let data = frame.unwrap_or_else(|never| match never {}).into_data().ok()?;
    Some(String::from_utf8_lossy(&data).into_owned())
}

/// Reads a stream that stays open until what has come holds `what`
/// (within five seconds).
async fn read_until(body: &mut McpBody, what: &str) {
    let mut events = String::new();
    while !events.contains(what) {
        let event = tokio::time::timeout(Duration::from_secs(5), next(body)).await;
        let event = event.unwrap_or_else(|_| panic!("no {what} within 5 s: {events}"));
        events.push_str(&event.unwrap_or_else(|| panic!("the stream ended before {what}: {events}")));
    }
}

async fn text(reply: Reply) -> String {
    let session = reply.extensions().get::<SessionReply>().is_some();
    let mut body = reply.into_body();
    let mut all = String::new();
    while let Some(piece) = next(&mut body).await {
        all.push_str(&piece);
    }
    if session {
        check_messages(&all);
    }
    all
}

async fn json_of(reply: Reply) -> Value {
    serde_json::from_str(&text(reply).await).expect("a JSON body")
}

/// The JSON of the event carrying the answer to `id`.
/// The answer to request `id` in a body: an event stream's, or the JSON
/// body of a request answered at once.
fn answer_in(events: &str, id: u64) -> Option<Value> {
    if let Ok(answer) = serde_json::from_str::<Value>(events) {
        return (answer["id"] == id).then_some(answer);
    }
    events
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|message| message["id"] == id && message.get("method").is_none())
}

#[path = "session_http/shared.rs"]
mod shared;

#[tokio::test]
async fn initialize_issues_a_session_id_of_visible_ascii() {
    let service = service(HttpConfig::default());
    let reply = send(&service, post(None, &initialize("2025-11-25"))).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.headers()["content-type"], "application/json");
    let id = reply.headers()["mcp-session-id"].as_bytes().to_vec();
    assert!(id.len() >= 16 && id.iter().all(|b| (0x21..=0x7e).contains(b)), "{id:?}");
    let result = json_of(reply).await;
    assert_eq!(result["result"]["protocolVersion"], "2025-11-25");
    // Another `initialize` on that session is refused.
    let again = send(&service, post(Some(std::str::from_utf8(&id).expect("ASCII")), &initialize("2025-11-25"))).await;
    assert_eq!(again.status(), 400);
    assert_eq!(json_of(again).await["error"]["code"], -32600);
}

#[tokio::test]
async fn a_2025_version_without_a_session_id_is_400() {
    let service = service(HttpConfig::default());
    let request = with(post(None, &call(1, "echo")), "mcp-protocol-version", "2025-06-18");
    let reply = send(&service, request).await;
    assert_eq!(reply.status(), 400);
    let body = json_of(reply).await;
    assert!(body["error"]["message"].as_str().is_some_and(|m| m.contains("Mcp-Session-Id")), "{body}");
}

#[tokio::test]
async fn unknown_and_deleted_sessions_are_404() {
    let service = service(HttpConfig::default());
    let unknown = send(&service, post(Some("0123456789abcdef"), &call(1, "echo"))).await;
    assert_eq!(unknown.status(), 404);
    assert_eq!(json_of(unknown).await["error"]["message"], "Session not found");
    let id = open(&service, "2025-11-25").await;
    assert_eq!(send(&service, bare(http::Method::DELETE, &id)).await.status(), 204);
    assert_eq!(send(&service, post(Some(&id), &call(1, "echo"))).await.status(), 404);
    assert_eq!(send(&service, bare(http::Method::GET, &id)).await.status(), 404);
    assert_eq!(send(&service, bare(http::Method::DELETE, &id)).await.status(), 404);
}

#[tokio::test]
async fn notifications_and_answers_are_202_and_answers_reach_the_waiting_request() {
    let service = service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send(&service, post(Some(&id), &initialized)).await;
    assert_eq!(reply.status(), 202);
    assert_eq!(text(reply).await, "");
    // The tool's elicitation comes on the call's stream; the answer is POSTed.
    let mut stream = send(&service, post(Some(&id), &call(7, "ask"))).await.into_body();
    let asked = loop {
        let event = next(&mut stream).await.expect("the elicitation");
        check_messages(&event);
        if let Some(data) = event.lines().find_map(|l| l.strip_prefix("data: ")).filter(|d| !d.is_empty()) {
            break serde_json::from_str::<Value>(data).expect("JSON");
        }
    };
    assert_eq!(asked["method"], "elicitation/create");
    let answer =
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    let reply = send(&service, post(Some(&id), &answer)).await;
    assert_eq!(reply.status(), 202);
    let mut rest = String::new();
    while let Some(event) = next(&mut stream).await {
        rest.push_str(&event);
    }
    check_messages(&rest);
    let result = answer_in(&rest, 7).expect("the call's answer");
    assert_eq!(result["result"]["content"][0]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn json_rpc_errors_on_a_session_travel_with_200() {
    let service = service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    let json_only = |body: &Value| with(post(Some(&id), body), "accept", "application/json");
    // Each error is the one the 2025-11-25 error table gives, naming what
    // was not found; the HTTP status says only that the session answered.
    let unknown_method = send(&service, json_only(&json!({"jsonrpc": "2.0", "id": 1, "method": "nope"}))).await;
    assert_eq!(unknown_method.status(), 200);
    let error = json_of(unknown_method).await["error"].clone();
    assert_eq!(error["code"], -32601, "method not found: {error}");
    assert!(error["message"].as_str().is_some_and(|m| m.contains("nope")), "{error}");
    let unknown_tool = send(&service, json_only(&call(2, "missing"))).await;
    assert_eq!(unknown_tool.status(), 200);
    let error = json_of(unknown_tool).await["error"].clone();
    assert_eq!(error["code"], -32602, "an unknown tool is invalid params (server/tools.mdx): {error}");
    assert!(error["message"].as_str().is_some_and(|m| m.contains("Unknown tool") && m.contains("missing")), "{error}");
    // A method of the stateless revision only, asked on a session: not one
    // of its methods.
    let discover = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover"});
    let discovered = send(&service, json_only(&discover)).await;
    assert_eq!(discovered.status(), 200);
    let error = json_of(discovered).await["error"].clone();
    assert_eq!(error["code"], -32601, "server/discover on a session: {error}");
    assert!(error["message"].as_str().is_some_and(|m| m.contains("server/discover")), "{error}");
}

#[tokio::test]
async fn a_request_naming_another_era_on_a_session_is_400() {
    let service = service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    let stateless_header = with(post(Some(&id), &call(1, "echo")), "mcp-protocol-version", "2026-07-28");
    assert_eq!(send(&service, stateless_header).await.status(), 400);
    let older = with(post(Some(&id), &call(1, "echo")), "mcp-protocol-version", "2025-03-26");
    assert_eq!(send(&service, older).await.status(), 200);
    let none = without(post(Some(&id), &call(1, "echo")), "mcp-protocol-version");
    assert_eq!(send(&service, none).await.status(), 200);
}

#[tokio::test]
async fn initialize_beyond_the_cap_is_503_and_idle_sessions_make_room() {
    let service = service(HttpConfig::default().max_sessions(2));
    let first = open(&service, "2025-11-25").await;
    open(&service, "2025-11-25").await;
    let refused = send(&service, post(None, &initialize("2025-11-25"))).await;
    assert_eq!(refused.status(), 503);
    assert!(refused.headers().get("mcp-session-id").is_none());
    assert!(json_of(refused).await["error"]["message"].is_string());
    assert_eq!(send(&service, post(Some(&first), &call(1, "echo"))).await.status(), 200, "no session was evicted");

    let expiring = self::service(HttpConfig::default().max_sessions(1).session_idle_timeout(Duration::from_millis(50)));
    let gone = open(&expiring, "2025-11-25").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    open(&expiring, "2025-11-25").await;
    assert_eq!(send(&expiring, post(Some(&gone), &call(1, "echo"))).await.status(), 404);
}

/// JSON for a request answered at once, and for one that waits a moment
/// (a tool reading a database) having sent nothing; a stream, at once,
/// for one that sends something before its answer. On tokio's paused
/// clock, so that a loaded machine cannot stretch a wait past the grace.
#[tokio::test(start_paused = true)]
async fn a_request_answered_soon_having_sent_nothing_is_json_and_one_that_sends_first_a_stream() {
    let service = service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    let at_once = send(&service, post(Some(&id), &call(1, "echo"))).await;
    assert_eq!(at_once.headers()["content-type"], "application/json");
    assert_eq!(json_of(at_once).await["result"]["content"][0]["text"], "echoed");
    let waits = send(&service, post(Some(&id), &call(2, "slow"))).await;
    assert_eq!(waits.headers()["content-type"], "application/json");
    assert_eq!(json_of(waits).await["result"]["content"][0]["text"], "slow and done");
    // `ask` sends its question (to an initialized client), then waits for
    // ever for the answer.
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(&service, post(Some(&id), &initialized)).await.status(), 202);
    let asks = tokio::time::timeout(Duration::from_millis(500), send(&service, post(Some(&id), &call(3, "ask"))))
        .await
        .expect("the stream's head comes with the first message, not after the grace (1 s)");
    assert_eq!(asks.headers()["content-type"], "text/event-stream");
    // A priming event (this session's streams can be resumed), then the question.
    read_until(&mut asks.into_body(), "elicitation/create").await;
    // `later` waits, then reports progress, then waits long: its stream
    // opens with the progress, not after the grace.
    let mut progressing = call(4, "later");
    progressing["params"]["_meta"] = json!({"progressToken": "p"});
    let later = tokio::time::timeout(Duration::from_millis(500), send(&service, post(Some(&id), &progressing)))
        .await
        .expect("the stream's head comes with the progress, not after the grace (1 s)");
    assert_eq!(later.headers()["content-type"], "text/event-stream");
    read_until(&mut later.into_body(), "notifications/progress").await;
}

/// How long a session's call of the silent 5 s `long` tool waited for its
/// response's head, and the response.
async fn head_of_long(service: &McpService) -> (Duration, Reply) {
    let id = open(service, "2025-11-25").await;
    let started = tokio::time::Instant::now();
    let long = send(service, post(Some(&id), &call(1, "long"))).await;
    (started.elapsed(), long)
}

/// A request that sends nothing but is still going after the grace gets
/// its stream then, and its answer on it.
#[tokio::test(start_paused = true)]
async fn a_request_still_going_after_the_grace_gets_its_stream() {
    let (waited, long) = head_of_long(&service(HttpConfig::default())).await;
    assert!(waited >= Duration::from_millis(500) && waited < Duration::from_secs(5), "head after {waited:?}");
    assert_eq!(long.headers()["content-type"], "text/event-stream");
    let answer = answer_in(&text(long).await, 1).expect("the answer, on the stream");
    assert_eq!(answer["result"]["content"][0]["text"], "long and done");
}

/// The grace is a setting: shorter, a silent request gets its stream
/// sooner; zero, at once, however soon it would have ended.
#[tokio::test(start_paused = true)]
async fn the_grace_is_the_configs_and_zero_streams_at_once() {
    let (waited, long) =
        head_of_long(&service(HttpConfig::default().session_json_grace(Duration::from_millis(200)))).await;
    assert!(waited >= Duration::from_millis(200) && waited < Duration::from_millis(500), "head after {waited:?}");
    assert_eq!(long.headers()["content-type"], "text/event-stream");

    let none = service(HttpConfig::default().session_json_grace(Duration::ZERO));
    let id = open(&none, "2025-11-25").await;
    let started = tokio::time::Instant::now();
    let slow = send(&none, post(Some(&id), &call(2, "slow"))).await;
    assert!(started.elapsed() < Duration::from_millis(100), "the head came before the 100 ms tool ended");
    assert_eq!(slow.headers()["content-type"], "text/event-stream");
    let events = text(slow).await;
    assert!(events.starts_with("id: "), "a priming event first: {events}");
    assert_eq!(
        answer_in(&events, 2).expect("the answer, on the stream")["result"]["content"][0]["text"],
        "slow and done"
    );
}

#[tokio::test]
async fn last_event_id_replays_the_stream_it_names_and_no_other() {
    let service = service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    // The tool ends its connection at once: priming event, `retry:`, end.
    let paused = text(send(&service, post(Some(&id), &call(1, "pause"))).await).await;
    let priming = paused.lines().next().and_then(|l| l.strip_prefix("id: ")).expect("a priming event").to_owned();
    assert!(paused.starts_with(&format!("id: {priming}\nretry: ")), "{paused}");
    assert!(answer_in(&paused, 1).is_none(), "the answer comes later: {paused}");
    // Another request's stream, with its own events.
    let other = text(send(&service, post(Some(&id), &call(2, "slow"))).await).await;
    assert!(answer_in(&other, 2).is_some(), "{other}");
    let resume = with(bare(http::Method::GET, &id), "mcp-protocol-version", "2025-11-25");
    let mut resume = resume;
    resume.headers_mut().insert("last-event-id", priming.parse().expect("a header value"));
    let reply = send(&service, resume).await;
    assert_eq!(reply.status(), 200);
    let replayed = text(reply).await;
    let answer = answer_in(&replayed, 1).expect("the paused call's answer");
    assert_eq!(answer["result"]["content"][0]["text"], "after the pause");
    assert!(answer_in(&replayed, 2).is_none(), "another stream's answer was replayed: {replayed}");
    let stream = priming.split('-').next().expect("the stream's number");
    assert!(replayed.lines().filter_map(|l| l.strip_prefix("id: ")).all(|e| e.starts_with(&format!("{stream}-"))));
}

/// A gateway in a 2025-era session with its remote: when the remote ends
/// its stream for the gateway to resume (SSE polling), the gateway ends its
/// caller's stream in turn, and the caller resumes to find the answer.
#[tokio::test]
async fn a_remote_ending_its_stream_has_the_gateway_end_its_callers() {
    use mcp_runtime::client::{Client, Remote, Revision};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let remote = server(Eras::Session, Arc::default());
    tokio::spawn(remote.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    let remote = Remote::connect(Client::http(url).revision(Revision::Session)).await.expect("the remote's tools");
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("r", remote).build().expect("a gateway");
    let service = gateway.http_service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    // `r_pause` ends the remote's stream at once, then answers after 50 ms.
    let paused = send(&service, post(Some(&id), &call(1, "r_pause"))).await;
    assert_eq!(paused.headers()["content-type"], "text/event-stream", "a stream, ended for the caller to resume");
    let paused = text(paused).await;
    let priming = paused.lines().next().and_then(|l| l.strip_prefix("id: ")).expect("a priming event").to_owned();
    assert!(answer_in(&paused, 1).is_none(), "the answer comes on the resumed stream: {paused}");
    let mut resume = with(bare(http::Method::GET, &id), "mcp-protocol-version", "2025-11-25");
    resume.headers_mut().insert("last-event-id", priming.parse().expect("a header value"));
    let resumed = text(send(&service, resume).await).await;
    let answer = answer_in(&resumed, 1).expect("the paused call's answer");
    assert_eq!(answer["result"]["content"][0]["text"], "after the pause");
}

#[tokio::test]
async fn a_last_event_id_or_session_id_longer_than_any_sent_is_refused_unread() {
    let service = service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    let mut resume = with(bare(http::Method::GET, &id), "mcp-protocol-version", "2025-11-25");
    let long = format!("0-{}", "1".repeat(1100));
    resume.headers_mut().insert("last-event-id", long.parse().expect("a header value"));
    let reply = send(&service, resume).await;
    assert_eq!(reply.status(), 400);
    let message = json_of(reply).await["error"]["message"].as_str().map(str::to_owned).unwrap_or_default();
    assert!(message.contains("longer than"), "{message}");

    let long_id = "a".repeat(257);
    let get = with(bare(http::Method::GET, &long_id), "mcp-protocol-version", "2025-11-25");
    assert_eq!(send(&service, get).await.status(), 404);
    assert_eq!(send(&service, post(Some(&long_id), &call(1, "echo"))).await.status(), 404);
}

#[tokio::test]
async fn older_sessions_get_no_event_ids_and_keep_their_connection() {
    let service = service(HttpConfig::default());
    let id = open(&service, "2025-06-18").await;
    let events = text(send(&service, post(Some(&id), &call(1, "pause"))).await).await;
    assert!(!events.contains("id:") && !events.contains("retry:"), "{events}");
    assert_eq!(answer_in(&events, 1).expect("the answer")["result"]["content"][0]["text"], "after the pause");
}

/// On tokio's paused clock: the cancellation must reach the request while
/// it runs, which a loaded machine's scheduling could not promise.
#[tokio::test(start_paused = true)]
async fn a_closed_connection_does_not_cancel_a_session_request_but_cancelled_does() {
    let slow = Arc::new(Slow::default());
    let service = server(Eras::Dual, Arc::clone(&slow)).http_service(HttpConfig::default());
    let id = open(&service, "2025-11-25").await;
    // The connection goes away while the answer's head is held back.
    let gone = tokio::time::timeout(Duration::from_millis(20), send(&service, post(Some(&id), &call(1, "slow")))).await;
    assert!(gone.is_err(), "no head yet: the request waits");
    until(&slow.finished, "the request whose connection closed finished").await;
    assert!(slow.finished.swap(false, Ordering::SeqCst), "the request went on without its connection");

    slow.started.store(false, Ordering::SeqCst);
    let service_again = service.clone();
    let id_again = id.clone();
    let stream = tokio::spawn(async move { send(&service_again, post(Some(&id_again), &call(2, "slow"))).await });
    until(&slow.started, "the second request started").await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}});
    assert_eq!(send(&service, post(Some(&id), &cancel)).await.status(), 202);
    let stream = stream.await.expect("the request's task");
    // A request is answered with JSON or a stream, never an empty 202.
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let events = text(stream).await;
    assert!(answer_in(&events, 2).is_none(), "a cancelled request is not answered: {events}");
    // A negative: a cancelled handler may be dropped before it ever runs,
    // which leaves no event to wait on, so three times its work's length.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!slow.finished.load(Ordering::SeqCst), "the cancelled request was stopped");
}

#[tokio::test]
async fn batches_are_served_at_2025_03_26_only() {
    let service = service(HttpConfig::default());
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]);
    let old = open(&service, "2025-03-26").await;
    let reply = send(&service, without(post(Some(&old), &batch), "mcp-protocol-version")).await;
    assert_eq!(reply.status(), 200);
    let answers = json_of(reply).await;
    assert_eq!(answers.as_array().map(Vec::len), Some(2), "{answers}");
    let newer = open(&service, "2025-11-25").await;
    let refused = send(&service, post(Some(&newer), &batch)).await;
    assert_eq!(refused.status(), 400);
    assert_eq!(json_of(refused).await["error"]["code"], -32600);
}

fn stateless_call(id: u64) -> http::Request<String> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "echo", "arguments": {},
        "_meta": {
            META_PROTOCOL_VERSION: "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1.0.0"},
        },
    }});
    let request = with(post(None, &body), "mcp-protocol-version", "2026-07-28");
    with(with(request, "mcp-method", "tools/call"), "mcp-name", "echo")
}

#[tokio::test]
async fn stateless_and_session_requests_interleave_on_one_service() {
    let service = service(HttpConfig::default());
    let session = open(&service, "2025-11-25").await;
    let stateless = json_of(send(&service, stateless_call(1)).await).await;
    assert_eq!(stateless["result"]["resultType"], "complete", "{stateless}");
    let in_session = text(send(&service, post(Some(&session), &call(2, "echo"))).await).await;
    let in_session = answer_in(&in_session, 2).expect("the session's answer");
    assert!(in_session["result"].get("resultType").is_none(), "{in_session}");
    // A stray session id does not make a stateless request the session's.
    let mut stray = stateless_call(3);
    stray.headers_mut().insert("mcp-session-id", session.parse().expect("a header value"));
    let stray = json_of(send(&service, stray).await).await;
    assert_eq!(stray["result"]["resultType"], "complete", "{stray}");
}

#[tokio::test]
async fn a_stateless_only_server_keeps_no_sessions() {
    let service = server(Eras::Stateless, Arc::default()).http_service(HttpConfig::default());
    let reply = send(&service, post(None, &initialize("2025-11-25"))).await;
    assert_eq!(reply.status(), 400);
    assert!(reply.headers().get("mcp-session-id").is_none());
    assert!(text(reply).await.contains("2026-07-28"));
    assert_eq!(send(&service, bare(http::Method::GET, "0123")).await.status(), 405);
}

#[tokio::test]
async fn a_session_only_server_refuses_stateless_requests() {
    let service = server(Eras::Session, Arc::default()).http_service(HttpConfig::default());
    let reply = send(&service, stateless_call(1)).await;
    assert_eq!(reply.status(), 400);
    assert_eq!(json_of(reply).await["error"]["code"], -32022);
    let discover = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {
        "_meta": {META_PROTOCOL_VERSION: "2026-07-28"},
    }});
    let reply = send(&service, post(None, &discover)).await;
    assert_eq!(reply.status(), 404);
    assert_eq!(json_of(reply).await["error"]["code"], -32601);
    open(&service, "2025-11-25").await;
}
