//! Steps 8 to 13 of the validation pipeline, each on its own and in the
//! order the digest pins: `_meta` (-32602) before the HTTP headers (-32020)
//! before the version (-32022) before routing (-32601) before the method's
//! params (-32602).

use mcp_runtime::dispatch::Stage;
use mcp_tests::exchange::{request, send, send_bytes, send_bytes_with_headers, send_with_headers};
use serde_json::{Value, json};

use crate::fixture::{self, FakeHeaders, HeaderCall};

const V: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS: &str = "io.modelcontextprotocol/clientCapabilities";

fn with_meta(id: i64, method: &str, meta: Value) -> Value {
    request(id, method, json!({ "_meta": meta }))
}

#[tokio::test]
async fn missing_or_malformed_meta_is_invalid_params_echoing_the_id() {
    let server = fixture::full();
    let no_params = json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover"});
    let cases = [
        no_params,
        json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover", "params": null}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover", "params": [1]}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover", "params": {"_meta": null}}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "server/discover", "params": {"_meta": 5}}),
        with_meta(11, "server/discover", json!({ CAPS: {} })),
        with_meta(11, "server/discover", json!({ V: "2026-07-28" })),
        with_meta(11, "server/discover", json!({ V: 20260728, CAPS: {} })),
        with_meta(11, "server/discover", json!({ V: "2026-07-28", CAPS: [] })),
        with_meta(11, "server/discover", json!({ V: "2026-07-28", CAPS: null })),
        with_meta(11, "server/discover", json!({ V: "2026-07-28", CAPS: {"elicitation": 3} })),
        with_meta(
            11,
            "server/discover",
            json!({ V: "2026-07-28", CAPS: {}, "io.modelcontextprotocol/clientInfo": {"name": 1} }),
        ),
        with_meta(11, "server/discover", json!({ V: "2026-07-28", CAPS: {}, "progressToken": {"t": 1} })),
    ];
    for message in cases {
        let reply = send(&server, &message).await;
        assert_eq!(reply.code(), -32602, "for {message}");
        assert_eq!(reply.response()["id"], json!(11));
        assert_eq!(reply.stage, Some(Stage::Meta));
        assert_eq!(reply.http_status, Some(400), "a malformed `_meta` is rejected before dispatch");
    }
    // The message says what is wrong, not always "must be an object".
    let repeated = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let reply = mcp_tests::exchange::send_bytes(&server, repeated.as_bytes()).await;
    let text = reply.error()["message"].as_str().unwrap_or_default();
    assert!(text.contains("could not be read") && text.contains("duplicate field"), "{text}");
    let not_object = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":5}}"#;
    let reply = mcp_tests::exchange::send_bytes(&server, not_object.as_bytes()).await;
    let text = reply.error()["message"].as_str().unwrap_or_default();
    assert!(text.contains("`_meta` must be an object"), "{text}");
}

/// `params` that are JSON but not an object fail where `_meta` is read,
/// before routing, whatever the method, even an array holding what would
/// pass as the object's members.
#[tokio::test]
async fn params_that_are_not_an_object_are_rejected_before_any_other_check() {
    let server = fixture::full();
    let meta = mcp_tests::wire_schema::request_meta();
    let methods = [
        "server/discover",
        "tools/list",
        "tools/call",
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "completion/complete",
        "subscriptions/listen",
        "nope/nope",
    ];
    let not_objects = [json!([meta]), json!([meta, "add"]), json!([{"_meta": meta}]), json!([]), json!("x"), json!(5)];
    for method in methods {
        for params in &not_objects {
            let message = json!({"jsonrpc": "2.0", "id": 4, "method": method, "params": params});
            let headers = FakeHeaders::matching(method, Some("add"));
            for reply in [send(&server, &message).await, send_with_headers(&server, &message, &headers).await] {
                assert_eq!(reply.error()["message"], json!("`params` must be an object"), "for {message}");
                assert_eq!(reply.code(), -32602, "for {message}");
                assert_eq!(reply.response()["id"], json!(4));
                assert_eq!((reply.stage, reply.http_status), (Some(Stage::Meta), Some(400)), "for {message}");
            }
            assert!(headers.calls().is_empty(), "headers were compared for {message}");
        }
    }
}

