//! Parameter patterns: `mut` bindings, raw identifiers, destructuring with a
//! `rename`, wildcard context parameters, and an empty explicit list.

use mcp_runtime::client::Client;
use mcp_runtime::protocol::ContentBlock;
use mcp_runtime::{RequestContext, Server, State, tool, tools};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// Moves a point.
#[tool]
fn shift(
    mut dx: i64,
    r#type: String,
    #[arg(rename = "point")] Point { x, y }: Point,
    _: RequestContext,
    State(offset): State<i64>,
) -> String {
    dx += offset;
    format!("{type} at ({}, {y})", x + dx, type = r#type)
}

#[tokio::main]
async fn main() {
    let server = Server::builder("patterns", "1.0.0").state(1_i64).tools(tools![shift]).build();
    let server = server.unwrap_or_else(|e| panic!("{e}"));
    let tool = server.tools().next().map(|t| t.definition().clone());
    let schema = tool.map(|t| serde_json::Value::Object(t.input_schema)).unwrap_or_default();
    assert_eq!(schema["required"], serde_json::json!(["dx", "type", "point"]));

    let client = Client::in_process(server);
    let arguments = serde_json::json!({"dx": 1, "type": "dot", "point": {"x": 1, "y": 2}});
    let result = client.call_tool("shift", arguments).await.unwrap_or_default();
    let text = match result.content.first() {
        Some(ContentBlock::Text(text)) => text.text.as_str(),
        _ => "",
    };
    assert_eq!(text, "dot at (3, 2)");

    let none = Server::builder("empty", "1.0.0").tools(tools![]).build();
    assert!(none.is_ok());
}
