//! What the HTTP client puts on the wire when the server's answers are
//! out of the ordinary: a 2025-era request's event stream that ends before
//! its answer, resumed with `GET` and `Last-Event-ID` (SEP-1699) after the
//! `retry` the server asked for, and only a bounded number of times; a
//! 2026-07-28 request refused with `-32022` sent again once, and only when
//! the server lists the client's revision; a 2025-era server's question
//! asked on the session's standalone stream, answered with the form's
//! defaults filled in, and that stream not opened by a client with nothing
//! to answer; the arguments a listed tool mirrors into `Mcp-Param-*`
//! headers, and `Mcp-Name`. Each server is scripted on a loopback socket,
//! so that what goes on the wire, and when, is the test's to say and to
//! see.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, Error, Revision};
use mcp_runtime::protocol::{ElicitRequest, ElicitResult};
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt as _, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::sync::mpsc;

/// One request as the scripted server read it.
#[derive(Clone, Debug)]
struct Received {
    /// The HTTP method.
    method: String,
    path: String,
    /// By lowercase name.
    headers: BTreeMap<String, String>,
    /// `Null` for a request without a body (a `GET`).
    body: Value,
    /// When its last byte was read.
    at: Instant,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// The JSON-RPC method, if the body is a request or a notification.
    fn rpc(&self) -> Option<&str> {
        self.body.get("method").and_then(Value::as_str)
    }

    fn is(&self, method: &str, rpc: Option<&str>) -> bool {
        self.method == method && self.rpc() == rpc
    }
}

/// What a scripted server received, in the order it came.
type Log = Arc<Mutex<Vec<Received>>>;

fn received(log: &Log) -> Vec<Received> {
    log.lock().expect("the log").clone()
}

/// How a scripted server answers one request: it writes on the
/// connection, and hands the connection back to read the next request
/// from, or keeps it (`None`): a stream that ends by closing, or one left
/// open for the test to write on later.
type Answering = Pin<Box<dyn Future<Output = Option<OwnedWriteHalf>> + Send>>;

/// A server on loopback that records each request in `log` before
/// `answer` answers it; its URL. Bound before it returns: ready.
async fn scripted<F>(log: &Log, answer: F) -> String
where
    F: Fn(Received, OwnedWriteHalf) -> Answering + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let (log, answer) = (Arc::clone(log), Arc::new(answer));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(connection(stream, Arc::clone(&log), Arc::clone(&answer)));
        }
    });
    url
}

async fn connection<F>(stream: TcpStream, log: Log, answer: Arc<F>)
where
    F: Fn(Received, OwnedWriteHalf) -> Answering,
{
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    while let Some(request) = read_request(&mut read).await {
        log.lock().expect("the log").push(request.clone());
        match answer(request, write).await {
            Some(kept) => write = kept,
            None => return,
        }
    }
}

/// The next request's head and body, or `None` once the client closed.
async fn read_request(read: &mut BufReader<OwnedReadHalf>) -> Option<Received> {
    let read = mcp_tests::scripted::read_request(read).await?;
    let body = read.json();
    Some(Received { method: read.method, path: read.path, headers: read.headers, body, at: read.at })
}

/// Writes `text`. A client that went away is for the test's assertions to
/// notice, not for the server to panic over.
async fn send(write: &mut OwnedWriteHalf, text: &str) {
    let _ = write.write_all(text.as_bytes()).await;
}

const ACCEPTED: &str = "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n";
const NOT_ALLOWED: &str = "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n";
/// The head of an event stream that ends when the server closes the
/// connection: a clean end, however few events came.
const EVENTS_UNTIL_CLOSED: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
/// The head of an event stream written in chunks as the test goes.
const EVENTS_CHUNKED: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

/// An HTTP answer of `status` carrying `message` as JSON, and `extra`
/// header lines.
fn json_answer(status: &str, extra: &str, message: &Value) -> String {
    let body = message.to_string();
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// The JSON-RPC result `result` to `request`.
fn result_of(request: &Received, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request.body["id"], "result": result})
}

