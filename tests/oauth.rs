//! A protected server (`auth` feature) against a real authorization server,
//! oidc-provider (`.ci/oidc/provider.mjs`): the tokens here are the ones it
//! issues, or such a token altered the way an attacker would.

#![cfg_attr(no_oidc_provider, allow(dead_code, unused_imports))]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use mcp_runtime::auth::{Authorization, Principal};
use mcp_runtime::redis::RedisSessionStore;
use mcp_runtime::session::{
    MemorySessionStore, SessionChange, SessionLimits, SessionOwner, SessionRecord, SessionStore, StoreFuture,
};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Server, entry::ToolEntry, extract::Extension};
use mcp_tests::{http_wire, oidc};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// A protected server on a free loopback port, stopped when dropped.
struct Protected {
    addr: SocketAddr,
    resource: String,
    _stop: oneshot::Sender<()>,
}

async fn serve(issuer: &str, configure: impl FnOnce(Authorization) -> Authorization) -> Protected {
    serve_with(issuer, configure, HttpConfig::default()).await
}

async fn serve_with(
    issuer: &str,
    configure: impl FnOnce(Authorization) -> Authorization,
    config: HttpConfig,
) -> Protected {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let resource = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    serve_on(listener, resource, issuer, configure, config)
}

/// A protected server on `listener` for `resource`, which may name
/// another address: that of a balancer in front of replicas, say.
fn serve_on(
    listener: tokio::net::TcpListener,
    resource: String,
    issuer: &str,
    configure: impl FnOnce(Authorization) -> Authorization,
    config: HttpConfig,
) -> Protected {
    let addr = listener.local_addr().expect("addr");
    let auth = configure(Authorization::new(issuer, &resource).scopes_supported(["notes:read", "notes:write"]));
    let whoami = |Extension(caller): Extension<Principal>| async move {
        let scopes: Vec<&str> = caller.scopes().iter().map(String::as_str).collect();
        format!("{} {}", caller.client_id().unwrap_or("-"), scopes.join(","))
    };
    let server = Server::builder("protected", "1.0.0")
        .tool(ToolEntry::new("whoami", whoami))
        .authorization(auth)
        .build()
        .expect("a valid server");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve_http_with_shutdown(listener, config, async {
        let _ = stopped.await;
    }));
    Protected { addr, resource, _stop: stop }
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    fn challenge(&self) -> &str {
        self.headers.get("www-authenticate").expect("a challenge").to_str().expect("ASCII")
    }
}

/// A 2026-07-28 `tools/call` of `whoami` at `path`, with `authorization`.
async fn call_at(server: &Protected, path: &str, authorization: Option<String>) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "whoami", "arguments": {},
        "_meta": mcp_tests::http_wire::stateless_meta(json!({})),
    }});
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
        ("mcp-protocol-version", "2026-07-28".to_owned()),
        ("mcp-method", "tools/call".to_owned()),
        ("mcp-name", "whoami".to_owned()),
    ];
    headers.extend(authorization.map(|value| ("authorization", value)));
    let (status, headers, body) =
        oidc::request(server.addr, Method::POST, path, &headers, Some(body.to_string().into())).await;
    Answer { status, headers, body }
}

async fn call(server: &Protected, token: &str) -> Answer {
    call_at(server, "/mcp", Some(format!("Bearer {token}"))).await
}

/// The tool's answer, after checking the call went through.
fn accepted(answer: &Answer) -> String {
    assert_eq!(answer.status, StatusCode::OK, "{}", String::from_utf8_lossy(&answer.body));
    answer.json()["result"]["content"][0]["text"].as_str().expect("a text").to_owned()
}

