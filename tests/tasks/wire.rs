//! One client for both transports: requests over Streamable HTTP (each a
//! POST with the standard headers, `Mcp-Name` = `params.taskId` on the task
//! methods) or over an in-memory stdio connection (one line each way),
//! every message the server sends checked (`assert_valid_task_message`).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use mcp_runtime::Server;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_tests::task_schema::assert_valid_task_message;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};

/// How long anything may take before the test calls it stuck.
pub(crate) const STUCK: Duration = Duration::from_secs(30);

/// The two transports every test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    Http,
    Stdio,
}

pub(crate) const BOTH: [Transport; 2] = [Transport::Http, Transport::Stdio];

/// A response, with the HTTP status it came with (200 over stdio).
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: Value,
}

impl Reply {
    #[track_caller]
    pub(crate) fn result(&self) -> &Value {
        assert!(self.body.get("result").is_some(), "expected a result: {}", self.body);
        &self.body["result"]
    }

    pub(crate) fn code(&self) -> Option<i64> {
        self.body["error"]["code"].as_i64()
    }
}

enum Conn {
    Http { addr: SocketAddr, stop: Option<oneshot::Sender<()>> },
    Stdio { writer: DuplexStream, lines: Lines<BufReader<DuplexStream>>, stash: VecDeque<Value> },
}

/// A client of one server, declaring what it is told to on each request.
pub(crate) struct Client {
    conn: Conn,
    next_id: i64,
    /// The `_meta` of every request.
    pub(crate) capabilities: Value,
    pub(crate) name: String,
    /// The events of the listen stream, over HTTP.
    events: Option<mpsc::UnboundedReceiver<Value>>,
}