fn chunk(text: &str) -> String {
    format!("{:x}\r\n{text}\r\n", text.len())
}

/// The answers that open a 2025-era session `s1`, for the requests that
/// open one.
fn opening(request: &Received) -> Option<String> {
    match request.rpc() {
        Some("initialize") => Some(json_answer(
            "200 OK",
            "mcp-session-id: s1\r\n",
            &result_of(
                request,
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "x", "version": "1"}}),
            ),
        )),
        Some("notifications/initialized") => Some(ACCEPTED.to_owned()),
        _ => None,
    }
}

fn client(url: &str, revision: Revision) -> Client {
    // A mistake fails the test rather than hanging it.
    Client::http(url).revision(revision).timeout(Duration::from_secs(10))
}

/// The id of the `tools/call` the server received (the one call of a test).
fn call_id(log: &Log) -> Value {
    received(log).iter().find(|r| r.rpc() == Some("tools/call")).expect("the call came").body["id"].clone()
}

#[tokio::test]
async fn a_stream_ended_before_its_answer_is_resumed_with_get_after_the_retry_asked_for() {
    let log = Log::default();
    let ended = Arc::new(Mutex::new(None::<Instant>));
    let url = scripted(&log, {
        let (log, ended) = (Arc::clone(&log), Arc::clone(&ended));
        move |request, mut write| -> Answering {
            let (log, ended) = (Arc::clone(&log), Arc::clone(&ended));
            Box::pin(async move {
                if let Some(answer) = opening(&request) {
                    send(&mut write, &answer).await;
                    return Some(write);
                }
                if request.is("POST", Some("tools/call")) {
                    send(&mut write, &format!("{EVENTS_UNTIL_CLOSED}id: e1\nretry: 300\ndata: \n\n")).await;
                    // Taken before the close the client sees as the end:
                    // what is measured from it is no longer than the
                    // client's wait.
                    *ended.lock().expect("the end") = Some(Instant::now());
                    return None;
                }
                if request.method == "GET" {
                    let answer = json!({"jsonrpc": "2.0", "id": call_id(&log),
                                        "result": {"content": [{"type": "text", "text": "resumed"}]}});
                    send(&mut write, &format!("{EVENTS_UNTIL_CLOSED}id: e2\ndata: {answer}\n\n")).await;
                    return None;
                }
                send(&mut write, NOT_ALLOWED).await;
                Some(write)
            })
        }
    })
    .await;

    let called = client(&url, Revision::Session).call_tool("slow", json!({})).await.expect("the resumed answer");
    assert_eq!(called.first_text(), Some("resumed"));

    let gets: Vec<Received> = received(&log).into_iter().filter(|r| r.method == "GET").collect();
    let [get] = gets.as_slice() else { panic!("one GET, not {gets:#?}") };
    assert_eq!(get.path, "/mcp", "the endpoint the call was posted to");
    assert_eq!(get.header("last-event-id"), Some("e1"));
    assert_eq!(get.header("mcp-session-id"), Some("s1"));
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    let ended = ended.lock().expect("the end").expect("the call's stream ended");
    let waited = get.at.duration_since(ended);
    assert!(waited >= Duration::from_millis(300), "resumed after {waited:?}, before the 300 ms the server asked for");
}

#[tokio::test]
async fn a_stream_without_event_ids_that_ends_before_its_answer_fails_the_call_without_a_get() {
    let log = Log::default();
    let url = scripted(&log, |request, mut write| -> Answering {
        Box::pin(async move {
            if let Some(answer) = opening(&request) {
                send(&mut write, &answer).await;
                return Some(write);
            }
            if request.is("POST", Some("tools/call")) {
                // A `retry` alone gives nothing to resume from.
                send(&mut write, &format!("{EVENTS_UNTIL_CLOSED}retry: 10\ndata: \n\n")).await;
                return None;
            }
            send(&mut write, NOT_ALLOWED).await;
            Some(write)
        })
    })
    .await;

    let failed = client(&url, Revision::Session).call_tool("slow", json!({})).await;
    assert!(matches!(failed, Err(Error::Transport(_))), "{failed:?}");
    // A resumption would have been sent, and answered, before the call
    // returned: none can still come.
    let log = received(&log);
    assert!(log.iter().all(|r| r.method != "GET"), "{log:#?}");
    assert_eq!(log.iter().filter(|r| r.is("POST", Some("tools/call"))).count(), 1);
}

