//! Logs and OpenTelemetry export set up from the environment, in one call
//! at the start of `main` (the `otel` feature):
//!
//! ```no_run
//! # fn main() -> Result<(), mcp_runtime::otel::InitError> {
//! let _telemetry = mcp_runtime::otel::init("notes")?; // flushes when dropped, at the end of main
//! # Ok(())
//! # }
//! ```
//!
//! - Logs go to stderr (stdout may be the stdio transport), filtered by
//!   `RUST_LOG` (default `info`); the same filter decides which spans are
//!   exported.
//! - When `OTEL_EXPORTER_OTLP_ENDPOINT` (or the `_TRACES_` or `_METRICS_`
//!   one) is set, traces and metrics are exported over OTLP/HTTP with
//!   protobuf, read as the OpenTelemetry specification says:
//!   `OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT`, `OTEL_SERVICE_NAME` (which wins
//!   over the name given here), `OTEL_RESOURCE_ATTRIBUTES`,
//!   `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`, `OTEL_METRIC_EXPORT_INTERVAL`;
//!   `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none` and
//!   `OTEL_METRICS_EXPORTER=none` one by one, turn export off.
//! - The W3C trace context and baggage propagators are installed, through
//!   which each request's span takes the client's context as its parent.
//!
//! With the feature every request is measured through the global meter
//! provider (a no-op one until [`init`] or the application installs another):
//! a few allocations per request, which a server that never exports can
//! save by leaving the feature off.
//!
//! The exporter speaks plain HTTP (a collector beside the server); an
//! application that needs more (TLS, gRPC, other exporters) builds its own
//! providers, installs them globally with their propagator, and adds a
//! `tracing_opentelemetry` layer to its subscriber: the runtime's spans and
//! metrics go through whatever is installed.

use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{MetricExporter, SpanExporter};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

/// Why [`init`] could not set things up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    /// An OTLP exporter could not be built from the environment (a malformed
    /// endpoint, say).
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// A global `tracing` subscriber was installed already.
    #[error("a tracing subscriber is installed already: {0}")]
    Subscriber(#[from] tracing_subscriber::util::TryInitError),
}

/// What [`init`] set up; dropping it sends what is still buffered and stops
/// the exporters. Keep it alive until the end of `main`.
#[must_use = "dropping it stops the export at once"]
#[derive(Debug)]
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
    metrics: Option<SdkMeterProvider>,
}

impl Telemetry {
    /// Whether spans are exported.
    pub fn exports_traces(&self) -> bool {
        self.traces.is_some()
    }

    /// Whether metrics are exported.
    pub fn exports_metrics(&self) -> bool {
        self.metrics.is_some()
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        // Errors here can only be reported on stderr, which the exporters'
        // own diagnostics already use.
        if let Some(traces) = self.traces.take() {
            let _ = traces.shutdown();
        }
        if let Some(metrics) = self.metrics.take() {
            let _ = metrics.shutdown();
        }
    }
}

/// Installs the global `tracing` subscriber (logs to stderr by `RUST_LOG`,
/// spans to OTLP when an endpoint is set) and the global OpenTelemetry
/// providers and propagator. `service_name` is `service.name` unless
/// `OTEL_SERVICE_NAME` says otherwise.
pub fn init(service_name: &str) -> Result<Telemetry, InitError> {
    opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ]));
    let resource = resource(service_name);
    let traces = match exporting("TRACES") {
        true => Some(
            SdkTracerProvider::builder()
                .with_batch_exporter(SpanExporter::builder().with_http().build()?)
                .with_resource(resource.clone())
                .build(),
        ),
        false => None,
    };
    let metrics = match exporting("METRICS") {
        true => Some(
            SdkMeterProvider::builder()
                .with_periodic_exporter(MetricExporter::builder().with_http().build()?)
                .with_resource(resource)
                .build(),
        ),
        false => None,
    };
    if let Some(metrics) = &metrics {
        opentelemetry::global::set_meter_provider(metrics.clone());
    }
    let spans = traces.as_ref().map(|traces| {
        opentelemetry::global::set_tracer_provider(traces.clone());
        tracing_opentelemetry::layer().with_tracer(traces.tracer("mcp-runtime"))
    });
    let filter = || EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(filter()))
        .with(spans.with_filter(filter()))
        .try_init()?;
    Ok(Telemetry { traces, metrics })
}

/// Whether `signal` (`TRACES` or `METRICS`) is to be exported: an endpoint
/// is set for it, and neither the SDK nor that exporter is turned off.
fn exporting(signal: &str) -> bool {
    let set = |name: &str| std::env::var(name).is_ok_and(|value| !value.trim().is_empty());
    let is = |name: &str, value: &str| std::env::var(name).is_ok_and(|v| v.trim().eq_ignore_ascii_case(value));
    !is("OTEL_SDK_DISABLED", "true")
        && !is(&format!("OTEL_{signal}_EXPORTER"), "none")
        && (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")))
}

/// The SDK's resource (`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`, the
/// SDK's own), named `service_name` when the environment names nothing.
fn resource(service_name: &str) -> Resource {
    let builder = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_some() {
        return builder.build();
    }
    builder.with_service_name(service_name.to_owned()).build()
}
