//! Cancellation gives the handler a grace period: when a request is given
//! up on (stdio's `notifications/cancelled`, a client closing its HTTP
//! connection, the HTTP request timeout), the handler's token fires *before* its future is dropped,
//! so the documented `select!` on the token runs its branch, cleanup that
//! awaits included. A handler that ignores the token is still dropped once
//! the grace period is over.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{CancellationToken, Server, State, tool};
use mcp_tests::wire_schema::request_meta;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// How long anything may take before the test calls it stuck. Only a guard
/// against hanging forever; no test measures speed.
const STUCK: Duration = Duration::from_secs(30);

/// What the handlers report.
#[derive(Default)]
struct Probe {
    started: Notify,
    cleaned_up: Notify,
    dropped: Notify,
}

impl Probe {
    async fn wait(&self, event: &Notify, what: &str) {
        tokio::time::timeout(STUCK, event.notified()).await.unwrap_or_else(|_| panic!("{what}"));
    }
}

/// Notifies when the handler's future is dropped.
struct DropSignal(Arc<Probe>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.dropped.notify_one();
    }
}

/// Waits for cancellation, then cleans up in a step that awaits.
#[tool]
async fn cleans_up(cancel: CancellationToken, State(probe): State<Arc<Probe>>) -> &'static str {
    probe.started.notify_one();
    tokio::select! {
        () = cancel.cancelled() => {
            // Cleanup that waits: it needs the handler to be polled again.
            tokio::task::yield_now().await;
            probe.cleaned_up.notify_one();
            "cancelled"
        }
        () = std::future::pending::<()>() => "never",
    }
}

/// Ignores cancellation altogether.
#[tool]
async fn ignores_cancel(State(probe): State<Arc<Probe>>) -> &'static str {
    let _dropped = DropSignal(Arc::clone(&probe));
    probe.started.notify_one();
    std::future::pending::<()>().await;
    "never"
}

fn server(probe: &Arc<Probe>, grace: Duration) -> Server {
    mcp_runtime::server!("cancellation", "1.0.0")
        .state(Arc::clone(probe))
        .cancellation_grace(grace)
        .build()
        .expect("a valid server")
}

fn call(id: u64, name: &str, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": {}, "_meta": meta}})
}

/// Over stdio: calls `name`, cancels it once started, runs `after`, then
/// ends the input and returns everything the server wrote.
async fn cancel_over_stdio(probe: &Arc<Probe>, grace: Duration, name: &str, after: impl Future<Output = ()>) -> String {
    let (client, served) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(served);
    let serving = tokio::spawn(server(probe, grace).serve_io(server_in, server_out, StdioConfig::default()));
    let (mut output, mut input) = tokio::io::split(client);
    let line = format!("{}\n", call(7, name, request_meta()));
    input.write_all(line.as_bytes()).await.expect("the server reads");
    probe.wait(&probe.started, "the handler starts").await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
    input.write_all(format!("{cancel}\n").as_bytes()).await.expect("the server reads");
    after.await;
    input.shutdown().await.expect("the input ends");
    let mut written = String::new();
    tokio::time::timeout(STUCK, output.read_to_string(&mut written)).await.expect("the output ends").expect("UTF-8");
    tokio::time::timeout(STUCK, serving).await.expect("the server stops").expect("no panic").expect("no I/O error");
    written
}

#[tokio::test]
async fn stdio_cancellation_runs_the_select_branch_of_the_handler() {
    let probe = Arc::new(Probe::default());
    let cleaned = probe.wait(&probe.cleaned_up, "the cancel branch of the handler runs to its end");
    let written = cancel_over_stdio(&probe, Duration::from_secs(1), "cleans_up", cleaned).await;
    assert!(!written.contains("\"id\":7"), "a cancelled request gets no response: {written}");
}

#[tokio::test]
async fn stdio_drops_a_handler_that_ignores_cancellation_after_the_grace_period() {
    let probe = Arc::new(Probe::default());
    let dropped = probe.wait(&probe.dropped, "the handler is dropped once the grace period is over");
    let written = cancel_over_stdio(&probe, Duration::from_millis(20), "ignores_cancel", dropped).await;
    assert!(!written.contains("\"id\":7"), "a cancelled request gets no response: {written}");
}

/// Over HTTP: posts a call of `cleans_up` with `meta`, closes the
/// connection once the handler started (or, with a `timeout`, keeps it
/// open), and waits for its cleanup.
async fn give_up_over_http(meta: Value, timeout: Option<Duration>) {
    let probe = Arc::new(Probe::default());
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free loopback port");
    let addr = listener.local_addr().expect("a local address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = HttpConfig::default().request_timeout(timeout);
    let serving =
        tokio::spawn(server(&probe, Duration::from_secs(1)).serve_http_with_shutdown(listener, config, async {
            let _ = stopped.await;
        }));
    let body = call(9, "cleans_up", meta).to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: cleans_up\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.expect("the server accepts");
    stream.write_all(format!("{head}{body}").as_bytes()).await.expect("the request is sent");
    probe.wait(&probe.started, "the handler starts").await;
    if timeout.is_some() {
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).await.expect("an answer once the request times out");
        assert_eq!(&head, b"HTTP/1.1 200", "the timeout is answered with a JSON-RPC error");
    } else {
        drop(stream);
    }
    probe.wait(&probe.cleaned_up, "the cancel branch of the handler runs to its end").await;
    let _ = stop.send(());
    tokio::time::timeout(STUCK, serving).await.expect("the server stops").expect("no panic").expect("serves");
}

#[tokio::test]
async fn http_disconnect_runs_the_select_branch_of_the_handler() {
    // A JSON answer: the token exists only because the handler asked.
    give_up_over_http(request_meta(), None).await;
}

#[tokio::test]
async fn http_disconnect_runs_the_select_branch_of_a_streaming_handler() {
    // With a progress token the answer may stream, and the transport
    // hands the handler a token of its own.
    let mut meta = request_meta();
    meta["progressToken"] = json!("p-1");
    give_up_over_http(meta, None).await;
}

#[tokio::test]
async fn http_request_timeout_runs_the_select_branch_of_the_handler() {
    give_up_over_http(request_meta(), Some(Duration::from_millis(50))).await;
}