#[tokio::test]
async fn a_stream_that_never_brings_its_answer_is_resumed_five_times_at_most() {
    let log = Log::default();
    let url = scripted(&log, {
        let log = Arc::clone(&log);
        move |request, mut write| -> Answering {
            let log = Arc::clone(&log);
            Box::pin(async move {
                if let Some(answer) = opening(&request) {
                    send(&mut write, &answer).await;
                    return Some(write);
                }
                let event = if request.is("POST", Some("tools/call")) {
                    "id: e0\nretry: 10\ndata: \n\n".to_owned()
                } else if request.method == "GET" {
                    // Each stream moves the client on, and still no answer.
                    let gets = received(&log).iter().filter(|r| r.method == "GET").count();
                    format!("id: e{gets}\nretry: 10\ndata: \n\n")
                } else {
                    send(&mut write, NOT_ALLOWED).await;
                    return Some(write);
                };
                send(&mut write, &format!("{EVENTS_UNTIL_CLOSED}{event}")).await;
                None
            })
        }
    })
    .await;

    let failed = client(&url, Revision::Session).call_tool("slow", json!({})).await;
    assert!(matches!(failed, Err(Error::Transport(_))), "{failed:?}");
    let resumed: Vec<String> = received(&log)
        .iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.header("last-event-id").unwrap_or("none").to_owned())
        .collect();
    assert_eq!(resumed, ["e0", "e1", "e2", "e3", "e4"], "each resumed from the last event id it had");
}

/// `-32022` for 2026-07-28, the server listing `supported`.
fn unsupported(request: &Received, supported: &[&str]) -> String {
    let refusal = json!({"jsonrpc": "2.0", "id": request.body["id"], "error": {
        "code": -32022, "message": "Unsupported protocol version",
        "data": {"supported": supported, "requested": "2026-07-28"}}});
    json_answer("400 Bad Request", "", &refusal)
}

/// A 2026-07-28 server whose `n`th POST (from 1) is answered by `answer`.
async fn numbered(log: &Log, answer: fn(usize, &Received) -> String) -> String {
    scripted(log, {
        let log = Arc::clone(log);
        move |request, mut write| -> Answering {
            let log = Arc::clone(&log);
            Box::pin(async move {
                let n = received(&log).iter().filter(|r| r.method == "POST").count();
                send(&mut write, &answer(n, &request)).await;
                Some(write)
            })
        }
    })
    .await
}

fn posts(log: &Log) -> Vec<Received> {
    received(log).into_iter().filter(|r| r.method == "POST").collect()
}

#[tokio::test]
async fn unsupported_version_listing_the_clients_own_is_sent_again_once() {
    let log = Log::default();
    let url = numbered(&log, |n, request| match n {
        1 => unsupported(request, &["2026-07-28"]),
        _ => json_answer("200 OK", "", &result_of(request, json!({"resultType": "complete", "tools": []}))),
    })
    .await;

    let tools = client(&url, Revision::Stateless).list_tools().await.expect("listed when sent again");
    assert!(tools.is_empty());
    let posts = posts(&log);
    assert_eq!(posts.len(), 2, "{posts:#?}");
    for post in &posts {
        assert_eq!(post.rpc(), Some("tools/list"));
        assert_eq!(post.header("mcp-protocol-version"), Some("2026-07-28"));
    }
}

#[tokio::test]
async fn unsupported_version_every_time_fails_after_one_more_try() {
    let log = Log::default();
    let url = numbered(&log, |_, request| unsupported(request, &["2026-07-28"])).await;

    match client(&url, Revision::Stateless).list_tools().await {
        Err(Error::Rpc(error)) => assert_eq!(error.code, -32022),
        other => panic!("{other:?}"),
    }
    assert_eq!(posts(&log).len(), 2, "sent again once, not in a loop");
}

