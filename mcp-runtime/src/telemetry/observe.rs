//! [`Observation`]: one request's span and measurements, from its arrival
//! to its answer (or to its being given up on, when it is dropped first).

use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tracing::Span;

use super::request::{Origin, Target};
use super::{labels, metrics, span};
use crate::protocol::{ErrorObject, RequestId};
use crate::response::Response;

/// How a request ended.
pub(crate) enum Ending<'a> {
    /// With the dispatcher's response.
    Answered(&'a Response),
    /// A 2025-era session's request: its result (as JSON text) or its error.
    #[cfg(feature = "session")]
    Session(Result<&'a str, &'a ErrorObject>),
}

/// One request being observed; nothing at all when neither a subscriber
/// nor the metrics want it.
#[derive(Default)]
pub(crate) struct Observation(Option<Box<Active>>);

struct Active {
    span: Span,
    method: &'static str,
    /// A `tools/call`: its result may carry `isError`.
    tool_call: bool,
    /// The tool opted in to having its result recorded.
    trace_result: bool,
    metrics: metrics::Pending,
    #[cfg(feature = "otel")]
    parent: super::propagation::Parent,
    /// The client's way of giving the request up, when it has one: an
    /// answer that comes after it is not sent.
    cancellation: Option<CancellationToken>,
    done: bool,
}

impl Observation {
    /// Starts observing a request as it arrives.
    pub(crate) fn start(method: &str, id: Option<&RequestId>, origin: &Origin<'_>) -> Self {
        let span = span::new(method, id, origin);
        if span.is_disabled() && !metrics::ENABLED {
            return Observation(None);
        }
        let label = labels::method(method);
        let version = origin.http_version();
        #[cfg(feature = "otel")]
        let parent = {
            #[cfg(feature = "http")]
            let headers = origin.http.map(|parts| &parts.headers);
            #[cfg(not(feature = "http"))]
            let headers = None;
            super::propagation::Parent::arriving(&span, headers)
        };
        Observation(Some(Box::new(Active {
            metrics: metrics::Pending::start(label, origin.transport, version),
            span,
            method: label,
            tool_call: label == crate::protocol::Method::ToolsCall.name(),
            trace_result: false,
            #[cfg(feature = "otel")]
            parent,
            cancellation: None,
            done: false,
        })))
    }

    /// Whether anything is recorded.
    pub(crate) fn is_active(&self) -> bool {
        self.0.is_some()
    }

    /// Enters the span while the value lives (nothing when not observed).
    #[inline]
    pub(crate) fn enter(&self) -> Option<tracing::span::Entered<'_>> {
        self.0.as_ref().map(|active| active.span.enter())
    }

    /// The span to run the handler in (a disabled one when not observed).
    pub(crate) fn span(&self) -> Span {
        self.0.as_ref().map_or_else(Span::none, |active| active.span.clone())
    }

    /// Counts the request as given up on, whatever it answers, once `token`
    /// is cancelled (stdio's `notifications/cancelled`).
    pub(crate) fn cancelled_by(&mut self, token: &CancellationToken) {
        if let Some(active) = self.0.as_deref_mut() {
            active.cancellation = Some(token.clone());
        }
    }

    /// Records the session a 2025-era request belongs to.
    #[cfg(feature = "session")]
    pub(crate) fn session(&mut self, id: &str) {
        if let Some(active) = &self.0
            && !active.span.is_disabled()
        {
            active.span.record("mcp.session.id", id);
        }
    }

    /// Records what a request that passed validation is about: its
    /// protocol version, its target, and the trace context of its `_meta`.
    pub(crate) fn routed(&mut self, protocol_version: &str, target: Target<'_>, meta: Option<&Map<String, Value>>) {
        let Some(active) = self.0.as_deref_mut() else { return };
        let span = &active.span;
        if !span.is_disabled() {
            span.record("mcp.protocol.version", protocol_version);
            match target {
                Target::None => {}
                Target::Tool { name, trace, arguments } => {
                    span.record("otel.name", format!("{} {name}", active.method));
                    span.record("gen_ai.tool.name", name);
                    span.record("gen_ai.operation.name", "execute_tool");
                    if trace {
                        span.record("gen_ai.tool.call.arguments", arguments.unwrap_or("{}"));
                    }
                }
                Target::Prompt(name) => {
                    span.record("otel.name", format!("{} {name}", active.method));
                    span.record("gen_ai.prompt.name", name);
                }
                Target::Resource(uri) => {
                    span.record("mcp.resource.uri", uri);
                }
            }
        }
        active.trace_result = matches!(target, Target::Tool { trace: true, .. });
        active.metrics.routed(protocol_version, target);
        #[cfg(feature = "otel")]
        active.parent.settle(span, meta);
        #[cfg(not(feature = "otel"))]
        let _ = meta;
    }

    /// Records how the request ended; only the first ending counts.
    #[inline]
    pub(crate) fn finish(&mut self, ending: Ending<'_>) {
        if let Some(active) = self.0.as_deref_mut() {
            active.finish(ending);
        }
    }
}

