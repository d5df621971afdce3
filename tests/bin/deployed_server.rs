//! A server whose `main` is the one line a README shows: built and served
//! as its command line and `MCP_*` variables say (`ServerBuilder::serve`),
//! with logs on stderr. `tests/deployment.rs` starts it with settings from
//! both.

use mcp_runtime::{Server, entry::ToolEntry};

#[mcp_runtime::main(logging)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Server::builder("deployed", "1.0.0")
        .tool(ToolEntry::new("ping", || async { "pong" }).description("Answers pong."))
        .serve()
        .await?;
    Ok(())
}
