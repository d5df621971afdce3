//! The metrics: through the global OpenTelemetry meter with the `otel`
//! feature, nothing at all without it.

#[cfg(not(feature = "otel"))]
pub(super) use off::*;
#[cfg(feature = "otel")]
pub(super) use on::*;

#[cfg(not(feature = "otel"))]
mod off {
    use crate::telemetry::request::Target;

    /// Whether requests are measured.
    pub(crate) const ENABLED: bool = false;

    /// Nothing to measure.
    pub(crate) struct Pending;

    impl Pending {
        pub(crate) fn start(
            _method: &'static str,
            _transport: Option<&'static str>,
            _http: Option<&'static str>,
        ) -> Self {
            Pending
        }

        pub(crate) fn routed(&mut self, _protocol_version: &str, _target: Target<'_>) {}

        pub(crate) fn finish(&mut self, _failure: Option<(&str, bool)>) {}
    }

    #[cfg(feature = "session")]
    pub(crate) fn sessions(_change: i64) {}
}

#[cfg(feature = "otel")]
mod on {
    use std::sync::OnceLock;
    use std::time::Instant;

    use opentelemetry::metrics::{Histogram, UpDownCounter};
    use opentelemetry::{InstrumentationScope, KeyValue, global};

    use crate::telemetry::request::Target;

    /// Whether requests are measured.
    pub(crate) const ENABLED: bool = true;

    /// The boundaries the conventions give `mcp.server.operation.duration`, in seconds.
    pub(crate) const DURATION_BUCKETS: [f64; 14] =
        [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

    struct Instruments {
        duration: Histogram<f64>,
        requests: UpDownCounter<i64>,
        streams: UpDownCounter<i64>,
        #[cfg(feature = "session")]
        sessions: UpDownCounter<i64>,
    }

    /// Made on first use, from the meter provider installed then.
    fn instruments() -> &'static Instruments {
        static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
        INSTRUMENTS.get_or_init(|| {
            let scope = InstrumentationScope::builder("mcp-runtime").with_version(env!("CARGO_PKG_VERSION")).build();
            let meter = global::meter_with_scope(scope);
            Instruments {
                duration: meter
                    .f64_histogram("mcp.server.operation.duration")
                    .with_unit("s")
                    .with_description("MCP request duration as observed on the server, from its arrival to its answer.")
                    .with_boundaries(DURATION_BUCKETS.to_vec())
                    .build(),
                requests: meter
                    .i64_up_down_counter("mcp_runtime.server.active_requests")
                    .with_unit("{request}")
                    .with_description("Requests being served (listen streams aside).")
                    .build(),
                streams: meter
                    .i64_up_down_counter("mcp_runtime.server.active_listen_streams")
                    .with_unit("{stream}")
                    .with_description("Open `subscriptions/listen` streams.")
                    .build(),
                #[cfg(feature = "session")]
                sessions: meter
                    .i64_up_down_counter("mcp_runtime.server.active_sessions")
                    .with_unit("{session}")
                    .with_description("2025-era sessions this process holds.")
                    .build(),
            }
        })
    }

    /// One request's measurement so far.
    pub(crate) struct Pending {
        started: Instant,
        attributes: Vec<KeyValue>,
        listen: bool,
    }

    impl Pending {
        pub(crate) fn start(method: &'static str, transport: Option<&'static str>, http: Option<&'static str>) -> Self {
            let mut attributes = Vec::with_capacity(9);
            attributes.push(KeyValue::new("mcp.method.name", method));
            let listen = method == crate::protocol::Method::SubscriptionsListen.name();
            let counter = if listen { &instruments().streams } else { &instruments().requests };
            counter.add(1, &attributes);
            if let Some(transport) = transport {
                attributes.push(KeyValue::new("network.transport", transport));
            }
            if let Some(version) = http {
                attributes.push(KeyValue::new("network.protocol.name", "http"));
                attributes.push(KeyValue::new("network.protocol.version", version));
            }
            Pending { started: Instant::now(), attributes, listen }
        }

        /// Adds what a validated request is about; only names the server
        /// serves reach here, so clients cannot add series at will.
        pub(crate) fn routed(&mut self, protocol_version: &str, target: Target<'_>) {
            self.attributes.push(KeyValue::new("mcp.protocol.version", protocol_version.to_owned()));
            match target {
                Target::Tool { name, .. } => {
                    self.attributes.push(KeyValue::new("gen_ai.tool.name", name.to_owned()));
                    self.attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                }
                Target::Prompt(name) => self.attributes.push(KeyValue::new("gen_ai.prompt.name", name.to_owned())),
                Target::None | Target::Resource(_) => {}
            }
        }

        /// `failure`: `error.type`, and whether it is a JSON-RPC error code.
        pub(crate) fn finish(&mut self, failure: Option<(&str, bool)>) {
            let seconds = self.started.elapsed().as_secs_f64();
            let counter = if self.listen { &instruments().streams } else { &instruments().requests };
            counter.add(-1, &self.attributes[..1]);
            if let Some((kind, code)) = failure {
                self.attributes.push(KeyValue::new("error.type", kind.to_owned()));
                if code {
                    self.attributes.push(KeyValue::new("rpc.response.status_code", kind.to_owned()));
                }
            }
            instruments().duration.record(seconds, &self.attributes);
        }
    }

    /// A 2025-era session held here was opened (`1`) or let go (`-1`).
    #[cfg(feature = "session")]
    pub(crate) fn sessions(change: i64) {
        instruments().sessions.add(change, &[]);
    }
}
