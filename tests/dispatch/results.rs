//! What the methods answer: decorations every result carries, cache hints,
//! sorting, pagination, capabilities, and handler outcomes.

use std::sync::{Arc, Mutex};

use mcp_runtime::client::MessageKind;
use mcp_runtime::protocol::{CacheHints, CacheScope};
use mcp_runtime::{
    Args, Server,
    entry::{ResourceEntry, ToolEntry},
};
use mcp_tests::exchange::{Reply, request, send};
use serde_json::{Value, json};

use crate::fixture::{self, AddArgs};

const CACHEABLE: [&str; 6] =
    ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

async fn call(server: &Server, method: &str, params: Value) -> Reply {
    let params = if method == "resources/read" && params.is_null() { json!({"uri": "docs://readme"}) } else { params };
    send(server, &request(1, method, params)).await
}

fn server_info(result: &Value) -> &Value {
    &result["_meta"]["io.modelcontextprotocol/serverInfo"]
}

#[tokio::test]
async fn every_result_carries_result_type_and_server_info() {
    let server = fixture::full();
    let calls = [
        ("server/discover", Value::Null),
        ("tools/list", Value::Null),
        ("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}})),
        ("tools/call", json!({"name": "fail"})),
        ("prompts/list", Value::Null),
        ("prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})),
        ("resources/list", Value::Null),
        ("resources/templates/list", Value::Null),
        ("resources/read", json!({"uri": "docs://readme"})),
        ("resources/read", json!({"uri": "notes://7"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
        ),
    ];
    for (method, params) in calls {
        let reply = call(&server, method, params).await;
        let result = reply.result();
        assert_eq!(result["resultType"], json!("complete"), "{method}");
        assert_eq!(server_info(result), &json!({"name": "fixture", "version": "1.2.3"}), "{method}");
        assert_eq!(reply.http_status, Some(200));
    }

    let quiet = fixture::full_builder().server_info_in_results(false).build().expect("builds");
    let reply = call(&quiet, "tools/list", Value::Null).await;
    assert!(reply.result().get("_meta").is_none(), "{}", reply.result());
}

#[tokio::test]
async fn a_handlers_own_result_meta_is_kept_beside_server_info() {
    let server = fixture::full();
    let reply = call(&server, "tools/call", json!({"name": "with_meta"})).await;
    let meta = &reply.result()["_meta"];
    assert_eq!(meta["com.example/trace"], json!("abc"));
    assert_eq!(meta["io.modelcontextprotocol/serverInfo"]["name"], json!("fixture"));
}

#[tokio::test]
async fn cache_hints_default_to_zero_and_private() {
    let server = fixture::full();
    for method in CACHEABLE {
        let reply = call(&server, method, Value::Null).await;
        let result = reply.result();
        assert_eq!((&result["ttlMs"], &result["cacheScope"]), (&json!(0), &json!("private")), "{method}");
    }
    // Results that are not cacheable carry no hints.
    for (method, params) in [
        ("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})),
        ("prompts/get", json!({"name": "apology"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "notes://{id}"}, "argument": {"name": "id", "value": "4"}}),
        ),
    ] {
        let reply = call(&server, method, params).await;
        assert!(reply.result().get("ttlMs").is_none() && reply.result().get("cacheScope").is_none(), "{method}");
    }
}

#[tokio::test]
async fn cache_hints_are_settable_per_server_per_kind_and_per_resource() {
    let hints = |server: &Server, method: &'static str, uri: &'static str| {
        let server = server.clone();
        async move {
            let reply = call(&server, method, if uri.is_empty() { Value::Null } else { json!({"uri": uri}) }).await;
            (reply.result()["ttlMs"].clone(), reply.result()["cacheScope"].clone())
        }
    };
    let public = |ttl| CacheHints::new(ttl, CacheScope::Public);

    let everywhere = fixture::full_builder().cache_hints(public(5_000)).build().expect("builds");
    for method in CACHEABLE {
        assert_eq!(hints(&everywhere, method, "").await, (json!(5_000), json!("public")), "{method}");
    }
    // A resource's own hints beat the server's.
    assert_eq!(hints(&everywhere, "resources/read", "docs://pinned").await, (json!(60_000), json!("public")));

    let split = fixture::full_builder()
        .discover_cache_hints(public(1))
        .list_cache_hints(CacheHints::new(2, CacheScope::Private))
        .read_cache_hints(public(3))
        .build()
        .expect("builds");
    assert_eq!(hints(&split, "server/discover", "").await, (json!(1), json!("public")));
    for method in ["tools/list", "prompts/list", "resources/list", "resources/templates/list"] {
        assert_eq!(hints(&split, method, "").await, (json!(2), json!("private")), "{method}");
    }
    assert_eq!(hints(&split, "resources/read", "docs://readme").await, (json!(3), json!("public")));
    assert_eq!(hints(&split, "resources/read", "notes://4").await, (json!(3), json!("public")));
    assert_eq!(hints(&split, "resources/read", "docs://pinned").await, (json!(60_000), json!("public")));
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    list[key].as_array().expect("a list").iter().map(|i| i[field].as_str().expect("a string").to_owned()).collect()
}

#[tokio::test]
async fn lists_are_sorted_by_name() {
    let server = fixture::full();
    let tools = names(call(&server, "tools/list", Value::Null).await.result(), "tools", "name");
    let mut sorted = tools.clone();
    sorted.sort();
    assert_eq!(tools, sorted);
    assert_eq!(tools.len(), fixture::tools().len());
    let prompts = names(call(&server, "prompts/list", Value::Null).await.result(), "prompts", "name");
    assert_eq!(prompts, ["apology", "broken", "greet"]);
    let resources = call(&server, "resources/list", Value::Null).await;
    assert_eq!(names(resources.result(), "resources", "name"), ["gone", "logo", "pinned", "readme", "zz-changelog"]);
    assert_eq!(names(resources.result(), "resources", "uri")[4], "docs://a-changelog");
    let templates = call(&server, "resources/templates/list", Value::Null).await;
    assert_eq!(names(templates.result(), "resourceTemplates", "name"), ["file", "note"]);
}

#[tokio::test]
async fn lists_paginate_with_opaque_cursors() {
    let server = fixture::full_builder().page_size(3).build().expect("builds");
    let expected = names(call(&fixture::full(), "tools/list", Value::Null).await.result(), "tools", "name");
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = cursor.as_ref().map_or(Value::Null, |c| json!({"cursor": c}));
        let reply = call(&server, "tools/list", params).await;
        let page = reply.result();
        assert_eq!(page["cacheScope"], json!("private"), "every page has the same scope");
        let items = names(page, "tools", "name");
        assert!(items.len() <= 3);
        seen.extend(items);
        pages += 1;
        match page.get("nextCursor") {
            Some(next) => {
                let next = next.as_str().expect("a string cursor").to_owned();
                assert!(!next.chars().all(|c| c.is_ascii_digit()), "a cursor is not a bare position: {next}");
                cursor = Some(next);
            }
            None => break,
        }
        assert!(pages < 10, "pagination does not end");
    }
    assert_eq!(seen, expected);
    assert_eq!(pages, expected.len().div_ceil(3));

    // Reusing a cursor is fine; one that is not ours, or another list's, is not.
    let first = call(&server, "tools/list", Value::Null).await;
    let next = first.result()["nextCursor"].as_str().expect("more than one page").to_owned();
    assert_eq!(
        call(&server, "tools/list", json!({"cursor": next})).await.result(),
        call(&server, "tools/list", json!({"cursor": next})).await.result()
    );
    let garbled = format!("{}!", &next[..next.len() - 1]);
    assert_eq!(call(&server, "tools/list", json!({"cursor": garbled})).await.code(), -32602);
    assert_eq!(call(&server, "prompts/list", json!({"cursor": next})).await.code(), -32602);
}

#[tokio::test]
async fn a_cursor_stays_right_when_the_list_changes_between_pages() {
    let server = fixture::full_builder().page_size(2).build().expect("builds");
    let all = names(call(&fixture::full(), "tools/list", Value::Null).await.result(), "tools", "name");
    let first = call(&server, "tools/list", Value::Null).await;
    assert_eq!(names(first.result(), "tools", "name"), all[..2]);
    let cursor = first.result()["nextCursor"].clone();

    // A tool sorting before the cursor arrives: nothing is listed twice.
    server.add_tool(mcp_runtime::entry::ToolEntry::new("_early", || async { "early" })).expect("a new tool");
    let second = call(&server, "tools/list", json!({"cursor": cursor})).await;
    assert_eq!(names(second.result(), "tools", "name"), all[2..4], "nothing repeated");
    // Tools listed already leave: nothing is skipped.
    assert!(server.remove_tool(&all[0]) && server.remove_tool(&all[1]));
    let second = call(&server, "tools/list", json!({"cursor": cursor})).await;
    assert_eq!(names(second.result(), "tools", "name"), all[2..4], "nothing skipped");
}

#[tokio::test]
async fn capabilities_are_derived_from_registrations() {
    let caps = |server: Server| async move {
        call(&server, "server/discover", Value::Null).await.result()["capabilities"].clone()
    };

    let full = caps(fixture::full()).await;
    for key in ["tools", "prompts", "resources", "completions", "logging"] {
        assert!(full.get(key).is_some(), "{key} missing from {full}");
    }

    let tools_only = caps(fixture::tools_only()).await;
    assert!(tools_only.get("tools").is_some());
    for key in ["prompts", "resources", "completions"] {
        assert!(tools_only.get(key).is_none(), "{key} advertised without registrations: {tools_only}");
    }

    let silent = Server::builder("s", "1").logging(false).build().expect("builds");
    let silent = caps(silent).await;
    assert_eq!(silent, json!({}), "nothing registered, nothing advertised");

    let template_only = Server::builder("t", "1")
        .resource(ResourceEntry::template("x://{id}", "x", || async { "x" }))
        .build()
        .expect("builds");
    let template_only = caps(template_only).await;
    assert!(template_only.get("resources").is_some() && template_only.get("completions").is_none(), "{template_only}");
}

#[tokio::test]
async fn discover_reports_versions_and_instructions() {
    let reply = call(&fixture::full(), "server/discover", Value::Null).await;
    let result = reply.result();
    // The fixture serves both eras (the default): the 2025-era versions are listed too.
    assert_eq!(result["supportedVersions"], json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]));
    assert_eq!(result["instructions"], json!("Use `add` for sums."));
    assert!(result.get("serverInfo").is_none(), "serverInfo belongs in `_meta` only");
}

#[tokio::test]
async fn tools_list_shows_input_and_output_schemas() {
    let reply = call(&fixture::full(), "tools/list", Value::Null).await;
    let tools = reply.result()["tools"].as_array().expect("tools").clone();
    let find = |name: &str| tools.iter().find(|t| t["name"] == json!(name)).cloned().expect("listed");
    let add = find("add");
    assert_eq!(add["inputSchema"]["type"], json!("object"));
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["description"], json!("Adds two numbers."));
    assert_eq!(find("count")["inputSchema"]["type"], json!("object"));
    assert_eq!(find("point")["outputSchema"]["type"], json!("object"));
}

