//! Rows 9–17: progress, logging, capabilities, tools, resources,
//! subscriptions and completion on a session.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{RequestContext, Server, entry::ToolEntry};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::fixture::{COMPLETIONS, builder, server};
use crate::http::HttpSession;
use crate::stdio::Stdio;

fn methods(messages: &[Value]) -> Vec<&str> {
    messages.iter().map(|m| m["method"].as_str().unwrap_or("<answer>")).collect()
}

/// Row 9: progress only with a token, only increasing, and none once the
/// request was answered (from a task the handler left running).
#[tokio::test]
async fn progress_only_for_a_live_token_and_only_increasing() {
    let (release, reported) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let (wait, done) = (Arc::clone(&release), Arc::clone(&reported));
    let late = ToolEntry::new("late", move |cx: RequestContext| {
        let (wait, done) = (Arc::clone(&wait), Arc::clone(&done));
        async move {
            for step in [1.0, 1.0, 0.5, 2.0] {
                cx.progress(step, None, None);
            }
            // Work left running past the answer, that reports once more.
            if cx.meta().progress_token.is_some() {
                tokio::spawn(async move {
                    wait.notified().await;
                    cx.progress(3.0, None, None);
                    done.notify_one();
                });
            }
            "answered"
        }
    });
    let mut client = Stdio::open(builder().tool(late).build().unwrap(), "2025-11-25", json!({})).await;
    let (before, _) = client.request(1, "tools/call", json!({"name": "late"})).await;
    assert!(before.is_empty(), "progress without a token: {before:?}");
    let (before, _) = client.request(2, "tools/call", json!({"name": "late", "_meta": {"progressToken": "t"}})).await;
    assert_eq!(methods(&before), ["notifications/progress", "notifications/progress"]);
    assert!(before.iter().all(|p| p["params"]["progressToken"] == "t"));
    let steps: Vec<f64> = before.iter().map(|p| p["params"]["progress"].as_f64().unwrap()).collect();
    assert_eq!(steps, [1.0, 2.0]);
    release.notify_one();
    tokio::time::timeout(Duration::from_secs(30), reported.notified()).await.expect("the late report was made");
    let (before, _) = client.request(3, "ping", json!({})).await;
    assert!(before.is_empty(), "progress after the answer: {before:?}");
    client.close().await;
}

/// Row 10: `logging` declared; `logging/setLevel` holds for every later
/// request of the session, whatever POST carries it; without logging the
/// capability and the method are absent.
#[tokio::test]
async fn logging_is_declared_and_the_level_holds_for_the_session() {
    let service = server().http_service(HttpConfig::default());
    let (session, result) = HttpSession::initialize(&service, "2025-11-25", json!({})).await;
    assert_eq!(result["capabilities"]["logging"], json!({}));
    let (before, _) = session.exchange(1, "tools/call", json!({"name": "work"})).await;
    assert!(before.is_empty(), "logs before any level was set: {before:?}");
    assert_eq!(session.exchange(2, "logging/setLevel", json!({"level": "info"})).await.1["result"], json!({}));
    for id in [3, 4] {
        let (before, _) = session.exchange(id, "tools/call", json!({"name": "work"})).await;
        let levels: Vec<&str> = before.iter().filter_map(|m| m["params"]["level"].as_str()).collect();
        assert_eq!(levels, ["info", "warning"], "{before:?}");
    }

    let quiet = builder().logging(false).build().unwrap().http_service(HttpConfig::default());
    let (session, result) = HttpSession::initialize(&quiet, "2025-11-25", json!({})).await;
    assert!(result["capabilities"].get("logging").is_none(), "{result}");
    let refusal = session.exchange(1, "logging/setLevel", json!({"level": "debug"})).await.1;
    assert_eq!(refusal["error"]["code"], -32601);
}

/// Row 11: every feature offered is declared, and only those.
#[tokio::test]
async fn capabilities_declare_exactly_the_features_offered() {
    let mut client = Stdio::start(server());
    let all = client.initialize("2025-11-25", json!({})).await["result"]["capabilities"].clone();
    client.close().await;
    for feature in ["tools", "resources", "prompts", "completions", "logging"] {
        assert!(all[feature].is_object(), "{feature} missing: {all}");
    }
    let tools_only = Server::builder("t", "1").tool(ToolEntry::new("e", || async { "e" })).logging(false).build();
    let mut client = Stdio::start(tools_only.unwrap());
    let some = client.initialize("2025-11-25", json!({})).await["result"]["capabilities"].clone();
    let declared: Vec<&String> = some.as_object().unwrap().keys().collect();
    assert_eq!(declared, ["tools"], "{some}");
    client.close().await;
}

/// Row 12: an output schema's root is an object (a non-object value is
/// wrapped) and the structured content conforms to it.
#[tokio::test]
async fn structured_output_has_an_object_schema_and_conforms_to_it() {
    let mut client = Stdio::open(server(), "2025-11-25", json!({})).await;
    let tools = client.request(1, "tools/list", json!({})).await.1["result"]["tools"].clone();
    for (id, name) in [(2, "forecast"), (3, "numbers")] {
        let tool = tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
        let schema = &tool["outputSchema"];
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        let result = client.request(id, "tools/call", json!({"name": name})).await.1["result"].clone();
        let structured = &result["structuredContent"];
        assert!(structured.is_object(), "{name}: {result}");
        if let Err(e) = jsonschema::validate(schema, structured) {
            panic!("{name}: {structured} does not conform to {schema}: {e}");
        }
    }
    client.close().await;
}