/// Refused with 401 and `error="invalid_token"`.
fn refused(answer: &Answer) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", String::from_utf8_lossy(&answer.body));
    assert!(answer.challenge().contains("error=\"invalid_token\""), "{}", answer.challenge());
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64(part: &str) -> Value {
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).expect("base64url"))
        .expect("JSON")
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn tokens_signed_with_each_allowed_algorithm_reach_the_tool_with_their_principal() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    for (client, alg) in [("rs256-client", "RS256"), ("es256-client", "ES256"), ("eddsa-client", "EdDSA")] {
        let token = provider.token(client, &server.resource).await;
        assert_eq!(unb64(token.split('.').next().unwrap())["alg"], alg);
        assert_eq!(accepted(&call(&server, &token).await), format!("{client} notes:read"));
    }
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_request_without_a_token_is_challenged_toward_the_metadata() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    let metadata = format!("http://{}/.well-known/oauth-protected-resource/mcp", server.addr);

    let missing = call_at(&server, "/mcp", None).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        missing.challenge(),
        format!("Bearer resource_metadata=\"{metadata}\", scope=\"notes:read notes:write\"")
    );
    // Another scheme is no bearer token: the same challenge, without an error.
    let basic = call_at(&server, "/mcp", Some("Basic cnMyNTYtY2xpZW50OnNlY3JldA==".into())).await;
    assert_eq!(basic.status, StatusCode::UNAUTHORIZED);
    assert!(!basic.challenge().contains("error="), "{}", basic.challenge());

    let malformed = call_at(&server, "/mcp", Some("Bearer not a token".into())).await;
    refused(&malformed);
    let challenge = malformed.challenge();
    assert!(challenge.starts_with("Bearer error=\"invalid_token\", error_description=\""), "{challenge}");
    assert!(challenge.contains(&format!("resource_metadata=\"{metadata}\"")), "{challenge}");
    assert!(challenge.contains("scope=\"notes:read notes:write\""), "{challenge}");
    let garbage = call(&server, "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln").await;
    refused(&garbage);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn an_expired_token_is_refused() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a.leeway(Duration::ZERO)).await;
    // short-client's tokens last two seconds.
    let token = provider.token("short-client", &server.resource).await;
    let claims = unb64(token.split('.').nth(1).expect("a JWT"));
    let (iat, exp) = (claims["iat"].as_u64().expect("iat"), claims["exp"].as_u64().expect("exp"));
    assert!(exp > iat && exp - iat <= 5, "a short-lived token: {claims}");
    accepted(&call(&server, &token).await);
    // Refused once the server's clock, in whole seconds, is past `exp`:
    // the test waits for that second, not for a margin.
    let expired = std::time::UNIX_EPOCH + Duration::from_secs(exp + 1);
    tokio::time::sleep(expired.duration_since(std::time::SystemTime::now()).unwrap_or_default()).await;
    refused(&call(&server, &token).await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_token_not_yet_valid_is_refused() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    // future-client's tokens carry an `nbf` an hour after their `iat`:
    // signed by the issuer for this resource, but not usable yet.
    let token = provider.token("future-client", &server.resource).await;
    let claims = unb64(token.split('.').nth(1).expect("a JWT"));
    assert!(claims["nbf"].as_u64() > claims["iat"].as_u64(), "{claims}");
    refused(&call(&server, &token).await);
    // The same provider's tokens without `nbf` are fine.
    accepted(&call(&server, &provider.token("es256-client", &server.resource).await).await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_token_for_another_resource_is_refused() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    let other = provider.token("es256-client", &format!("http://{}/other", server.addr)).await;
    refused(&call(&server, &other).await);
    // Opaque tokens are held to the same rule, through introspection.
    let server = serve(&provider.issuer, |a| a.introspection_credentials("mcp-server", "secret")).await;
    let other = provider.token("opaque-client", "http://127.0.0.1:1/other").await;
    refused(&call(&server, &other).await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_token_from_another_issuer_is_refused_even_signed_with_a_trusted_key() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    // The impostor signs with the very keys the real issuer publishes.
    let token = oidc::token_from(provider.impostor, "es256-client", &server.resource).await;
    assert_eq!(unb64(token.split('.').nth(1).unwrap())["iss"], format!("http://{}", provider.impostor));
    refused(&call(&server, &token).await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_token_with_a_bad_signature_or_none_is_refused() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    let token = provider.token("rs256-client", &server.resource).await;
    accepted(&call(&server, &token).await);
    let parts: Vec<&str> = token.split('.').collect();

    // Claims changed after signing (a wider scope).
    let mut claims = unb64(parts[1]);
    claims["scope"] = json!("notes:read notes:write");
    let widened = format!("{}.{}.{}", parts[0], b64(claims.to_string().as_bytes()), parts[2]);
    refused(&call(&server, &widened).await);
    // A signature of another token.
    let other = provider.token("rs256-client", &server.resource).await;
    let swapped = format!("{}.{}.{}", parts[0], parts[1], other.split('.').nth(2).unwrap());
    if swapped != token {
        refused(&call(&server, &swapped).await);
    }
    // Unsigned, under the same key id.
    let mut header = unb64(parts[0]);
    header["alg"] = json!("none");
    let unsigned = format!("{}.{}.", b64(header.to_string().as_bytes()), parts[1]);
    refused(&call(&server, &unsigned).await);
    // HMAC, whose key would be public.
    header["alg"] = json!("HS256");
    let hmac = format!("{}.{}.{}", b64(header.to_string().as_bytes()), parts[1], parts[2]);
    refused(&call(&server, &hmac).await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_key_rotated_at_the_issuer_is_fetched_when_a_token_names_it() {
    let provider = oidc::start().await;
    let refresh = Duration::from_millis(200);
    let server = serve(&provider.issuer, |a| a.jwks_refresh_interval(refresh)).await;
    let before = provider.token("eddsa-client", &server.resource).await;
    accepted(&call(&server, &before).await);
    // The server fetched the keys for that call, before answering it, and
    // fetches them again no sooner than `refresh` after.
    let may_fetch_again = tokio::time::Instant::now() + refresh;
    let fetches = provider.jwks_fetches().await;
    provider.rotate_keys().await;
    let after = provider.token("eddsa-client", &server.resource).await;
    let kid = |token: &str| unb64(token.split('.').next().unwrap())["kid"].clone();
    assert_ne!(kid(&before), kid(&after), "the provider signs with a new key");
    tokio::time::sleep_until(may_fetch_again).await;
    accepted(&call(&server, &after).await);
    assert_eq!(provider.jwks_fetches().await, fetches + 1, "the keys fetched again for the new key");
    // The old key is still published, and still accepted.
    accepted(&call(&server, &before).await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn tokens_naming_unknown_keys_cannot_make_the_server_hammer_the_issuer() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    let token = provider.token("es256-client", &server.resource).await;
    accepted(&call(&server, &token).await);
    let parts: Vec<&str> = token.split('.').collect();
    let mut header = unb64(parts[0]);
    let forged: Vec<String> = (0..20)
        .map(|n| {
            header["kid"] = json!(format!("made-up-{n}"));
            format!("{}.{}.{}", b64(header.to_string().as_bytes()), parts[1], parts[2])
        })
        .collect();
    let answers = futures_util::future::join_all(forged.iter().map(|t| call(&server, t))).await;
    answers.iter().for_each(refused);
    // The first fetch, and at most one more for the whole flood.
    let fetches = provider.jwks_fetches().await;
    assert!(fetches <= 2, "{fetches} fetches of the key set");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn opaque_tokens_are_introspected() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a.introspection_credentials("mcp-server", "secret")).await;
    let active = provider.token("opaque-client", &server.resource).await;
    assert_eq!(active.split('.').count(), 1, "an opaque token");
    assert_eq!(accepted(&call(&server, &active).await), "opaque-client notes:read");
    let revoked = provider.token("opaque-client", &server.resource).await;
    provider.revoke("opaque-client", &revoked).await;
    refused(&call(&server, &revoked).await);
    // Without credentials the server cannot ask, and does not accept.
    let unasked = serve(&provider.issuer, |a| a).await;
    let token = provider.token("opaque-client", &unasked.resource).await;
    refused(&call(&unasked, &token).await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_token_the_issuer_will_not_introspect_is_invalid_not_unavailable() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a.introspection_credentials("mcp-server", "secret")).await;
    // Shaped like a JWT with an empty payload and signature: not one, so it
    // goes to introspection, which oidc-provider refuses with HTTP 400.
    for token in ["eyJhbGciOiJSUzI1NiJ9..", "eyJhbGciOiJSUzI1NiIsImtpZCI6ImEifQ.."] {
        refused(&call(&server, token).await);
    }
    // Without introspection, the same.
    let unasked = serve(&provider.issuer, |a| a).await;
    refused(&call(&unasked, "eyJhbGciOiJSUzI1NiJ9..").await);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_token_in_the_query_string_is_refused_as_a_malformed_request() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    let token = provider.token("es256-client", &server.resource).await;
    for authorization in [None, Some(format!("Bearer {token}"))] {
        let answer = call_at(&server, &format!("/mcp?access_token={token}"), authorization).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST);
        assert!(answer.challenge().contains("error=\"invalid_request\""), "{}", answer.challenge());
    }
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn an_unreachable_issuer_means_503_never_an_accepted_token() {
    let provider = oidc::start().await;
    let issuer = provider.issuer.clone();
    let server = serve(&issuer, |a| a.introspection_credentials("mcp-server", "secret")).await;
    let jwt = provider.token("es256-client", &server.resource).await;
    let opaque = provider.token("opaque-client", &server.resource).await;
    drop(provider);
    // Killed when dropped; gone once its port refuses connections.
    let issuer_addr: std::net::SocketAddr =
        issuer.strip_prefix("http://").and_then(|a| a.parse().ok()).expect("the issuer's address");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(issuer_addr).await.is_ok() {
        assert!(tokio::time::Instant::now() < deadline, "the issuer at {issuer_addr} still answers");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for token in [&jwt, &opaque] {
        let answer = call(&server, token).await;
        assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{}", String::from_utf8_lossy(&answer.body));
        assert_eq!(answer.headers["retry-after"], "5");
    }
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn the_protected_resource_metadata_is_served_at_both_urls_without_a_token() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let (status, headers, body) = oidc::request(server.addr, Method::GET, path, &[], None).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers["content-type"], "application/json");
        let document: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(
            document,
            json!({
                "resource": server.resource,
                "authorization_servers": [provider.issuer],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"],
            })
        );
    }
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_2025_session_needs_the_token_on_every_request() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    let token = provider.token("rs256-client", &server.resource).await;
    let session_headers = |session: Option<&str>, authorization: Option<&str>| {
        let mut headers = vec![
            ("content-type", "application/json".to_owned()),
            ("accept", "application/json, text/event-stream".to_owned()),
        ];
        if let Some(session) = session {
            headers.push(("mcp-session-id", session.to_owned()));
            headers.push(("mcp-protocol-version", "2025-11-25".to_owned()));
        }
        headers.extend(authorization.map(|token| ("authorization", format!("Bearer {token}"))));
        headers
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1.0.0"},
    }});
    let post = |headers: Vec<(&'static str, String)>, body: &Value| {
        let body = Some(body.to_string().into());
        async move { oidc::request(server.addr, Method::POST, "/mcp", &headers, body).await }
    };

    let (status, _, _) = post(session_headers(None, None), &initialize).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "initialize without a token");
    let (status, headers, _) = post(session_headers(None, Some(&token)), &initialize).await;
    assert_eq!(status, StatusCode::OK);
    let session = headers["mcp-session-id"].to_str().expect("an id").to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = post(session_headers(Some(&session), None), &initialized).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a session's notification without a token");
    let (status, _, _) = post(session_headers(Some(&session), Some(&token)), &initialized).await;
    assert_eq!(status, StatusCode::ACCEPTED);

    let whoami =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}});
    let (status, _, _) = post(session_headers(Some(&session), None), &whoami).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a session's call without a token");
    let (status, _, body) = post(session_headers(Some(&session), Some(&token)), &whoami).await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&body).contains("rs256-client notes:read"));

    for method in [Method::GET, Method::DELETE] {
        let (status, _, _) =
            oidc::request(server.addr, method.clone(), "/mcp", &session_headers(Some(&session), None), None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} without a token");
    }
    let (status, _, _) =
        oidc::request(server.addr, Method::DELETE, "/mcp", &session_headers(Some(&session), Some(&token)), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "DELETE with a token ends the session");
    let (status, _, _) = post(session_headers(Some(&session), Some(&token)), &whoami).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "the session is gone");
}

