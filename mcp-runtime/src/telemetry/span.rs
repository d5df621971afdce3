//! The request span: declared once with every field it may carry (a
//! `tracing` span cannot gain fields later), filled in as the request is
//! read, routed and answered.

use tracing::Span;
use tracing::field::Empty;

use super::labels;
use super::request::Origin;
use crate::protocol::RequestId;
use crate::response::Stage;

/// A new request span, with what is known as the request arrives: its
/// method, its id, its transport and HTTP version. Disabled (and costing
/// one level check, the values unread) when no subscriber wants INFO spans
/// of `mcp_runtime::request`; recorded at once otherwise, which costs a
/// subscriber less than recording them one by one.
#[inline]
pub(super) fn new(method: &str, id: Option<&RequestId>, origin: &Origin<'_>) -> Span {
    tracing::info_span!(
        target: "mcp_runtime::request",
        "mcp.request",
        otel.name = labels::method(method),
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        mcp.protocol.version = Empty,
        mcp.session.id = Empty,
        mcp.resource.uri = Empty,
        jsonrpc.request.id = id.map(|id| labels::request_id(id.as_json())),
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        network.transport = origin.transport(),
        network.protocol.name = origin.http_version().map(|_| "http"),
        network.protocol.version = origin.http_version(),
        error.type = Empty,
        rpc.response.status_code = Empty,
        mcp_runtime.validation.stage = Empty,
    )
}

/// The name of a pipeline stage, as `mcp_runtime.validation.stage` holds it;
/// `None` for the handler, which is not a validation.
pub(super) fn stage_name(stage: Stage) -> Option<&'static str> {
    Some(match stage {
        Stage::Envelope => "envelope",
        Stage::Meta => "meta",
        Stage::Headers => "headers",
        Stage::Version => "version",
        Stage::Routing => "routing",
        Stage::Params => "params",
        Stage::Handler => return None,
    })
}

/// Records on the current span the stage that refused a request served
/// inside another's span (a 2025-era session's request, rewritten and
/// validated again by the dispatcher).
pub(crate) fn note_refusal(stage: Stage) {
    let Some(name) = stage_name(stage) else { return };
    let span = Span::current();
    if !span.is_disabled() {
        span.record("mcp_runtime.validation.stage", name);
    }
}
