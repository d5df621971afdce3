//! The stdio transport: newline-delimited JSON-RPC over an in-memory duplex
//! and over a real child process's stdin and stdout. Every line the server
//! writes is checked against the official JSON Schema.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Args, RequestContext, Server, State, entry::ToolEntry, extract::Extension};
use mcp_tests::exchange::request;
use mcp_tests::wire_schema::{assert_valid_line, request_meta};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::sync::Notify;

/// How long to wait for a line before calling the server stuck. Only a guard
/// against hanging forever; no test measures speed.
const STUCK: Duration = Duration::from_secs(30);

/// A client end of a newline-delimited JSON-RPC connection that checks every
/// line it reads.
struct Peer<W, R> {
    writer: Option<W>,
    lines: Lines<BufReader<R>>,
    methods: HashMap<String, String>,
}

impl<W: AsyncWrite + Unpin, R: AsyncRead + Unpin> Peer<W, R> {
    fn new(writer: W, reader: R) -> Self {
        Peer { writer: Some(writer), lines: BufReader::new(reader).lines(), methods: HashMap::new() }
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        let writer = self.writer.as_mut().expect("input is still open");
        writer.write_all(bytes).await.expect("the server reads its input");
        writer.flush().await.expect("the server reads its input");
    }

    async fn send(&mut self, message: &Value) {
        if let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) {
            self.methods.insert(id.to_string(), method.to_owned());
        }
        self.send_raw(format!("{message}\n").as_bytes()).await;
    }

    /// The next line, checked; `None` at end of output.
    async fn try_recv(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(STUCK, self.lines.next_line())
            .await
            .expect("the server wrote nothing for a long time")
            .expect("the server's output is UTF-8 text")?;
        let id = serde_json::from_str::<Value>(&line).ok().and_then(|v| v.get("id").map(Value::to_string));
        let method = id.and_then(|id| self.methods.get(&id).cloned()).unwrap_or_default();
        Some(assert_valid_line(&method, &line))
    }

    async fn recv(&mut self) -> Value {
        self.try_recv().await.expect("the server closed its output early")
    }

    /// Ends the input and returns every line written after it.
    async fn finish(&mut self) -> Vec<Value> {
        self.writer = None;
        let mut rest = Vec::new();
        while let Some(line) = self.try_recv().await {
            rest.push(line);
        }
        rest
    }
}

fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": arguments}))
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text result: {response}"))
}

// --- In-memory duplex ------------------------------------------------------

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// Lets a test hold a handler until it says so, and see that it started or
/// was dropped.
#[derive(Clone, Default)]
struct Gate {
    started: Arc<Notify>,
    release: Arc<Notify>,
    dropped: Arc<AtomicBool>,
}

struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn gated_server(gate: &Gate) -> Server {
    Server::builder("duplex", "0.0.1")
        .state(gate.clone())
        .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b }))
        .tool(ToolEntry::new("gated", |State(g): State<Gate>| async move {
            let _flag = DropFlag(Arc::clone(&g.dropped));
            g.started.notify_one();
            g.release.notified().await;
            "released"
        }))
        .tool(ToolEntry::new("report", |cx: RequestContext| async move {
            cx.progress(1.0, None, None);
            cx.log(LoggingLevel::Error, None, json!("bad news"));
            "reported"
        }))
        .build()
        .expect("the duplex server builds")
}

type DuplexPeer = Peer<tokio::io::DuplexStream, tokio::io::DuplexStream>;

fn start(server: Server, config: StdioConfig) -> (DuplexPeer, tokio::task::JoinHandle<std::io::Result<()>>) {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(server.serve_io(server_in, server_out, config));
    (Peer::new(client_out, client_in), task)
}