/// A request on 2025-era session `session` with `token`, its body unread
/// (`extra` adds or replaces headers).
async fn on_session(
    server: &Protected,
    method: Method,
    session: &str,
    body: Option<&Value>,
    token: &str,
    extra: &[(&str, &str)],
) -> http::Response<Incoming> {
    let bearer = format!("Bearer {token}");
    let mut headers = vec![("authorization", bearer.as_str())];
    headers.extend_from_slice(extra);
    http_wire::send(server.addr, method, Some(session), body, &headers).await
}

/// `response`, its body read.
async fn answer_of(response: http::Response<Incoming>) -> Answer {
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(http_wire::STUCK, body.collect()).await.expect("a body in time").expect("a body");
    Answer { status: parts.status, headers: parts.headers, body: body.to_bytes() }
}

/// The status, media type and body of a refusal, to compare whole.
async fn refusal(response: http::Response<Incoming>) -> (StatusCode, Option<http::HeaderValue>, Bytes) {
    let answer = answer_of(response).await;
    (answer.status, answer.headers.get("content-type").cloned(), answer.body)
}

/// A 2025-11-25 session begun with `token`, past `initialize` only.
async fn begin(server: &Protected, token: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1.0.0"},
    }});
    let bearer = format!("Bearer {token}");
    let response =
        http_wire::send(server.addr, Method::POST, None, Some(&initialize), &[("authorization", &bearer)]).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.headers()["mcp-session-id"].to_str().expect("an id").to_owned()
}

