//! A tool and its test, with `mcp-runtime` as the only dependency: `cargo test` runs it.

use mcp_runtime::client::Client;
use mcp_runtime::input::Elicitation;
use mcp_runtime::protocol::{ContentBlock, ElicitResult};
use mcp_runtime::serde_json::json;
use mcp_runtime::{Input, tool};

/// Deletes everything, after asking.
#[tool(annotations(destructive))]
async fn wipe(input: Input) -> String {
    // Ask first, then act: the call runs again from the top once the answer comes.
    let answer = input.elicit("confirm", Elicitation::form("Really?").boolean("ok", true)).await;
    if answer.field("ok").as_deref() != Some("true") {
        return "kept everything".to_owned();
    }
    /* delete everything */
    "wiped".to_owned()
}

#[mcp_runtime::test]
async fn wipe_asks_then_deletes() -> Result<(), Box<dyn std::error::Error>> {
    let server = mcp_runtime::server!().build()?;
    let client =
        Client::in_process(server).on_elicitation(|_request| async { ElicitResult::accept(json!({"ok": true})) });
    let result = client.call_tool("wipe", json!({})).await?;
    assert_eq!(result.content, [ContentBlock::text("wiped")]);
    Ok(())
}