#[tokio::test]
async fn requests_are_answered_one_line_each_and_end_of_input_ends_serving() {
    let (mut peer, task) = start(gated_server(&Gate::default()), StdioConfig::default());
    peer.send(&request(1, "server/discover", Value::Null)).await;
    // The fixture serves both eras (the default): the 2025-era versions are listed too.
    assert_eq!(
        peer.recv().await["result"]["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    // Blank lines and CRLF endings are tolerated.
    peer.send_raw(b"\n   \n").await;
    let crlf = call(2, "add", json!({"a": 1, "b": 1}));
    peer.methods.insert("2".into(), "tools/call".into());
    peer.send_raw(format!("{crlf}\r\n").as_bytes()).await;
    assert_eq!(text(&peer.recv().await), "2");
    assert!(peer.finish().await.is_empty());
    task.await.expect("the transport task ends").expect("serving ends cleanly at end of input");
}

#[tokio::test]
async fn a_slow_request_does_not_hold_up_a_fast_one() {
    let gate = Gate::default();
    let (mut peer, task) = start(gated_server(&gate), StdioConfig::default());
    peer.send(&call("slow", "gated", json!({}))).await;
    gate.started.notified().await;
    peer.send(&call("fast", "add", json!({"a": 2, "b": 3}))).await;
    let first = peer.recv().await;
    assert_eq!((&first["id"], text(&first)), (&json!("fast"), "5"));
    gate.release.notify_one();
    let second = peer.recv().await;
    assert_eq!((&second["id"], text(&second)), (&json!("slow"), "released"));
    assert!(peer.finish().await.is_empty());
    task.await.expect("joins").expect("clean end");
}

#[tokio::test]
async fn a_cancelled_request_stops_and_gets_no_response() {
    let gate = Gate::default();
    let (mut peer, task) = start(gated_server(&gate), StdioConfig::default());
    peer.send(&call(10, "gated", json!({}))).await;
    gate.started.notified().await;
    peer.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 10, "reason": "user"}}),
    )
    .await;
    // Cancelling an unknown or finished id, or with malformed params, is ignored.
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})).await;
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": null}})).await;
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled"})).await;
    peer.send(&call(11, "add", json!({"a": 1, "b": 2}))).await;
    let next = peer.recv().await;
    assert_eq!(next["id"], json!(11), "request 10 was answered after its cancellation: {next}");
    // Lines are read in order, so the cancellation has been seen: letting the
    // handler go on must not produce a response any more.
    gate.release.notify_one();
    let rest = peer.finish().await;
    assert!(rest.is_empty(), "nothing may follow a cancellation: {rest:?}");
    task.await.expect("joins").expect("clean end");
    assert!(gate.dropped.load(Ordering::SeqCst), "the cancelled handler is still running");
}

#[tokio::test]
async fn requests_beyond_the_in_flight_limit_are_refused_and_cancellation_still_gets_through() {
    let gate = Gate::default();
    let config = StdioConfig { max_in_flight: 1, ..StdioConfig::default() };
    let (mut peer, task) = start(gated_server(&gate), config);
    peer.send(&call(20, "gated", json!({}))).await;
    gate.started.notified().await;
    peer.send(&call(21, "add", json!({"a": 1, "b": 2}))).await;
    let refused = peer.recv().await;
    assert_eq!(refused["id"], json!(21));
    assert_eq!(refused["error"]["code"], json!(-32603));
    // Reading goes on while the limit is reached, so the cancellation of the
    // running request arrives, and its slot frees up.
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 20}})).await;
    let mut answered = None;
    for attempt in 0..200 {
        peer.send(&call(100 + attempt, "add", json!({"a": 2, "b": 2}))).await;
        let response = peer.recv().await;
        if response.get("result").is_some() {
            answered = Some(response);
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(text(&answered.expect("a slot freed up after the cancellation")), "4");
    assert!(peer.finish().await.is_empty());
    task.await.expect("joins").expect("clean end");
}

#[tokio::test]
async fn a_malformed_line_gets_a_parse_error_and_the_next_line_is_served() {
    let (mut peer, task) = start(gated_server(&Gate::default()), StdioConfig::default());
    for garbage in [&b"{not json\n"[..], b"\"unterminated\n", b"\xff\xfe\xfd\n", b"}{\n"] {
        peer.send_raw(garbage).await;
        let error = peer.recv().await;
        assert_eq!(error["error"]["code"], json!(-32700), "for {garbage:?}");
        assert!(error.get("id").is_none(), "a parse error has no id: {error}");
    }
    peer.send_raw(b"[]\n").await;
    assert_eq!(peer.recv().await["error"]["code"], json!(-32600));
    peer.send(&call(1, "add", json!({"a": 4, "b": 4}))).await;
    assert_eq!(text(&peer.recv().await), "8");
    assert!(peer.finish().await.is_empty());
    task.await.expect("joins").expect("clean end");
}

#[tokio::test]
async fn an_oversized_line_is_refused_and_the_next_line_is_served() {
    let config = StdioConfig { max_message_bytes: 1024, ..StdioConfig::default() };
    let (mut peer, task) = start(gated_server(&Gate::default()), config);
    let big = call(1, "add", json!({"a": 1, "b": 1, "pad": "x".repeat(4096)}));
    peer.send(&big).await;
    let error = peer.recv().await;
    assert_eq!(error["error"]["code"], json!(-32600), "{error}");
    assert!(error.get("id").is_none());
    peer.send(&call(2, "add", json!({"a": 1, "b": 1}))).await;
    assert_eq!(text(&peer.recv().await), "2");
    // An oversized last line without a newline is refused too.
    peer.send_raw(format!("{big}").as_bytes()).await;
    let rest = peer.finish().await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["error"]["code"], json!(-32600));
    task.await.expect("joins").expect("clean end");
}

