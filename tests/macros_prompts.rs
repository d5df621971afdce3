//! `#[prompt]` through the dispatcher: arguments (typed, optional, with
//! defaults and completers), return types and errors.

#[path = "macros/common.rs"]
mod common;

use common::{assert_snapshot, error, exchange, result};
use mcp_runtime::client::Client;
use mcp_runtime::{Server, prompts, tool, tools};
use mcp_tests::validated_client::checked;
use serde_json::{Value, json};

mod fixtures {
    use mcp_runtime::protocol::{ContentBlock, GetPromptResult, PromptMessage, ResourceContents, Role};
    use mcp_runtime::{RequestContext, RpcError, State, extract::CompleteCall, prompt};
    use serde::Deserialize;

    /// A plain prompt.
    #[prompt]
    pub(crate) fn simple() -> &'static str {
        "Say hello."
    }

    /// Tone of voice.
    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub(crate) enum Tone {
        /// Friendly.
        Warm,
        /// Businesslike.
        Formal,
    }

    fn languages(typed: &str) -> Vec<&'static str> {
        ["go", "python", "rust"].into_iter().filter(|l| l.starts_with(typed)).collect()
    }

    async fn styles(call: CompleteCall) -> Vec<String> {
        let language = call.other_arguments().get("language").and_then(|v| v.as_str()).unwrap_or("any");
        vec![format!("{language}-idiomatic{}", call.value())]
    }

    /// Asks for a review.
    ///
    /// Mentions the language when given.
    #[prompt(name = "code_review", title = "Code review", icons = ["https://example.com/review.png"])]
    pub(crate) async fn review(
        /// The code to review.
        code: String,
        #[arg(title = "Language", complete = languages)] language: Option<String>,
        #[arg(description = "How many remarks at most", default = 3)] remarks: u32,
        #[arg(complete = styles)] style: Option<String>,
        tone: Option<Tone>,
    ) -> String {
        format!(
            "Review this {} code in at most {remarks} remarks ({:?}, {:?}):\n{code}",
            language.as_deref().unwrap_or("unknown"),
            style,
            tone
        )
    }

    /// Lists: from JSON text or comma-separated.
    #[prompt]
    pub(crate) fn tagged(tags: Vec<String>, limits: Option<Vec<u32>>) -> String {
        format!("{tags:?} {limits:?}")
    }

    /// Several messages with other content.
    #[prompt]
    pub(crate) fn with_resource(#[arg(rename = "resourceUri")] uri: String) -> Vec<PromptMessage> {
        vec![
            PromptMessage::user("Read this:"),
            PromptMessage::new(
                Role::User,
                ContentBlock::resource(ResourceContents::text(uri, "contents").with_mime_type("text/plain")),
            ),
            PromptMessage::assistant("Done."),
        ]
    }

    /// A full result, using shared state.
    #[prompt]
    pub(crate) fn full(State(greeting): State<&'static str>, cx: RequestContext) -> GetPromptResult {
        GetPromptResult::new(vec![PromptMessage::user(greeting)]).with_description(format!("for {}", cx.method()))
    }

    /// Fails sometimes.
    #[prompt]
    pub(crate) fn fallible(fail: bool) -> Result<String, String> {
        if fail { Err("the prompt failed".into()) } else { Ok("fine".into()) }
    }

    /// Fails with a protocol error.
    #[prompt]
    pub(crate) fn protocol_error() -> Result<String, RpcError> {
        Err(RpcError(mcp_runtime::protocol::ErrorObject::invalid_params("no such topic")))
    }
}

use fixtures::*;

/// A tool, so that the completion capability can be checked on a server
/// without prompt completers.
#[tool]
fn noop() {}

fn server() -> Server {
    Server::builder("prompts", "1.0.0")
        .state("Hello!")
        .prompts(prompts![simple, review, tagged, with_resource, full, fallible, protocol_error])
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

async fn get(client: &Client, name: &str, arguments: Value) -> Value {
    exchange(client, "prompts/get", json!({"name": name, "arguments": arguments})).await.0
}

#[tokio::test]
async fn prompts_list_matches_the_snapshot() {
    let client = checked(server());
    let (response, _) = exchange(&client, "prompts/list", json!({})).await;
    let list = result(&response);
    assert_snapshot("macros_prompts_list", list);
    let review = &list["prompts"][0];
    assert_eq!(review["name"], "code_review");
    assert_eq!(review["description"], "Asks for a review.\n\nMentions the language when given.");
    assert_eq!(
        review["arguments"],
        json!([
            {"name": "code", "description": "The code to review.", "required": true},
            {"name": "language", "title": "Language", "required": false},
            {"name": "remarks", "description": "How many remarks at most", "required": false},
            {"name": "style", "required": false},
            {"name": "tone", "required": false},
        ])
    );
}

#[tokio::test]
async fn string_arguments_are_parsed_into_the_parameter_types() {
    let client = checked(server());
    let response = get(&client, "code_review", json!({"code": "fn main() {}", "remarks": "5", "tone": "formal"})).await;
    let messages = &result(&response)["messages"];
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"]["text"],
        "Review this unknown code in at most 5 remarks (None, Some(Formal)):\nfn main() {}"
    );
    let response = get(&client, "code_review", json!({"code": "x", "language": "rust"})).await;
    assert!(
        result(&response)["messages"][0]["content"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("rust code in at most 3"))
    );
}

