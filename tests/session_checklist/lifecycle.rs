//! Rows 1–8, 21, 34 and 35: the handshake, versions, what the server may
//! ask of the client and when, notifications, ping, cancellation, tasks,
//! batches and the timeout of the server's own requests.

use std::time::Duration;

use http::StatusCode;
use mcp_runtime::transport::http::HttpConfig;
use serde_json::{Value, json};

use crate::fixture::server;
use crate::http::{HttpSession, initialize_message, post, send};
use crate::stdio::Stdio;

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// Rows 1 and 2, over HTTP (stdio: `session_stdio`).
#[tokio::test]
async fn initialize_over_http_names_the_version_the_capabilities_and_the_server() {
    let service = server().http_service(HttpConfig::default());
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let (_, result) = HttpSession::initialize(&service, asked, json!({})).await;
        assert_eq!(result["protocolVersion"], answered, "asked for {asked}");
        assert_eq!(result["serverInfo"]["name"], "checklist");
        assert_eq!(result["serverInfo"]["version"], "1.0.0");
        assert!(result["capabilities"]["tools"].is_object(), "{result}");
    }
}

/// Row 3: a session is sent only the fields of the version it negotiated.
#[tokio::test]
async fn each_version_is_sent_only_the_fields_it_knows() {
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let server = server();
        let mut client = Stdio::start(server.clone());
        let info = client.initialize(version, json!({})).await["result"]["serverInfo"].clone();
        client.notify("notifications/initialized", json!({})).await;
        let tools = client.request(1, "tools/list", json!({})).await.1["result"]["tools"].clone();
        let tool = |name: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
        let forecast = client.request(2, "tools/call", json!({"name": "forecast"})).await.1["result"].clone();
        // Titles and structured output came with 2025-06-18; icons, the
        // server's description and website with 2025-11-25.
        let (since_june, newest) = (version != "2025-03-26", version == "2025-11-25");
        assert_eq!(info.get("title").is_some(), since_june, "{version}: {info}");
        assert_eq!(tool("echo").get("title").is_some(), since_june, "{version}");
        assert_eq!(tool("forecast").get("outputSchema").is_some(), since_june, "{version}");
        assert_eq!(forecast.get("structuredContent").is_some(), since_june, "{version}: {forecast}");
        for newer in ["description", "icons", "websiteUrl"] {
            assert_eq!(info.get(newer).is_some(), newest, "{version}: {info}");
        }
        assert_eq!(tool("echo").get("icons").is_some(), newest, "{version}");
        // The definitions rewritten for this version follow the catalog.
        server.remove_tool("forecast");
        let after = client.request(3, "tools/list", json!({})).await.1["result"]["tools"].clone();
        let names: Vec<&str> = after.as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(names.contains(&"echo") && !names.contains(&"forecast"), "{version}: {names:?}");
        let echo = after.as_array().unwrap().iter().find(|t| t["name"] == "echo").unwrap();
        assert_eq!(echo.get("icons").is_some(), newest, "{version}");
        client.close().await;
    }
}

