//! 2025-era clients over stdio: `initialize` makes the process a session
//! whose requests are served by the same handlers as stateless ones, with
//! the session's log level, subscriptions and requests to the client. Every
//! line the server writes on the session is checked against the official
//! 2025-11-25 JSON Schema; the stateless requests sharing the process
//! against the 2026-07-28 one.

use std::collections::HashMap;
use std::time::Duration;

use mcp_runtime::input::Elicitation;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{
    CancellationToken, Input, Server, ServerBuilder,
    extract::{Logger, Progress},
    prompt, prompts, resource, resources,
    server::Eras,
    tool, tools,
};
use mcp_tests::session_schema::assert_valid_session;
use mcp_tests::wire_schema::{assert_valid_line, request_meta};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};
use tokio::sync::Notify;

/// How long to wait for a line before calling the server stuck: a guard
/// against hanging, not a measure of speed.
const STUCK: Duration = Duration::from_secs(30);

/// Echoes its text.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Asks for the user's name, then greets them.
#[tool]
async fn greet(input: Input) -> String {
    let answer = input.elicit("who", Elicitation::form("What is your name?").text("name", true)).await;
    format!("Hello, {}!", answer.field("name").unwrap_or_else(|| "stranger".into()))
}

/// Reports progress twice, logs at two levels, then finishes.
#[tool]
async fn work(progress: Progress, log: Logger) -> &'static str {
    progress.report(1.0, Some(2.0));
    log.debug("a detail");
    log.warning("a warning");
    progress.report(2.0, Some(2.0));
    "done"
}

/// Raised by `wait` once its handler runs, then once its token fires. Only
/// `a_cancelled_request_gets_no_answer` calls it, so statics are its own.
static WAITING: Notify = Notify::const_new();
static HEARD_CANCEL: Notify = Notify::const_new();

/// Waits until cancelled, then answers: an answer the server must not send.
#[tool]
async fn wait(cancel: CancellationToken) -> &'static str {
    WAITING.notify_one();
    cancel.cancelled().await;
    HEARD_CANCEL.notify_one();
    "heard the cancellation"
}

/// A note.
#[resource("notes://first", mime_type = "text/plain")]
fn first_note() -> &'static str {
    "remember"
}

/// Says hello.
#[prompt]
fn hello() -> &'static str {
    "Say hello."
}

fn builder() -> ServerBuilder {
    Server::builder("session-stdio", "1.0.0")
        .tools(tools![echo, greet, work, wait])
        .resources(resources![first_note])
        .prompts(prompts![hello])
}

/// The client end of one stdio connection, checking every line it reads:
/// against the 2025-11-25 schema once a session exists, except answers to
/// requests that carried the 2026-07-28 `_meta`.
struct Client {
    writer: Option<WriteHalf<DuplexStream>>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    /// Method of each request sent, by id, and whether it was stateless.
    sent: HashMap<String, (String, bool)>,
    /// Requests from the server and notifications, in order.
    pushed: Vec<Value>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Client {
    fn start(server: Server) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, their_write) = tokio::io::split(theirs);
        let server = tokio::spawn(server.serve_io(their_read, their_write, StdioConfig::default()));
        let (read, write) = tokio::io::split(ours);
        Client {
            writer: Some(write),
            lines: BufReader::new(read).lines(),
            sent: HashMap::new(),
            pushed: Vec::new(),
            server,
        }
    }

    async fn send(&mut self, message: Value) {
        if let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) {
            let stateless = message["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some();
            self.sent.insert(id.to_string(), (method.to_owned(), stateless));
        }
        let writer = self.writer.as_mut().expect("input is open");
        writer.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        writer.flush().await.expect("the server reads");
    }

    /// The next line, checked.
    async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(STUCK, self.lines.next_line()).await.expect("the server is stuck").ok()??;
        let message: Value = serde_json::from_str(&line).expect("a line is JSON");
        let sent =
            message.get("id").filter(|_| message.get("method").is_none()).and_then(|id| self.sent.get(&id.to_string()));
        match sent {
            Some((method, true)) => {
                assert_valid_line(method, &line);
            }
            Some((method, false)) => assert_valid_session(method, &message),
            None => assert_valid_session("", &message),
        }
        Some(message)
    }

    /// Reads until the answer to `id`, keeping what came before it.
    async fn answer(&mut self, id: i64) -> Value {
        loop {
            let message = self.next().await.expect("the server answers");
            if message.get("method").is_none() && message["id"] == id {
                return message;
            }
            self.pushed.push(message);
        }
    }

    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        self.answer(id).await
    }

    async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let params = json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}});
        let answer = self.request(0, "initialize", params).await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        answer
    }

    /// Ends the input (a half of a split duplex ends it only when shut down).
    async fn end_input(&mut self) {
        if let Some(mut writer) = self.writer.take() {
            writer.shutdown().await.expect("the input closes");
        }
    }

    /// Ends the input; the server must then return.
    async fn close(mut self) {
        self.end_input().await;
        while self.next().await.is_some() {}
        self.server.await.expect("the server task ends").expect("the server ends cleanly");
    }
}

