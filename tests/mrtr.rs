//! Multi round-trip requests through the dispatcher: asking for input,
//! resuming with answers, sealed state, capabilities.
//!
//! Every client here checks each message it sends and receives against the
//! official schema (`mcp_tests::validated_client`): each `input_required`
//! result, its embedded input requests and sealed state, each retry and its
//! answers, and each final result.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, Error};
use mcp_runtime::input::{Elicitation, Root, Sampling};
use mcp_runtime::protocol::{
    ClientCapabilities, ContentBlock, CreateMessageResult, ElicitRequest, ElicitResult, ErrorObject,
};
use mcp_runtime::{
    Args, Input, Server, State,
    entry::{PromptEntry, ToolEntry},
    server::RequestStateKey,
};
use mcp_tests::validated_client::{checked, validate, validate_replies};
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
        .tool(ToolEntry::new("where_am_i", |input: Input| async move {
            let roots = input.roots("roots").await;
            roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(", ")
        }))
        .tool(ToolEntry::new("never_satisfied", |input: Input| async move {
            // A new question every round: a client must give up at some point.
            let round = input.state().and_then(Value::as_u64).unwrap_or(0);
            input.set_state(json!(round + 1));
            input.elicit(&format!("q{round}"), Elicitation::form("Again?").boolean("ok", true)).await;
            "never"
        }))
        .tool(ToolEntry::new("capabilities", |input: Input| async move {
            json!({
                "form": input.can_elicit(),
                "url": input.can_elicit_url(),
                "sampling": input.can_sample(),
                "samplingTools": input.can_sample_with_tools(),
                "samplingContext": input.can_sample_with_context(),
                "roots": input.can_list_roots(),
            })
            .to_string()
        }))
        .prompt(PromptEntry::new("ask_context", |input: Input| async move {
            let answer = input.elicit("user_context", Elicitation::form("Context?").text("context", true)).await;
            format!("Context: {}", answer.field("context").unwrap_or_default())
        }))
        .build()
        .expect("valid server")
}

fn with_elicitation_and_sampling() -> ClientCapabilities {
    ClientCapabilities::default().with_elicitation().with_sampling()
}

/// A checked client declaring elicitation and sampling, without callbacks:
/// the tests that drive rounds by hand.
fn manual_client() -> Client {
    validate(Client::in_process(server()).capabilities(with_elicitation_and_sampling()))
}

/// One request, one response: its result (`input_required` included, which
/// a client without callbacks hands back unanswered) or its error.
async fn send(client: &Client, method: &str, params: Value) -> Result<Value, ErrorObject> {
    match client.request(method, params).await {
        Ok(result) | Err(Error::InputRequired(result)) => Ok(result),
        Err(Error::Rpc(error)) => Err(error),
        Err(other) => panic!("a result or a JSON-RPC error, not {other:?}"),
    }
}

async fn call(client: &Client, name: &str, arguments: Value) -> Result<Value, ErrorObject> {
    send(client, "tools/call", json!({"name": name, "arguments": arguments})).await
}