/// Row 5: sampling, elicitation and roots only to clients that declared
/// them; URL elicitation only with `elicitation.url`, sampling with tools
/// or context only with `sampling.tools` or `sampling.context`.
#[tokio::test]
async fn the_client_is_asked_only_for_what_it_declared() {
    let refused = [
        (json!({}), ["ask", "ask_url", "sample", "roots"].as_slice()),
        (json!({"elicitation": {}}), ["ask_url"].as_slice()),
        (
            json!({"elicitation": {"form": {}}, "sampling": {}}),
            ["ask_url", "sample_with_tools", "sample_with_context"].as_slice(),
        ),
    ];
    for (capabilities, tools) in refused {
        let mut client = Stdio::open(server(), "2025-11-25", capabilities.clone()).await;
        for (id, tool) in (1..).zip(tools) {
            client.write(&call(id, tool, json!({}))).await;
            let answer = client.next().await.expect("an answer");
            assert!(answer.get("method").is_none(), "{capabilities}: `{tool}` asked the client: {answer}");
            assert!(answer.get("error").is_some() || answer["result"]["isError"] == true, "{tool}: {answer}");
        }
        client.close().await;
    }
    let declared = [
        ("ask", json!({"elicitation": {}}), "elicitation/create"),
        ("ask_url", json!({"elicitation": {"url": {}}}), "elicitation/create"),
        ("sample", json!({"sampling": {}}), "sampling/createMessage"),
        ("sample_with_tools", json!({"sampling": {"tools": {}}}), "sampling/createMessage"),
        ("sample_with_context", json!({"sampling": {"context": {}}}), "sampling/createMessage"),
        ("roots", json!({"roots": {}}), "roots/list"),
    ];
    for (tool, capabilities, method) in declared {
        let mut client = Stdio::open(server(), "2025-11-25", capabilities).await;
        client.write(&call(1, tool, json!({}))).await;
        let asked = client.next().await.expect("a request to the client");
        assert_eq!(asked["method"], method, "{tool}: {asked}");
        if tool == "ask_url" {
            assert_eq!(asked["params"]["mode"], "url");
            assert!(asked["params"]["elicitationId"].is_string(), "{asked}");
        }
        client.close().await;
    }
}

/// Row 6: no answer to any notification, known or not; the ids of the
/// server's requests are never reused in a session.
#[tokio::test]
async fn notifications_get_no_answer_and_request_ids_are_never_reused() {
    let mut client = Stdio::open(server(), "2025-11-25", json!({"elicitation": {}})).await;
    for (method, params) in [
        ("notifications/initialized", json!({})),
        ("notifications/cancelled", json!({"requestId": 99})),
        ("notifications/progress", json!({"progressToken": "none", "progress": 1})),
        ("notifications/roots/list_changed", json!({})),
        ("notifications/unheard_of", json!({"x": 1})),
    ] {
        client.notify(method, params).await;
    }
    let (before, pong) = client.request(1, "ping", json!({})).await;
    assert!(before.is_empty(), "a notification was answered: {before:?}");
    assert_eq!(pong["result"], json!({}));

    let mut ids = Vec::new();
    for call_id in [2, 3] {
        client.write(&call(call_id, "ask_twice", json!({}))).await;
        for _ in 0..2 {
            let asked = client.next().await.expect("an elicitation");
            assert_eq!(asked["method"], "elicitation/create", "{asked}");
            ids.push(asked["id"].clone());
            let content = json!({"action": "accept", "content": {"v": "x"}});
            client.write(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": content})).await;
        }
        assert_eq!(client.answer(call_id).await.1["result"]["content"][0]["text"], "x x");
    }
    let distinct: std::collections::HashSet<String> = ids.iter().map(Value::to_string).collect();
    assert_eq!(distinct.len(), ids.len(), "an id was reused: {ids:?}");
    client.close().await;
}

/// Row 7: `ping` is answered `{}` before `initialized`, over stdio and
/// HTTP, and as JSON on HTTP even to a client that takes event streams.
#[tokio::test]
async fn ping_is_answered_with_an_empty_result_before_initialized_too() {
    let mut client = Stdio::start(server());
    client.initialize("2025-11-25", json!({})).await;
    assert_eq!(client.request(1, "ping", json!({})).await.1["result"], json!({}));
    client.close().await;

    let service = server().http_service(HttpConfig::default());
    let (session, _) = HttpSession::initialize(&service, "2025-11-25", json!({})).await;
    let reply = session.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json().await["result"], json!({}));
}

