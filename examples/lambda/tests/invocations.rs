//! The function answering real event documents of API Gateway REST APIs
//! (payload 1.0), HTTP APIs and function URLs (payload 2.0), through the
//! handler `main` runs and the conversions `lambda_http::run` applies:
//! what comes back is the response document Lambda receives.

mod support;

use serde_json::{Value, json};
use support::{SHAPES, Shape, event, exchange, exchange_with, handler, invoke, mcp_headers, request};

fn no_capabilities() -> Value {
    json!({})
}

#[tokio::test]
async fn the_stored_events_are_answered_as_they_are() {
    // The templates hold a `server/discover` request: no edit at all.
    let function = handler();
    for shape in SHAPES {
        let reply = invoke(&function, shape, shape.template()).await;
        assert_eq!(reply.status, 200, "{shape:?}: {:?}", reply.raw);
        let body = reply.json();
        assert_eq!(body["id"], 1, "{shape:?}");
        assert_eq!(body["result"]["supportedVersions"], json!(["2026-07-28"]), "{shape:?}");
    }
}

#[tokio::test]
async fn discover_declares_a_stateless_server_without_streams() {
    let function = handler();
    for shape in SHAPES {
        let reply = exchange(&function, shape, &request(7, "server/discover", json!({}), no_capabilities())).await;
        assert_eq!(reply.status, 200, "{shape:?}: {:?}", reply.raw);
        let body = reply.json();
        assert_eq!(body["id"], 7);
        let result = &body["result"];
        assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
        let capabilities = &result["capabilities"];
        // Nothing a buffered response could not deliver is offered.
        assert!(capabilities.get("logging").is_none(), "{capabilities}");
        assert!(capabilities["tools"].get("listChanged").is_none(), "{capabilities}");
        assert!(capabilities["resources"].get("subscribe").is_none(), "{capabilities}");
        assert!(capabilities.get("completions").is_some(), "{capabilities}");
    }
}

#[tokio::test]
async fn every_fixture_of_the_everything_example_is_listed() {
    let function = handler();
    let reply = exchange(&function, Shape::HttpApi, &request(2, "tools/list", json!({}), no_capabilities())).await;
    assert_eq!(reply.status, 200);
    let tools = reply.json()["result"]["tools"].as_array().expect("a list").clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().expect("a name")).collect();
    // 28 `#[tool]`s in the example's modules, and the one registered by hand.
    assert_eq!(names.len(), 29, "{names:?}");
    for name in [
        "test_simple_text",
        "test_image_content",
        "test_error_handling",
        "test_tool_with_progress",
        "test_echo",
        "test_input_required_result_request_state",
        "test_input_required_result_multi_round",
        "test_sampling",
        "test_resource_link",
        "json_schema_2020_12_tool",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let prompts = exchange(&function, Shape::RestApi, &request(3, "prompts/list", json!({}), no_capabilities())).await;
    assert!(prompts.json()["result"]["prompts"].as_array().is_some_and(|p| p.len() == 5), "{}", prompts.body);
    let read = request(4, "resources/read", json!({"uri": "test://static-text"}), no_capabilities());
    let read = exchange(&function, Shape::FunctionUrl, &read).await;
    assert_eq!(
        read.json()["result"]["contents"][0]["text"],
        "This is the content of the static text resource.",
        "{}",
        read.body
    );
}

#[tokio::test]
async fn a_tool_call_answers_with_plain_json_on_every_shape() {
    let function = handler();
    for shape in SHAPES {
        let call = request(5, "tools/call", json!({"name": "test_simple_text", "arguments": {}}), no_capabilities());
        let reply = exchange(&function, shape, &call).await;
        assert_eq!(reply.status, 200, "{shape:?}: {:?}", reply.raw);
        assert_eq!(reply.headers.len(), 1, "only Content-Type: {:?}", reply.headers);
        let body = reply.json();
        assert_eq!(body["result"]["content"][0]["text"], "This is a simple text response for testing.");
        assert_eq!(body["result"]["resultType"], "complete", "{body}");
    }
}

