//! The floor: a bare hyper 1 server that reads each request body and answers
//! a fixed, valid `tools/call` result without parsing anything. No MCP
//! server can do less work per call over HTTP/1.1.
//!
//! `bench-floor http 127.0.0.1:PORT`.

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

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    // Read the body, as every server must, but look at nothing.
    let _ = request.into_body().collect().await;
    let mut response = Response::new(Full::new(Bytes::from_static(RESULT.trim_end().as_bytes())));
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
