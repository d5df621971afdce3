//! A 2025-era client on one in-memory stdio connection. Every line the
//! server writes is checked against the 2025-11-25 schema: an answer
//! against the result type of the method it answers, a batch item by item.

use std::collections::HashMap;
use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_tests::session_schema::assert_valid_session;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

use crate::fixture::STUCK;

pub(crate) struct Stdio {
    writer: Option<WriteHalf<DuplexStream>>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    /// The method of each request written, by id.
    sent: HashMap<String, String>,
    /// How long to wait for a line before calling the server stuck.
    pub(crate) patience: Duration,
    server: JoinHandle<std::io::Result<()>>,
}

impl Stdio {
    pub(crate) fn start(server: Server) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, their_write) = tokio::io::split(theirs);
        let server = tokio::spawn(server.serve_io(their_read, their_write, StdioConfig::default()));
        let (read, write) = tokio::io::split(ours);
        Stdio {
            writer: Some(write),
            lines: BufReader::new(read).lines(),
            sent: HashMap::new(),
            patience: STUCK,
            server,
        }
    }

    /// Starts a server and opens a session on it, `initialized` included.
    pub(crate) async fn open(server: Server, version: &str, capabilities: Value) -> Self {
        let mut client = Stdio::start(server);
        client.initialize(version, capabilities).await;
        client.notify("notifications/initialized", json!({})).await;
        client
    }

    /// Writes one line: a message, or a batch of them.
    pub(crate) async fn write(&mut self, message: &Value) {
        let items = match message {
            Value::Array(items) => items.as_slice(),
            single => std::slice::from_ref(single),
        };
        for item in items {
            if let (Some(id), Some(method)) = (item.get("id"), item["method"].as_str()) {
                self.sent.insert(id.to_string(), method.to_owned());
            }
        }
        let writer = self.writer.as_mut().expect("input is open");
        writer.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        writer.flush().await.expect("the server reads");
    }

    pub(crate) async fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params})).await;
    }

    /// The next line, checked; `None` once the server ended its output.
    pub(crate) async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(self.patience, self.lines.next_line())
            .await
            .expect("the server is stuck")
            .expect("the output is readable")?;
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("a line is JSON ({e}): {line}"));
        match &message {
            Value::Array(items) => items.iter().for_each(|item| self.check(item)),
            single => self.check(single),
        }
        Some(message)
    }

    fn check(&self, message: &Value) {
        let answered = message.get("id").filter(|_| message.get("method").is_none());
        let method = answered.and_then(|id| self.sent.get(&id.to_string())).map_or("", String::as_str);
        assert_valid_session(method, message);
    }

    /// Reads until the answer to `id`: what came before it, and the answer.
    pub(crate) async fn answer(&mut self, id: i64) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let message = self.next().await.expect("the server answers");
            if message.get("method").is_none() && message["id"] == id {
                return (before, message);
            }
            before.push(message);
        }
    }

    /// Sends a request and reads until its answer (see [`answer`](Self::answer)).
    pub(crate) async fn request(&mut self, id: i64, method: &str, params: Value) -> (Vec<Value>, Value) {
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        self.answer(id).await
    }

    /// `initialize` alone (no `initialized` after it); its answer.
    pub(crate) async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let params = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "checklist-client", "version": "1.0.0"},
        });
        self.request(0, "initialize", params).await.1
    }

    /// Ends the input; the server must then write nothing unchecked and
    /// return. What it wrote after the input ended, in order.
    pub(crate) async fn close(mut self) -> Vec<Value> {
        if let Some(mut writer) = self.writer.take() {
            writer.shutdown().await.expect("the input closes");
        }
        let mut rest = Vec::new();
        while let Some(message) = self.next().await {
            rest.push(message);
        }
        let ended = tokio::time::timeout(STUCK, self.server).await.expect("the server returns");
        ended.expect("the server task ends").expect("the server ends cleanly");
        rest
    }
}