#[tokio::test]
async fn a_header_param_travels_through_the_gateway() {
    let function = handler();
    let call = request(
        6,
        "tools/call",
        json!({"name": "test_echo", "arguments": {"message": "hi", "region": "eu"}}),
        json!({}),
    );
    for shape in SHAPES {
        let reply = exchange_with(&function, shape, &call, &[("Mcp-Param-Region", "eu")]).await;
        assert_eq!(reply.json()["result"]["content"][0]["text"], "hi (from eu)", "{shape:?}: {:?}", reply.raw);
    }
    // Without the header, the body and the headers disagree: 400 and -32020.
    let reply = exchange(&function, Shape::FunctionUrl, &call).await;
    assert_eq!(reply.status, 400, "{:?}", reply.raw);
    assert_eq!(reply.json()["error"]["code"], -32020, "{}", reply.body);
}

#[tokio::test]
async fn progress_notifications_are_dropped_and_the_result_comes_as_json() {
    // A client that takes both formats would get an event stream from a
    // server that can stream; a buffered function answers JSON.
    let function = handler();
    let call = request(8, "tools/call", json!({"name": "test_tool_with_progress", "arguments": {}}), json!({}));
    let mut call = call;
    call["params"]["_meta"]["progressToken"] = json!("p-1");
    let reply = exchange(&function, Shape::HttpApi, &call).await;
    assert_eq!(reply.status, 200, "{:?}", reply.raw);
    assert_eq!(reply.json()["result"]["content"][0]["text"], "Progress test completed");
}

#[tokio::test]
async fn a_client_taking_only_event_streams_gets_a_complete_one() {
    let function = handler();
    let mut call = request(9, "tools/call", json!({"name": "test_tool_with_progress", "arguments": {}}), json!({}));
    call["params"]["_meta"]["progressToken"] = json!("p-2");
    let reply = exchange_with(&function, Shape::FunctionUrl, &call, &[("Accept", "text/event-stream")]).await;
    assert_eq!(reply.status, 200, "{:?}", reply.raw);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"), "{:?}", reply.raw);
    let text = &reply.body;
    let events: Vec<Value> = text
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|data| serde_json::from_str(data).expect("JSON"))
        .collect();
    let progress = events.iter().filter(|e| e["method"] == "notifications/progress").count();
    assert_eq!(progress, 3, "{text}");
    let last = events.last().expect("events");
    assert_eq!(last["id"], 9, "the result ends the stream: {text}");
    assert_eq!(last["result"]["content"][0]["text"], "Progress test completed");
}

#[tokio::test]
async fn a_multi_round_trip_request_resumes_on_another_instance() {
    let elicitation = json!({"elicitation": {"form": {}}});
    let first = handler();
    let call = request(
        10,
        "tools/call",
        json!({"name": "test_input_required_result_request_state", "arguments": {}}),
        elicitation.clone(),
    );
    let reply = exchange(&first, Shape::RestApi, &call).await;
    assert_eq!(reply.status, 200, "{:?}", reply.raw);
    let result = reply.json()["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert_eq!(result["inputRequests"]["confirm"]["method"], "elicitation/create", "{result}");
    let state = result["requestState"].as_str().expect("a sealed state").to_owned();
    drop(first);

    // The retry reaches an instance built afresh (a cold start, another
    // shape even): everything it needs is in the request.
    let retry = request(
        11,
        "tools/call",
        json!({
            "name": "test_input_required_result_request_state",
            "arguments": {},
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
            "requestState": state,
        }),
        elicitation.clone(),
    );
    let reply = exchange(&handler(), Shape::FunctionUrl, &retry).await;
    assert_eq!(reply.status, 200, "{:?}", reply.raw);
    let result = reply.json()["result"].clone();
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["content"][0]["text"], "state-ok: confirmed=true", "{result}");

    // An instance sealing with another secret refuses the state.
    let stranger = lambda_example::Handler::new(
        &lambda_example::Settings::from_secret("another secret, also longer than thirty-two bytes").expect("valid"),
    )
    .expect("a valid server");
    let reply = exchange(&stranger, Shape::FunctionUrl, &retry).await;
    let error = reply.json()["error"].clone();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(error["message"].as_str().is_some_and(|m| m.contains("requestState")), "{error}");
}

#[tokio::test]
async fn a_base64_encoded_body_is_read() {
    let function = handler();
    let call = request(12, "tools/call", json!({"name": "test_simple_text", "arguments": {}}), json!({}));
    let body = serde_json::to_vec(&call).expect("JSON");
    for shape in SHAPES {
        let reply = invoke(&function, shape, &event(shape, &body, true, &mcp_headers(&call))).await;
        assert_eq!(reply.status, 200, "{shape:?}: {:?}", reply.raw);
        assert_eq!(reply.json()["result"]["content"][0]["text"], "This is a simple text response for testing.");
    }
}