#[tokio::test]
async fn unsupported_version_not_listing_the_clients_own_is_not_sent_again() {
    let log = Log::default();
    let url = numbered(&log, |_, request| unsupported(request, &["2025-11-25"])).await;

    match client(&url, Revision::Stateless).list_tools().await {
        Err(Error::Rpc(error)) => assert_eq!(error.code, -32022),
        other => panic!("{other:?}"),
    }
    assert_eq!(posts(&log).len(), 1);
}

#[tokio::test]
async fn a_question_on_the_standalone_stream_is_answered_with_the_forms_defaults() {
    let log = Log::default();
    // The standalone stream, handed from its GET to the call that asks on it.
    let (standalone, streams) = mpsc::unbounded_channel::<OwnedWriteHalf>();
    let streams = Arc::new(tokio::sync::Mutex::new(streams));
    let answered = Arc::new(Notify::new());
    let url = scripted(&log, {
        let (streams, answered) = (Arc::clone(&streams), Arc::clone(&answered));
        move |request, mut write| -> Answering {
            let (standalone, streams, answered) = (standalone.clone(), Arc::clone(&streams), Arc::clone(&answered));
            Box::pin(async move {
                if let Some(answer) = opening(&request) {
                    send(&mut write, &answer).await;
                    return Some(write);
                }
                if request.method == "GET" {
                    send(&mut write, EVENTS_CHUNKED).await;
                    let _ = standalone.send(write);
                    return None;
                }
                if request.is("POST", Some("tools/call")) {
                    let mut stream = streams.lock().await.recv().await.expect("the standalone stream was opened");
                    // No `mode`: a form, as a 2025-era server asks it.
                    let question = json!({"jsonrpc": "2.0", "id": "q1", "method": "elicitation/create", "params": {
                        "message": "Who?",
                        "requestedSchema": {"type": "object", "properties": {
                            "name": {"type": "string"},
                            "age": {"type": "integer", "default": 30},
                            "verified": {"type": "boolean", "default": true}}}}});
                    send(&mut stream, &chunk(&format!("data: {question}\n\n"))).await;
                    answered.notified().await;
                    let done = result_of(&request, json!({"content": [{"type": "text", "text": "done"}]}));
                    send(&mut write, &json_answer("200 OK", "", &done)).await;
                    return Some(write);
                }
                if request.body.get("id") == Some(&json!("q1")) {
                    send(&mut write, ACCEPTED).await;
                    answered.notify_one();
                    return Some(write);
                }
                send(&mut write, NOT_ALLOWED).await;
                Some(write)
            })
        }
    })
    .await;

    let client = client(&url, Revision::Session)
        .on_elicitation(|_: ElicitRequest| async { ElicitResult::accept(json!({"name": "Ada"})) });
    let called = client.call_tool("ask", json!({})).await.expect("answered after the question");
    assert_eq!(called.first_text(), Some("done"));

    let log = received(&log);
    let gets: Vec<&Received> = log.iter().filter(|r| r.method == "GET").collect();
    let [get] = gets.as_slice() else { panic!("one standalone stream, not {gets:#?}") };
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("mcp-session-id"), Some("s1"));
    let answer = log.iter().find(|r| r.body.get("id") == Some(&json!("q1"))).expect("the question answered");
    assert_eq!(answer.method, "POST");
    assert_eq!(answer.header("mcp-session-id"), Some("s1"));
    assert_eq!(
        answer.body["result"],
        json!({"action": "accept", "content": {"name": "Ada", "age": 30, "verified": true}})
    );
}

