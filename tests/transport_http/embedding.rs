//! The endpoint as a tower service: mounted in axum, or called without a
//! listener.

use http::{Method, StatusCode};
use http_body_util::BodyExt;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{CancellationToken, RequestContext, Server, extract::Extension};
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

/// Who calls, as an application's auth layer found it and put it in the
/// request's extensions.
#[derive(Clone, Debug)]
struct Caller(String);

/// Says who calls.
#[mcp_runtime::tool]
async fn whoami(Extension(caller): Extension<Caller>) -> String {
    caller.0
}

/// Greets the caller, when one is known.
#[mcp_runtime::tool]
async fn greet(caller: Option<Extension<Caller>>) -> String {
    match caller {
        Some(Extension(caller)) => format!("Hello, {}!", caller.0),
        None => "Hello, stranger!".to_owned(),
    }
}

/// Repeats the `X-Client-Tag` header of the HTTP request.
#[mcp_runtime::tool]
async fn client_tag(cx: &RequestContext) -> String {
    match cx.http_request() {
        Some(head) => {
            let tag = head.headers.get("x-client-tag").and_then(|v| v.to_str().ok());
            format!("{} {} {}", head.method, head.uri.path(), tag.unwrap_or("untagged"))
        }
        None => "no HTTP request".to_owned(),
    }
}

/// Addresses the caller.
#[mcp_runtime::prompt]
async fn address(Extension(caller): Extension<Caller>) -> String {
    format!("Dear {},", caller.0)
}

/// The application's layer: a `Caller` for requests that name one.
async fn identify(mut request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let caller = request.headers().get("x-caller").and_then(|v| v.to_str().ok()).map(|v| Caller(v.to_owned()));
    if let Some(caller) = caller {
        request.extensions_mut().insert(caller);
    }
    next.run(request).await
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text result: {reply}"))
}

#[tokio::test]
async fn handlers_read_the_extensions_and_headers_of_the_http_request() {
    let server = Server::builder("extensions", "1.0.0")
        .tools(mcp_runtime::tools![whoami, greet, client_tag])
        .prompts(mcp_runtime::prompts![address])
        .build()
        .expect("a valid server");
    let app = axum::Router::new()
        .route_service("/mcp", server.http_service(HttpConfig::default()))
        .layer(axum::middleware::from_fn(identify));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let stop = CancellationToken::new();
    let until = stop.clone().cancelled_owned();
    let serving = tokio::spawn(async move { axum::serve(listener, app).with_graceful_shutdown(until).await });
    let send = |message: Value, caller: Option<&str>| {
        let mut post = Post::mcp(&message).header("x-client-tag", "blue");
        if let Some(caller) = caller {
            post = post.header("x-caller", caller);
        }
        post.send(addr)
    };

    let known = send(call(1, "whoami", json!({})), Some("ada")).await.json("tools/call");
    assert_eq!((text(&known), &known["result"]["isError"]), ("ada", &Value::Null));
    let greeted = send(call(2, "greet", json!({})), Some("ada")).await.json("tools/call");
    assert_eq!(text(&greeted), "Hello, ada!");
    let tagged = send(call(3, "client_tag", json!({})), None).await.json("tools/call");
    assert_eq!(text(&tagged), "POST /mcp blue");

    // The layer found no caller: the tool tells the model, the optional
    // form is `None`, a prompt (which has no such channel) fails.
    let unknown = send(call(4, "whoami", json!({})), None).await.json("tools/call");
    assert_eq!(unknown["result"]["isError"], true, "{unknown}");
    assert!(text(&unknown).contains("carries no") && text(&unknown).contains("Caller"), "{unknown}");
    let stranger = send(call(5, "greet", json!({})), None).await.json("tools/call");
    assert_eq!(text(&stranger), "Hello, stranger!");
    let prompt = request(6, "prompts/get", json!({"name": "address"}));
    assert_eq!(send(prompt.clone(), None).await.error_code("prompts/get", &json!(6)), -32603);
    let addressed = send(prompt, Some("ada")).await.json("prompts/get");
    assert_eq!(addressed["result"]["messages"][0]["content"]["text"], "Dear ada,");

    // A request answered with an event stream runs on another path: the
    // head goes along.
    let mut meta = request_meta();
    meta["progressToken"] = json!("who");
    let streamed = request(7, "tools/call", json!({"name": "whoami", "arguments": {}, "_meta": meta}));
    let post = Post::mcp(&streamed).header("accept", "text/event-stream").header("x-caller", "grace");
    let events = post.send(addr).await.events("tools/call");
    assert_eq!(text(events.last().expect("a result")), "grace");

    stop.cancel();
    tokio::time::timeout(STUCK, serving).await.expect("axum stops").expect("task").expect("serve result");
}
