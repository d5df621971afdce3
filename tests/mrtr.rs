//! Multi round-trip requests through the dispatcher: asking for input,
//! resuming with answers, sealed state, capabilities.

use mcp_runtime::input::{Elicitation, Sampling};
use mcp_runtime::protocol::{ClientCapabilities, ElicitationCapability, SamplingCapability};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Args, Input, PromptEntry, Server, ToolEntry};
use serde_json::{Map, Value, json};

fn server() -> Server {
    Server::builder("mrtr", "1.0.0")
        .tool(ToolEntry::new("greet", |input: Input| async move {
            let answer = input.elicit("user_name", Elicitation::form("Your name?").text("name", true)).await;
            format!("Hello, {}!", answer.field("name").unwrap_or_default())
        }))
        .tool(ToolEntry::new("two_steps", |input: Input| async move {
            let first = input.elicit("step1", Elicitation::form("First?").text("a", true)).await;
            let second = input.elicit("step2", Elicitation::form("Second?").text("b", true)).await;
            format!("{} then {}", first.field("a").unwrap_or_default(), second.field("b").unwrap_or_default())
        }))
        .tool(ToolEntry::new("both_at_once", |input: Input| async move {
            let (name, model) = tokio::join!(
                input.elicit("user_name", Elicitation::form("Name?").text("name", true)),
                input.sample("greeting", Sampling::prompt("Say hi", 50)),
            );
            format!("{} / {}", name.field("name").unwrap_or_default(), model.text().unwrap_or_default())
        }))
        .tool(ToolEntry::new("needs_sampling", |input: Input| async move {
            input.sample("q", Sampling::prompt("What is 2+2?", 10)).await.text().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("sample_with_tools", |input: Input| async move {
            let request = Sampling::raw(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}}],
                "maxTokens": 50,
                "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
                "toolChoice": {"mode": "auto"},
            }));
            input.sample("q", request).await.text().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("sample_with_context", |input: Input, Args(args): Args<Map<String, Value>>| async move {
            let mut params = json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}],
                "maxTokens": 50,
            });
            if let Some(context) = args.get("includeContext") {
                params["includeContext"] = context.clone();
            }
            input.sample("q", Sampling::raw(params)).await.text().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("stateful", |input: Input| async move {
            let round = input.state().and_then(Value::as_u64).unwrap_or(0);
            input.set_state(json!(round + 1));
            let answer = input.elicit("confirm", Elicitation::form("Sure?").boolean("ok", true)).await;
            format!("round {round}, ok={}", answer.field("ok").unwrap_or_default())
        }))
        .prompt(PromptEntry::new("ask_context", |input: Input| async move {
            let answer = input.elicit("user_context", Elicitation::form("Context?").text("context", true)).await;
            format!("Context: {}", answer.field("context").unwrap_or_default())
        }))
        .build()
        .expect("valid server")
}

fn with_elicitation_and_sampling() -> ClientCapabilities {
    ClientCapabilities {
        elicitation: Some(ElicitationCapability::default()),
        sampling: Some(SamplingCapability::default()),
        ..ClientCapabilities::default()
    }
}

fn accept(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

#[tokio::test]
async fn elicitation_round_trip_completes_on_retry() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let first = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(first["resultType"], "input_required");
    let request = &first["inputRequests"]["user_name"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(request["params"]["requestedSchema"]["required"], json!(["name"]));
    let state = first["requestState"].as_str().unwrap().to_owned();

    let done = client
        .request(
            "tools/call",
            json!({"name": "greet", "arguments": {}, "inputResponses": {"user_name": accept("name", "Ada")}, "requestState": state}),
        )
        .await
        .unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn answers_without_state_are_used_and_extra_answers_ignored() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let done = client
        .request(
            "tools/call",
            json!({"name": "greet", "inputResponses": {"user_name": accept("name", "Bo"), "unknown": {"x": 1}}}),
        )
        .await
        .unwrap();
    assert_eq!(done["content"][0]["text"], "Hello, Bo!");
}

#[tokio::test]
async fn missing_or_malformed_answers_ask_again() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    for responses in [json!({"other": accept("name", "x")}), json!({"user_name": 12345}), Value::Null] {
        let again = client.request("tools/call", json!({"name": "greet", "inputResponses": responses})).await.unwrap();
        assert_eq!(again["resultType"], "input_required", "{responses}");
        assert!(again["inputRequests"]["user_name"].is_object());
    }
    let err = client.request("tools/call", json!({"name": "greet", "inputResponses": [1]})).await.unwrap_err();
    assert_eq!(err.code, -32602);
}