/// The text `whoami` answered request `id` with, as JSON or on a stream.
async fn text_of(response: http::Response<Incoming>, id: u64) -> String {
    let answer = http_wire::answer(response, &json!(id), |_| {}).await;
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text: {answer}")).to_owned()
}

fn whoami(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}})
}

/// A request a stranger tries on a session: what it is, its method, its
/// body and the headers it adds.
type Attempt<'a> = (&'a str, Method, Option<&'a Value>, &'a [(&'a str, &'a str)]);

/// A session id minted by no server.
const UNKNOWN: &str = "0123456789abcdef0123456789abcdef";

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_2025_session_answers_only_the_identity_that_began_it() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |a| a).await;
    let owner = provider.token("rs256-client", &server.resource).await;
    let stranger = provider.token("es256-client", &server.resource).await;
    let session = begin(&server, &owner).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = on_session(&server, Method::POST, &session, Some(&initialized), &owner, &[]).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    // On a stream, for an event id of the session to resume from.
    let stream_only = [("accept", "text/event-stream")];
    let response = on_session(&server, Method::POST, &session, Some(&whoami(1)), &owner, &stream_only).await;
    let mut events = http_wire::Events::of(response);
    let answer = events.next().await.expect("the answer");
    assert_eq!(answer["result"]["content"][0]["text"], "rs256-client notes:read");
    let event_id = events.last_id.clone().expect("a 2025-11-25 stream names its events");

    // Every way into the session, each answered exactly as for a session
    // that does not exist: nothing tells the stranger the id is live.
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let answer = json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {}}});
    let resume = [("last-event-id", event_id.as_str())];
    let attempts: [Attempt<'_>; 6] = [
        ("a call", Method::POST, Some(&whoami(2)), &[]),
        ("a notification", Method::POST, Some(&cancelled), &[]),
        ("an answer", Method::POST, Some(&answer), &[]),
        ("the standalone stream", Method::GET, None, &[]),
        ("a stream resumed", Method::GET, None, &resume),
        ("the end of the session", Method::DELETE, None, &[]),
    ];
    for (what, method, body, extra) in attempts {
        let unknown = refusal(on_session(&server, method.clone(), UNKNOWN, body, &stranger, extra).await).await;
        assert_eq!(unknown.0, StatusCode::NOT_FOUND, "{what} on no session");
        let refused = refusal(on_session(&server, method, &session, body, &stranger, extra).await).await;
        assert_eq!(refused, unknown, "{what} by another client: as if the session did not exist");
    }

    let response = on_session(&server, Method::POST, &session, Some(&whoami(3)), &owner, &[]).await;
    assert_eq!(text_of(response, 3).await, "rs256-client notes:read", "the owner's session lives on");
    let stream = on_session(&server, Method::GET, &session, None, &owner, &[]).await;
    assert_eq!(stream.status(), StatusCode::OK, "the owner's standalone stream");
    drop(stream);
    let resumed = on_session(&server, Method::GET, &session, None, &owner, &resume).await;
    assert_eq!(resumed.status(), StatusCode::OK, "the owner resumes the stream");
    drop(resumed);

    // The identity owns the session, not the token: a refreshed one works.
    let refreshed = provider.token("rs256-client", &server.resource).await;
    assert_ne!(refreshed, owner, "a second token");
    let response = on_session(&server, Method::POST, &session, Some(&whoami(4)), &refreshed, &[]).await;
    assert_eq!(text_of(response, 4).await, "rs256-client notes:read");
    let ended = on_session(&server, Method::DELETE, &session, None, &refreshed, &[]).await;
    assert_eq!(ended.status(), StatusCode::NO_CONTENT);
    let gone = on_session(&server, Method::POST, &session, Some(&whoami(5)), &owner, &[]).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}