/// Row 8: notices naming nothing in flight, finished requests or nothing
/// readable are ignored, and the session goes on.
#[tokio::test]
async fn bad_and_late_cancellations_are_ignored() {
    let mut client = Stdio::open(server(), "2025-11-25", json!({})).await;
    assert_eq!(client.request(1, "tools/call", json!({"name": "echo", "arguments": {"text": "a"}})).await.1["id"], 1);
    for params in [json!({"requestId": 1}), json!({"requestId": {"no": "id"}}), json!({}), json!("junk")] {
        client.notify("notifications/cancelled", params).await;
    }
    client.write(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled"})).await;
    let (before, answer) = client.request(2, "tools/call", json!({"name": "echo", "arguments": {"text": "b"}})).await;
    assert!(before.is_empty(), "a notice was answered: {before:?}");
    assert_eq!(answer["result"]["content"][0]["text"], "b");
    assert!(client.close().await.is_empty());
}

/// Row 21: no `tasks` capability, no `execution` on tools, `params.task`
/// ignored (the plain result comes back), `tasks/*` unknown.
#[tokio::test]
async fn a_task_request_is_served_as_a_plain_request() {
    let mut client = Stdio::start(server());
    let capabilities =
        client.initialize("2025-11-25", json!({"tasks": {"list": {}}})).await["result"]["capabilities"].clone();
    client.notify("notifications/initialized", json!({})).await;
    assert!(capabilities.get("tasks").is_none(), "{capabilities}");
    let tools = client.request(1, "tools/list", json!({})).await.1;
    assert!(tools["result"]["tools"].as_array().unwrap().iter().all(|t| t.get("execution").is_none()), "{tools}");
    let params = json!({"name": "echo", "arguments": {"text": "now"}, "task": {"ttl": 60000}});
    let answer = client.request(2, "tools/call", params).await.1;
    assert_eq!(answer["result"], json!({"content": [{"type": "text", "text": "now"}]}));
    for (id, method) in (3..).zip(["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"]) {
        let refusal = client.request(id, method, json!({"taskId": "t"})).await.1;
        assert_eq!(refusal["error"]["code"], -32601, "{method}: {refusal}");
    }
    client.close().await;
}

/// Row 34: `initialize` inside a batch opens no session (stdio and HTTP),
/// and on a 2025-03-26 session is refused while the rest is served.
#[tokio::test]
async fn initialize_is_never_served_inside_a_batch() {
    let batch = json!([initialize_message("2025-03-26", json!({}))]);
    let service = server().http_service(HttpConfig::default());
    let reply = send(&service, post(&batch)).await;
    assert!(reply.headers.get("mcp-session-id").is_none(), "a batch opened a session");
    assert_ne!(reply.status, StatusCode::OK);

    let mut client = Stdio::start(server());
    client.write(&batch).await;
    let refusal = client.next().await.expect("an answer");
    assert!(refusal.get("result").is_none(), "{refusal}");
    client.initialize("2025-03-26", json!({})).await;
    let mut batch = json!([initialize_message("2025-03-26", json!({})), {"jsonrpc": "2.0", "id": 5, "method": "ping"}]);
    batch[0]["id"] = json!(4);
    client.write(&batch).await;
    let answers = client.next().await.expect("the batch's answers");
    assert_eq!(answers[0]["error"]["code"], -32600, "{answers}");
    assert_eq!(answers[1]["result"], json!({}), "{answers}");
    client.close().await;
}

/// Row 35: a request to the client left unanswered is given up after its
/// timeout (ten minutes, on the paused clock), with `notifications/cancelled`.
#[tokio::test(start_paused = true)]
async fn an_unanswered_request_to_the_client_times_out_and_is_cancelled() {
    let mut client = Stdio::open(server(), "2025-11-25", json!({"elicitation": {}})).await;
    client.write(&call(1, "ask", json!({}))).await;
    let asked = client.next().await.expect("the elicitation");
    assert_eq!(asked["method"], "elicitation/create");
    let started = tokio::time::Instant::now();
    client.patience = Duration::from_secs(3600);
    let (before, answer) = client.answer(1).await;
    assert!(started.elapsed() >= Duration::from_secs(600), "given up after {:?}", started.elapsed());
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before[0]["method"], "notifications/cancelled");
    assert_eq!(before[0]["params"]["requestId"], asked["id"]);
    assert!(answer.get("error").is_some(), "{answer}");
    client.close().await;
}