#[tokio::test]
async fn notifications_precede_the_result_only_when_the_request_opted_in() {
    let (mut peer, task) = start(gated_server(&Gate::default()), StdioConfig::default());
    peer.send(&call(1, "report", json!({}))).await;
    let response = peer.recv().await;
    assert_eq!((&response["id"], text(&response)), (&json!(1), "reported"));

    let mut meta = request_meta();
    meta["progressToken"] = json!(77);
    meta["io.modelcontextprotocol/logLevel"] = json!("error");
    peer.send(&request(2, "tools/call", json!({"_meta": meta, "name": "report"}))).await;
    let progress = peer.recv().await;
    assert_eq!(
        (&progress["method"], &progress["params"]["progressToken"]),
        (&json!("notifications/progress"), &json!(77))
    );
    let log = peer.recv().await;
    assert_eq!((&log["method"], &log["params"]["data"]), (&json!("notifications/message"), &json!("bad news")));
    let response = peer.recv().await;
    assert_eq!(response["id"], json!(2));
    assert!(peer.finish().await.is_empty());
    task.await.expect("joins").expect("clean end");
}

#[tokio::test]
async fn requests_in_flight_at_end_of_input_are_finished_first() {
    let gate = Gate::default();
    let (mut peer, task) = start(gated_server(&gate), StdioConfig::default());
    peer.send(&call(1, "gated", json!({}))).await;
    gate.started.notified().await;
    peer.writer = None;
    gate.release.notify_one();
    let rest = peer.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(text(&rest[0]), "released");
    task.await.expect("joins").expect("clean end");
}