#[tokio::test]
async fn initialize_echoes_a_served_version_and_counters_any_other() {
    for (asked, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let mut client = Client::start(builder().build().unwrap());
        let answer = client.initialize(asked, json!({})).await;
        let result = &answer["result"];
        assert_eq!(result["protocolVersion"], answered, "asked for {asked}");
        assert_eq!(result["serverInfo"]["name"], "session-stdio");
        assert!(result["capabilities"]["tools"].is_object() && result["capabilities"].get("extensions").is_none());
        client.close().await;
    }
}

#[tokio::test]
async fn initialize_with_a_version_that_is_no_string_is_invalid_params() {
    for version in [json!(20251125), Value::Null, json!({"version": "2025-11-25"}), json!(["2025-11-25"])] {
        let server = builder().build().unwrap();
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, their_write) = tokio::io::split(theirs);
        tokio::spawn(server.serve_io(their_read, their_write, StdioConfig::default()));
        let (read, mut write) = tokio::io::split(ours);
        let params =
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params});
        write.write_all(format!("{request}\n").as_bytes()).await.expect("written");
        let line = BufReader::new(read).lines().next_line().await.expect("read").expect("an answer");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        assert_valid_session("initialize", &answer);
        assert_eq!(answer["error"]["code"], -32602, "{version}: {answer}");
        let message = answer["error"]["message"].as_str().expect("a message");
        assert!(message.starts_with("`protocolVersion` must be a string such as \"2025-11-25\""), "{message}");
    }
}

#[tokio::test]
async fn a_session_is_served_by_the_same_handlers_in_the_older_shapes() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({})).await;
    let list = client.request(1, "tools/list", json!({})).await;
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["echo", "greet", "wait", "work"]);
    let call = client.request(2, "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}})).await;
    assert_eq!(call["result"], json!({"content": [{"type": "text", "text": "hi"}]}));
    let read = client.request(3, "resources/read", json!({"uri": "notes://first"})).await;
    assert_eq!(read["result"]["contents"][0]["text"], "remember");
    let prompt = client.request(4, "prompts/get", json!({"name": "hello"})).await;
    assert_eq!(prompt["result"]["messages"][0]["content"]["text"], "Say hello.");
    assert_eq!(client.request(5, "ping", json!({})).await["result"], json!({}));
    client.close().await;
}

#[tokio::test]
async fn a_missing_resource_is_32002_on_a_session_and_32602_without() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({})).await;
    let session = client.request(1, "resources/read", json!({"uri": "notes://none"})).await;
    assert_eq!(session["error"]["code"], -32002);
    assert_eq!(session["error"]["data"]["uri"], "notes://none");
    let stateless = client.request(2, "resources/read", json!({"uri": "notes://none", "_meta": request_meta()})).await;
    assert_eq!(stateless["error"]["code"], -32602);
    client.close().await;
}

#[tokio::test]
async fn both_eras_share_one_process() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({})).await;
    let stateless = client
        .request(1, "tools/call", json!({"name": "echo", "arguments": {"text": "new"}, "_meta": request_meta()}))
        .await;
    assert_eq!(stateless["result"]["resultType"], "complete");
    let session = client.request(2, "tools/call", json!({"name": "echo", "arguments": {"text": "old"}})).await;
    assert!(session["result"].get("resultType").is_none());
    let discover = client.request(3, "server/discover", json!({"_meta": request_meta()})).await;
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    client.close().await;
}

#[tokio::test]
async fn elicitation_is_a_request_to_the_client_answered_on_the_same_line() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({"elicitation": {}})).await;
    client.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}})).await;
    let ask = client.next().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    assert!(ask["params"].get("mode").is_none(), "a 2025-era form elicitation has no mode: {ask}");
    assert_eq!(ask["params"]["requestedSchema"]["required"], json!(["name"]));
    client
        .send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let answer = client.answer(1).await;
    assert_eq!(answer["result"]["content"][0]["text"], "Hello, Ada!");
    client.close().await;
}

#[tokio::test]
async fn without_the_capability_the_client_is_not_asked() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({})).await;
    // Not -32021, which this era does not have: a tool error the model reads.
    let answer = client.request(1, "tools/call", json!({"name": "greet"})).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer["result"]["content"][0]["text"].as_str().unwrap().contains("did not declare"), "{answer}");
    assert!(client.pushed.iter().all(|m| m["method"] != "elicitation/create"), "{:?}", client.pushed);
    client.close().await;
}

