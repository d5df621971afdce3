//! A remote's tasks through a gateway (`mount_remote`): a call the remote
//! makes a task of is a task of the gateway too, at the same point (after
//! any `input_required` rounds); the gateway's task shows the remote's
//! status message, relays its questions, ends as it ends, and cancelling
//! it cancels the remote's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::client::{Client, Error, Remote, Revision};
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::extract::Progress;
use mcp_runtime::input::Elicitation;
use mcp_runtime::protocol::{ClientCapabilities, ElicitResult, ErrorObject};
use mcp_runtime::tasks::{TASKS_EXTENSION, TaskSupport};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{CancellationToken, Input, RpcError, Server};
use serde_json::{Value, json};

/// The remote, its tools as tasks, and a flag raised when its `slow` task
/// sees its cancellation.
fn remote(cancelled: Arc<AtomicBool>) -> Server {
    Server::builder("far", "1.0.0")
        .task_poll_interval(Duration::from_millis(20))
        // Never a task at the remote.
        .tool(ToolEntry::new("quick", || async { "at once" }))
        .tool(
            ToolEntry::new("slow", move |progress: Progress, cancel: CancellationToken| {
                let cancelled = Arc::clone(&cancelled);
                async move {
                    progress.report_with_message(1.0, None, "halfway");
                    cancel.cancelled().await;
                    cancelled.store(true, Ordering::SeqCst);
                    "stopped"
                }
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("greet_later", |input: Input| async move {
                let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
                tokio::time::sleep(Duration::from_millis(30)).await;
                format!("Hello, {}! Done.", answer.field("name").unwrap_or_default())
            })
            .task(TaskSupport::required().input_first()),
        )
        .tool(
            ToolEntry::new("ask_midway", |input: Input| async move {
                tokio::time::sleep(Duration::from_millis(30)).await;
                let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
                format!("Hello, {}!", answer.field("name").unwrap_or_default())
            })
            .task(TaskSupport::optional()),
        )
        .tool(
            ToolEntry::new("fails", || async {
                tokio::time::sleep(Duration::from_millis(30)).await;
                Err::<String, RpcError>(ErrorObject::invalid_params("no such report").into())
            })
            .task(TaskSupport::optional()),
        )
        .build()
        .expect("a remote")
}

/// The gateway in front of `remote` (over a pipe), served over HTTP; its URL.
async fn gateway(cancelled: Arc<AtomicBool>) -> String {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(remote(cancelled).serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);
    let remote = Remote::connect(Client::stdio(read, write)).await.expect("connected");
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("far", remote).build().expect("a gateway");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(gateway.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    url
}

/// A client of the gateway that declares the tasks extension and form
/// elicitation, with no callback: questions come back to the test.
fn tasking(url: &str) -> Client {
    let capabilities = ClientCapabilities::default().with_extension(TASKS_EXTENSION, json!({}));
    let mut capabilities = serde_json::to_value(capabilities).expect("JSON");
    capabilities["elicitation"] = json!({"form": {}});
    Client::http(url)
        .revision(Revision::Stateless)
        .capabilities(serde_json::from_value(capabilities).expect("capabilities"))
}

async fn call(client: &Client, name: &str) -> Result<Value, Error> {
    client.request("tools/call", json!({"name": name, "arguments": {}})).await
}

/// Reads the gateway's task until `done` says it is where it should be.
async fn until(client: &Client, task_id: &Value, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let task = client.request("tasks/get", json!({"taskId": task_id})).await.expect("the task");
        if done(&task) {
            return task;
        }
        assert!(tokio::time::Instant::now() < deadline, "the task never got there: {task}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn the_gateway_makes_a_task_exactly_when_the_remote_does() {
    let url = gateway(Arc::default()).await;
    let discovered = Client::http(&url).revision(Revision::Stateless).discover().await.expect("discover");
    let extensions = discovered.capabilities.extensions.expect("extensions");
    assert!(extensions.contains_key(TASKS_EXTENSION), "the gateway offers the remote's tasks: {extensions:?}");

    let client = tasking(&url);
    // The remote answers at once: so does the gateway, with no task.
    let quick = call(&client, "far_quick").await.expect("answered");
    assert_eq!(quick["resultType"], "complete", "{quick}");
    assert_eq!(quick["content"][0]["text"], "at once");

    // Input first: round 1 asks within the call, round 2 is the task.
    let round_one = match call(&client, "far_greet_later").await {
        Err(Error::InputRequired(result)) => result,
        other => panic!("round 1 asks for input, not {other:?}"),
    };
    assert!(round_one.get("taskId").is_none(), "no task before the remote makes one: {round_one}");
    assert_eq!(round_one["inputRequests"]["name"]["method"], "elicitation/create", "{round_one}");
    // The gateway resumes the remote's call on the retry from what the round carries (it keeps
    // nothing between requests): the remote's own state, sealed in the gateway's. The client
    // echoes it verbatim, and the gateway, whose logic it drives, refuses it altered (-32602).
    let state = round_one["requestState"].as_str().filter(|s| !s.is_empty());
    let state = state.unwrap_or_else(|| panic!("round 1 carries a requestState: {round_one}")).to_owned();
    let retry = |state: &str| {
        json!({"name": "far_greet_later", "arguments": {}, "requestState": state,
               "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}})
    };
    let mut altered: Vec<char> = state.chars().collect();
    let middle = altered.len() / 2;
    altered[middle] = if altered[middle] == 'A' { 'B' } else { 'A' };
    match client.request("tools/call", retry(&altered.into_iter().collect::<String>())).await {
        Err(Error::Rpc(error)) => assert_eq!(error.code, -32602, "{error:?}"),
        other => panic!("an altered requestState refused with -32602, not {other:?}"),
    }
    let created = client.request("tools/call", retry(&state)).await.expect("the task");
    assert_eq!(created["resultType"], "task", "{created}");
    assert!(created.get("requestState").is_none() && created.get("inputRequests").is_none(), "{created}");
    let done = until(&client, &created["taskId"], |t| t["status"] != "working").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada! Done.", "{done}");

    // A client that does not declare the extension: the remote refuses the
    // task-only tool, and the gateway passes its refusal on.
    match Client::http(&url).revision(Revision::Stateless).call_tool("far_greet_later", json!({})).await {
        Err(Error::Rpc(error)) => assert_eq!(error.code, -32021, "{error:?}"),
        other => panic!("the remote's -32021, not {other:?}"),
    }
}

#[tokio::test]
async fn the_gateways_task_follows_the_remotes_questions_and_failures() {
    let url = gateway(Arc::default()).await;
    let client = tasking(&url);

    let created = call(&client, "far_ask_midway").await.expect("a task");
    assert_eq!(created["resultType"], "task", "{created}");
    let task_id = created["taskId"].clone();
    let asking = until(&client, &task_id, |t| t["status"] == "input_required").await;
    assert_eq!(asking["inputRequests"]["name"]["method"], "elicitation/create", "{asking}");
    let answer = ElicitResult::accept(json!({"name": "Grace"}));
    client
        .request("tasks/update", json!({"taskId": task_id, "inputResponses": {"name": answer}}))
        .await
        .expect("the answer taken");
    let done = until(&client, &task_id, |t| t["status"] != "working" && t["status"] != "input_required").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Grace!", "{done}");

    let failing = call(&client, "far_fails").await.expect("a task");
    let failed = until(&client, &failing["taskId"], |t| t["status"] != "working").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32602, "the remote's own error: {failed}");
    assert_eq!(failed["error"]["message"], "no such report", "{failed}");
}

#[tokio::test]
async fn cancelling_the_gateways_task_cancels_the_remotes() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let url = gateway(Arc::clone(&cancelled)).await;
    let client = tasking(&url);

    let created = call(&client, "far_slow").await.expect("a task");
    let task_id = created["taskId"].clone();
    let working = until(&client, &task_id, |t| t.get("statusMessage").is_some()).await;
    assert_eq!(working["status"], "working", "{working}");
    assert_eq!(working["statusMessage"], "halfway", "the remote's status message: {working}");

    client.request("tasks/cancel", json!({"taskId": task_id})).await.expect("cancelled");
    let ended = until(&client, &task_id, |t| t["status"] != "working").await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !cancelled.load(Ordering::SeqCst) {
        assert!(tokio::time::Instant::now() < deadline, "the remote's task was never cancelled");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