#[tokio::test]
async fn invalid_tool_arguments_are_a_tool_error_the_model_can_read() {
    let server = fixture::full();
    // The message names the tool and the exact problem with the arguments.
    for (arguments, problem) in [
        (json!({"a": 1}), "missing field `b`"),
        (json!({"a": "one", "b": 2}), r#"invalid type: string "one", expected i64"#),
        (json!({}), "missing field `a`"),
        (Value::Null, "missing field `a`"),
    ] {
        let params =
            if arguments.is_null() { json!({"name": "add"}) } else { json!({"name": "add", "arguments": arguments}) };
        let reply = call(&server, "tools/call", params).await;
        let result = reply.result();
        assert_eq!(result["isError"], json!(true), "for {arguments}");
        let text = result["content"][0]["text"].as_str().expect("a message");
        let expected = format!("Invalid arguments for tool `add`: {problem}");
        assert!(text.starts_with(&expected), "for {arguments}: {text:?} does not start with {expected:?}");
    }
}

#[tokio::test]
async fn tool_results_cover_text_errors_and_structured_content() {
    let server = fixture::full();
    let reply = call(&server, "tools/call", json!({"name": "add", "arguments": {"a": 40, "b": 2}})).await;
    assert_eq!(reply.result()["content"], json!([{"type": "text", "text": "42"}]));
    assert!(reply.result().get("isError").is_none());

    let reply = call(&server, "tools/call", json!({"name": "fail"})).await;
    assert_eq!(reply.result()["isError"], json!(true));
    assert_eq!(reply.result()["content"][0]["text"], json!("the city is unknown; try a capital"));

    let reply = call(&server, "tools/call", json!({"name": "point"})).await;
    assert_eq!(reply.result()["structuredContent"], json!({"x": 1, "y": 2}));
}

#[tokio::test]
async fn state_reaches_handlers_and_is_shared_across_requests() {
    let server = fixture::full();
    for expected in 1..=3 {
        let reply = call(&server, "tools/call", json!({"name": "count"})).await;
        assert_eq!(reply.result()["content"][0]["text"], json!(expected.to_string()));
    }
}

#[tokio::test]
async fn a_handler_panic_is_an_internal_error_for_that_request_only() {
    let server = fixture::full();
    let reply = call(&server, "tools/call", json!({"name": "explode", "arguments": {"explode": true}})).await;
    assert_eq!(reply.code(), -32603);
    assert_eq!(reply.response()["id"], json!(1));
    assert!(!reply.error()["message"].as_str().unwrap_or_default().contains("asked to panic"), "panic text leaked");
    let reply = call(&server, "tools/call", json!({"name": "explode", "arguments": {"explode": false}})).await;
    assert_eq!(reply.result()["content"][0]["text"], json!("intact"));
    call(&server, "tools/list", Value::Null).await.result();
}

#[tokio::test]
async fn prompts_render_and_report_failures_as_internal_errors() {
    let server = fixture::full();
    let reply = call(&server, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
    assert_eq!(
        reply.result()["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}])
    );
    let reply = call(&server, "prompts/get", json!({"name": "broken"})).await;
    assert_eq!(reply.code(), -32603);
}

#[tokio::test]
async fn resources_read_fixed_templated_and_binary_contents() {
    let server = fixture::full();
    let reply = call(&server, "resources/read", json!({"uri": "docs://readme"})).await;
    assert_eq!(
        reply.result()["contents"],
        json!([{"uri": "docs://readme", "mimeType": "text/markdown", "text": "# Hello"}])
    );
    let reply = call(&server, "resources/read", json!({"uri": "notes://12"})).await;
    assert_eq!(reply.result()["contents"][0]["text"], json!("note 12"));
    let reply = call(&server, "resources/read", json!({"uri": "files://a/b/c.txt"})).await;
    assert_eq!(reply.result()["contents"][0]["text"], json!("read by resources/read"));
    let reply = call(&server, "resources/read", json!({"uri": "docs://logo"})).await;
    assert_eq!(reply.result()["contents"][0]["blob"], json!("AJ+Slg=="));
    assert_eq!(reply.result()["contents"][0]["mimeType"], json!("image/png"));
}

#[tokio::test]
async fn a_missing_resource_is_invalid_params_with_its_uri() {
    let server = fixture::full();
    // Unknown URI, a handler saying `NotFound`, a template variable that does
    // not parse, and a handler returning no contents at all.
    for uri in ["docs://nothing", "notes://0", "notes://abc", "docs://gone", "notes://"] {
        let reply = call(&server, "resources/read", json!({"uri": uri})).await;
        assert_eq!(reply.code(), -32602, "for {uri:?}");
        if uri != "notes://abc" {
            assert_eq!(reply.error()["data"], json!({"uri": uri}), "for {uri:?}");
        }
        assert_eq!(reply.http_status, Some(200));
    }
}

/// The schema types a read's `uri` `format: uri`, and so the `uri` of the
/// contents a handler gives back: what is not an absolute URI is refused
/// before any template can match it (and a handler echo it).
#[tokio::test]
async fn a_read_of_what_is_not_a_uri_is_invalid_params() {
    let server = fixture::full();
    for uri in ["", "notes", "notes://1 2", "notes://1[", "notes://%zz", "notes://caf\u{e9}"] {
        let reply = call(&server, "resources/read", json!({"uri": uri})).await;
        assert_eq!(reply.code(), -32602, "for {uri:?}");
        let message = reply.error()["message"].as_str().unwrap_or_default().to_owned();
        assert!(message.starts_with("`uri` must be an absolute URI (RFC 3986)"), "for {uri:?}: {message}");
        assert!(reply.error().get("data").is_none(), "for {uri:?}");
    }
    // Percent-encoded, the same characters make a URI.
    let reply = call(&server, "resources/read", json!({"uri": "docs://caf%C3%A9"})).await;
    assert_eq!(reply.error()["data"], json!({"uri": "docs://caf%C3%A9"}), "looked up, and not found");
}

#[tokio::test]
async fn completion_is_capped_at_one_hundred_values() {
    let server = fixture::full();
    let params = json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "x"}});
    let reply = call(&server, "completion/complete", params).await;
    let completion = &reply.result()["completion"];
    assert_eq!(completion["values"].as_array().map(Vec::len), Some(100));
    assert_eq!((&completion["total"], &completion["hasMore"]), (&json!(150), &json!(true)));
    let params = json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "many"}});
    let reply = call(&server, "completion/complete", params).await;
    let completion = &reply.result()["completion"];
    assert_eq!(completion["values"].as_array().map(Vec::len), Some(100), "cut to 100");
    assert_eq!(completion["total"], json!(1000), "the handler's own total is kept");
    // A prompt without a completer completes to nothing.
    let params = json!({"ref": {"type": "ref/prompt", "name": "apology"}, "argument": {"name": "x", "value": ""}});
    assert_eq!(call(&server, "completion/complete", params).await.result()["completion"]["values"], json!([]));
}