#[tokio::test]
async fn multi_round_carries_earlier_answers_in_new_state() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let r1 = client.call_tool("two_steps", json!({})).await.unwrap();
    assert!(r1["inputRequests"]["step1"].is_object());
    let s1 = r1["requestState"].as_str().unwrap().to_owned();
    let r2 = client
        .request(
            "tools/call",
            json!({"name": "two_steps", "inputResponses": {"step1": accept("a", "x")}, "requestState": s1}),
        )
        .await
        .unwrap();
    assert_eq!(r2["resultType"], "input_required");
    assert!(r2["inputRequests"]["step2"].is_object());
    assert!(r2["inputRequests"].get("step1").is_none());
    let s2 = r2["requestState"].as_str().unwrap().to_owned();
    assert_ne!(s1, s2);
    let r3 = client
        .request(
            "tools/call",
            json!({"name": "two_steps", "inputResponses": {"step2": accept("b", "y")}, "requestState": s2}),
        )
        .await
        .unwrap();
    assert_eq!(r3["content"][0]["text"], "x then y");
}

#[tokio::test]
async fn concurrent_asks_go_out_in_one_round() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let r1 = client.call_tool("both_at_once", json!({})).await.unwrap();
    let requests = r1["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests["greeting"]["method"], "sampling/createMessage");
    let answers = json!({
        "user_name": accept("name", "Cy"),
        "greeting": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
    });
    let state = r1["requestState"].clone();
    let done = client
        .request("tools/call", json!({"name": "both_at_once", "inputResponses": answers, "requestState": state}))
        .await
        .unwrap();
    assert_eq!(done["content"][0]["text"], "Cy / hi");
}

#[tokio::test]
async fn tampered_expired_or_misplaced_state_is_an_error() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let r1 = client.call_tool("greet", json!({})).await.unwrap();
    let state = r1["requestState"].as_str().unwrap().to_owned();
    let tampered = format!("{state}x");
    let err = client
        .request("tools/call", json!({"name": "greet", "inputResponses": {}, "requestState": tampered}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    // The same state presented to another tool is rejected too.
    let err = client.request("tools/call", json!({"name": "two_steps", "requestState": state})).await.unwrap_err();
    assert_eq!(err.code, -32602);
    // A second server (another key) does not accept it.
    let other = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let err =
        other.request("tools/call", json!({"name": "greet", "requestState": r1["requestState"]})).await.unwrap_err();
    assert_eq!(err.code, -32602);
}

#[tokio::test]
async fn a_state_only_resumes_the_arguments_it_was_issued_for() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Target {
        path: String,
    }
    let server = Server::builder("mrtr-bound", "1.0.0")
        .tool(ToolEntry::new("delete", |Args(t): Args<Target>, input: Input| async move {
            let message = format!("Delete {}?", t.path);
            let answer = input.elicit("confirm", Elicitation::form(message).boolean("ok", true)).await;
            format!("deleted {} (ok={})", t.path, answer.field("ok").unwrap_or_default())
        }))
        .prompt(PromptEntry::new("summary", |input: Input| async move {
            input.elicit("style", Elicitation::form("Style?").text("style", true)).await;
            "summary"
        }))
        .build()
        .expect("valid server");
    let client = TestClient::new(server).with_capabilities(with_elicitation_and_sampling());
    let first = client.call_tool("delete", json!({"path": "/tmp/a"})).await.unwrap();
    let state = first["requestState"].clone();
    let confirm = json!({"confirm": {"action": "accept", "content": {"ok": true}}});

    // The user confirmed deleting /tmp/a: that answer cannot delete anything else.
    let replayed = json!({"name": "delete", "arguments": {"path": "/etc/passwd"}, "inputResponses": confirm, "requestState": state});
    let err = client.request("tools/call", replayed).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("other arguments"), "{}", err.message);
    let without = json!({"name": "delete", "inputResponses": confirm, "requestState": state});
    assert_eq!(client.request("tools/call", without).await.unwrap_err().code, -32602);

    let retried =
        json!({"name": "delete", "arguments": {"path": "/tmp/a"}, "inputResponses": confirm, "requestState": state});
    let done = client.request("tools/call", retried).await.unwrap();
    assert_eq!(done["content"][0]["text"], "deleted /tmp/a (ok=true)");

    // Prompts too: the state of one rendering does not carry to other arguments.
    let first = client.request("prompts/get", json!({"name": "summary", "arguments": {"topic": "a"}})).await.unwrap();
    let answers = json!({"style": {"action": "accept", "content": {"style": "short"}}});
    let other = json!({"name": "summary", "arguments": {"topic": "b"}, "inputResponses": answers, "requestState": first["requestState"]});
    assert_eq!(client.request("prompts/get", other).await.unwrap_err().code, -32602);
    let same = json!({"name": "summary", "arguments": {"topic": "a"}, "inputResponses": answers, "requestState": first["requestState"]});
    assert_eq!(client.request("prompts/get", same).await.unwrap()["messages"][0]["content"]["text"], "summary");
}

