//! scratch
use mcp_runtime::{RequestContext, Server, testing::TestClient, tool, tools};

/// Adds two numbers.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Searches.
#[tool(annotations(read_only))]
fn search(
    /// What to find.
    query: String,
    #[arg(description = "max", default = 10)] limit: u32,
    cx: &RequestContext,
) -> Result<Vec<String>, String> {
    let _ = cx;
    Ok(vec![query; limit as usize])
}

#[tokio::test]
async fn basics() {
    let server = Server::builder("t", "1").tools(tools![add, search]).build().expect("build");
    let client = TestClient::new(server);
    let list = client.list_tools().await.expect("list");
    println!("{}", serde_json::to_string_pretty(&list).unwrap());
    let r = client.call_tool("add", serde_json::json!({"a": 1, "b": 2})).await.expect("call");
    println!("{r}");
    let r = client.call_tool("search", serde_json::json!({"query": "x", "limit": 2})).await.expect("call");
    println!("{r}");
    let r = client.call_tool("search", serde_json::json!({"limit": "x"})).await.expect("call");
    println!("{r}");
}