impl Client {
    /// Serves `server` on `transport` and connects to it, declaring the
    /// tasks extension and elicitation.
    pub(crate) async fn start(transport: Transport, server: Server) -> Self {
        let conn = match transport {
            Transport::Http => {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free loopback port");
                let addr = listener.local_addr().expect("a local address");
                let (stop, stopped) = oneshot::channel::<()>();
                tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), async {
                    let _ = stopped.await;
                }));
                Conn::Http { addr, stop: Some(stop) }
            }
            Transport::Stdio => {
                let (writer, server_in) = tokio::io::duplex(1 << 16);
                let (server_out, reader) = tokio::io::duplex(1 << 16);
                tokio::spawn(server.serve_io(server_in, server_out, StdioConfig::default()));
                Conn::Stdio { writer, lines: BufReader::new(reader).lines(), stash: VecDeque::new() }
            }
        };
        Client {
            conn,
            next_id: 1,
            capabilities: json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
            name: "alice".to_owned(),
            events: None,
        }
    }

    /// Declares no tasks extension from now on.
    pub(crate) fn without_tasks(mut self) -> Self {
        self.capabilities = json!({"elicitation": {}});
        self
    }

    fn message(&mut self, method: &str, mut params: Value) -> (Value, String) {
        let id = self.next_id;
        self.next_id += 1;
        if params.get("_meta").is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": self.name, "version": "1.0.0"},
            });
        }
        (json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}), id.to_string())
    }

    /// Sends a request with the headers a client must send.
    pub(crate) async fn send(&mut self, method: &str, params: Value) -> Reply {
        self.send_with(method, params, |_| {}).await
    }

    /// Sends a request, letting `headers` change the HTTP headers (name →
    /// value; `None` drops it) first.
    pub(crate) async fn send_with(
        &mut self,
        method: &str,
        params: Value,
        headers: impl FnOnce(&mut Vec<(String, Option<String>)>),
    ) -> Reply {
        let (message, id) = self.message(method, params);
        let reply = match &mut self.conn {
            Conn::Http { addr, .. } => {
                let mut list = standard_headers(&message);
                headers(&mut list);
                let (status, body) = post(*addr, &message, &list).await;
                Reply { status, body }
            }
            Conn::Stdio { writer, lines, stash } => {
                writer.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
                loop {
                    let line = next_line(lines).await;
                    if line.get("id").map(Value::to_string) == Some(id.clone()) {
                        break Reply { status: 200, body: line };
                    }
                    stash.push_back(line);
                }
            }
        };
        assert_valid_task_message(method, &reply.body);
        reply
    }

    /// Writes `message` as it is on the stdio connection and returns the
    /// line answering it, for 2025-era sessions (whose messages the caller
    /// checks); `None` for a notification.
    pub(crate) async fn send_line(&mut self, message: Value) -> Option<Value> {
        let Conn::Stdio { writer, lines, stash } = &mut self.conn else { panic!("a stdio client") };
        writer.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        let id = message.get("id")?.to_string();
        loop {
            let line = next_line(lines).await;
            if line.get("id").map(Value::to_string) == Some(id.clone()) {
                return Some(line);
            }
            stash.push_back(line);
        }
    }

    /// `tools/call`.
    pub(crate) async fn call(&mut self, tool: &str, arguments: Value) -> Reply {
        self.send("tools/call", json!({"name": tool, "arguments": arguments})).await
    }

    /// `tools/call` of a tool that must become a task: its id.
    pub(crate) async fn start_task(&mut self, tool: &str, arguments: Value) -> String {
        let reply = self.call(tool, arguments).await;
        assert_eq!(reply.result()["resultType"], "task", "{}", reply.body);
        reply.result()["taskId"].as_str().expect("a task id").to_owned()
    }

    /// `tasks/get`'s result.
    pub(crate) async fn get(&mut self, task_id: &str) -> Value {
        let reply = self.send("tasks/get", json!({"taskId": task_id})).await;
        reply.result().clone()
    }

    /// Polls `tasks/get` until the task reaches `status` (or a terminal one).
    pub(crate) async fn wait_for(&mut self, task_id: &str, status: &str) -> Value {
        let deadline = tokio::time::Instant::now() + STUCK;
        loop {
            let task = self.get(task_id).await;
            let now = task["status"].as_str().unwrap_or_default();
            if now == status || ["completed", "failed", "cancelled"].contains(&now) {
                return task;
            }
            assert!(tokio::time::Instant::now() < deadline, "task {task_id} stuck at {task}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Opens a `subscriptions/listen` stream following `task_ids`; its
    /// messages (the acknowledgement first) come from [`next_event`](Self::next_event).
    pub(crate) async fn listen(&mut self, task_ids: &[&str]) {
        let (message, _) = self.message("subscriptions/listen", json!({"notifications": {"taskIds": task_ids}}));
        match &mut self.conn {
            Conn::Http { addr, .. } => {
                let (sender, receiver) = mpsc::unbounded_channel();
                let request = build(*addr, &message, &standard_headers(&message));
                let stream = TcpStream::connect(*addr).await.expect("the server accepts");
                let (mut send, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("a handshake");
                tokio::spawn(connection);
                let response = send.send_request(request).await.expect("a response");
                let mut body = response.into_body();
                tokio::spawn(async move {
                    let _connection = send;
                    let mut text = String::new();
                    while let Some(Ok(frame)) = body.frame().await {
                        let Ok(data) = frame.into_data() else { continue };
                        text.push_str(std::str::from_utf8(&data).expect("UTF-8 events"));
                        while let Some(end) = text.find("\n\n") {
                            let event: String = text.drain(..end + 2).collect();
                            for line in event.lines().filter_map(|l| l.strip_prefix("data:")) {
                                let _ = sender.send(serde_json::from_str(line.trim()).expect("JSON events"));
                            }
                        }
                    }
                });
                self.events = Some(receiver);
            }
            Conn::Stdio { writer, .. } => {
                writer.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
            }
        }
    }

    /// The next message of the listen stream, checked.
    pub(crate) async fn next_event(&mut self) -> Value {
        let event = match &mut self.conn {
            Conn::Http { .. } => {
                let events = self.events.as_mut().expect("a listen stream is open");
                tokio::time::timeout(STUCK, events.recv()).await.expect("an event in time").expect("the stream is open")
            }
            Conn::Stdio { lines, stash, .. } => match stash.pop_front() {
                Some(line) => line,
                None => next_line(lines).await,
            },
        };
        assert_valid_task_message("subscriptions/listen", &event);
        event
    }

    /// Stops the server (HTTP) or closes its input (stdio).
    pub(crate) async fn close(mut self) {
        match &mut self.conn {
            Conn::Http { stop, .. } => {
                if let Some(stop) = stop.take() {
                    let _ = stop.send(());
                }
            }
            Conn::Stdio { writer, .. } => {
                let _ = writer.shutdown().await;
            }
        }
    }
}

async fn next_line(lines: &mut Lines<BufReader<DuplexStream>>) -> Value {
    let line = tokio::time::timeout(STUCK, lines.next_line())
        .await
        .expect("the server wrote nothing for a long time")
        .expect("UTF-8 output")
        .expect("the server's output is open");
    serde_json::from_str(&line).expect("a JSON line")
}

/// The headers a 2026-07-28 client sends with `message`.
fn standard_headers(message: &Value) -> Vec<(String, Option<String>)> {
    let params = &message["params"];
    let name = ["name", "uri", "taskId"].iter().find_map(|k| params[*k].as_str());
    let mut headers = vec![
        ("content-type".to_owned(), Some("application/json".to_owned())),
        ("accept".to_owned(), Some("application/json, text/event-stream".to_owned())),
        ("mcp-protocol-version".to_owned(), Some("2026-07-28".to_owned())),
        ("mcp-method".to_owned(), message["method"].as_str().map(str::to_owned)),
    ];
    if let Some(name) = name {
        headers.push(("mcp-name".to_owned(), Some(name.to_owned())));
    }
    headers
}

fn build(addr: SocketAddr, message: &Value, headers: &[(String, Option<String>)]) -> Request<Full<Bytes>> {
    let mut builder = Request::builder().method("POST").uri("/mcp").header("host", addr.to_string());
    for (name, value) in headers {
        if let Some(value) = value {
            builder = builder.header(name.as_str(), value.as_str());
        }
    }
    builder.body(Full::new(Bytes::from(message.to_string()))).expect("a valid request")
}

/// One POST on a fresh connection: the status and the JSON body.
async fn post(addr: SocketAddr, message: &Value, headers: &[(String, Option<String>)]) -> (u16, Value) {
    let request = build(addr, message, headers);
    let exchange = async {
        let stream = TcpStream::connect(addr).await.expect("the server accepts");
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("an HTTP/1.1 handshake");
        let driver = tokio::spawn(connection);
        let response = sender.send_request(request).await.expect("a response");
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.expect("the whole body").to_bytes();
        driver.abort();
        (status, serde_json::from_slice(&body).expect("a JSON body"))
    };
    tokio::time::timeout(STUCK, exchange).await.expect("an answer in time")
}