#[tokio::test]
async fn input_required_results_are_validated() {
    let server = fixture::full();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let reply = call(&server, "tools/call", json!({"_meta": meta, "name": "confirm"})).await;
    let result = reply.result();
    assert_eq!(result["resultType"], json!("input_required"));
    assert_eq!(result["requestState"], json!("state-1"));
    assert_eq!(result["inputRequests"]["confirm"]["method"], json!("elicitation/create"));
    assert!(result.get("ttlMs").is_none());

    let reply = call(&server, "tools/call", json!({"name": "confirm"})).await;
    assert_eq!(reply.code(), -32021, "elicitation was not declared on this request");
    let reply = call(&server, "tools/call", json!({"name": "ask_nothing"})).await;
    assert_eq!(reply.code(), -32603, "an input_required result with nothing in it is a server bug");
    let reply = call(&server, "tools/call", json!({"name": "ask_garbage"})).await;
    assert_eq!(reply.code(), -32603, "only elicitation, sampling and roots can be asked");
}

#[tokio::test]
async fn a_handler_built_input_required_result_asks_only_what_the_client_declared() {
    let server = fixture::full();
    let meta = |capabilities: Value| {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        })
    };
    let reply = call(
        &server,
        "tools/call",
        json!({"_meta": meta(json!({"elicitation": {}, "sampling": {}})), "name": "ask_carelessly"}),
    )
    .await;
    assert_eq!(reply.code(), -32021);
    let required = &reply.error()["data"]["requiredCapabilities"];
    assert_eq!(required, &json!({"elicitation": {"url": {}}, "sampling": {"tools": {}}}));
    let everything = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}});
    let reply = call(&server, "tools/call", json!({"_meta": meta(everything), "name": "ask_carelessly"})).await;
    assert_eq!(reply.result()["resultType"], "input_required");
}