/// A member written twice in `params` is an error only where the dispatcher
/// reads it before routing: `_meta` always, and the name or URI that the
/// header checks compare. Any other member may repeat, as JSON allows.
#[tokio::test]
async fn repeated_params_members_are_rejected_where_the_dispatcher_reads_them() {
    let server = fixture::full();
    let meta = mcp_tests::wire_schema::request_meta();
    let message = |method: &str, members: String| {
        format!(r#"{{"jsonrpc":"2.0","id":6,"method":"{method}","params":{{{members}}}}}"#)
    };
    let unread = r#""name":"a","name":"b","uri":1,"uri":2,"x":[],"x":{}"#;
    let harmless = [
        message("server/discover", format!(r#""_meta":{meta},{unread}"#)),
        message("tools/list", format!(r#"{unread},"_meta":{meta}"#)),
        message("resources/read", format!(r#""uri":"docs://readme","name":1,"name":2,"x":0,"x":0,"_meta":{meta}"#)),
        message("prompts/get", format!(r#""name":"apology","uri":1,"uri":2,"_meta":{meta}"#)),
        message("tools/call", format!(r#""name":"add","uri":1,"uri":2,"arguments":{{"a":1,"b":2}},"_meta":{meta}"#)),
    ];
    for text in harmless {
        send_bytes(&server, text.as_bytes()).await.result();
    }
    let rejected = [
        (message("server/discover", format!(r#""_meta":{meta},"_meta":{meta}"#)), "_meta"),
        (message("tools/call", format!(r#""_meta":{meta},"name":"add","_meta":{meta},"name":"add""#)), "_meta"),
        (message("tools/call", format!(r#""name":"add","_meta":{meta},"name":"add""#)), "name"),
        (message("prompts/get", format!(r#""name":"apology","name":"greet","_meta":{meta}"#)), "name"),
        (message("resources/read", format!(r#""uri":"docs://readme","uri":"docs://readme","_meta":{meta}"#)), "uri"),
    ];
    for (text, repeated) in rejected {
        let reply = send_bytes(&server, text.as_bytes()).await;
        assert_eq!(reply.code(), -32602, "for {text}");
        assert_eq!(reply.error()["message"], json!(format!("`params.{repeated}` appears more than once")));
        assert_eq!(reply.response()["id"], json!(6));
        assert_eq!((reply.stage, reply.http_status), (Some(Stage::Meta), Some(400)), "for {text}");
    }
}

#[tokio::test]
async fn an_unknown_or_malformed_log_level_is_invalid_params() {
    let server = fixture::full();
    for level in [json!("verbose"), json!("INFO"), json!(3), json!(null)] {
        let meta = json!({ V: "2026-07-28", CAPS: {}, "io.modelcontextprotocol/logLevel": level });
        let reply = send(&server, &with_meta(1, "tools/list", meta)).await;
        assert_eq!(reply.code(), -32602, "for logLevel {level}");
    }
    let meta = json!({ V: "2026-07-28", CAPS: {}, "io.modelcontextprotocol/logLevel": "emergency" });
    send(&server, &with_meta(1, "tools/list", meta)).await.result();
}

#[tokio::test]
async fn a_request_without_client_info_is_served() {
    let server = fixture::full();
    let reply = send(&server, &with_meta(1, "server/discover", json!({ V: "2026-07-28", CAPS: {} }))).await;
    // The fixture serves both eras (the default): the 2025-era versions are listed too.
    assert_eq!(reply.result()["supportedVersions"], json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]));
    assert_eq!(reply.http_status, Some(200));
}

#[tokio::test]
async fn unknown_meta_keys_and_capabilities_are_tolerated() {
    let server = fixture::full();
    let meta = json!({
        V: "2026-07-28",
        CAPS: {"elicitation": {"form": {}, "future": {}}, "com.example/feature": {"x": 1}, "roots": {}},
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "com.example/tenant": {"id": 9},
        "io.modelcontextprotocol/somethingNew": [1, 2, 3],
    });
    let reply =
        send(&server, &request(1, "tools/call", json!({"_meta": meta, "name": "add", "arguments": {"a": 1, "b": 2}})))
            .await;
    assert_eq!(reply.result()["content"][0]["text"], json!("3"));
}

#[tokio::test]
async fn an_unsupported_version_names_the_supported_ones_and_echoes_the_request() {
    let server = fixture::full();
    let discover = send(&server, &request(1, "server/discover", Value::Null)).await;
    let supported = discover.result()["supportedVersions"].as_array().cloned().expect("a list");
    for requested in ["v999.0.0", "2025-11-25", "", "2026-07-28 "] {
        let reply = send(&server, &with_meta(5, "tools/list", json!({ V: requested, CAPS: {} }))).await;
        assert_eq!(reply.code(), -32022, "for {requested:?}");
        let data = &reply.error()["data"];
        assert_eq!(data["requested"], json!(requested));
        let listed = data["supported"].as_array().expect("data.supported");
        assert!(!listed.is_empty() && listed.iter().all(|v| supported.contains(v)), "{data} vs {supported:?}");
        assert_eq!(reply.response()["id"], json!(5));
        assert_eq!(reply.stage, Some(Stage::Version));
        assert_eq!(reply.http_status, Some(400));
    }
}

#[tokio::test]
async fn unknown_removed_and_unadvertised_methods_are_not_found() {
    let full = fixture::full();
    let removed = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];
    let unknown =
        ["tools/lists", "Tools/List", "", "notifications/cancelled", "notifications/initialized", "tasks/get"];
    for method in removed.iter().chain(&unknown) {
        let reply = send(&full, &request("r", method, json!({"name": "add", "uri": "docs://readme"}))).await;
        assert_eq!(reply.code(), -32601, "for {method:?}");
        assert_eq!(reply.response()["id"], json!("r"));
        assert_eq!(reply.stage, Some(Stage::Routing));
        assert_eq!(reply.http_status, Some(404));
    }

    let tools_only = fixture::tools_only();
    for method in [
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "completion/complete",
    ] {
        let reply = send(&tools_only, &request(1, method, json!({"name": "x", "uri": "docs://readme"}))).await;
        assert_eq!(reply.code(), -32601, "`{method}` is not advertised by a tools-only server");
    }
    let nothing = mcp_runtime::Server::builder("empty", "0.0.0").build().expect("an empty server builds");
    for method in ["tools/list", "tools/call"] {
        assert_eq!(send(&nothing, &request(1, method, json!({"name": "add"}))).await.code(), -32601);
    }
    // Discover is always served.
    send(&nothing, &request(1, "server/discover", Value::Null)).await.result();
}

#[tokio::test]
async fn method_params_are_checked_after_routing() {
    let server = fixture::full();
    let cases = [
        ("tools/call", json!({})),
        ("tools/call", json!({"name": 5})),
        ("tools/call", json!({"name": "nope"})),
        ("tools/call", json!({"name": "add", "arguments": [1, 2]})),
        ("tools/call", json!({"name": "add", "arguments": "a=1"})),
        ("prompts/get", json!({})),
        ("prompts/get", json!({"name": "nope"})),
        ("prompts/get", json!({"name": "greet"})),
        ("prompts/get", json!({"name": "greet", "arguments": {}})),
        ("prompts/get", json!({"name": "greet", "arguments": {"name": 5}})),
        ("resources/read", json!({})),
        ("resources/read", json!({"uri": 5})),
        ("tools/list", json!({"cursor": 5})),
        ("tools/list", json!({"cursor": "not-a-cursor"})),
        ("prompts/list", json!({"cursor": ""})),
        ("resources/list", json!({"cursor": "bWNwMTo5OTk"})),
        ("resources/templates/list", json!({"cursor": "bWNwMTotMQ"})),
        ("completion/complete", json!({})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "x://nope/{id}"}, "argument": {"name": "id", "value": ""}}),
        ),
        ("completion/complete", json!({"ref": {"type": "ref/other"}, "argument": {"name": "a", "value": ""}})),
        ("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}})),
    ];
    for (method, params) in cases {
        let reply = send(&server, &request(9, method, params.clone())).await;
        assert_eq!(reply.code(), -32602, "{method} {params}");
        assert_eq!(reply.response()["id"], json!(9));
        assert_eq!(reply.http_status, Some(200), "post-routing errors ride on 200: {method} {params}");
    }
}

#[tokio::test]
async fn unknown_tools_and_prompts_are_named_in_the_error() {
    let server = fixture::full();
    let reply = send(&server, &request(1, "tools/call", json!({"name": "teleport", "arguments": {}}))).await;
    assert_eq!(reply.code(), -32602);
    assert!(reply.error()["message"].as_str().is_some_and(|m| m.contains("teleport")), "{}", reply.error());
    let reply = send(&server, &request(1, "prompts/get", json!({"name": "sonnet"}))).await;
    assert!(reply.error()["message"].as_str().is_some_and(|m| m.contains("sonnet")), "{}", reply.error());
    let reply = send(&server, &request(1, "prompts/get", json!({"name": "greet"}))).await;
    assert!(reply.error()["message"].as_str().is_some_and(|m| m.contains("name")), "{}", reply.error());
}

// --- The pinned orderings --------------------------------------------------

/// Every check fails at once; each removal of the first failing one exposes
/// the next, proving the whole order 8 → 9 → 10 → 11 → 12 → 13.
#[tokio::test]
async fn each_step_runs_in_the_pinned_order() {
    let server = fixture::full();
    let mismatching = FakeHeaders::matching("tools/call", Some("other"));
    let params_mismatch = FakeHeaders { params_mismatch: true, ..FakeHeaders::matching("tools/call", Some("add")) };
    let matching = FakeHeaders::matching("tools/call", Some("add"));
    let tool_call = |meta: Value, method: &str, name: &str| {
        request(1, method, json!({"_meta": meta, "name": name, "arguments": {"a": 1, "b": 2}}))
    };
    let good = json!({ V: "2026-07-28", CAPS: {} });
    let bad_version = json!({ V: "v999.0.0", CAPS: {} });
    let no_version = json!({ CAPS: {} });

    // 8 before 9: no version in the body, headers disagree anyway.
    let reply = send_with_headers(&server, &tool_call(no_version, "nope/nope", "x"), &mismatching).await;
    assert_eq!((reply.code(), reply.stage, reply.http_status), (-32602, Some(Stage::Meta), Some(400)));
    assert!(mismatching.calls().is_empty(), "headers were compared before `_meta` was checked");

    // 9 before 10: unsupported body version and a header mismatch.
    let reply = send_with_headers(&server, &tool_call(bad_version.clone(), "tools/call", "add"), &mismatching).await;
    assert_eq!((reply.code(), reply.stage, reply.http_status), (-32020, Some(Stage::Headers), Some(400)));

    // 10 before 11: headers agree, the version is unsupported, the method unknown.
    let unknown_method =
        FakeHeaders { protocol_version: "v999.0.0".into(), ..FakeHeaders::matching("nope/nope", None) };
    let reply = send_with_headers(&server, &tool_call(bad_version, "nope/nope", "x"), &unknown_method).await;
    assert_eq!((reply.code(), reply.stage, reply.http_status), (-32022, Some(Stage::Version), Some(400)));

    // 11 before 12: a removed method with params that would not parse.
    let removed = FakeHeaders::matching("ping", None);
    let reply = send_with_headers(&server, &request(1, "ping", json!({"_meta": good, "cursor": 5})), &removed).await;
    assert_eq!((reply.code(), reply.stage, reply.http_status), (-32601, Some(Stage::Routing), Some(404)));

    // 12 before 13: an unknown tool is reported before its parameter headers are compared.
    let unknown_tool = FakeHeaders { params_mismatch: true, ..FakeHeaders::matching("tools/call", Some("nope")) };
    let reply = send_with_headers(&server, &tool_call(good.clone(), "tools/call", "nope"), &unknown_tool).await;
    assert_eq!((reply.code(), reply.stage), (-32602, Some(Stage::Params)));
    assert!(!unknown_tool.calls().iter().any(|c| matches!(c, HeaderCall::ToolArguments { .. })));

    // 13: parameter headers disagree with the arguments.
    let reply = send_with_headers(&server, &tool_call(good.clone(), "tools/call", "add"), &params_mismatch).await;
    assert_eq!((reply.code(), reply.stage, reply.http_status), (-32020, Some(Stage::Headers), Some(400)));

    // Everything agrees: the handler runs.
    let reply = send_with_headers(&server, &tool_call(good, "tools/call", "add"), &matching).await;
    assert_eq!(reply.result()["content"][0]["text"], json!("3"));
    assert_eq!(
        matching.calls(),
        vec![
            HeaderCall::Request {
                method: "tools/call".into(),
                protocol_version: "2026-07-28".into(),
                name: Some("add".into())
            },
            HeaderCall::ToolArguments { tool: "add".into(), arguments: Some(r#"{"a":1,"b":2}"#.into()) },
        ]
    );
}

/// `_meta` is malformed and the version would be unsupported too: -32602 wins.
#[tokio::test]
async fn malformed_meta_wins_over_an_unsupported_version() {
    let server = fixture::full();
    let reply = send(&server, &with_meta(1, "tools/list", json!({ V: "v999.0.0" }))).await;
    assert_eq!(reply.code(), -32602);
    let reply = send(&server, &with_meta(1, "nope/nope", json!({ V: "v999.0.0", CAPS: {} }))).await;
    assert_eq!(reply.code(), -32022, "the version is checked before routing");
}

#[tokio::test]
async fn headers_see_the_name_or_uri_the_body_carries() {
    let server = fixture::full();
    let cases = [
        ("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}}), Some("add")),
        ("prompts/get", json!({"name": "apology"}), Some("apology")),
        ("resources/read", json!({"uri": "docs://readme", "name": "ignored"}), Some("docs://readme")),
        ("tools/list", json!({"name": "ignored"}), None),
    ];
    for (method, params, name) in cases {
        let headers = FakeHeaders::matching(method, name);
        send_with_headers(&server, &request(1, method, params), &headers).await.result();
        let HeaderCall::Request { name: seen, .. } = &headers.calls()[0] else { panic!("no request check") };
        assert_eq!(seen.as_deref(), name, "for {method}");
    }
    // A name written with escapes reaches the check decoded, in either
    // member order (`method` first is read in one pass, `params` first the
    // general way) and for each named method.
    let meta = mcp_tests::wire_schema::request_meta();
    for (method, member, escaped, name, rest) in [
        ("tools/call", "name", r"a\u0064d", "add", r#","arguments":{"a":1,"b":1}"#),
        ("prompts/get", "name", r"apo\u006cogy", "apology", ""),
        ("resources/read", "uri", r"docs:\/\/readme", "docs://readme", ""),
    ] {
        let params = format!(r#"{{"_meta":{meta},"{member}":"{escaped}"{rest}}}"#);
        for text in [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#),
            format!(r#"{{"params":{params},"jsonrpc":"2.0","id":1,"method":"{method}"}}"#),
        ] {
            assert!(text.contains(escaped), "the escape is on the wire");
            let headers = FakeHeaders::matching(method, Some(name));
            send_bytes_with_headers(&server, text.as_bytes(), &headers).await.result();
            let HeaderCall::Request { name: seen, .. } = &headers.calls()[0] else { panic!("no request check") };
            assert_eq!(seen.as_deref(), Some(name), "for {text}");
        }
    }
}

/// Capabilities come from this request only: nothing is remembered.
#[tokio::test]
async fn client_capabilities_are_read_from_each_request_alone() {
    let server = fixture::full();
    let with_sampling = json!({ V: "2026-07-28", CAPS: {"sampling": {}} });
    let without = json!({ V: "2026-07-28", CAPS: {} });
    let call = |meta: &Value| request(1, "tools/call", json!({"_meta": meta, "name": "needs_sampling"}));
    for _ in 0..2 {
        let reply = send(&server, &call(&without)).await;
        assert_eq!(reply.code(), -32021);
        assert_eq!(reply.error()["data"]["requiredCapabilities"], json!({"sampling": {}}));
        assert_eq!(reply.http_status, Some(400));
        let reply = send(&server, &call(&with_sampling)).await;
        assert_eq!(reply.result()["content"][0]["text"], json!("sampled"));
    }
}