#[tokio::test]
async fn list_arguments_are_read_from_json_or_comma_separated_text() {
    let client = checked(server());
    let text = |response: &Value| result(response)["messages"][0]["content"]["text"].clone();
    assert_eq!(text(&get(&client, "tagged", json!({"tags": "a,b"})).await), r#"["a", "b"] None"#);
    let response = get(&client, "tagged", json!({"tags": r#"["x,y"]"#, "limits": "1,2"})).await;
    assert_eq!(text(&response), r#"["x,y"] Some([1, 2])"#);
    assert_eq!(error(&get(&client, "tagged", json!({"tags": "a", "limits": "1,x"})).await)["code"], -32602);
}

#[tokio::test]
async fn bad_or_missing_arguments_are_invalid_params() {
    let client = checked(server());
    let response = get(&client, "code_review", json!({"code": "x", "remarks": "many", "tone": "angry"})).await;
    let e = error(&response);
    assert_eq!(e["code"], -32602);
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Invalid arguments for prompt `code_review`"), "{message}");
    assert!(message.contains("`remarks`") && message.contains("`tone`"), "{message}");

    let response = get(&client, "code_review", json!({})).await;
    assert_eq!(error(&response)["code"], -32602);
}

#[tokio::test]
async fn every_return_kind() {
    let client = checked(server());
    let response = get(&client, "simple", json!({})).await;
    assert_eq!(
        result(&response)["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Say hello."}}])
    );

    let response = get(&client, "with_resource", json!({"resourceUri": "test://doc"})).await;
    let messages = &result(&response)["messages"];
    assert_eq!(messages[1]["content"]["type"], "resource");
    assert_eq!(messages[1]["content"]["resource"]["uri"], "test://doc");
    assert_eq!(messages[2]["role"], "assistant");

    let response = get(&client, "full", json!({})).await;
    assert_eq!(result(&response)["description"], "for prompts/get");
    assert_eq!(result(&response)["messages"][0]["content"]["text"], "Hello!");

    let response = get(&client, "fallible", json!({"fail": "false"})).await;
    assert_eq!(result(&response)["messages"][0]["content"]["text"], "fine");
    let response = get(&client, "fallible", json!({"fail": "true"})).await;
    assert_eq!(error(&response)["code"], -32603);
    assert_eq!(error(&response)["message"], "the prompt failed");
    let response = get(&client, "protocol_error", json!({})).await;
    assert_eq!(error(&response)["code"], -32602);
}

#[tokio::test]
async fn completion_runs_the_named_completer() {
    let client = checked(server());
    let discover = client.request("server/discover", json!({})).await.unwrap_or_default();
    assert!(discover["capabilities"].get("completions").is_some(), "{discover}");

    let complete = |argument: &str, value: &str, context: Value| {
        json!({
            "ref": {"type": "ref/prompt", "name": "code_review"},
            "argument": {"name": argument, "value": value},
            "context": {"arguments": context},
        })
    };
    let (response, _) = exchange(&client, "completion/complete", complete("language", "r", json!({}))).await;
    assert_eq!(result(&response)["completion"]["values"], json!(["rust"]));
    let (response, _) =
        exchange(&client, "completion/complete", complete("style", "!", json!({"language": "go"}))).await;
    assert_eq!(result(&response)["completion"]["values"], json!(["go-idiomatic!"]));
    let (response, _) = exchange(&client, "completion/complete", complete("code", "x", json!({}))).await;
    assert_eq!(result(&response)["completion"]["values"], json!([]));
}

#[tokio::test]
async fn the_completions_capability_needs_a_completer() {
    let server = Server::builder("plain", "1.0.0")
        .prompts(prompts![simple])
        .tools(tools![noop])
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let discover = checked(server).request("server/discover", json!({})).await.unwrap_or_default();
    assert!(discover["capabilities"].get("completions").is_none(), "{discover}");
    assert!(discover["capabilities"].get("prompts").is_some(), "{discover}");
}

#[tokio::test]
async fn the_function_stays_callable_as_written() {
    assert_eq!(simple(), "Say hello.");
    assert!(review("x".into(), None, 1, None, None).await.contains("at most 1"));
}
