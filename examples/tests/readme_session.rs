//! The README's session with the `notes` server, run for real: the binary
//! serves HTTP on a free loopback port with a fresh database, the request
//! is the one the README's `curl` line sends (its URL path, headers and
//! body), and the answer must equal the README's JSON block. README.md is
//! read at test time, so a README that drifts from the server fails here.
//! The session then deletes the note, confirming through elicitation as the
//! README describes. Every answer is checked against the official schema.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use mcp_tests::wire_schema::assert_valid_line;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// How long the server may take to start or answer before the test calls
/// it stuck.
const STUCK: Duration = Duration::from_secs(30);

/// The README's session: the `curl` request and the JSON it answers with.
struct Session {
    path: String,
    headers: Vec<(String, String)>,
    body: String,
    answer: Value,
}

/// The text between `open` and the next `close` after it.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)?;
    Some(&text[start..start + end])
}

fn readme_session() -> Session {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let section = between(&readme, "## A session with the notes server", "\n## ")
        .expect("the README has a section `A session with the notes server`");
    let curl = between(section, "```sh\n", "\n```").expect("a ```sh block with the curl request");
    let answer = between(section, "```json\n", "\n```").expect("a ```json block with the answer");
    let url = curl.split_whitespace().find(|word| word.starts_with("http://")).expect("a URL in the curl line");
    let path = url.trim_start_matches("http://").split_once('/').map(|(_, p)| format!("/{p}")).expect("a path");
    let mut headers = Vec::new();
    let mut rest = curl;
    while let Some(at) = rest.find("-H '") {
        let header = between(&rest[at..], "-H '", "'").expect("a closed header");
        let (name, value) = header.split_once(": ").expect("`Name: value`");
        headers.push((name.to_owned(), value.to_owned()));
        rest = &rest[at + 4 + header.len()..];
    }
    let body = between(curl, "-d '", "'").expect("a -d body").to_owned();
    let answer = serde_json::from_str(answer).unwrap_or_else(|e| panic!("the README's answer is not JSON ({e})"));
    Session { path, headers, body, answer }
}

/// The `notes` binary serving HTTP on a free loopback port, with its
/// database in a directory of its own; both go away with it.
struct Notes {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Notes {
    async fn start() -> Notes {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        let dir = std::env::temp_dir().join(format!("notes-readme-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        // Port 0: the system picks a free one, which the server logs (the
        // runtime's INFO line) and the helper reads back.
        let mut command = Command::new(env!("CARGO_BIN_EXE_notes"));
        command
            .args(["--http", "127.0.0.1:0", "--db"])
            .arg(dir.join("notes.db"))
            .env("RUST_LOG", "warn,mcp_runtime=info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let served = mcp_tests::process::serve(command).await;
        Notes { child: served.child, port: served.addr.port(), dir }
    }

    /// POSTs `body` to `path` with `headers` and returns the status and the
    /// body of the answer.
    async fn post(&self, path: &str, headers: &[(String, String)], body: String) -> (u16, String) {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).await.expect("the server accepts");
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("an HTTP/1.1 handshake");
        let driver = tokio::spawn(connection);
        let mut request = Request::post(path).header("host", format!("127.0.0.1:{}", self.port));
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request.body(Full::new(Bytes::from(body))).expect("a valid request");
        let response = tokio::time::timeout(STUCK, sender.send_request(request)).await.expect("in time").expect("sent");
        let status = response.status().as_u16();
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = response.into_body().collect().await.expect("the whole body").to_bytes();
        driver.abort();
        assert_eq!(content_type.as_deref(), Some("application/json"), "status {status}: {body:?}");
        (status, String::from_utf8(body.to_vec()).expect("a UTF-8 body"))
    }

    /// A `tools/call` of `tool` as a client that can answer form
    /// elicitations, checked against the schema.
    async fn call(&self, id: i64, tool: &str, more: Value) -> Value {
        let mut params = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
            },
            "name": tool,
        });
        for (key, value) in more.as_object().expect("params members") {
            params[key] = value.clone();
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let headers = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ]
        .map(|(n, v)| (n.to_owned(), v.to_owned()));
        let (status, body) = self.post("/mcp", &headers, message.to_string()).await;
        assert_eq!(status, 200, "{body}");
        assert_valid_line("tools/call", &body)
    }
}

impl Drop for Notes {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test]
async fn the_readme_session_runs_as_written() {
    let session = readme_session();
    let notes = Notes::start().await;

    // The README's request, byte for byte, and its answer.
    let (status, body) = notes.post(&session.path, &session.headers, session.body.clone()).await;
    assert_eq!(status, 200, "{body}");
    let answer = assert_valid_line("tools/call", &body);
    assert_eq!(answer, session.answer, "the server's answer differs from the README's");

    // Deleting it asks for confirmation, since this client can elicit...
    let id = session.answer["result"]["structuredContent"]["id"].clone();
    let title = session.answer["result"]["structuredContent"]["title"].as_str().expect("a title").to_owned();
    let asked = notes.call(2, "delete_note", json!({"arguments": {"id": id}})).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let question = &result["inputRequests"]["confirm"];
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["params"]["message"], format!("Delete note {id}, \"{title}\"?"));
    let state = result["requestState"].as_str().expect("a sealed state").to_owned();

    // ...and the confirmed retry deletes it.
    let confirm = json!({"confirm": {"action": "accept", "content": {"delete": true}}});
    let retry = json!({"arguments": {"id": id}, "inputResponses": confirm, "requestState": state});
    let done = notes.call(3, "delete_note", retry).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], format!("Note {id} was deleted."));
    let again = notes.call(4, "delete_note", json!({"arguments": {"id": id}})).await;
    assert_eq!(again["result"]["content"][0]["text"], format!("There is no note {id}."), "{again}");
}
