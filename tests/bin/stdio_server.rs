//! A small server over stdio for the transport tests, built with the
//! registry API: it answers quickly (`add`), slowly (`wait`), with
//! notifications (`report`), with a question (`greet`, which asks a name),
//! and with a panic (`explode`). Diagnostics go to stderr through `tracing`.
//! Its `requestState` key is the environment's (`MCP_REQUEST_STATE_KEY`), as
//! any server's whose code sets none.

use std::time::Duration;

use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::{Args, RequestContext, Server, entry::ToolEntry};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct WaitArgs {
    /// How long to take, in milliseconds.
    ms: u64,
}

fn server() -> Result<Server, mcp_runtime::BuildError> {
    Server::builder("stdio-test-server", "0.0.1")
        .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b }))
        .tool(ToolEntry::new("wait", |Args(w): Args<WaitArgs>| async move {
            tokio::time::sleep(Duration::from_millis(w.ms)).await;
            format!("waited {} ms", w.ms)
        }))
        .tool(ToolEntry::new("report", |cx: RequestContext| async move {
            cx.progress(1.0, Some(2.0), Some("half".into()));
            cx.log(LoggingLevel::Info, Some("report"), json!("working"));
            cx.progress(2.0, Some(2.0), None);
            "reported"
        }))
        .tool(ToolEntry::new("greet", |input: mcp_runtime::Input| async move {
            let form = mcp_runtime::input::Elicitation::form("Your name?").text("name", true);
            let answer = input.elicit("name", form).await;
            format!("Hello, {}!", answer.field("name").unwrap_or_default())
        }))
        .tool(ToolEntry::new("explode", || async {
            tracing::info!("about to fail");
            if std::hint::black_box(true) {
                panic!("the handler fails on purpose");
            }
            "unreachable"
        }))
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).init();
    tracing::info!("serving on stdio");
    server()?.serve_stdio().await?;
    tracing::info!("end of input");
    Ok(())
}
