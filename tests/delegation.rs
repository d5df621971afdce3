//! Delegation through a gateway (`Remote::token_exchange`): a remote
//! mounted behind a protected server is reached with a token the
//! authorization server issues *for the caller* (RFC 8693), never with the
//! caller's own token and never with the gateway's credential in its
//! place. Against oidc-provider (`.ci/oidc/provider.mjs`), whose token
//! exchange grant `gateway-client` may use.

#![cfg_attr(no_oidc_provider, allow(dead_code, unused_imports))]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use http::{Method, StatusCode};
use mcp_runtime::auth::{Authorization, Principal};
use mcp_runtime::client::{Client, Remote, TokenExchange};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Server, entry::ToolEntry, extract::Extension};
use mcp_tests::oidc;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// A server on a free loopback port, stopped when dropped.
struct Serving {
    addr: SocketAddr,
    resource: String,
    _stop: oneshot::Sender<()>,
}

async fn listener() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let resource = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    (listener, resource)
}

fn serve(listener: tokio::net::TcpListener, resource: String, server: Server) -> Serving {
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), async {
        let _ = stopped.await;
    }));
    Serving { addr, resource, _stop: stop }
}

/// The remote: protected by the same issuer for its own resource; its tool
/// tells who the token it received stands for, and records every caller.
async fn remote(issuer: &str, seen: Arc<Mutex<Vec<Value>>>) -> Serving {
    let (listener, resource) = listener().await;
    let whoami = move |Extension(caller): Extension<Principal>| {
        let claims = Value::Object(caller.claims().clone());
        seen.lock().expect("not poisoned").push(claims.clone());
        async move { claims.to_string() }
    };
    let server = Server::builder("notes", "1.0.0")
        .tool(ToolEntry::new("whoami", whoami))
        .authorization(Authorization::new(issuer, &resource).scopes_supported(["notes:read"]))
        .build()
        .expect("a valid server");
    serve(listener, resource, server)
}

/// The gateway: protected for its own resource, the remote mounted as
/// `notes` and reached as each caller.
async fn gateway(provider: &oidc::Provider, remote: &Serving) -> Serving {
    let (listener, resource) = listener().await;
    // Its own credential lists the remote's tools when it is mounted.
    let own = provider.token("gateway-client", &remote.resource).await;
    let exchange = TokenExchange::new(format!("{}/token", provider.issuer), "gateway-client", "secret")
        .scope("notes:read")
        .resource(&remote.resource);
    let mounted = Remote::connect(Client::http(&remote.resource).bearer(own))
        .await
        .expect("the remote lists its tools")
        .token_exchange(exchange);
    let server = Server::builder("gateway", "1.0.0")
        .mount_remote("notes", mounted)
        .authorization(Authorization::new(&provider.issuer, &resource))
        .build()
        .expect("a valid gateway");
    serve(listener, resource, server)
}

/// A 2026-07-28 `tools/call` of `notes_whoami` at the gateway with `token`:
/// the HTTP status and the JSON-RPC answer.
async fn call_status(gateway: &Serving, token: &str) -> (StatusCode, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "notes_whoami", "arguments": {},
        "_meta": mcp_tests::http_wire::stateless_meta(json!({})),
    }});
    let headers = [
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
        ("mcp-protocol-version", "2026-07-28".to_owned()),
        ("mcp-method", "tools/call".to_owned()),
        ("mcp-name", "notes_whoami".to_owned()),
        ("authorization", format!("Bearer {token}")),
    ];
    let (status, _, body) =
        oidc::request(gateway.addr, Method::POST, "/mcp", &headers, Some(body.to_string().into())).await;
    (status, serde_json::from_slice(&body).expect("JSON"))
}

/// [`call_status`], answered with 200.
async fn call(gateway: &Serving, token: &str) -> Value {
    let (status, answer) = call_status(gateway, token).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

/// The claims of the token the remote received, from the tool's answer.
fn received(answer: &Value) -> Value {
    let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a result: {answer}"));
    serde_json::from_str(text).expect("claims")
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn the_remote_sees_a_token_for_each_caller_and_none_for_a_caller_short_of_the_scope() {
    let provider = oidc::start().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let remote = remote(&provider.issuer, Arc::clone(&seen)).await;
    let gateway = gateway(&provider, &remote).await;

    // Two callers, each with its own token for the gateway.
    let alice = oidc::token_with_scope(provider.addr, "es256-client", &gateway.resource, "notes:read").await;
    let bob = oidc::token_with_scope(provider.addr, "rs256-client", &gateway.resource, "notes:read").await;
    let for_alice = received(&call(&gateway, &alice).await);
    let for_bob = received(&call(&gateway, &bob).await);
    for (claims, caller) in [(&for_alice, "es256-client"), (&for_bob, "rs256-client")] {
        // Issued for the caller, for the remote, acted on by the gateway:
        // neither the caller's own token nor the gateway's.
        assert_eq!(claims["sub"], caller, "{claims}");
        assert_eq!(claims["aud"], remote.resource.as_str(), "{claims}");
        assert_eq!(claims["act"]["sub"], "gateway-client", "{claims}");
        assert_eq!(claims["scope"], "notes:read", "{claims}");
    }
    assert_ne!(for_alice["jti"], for_bob["jti"], "two callers, two tokens");
    assert_eq!(provider.exchanges().await, 2);

    // A token is kept for its caller: a second call exchanges nothing.
    let again = received(&call(&gateway, &alice).await);
    assert_eq!(again["jti"], for_alice["jti"]);
    assert_eq!(provider.exchanges().await, 2);

    // A caller not granted the scope the exchange asks for gets no token,
    // and the remote never hears of it.
    let carol = oidc::token_with_scope(provider.addr, "eddsa-client", &gateway.resource, "notes:write").await;
    let (status, refused) = call_status(&gateway, &carol).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    let error = &refused["error"];
    assert_eq!(error["code"], -32600, "{refused}");
    assert!(error["message"].as_str().is_some_and(|m| m.contains("invalid_scope")), "{refused}");
    let subjects: Vec<Value> = seen.lock().expect("not poisoned").iter().map(|c| c["sub"].clone()).collect();
    assert_eq!(subjects, [json!("es256-client"), json!("rs256-client"), json!("es256-client")]);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_remote_reached_as_each_caller_needs_a_server_that_verifies_them() {
    let provider = oidc::start().await;
    let remote = remote(&provider.issuer, Arc::default()).await;
    let own = provider.token("gateway-client", &remote.resource).await;
    let exchange = TokenExchange::new(format!("{}/token", provider.issuer), "gateway-client", "secret");
    let mounted = Remote::connect(Client::http(&remote.resource).bearer(own)).await.expect("listed");
    let error = Server::builder("open", "1.0.0")
        .mount_remote("notes", mounted.token_exchange(exchange))
        .build()
        .expect_err("no caller to act for");
    assert!(matches!(error, mcp_runtime::BuildError::Setting { setting: "Remote::token_exchange", .. }), "{error}");
}