impl Active {
    fn finish(&mut self, ending: Ending<'_>) {
        if self.cancellation.as_ref().is_some_and(CancellationToken::is_cancelled) {
            return self.end(Some(Failure::CANCELLED), None);
        }
        let active = self;
        let (failure, result) = match ending {
            Ending::Answered(response) => match response.as_error() {
                Some(error) => (Some(Failure::rpc(error, span::stage_name(response.stage()))), None),
                None => {
                    let result = response.as_result();
                    let failed = active.tool_call && result.is_some_and(is_tool_error);
                    (failed.then_some(Failure::TOOL), result.map(std::borrow::Cow::Borrowed))
                }
            },
            #[cfg(feature = "session")]
            Ending::Session(Err(error)) => (Some(Failure::rpc(error, None)), None),
            #[cfg(feature = "session")]
            Ending::Session(Ok(result)) => {
                let failed = active.tool_call && is_tool_error(result);
                (failed.then_some(Failure::TOOL), Some(std::borrow::Cow::Borrowed(result)))
            }
        };
        let result = result.filter(|_| active.trace_result && failure.is_none());
        active.end(failure, result.as_deref());
    }

    fn end(&mut self, failure: Option<Failure<'_>>, result: Option<&str>) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        #[cfg(feature = "otel")]
        self.parent.settle(&self.span, None);
        let span = &self.span;
        if !span.is_disabled() {
            if let Some(result) = result {
                span.record("gen_ai.tool.call.result", result);
            }
            if let Some(failure) = &failure {
                span.record("error.type", failure.kind.as_ref());
                span.record("otel.status_code", "error");
                if let Some(message) = failure.message {
                    span.record("otel.status_description", message);
                }
                if failure.code.is_some() {
                    span.record("rpc.response.status_code", failure.kind.as_ref());
                }
                if let Some(stage) = failure.stage {
                    span.record("mcp_runtime.validation.stage", stage);
                }
            }
        }
        let failure = failure.as_ref().map(|f| (f.kind.as_ref(), f.code.is_some()));
        self.metrics.finish(failure);
    }
}

impl Drop for Observation {
    fn drop(&mut self) {
        // Given up on before it was answered: the client went away or
        // cancelled, or it ran out of time.
        if let Some(active) = self.0.as_deref_mut()
            && !active.done
        {
            active.end(Some(Failure::CANCELLED), None);
        }
    }
}

/// Why a request failed, as `error.type` and the span status say it.
struct Failure<'a> {
    kind: std::borrow::Cow<'static, str>,
    /// The JSON-RPC error code, for `rpc.response.status_code`.
    code: Option<i32>,
    message: Option<&'a str>,
    stage: Option<&'static str>,
}

impl<'a> Failure<'a> {
    /// A tool result with `isError`.
    const TOOL: Failure<'static> =
        Failure { kind: std::borrow::Cow::Borrowed("tool_error"), code: None, message: None, stage: None };

    /// Given up on before it was answered: the client went away or
    /// cancelled, or it ran out of time.
    const CANCELLED: Failure<'static> = Failure {
        kind: std::borrow::Cow::Borrowed("cancelled"),
        code: None,
        message: Some("The request was given up on before it was answered"),
        stage: None,
    };

    fn rpc(error: &'a ErrorObject, stage: Option<&'static str>) -> Self {
        Failure { kind: error.code.to_string().into(), code: Some(error.code), message: Some(&error.message), stage }
    }
}

/// Whether a `CallToolResult`'s JSON says `isError: true` (at its top level:
/// the same key in its content or structured content says nothing).
fn is_tool_error(result: &str) -> bool {
    #[derive(Deserialize)]
    struct Flag {
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
    }
    serde_json::from_str::<Flag>(result).is_ok_and(|flag| flag.is_error == Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_top_level_is_error_marks_a_tool_error() {
        assert!(is_tool_error(r#"{"content":[],"isError":true}"#));
        assert!(!is_tool_error(r#"{"content":[],"isError":false}"#));
        assert!(!is_tool_error(r#"{"content":[{"type":"text","text":"\"isError\":true"}]}"#));
        assert!(!is_tool_error(r#"{"structuredContent":{"isError":true},"content":[]}"#));
    }
}