/// One store behind two replicas, as Redis would be, without the messages
/// between them: each replica asks it on every request.
#[derive(Clone, Default)]
struct SharedStore(Arc<MemorySessionStore>);

impl SessionStore for SharedStore {
    fn create(&self, record: SessionRecord, limits: SessionLimits) -> StoreFuture<'_, ()> {
        self.0.create(record, limits)
    }

    fn load<'a>(&'a self, id: &'a str, limits: SessionLimits) -> StoreFuture<'a, Option<SessionRecord>> {
        self.0.load(id, limits)
    }

    fn load_for<'a>(
        &'a self,
        id: &'a str,
        owner: Option<&'a SessionOwner>,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Option<SessionRecord>> {
        self.0.load_for(id, owner, limits)
    }

    fn update<'a>(&'a self, id: &'a str, change: SessionChange) -> StoreFuture<'a, bool> {
        self.0.update(id, change)
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        self.0.remove(id)
    }
}

/// Two replicas behind one `resource`, each keeping sessions in its
/// `stores` entry: a session begun on one is refused to a stranger on the
/// other, which never saw it and knows its owner from the record only.
async fn the_owner_crosses_replicas(provider: &oidc::Provider, stores: [HttpConfig; 2]) {
    let (first, second) = (
        tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind"),
        tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind"),
    );
    let resource = format!("http://{}/mcp", first.local_addr().expect("addr"));
    let [config_a, config_b] = stores;
    let a = serve_on(first, resource.clone(), &provider.issuer, |a| a, config_a);
    let b = serve_on(second, resource.clone(), &provider.issuer, |a| a, config_b);
    let owner = provider.token("rs256-client", &resource).await;
    let stranger = provider.token("es256-client", &resource).await;
    let session = begin(&a, &owner).await;

    // `b` holds no copy yet: what it knows of the session is the record.
    let unknown = refusal(on_session(&b, Method::POST, UNKNOWN, Some(&whoami(1)), &stranger, &[]).await).await;
    let refused = refusal(on_session(&b, Method::POST, &session, Some(&whoami(1)), &stranger, &[]).await).await;
    assert_eq!(refused, unknown, "a stranger on a replica without a copy");
    let response = on_session(&b, Method::POST, &session, Some(&whoami(2)), &owner, &[]).await;
    assert_eq!(text_of(response, 2).await, "rs256-client notes:read");
    // Now it holds one, built from the record, owner included.
    for replica in [&a, &b] {
        let refused = refusal(on_session(replica, Method::DELETE, &session, None, &stranger, &[]).await).await;
        assert_eq!(refused, unknown, "a stranger's DELETE");
    }
    let refreshed = provider.token("rs256-client", &resource).await;
    let response = on_session(&b, Method::POST, &session, Some(&whoami(3)), &refreshed, &[]).await;
    assert_eq!(text_of(response, 3).await, "rs256-client notes:read", "the owner, with a new token");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_replica_that_never_saw_a_session_knows_its_owner_from_the_record() {
    let provider = oidc::start().await;
    let store = SharedStore::default();
    let stores = [HttpConfig::default().session_store(store.clone()), HttpConfig::default().session_store(store)];
    the_owner_crosses_replicas(&provider, stores).await;
}

#[cfg_attr(
    any(no_oidc_provider, no_redis_server),
    ignore = "needs oidc-provider (.ci/install.sh) and redis-server on the PATH"
)]
#[tokio::test]
async fn replicas_sharing_redis_know_a_sessions_owner_from_the_record() {
    let (provider, redis) = (oidc::start().await, mcp_tests::redis::start().await);
    let store = || async {
        let store = RedisSessionStore::connect(&redis.url, "mcp:oauth").await.expect("connected");
        HttpConfig::default().session_store(store)
    };
    the_owner_crosses_replicas(&provider, [store().await, store().await]).await;
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_strangers_requests_keep_no_session_alive() {
    const IDLE: Duration = Duration::from_secs(1);
    let provider = oidc::start().await;
    let server = serve_with(&provider.issuer, |a| a, HttpConfig::default().session_idle_timeout(IDLE)).await;
    let owner = provider.token("rs256-client", &server.resource).await;
    let stranger = provider.token("es256-client", &server.resource).await;
    let session = begin(&server, &owner).await;
    let last_used = Instant::now();
    // Until the session has been idle for the whole timeout, so that the
    // last of these comes just before the owner's request: had any counted
    // as a use, the session would still be live.
    while last_used.elapsed() <= IDLE {
        for method in [Method::POST, Method::GET, Method::DELETE] {
            let body = (method == Method::POST).then(|| whoami(1));
            let response = on_session(&server, method.clone(), &session, body.as_ref(), &stranger, &[]).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{method} by another client");
        }
    }
    let response = on_session(&server, Method::POST, &session, Some(&whoami(2)), &owner, &[]).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND, "the session expired, the stranger's requests unseen");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn probes_and_preflights_stay_open_and_pages_may_read_the_challenge() {
    let provider = oidc::start().await;
    let config = HttpConfig::default().health_endpoints("/healthz", "/readyz").cors(true);
    let server = serve_with(&provider.issuer, |a| a, config).await;
    let (status, _, _) = oidc::request(server.addr, Method::GET, "/healthz", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let origin = ("origin", "http://localhost:5173".to_owned());
    let preflight = [
        origin.clone(),
        ("access-control-request-method", "POST".to_owned()),
        ("access-control-request-headers", "authorization, content-type, dpop".to_owned()),
    ];
    let (status, headers, _) = oidc::request(server.addr, Method::OPTIONS, "/mcp", &preflight, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let allowed = headers["access-control-allow-headers"].to_str().unwrap();
    assert!(allowed.contains("authorization") && allowed.contains("dpop"), "{allowed}");
    let (status, headers, _) = oidc::request(server.addr, Method::POST, "/mcp", &[origin], None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let exposed = headers["access-control-expose-headers"].to_str().unwrap();
    assert!(exposed.contains("www-authenticate") && exposed.contains("dpop-nonce"), "{exposed}");
}

/// The authorization-code flow end to end against the real provider: our
/// client follows the server's 401 to the provider, a person (its
/// development login and consent pages, driven without a browser) approves
/// with PKCE and the `resource`, and the code traded for a token reaches
/// the tool.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_person_approving_at_the_provider_lets_our_client_reach_the_tool() {
    use mcp_runtime::client::Client;
    use mcp_runtime::client::oauth::{OAuth, RegisteredClient};

    let provider = oidc::start().await;
    let server = serve(&provider.issuer, |auth| auth).await;
    let addr = provider.addr;
    let approvals = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&approvals);
    let oauth = OAuth::new(oidc::CODE_REDIRECT)
        .registered(RegisteredClient::new("code-client").secret("secret").issuer(&provider.issuer))
        .on_authorize(move |url| {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            async move {
                let query = url.split_once('?').map_or("", |(_, q)| q).to_owned();
                assert!(query.contains("code_challenge_method=S256"), "{url}");
                assert!(query.contains("resource="), "{url}");
                Ok(oidc::approve(addr, &url, "alice").await)
            }
        });
    let client = Client::http(&server.resource).oauth(oauth);
    for _ in 0..2 {
        let result = client.call_tool("whoami", json!({})).await.expect("the tool answers");
        let text = serde_json::to_value(&result.content[0]).expect("JSON")["text"].as_str().expect("a text").to_owned();
        assert!(text.starts_with("code-client "), "{text}");
        assert!(text.contains("notes:read"), "{text}");
    }
    assert_eq!(approvals.load(std::sync::atomic::Ordering::Relaxed), 1, "the token is kept");
}
