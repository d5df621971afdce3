//! A 2025-era client over stdio on an in-memory pipe: `initialize`, then
//! requests and their answers line by line, each answer checked against the
//! 2025-11-25 schema.

use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::transport::stdio::StdioConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::session_schema::assert_valid_session;

/// One session with a server served on a pipe.
pub struct Session {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Session {
    /// `initialize` (2025-11-25, declaring `capabilities`) and
    /// `notifications/initialized`; the `initialize` response too.
    pub async fn open(server: Server, capabilities: Value) -> (Session, Value) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, their_write) = tokio::io::split(theirs);
        tokio::spawn(server.serve_io(their_read, their_write, StdioConfig::default()));
        let (read, writer) = tokio::io::split(ours);
        let mut session = Session { writer, lines: BufReader::new(read).lines() };
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                            "clientInfo": {"name": "host", "version": "1"}});
        let initialized = session.request(0, "initialize", params).await;
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        (session, initialized)
    }

    /// Writes one message.
    pub async fn send(&mut self, message: Value) {
        self.writer.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        self.writer.flush().await.expect("the server reads");
    }

    /// The next message the server writes.
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line()).await.expect("a message");
        serde_json::from_str(&line.expect("readable").expect("a line")).expect("JSON")
    }

    /// Sends request `id` and returns its answer, checked against the schema.
    pub async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("an answer to {id} ({method})"));
        let message: Value = serde_json::from_str(&line.expect("readable").expect("a line")).expect("JSON");
        assert_valid_session(method, &message);
        assert_eq!(message["id"], id, "{message}");
        message
    }
}
