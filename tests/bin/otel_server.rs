//! A server that exports its telemetry as the `OTEL_*` variables say, for
//! `otel_export`: `otel_server http` serves HTTP on a loopback port it
//! prints on stdout, until stdin closes; `otel_server stdio` serves stdio
//! until the end of input. Either way the export is flushed on the way out.

use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Args, Server, entry::ToolEntry};
use serde::Deserialize;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tracing::Instrument as _;

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct KeyArgs {
    key: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct TextArgs {
    text: String,
}

fn server() -> Result<Server, mcp_runtime::BuildError> {
    Server::builder("otel-test-server", "0.0.1")
        .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b }))
        // A span of the handler's own, which must nest under the request's.
        .tool(ToolEntry::new("lookup", |Args(k): Args<KeyArgs>| async move {
            async move {
                tokio::task::yield_now().await;
                format!("value of {}", k.key)
            }
            .instrument(tracing::info_span!("db.query", db.operation.name = "SELECT"))
            .await
        }))
        .tool(ToolEntry::new("fail", || async { Err::<String, _>("the tool failed") }))
        // Tells it started (with a progress token), then answers only
        // once given up on: for cancellation.
        .tool(ToolEntry::new("slow", |cx: mcp_runtime::RequestContext| async move {
            cx.progress(0.0, None, Some("started".into()));
            cx.cancellation().cancelled().await;
            "cancelled"
        }))
        .tool(ToolEntry::new("echo", |Args(t): Args<TextArgs>| async move { t.text }).trace_content(true))
        .tool(ToolEntry::new("login", |Args(t): Args<TextArgs>| async move { format!("{} chars", t.text.len()) }))
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let telemetry = mcp_runtime::otel::init("otel-test-server")?;
    assert!(telemetry.exports_traces() && telemetry.exports_metrics(), "OTEL_EXPORTER_OTLP_ENDPOINT must be set");
    let server = server()?;
    match std::env::args().nth(1).as_deref() {
        Some("http") => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            // The address on the first line of stdout, for the test to connect to.
            let mut stdout = tokio::io::stdout();
            stdout.write_all(format!("{}\n", listener.local_addr()?).as_bytes()).await?;
            stdout.flush().await?;
            let input_closed = async {
                let mut sink = Vec::new();
                let _ = tokio::io::stdin().read_to_end(&mut sink).await;
            };
            server.serve_http_with_shutdown(listener, HttpConfig::default(), input_closed).await?;
        }
        Some("stdio") => server.serve_stdio().await?,
        _ => return Err("usage: otel_server (http | stdio)".into()),
    }
    drop(telemetry);
    Ok(())
}