#[tokio::test]
async fn the_session_log_level_filters_and_progress_reaches_the_client() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({})).await;
    let quiet = client.request(1, "tools/call", json!({"name": "work", "_meta": {"progressToken": "p"}})).await;
    assert_eq!(quiet["result"]["content"][0]["text"], "done");
    let progress: Vec<f64> = client
        .pushed
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0]);
    assert!(client.pushed.iter().all(|m| m["method"] != "notifications/message"), "no level set, no logs");
    client.pushed.clear();

    assert_eq!(client.request(2, "logging/setLevel", json!({"level": "warning"})).await["result"], json!({}));
    client.request(3, "tools/call", json!({"name": "work"})).await;
    let levels: Vec<&str> = client
        .pushed
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"]["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["warning"]);
    let bad = client.request(4, "logging/setLevel", json!({"level": "loud"})).await;
    assert_eq!(bad["error"]["code"], -32602);
    client.close().await;
}

/// A subscribed URI is repeated in `notifications/resources/updated`
/// (`format: uri`): a subscription to what is not a URI is refused.
#[tokio::test]
async fn a_subscription_to_what_is_not_a_uri_is_invalid_params() {
    let server = builder().build().unwrap();
    let mut client = Client::start(server);
    client.initialize("2025-11-25", json!({})).await;
    let refused = client.request(1, "resources/subscribe", json!({"uri": "notes://first[0]"})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let accepted = client.request(2, "resources/subscribe", json!({"uri": "notes://first"})).await;
    assert_eq!(accepted["result"], json!({}));
    client.close().await;
}

#[tokio::test]
async fn a_session_that_falls_behind_the_bus_is_told_of_its_subscriptions_too() {
    let server = builder().event_bus(mcp_runtime::events::LocalBus::new(4)).build().unwrap();
    let mut client = Client::start(server.clone());
    client.initialize("2025-11-25", json!({})).await;
    assert_eq!(client.request(1, "resources/subscribe", json!({"uri": "notes://first"})).await["result"], json!({}));
    // One change it follows, then more than the bus keeps, all before the
    // session's watcher runs again (one thread): the first is lost in the lag.
    server.notify_resource_updated("notes://first");
    for _ in 0..100 {
        server.notify_resource_updated("notes://other");
    }
    client.request(2, "ping", json!({})).await;
    while !client.pushed.iter().any(|m| m["method"] == "notifications/resources/updated") {
        let message = client.next().await.unwrap();
        client.pushed.push(message);
    }
    let updated: Vec<&Value> =
        client.pushed.iter().filter(|m| m["method"] == "notifications/resources/updated").collect();
    assert_eq!(updated[0]["params"]["uri"], "notes://first", "{:?}", client.pushed);
    client.close().await;
}

#[tokio::test]
async fn changes_reach_the_session_and_updates_only_subscribers() {
    let server = builder().build().unwrap();
    let mut client = Client::start(server.clone());
    client.initialize("2025-11-25", json!({})).await;
    assert_eq!(client.request(1, "resources/subscribe", json!({"uri": "notes://first"})).await["result"], json!({}));
    server.notify_resource_updated("notes://other");
    server.notify_resource_updated("notes://first");
    server.remove_tool("wait");
    client.request(2, "ping", json!({})).await;
    // The changes travel through the event bus; wait until both arrived.
    while client.pushed.len() < 2 {
        let message = client.next().await.unwrap();
        client.pushed.push(message);
    }
    let methods: Vec<&str> = client.pushed.iter().map(|m| m["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["notifications/resources/updated", "notifications/tools/list_changed"]);
    assert_eq!(client.pushed[0]["params"]["uri"], "notes://first");
    assert_eq!(client.request(3, "resources/unsubscribe", json!({"uri": "notes://first"})).await["result"], json!({}));
    client.close().await;
}

#[tokio::test]
async fn a_cancelled_request_gets_no_answer() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({})).await;
    client.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait"}})).await;
    // Cancelled once its handler runs, so that the handler can hear it.
    tokio::time::timeout(STUCK, WAITING.notified()).await.expect("the handler of request 1 runs");
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})).await;
    tokio::time::timeout(STUCK, HEARD_CANCEL.notified())
        .await
        .expect("the cancelled handler's token fires while the session is open");
    // The handler answered at once; the session goes on without sending it.
    let next = client.request(2, "ping", json!({})).await;
    assert_eq!(next["result"], json!({}));
    assert!(client.pushed.is_empty(), "the cancelled request was answered: {:?}", client.pushed);
    client.end_input().await;
    while let Some(message) = client.next().await {
        assert_ne!(message["id"], 1, "the cancelled request was answered: {message}");
    }
    client.server.await.expect("the server task ends").expect("the server ends cleanly");
}