fn accept(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

#[tokio::test]
async fn elicitation_round_trip_completes_on_retry() {
    let client = manual_client();
    let first = call(&client, "greet", json!({})).await.unwrap();
    assert_eq!(first["resultType"], "input_required");
    let request = &first["inputRequests"]["user_name"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(request["params"]["requestedSchema"]["required"], json!(["name"]));
    let state = first["requestState"].as_str().unwrap().to_owned();

    let answers = json!({"user_name": accept("name", "Ada")});
    let retry = json!({"name": "greet", "arguments": {}, "inputResponses": answers, "requestState": state});
    let done = send(&client, "tools/call", retry).await.unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn answers_without_state_are_used_and_extra_answers_ignored() {
    let client = validate_replies(Client::in_process(server()).capabilities(with_elicitation_and_sampling()));
    let done = send(
        &client,
        "tools/call",
        json!({"name": "greet", "inputResponses": {"user_name": accept("name", "Bo"), "unknown": {"x": 1}}}),
    )
    .await
    .unwrap();
    assert_eq!(done["content"][0]["text"], "Hello, Bo!");
}

#[tokio::test]
async fn missing_or_malformed_answers_ask_again() {
    let client = validate_replies(Client::in_process(server()).capabilities(with_elicitation_and_sampling()));
    for responses in [json!({"other": accept("name", "x")}), json!({"user_name": 12345}), Value::Null] {
        let again = send(&client, "tools/call", json!({"name": "greet", "inputResponses": responses})).await.unwrap();
        assert_eq!(again["resultType"], "input_required", "{responses}");
        assert!(again["inputRequests"]["user_name"].is_object());
    }
    let err = send(&client, "tools/call", json!({"name": "greet", "inputResponses": [1]})).await.unwrap_err();
    assert_eq!(err.code, -32602);
}

#[tokio::test]
async fn multi_round_carries_earlier_answers_in_new_state() {
    let client = manual_client();
    let r1 = call(&client, "two_steps", json!({})).await.unwrap();
    assert!(r1["inputRequests"]["step1"].is_object());
    let s1 = r1["requestState"].as_str().unwrap().to_owned();
    let r2 = send(
        &client,
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
    let r3 = send(
        &client,
        "tools/call",
        json!({"name": "two_steps", "inputResponses": {"step2": accept("b", "y")}, "requestState": s2}),
    )
    .await
    .unwrap();
    assert_eq!(r3["content"][0]["text"], "x then y");
}

#[tokio::test]
async fn concurrent_asks_go_out_in_one_round() {
    let client = manual_client();
    let r1 = call(&client, "both_at_once", json!({})).await.unwrap();
    let requests = r1["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests["greeting"]["method"], "sampling/createMessage");
    let answers = json!({
        "user_name": accept("name", "Cy"),
        "greeting": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
    });
    let state = r1["requestState"].clone();
    let done =
        send(&client, "tools/call", json!({"name": "both_at_once", "inputResponses": answers, "requestState": state}))
            .await
            .unwrap();
    assert_eq!(done["content"][0]["text"], "Cy / hi");
}

#[tokio::test]
async fn tampered_expired_or_misplaced_state_is_an_error() {
    let client = manual_client();
    let r1 = call(&client, "greet", json!({})).await.unwrap();
    let state = r1["requestState"].as_str().unwrap().to_owned();
    let tampered = format!("{state}x");
    let err = send(&client, "tools/call", json!({"name": "greet", "inputResponses": {}, "requestState": tampered}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    // The same state presented to another tool is rejected too.
    let err = send(&client, "tools/call", json!({"name": "two_steps", "requestState": state})).await.unwrap_err();
    assert_eq!(err.code, -32602);
    // A second server (another key) does not accept it.
    let other = manual_client();
    let err =
        send(&other, "tools/call", json!({"name": "greet", "requestState": r1["requestState"]})).await.unwrap_err();
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
    let client = validate(Client::in_process(server).capabilities(with_elicitation_and_sampling()));
    let first = call(&client, "delete", json!({"path": "/tmp/a"})).await.unwrap();
    let state = first["requestState"].clone();
    let confirm = json!({"confirm": {"action": "accept", "content": {"ok": true}}});

    // The user confirmed deleting /tmp/a: that answer cannot delete anything else.
    let replayed = json!({"name": "delete", "arguments": {"path": "/etc/passwd"}, "inputResponses": confirm, "requestState": state});
    let err = send(&client, "tools/call", replayed).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("other arguments"), "{}", err.message);
    let without = json!({"name": "delete", "inputResponses": confirm, "requestState": state});
    assert_eq!(send(&client, "tools/call", without).await.unwrap_err().code, -32602);

    let retried =
        json!({"name": "delete", "arguments": {"path": "/tmp/a"}, "inputResponses": confirm, "requestState": state});
    let done = send(&client, "tools/call", retried).await.unwrap();
    assert_eq!(done["content"][0]["text"], "deleted /tmp/a (ok=true)");

    // Prompts too: the state of one rendering does not carry to other arguments.
    let first = send(&client, "prompts/get", json!({"name": "summary", "arguments": {"topic": "a"}})).await.unwrap();
    let answers = json!({"style": {"action": "accept", "content": {"style": "short"}}});
    let other = json!({"name": "summary", "arguments": {"topic": "b"}, "inputResponses": answers, "requestState": first["requestState"]});
    assert_eq!(send(&client, "prompts/get", other).await.unwrap_err().code, -32602);
    let same = json!({"name": "summary", "arguments": {"topic": "a"}, "inputResponses": answers, "requestState": first["requestState"]});
    assert_eq!(send(&client, "prompts/get", same).await.unwrap()["messages"][0]["content"]["text"], "summary");
}

#[tokio::test]
async fn missing_capability_is_32021_naming_it() {
    let client = checked(server());
    let err = call(&client, "needs_sampling", json!({})).await.unwrap_err();
    assert_eq!(err.code, -32021);
    assert_eq!(err.data.unwrap()["requiredCapabilities"], json!({"sampling": {}}));
}

#[tokio::test]
async fn sampling_with_tools_needs_sampling_tools() {
    let declared = [
        None,
        Some(ClientCapabilities::default().with_sampling()),
        Some(ClientCapabilities::default().with_sampling_context()),
    ];
    for declared in declared {
        let client = match &declared {
            Some(caps) => validate(Client::in_process(server()).capabilities(caps.clone())),
            None => checked(server()),
        };
        let err = call(&client, "sample_with_tools", json!({})).await.unwrap_err();
        assert_eq!(err.code, -32021, "{declared:?}");
        assert_eq!(err.data.unwrap()["requiredCapabilities"], json!({"sampling": {"tools": {}}}), "{declared:?}");
    }
    let client =
        validate(Client::in_process(server()).capabilities(ClientCapabilities::default().with_sampling_tools()));
    let asked = call(&client, "sample_with_tools", json!({})).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
    let params = &asked["inputRequests"]["q"]["params"];
    assert_eq!(params["tools"][0]["name"], "weather");
    assert_eq!(params["toolChoice"], json!({"mode": "auto"}));
}

#[tokio::test]
async fn sampling_with_context_needs_sampling_context() {
    let args = |context: &str| json!({"includeContext": context});
    for declared in [ClientCapabilities::default().with_sampling(), ClientCapabilities::default().with_sampling_tools()]
    {
        let client = validate(Client::in_process(server()).capabilities(declared.clone()));
        for context in ["thisServer", "allServers"] {
            let err = call(&client, "sample_with_context", args(context)).await.unwrap_err();
            assert_eq!(err.code, -32021, "{declared:?} {context}");
            assert_eq!(err.data.unwrap()["requiredCapabilities"], json!({"sampling": {"context": {}}}));
        }
        // "none" (or no `includeContext`) asks nothing of the client.
        let asked = call(&client, "sample_with_context", args("none")).await.unwrap();
        assert_eq!(asked["inputRequests"]["q"]["params"]["includeContext"], "none", "{declared:?}");
        let asked = call(&client, "sample_with_context", json!({})).await.unwrap();
        assert!(asked["inputRequests"]["q"]["params"].get("includeContext").is_none(), "{declared:?}");
    }
    let caps = ClientCapabilities::default().with_sampling_context();
    let client = validate(Client::in_process(server()).capabilities(caps));
    let asked = call(&client, "sample_with_context", args("thisServer")).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(asked["inputRequests"]["q"]["params"]["includeContext"], "thisServer");
}

#[tokio::test]
async fn handler_state_survives_rounds_sealed() {
    let client = manual_client();
    let r1 = call(&client, "stateful", json!({})).await.unwrap();
    let answers = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let retry = json!({"name": "stateful", "inputResponses": answers, "requestState": r1["requestState"]});
    let done = send(&client, "tools/call", retry).await.unwrap();
    assert_eq!(done["content"][0]["text"], "round 1, ok=true");
}

/// One replica of a deployment whose replicas share `key`.
fn replica(key: RequestStateKey) -> Client {
    let server = Server::builder("mrtr-replica", "1.0.0")
        .request_state_key(key)
        .tool(ToolEntry::new("greet", |input: Input| async move {
            let answer = input.elicit("user_name", Elicitation::form("Your name?").text("name", true)).await;
            format!("Hello, {}!", answer.field("name").unwrap_or_default())
        }))
        .build()
        .expect("valid server");
    validate(Client::in_process(server).capabilities(with_elicitation_and_sampling()))
}

#[tokio::test]
async fn a_round_begun_before_a_key_rotation_finishes_on_a_rotated_replica_within_the_window() {
    const OLD: &[u8] = b"the secret every replica used until the rotation";
    const NEW: &[u8] = b"the secret every replica uses after the rotation";
    let not_rotated_yet = replica(RequestStateKey::from_secret(OLD));
    let rotated = replica(RequestStateKey::from_secret(NEW).with_previous(OLD, Duration::from_secs(600)));
    let window_over = replica(RequestStateKey::from_secret(NEW).with_previous(OLD, Duration::ZERO));
    let old_key_dropped = replica(RequestStateKey::from_secret(NEW));

    let begun = call(&not_rotated_yet, "greet", json!({})).await.unwrap();
    let retry = json!({
        "name": "greet",
        "inputResponses": {"user_name": accept("name", "Ada")},
        "requestState": begun["requestState"],
    });
    let done = send(&rotated, "tools/call", retry.clone()).await.unwrap();
    assert_eq!(done["content"][0]["text"], "Hello, Ada!");
    for late in [&window_over, &old_key_dropped] {
        let err = send(late, "tools/call", retry.clone()).await.unwrap_err();
        assert_eq!(err.code, -32602, "{err:?}");
    }

    // A round begun on a rotated replica is sealed with the new secret, so
    // any replica that has the new secret resumes it, whatever its window.
    let begun = call(&rotated, "greet", json!({})).await.unwrap();
    let retry = json!({
        "name": "greet",
        "inputResponses": {"user_name": accept("name", "Bo")},
        "requestState": begun["requestState"],
    });
    let done = send(&old_key_dropped, "tools/call", retry.clone()).await.unwrap();
    assert_eq!(done["content"][0]["text"], "Hello, Bo!");
    assert_eq!(send(&not_rotated_yet, "tools/call", retry).await.unwrap_err().code, -32602);
}

#[tokio::test]
async fn prompts_can_ask_too() {
    let client = manual_client();
    let r1 = send(&client, "prompts/get", json!({"name": "ask_context"})).await.unwrap();
    assert_eq!(r1["resultType"], "input_required");
    let answers = json!({"user_context": accept("context", "tests")});
    let retry = json!({"name": "ask_context", "inputResponses": answers, "requestState": r1["requestState"]});
    let done = send(&client, "prompts/get", retry).await.unwrap();
    assert_eq!(done["messages"][0]["content"]["text"], "Context: tests");
}

// The same conversations, answered by callbacks as an SDK client answers them.

/// A checked client that answers every elicitation with `{field: value}`
/// and records each elicitation it was asked.
fn answering(field: &'static str, value: &'static str) -> (Client, Arc<Mutex<Vec<ElicitRequest>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let client = checked(server()).on_elicitation(move |request| {
        log.lock().unwrap().push(request);
        async move { ElicitResult::accept(json!({field: value})) }
    });
    (client, asked)
}

#[tokio::test]
async fn an_elicitation_is_answered_by_its_callback() {
    let (client, asked) = answering("name", "Ada");
    // As the server wrote the last result, `resultType` included.
    let done = client.request("tools/call", json!({"name": "greet", "arguments": {}})).await.unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "Hello, Ada!");
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    let ElicitRequest::Form { message, requested_schema } = &asked[0] else { panic!("a form: {:?}", asked[0]) };
    assert_eq!(message, "Your name?");
    assert_eq!(requested_schema["required"], json!(["name"]));
}

#[tokio::test]
async fn rounds_follow_one_another_until_the_result_is_complete() {
    let answers = Arc::new(Mutex::new(vec![json!({"b": "y"}), json!({"a": "x"})]));
    let client = checked(server()).on_elicitation(move |_| {
        let next = answers.lock().unwrap().pop().unwrap_or_default();
        async move { ElicitResult::accept(next) }
    });
    assert_eq!((client.call_tool("two_steps", json!({})).await.unwrap()).first_text(), Some("x then y"));
    let client = checked(server()).on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) });
    assert_eq!((client.call_tool("stateful", json!({})).await.unwrap()).first_text(), Some("round 1, ok=true"));
}

#[tokio::test]
async fn sampling_and_elicitation_asked_together_are_both_answered() {
    // The model echoes the last message it is given.
    let client = checked(server())
        .on_elicitation(|_| async { ElicitResult::accept(json!({"name": "Cy"})) })
        .on_sampling(|params| async move {
            let asked = params["messages"][0]["content"]["text"].as_str().unwrap_or_default().to_owned();
            CreateMessageResult::text("test-model", asked)
        });
    assert_eq!((client.call_tool("both_at_once", json!({})).await.unwrap()).first_text(), Some("Cy / Say hi"));
    let done = client.call_tool("sample_with_tools", json!({})).await.unwrap();
    assert_eq!(done.first_text(), Some("Weather in Paris?"));
}

#[tokio::test]
async fn roots_are_answered_by_their_callback() {
    let client = checked(server()).on_roots(|| async {
        vec![
            Root { uri: "file:///repo".into(), name: Some("repo".into()) },
            Root { uri: "file:///tmp".into(), name: None },
        ]
    });
    let done = client.call_tool("where_am_i", json!({})).await.unwrap();
    assert_eq!(done.first_text(), Some("file:///repo, file:///tmp"));
}

#[tokio::test]
async fn prompts_are_answered_through_callbacks_too() {
    let (client, _) = answering("context", "tests");
    let done = client.get_prompt("ask_context", json!({})).await.unwrap();
    let ContentBlock::Text(text) = &done.messages[0].content else { panic!("a text message: {done:?}") };
    assert_eq!(text.text, "Context: tests");
}

#[tokio::test]
async fn callbacks_declare_their_capabilities() {
    let everything = json!({"form": true, "url": true, "sampling": true, "samplingTools": true,
        "samplingContext": true, "roots": true});
    let nothing = json!({"form": false, "url": false, "sampling": false, "samplingTools": false,
        "samplingContext": false, "roots": false});
    let report = |client: Client| async move {
        let done = client.call_tool("capabilities", json!({})).await.unwrap();
        serde_json::from_str::<Value>(done.first_text().unwrap()).unwrap()
    };
    assert_eq!(report(checked(server())).await, nothing);
    let answering = checked(server())
        .on_elicitation(|_| async { ElicitResult::decline() })
        .on_sampling(|_| async { CreateMessageResult::text("m", "") })
        .on_roots(|| async { Vec::new() });
    assert_eq!(report(answering).await, everything);

    // What the test declares itself is sent as declared: here forms only.
    let narrowed =
        validate(Client::in_process(server()).capabilities(ClientCapabilities::default().with_elicitation()))
            .on_elicitation(|_| async { ElicitResult::decline() });
    assert_eq!(report(narrowed).await["url"], false);
}

#[tokio::test]
async fn input_without_a_callback_is_a_clear_error() {
    // Declared by hand, but nobody to answer.
    let caps = ClientCapabilities::default().with_elicitation().with_sampling().with_roots();
    let client = validate(Client::in_process(server()).capabilities(caps));
    // The `input_required` result comes back unanswered: what was asked, by key.
    let asked = |err: Error| match err {
        Error::InputRequired(result) => {
            let requests = result["inputRequests"].as_object().cloned().unwrap_or_default();
            requests.into_iter().map(|(key, request)| (key, request["method"].clone())).collect::<Map<_, _>>()
        }
        other => panic!("an input request nobody answers, not {other:?}"),
    };
    let err = client.call_tool("greet", json!({})).await.unwrap_err();
    assert!(err.to_string().contains("no callback of this client answers"), "{err}");
    assert_eq!(Value::Object(asked(err)), json!({"user_name": "elicitation/create"}));
    let err = client.call_tool("needs_sampling", json!({})).await.unwrap_err();
    assert_eq!(Value::Object(asked(err)), json!({"q": "sampling/createMessage"}));
    let err = client.call_tool("where_am_i", json!({})).await.unwrap_err();
    assert_eq!(Value::Object(asked(err)), json!({"roots": "roots/list"}));
    // Undeclared (no callback, no capability): the server's own -32021.
    let err = checked(server()).call_tool("greet", json!({})).await.unwrap_err();
    assert_eq!(err.rpc().map(|e| e.code), Some(-32021));
}

#[tokio::test]
async fn a_server_that_keeps_asking_is_given_up_on() {
    let (client, asked) = answering("ok", "yes");
    let client = client.max_rounds(3);
    let err = client.call_tool("never_satisfied", json!({})).await.unwrap_err();
    let Error::TooManyRounds { rounds, last } = &err else { panic!("gave up: {err}") };
    assert_eq!(*rounds, 3);
    assert!(last["inputRequests"]["q3"].is_object(), "{last}");
    assert_eq!(asked.lock().unwrap().len(), 3);
    assert!(err.to_string().contains("after 3 rounds"), "{err}");
}

/// What each handler of `effects_server` did, by where it did it.
#[derive(Default)]
struct Effects {
    before_asking: AtomicUsize,
    between_questions: AtomicUsize,
    after_asking: AtomicUsize,
    marked: AtomicUsize,
}

/// Two questions, then an answer; an effect at each place a handler may
/// put one, counted.
fn effects_server(effects: Arc<Effects>) -> Server {
    let first = || Elicitation::form("First?").boolean("ok", true);
    let second = || Elicitation::form("Second?").boolean("ok", true);
    Server::builder("effects", "1.0.0")
        .state(effects)
        .tool(ToolEntry::new("naive", move |input: Input, State(effects): State<Arc<Effects>>| async move {
            effects.before_asking.fetch_add(1, Ordering::SeqCst);
            input.elicit("first", first()).await;
            effects.between_questions.fetch_add(1, Ordering::SeqCst);
            input.elicit("second", second()).await;
            "done"
        }))
        // The pattern the documentation shows: every question, then the effect.
        .tool(ToolEntry::new("ask_first", move |input: Input, State(effects): State<Arc<Effects>>| async move {
            input.elicit("first", first()).await;
            input.elicit("second", second()).await;
            effects.after_asking.fetch_add(1, Ordering::SeqCst);
            "done"
        }))
        // The other one: an effect that must come first, keyed by a marker
        // the next round gets back sealed.
        .tool(ToolEntry::new("marked", move |input: Input, State(effects): State<Arc<Effects>>| async move {
            if input.state().is_none() {
                effects.marked.fetch_add(1, Ordering::SeqCst);
                input.set_state(json!({"done": true}));
            }
            input.elicit("first", first()).await;
            input.elicit("second", second()).await;
            "done"
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_handler_runs_again_from_the_top_so_effects_go_after_the_questions() {
    let effects = Arc::new(Effects::default());
    let client = checked(effects_server(effects.clone()))
        .on_elicitation(|_| async { ElicitResult::accept(json!({"ok": true})) });
    let count = |n: &AtomicUsize| n.load(Ordering::SeqCst);

    // Three rounds: stopped at the first question, then at the second, then done.
    assert_eq!((client.call_tool("naive", json!({})).await.unwrap()).first_text(), Some("done"));
    assert_eq!(count(&effects.before_asking), 3, "before the first question: once per round");
    assert_eq!(count(&effects.between_questions), 2, "between the questions: from the second round on");

    assert_eq!((client.call_tool("ask_first", json!({})).await.unwrap()).first_text(), Some("done"));
    assert_eq!(count(&effects.after_asking), 1, "after the last question: once");

    assert_eq!((client.call_tool("marked", json!({})).await.unwrap()).first_text(), Some("done"));
    assert_eq!(count(&effects.marked), 1, "keyed by the sealed state: once");
}

/// Replicas share the `requestState` key through `MCP_REQUEST_STATE_KEY`,
/// which every server reads when its code sets no key: a state one sealed
/// opens on the other.
#[test]
fn the_request_state_key_comes_from_the_environment() {
    use mcp_runtime::server::RequestStateKey;
    let secret = "a secret shared by the replicas, 32 bytes or more";
    let from = |vars: &[(&str, &str)]| {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        RequestStateKey::from_variables(move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    };
    assert!(from(&[]).expect("none is fine").is_none());
    assert!(from(&[("MCP_REQUEST_STATE_KEY", secret)]).expect("a key").is_some());
    let short = from(&[("MCP_REQUEST_STATE_KEY", "short")]).expect_err("refused");
    assert!(short.starts_with("MCP_REQUEST_STATE_KEY: 5 bytes is too short"), "{short}");
    let alone = from(&[("MCP_REQUEST_STATE_PREVIOUS_KEY", secret)]).expect_err("refused");
    assert!(alone.contains("without MCP_REQUEST_STATE_KEY"), "{alone}");
    assert!(from(&[("MCP_REQUEST_STATE_KEY", secret), ("MCP_REQUEST_STATE_PREVIOUS_KEY", secret)]).is_ok());
}
