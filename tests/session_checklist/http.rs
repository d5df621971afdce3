//! A 2025-era client of the tower service: one session, its POSTs, GETs and
//! DELETEs, and a reader of server-sent events that parses each event's
//! fields (`id:`, `retry:`, `data:`, comments). Every JSON-RPC message the
//! session receives, in a JSON body or an event's data, is checked against
//! the 2025-11-25 schema, an answer against the result type of its method.

use std::collections::HashMap;
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use http::{Method, StatusCode};
use http_body::Body as _;
use mcp_runtime::transport::http::{McpBody, McpService};
use mcp_tests::session_schema::assert_valid_session;
use serde_json::{Value, json};

use crate::fixture::STUCK;

/// The method of each request a session sent, by id: what an answer is
/// checked against.
#[derive(Clone, Default)]
pub(crate) struct Checker(Arc<Mutex<HashMap<String, String>>>);

impl Checker {
    fn record(&self, message: &Value) {
        let items = match message {
            Value::Array(items) => items.as_slice(),
            single => std::slice::from_ref(single),
        };
        let mut sent = self.0.lock().expect("not poisoned");
        for item in items {
            if let (Some(id), Some(method)) = (item.get("id"), item["method"].as_str()) {
                sent.insert(id.to_string(), method.to_owned());
            }
        }
    }

    #[track_caller]
    pub(crate) fn check(&self, message: &Value) {
        let answered = message.get("id").filter(|_| message.get("method").is_none());
        let sent = self.0.lock().expect("not poisoned");
        let method = answered.and_then(|id| sent.get(&id.to_string())).map_or("", String::as_str);
        assert_valid_session(method, message);
    }
}

/// A POST to the endpoint with the headers every client sends.
pub(crate) fn post(body: &Value) -> http::Request<String> {
    http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .expect("a request")
}

/// Sets a header of a request, replacing any value it had.
pub(crate) fn with(mut request: http::Request<String>, name: &'static str, value: &str) -> http::Request<String> {
    request.headers_mut().insert(name, value.parse().expect("a header value"));
    request
}

pub(crate) fn initialize_message(version: &str, capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "checklist-client", "version": "1.0.0"},
    }})
}

pub(crate) async fn send(service: &McpService, request: http::Request<String>) -> Reply {
    let response = service.handle(request).await.unwrap_or_else(|never| match never {});
    let (parts, body) = response.into_parts();
    Reply { status: parts.status, headers: parts.headers, body, buffer: String::new(), checker: None }
}

/// One session of a service.
pub(crate) struct HttpSession {
    pub(crate) service: McpService,
    pub(crate) id: String,
    /// The version negotiated, sent in `MCP-Protocol-Version`.
    pub(crate) version: String,
    pub(crate) checker: Checker,
}

impl HttpSession {
    /// `initialize`, then `notifications/initialized`.
    pub(crate) async fn open(service: &McpService, version: &str, capabilities: Value) -> Self {
        let session = Self::initialize(service, version, capabilities).await.0;
        let initialized = session.notify("notifications/initialized", json!({})).await;
        assert_eq!(initialized.status, StatusCode::ACCEPTED);
        session
    }

    /// `initialize` alone; the session and the result.
    pub(crate) async fn initialize(service: &McpService, version: &str, capabilities: Value) -> (Self, Value) {
        let checker = Checker::default();
        let message = initialize_message(version, capabilities);
        checker.record(&message);
        let mut reply = send(service, post(&message)).await;
        reply.checker = Some(checker.clone());
        assert_eq!(reply.status, StatusCode::OK);
        let id = reply.headers["mcp-session-id"].to_str().expect("a visible ASCII session id").to_owned();
        let answer = reply.json().await;
        let version = answer["result"]["protocolVersion"].as_str().expect("a negotiated version").to_owned();
        (HttpSession { service: service.clone(), id, version, checker }, answer["result"].clone())
    }

    /// A POST of `message` with this session's headers, not yet sent.
    pub(crate) fn request_for(&self, message: &Value) -> http::Request<String> {
        let request = with(post(message), "mcp-session-id", &self.id);
        with(request, "mcp-protocol-version", &self.version)
    }

    /// Sends a request of this session, its messages then checked.
    pub(crate) async fn send(&self, request: http::Request<String>) -> Reply {
        if let Ok(body) = serde_json::from_str::<Value>(request.body()) {
            self.checker.record(&body);
        }
        let mut reply = send(&self.service, request).await;
        reply.checker = Some(self.checker.clone());
        reply
    }

    pub(crate) async fn post(&self, message: &Value) -> Reply {
        self.send(self.request_for(message)).await
    }

    pub(crate) async fn notify(&self, method: &str, params: Value) -> Reply {
        self.post(&json!({"jsonrpc": "2.0", "method": method, "params": params})).await
    }