#[tokio::test]
async fn initialize_twice_is_refused() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-11-25", json!({})).await;
    let again = client
        .request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(again["error"]["code"], -32600);
    client.close().await;
}

#[tokio::test]
async fn batches_only_for_the_oldest_version() {
    let mut client = Client::start(builder().build().unwrap());
    client.initialize("2025-03-26", json!({})).await;
    client.sent.insert("1".into(), ("ping".into(), false));
    client.sent.insert("2".into(), ("tools/list".into(), false));
    let batch =
        json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]);
    let writer = client.writer.as_mut().unwrap();
    writer.write_all(format!("{batch}\n").as_bytes()).await.unwrap();
    let line = tokio::time::timeout(STUCK, client.lines.next_line()).await.unwrap().unwrap().unwrap();
    let answers: Vec<Value> = serde_json::from_str(&line).unwrap();
    assert_eq!(answers.len(), 2);
    assert_valid_session("ping", &answers[0]);
    assert_valid_session("tools/list", &answers[1]);
    client.close().await;

    let mut newer = Client::start(builder().build().unwrap());
    newer.initialize("2025-11-25", json!({})).await;
    newer.writer.as_mut().unwrap().write_all(format!("{batch}\n").as_bytes()).await.unwrap();
    let refusal = newer.next().await.unwrap();
    assert_eq!(refusal["error"]["code"], -32600);
    newer.close().await;
}

#[tokio::test]
async fn before_initialize_only_ping_is_answered_and_errors_name_the_versions() {
    let mut client = Client::start(builder().build().unwrap());
    assert_eq!(client.request(1, "ping", json!({})).await["result"], json!({}));
    // Checked against the 2026-07-28 schema: without a session the
    // stateless path answers.
    client.sent.insert("2".into(), ("tools/list".into(), true));
    client.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})).await;
    let refusal = client.answer(2).await;
    assert_eq!(refusal["error"]["code"], -32602);
    assert!(refusal["error"]["message"].as_str().unwrap().contains("`initialize`"), "{refusal}");
    assert_eq!(refusal["error"]["data"]["supported"][1], "2025-11-25");
    client.close().await;
}

#[tokio::test]
async fn a_stateless_only_server_keeps_no_session_and_says_why() {
    let mut client = Client::start(builder().eras(Eras::Stateless).build().unwrap());
    client.sent.insert("0".into(), ("initialize".into(), true));
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    client.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})).await;
    let refusal = client.answer(0).await;
    assert_eq!(refusal["error"]["code"], -32602);
    assert_eq!(refusal["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert!(refusal["error"]["message"].as_str().unwrap().contains("does not serve `initialize`"), "{refusal}");
    client.close().await;
}

#[tokio::test]
async fn a_session_only_server_refuses_the_stateless_revision() {
    let mut client = Client::start(builder().eras(Eras::Session).build().unwrap());
    client.sent.insert("1".into(), ("server/discover".into(), true));
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": request_meta()}}))
        .await;
    assert_eq!(client.answer(1).await["error"]["code"], -32601);
    client.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": request_meta()}})).await;
    let refusal = client.answer(2).await;
    assert_eq!(refusal["error"]["code"], -32022);
    assert_eq!(refusal["error"]["data"]["supported"], json!(["2025-11-25", "2025-06-18", "2025-03-26"]));
    client.initialize("2025-11-25", json!({})).await;
    assert!(client.request(3, "tools/list", json!({})).await["result"]["tools"].is_array());
    client.close().await;
}

#[tokio::test]
async fn the_end_of_input_ends_the_session_and_cancels_what_runs_in_it() {
    let heard = std::sync::Arc::new(Notify::new());
    let told = std::sync::Arc::clone(&heard);
    let server = Server::builder("ending", "1.0.0")
        .tool(mcp_runtime::entry::ToolEntry::new("linger", move |cancel: CancellationToken| {
            let told = std::sync::Arc::clone(&told);
            async move {
                cancel.cancelled().await;
                told.notify_one();
                "cancelled"
            }
        }))
        .build()
        .expect("a server");
    let (mut session, _) = mcp_tests::stdio_session::Session::open(server, json!({})).await;
    session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "linger"}})).await;
    // Once the request runs (a ping behind it is answered), the input ends.
    let pong = session.request(2, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    drop(session);
    tokio::time::timeout(Duration::from_secs(10), heard.notified()).await.expect("the handler's token fired");
}
