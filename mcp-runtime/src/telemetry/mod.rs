//! What a server tells about the requests it serves: one `tracing` span per
//! request, and (with the `otel` feature) the trace context the client sent
//! and the metrics of the OpenTelemetry semantic conventions for MCP.
//!
//! The names follow those conventions (status Development): the span is
//! named `{mcp.method.name} {target}` (the tool or prompt named; never a
//! resource URI, which would make as many names as resources), is of kind
//! server, and carries `mcp.method.name`, `mcp.protocol.version`,
//! `jsonrpc.request.id`, `gen_ai.tool.name` or `gen_ai.prompt.name`,
//! `gen_ai.operation.name` (`execute_tool`), `mcp.resource.uri`,
//! `mcp.session.id` (2025-era sessions), `network.transport` (`tcp` or
//! `pipe`) and `network.protocol.*`. A JSON-RPC error sets `error.type` and
//! `rpc.response.status_code` to its code and the span's status to error
//! with its message; a tool result with `isError` sets `error.type` to
//! `tool_error`. The stage of the pipeline that refused a request is
//! `mcp_runtime.validation.stage`. Tool arguments and results are recorded
//! (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) only for the
//! tools that opt in with [`ToolEntry::trace_content`](crate::entry::ToolEntry::trace_content);
//! `Authorization`, `requestState` and the rest of the params never are.
//!
//! The span is a plain `tracing` span (target `mcp_runtime::request`, level
//! INFO, named `mcp.request`, its OpenTelemetry name in `otel.name`), so a
//! `tracing-subscriber` shows it without the `otel` feature, and the
//! handler runs inside it: the spans a handler opens (a database query)
//! are its children with no code of the handler's own.
//!
//! With the `otel` feature the span's parent is the context in the request's
//! `params._meta` (`traceparent`, `tracestate`, `baggage`, read with the
//! global propagator, W3C trace context when none is set), else, over HTTP,
//! the one in the W3C headers; the span current when the request arrived
//! (a host application's HTTP span) then becomes a link. The metrics are
//! recorded through the global meter provider (install it before the first
//! request): `mcp.server.operation.duration` (histogram, seconds, the
//! conventions' buckets and attributes), and the up-down counters
//! `mcp_runtime.server.active_requests`, `mcp_runtime.server.active_listen_streams`
//! and `mcp_runtime.server.active_sessions` (2025-era sessions this
//! process holds).
//!
//! Without a subscriber and without the feature, a request costs one check
//! of tracing's level filter here.

mod labels;
mod metrics;
mod observe;
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(feature = "otel")]
mod propagation;
mod request;
#[cfg(feature = "session")]
mod session;
mod span;

pub(crate) use observe::{Ending, Observation};
pub(crate) use request::{Origin, Target};
#[cfg(feature = "session")]
pub(crate) use session::LiveSession;
pub(crate) use span::note_refusal;