    /// A request; every message before its answer, and the answer. On an
    /// event stream the answer must be the last event, the stream ending
    /// after it.
    pub(crate) async fn exchange(&self, id: i64, method: &str, params: Value) -> (Vec<Value>, Value) {
        let reply = self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        assert_eq!(reply.status, StatusCode::OK, "{method}");
        if reply.content_type() == "application/json" {
            return (Vec::new(), reply.json().await);
        }
        let mut messages: Vec<Value> = reply.all_events().await.into_iter().filter_map(|e| e.message).collect();
        let answer = messages.pop().expect("the stream carries the answer");
        assert!(answer.get("method").is_none() && answer["id"] == id, "the last event is the answer: {answer}");
        (messages, answer)
    }

    /// A GET or DELETE naming this session.
    pub(crate) fn bare(&self, method: Method) -> http::Request<String> {
        http::Request::builder()
            .method(method)
            .uri("/mcp")
            .header("host", "localhost")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", &self.version)
            .body(String::new())
            .expect("a request")
    }

    /// The session's standalone stream.
    pub(crate) async fn listen(&self) -> Reply {
        let reply = self.send(self.bare(Method::GET)).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.content_type(), "text/event-stream");
        reply
    }
}

/// One event of a stream, its fields parsed.
#[derive(Debug, Default)]
pub(crate) struct Event {
    pub(crate) id: Option<String>,
    pub(crate) retry: Option<u64>,
    pub(crate) data: Option<String>,
    /// The data read as a JSON-RPC message, when there is any.
    pub(crate) message: Option<Value>,
}

impl Event {
    fn parse(block: &str) -> Option<Event> {
        let mut event = Event::default();
        let mut seen = false;
        for line in block.lines() {
            if line.is_empty() || line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            seen = true;
            match field {
                "id" => event.id = Some(value.to_owned()),
                "retry" => event.retry = Some(value.parse().expect("`retry:` is a number of milliseconds")),
                "data" => match &mut event.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => event.data = Some(value.to_owned()),
                },
                other => panic!("an unknown event field `{other}`: {block}"),
            }
        }
        seen.then_some(event)
    }
}

/// A response, its body read as it comes.
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: http::HeaderMap,
    body: McpBody,
    buffer: String,
    /// Set for a session's replies, whose messages are checked.
    checker: Option<Checker>,
}

impl Reply {
    pub(crate) fn content_type(&self) -> &str {
        self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// The next piece of the body; `None` at its end.
    async fn chunk(&mut self) -> Option<String> {
        let frame = poll_fn(|cx| Pin::new(&mut self.body).poll_frame(cx)).await?;
        let data = frame.unwrap_or_else(|never| match never {}).into_data().ok()?;
        Some(String::from_utf8(data.to_vec()).expect("a UTF-8 body"))
    }

    /// The whole body, as text.
    pub(crate) async fn text(mut self) -> String {
        let mut all = std::mem::take(&mut self.buffer);
        let read = async {
            while let Some(chunk) = self.chunk().await {
                all.push_str(&chunk);
            }
        };
        tokio::time::timeout(STUCK, read).await.expect("the body ends");
        all
    }

    /// The body as one JSON document (a message, or a batch's answers), checked.
    pub(crate) async fn json(self) -> Value {
        assert_eq!(self.content_type(), "application/json");
        let checker = self.checker.clone();
        let text = self.text().await;
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("a JSON body ({e}): {text}"));
        if let Some(checker) = checker {
            match &value {
                Value::Array(items) => items.iter().for_each(|item| checker.check(item)),
                single => checker.check(single),
            }
        }
        value
    }

    /// The next event (keep-alive comments skipped), its message checked;
    /// `None` when the stream ended. Keep-alives alone do not count as
    /// the stream moving on.
    pub(crate) async fn next_event(&mut self) -> Option<Event> {
        assert_eq!(self.content_type(), "text/event-stream");
        tokio::time::timeout(STUCK, self.read_event()).await.expect("the stream moves on")
    }

    async fn read_event(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let Some(mut event) = Event::parse(&block) else { continue };
                let data = event.data.as_deref().filter(|d| !d.trim().is_empty());
                if let Some(data) = data {
                    let message: Value = serde_json::from_str(data).expect("an event's data is JSON");
                    if let Some(checker) = &self.checker {
                        checker.check(&message);
                    }
                    event.message = Some(message);
                }
                return Some(event);
            }
            let chunk = self.chunk().await;
            match chunk {
                Some(chunk) => self.buffer.push_str(&chunk),
                None => {
                    assert!(self.buffer.trim().is_empty(), "the stream ended inside an event: {:?}", self.buffer);
                    return None;
                }
            }
        }
    }

    /// The next event carrying a message (priming events skipped).
    pub(crate) async fn next_message(&mut self) -> Option<Value> {
        loop {
            if let Some(message) = self.next_event().await?.message {
                return Some(message);
            }
        }
    }

    /// Every event until the stream ends.
    pub(crate) async fn all_events(mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next_event().await {
            events.push(event);
        }
        events
    }
}