#[tokio::test]
async fn notifications_are_sent_only_when_the_request_opted_in() {
    let server = fixture::full();
    let base = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let run = |meta: Value| {
        let server = server.clone();
        async move { call(&server, "tools/call", json!({"_meta": meta, "name": "report"})).await }
    };

    let silent = run(base.clone()).await;
    assert!(silent.notifications.is_empty(), "{:?}", silent.notifications);
    assert_eq!(silent.result()["content"][0]["text"], json!("reported"));

    let mut with_progress = base.clone();
    with_progress["progressToken"] = json!("tok-1");
    let reply = run(with_progress).await;
    let progress: Vec<_> =
        reply.notifications.iter().map(|n| (n["method"].clone(), n["params"]["progress"].clone())).collect();
    assert_eq!(
        progress,
        [(json!("notifications/progress"), json!(1.0)), (json!("notifications/progress"), json!(2.0))]
    );
    assert!(reply.notifications.iter().all(|n| n["params"]["progressToken"] == json!("tok-1")));

    let mut with_logs = base;
    with_logs["io.modelcontextprotocol/logLevel"] = json!("info");
    let reply = run(with_logs).await;
    assert_eq!(reply.notifications.len(), 1, "only messages at or above `info`: {:?}", reply.notifications);
    assert_eq!(reply.notifications[0]["method"], json!("notifications/message"));
    assert_eq!(reply.notifications[0]["params"]["level"], json!("warning"));

    let quiet = fixture::full_builder().logging(false).build().expect("builds");
    let mut asks_logs = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    asks_logs["io.modelcontextprotocol/logLevel"] = json!("debug");
    let reply = call(&quiet, "tools/call", json!({"_meta": asks_logs.clone(), "name": "report"})).await;
    assert!(reply.notifications.is_empty(), "logging is off: {:?}", reply.notifications);

    // The same `_meta` text is read once and shared between requests:
    // silencing it for the quiet server must not silence it for others.
    let reply = call(&fixture::full(), "tools/call", json!({"_meta": asks_logs, "name": "report"})).await;
    assert!(!reply.notifications.is_empty(), "logging is on again");
}

#[tokio::test]
async fn a_server_built_without_macros_answers_through_the_test_client() {
    let server = Server::builder("calc", "1.0.0")
        .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b }))
        .build()
        .expect("builds");
    // Each response line as it crossed the wire.
    let lines = Arc::new(Mutex::new(Vec::new()));
    let seen = lines.clone();
    let client = mcp_tests::validated_client::checked(server).observe(move |message| {
        if message.kind == MessageKind::Response {
            seen.lock().unwrap_or_else(|e| e.into_inner()).push(message.text.to_owned());
        }
    });
    let last_line = || lines.lock().unwrap_or_else(|e| e.into_inner()).pop().expect("a response line");
    client.request("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 5}})).await.expect("a result");
    let response = mcp_tests::wire_schema::assert_valid_line("tools/call", &last_line());
    assert_eq!(response["result"]["content"][0]["text"], json!("7"));
    client.request("server/discover", json!({})).await.expect("a result");
    mcp_tests::wire_schema::assert_valid_line("server/discover", &last_line());
}
