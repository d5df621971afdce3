//! A server on loopback keeping its tasks in an SQLite file, with a
//! half-second task lease; spawned, killed and spawned again on the same
//! file by the `sqlite_tasks` test.
//!
//! Usage: `sqlite_tasks <database> <port>`

use std::time::Duration;

use mcp_runtime::tasks::{SqliteTaskStore, TaskSupport};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Server, entry::ToolEntry};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(database), Some(port)) = (args.next(), args.next()) else {
        return Err("usage: sqlite_tasks <database> <port>".into());
    };
    let port: u16 = port.parse()?;
    // Warnings, and the runtime's line with the address it bound (`port` 0:
    // the system's choice), which the tests read.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn,mcp_runtime=info"))
        .init();
    let server = Server::builder("durable", "1.0.0")
        .task_store(SqliteTaskStore::open(database)?)
        .task_lease(Duration::from_millis(500))
        .tool(ToolEntry::new("quick", || async { "quick and done" }).task(TaskSupport::required()))
        .tool(
            ToolEntry::new("slow", || async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                "slept"
            })
            .task(TaskSupport::required()),
        )
        .build()?;
    server.serve_http_with(("127.0.0.1", port), HttpConfig::default()).await?;
    Ok(())
}
