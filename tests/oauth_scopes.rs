//! Scopes on a server protected by `Authorization` (`auth` feature), with
//! the tokens a real authorization server (oidc-provider,
//! `.ci/oidc/provider.mjs`) grants: the step-up challenge, then success with
//! a token that has the scope; lists filtered by what a token grants; the
//! metadata document offering the scopes the entries declare; the caller
//! reaching a handler as `Principal`.

#![cfg_attr(no_oidc_provider, allow(dead_code, unused_imports))]

use std::net::SocketAddr;

use http::{HeaderMap, Method, StatusCode};
use mcp_runtime::auth::{Authorization, Principal};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Server, entry::ToolEntry};
use mcp_tests::oidc;
use serde_json::{Value, json};
use tokio::sync::oneshot;

struct Protected {
    addr: SocketAddr,
    resource: String,
    _stop: oneshot::Sender<()>,
}

/// A protected server whose tools declare scopes: `read_note` needs
/// `notes:read`, `write_note` `notes:write`, `purge` a scope the provider
/// never grants, and `whoami` (taking the caller) none.
async fn serve(issuer: &str) -> Protected {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let resource = format!("http://{addr}/mcp");
    let whoami = |caller: Principal| async move {
        let scopes: Vec<&str> = caller.scopes().iter().map(String::as_str).collect();
        format!("{} {}", caller.client_id().unwrap_or("-"), scopes.join(","))
    };
    let server = Server::builder("protected", "1.0.0")
        .tool(ToolEntry::new("read_note", || async { "read" }).scopes(["notes:read"]))
        .tool(ToolEntry::new("write_note", || async { "written" }).scopes(["notes:write"]))
        .tool(ToolEntry::new("purge", || async { "purged" }).scopes(["notes:admin"]))
        .tool(ToolEntry::new("whoami", whoami))
        .authorization(Authorization::new(issuer, &resource))
        .build()
        .expect("a valid server");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), async {
        let _ = stopped.await;
    }));
    Protected { addr, resource, _stop: stop }
}

/// A 2026-07-28 request with a bearer token; the status, headers and body.
async fn send(server: &Protected, token: &str, method: &str, params: Value) -> (StatusCode, HeaderMap, Value) {
    let mut params = params;
    params["_meta"] = mcp_tests::http_wire::stateless_meta(json!({}));
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
        ("mcp-protocol-version", "2026-07-28".to_owned()),
        ("mcp-method", method.to_owned()),
        ("authorization", format!("Bearer {token}")),
    ];
    if let Some(name) = body["params"]["name"].as_str() {
        headers.push(("mcp-name", name.to_owned()));
    }
    let (status, headers, body) =
        oidc::request(server.addr, Method::POST, "/mcp", &headers, Some(body.to_string().into())).await;
    (status, headers, serde_json::from_slice(&body).expect("a JSON body"))
}

async fn call(server: &Protected, token: &str, tool: &str) -> (StatusCode, HeaderMap, Value) {
    send(server, token, "tools/call", json!({"name": tool, "arguments": {}})).await
}

async fn tool_names(server: &Protected, token: &str) -> (Vec<String>, Value) {
    let (status, _, body) = send(server, token, "tools/list", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let names = body["result"]["tools"].as_array().expect("tools").iter();
    (names.map(|t| t["name"].as_str().expect("a name").to_owned()).collect(), body["result"]["cacheScope"].clone())
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_missing_scope_is_a_step_up_challenge_and_a_token_with_it_succeeds() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer).await;
    let metadata = format!("http://{}/.well-known/oauth-protected-resource/mcp", server.addr);
    let reader = oidc::token_with_scope(provider.addr, "es256-client", &server.resource, "notes:read").await;

    let (status, _, body) = call(&server, &reader, "read_note").await;
    assert_eq!((status, body["result"]["content"][0]["text"].clone()), (StatusCode::OK, json!("read")), "{body}");

    let (status, headers, body) = call(&server, &reader, "write_note").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let challenge = headers.get("www-authenticate").expect("a challenge").to_str().expect("ASCII");
    assert_eq!(
        challenge,
        format!(r#"Bearer error="insufficient_scope", scope="notes:write", resource_metadata="{metadata}""#)
    );
    assert_eq!(body["id"], 7);
    assert_eq!(body["error"]["data"]["requiredScopes"], json!(["notes:write"]), "{body}");

    // Step-up: the client asks for the scope the challenge named.
    let writer =
        oidc::token_with_scope(provider.addr, "es256-client", &server.resource, "notes:read notes:write").await;
    let (status, _, body) = call(&server, &writer, "write_note").await;
    assert_eq!((status, body["result"]["content"][0]["text"].clone()), (StatusCode::OK, json!("written")), "{body}");
    // A scope no token here carries stays refused to everyone.
    assert_eq!(call(&server, &writer, "purge").await.0, StatusCode::FORBIDDEN);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn lists_show_what_the_token_grants_as_private() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer).await;
    let reader = oidc::token_with_scope(provider.addr, "rs256-client", &server.resource, "notes:read").await;
    let writer =
        oidc::token_with_scope(provider.addr, "rs256-client", &server.resource, "notes:read notes:write").await;

    assert_eq!(tool_names(&server, &reader).await, (vec!["read_note".into(), "whoami".into()], json!("private")));
    assert_eq!(
        tool_names(&server, &writer).await,
        (vec!["read_note".into(), "whoami".into(), "write_note".into()], json!("private"))
    );
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn the_metadata_offers_every_declared_scope_and_the_handler_sees_its_caller() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer).await;
    let (status, _, body) =
        oidc::request(server.addr, Method::GET, "/.well-known/oauth-protected-resource/mcp", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let metadata: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(metadata["scopes_supported"], json!(["notes:admin", "notes:read", "notes:write"]), "{metadata}");

    let token = oidc::token_with_scope(provider.addr, "eddsa-client", &server.resource, "notes:write").await;
    let (status, _, body) = call(&server, &token, "whoami").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "eddsa-client notes:write");
}
