//! A 2025-era session asking for what needs a client capability it did not
//! declare in `initialize`: the client is not asked, and the answer (a tool
//! error, or an internal error outside a tool) names the capability as the
//! client declares it, since the session's error has no
//! `requiredCapabilities` to read. Over stdio, every line checked against
//! the official 2025-11-25 schema.

use std::time::Duration;

use mcp_runtime::input::{Elicitation, Sampling};
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Input, Server, prompt, prompts, tool, tools};
use mcp_tests::session_schema::assert_valid_session;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

/// How long to wait for a line before calling the server stuck.
const STUCK: Duration = Duration::from_secs(30);

/// Asks for a name through a form.
#[tool]
async fn form(input: Input) -> String {
    input.elicit("who", Elicitation::form("Your name?").text("name", true)).await.field("name").unwrap_or_default()
}

/// Sends the user to a page.
#[tool]
async fn url(input: Input) -> String {
    let answer = input.elicit("visit", Elicitation::url("Sign in", "https://example.com/sign-in")).await;
    format!("{:?}", answer.action())
}

/// Asks the client's model.
#[tool]
async fn sample(input: Input) -> String {
    input.sample("q", Sampling::prompt("2+2?", 10)).await.text().unwrap_or_default().to_owned()
}

/// Asks the client's model, offering it a tool and the server's context.
#[tool]
async fn sample_with_tools(input: Input) -> String {
    let request = Sampling::raw(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}}],
        "maxTokens": 50,
        "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
        "includeContext": "thisServer",
    }));
    input.sample("q", request).await.text().unwrap_or_default().to_owned()
}

/// Asks for the client's roots.
#[tool]
async fn roots(input: Input) -> String {
    input.roots("roots").await.len().to_string()
}

/// Asks for a topic, then writes the prompt.
#[prompt]
async fn topic(input: Input) -> String {
    let answer = input.elicit("topic", Elicitation::form("Which topic?").text("topic", true)).await;
    format!("Tell me about {}.", answer.field("topic").unwrap_or_default())
}

/// One client on one session: stdio framing over an in-memory pipe.
struct Session {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Session {
    async fn open(version: &str, capabilities: Value) -> Session {
        let server = Server::builder("session-capabilities", "1.0.0")
            .tools(tools![form, url, sample, sample_with_tools, roots])
            .prompts(prompts![topic])
            .build()
            .expect("a valid server");
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, their_write) = tokio::io::split(theirs);
        tokio::spawn(server.serve_io(their_read, their_write, StdioConfig::default()));
        let (read, writer) = tokio::io::split(ours);
        let mut session = Session { writer, lines: BufReader::new(read).lines() };
        let params = json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}});
        let answer = session.request(0, "initialize", params).await;
        assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        session
    }

    async fn send(&mut self, message: Value) {
        self.writer.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        self.writer.flush().await.expect("the server reads");
    }

    /// The answer to request `id`; the server must ask the client nothing
    /// before it.
    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        let line = tokio::time::timeout(STUCK, self.lines.next_line()).await.expect("the server is stuck");
        let message: Value = serde_json::from_str(&line.expect("readable").expect("a line")).expect("JSON");
        assert_valid_session(method, &message);
        assert_eq!(message["id"], id, "the answer, with nothing asked of the client before it: {message}");
        message
    }

    /// The text of the tool error `name` answers with.
    async fn tool_error(&mut self, name: &str) -> String {
        let answer = self.request(1, "tools/call", json!({"name": name, "arguments": {}})).await;
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        answer["result"]["content"][0]["text"].as_str().expect("a text block").to_owned()
    }
}

fn needs(capability: &str) -> String {
    format!(
        "This request needs the client capability {capability}, which the client did not declare when the session began"
    )
}

#[tokio::test]
async fn a_tool_error_names_the_capability_the_client_did_not_declare() {
    let mut session = Session::open("2025-11-25", json!({})).await;
    assert_eq!(session.tool_error("form").await, needs("`elicitation`"));
    assert_eq!(session.tool_error("url").await, needs("`elicitation.url`"));
    assert_eq!(session.tool_error("sample").await, needs("`sampling`"));
    assert_eq!(session.tool_error("roots").await, needs("`roots`"));
}

#[tokio::test]
async fn what_is_declared_is_not_named_and_the_rest_is() {
    let declared = json!({"elicitation": {"form": {}}, "sampling": {}});
    let mut session = Session::open("2025-11-25", declared).await;
    assert_eq!(session.tool_error("url").await, needs("`elicitation.url`"));
    assert_eq!(
        session.tool_error("sample_with_tools").await,
        "This request needs the client capabilities `sampling.context` and `sampling.tools`, which the client did not \
         declare when the session began"
    );
}

#[tokio::test]
async fn a_revision_without_form_members_is_told_plain_elicitation() {
    // 2025-06-18 declares elicitation as `{}`, form being the only mode.
    let mut session = Session::open("2025-06-18", json!({"sampling": {}})).await;
    assert_eq!(session.tool_error("form").await, needs("`elicitation`"));
}

#[tokio::test]
async fn outside_a_tool_the_internal_error_names_it_too() {
    let mut session = Session::open("2025-11-25", json!({})).await;
    let answer = session.request(2, "prompts/get", json!({"name": "topic"})).await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(answer["error"]["message"], needs("`elicitation`"));
}