#[tokio::test]
async fn missing_capability_is_32021_naming_it() {
    let client = TestClient::new(server());
    let err = client.call_tool("needs_sampling", json!({})).await.unwrap_err();
    assert_eq!(err.code, -32021);
    assert_eq!(err.data.unwrap()["requiredCapabilities"], json!({"sampling": {}}));
}

fn with_sampling(sampling: Value) -> ClientCapabilities {
    let sampling: SamplingCapability = serde_json::from_value(sampling).expect("a sampling capability");
    ClientCapabilities { sampling: Some(sampling), ..ClientCapabilities::default() }
}

#[tokio::test]
async fn sampling_with_tools_needs_sampling_tools() {
    for declared in [None, Some(json!({})), Some(json!({"context": {}}))] {
        let client = match &declared {
            Some(sampling) => TestClient::new(server()).with_capabilities(with_sampling(sampling.clone())),
            None => TestClient::new(server()),
        };
        let err = client.call_tool("sample_with_tools", json!({})).await.unwrap_err();
        assert_eq!(err.code, -32021, "{declared:?}");
        assert_eq!(err.data.unwrap()["requiredCapabilities"], json!({"sampling": {"tools": {}}}), "{declared:?}");
    }
    let client = TestClient::new(server()).with_capabilities(with_sampling(json!({"tools": {}})));
    let asked = client.call_tool("sample_with_tools", json!({})).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
    let params = &asked["inputRequests"]["q"]["params"];
    assert_eq!(params["tools"][0]["name"], "weather");
    assert_eq!(params["toolChoice"], json!({"mode": "auto"}));
}

#[tokio::test]
async fn sampling_with_context_needs_sampling_context() {
    let call = |context: &str| json!({"includeContext": context});
    for declared in [json!({}), json!({"tools": {}})] {
        let client = TestClient::new(server()).with_capabilities(with_sampling(declared.clone()));
        for context in ["thisServer", "allServers"] {
            let err = client.call_tool("sample_with_context", call(context)).await.unwrap_err();
            assert_eq!(err.code, -32021, "{declared} {context}");
            assert_eq!(err.data.unwrap()["requiredCapabilities"], json!({"sampling": {"context": {}}}));
        }
        // "none" (or no `includeContext`) asks nothing of the client.
        let asked = client.call_tool("sample_with_context", call("none")).await.unwrap();
        assert_eq!(asked["inputRequests"]["q"]["params"]["includeContext"], "none", "{declared}");
        let asked = client.call_tool("sample_with_context", json!({})).await.unwrap();
        assert!(asked["inputRequests"]["q"]["params"].get("includeContext").is_none(), "{declared}");
    }
    let client = TestClient::new(server()).with_capabilities(with_sampling(json!({"context": {}})));
    let asked = client.call_tool("sample_with_context", call("thisServer")).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(asked["inputRequests"]["q"]["params"]["includeContext"], "thisServer");
}

#[tokio::test]
async fn handler_state_survives_rounds_sealed() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let r1 = client.call_tool("stateful", json!({})).await.unwrap();
    let done = client
        .request(
            "tools/call",
            json!({"name": "stateful", "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}, "requestState": r1["requestState"]}),
        )
        .await
        .unwrap();
    assert_eq!(done["content"][0]["text"], "round 1, ok=true");
}

#[tokio::test]
async fn prompts_can_ask_too() {
    let client = TestClient::new(server()).with_capabilities(with_elicitation_and_sampling());
    let r1 = client.get_prompt("ask_context", json!({})).await.unwrap();
    assert_eq!(r1["resultType"], "input_required");
    let done = client
        .request(
            "prompts/get",
            json!({"name": "ask_context", "inputResponses": {"user_context": accept("context", "tests")}, "requestState": r1["requestState"]}),
        )
        .await
        .unwrap();
    assert_eq!(done["messages"][0]["content"]["text"], "Context: tests");
}
