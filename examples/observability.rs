//! Logs and telemetry, shared by the examples: logs on stderr filtered by
//! `RUST_LOG` (default `info`; over stdio, stdout carries nothing but
//! JSON-RPC), and, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, every request
//! span and the MCP metrics exported over OTLP/HTTP (the other `OTEL_*`
//! variables apply; see the README's "Observability").

use anyhow::Context as _;

/// Sets logs and export up for the server `name`. Keep the value until the
/// end of `main`: dropping it flushes what is still buffered.
pub(crate) fn init(name: &str) -> anyhow::Result<mcp_runtime::otel::Telemetry> {
    mcp_runtime::otel::init(name).context("setting up logs and OpenTelemetry export")
}
