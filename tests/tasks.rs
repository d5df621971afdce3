//! The tasks extension (`io.modelcontextprotocol/tasks`) over Streamable
//! HTTP and over stdio: negotiation, every status a task goes through,
//! input inside a task, cancellation, expiry, owners, the `Mcp-Name`
//! header, and `notifications/tasks` on a listen stream. Every message the
//! server sends is checked (`mcp_tests::task_schema`).

mod tasks {
    pub(crate) mod fixture;
    pub(crate) mod wire;
}

use std::time::Duration;

use mcp_runtime::tasks::{MemoryTaskStore, RunnerLease, TaskRecord, TaskStore};
use mcp_tests::session_schema::assert_valid_session;
use serde_json::{Value, json};
use tasks::fixture::{Probe, accept, builder, server, server_with_store};
use tasks::wire::{BOTH, Client, STUCK, Transport};
use tokio::time::Instant;

const TASKS: &str = "io.modelcontextprotocol/tasks";

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

#[tokio::test(flavor = "multi_thread")]
async fn the_extension_is_advertised_and_each_request_opts_in() {
    for transport in BOTH {
        let mut client = Client::start(transport, server(&Probe::default())).await;
        let discover = client.send("server/discover", json!({})).await;
        assert_eq!(discover.result()["capabilities"]["extensions"][TASKS], json!({}), "{transport:?}");

        // With the extension on the request: a task.
        let created = client.call("work", json!({"ms": 0})).await;
        assert_eq!(created.result()["resultType"], "task", "{transport:?}");
        let task_id = created.result()["taskId"].as_str().unwrap().to_owned();
        assert_eq!(task_id.len(), 32, "128 bits in hex");
        assert_eq!(created.result()["status"], "working");

        // Without it: an optional tool runs as a plain call, a required one
        // is refused naming the extension, and the task methods too.
        client = client.without_tasks();
        let plain = client.call("work", json!({"ms": 0})).await;
        assert_eq!(plain.result()["resultType"], "complete", "{transport:?}");
        assert_eq!(plain.result()["content"][0]["text"], "worked 0 ms");
        let refused = client.call("only_task", json!({})).await;
        assert_eq!(refused.code(), Some(-32021), "{transport:?}: {:?}", refused.body);
        assert_eq!(refused.body["error"]["data"]["requiredCapabilities"]["extensions"][TASKS], json!({}));
        for (method, params) in [
            ("tasks/get", json!({"taskId": task_id})),
            ("tasks/update", json!({"taskId": task_id, "inputResponses": {}})),
            ("tasks/cancel", json!({"taskId": task_id})),
        ] {
            let reply = client.send(method, params).await;
            assert_eq!(reply.code(), Some(-32021), "{transport:?} {method}");
            if transport == Transport::Http {
                assert_eq!(reply.status, 400, "{method}");
            }
        }
        // A tool that never runs as a task is a plain call either way, and
        // the 2025-era `task` hint promotes nothing.
        client.capabilities = json!({"extensions": {TASKS: {}}});
        let hinted = client.send("tools/call", json!({"name": "plain", "task": {"ttl": 1000}})).await;
        assert_eq!(hinted.result()["resultType"], "complete");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_works_then_completes_with_its_result_inlined() {
    for transport in BOTH {
        let probe = Probe::default();
        let mut client = Client::start(transport, server(&probe)).await;
        let created = client.call("held", json!({})).await;
        let task = created.result();
        assert_eq!(task["ttlMs"], 3_600_000, "the default time to live");
        assert_eq!(task["pollIntervalMs"], 50);
        let task_id = task["taskId"].as_str().unwrap().to_owned();

        // Found at once, still working: its handler waits for the test.
        let working = client.get(&task_id).await;
        assert_eq!(working["status"], "working", "{transport:?}");
        assert_eq!(working["resultType"], "complete");
        assert!(working.get("result").is_none(), "{working}");

        probe.release.notify_one();
        let done = client.wait_for(&task_id, "completed").await;
        assert_eq!(done["status"], "completed", "{transport:?}: {done}");
        assert_eq!(done["result"]["content"][0]["text"], "released");
        assert!(done["lastUpdatedAt"].as_str() >= done["createdAt"].as_str());

        // Cancelling a finished task is acknowledged and changes nothing.
        let ack = client.send("tasks/cancel", json!({"taskId": task_id})).await;
        assert_eq!(ack.result(), &json!({"resultType": "complete", "_meta": ack.result()["_meta"]}));
        assert_eq!(client.get(&task_id).await["status"], "completed");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_error_completes_and_a_json_rpc_error_fails() {
    for transport in BOTH {
        let mut client = Client::start(transport, server(&Probe::default())).await;
        let tool_error = client.start_task("tool_error", json!({})).await;
        let done = client.wait_for(&tool_error, "completed").await;
        assert_eq!(done["status"], "completed", "{transport:?}");
        assert_eq!(done["result"]["isError"], true);
        assert_eq!(done["result"]["content"][0]["text"], "bad input");

        let panicked = client.start_task("explode", json!({})).await;
        let failed = client.wait_for(&panicked, "failed").await;
        assert_eq!(failed["status"], "failed", "{transport:?}");
        assert_eq!(failed["error"]["code"], -32603);
        assert!(failed.get("result").is_none());

        // Asking for what the creating request did not declare fails too.
        let sampling = client.start_task("sample", json!({})).await;
        let failed = client.wait_for(&sampling, "failed").await;
        assert_eq!(failed["error"]["code"], -32021, "{transport:?}: {failed}");
        assert_eq!(failed["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn input_inside_a_task_parks_it_until_tasks_update_answers() {
    for transport in BOTH {
        let mut client = Client::start(transport, server(&Probe::default())).await;
        let task_id = client.start_task("ask", json!({})).await;
        let waiting = client.wait_for(&task_id, "input_required").await;
        assert_eq!(waiting["status"], "input_required", "{transport:?}: {waiting}");
        assert_eq!(waiting["inputRequests"]["confirm"]["method"], "elicitation/create");

        // Unknown keys are ignored; a malformed answer is refused.
        let ignored = client
            .send("tasks/update", json!({"taskId": task_id, "inputResponses": {"unknown": {"ignored": true}}}))
            .await;
        assert_eq!(ignored.result()["resultType"], "complete");
        let malformed =
            client.send("tasks/update", json!({"taskId": task_id, "inputResponses": {"confirm": {"nope": 1}}})).await;
        assert_eq!(malformed.code(), Some(-32602), "{transport:?}");
        assert_eq!(client.get(&task_id).await["status"], "input_required");

        let answered = client
            .send(
                "tasks/update",
                json!({"taskId": task_id, "inputResponses": {"confirm": accept(json!({"confirm": true}))}}),
            )
            .await;
        assert_eq!(answered.result()["resultType"], "complete");
        let done = client.wait_for(&task_id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "confirmed: true", "{transport:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_may_come_one_at_a_time() {
    for transport in BOTH {
        let mut client = Client::start(transport, server(&Probe::default())).await;
        let task_id = client.start_task("ask_two", json!({})).await;
        let mut task = client.wait_for(&task_id, "input_required").await;
        while task["inputRequests"].as_object().map_or(0, |r| r.len()) < 2 {
            task = client.get(&task_id).await;
        }
        let update = |key: &str, content: Value| json!({"taskId": task_id, "inputResponses": {key: accept(content)}});
        client.send("tasks/update", update("name", json!({"name": "Ada"}))).await;
        let partial = client.get(&task_id).await;
        assert_eq!(partial["status"], "input_required", "{transport:?}");
        let keys: Vec<&String> = partial["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["go"], "only the unanswered request is left");
        client.send("tasks/update", update("go", json!({"confirm": false}))).await;
        let done = client.wait_for(&task_id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "Ada / false", "{transport:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_fires_the_handlers_token_while_working_or_waiting_for_input() {
    for transport in BOTH {
        let probe = Probe::default();
        let mut client = Client::start(transport, server(&probe)).await;
        let working = client.start_task("work", json!({"ms": 60_000})).await;
        let ack = client.send("tasks/cancel", json!({"taskId": working})).await;
        assert_eq!(ack.result()["resultType"], "complete");
        assert_eq!(client.get(&working).await["status"], "cancelled", "{transport:?}");
        Probe::raised(&probe.working_cancelled).await;

        let asking = client.start_task("ask", json!({})).await;
        client.wait_for(&asking, "input_required").await;
        let cancelled_at = Instant::now();
        client.send("tasks/cancel", json!({"taskId": asking})).await;
        let cancelled = client.get(&asking).await;
        assert_eq!(cancelled["status"], "cancelled", "{transport:?}");
        assert!(cancelled.get("inputRequests").is_none());
        Probe::raised(&probe.asking_cancelled).await;
        // What the handler answered after its token fired is not kept.
        // Once the handler's future is dropped, the runner has its answer
        // and one step left: a read of the store, and a write were the
        // answer kept. Nothing signals a write that does not happen, so
        // that step is given ten times as long as hearing the cancel and
        // letting go of the handler took.
        Probe::raised(&probe.asking_dropped).await;
        tokio::time::sleep(cancelled_at.elapsed() * 10).await;
        let after = client.get(&asking).await;
        assert_eq!(after["status"], "cancelled", "{transport:?}: {after}");
        assert!(after.get("result").is_none(), "{transport:?}: {after}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn expired_tasks_are_gone() {
    for transport in BOTH {
        let probe = Probe::default();
        let server = builder(&probe).task_ttl(Some(TTL)).build().unwrap();
        let mut client = Client::start(transport, server).await;
        // Found until its time runs out, then gone. Whether it is seen
        // completed first depends on how fast the client is, not the server.
        let started = Instant::now();
        let created = client.call("work", json!({"ms": 0})).await;
        assert_eq!(created.result()["ttlMs"], 300, "{transport:?}");
        let task_id = created.result()["taskId"].as_str().expect("a task id").to_owned();
        let gone = wait_until_gone(&mut client, &task_id).await;
        assert_expired(started, gone, &format!("{transport:?}: the task"));

        // A task still running when its time runs out is stopped: its
        // handler's token fires, and the task is gone.
        let started = Instant::now();
        let long = client.start_task("work", json!({"ms": 60_000})).await;
        Probe::raised(&probe.working_cancelled).await;
        assert_expired(started, Instant::now(), &format!("{transport:?}: the running task's handler"));
        wait_until_gone(&mut client, &long).await;
        let gone = client.send("tasks/cancel", json!({"taskId": long})).await;
        assert_eq!(gone.code(), Some(-32602), "{transport:?}");
        client.close().await;
    }
}

/// The time to live of `expired_tasks_are_gone`.
const TTL: Duration = Duration::from_millis(300);

/// Polls `tasks/get` until the task is unknown; when it was found so.
/// Until then it is found.
async fn wait_until_gone(client: &mut Client, task_id: &str) -> Instant {
    let deadline = Instant::now() + STUCK;
    loop {
        let reply = client.send("tasks/get", json!({"taskId": task_id})).await;
        if reply.code() == Some(-32602) {
            return Instant::now();
        }
        assert!(reply.body.get("result").is_some(), "{}", reply.body);
        assert!(Instant::now() < deadline, "task {task_id} outlived its time to live: {}", reply.body);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether the time to live of a task created after `started` could have
/// run out by `seen`. The server counts in whole milliseconds, and may
/// round its start down by one.
#[track_caller]
fn assert_expired(started: Instant, seen: Instant, what: &str) {
    let lived = seen - started;
    assert!(
        lived + Duration::from_millis(1) >= TTL,
        "{what} ended after {lived:?}, before its time to live of {TTL:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn another_owners_tasks_are_unknown_to_it() {
    for transport in BOTH {
        let mut client = Client::start(transport, server(&Probe::default())).await;
        let task_id = client.start_task("ask", json!({})).await;
        client.wait_for(&task_id, "input_required").await;
        client.name = "mallory".to_owned();
        let params = |id: &str, method: &str| match method {
            "tasks/update" => json!({"taskId": id, "inputResponses": {"confirm": accept(json!({"confirm": true}))}}),
            _ => json!({"taskId": id}),
        };
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let refused = client.send(method, params(&task_id, method)).await;
            assert_eq!(refused.code(), Some(-32602), "{transport:?} {method}");
            assert_eq!(refused.body["error"]["message"], format!("Unknown task: `{task_id}`"));
            // Nothing tells a foreign task from one that does not exist:
            // the whole error is the same, byte for byte, but for the id.
            let unknown = client.send(method, params(NOBODYS, method)).await;
            assert_eq!(unknown.status, refused.status, "{transport:?} {method}");
            assert_eq!(
                unknown.body["error"].to_string(),
                refused.body["error"].to_string().replace(&task_id, NOBODYS),
                "{transport:?} {method}: unknown and foreign read alike"
            );
        }
        client.name = "alice".to_owned();
        assert_eq!(client.get(&task_id).await["status"], "input_required", "untouched by the other owner");
        client.close().await;
    }
}

/// A task id no one was given.
const NOBODYS: &str = "0123456789abcdef0123456789abcdef";

#[tokio::test(flavor = "multi_thread")]
async fn mcp_name_carries_the_task_id_over_http() {
    let mut client = Client::start(Transport::Http, server(&Probe::default())).await;
    let task_id = client.start_task("work", json!({"ms": 60_000})).await;
    let set = |value: Option<&str>| {
        let value = value.map(str::to_owned);
        move |headers: &mut Vec<(String, Option<String>)>| {
            headers.retain(|(n, _)| n != "mcp-name");
            headers.push(("mcp-name".to_owned(), value));
        }
    };
    let params = json!({"taskId": task_id});
    let wrong = client.send_with("tasks/get", params.clone(), set(Some("another-task"))).await;
    assert_eq!((wrong.status, wrong.code()), (400, Some(-32020)));
    let missing = client.send_with("tasks/cancel", params.clone(), set(None)).await;
    assert_eq!((missing.status, missing.code()), (400, Some(-32020)));
    let padded = format!("  {task_id} ");
    let right = client.send_with("tasks/get", params.clone(), set(Some(&padded))).await;
    assert_eq!(right.result()["taskId"], task_id.as_str());
    // A removed method of the 2025-era tasks is not found, before any header check of a name.
    let removed = client.send("tasks/result", params).await;
    assert_eq!((removed.status, removed.code()), (404, Some(-32601)));
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listen_stream_following_a_task_gets_it_whole_on_each_change() {
    for transport in BOTH {
        let mut client = Client::start(transport, server(&Probe::default())).await;
        let task_id = client.start_task("ask", json!({})).await;
        client.listen(&[&task_id, "not-a-task"]).await;
        let ack = client.next_event().await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{transport:?}");
        assert_eq!(ack["params"]["notifications"]["taskIds"], json!([task_id, "not-a-task"]));
        client.wait_for(&task_id, "input_required").await;
        client
            .send(
                "tasks/update",
                json!({"taskId": task_id, "inputResponses": {"confirm": accept(json!({"confirm": true}))}}),
            )
            .await;
        let subscription = ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone();
        let last = loop {
            let event = client.next_event().await;
            assert_eq!(event["method"], "notifications/tasks", "{transport:?}: {event}");
            assert_eq!(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], subscription);
            assert_eq!(event["params"]["taskId"], task_id.as_str());
            if event["params"]["status"] == "completed" {
                break event;
            }
        };
        assert_eq!(last["params"]["result"]["content"][0]["text"], "confirmed: true");

        // Following tasks needs the extension.
        client = client.without_tasks();
        let refused = client.send("subscriptions/listen", json!({"notifications": {"taskIds": [task_id]}})).await;
        assert_eq!(refused.code(), Some(-32021), "{transport:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_can_be_followed_without_list_changed_notifications() {
    for transport in BOTH {
        let server = builder(&Probe::default()).list_changed(false).build().unwrap();
        let mut client = Client::start(transport, server).await;
        let task_id = client.start_task("ask", json!({})).await;
        client.wait_for(&task_id, "input_required").await;
        client.listen(&[&task_id]).await;
        let ack = client.next_event().await;
        assert_eq!(ack["params"]["notifications"], json!({"taskIds": [task_id]}), "{transport:?}");
        client.send("tasks/cancel", json!({"taskId": task_id})).await;
        let cancelled = client.next_event().await;
        assert_eq!(cancelled["params"]["status"], "cancelled", "{transport:?}: {cancelled}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn input_first_gathers_input_by_round_trips_then_becomes_a_task() {
    for transport in BOTH {
        let mut client = Client::start(transport, server(&Probe::default())).await;
        let first = client.call("decide_then_work", json!({})).await;
        let asked = first.result();
        assert_eq!(asked["resultType"], "input_required", "{transport:?}");
        assert!(asked.get("taskId").is_none());
        let retry = json!({
            "name": "decide_then_work",
            "arguments": {},
            "inputResponses": {"go": accept(json!({"confirm": true}))},
            "requestState": asked["requestState"],
        });
        let created = client.send("tools/call", retry).await;
        assert_eq!(created.result()["resultType"], "task", "{transport:?}: {:?}", created.body);
        let task_id = created.result()["taskId"].as_str().unwrap().to_owned();
        let done = client.wait_for(&task_id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "decided true, then worked");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2025_era_session_sees_no_tasks_even_when_it_names_the_extension() {
    let mut client = Client::start(Transport::Stdio, server(&Probe::default())).await;
    let capabilities = json!({"elicitation": {}, "extensions": {TASKS: {}}});
    let client_info = json!({"name": "old", "version": "1.0.0"});
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": client_info});
    let initialized = in_session(&mut client, 1, "initialize", init).await;
    assert!(initialized["result"]["capabilities"].get("extensions").is_none(), "{initialized}");
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert!(client.send_line(done).await.is_none());

    let plain = in_session(&mut client, 2, "tools/call", json!({"name": "work", "arguments": {"ms": 0}})).await;
    assert_eq!(plain["result"]["content"][0]["text"], "worked 0 ms", "{plain}");
    assert!(plain["result"].get("taskId").is_none());
    let required = in_session(&mut client, 3, "tools/call", json!({"name": "only_task", "arguments": {}})).await;
    assert_eq!(required["result"]["isError"], true, "a tool error the model can read: {required}");
    for (id, method) in [(4, "tasks/get"), (5, "tasks/cancel"), (6, "tasks/list"), (7, "tasks/result")] {
        let params = json!({"taskId": "0123456789abcdef0123456789abcdef"});
        let missing = in_session(&mut client, id, method, params).await;
        assert_eq!(missing["error"]["code"], -32601, "{method}: {missing}");
    }
    client.close().await;
}

/// One request of a 2025-era session over stdio, its answer checked.
async fn in_session(client: &mut Client, id: i64, method: &str, params: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let reply = client.send_line(message).await.expect("an answer");
    assert_valid_session(method, &reply);
    reply
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_whose_runner_stopped_reads_failed() {
    for transport in BOTH {
        // A record left by a process that stopped renewing its lease, as a
        // store shared by replicas would hold it.
        let store = MemoryTaskStore::new();
        let now = now_ms();
        let mut orphan = TaskRecord::new("0rphan", Some("alice".to_owned()), now - 10_000, Some(3_600_000), None);
        orphan.runner = Some(RunnerLease { process: "gone".to_owned(), until_ms: now - 1_000 });
        store.create(orphan).await.unwrap();
        let mut client = Client::start(transport, server_with_store(store)).await;
        let task = client.get("0rphan").await;
        assert_eq!(task["status"], "failed", "{transport:?}");
        assert_eq!(task["error"]["code"], -32603);
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_inside_a_task_becomes_its_status_message() {
    use mcp_runtime::protocol::ClientCapabilities;
    use mcp_runtime::tasks::TaskSupport;
    use mcp_runtime::{CancellationToken, Server, entry::ToolEntry, extract::Progress};

    let tool = ToolEntry::new("steps", |progress: Progress, cancel: CancellationToken| async move {
        progress.report(1.0, Some(4.0));
        progress.report_with_message(2.0, Some(4.0), "halfway");
        cancel.cancelled().await;
        "stopped"
    })
    .task(TaskSupport::required());
    let server = Server::builder("steps", "1.0.0").tool(tool).build().unwrap();
    let client = mcp_runtime::client::Client::in_process(server)
        .capabilities(ClientCapabilities::default().with_extension(TASKS, json!({})));
    // A task, which `call_tool` does not read as a tool's result: the result as it came.
    let created = client.request("tools/call", json!({"name": "steps", "arguments": {}})).await.unwrap();
    let task_id = created["taskId"].clone();
    let status = async {
        loop {
            let task = client.request("tasks/get", json!({"taskId": task_id})).await.unwrap();
            if task["statusMessage"] == "halfway" {
                break task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let task = tokio::time::timeout(Duration::from_secs(10), status).await.expect("the message in time");
    assert_eq!(task["status"], "working");
    client.request("tasks/cancel", json!({"taskId": task_id})).await.unwrap();
}
