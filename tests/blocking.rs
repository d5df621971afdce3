//! Sync handlers run on tokio's blocking pool: a `#[tool]`, `#[prompt]`,
//! `#[resource]` or completer written as a plain `fn` may block without
//! holding up the other requests of its worker thread.
//!
//! Each test runs on a current-thread runtime, where a sync handler run
//! inline would block the only thread: it waits at a gate that an async
//! handler, called concurrently, opens. On the blocking pool the gate opens;
//! inline, the wait would end only at the gate's safety bound and the
//! handler would answer "never opened" (so a regression fails, never hangs).

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use mcp_runtime::client::Client;
use mcp_runtime::protocol::{CallToolResult, ContentBlock, ResourceBody};
use mcp_runtime::{prompt, resource, tool};
use mcp_tests::validated_client::checked;
use serde_json::json;

/// A gate a sync handler waits at until an async handler opens it.
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    const fn new() -> Self {
        Gate { open: Mutex::new(false), opened: Condvar::new() }
    }

    /// Waits for the gate to open; `false` if it never did. The bound only
    /// turns a regression into a failure instead of a hang.
    fn wait(&self) -> bool {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let (open, _) = self
            .opened
            .wait_timeout_while(open, Duration::from_secs(30), |open| !*open)
            .unwrap_or_else(|e| e.into_inner());
        *open
    }

    fn open(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.opened.notify_all();
    }
}

static TOOL_GATE: Gate = Gate::new();
static PROMPT_GATE: Gate = Gate::new();
static RESOURCE_GATE: Gate = Gate::new();
static COMPLETION_GATE: Gate = Gate::new();

/// One gate per test, since the tests of this file run at the same time.
fn gate(name: &str) -> &'static Gate {
    match name {
        "tool" => &TOOL_GATE,
        "prompt" => &PROMPT_GATE,
        "resource" => &RESOURCE_GATE,
        _ => &COMPLETION_GATE,
    }
}

fn verdict(opened: bool) -> &'static str {
    if opened { "opened" } else { "never opened" }
}

/// Blocks its thread until the gate opens.
#[tool]
fn wait_at_gate(gate_name: String) -> &'static str {
    verdict(gate(&gate_name).wait())
}

/// Opens a gate without blocking.
#[tool]
async fn open_gate(gate_name: String) -> &'static str {
    gate(&gate_name).open();
    "done"
}

/// Blocks its thread until the prompt gate opens.
#[prompt]
fn waiting_prompt() -> String {
    verdict(PROMPT_GATE.wait()).to_owned()
}

/// Blocks its thread until the resource gate opens.
#[resource("gate://resource")]
fn waiting_resource() -> String {
    verdict(RESOURCE_GATE.wait()).to_owned()
}

/// Suggests after the completion gate opens.
fn waiting_completer(_typed: &str) -> Vec<String> {
    vec![verdict(COMPLETION_GATE.wait()).to_owned()]
}

/// A prompt whose argument has a sync completer.
#[prompt]
fn completed_prompt(#[arg(complete = waiting_completer)] topic: String) -> String {
    topic
}

/// Fails the hard way.
#[tool]
fn explode() -> String {
    panic!("the sync handler failed")
}

/// Answers at once.
#[tool]
fn still_here() -> &'static str {
    "still here"
}

fn client() -> Client {
    checked(mcp_runtime::server!("blocking", "1.0.0").build().expect("a valid server"))
}

fn text(result: &CallToolResult) -> &str {
    result.first_text().unwrap_or_default()
}

#[tokio::test]
async fn a_blocking_sync_tool_leaves_the_worker_free() {
    let client = client();
    let (waited, opened) = tokio::join!(
        client.call_tool("wait_at_gate", json!({"gate_name": "tool"})),
        client.call_tool("open_gate", json!({"gate_name": "tool"})),
    );
    assert_eq!(text(&opened.expect("the async tool answers")), "done");
    assert_eq!(text(&waited.expect("the sync tool answers")), "opened");
}

#[tokio::test]
async fn a_blocking_sync_prompt_leaves_the_worker_free() {
    let client = client();
    let (waited, opened) = tokio::join!(
        client.get_prompt("waiting_prompt", json!({})),
        client.call_tool("open_gate", json!({"gate_name": "prompt"})),
    );
    assert_eq!(text(&opened.expect("the async tool answers")), "done");
    let waited = waited.expect("the sync prompt answers");
    assert!(matches!(&waited.messages[0].content, ContentBlock::Text(text) if text.text == "opened"), "{waited:?}");
}

#[tokio::test]
async fn a_blocking_sync_resource_leaves_the_worker_free() {
    let client = client();
    let (waited, opened) = tokio::join!(
        client.read_resource("gate://resource"),
        client.call_tool("open_gate", json!({"gate_name": "resource"})),
    );
    assert_eq!(text(&opened.expect("the async tool answers")), "done");
    let waited = waited.expect("the sync resource answers");
    assert_eq!(waited.contents[0].body, ResourceBody::Text("opened".to_owned()), "{waited:?}");
}

#[tokio::test]
async fn a_blocking_sync_completer_leaves_the_worker_free() {
    let client = client();
    let params = json!({
        "ref": {"type": "ref/prompt", "name": "completed_prompt"},
        "argument": {"name": "topic", "value": "r"},
    });
    let (waited, opened) = tokio::join!(
        client.request("completion/complete", params),
        client.call_tool("open_gate", json!({"gate_name": "completion"})),
    );
    assert_eq!(text(&opened.expect("the async tool answers")), "done");
    let waited = waited.expect("the sync completer answers");
    assert_eq!(waited["completion"]["values"], json!(["opened"]), "{waited}");
}

#[tokio::test]
async fn a_panicking_sync_tool_is_an_error_and_the_server_goes_on() {
    let client = client();
    let failed = client.call_tool("explode", json!({})).await.expect_err("a panic is a JSON-RPC error");
    assert_eq!(failed.rpc().map(|e| e.code), Some(-32603), "{failed:?}");
    let after = client.call_tool("still_here", json!({})).await.expect("the server still serves");
    assert_eq!(text(&after), "still here");
}
