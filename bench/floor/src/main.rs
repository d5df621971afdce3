//! The floor: a bare hyper 1 server that reads each request body and answers
//! a fixed, valid `tools/call` result without parsing anything. No MCP
//! server can do less work per call over HTTP/1.1.
//!
//! `bench-floor http 127.0.0.1:PORT`.
//!
//! Built with the `io` feature, a body that mentions `"lookup"` gets the
//! I/O of the benchmark's `lookup` tool instead (`bench_io::lookup` of the
//! key [`LOOKUP_KEY`], which the driver always asks for: the floor parses
//! nothing), answered in the same shape: the I/O-bound workload's floor.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// What ours answers to the benchmark's call, byte for byte.
const RESULT: &str = include_str!("result.json");

/// The key the driver's `lookup` calls read.
#[cfg(feature = "io")]
const LOOKUP_KEY: &str = "greeting";

/// The answer to a `lookup` call, in the shape of [`RESULT`].
#[cfg(feature = "io")]
async fn lookup() -> Bytes {
    let (text, error) = match bench_io::lookup(LOOKUP_KEY).await {
        Ok(text) => (text, false),
        Err(why) => (why, true),
    };
    // The texts are ASCII without quotes or backslashes: no escaping needed.
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","content":[{{"type":"text","text":"{text}"}}],"isError":{error}}}}}"#
    ))
}

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    // Read the body, as every server must, but look at nothing.
    #[cfg(not(feature = "io"))]
    let body = {
        let _ = request.into_body().collect().await;
        Bytes::from_static(RESULT.trim_end().as_bytes())
    };
    // Except, for the I/O-bound workload, whether it calls `lookup`.
    #[cfg(feature = "io")]
    let body = {
        let body = request.into_body().collect().await.map(|body| body.to_bytes()).unwrap_or_default();
        match body.windows(8).any(|w| w == br#""lookup""#) {
            true => lookup().await,
            false => Bytes::from_static(RESULT.trim_end().as_bytes()),
        }
    };
    let mut response = Response::new(Full::new(body));
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    Ok(response)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = match (args.first().map(String::as_str), args.get(1)) {
        (Some("http"), Some(addr)) => addr.clone(),
        _ => return Err("usage: bench-floor http ADDR".into()),
    };
    let listener = TcpListener::bind(addr.as_str()).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service_fn(answer)).await;
        });
    }
}