#[tokio::test]
async fn requests_still_running_after_the_grace_period_are_abandoned() {
    let gate = Gate::default();
    let config = StdioConfig { shutdown_grace: Duration::from_millis(10), ..StdioConfig::default() };
    let (mut peer, task) = start(gated_server(&gate), config);
    peer.send(&call(1, "gated", json!({}))).await;
    gate.started.notified().await;
    let rest = peer.finish().await;
    assert!(rest.is_empty(), "{rest:?}");
    task.await.expect("joins").expect("clean end");
    assert!(gate.dropped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn listen_streams_end_at_end_of_input_without_waiting_for_the_grace_period() {
    let config = StdioConfig { shutdown_grace: Duration::from_secs(600), ..StdioConfig::default() };
    let (mut peer, task) = start(gated_server(&Gate::default()), config);
    peer.send(&request("L", "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}))).await;
    assert_eq!(peer.recv().await["method"], json!("notifications/subscriptions/acknowledged"));
    let rest = peer.finish().await;
    assert!(rest.is_empty(), "{rest:?}");
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("serving ends promptly at end of input")
        .expect("joins")
        .expect("clean end");
}

/// What an HTTP application's middleware would have identified.
#[derive(Clone)]
struct Caller(&'static str);

#[tokio::test]
async fn without_an_http_request_extensions_are_absent_and_say_so() {
    let server = Server::builder("no-http", "0.0.1")
        .tool(ToolEntry::new("whoami", |Extension(caller): Extension<Caller>| async move { caller.0 }))
        .tool(ToolEntry::new("greet", |caller: Option<Extension<Caller>>| async move {
            caller.map_or("Hello, stranger!", |Extension(c)| c.0)
        }))
        .tool(ToolEntry::new("head", |cx: RequestContext| async move { cx.http_request().is_none().to_string() }))
        .build()
        .expect("the server builds");
    let (mut peer, task) = start(server, StdioConfig::default());
    peer.send(&call(1, "whoami", json!({}))).await;
    let refused = peer.recv().await;
    assert_eq!(refused["result"]["isError"], true, "a result the model reads: {refused}");
    assert!(text(&refused).contains("did not come over HTTP"), "{refused}");
    peer.send(&call(2, "greet", json!({}))).await;
    assert_eq!(text(&peer.recv().await), "Hello, stranger!");
    peer.send(&call(3, "head", json!({}))).await;
    assert_eq!(text(&peer.recv().await), "true");
    assert!(peer.finish().await.is_empty());
    task.await.expect("the transport task ends").expect("serving ends cleanly");
}

// --- A real child process ---------------------------------------------------

type ChildPeer = Peer<tokio::process::ChildStdin, tokio::process::ChildStdout>;

fn spawn_server() -> (tokio::process::Child, ChildPeer) {
    spawn_server_with(&[])
}

fn spawn_server_with(env: &[(&str, &str)]) -> (tokio::process::Child, ChildPeer) {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_stdio_server"))
        .env_remove("MCP_REQUEST_STATE_KEY")
        .env_remove("MCP_REQUEST_STATE_PREVIOUS_KEY")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("RUST_LOG", "info")
        .kill_on_drop(true)
        .spawn()
        .expect("the stdio server starts");
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    (child, Peer::new(stdin, stdout))
}

#[tokio::test]
async fn a_child_process_serves_over_stdin_and_stdout_and_exits_cleanly() {
    let (mut child, mut peer) = spawn_server();
    let stderr = child.stderr.take().expect("piped stderr");
    let stderr = tokio::spawn(async move {
        let mut text = String::new();
        let mut reader = BufReader::new(stderr);
        tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut text).await.map(|_| text)
    });

    // The usual first three requests of a client.
    peer.send(&request(1, "server/discover", Value::Null)).await;
    assert!(peer.recv().await["result"]["capabilities"]["tools"].is_object());
    peer.send(&request(2, "tools/list", Value::Null)).await;
    assert_eq!(peer.recv().await["result"]["tools"].as_array().map(Vec::len), Some(5));
    peer.send(&call(3, "add", json!({"a": 20, "b": 22}))).await;
    assert_eq!(text(&peer.recv().await), "42");

    // A slow request does not block a fast one, and cancelling it silences it.
    peer.send(&call("slow", "wait", json!({"ms": 600_000}))).await;
    peer.send(&call("fast", "add", json!({"a": 1, "b": 1}))).await;
    assert_eq!(peer.recv().await["id"], json!("fast"));
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow"}})).await;

    // A malformed line, then service as usual.
    peer.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \n").await;
    let error = peer.recv().await;
    assert_eq!(error["error"]["code"], json!(-32700));
    assert!(error.get("id").is_none());
    peer.send(&call(5, "add", json!({"a": 2, "b": 2}))).await;
    assert_eq!(text(&peer.recv().await), "4");

    // A panicking handler fails its own request only.
    peer.send(&call(6, "explode", json!({}))).await;
    assert_eq!(peer.recv().await["error"]["code"], json!(-32603));
    peer.send(&call(7, "add", json!({"a": 3, "b": 3}))).await;
    assert_eq!(text(&peer.recv().await), "6");

    // Notifications only for a request that opted in, before its result.
    let mut meta = request_meta();
    meta["progressToken"] = json!("p");
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    peer.send(&request(8, "tools/call", json!({"_meta": meta, "name": "report"}))).await;
    let methods: Vec<Value> =
        [peer.recv().await, peer.recv().await, peer.recv().await].iter().map(|m| m["method"].clone()).collect();
    assert_eq!(
        methods,
        [json!("notifications/progress"), json!("notifications/message"), json!("notifications/progress")]
    );
    assert_eq!(text(&peer.recv().await), "reported");
    peer.send(&call(9, "report", json!({}))).await;
    assert_eq!(peer.recv().await["id"], json!(9), "a request that did not opt in gets no notifications");

    // A line past the default limit (4 MiB) is refused; the next is served.
    let huge = call(10, "add", json!({"a": 1, "b": 1, "pad": "y".repeat(5 * 1024 * 1024)}));
    peer.send(&huge).await;
    let error = peer.recv().await;
    assert_eq!(error["error"]["code"], json!(-32600));
    peer.send(&call(11, "add", json!({"a": 5, "b": 5}))).await;
    assert_eq!(text(&peer.recv().await), "10");

    let rest = peer.finish().await;
    assert!(rest.is_empty(), "lines after end of input: {rest:?}");
    let status = tokio::time::timeout(STUCK, child.wait()).await.expect("the server exits").expect("waits");
    assert_eq!(status.code(), Some(0), "exit status at end of input");
    let stderr = stderr.await.expect("joins").expect("stderr is UTF-8");
    // The runtime's own record of the panic (not the binary's start-up line,
    // nor the standard library's panic message) is on stderr; nothing but
    // JSON-RPC went to stdout (every line above was read as a message).
    let record = stderr.lines().find(|line| line.contains("a handler panicked"));
    let record = record.unwrap_or_else(|| panic!("the runtime logs the handler failure on stderr: {stderr}"));
    assert!(record.contains("ERROR"), "logged as an error: {record}");
    assert!(record.contains("the handler fails on purpose"), "with the panic's message: {record}");
    assert!(!stderr.contains("abandoned"), "the cancelled request was still running at the end: {stderr}");
}

#[tokio::test]
async fn a_child_process_exits_cleanly_on_immediate_end_of_input() {
    let (mut child, mut peer) = spawn_server();
    assert!(peer.finish().await.is_empty());
    let status = tokio::time::timeout(STUCK, child.wait()).await.expect("the server exits").expect("waits");
    assert!(status.success(), "{status}");
}

/// Replicas that share `MCP_REQUEST_STATE_KEY` in their environment open
/// each other's `requestState`: a round begun on one ends on the other. Two
/// processes without it each seal with a key of their own.
#[tokio::test]
async fn the_request_state_key_of_the_environment_is_every_replicas() {
    let key = [("MCP_REQUEST_STATE_KEY", "a secret the replicas share, 32 bytes or more")];
    let elicitation = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}});
    let greet = |id: i64, more: Value| {
        let mut meta = request_meta();
        meta.as_object_mut().expect("an object").extend(elicitation.as_object().expect("an object").clone());
        let mut params = json!({"_meta": meta, "name": "greet", "arguments": {}});
        params.as_object_mut().expect("an object").extend(more.as_object().expect("an object").clone());
        request(id, "tools/call", params)
    };
    let round = |state: Value| json!({"inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}, "requestState": state});
    for (shared, expected) in [(&key[..], Some("Hello, Ada!")), (&[][..], None)] {
        let (_a, mut first) = spawn_server_with(shared);
        let (_b, mut second) = spawn_server_with(shared);
        first.send(&greet(1, json!({}))).await;
        let asked = first.recv().await;
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        second.send(&greet(2, round(asked["result"]["requestState"].clone()))).await;
        let answer = second.recv().await;
        match expected {
            Some(greeting) => assert_eq!(text(&answer), greeting, "{answer}"),
            None => assert_eq!(answer["error"]["code"], json!(-32602), "another process's state opened: {answer}"),
        }
    }
}