#[tokio::test]
async fn a_client_with_nothing_to_answer_opens_no_standalone_stream() {
    let log = Log::default();
    let url = scripted(&log, |request, mut write| -> Answering {
        Box::pin(async move {
            let answer = match opening(&request) {
                Some(answer) => answer,
                None if request.is("POST", Some("tools/call")) => json_answer(
                    "200 OK",
                    "",
                    &result_of(&request, json!({"content": [{"type": "text", "text": "done"}]})),
                ),
                None => NOT_ALLOWED.to_owned(),
            };
            send(&mut write, &answer).await;
            Some(write)
        })
    })
    .await;

    client(&url, Revision::Session).call_tool("plain", json!({})).await.expect("called");
    let sent: Vec<(String, Option<String>)> =
        received(&log).iter().map(|r| (r.method.clone(), r.rpc().map(str::to_owned))).collect();
    let expected = [("POST", "initialize"), ("POST", "notifications/initialized"), ("POST", "tools/call")]
        .map(|(method, rpc)| (method.to_owned(), Some(rpc.to_owned())));
    assert_eq!(sent, expected);
}

#[tokio::test]
async fn a_listed_tools_mirrored_arguments_and_its_name_go_in_headers() {
    let log = Log::default();
    let url = scripted(&log, |request, mut write| -> Answering {
        Box::pin(async move {
            let result = match request.rpc() {
                Some("tools/list") => json!({"resultType": "complete", "tools": [
                    {"name": "mirror", "inputSchema": {"type": "object", "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "count": {"type": "integer", "x-mcp-header": "Count"},
                        "note": {"type": "string", "x-mcp-header": "Note"},
                        "gone": {"type": "boolean", "x-mcp-header": "Gone"},
                        "query": {"type": "string"}}}},
                    // No header can carry an object: the tool is left out.
                    {"name": "bad", "inputSchema": {"type": "object", "properties": {
                        "data": {"type": "object", "x-mcp-header": "Data"}}}},
                    {"name": "héllo", "inputSchema": {"type": "object"}}]}),
                Some("tools/call") => json!({"resultType": "complete", "content": []}),
                _ => {
                    send(&mut write, NOT_ALLOWED).await;
                    return Some(write);
                }
            };
            send(&mut write, &json_answer("200 OK", "", &result_of(&request, result))).await;
            Some(write)
        })
    })
    .await;

    let client = client(&url, Revision::Stateless);
    let tools = client.list_tools().await.expect("listed");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["mirror", "héllo"]);

    client
        .call_tool("mirror", json!({"region": "us-west1", "count": 42, "note": " padded ", "gone": null, "query": "q"}))
        .await
        .expect("called");
    client.call_tool("héllo", json!({})).await.expect("called");

    let calls: Vec<Received> = posts(&log).into_iter().filter(|r| r.rpc() == Some("tools/call")).collect();
    let [mirror, hello] = calls.as_slice() else { panic!("two calls, not {calls:#?}") };
    assert_eq!(mirror.header("mcp-method"), Some("tools/call"));
    assert_eq!(mirror.header("mcp-name"), Some("mirror"));
    assert_eq!(mirror.header("mcp-param-region"), Some("us-west1"));
    assert_eq!(mirror.header("mcp-param-count"), Some("42"));
    // Whitespace at its ends would be lost in a header: Base64.
    assert_eq!(mirror.header("mcp-param-note"), Some("=?base64?IHBhZGRlZCA=?="));
    assert_eq!(mirror.header("mcp-param-gone"), None, "null is no value to mirror");
    assert_eq!(mirror.header("mcp-param-query"), None, "not annotated");
    let mirrored: Vec<&str> =
        mirror.headers.keys().filter(|n| n.starts_with("mcp-param-")).map(String::as_str).collect();
    assert_eq!(mirrored, ["mcp-param-count", "mcp-param-note", "mcp-param-region"]);
    assert_eq!(hello.header("mcp-method"), Some("tools/call"));
    assert_eq!(hello.header("mcp-name"), Some("=?base64?aMOpbGxv?="), "UTF-8 of `héllo` in Base64");
    assert!(hello.headers.keys().all(|n| !n.starts_with("mcp-param-")), "{:?}", hello.headers);
}