/// Rows 13 and 14: a failing tool and invalid arguments are `isError`
/// results; an unknown tool is -32602.
#[tokio::test]
async fn tool_failures_are_results_and_an_unknown_tool_is_invalid_params() {
    let mut client = Stdio::open(server(), "2025-11-25", json!({})).await;
    for (id, name, arguments) in [(1, "fails", json!({})), (2, "double", json!({"n": "two"})), (3, "double", json!({}))]
    {
        let result = client.request(id, "tools/call", json!({"name": name, "arguments": arguments})).await.1;
        assert_eq!(result["result"]["isError"], true, "{name} {arguments}: {result}");
        assert!(result["result"]["content"][0]["text"].as_str().is_some_and(|t| !t.is_empty()), "{result}");
    }
    let unknown = client.request(4, "tools/call", json!({"name": "nowhere"})).await.1;
    assert_eq!(unknown["error"]["code"], -32602);
    client.close().await;
}

/// Row 15: a missing resource is -32002, a `uri` that is not a string
/// -32602, and binary contents are base64.
#[tokio::test]
async fn resources_missing_malformed_and_binary() {
    let mut client = Stdio::open(server(), "2025-11-25", json!({})).await;
    let missing = client.request(1, "resources/read", json!({"uri": "blobs://nothing"})).await.1;
    assert_eq!(missing["error"]["code"], -32002);
    let malformed = client.request(2, "resources/read", json!({"uri": 5})).await.1;
    assert_eq!(malformed["error"]["code"], -32602);
    let binary = client.request(3, "resources/read", json!({"uri": "blobs://pixel"})).await.1;
    let contents = &binary["result"]["contents"][0];
    assert_eq!(contents["blob"], "AAEC/w==", "{binary}");
    assert!(contents.get("text").is_none());
    client.close().await;
}

/// Row 16: on the GET stream, `resources/updated` only for the URIs the
/// session is subscribed to; `list_changed` only when declared.
#[tokio::test(start_paused = true)]
async fn updates_only_for_subscribed_uris_and_list_changes_only_when_declared() {
    let server = server();
    let service = server.http_service(HttpConfig::default());
    let session = HttpSession::open(&service, "2025-11-25", json!({})).await;
    let mut stream = session.listen().await;
    assert_eq!(
        session.exchange(1, "resources/subscribe", json!({"uri": "notes://first"})).await.1["result"],
        json!({})
    );
    server.notify_resource_updated("notes://other");
    server.notify_resource_updated("notes://first");
    // Read before unsubscribing: whether a change is announced is decided
    // as it reaches the session, which may come after a later request.
    let first = stream.next_message().await.expect("the update");
    assert_eq!(first["method"], "notifications/resources/updated");
    assert_eq!(first["params"]["uri"], "notes://first");
    assert_eq!(
        session.exchange(2, "resources/unsubscribe", json!({"uri": "notes://first"})).await.1["result"],
        json!({})
    );
    server.notify_resource_updated("notes://first");
    server.remove_tool("echo");
    let second = stream.next_message().await.expect("the list change");
    assert_eq!(second["method"], "notifications/tools/list_changed", "{second}");

    let unlisted = builder().list_changed(false).build().unwrap();
    let service = unlisted.http_service(HttpConfig::default());
    let (session, result) = HttpSession::initialize(&service, "2025-11-25", json!({})).await;
    assert!(result["capabilities"]["tools"].get("listChanged").is_none(), "{result}");
    let mut stream = session.listen().await;
    let refusal = session.exchange(1, "resources/subscribe", json!({"uri": "notes://first"})).await.1;
    assert_eq!(refusal["error"]["code"], -32601);
    unlisted.remove_tool("echo");
    unlisted.notify_resource_updated("notes://first");
    // On the paused clock this times out only once every task waits.
    let quiet = tokio::time::timeout(Duration::from_secs(1), stream.next_message()).await;
    assert!(quiet.is_err(), "sent without being declared: {quiet:?}");
}

/// Row 17: at most 100 values, the total and `hasMore` telling the rest;
/// a reference to nothing served is -32602.
#[tokio::test]
async fn completion_carries_at_most_100_values() {
    let mut client = Stdio::open(server(), "2025-11-25", json!({})).await;
    let references =
        [json!({"type": "ref/prompt", "name": "greeting"}), json!({"type": "ref/resource", "uri": "notes://{name}"})];
    for (id, reference) in (1..).zip(references) {
        let params = json!({"ref": reference, "argument": {"name": "name", "value": ""}});
        let answer = client.request(id, "completion/complete", params).await.1;
        let completion = &answer["result"]["completion"];
        assert_eq!(completion["values"].as_array().map(Vec::len), Some(100), "{answer}");
        assert_eq!(completion["total"], COMPLETIONS);
        assert_eq!(completion["hasMore"], true);
    }
    let unknown = json!({"ref": {"type": "ref/prompt", "name": "nowhere"}, "argument": {"name": "name", "value": ""}});
    assert_eq!(client.request(3, "completion/complete", unknown).await.1["error"]["code"], -32602);
    client.close().await;
}
