//! The endpoint as a tower service: mounted in axum, or called without a
//! listener.

use http::{Method, StatusCode};
use http_body_util::BodyExt;
use mcp_runtime::CancellationToken;
use mcp_runtime::transport::http::HttpConfig;
use mcp_tests::exchange::request;
use mcp_tests::wire_schema::{assert_valid_message, request_meta};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::fixture::{Post, Probe, STUCK, call, fixture};

#[tokio::test]
async fn mounts_in_an_axum_router_next_to_other_routes() {
    let server = fixture(Probe::default());
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .route_service("/mcp", server.http_service(HttpConfig::default()));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let stop = CancellationToken::new();
    let until = stop.clone().cancelled_owned();
    let serving = tokio::spawn(async move { axum::serve(listener, app).with_graceful_shutdown(until).await });

    let health = Post::raw("").method(Method::GET).path("/health").send(addr).await;
    assert_eq!((health.status, &health.body[..]), (StatusCode::OK, &b"ok"[..]));
    let reply = Post::mcp(&call(1, "echo", json!({"text": "from axum"}))).send(addr).await;
    assert_eq!(reply.json("tools/call")["result"]["content"][0]["text"], "from axum");
    let mut meta = request_meta();
    meta["progressToken"] = json!("ax");
    let streamed = Post::mcp(&request(2, "tools/call", json!({"name": "steps", "arguments": {}, "_meta": meta})));
    assert_eq!(streamed.send(addr).await.events("tools/call").len(), 4);
    assert_eq!(Post::raw("").method(Method::GET).send(addr).await.status, StatusCode::METHOD_NOT_ALLOWED);

    stop.cancel();
    tokio::time::timeout(STUCK, serving).await.expect("axum stops").expect("task").expect("serve result");
}

#[tokio::test]
async fn the_service_works_without_a_listener() {
    use tower_service::Service as _;
    let mut service = fixture(Probe::default()).http_service(HttpConfig::default());
    let message = request(1, "tools/list", Value::Null);
    let request = Post::mcp(&message).header("host", "localhost").build("127.0.0.1:1".parse().expect("addr"));
    let response = service.call(request).await.expect("infallible");
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.expect("a body").to_bytes();
    let value: Value = serde_json::from_slice(&body).expect("JSON");
    assert_valid_message("tools/list", &value);
    assert!(value["result"]["tools"].as_array().is_some_and(|t| t.len() == 7));
}
