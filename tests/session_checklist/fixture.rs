//! The server the checklist talks to: tools that ask the client for input,
//! report progress and logs, fail, take typed arguments, return structured
//! output; a text and a binary resource, a template and a prompt whose
//! arguments complete to more values than one answer may hold.

use std::time::Duration;

use mcp_runtime::input::{Elicitation, Sampling};
use mcp_runtime::protocol::{Completion, Icon, LoggingLevel};
use mcp_runtime::{
    Args, Input, Json, RequestContext, Server, ServerBuilder,
    entry::{PromptEntry, ResourceEntry, ToolEntry},
};
use serde_json::json;

/// How long anything may take before a test calls it stuck: a guard
/// against hanging, not a measure of speed.
pub(crate) const STUCK: Duration = Duration::from_secs(30);

/// How many values the completers know: more than one answer may carry.
pub(crate) const COMPLETIONS: usize = 150;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Count {
    n: u32,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: f64,
}

fn many(prefix: &str) -> Completion {
    Completion::new((0..COMPLETIONS).map(|i| format!("{prefix}{i}")).collect())
}

/// The checklist's server, to be extended by a test that needs more.
pub(crate) fn builder() -> ServerBuilder {
    Server::builder("checklist", "1.0.0")
        .title("Checklist")
        .description("Serves the 2025-era checklist.")
        .website_url("https://example.com/checklist")
        .icon(Icon::new("https://example.com/checklist.png"))
        .tool(
            ToolEntry::new("echo", |Args(t): Args<Text>| async move { t.text })
                .title("Echo")
                .icon(Icon::new("https://example.com/echo.png")),
        )
        .tool(ToolEntry::new("ask", |input: Input| async move {
            let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
            format!("Hello, {}!", answer.field("name").unwrap_or_default())
        }))
        .tool(ToolEntry::new("ask_twice", |input: Input| async move {
            let first = input.elicit("first", Elicitation::form("First?").text("v", true)).await;
            let second = input.elicit("second", Elicitation::form("Second?").text("v", true)).await;
            format!("{} {}", first.field("v").unwrap_or_default(), second.field("v").unwrap_or_default())
        }))
        .tool(ToolEntry::new("ask_url", |input: Input| async move {
            let answer = input.elicit("login", Elicitation::url("Sign in", "https://example.com/login")).await;
            format!("{:?}", answer.action())
        }))
        .tool(ToolEntry::new("sample", |input: Input| async move {
            let answer = input.sample("s", Sampling::prompt("Say hi", 10)).await;
            answer.text().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("sample_with_tools", |input: Input| async move {
            let params = json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Weather?"}}],
                "maxTokens": 10,
                "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
                "toolChoice": {"mode": "auto"},
            });
            let answer = input.sample("s", Sampling::raw(params)).await;
            answer.text().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("sample_with_context", |input: Input| async move {
            let params = json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}],
                "maxTokens": 10,
                "includeContext": "thisServer",
            });
            let answer = input.sample("s", Sampling::raw(params)).await;
            answer.text().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("roots", |input: Input| async move { input.roots("r").await.len().to_string() }))
        .tool(ToolEntry::new("work", |cx: RequestContext| async move {
            cx.progress(1.0, Some(2.0), None);
            cx.log(LoggingLevel::Debug, None, "a detail");
            cx.log(LoggingLevel::Info, None, "working");
            cx.log(LoggingLevel::Warning, None, "a warning");
            cx.progress(2.0, Some(2.0), None);
            "done"
        }))
        .tool(ToolEntry::new("fails", || async { Err::<String, _>("the backend is down") }))
        .tool(ToolEntry::new("double", |Args(c): Args<Count>| async move { c.n * 2 }))
        .tool(ToolEntry::new("forecast", || async { Json(Forecast { city: "Paris".into(), celsius: 21.5 }) }))
        .tool(ToolEntry::new("numbers", || async { Json(vec![1u32, 2, 3]) }))
        .tool(ToolEntry::new("wait", |cx: RequestContext| async move {
            cx.cancellation().cancelled().await;
            "cancelled"
        }))
        .resource(ResourceEntry::fixed("notes://first", "first", || async { "remember" }).mime_type("text/plain"))
        .resource(
            ResourceEntry::fixed("blobs://pixel", "pixel", || async { vec![0u8, 1, 2, 255] }).mime_type("image/png"),
        )
        .resource(
            ResourceEntry::template("notes://{name}", "notes", || async { "a note" })
                .completer(|_| async { Ok(many("note-")) }),
        )
        .prompt(
            PromptEntry::new("greeting", || async { "Say hello." })
                .argument("name", "Whom to greet", false)
                .completer(|_| async { Ok(many("name-")) }),
        )
}

pub(crate) fn server() -> Server {
    builder().build().expect("a valid server")
}
