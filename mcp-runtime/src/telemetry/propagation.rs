//! The trace context a request carries, made the parent of its span: the
//! one in `params._meta` first (the conventions' place, which survives
//! every transport), else the W3C headers of the HTTP request. The span
//! that was current when the request arrived then becomes a link.

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{SpanContext, TraceContextExt};
use opentelemetry::{Context, global};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// A request's parent, decided once: as soon as its `_meta` is read, or
/// when it ends without one.
pub(crate) struct Parent {
    /// From the HTTP headers, until settled.
    headers: Option<Context>,
    /// The span current when the request arrived.
    ambient: Option<SpanContext>,
    settled: bool,
}

impl Parent {
    /// What is known when the request arrives.
    pub(crate) fn arriving(span: &Span, headers: Option<&http::HeaderMap>) -> Self {
        if span.is_disabled() {
            return Parent { headers: None, ambient: None, settled: true };
        }
        let headers = headers.and_then(|headers| extract(&Headers(headers)));
        let ambient = Span::current().context().span().span_context().clone();
        Parent { headers, ambient: ambient.is_valid().then_some(ambient), settled: false }
    }

    /// Sets the span's parent from `meta`, else from the headers; before the
    /// span is first entered, after which it could no longer change.
    pub(crate) fn settle(&mut self, span: &Span, meta: Option<&Map<String, Value>>) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        let Some(parent) = meta.and_then(|meta| extract(&Meta(meta))).or_else(|| self.headers.take()) else {
            return;
        };
        // Without the OpenTelemetry layer there is nothing to set.
        if span.set_parent(parent).is_ok()
            && let Some(ambient) = self.ambient.take()
        {
            span.add_link(ambient);
        }
    }
}

/// The context in `carrier`, with the global propagator (W3C trace context
/// when none was installed); `None` unless it names a valid span.
fn extract(carrier: &dyn Extractor) -> Option<Context> {
    let cx = global::get_text_map_propagator(|propagator| {
        if propagator.fields().next().is_none() {
            TraceContextPropagator::new().extract(carrier)
        } else {
            propagator.extract(carrier)
        }
    });
    cx.span().span_context().is_valid().then_some(cx)
}

/// `params._meta`, whose string values are read as the propagator's keys.
struct Meta<'a>(&'a Map<String, Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// The HTTP request's headers.
struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}
