//! Tools that ask the client for input (elicitation, sampling, roots) over
//! one or several rounds, and the capability checks that go with them.

use mcp_runtime::input::{Elicitation, Sampling};
use mcp_runtime::{Input, tool};
use serde_json::json;

fn name_form() -> Elicitation {
    Elicitation::form("What is your name?").text("name", true)
}

/// Needs the client's sampling capability; without it the request fails
/// with `-32021`.
#[tool]
async fn test_missing_capability(input: Input) -> String {
    let answer = input.sample("question", Sampling::prompt("Say hello.", 20)).await;
    format!("The model said: {}", answer.text().unwrap_or("(no text)"))
}

/// Asks the user for their name through elicitation, as an input request
/// (never a request on the response stream).
#[tool]
async fn test_streaming_elicitation(input: Input) -> String {
    let answer = input.elicit("user_name", name_form()).await;
    format!("Hello, {}!", answer.field("name").unwrap_or_else(|| "stranger".into()))
}

/// Asks for the user's name, then greets them.
#[tool]
async fn test_input_required_result_elicitation(input: Input) -> String {
    let answer = input.elicit("user_name", name_form()).await;
    match answer.field("name") {
        Some(name) => format!("Hello, {name}!"),
        None => format!("No name given ({:?}).", answer.action()),
    }
}

/// Asks the client's model a question.
#[tool]
async fn test_input_required_result_sampling(input: Input) -> String {
    let answer = input.sample("capital_question", Sampling::prompt("What is the capital of France?", 50)).await;
    format!("The model answered: {}", answer.text().unwrap_or("(no text)"))
}

/// Asks the client for its roots.
#[tool]
async fn test_input_required_result_list_roots(input: Input) -> String {
    let roots = input.roots("client_roots").await;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    format!("The client has {} root(s): {}", roots.len(), uris.join(", "))
}

/// Asks for confirmation and checks, on the retry, that the sealed state
/// came back intact.
#[tool]
async fn test_input_required_result_request_state(input: Input) -> String {
    let resumed = input.state() == Some(&json!("confirm-asked"));
    input.set_state(json!("confirm-asked"));
    let answer = input.elicit("confirm", Elicitation::form("Proceed?").boolean("ok", true)).await;
    if resumed {
        format!("state-ok: confirmed={}", answer.field("ok").unwrap_or_default())
    } else {
        "state-missing: the retry did not carry the request state".to_owned()
    }
}

/// Asks for a name, a model greeting and the roots in one round.
#[tool]
async fn test_input_required_result_multiple_inputs(input: Input) -> String {
    let (name, greeting, roots) = tokio::join!(
        input.elicit("user_name", name_form()),
        input.sample("greeting", Sampling::prompt("Write a one-line greeting.", 50)),
        input.roots("client_roots"),
    );
    format!(
        "{} / {} / {} root(s)",
        name.field("name").unwrap_or_default(),
        greeting.text().unwrap_or_default(),
        roots.len()
    )
}

/// Asks two questions, one round each.
#[tool]
async fn test_input_required_result_multi_round(input: Input) -> String {
    let first = input.elicit("step1", Elicitation::form("Step 1: your name?").text("name", true)).await;
    let second = input.elicit("step2", Elicitation::form("Step 2: your colour?").text("colour", true)).await;
    format!("{} likes {}", first.field("name").unwrap_or_default(), second.field("colour").unwrap_or_default())
}

/// Asks for confirmation with an integrity-protected request state; a
/// tampered state is rejected.
#[tool]
async fn test_input_required_result_tampered_state(input: Input) -> String {
    input.set_state(json!({"purpose": "tamper test"}));
    let answer = input.elicit("confirm", Elicitation::form("Proceed?").boolean("ok", true)).await;
    format!("confirmed={}", answer.field("ok").unwrap_or_default())
}

/// Asks through whichever kind of input the client declared: elicitation
/// when it can, sampling otherwise.
#[tool]
async fn test_input_required_result_capabilities(input: Input) -> String {
    if input.can_elicit() {
        let answer = input.elicit("user_name", name_form()).await;
        format!("Hello, {}!", answer.field("name").unwrap_or_default())
    } else {
        let answer = input.sample("user_name", Sampling::prompt("Invent a name.", 20)).await;
        format!("Hello, {}!", answer.text().unwrap_or_default())
    }
}
