//! An OTLP/HTTP receiver on loopback: it takes what an exporter POSTs to
//! `/v1/traces` and `/v1/metrics`, checks that it is protobuf, and decodes it
//! with the official OpenTelemetry protobuf definitions (the generated types
//! of `opentelemetry-proto`), keeping every request it decoded.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::metrics::v1::Metric;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;

/// What was received so far.
#[derive(Default)]
struct Received {
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
    /// Anything that was not a protobuf OTLP export.
    refused: Vec<String>,
}

/// The receiver, serving until the test ends.
pub(crate) struct Receiver {
    pub(crate) addr: SocketAddr,
    received: Arc<Mutex<Received>>,
}

impl Receiver {
    pub(crate) async fn start() -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("an address");
        let received = Arc::new(Mutex::new(Received::default()));
        let shared = Arc::clone(&received);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let shared = Arc::clone(&shared);
                let service = hyper::service::service_fn(move |request| take(Arc::clone(&shared), request));
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
                );
            }
        });
        Receiver { addr, received }
    }

    /// Every span received, in the order received.
    pub(crate) fn spans(&self) -> Vec<Span> {
        let received = self.received.lock().expect("lock");
        assert!(received.refused.is_empty(), "the exporter sent what is not OTLP: {:?}", received.refused);
        let resources = received.traces.iter().flat_map(|t| &t.resource_spans);
        for resource in resources.clone() {
            let name = resource.resource.as_ref().and_then(|r| super::attribute(&r.attributes, "service.name"));
            assert_eq!(name.as_deref(), Some("otel-test-server"), "service.name of the resource");
        }
        resources.flat_map(|r| &r.scope_spans).flat_map(|s| s.spans.iter().cloned()).collect()
    }

    /// Every metric received, in the order received.
    pub(crate) fn metrics(&self) -> Vec<Metric> {
        let received = self.received.lock().expect("lock");
        let resources = received.metrics.iter().flat_map(|m| &m.resource_metrics);
        resources.flat_map(|r| &r.scope_metrics).flat_map(|s| s.metrics.iter().cloned()).collect()
    }
}

async fn take(
    received: Arc<Mutex<Received>>,
    request: hyper::Request<Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, hyper::Error> {
    let path = request.uri().path().to_owned();
    let protobuf = request.headers().get("content-type").is_some_and(|v| v == "application/x-protobuf");
    let body = request.into_body().collect().await?.to_bytes();
    {
        let mut received = received.lock().expect("lock");
        match path.as_str() {
            "/v1/traces" if protobuf => match ExportTraceServiceRequest::decode(body) {
                Ok(export) => received.traces.push(export),
                Err(e) => received.refused.push(format!("traces: {e}")),
            },
            "/v1/metrics" if protobuf => match ExportMetricsServiceRequest::decode(body) {
                Ok(export) => received.metrics.push(export),
                Err(e) => received.refused.push(format!("metrics: {e}")),
            },
            other => received.refused.push(format!("{other} (protobuf: {protobuf})")),
        }
    }
    // An empty export response is an empty protobuf message.
    let mut response = hyper::Response::new(Full::new(Bytes::new()));
    response.headers_mut().insert("content-type", "application/x-protobuf".parse().expect("a header value"));
    Ok(response)
}
