//! The fixtures the conformance suite calls on the 2025-era (session) wire:
//! sampling and elicitation asked for during a call, log messages over
//! time, a stream closed mid-call, and a resource to subscribe to.
//!
//! They are written like every other tool: over a 2025-era session the
//! runtime turns `Input` into real requests to the client; on the stateless
//! revision the same tools ask through `input_required` results.

use std::time::Duration;

use mcp_runtime::input::{Elicitation, Sampling};
use mcp_runtime::{Input, RequestContext, extract::Logger, resource, tool};
use serde_json::json;

/// Asks the client's model to answer `prompt`, and returns what it said.
#[tool]
async fn test_sampling(input: Input, prompt: String) -> String {
    let answer = input.sample("sampling", Sampling::prompt(prompt, 100)).await;
    format!("LLM response: {}", answer.text().unwrap_or("(no text)"))
}

/// Asks the user, with `message`, for a username and an email address.
#[tool]
async fn test_elicitation(input: Input, message: String) -> String {
    let form = Elicitation::form(message)
        .property("username", json!({"type": "string", "description": "Your username"}), true)
        .property("email", json!({"type": "string", "description": "Your email address"}), true);
    let answer = input.elicit("user_info", form).await;
    let content = answer.0.content.as_ref().map(|c| json!(c).to_string()).unwrap_or_default();
    format!("User response: action={}, content={content}", json!(answer.action()))
}

/// Asks for a form whose every field has a default (SEP-1034).
#[tool]
async fn test_elicitation_sep1034_defaults(input: Input) -> String {
    let form = Elicitation::form("Please review your details")
        .property("name", json!({"type": "string", "default": "John Doe"}), false)
        .property("age", json!({"type": "integer", "default": 30}), false)
        .property("score", json!({"type": "number", "default": 95.5}), false)
        .property(
            "status",
            json!({"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"}),
            false,
        )
        .property("verified", json!({"type": "boolean", "default": true}), false);
    let answer = input.elicit("defaults", form).await;
    format!("Elicitation completed: action={}", json!(answer.action()))
}

/// Asks for a form with every kind of choice (SEP-1330): single and
/// multiple, with and without titles, and the older `enumNames` form.
#[tool]
async fn test_elicitation_sep1330_enums(input: Input) -> String {
    let titled = |titles: [&str; 3]| -> serde_json::Value {
        titles
            .iter()
            .enumerate()
            .map(|(i, title)| json!({"const": format!("value{}", i + 1), "title": title}))
            .collect()
    };
    let form = Elicitation::form("Pick some options")
        .property("untitledSingle", json!({"type": "string", "enum": ["option1", "option2", "option3"]}), false)
        .property(
            "titledSingle",
            json!({"type": "string", "oneOf": titled(["First Option", "Second Option", "Third Option"])}),
            false,
        )
        .property(
            "legacyEnum",
            json!({
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            }),
            false,
        )
        .property(
            "untitledMulti",
            json!({"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}}),
            false,
        )
        .property(
            "titledMulti",
            json!({"type": "array", "items": {"anyOf": titled(["First Choice", "Second Choice", "Third Choice"])}}),
            false,
        );
    let answer = input.elicit("enums", form).await;
    format!("Elicitation completed: action={}", json!(answer.action()))
}

/// Logs three messages at level `info`, 50 ms apart; they reach the client
/// when its level lets them through.
#[tool]
async fn test_tool_with_logging(log: Logger) -> &'static str {
    for (i, step) in ["Tool execution started", "Tool processing data", "Tool execution completed"].iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        log.info(*step);
    }
    "Logging test completed"
}

/// Ends the connection its answer was to travel on, then answers: the
/// client picks the answer up by resuming the stream (SSE polling, on a
/// 2025-11-25 session; elsewhere the answer comes as usual).
#[tool]
async fn test_reconnection(cx: RequestContext) -> &'static str {
    cx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully"
}

/// A resource clients subscribe to.
#[resource("test://watched-resource", name = "watched_resource", mime_type = "text/plain")]
fn watched_resource() -> &'static str {
    "This resource is watched for changes."
}
