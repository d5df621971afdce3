//! The OAuth front (`oauth_proxy`) in front of a real identity provider,
//! oidc-provider (`.ci/oidc/provider.mjs`, its `front-client`), which
//! registers no clients: MCP clients register at the front, a person
//! consents there and signs in at the provider, and the front's own tokens
//! reach the tools, verified by the server itself.

#![cfg_attr(no_oidc_provider, allow(dead_code, unused_imports))]

use std::net::SocketAddr;

use base64::Engine as _;
use http::StatusCode;
use mcp_runtime::auth::Principal;
use mcp_runtime::oauth_proxy::{OAuthProxy, ProxyStore, Upstream};
use mcp_runtime::{Server, entry::ToolEntry, extract::Extension};
use mcp_tests::front::{self, Browser};
use mcp_tests::oidc;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::sync::oneshot;

/// A server with a front on a free loopback port, stopped when dropped.
struct Fronted {
    addr: SocketAddr,
    issuer: String,
    resource: String,
    _stop: oneshot::Sender<()>,
}

/// The front's rule here: alice may read and write, anyone else read.
fn rule(person: &Principal) -> Vec<String> {
    match person.subject() {
        Some("alice") => vec!["notes:read".into(), "notes:write".into()],
        _ => vec!["notes:read".into()],
    }
}

async fn serve(provider: &oidc::Provider, configure: impl FnOnce(OAuthProxy) -> OAuthProxy) -> Fronted {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    serve_on(listener, provider, configure)
}

fn serve_on(
    listener: tokio::net::TcpListener,
    provider: &oidc::Provider,
    configure: impl FnOnce(OAuthProxy) -> OAuthProxy,
) -> Fronted {
    serve_relaying(listener, Upstream::new(&provider.issuer, "front-client", "secret"), configure)
}

fn serve_relaying(
    listener: tokio::net::TcpListener,
    upstream: Upstream,
    configure: impl FnOnce(OAuthProxy) -> OAuthProxy,
) -> Fronted {
    let addr = listener.local_addr().expect("addr");
    let (issuer, resource) = (format!("http://{addr}/oauth"), format!("http://{addr}/mcp"));
    let proxy = configure(
        OAuthProxy::new(&issuer, &resource, upstream)
            .grant_scopes(rule)
            .scopes_supported(["notes:read", "notes:write"]),
    );
    let whoami = |Extension(caller): Extension<Principal>| async move {
        let scopes: Vec<&str> = caller.scopes().iter().map(String::as_str).collect();
        format!("{} {}", caller.subject().unwrap_or("-"), scopes.join(","))
    };
    let server = Server::builder("fronted", "1.0.0")
        .tool(ToolEntry::new("whoami", whoami))
        .tool(ToolEntry::new("write", || async { "written" }).scopes(["notes:write"]))
        .oauth_proxy(proxy)
        .build()
        .expect("a valid server");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve_http_with_shutdown(listener, Default::default(), async {
        let _ = stopped.await;
    }));
    Fronted { addr, issuer, resource, _stop: stop }
}

const CLIENT_REDIRECT: &str = "http://127.0.0.1:7777/callback";

/// A public client registered by dynamic registration: its id.
async fn public_client(server: &Fronted) -> String {
    let metadata = json!({
        "client_name": "Test <Client>",
        "redirect_uris": [CLIENT_REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
    });
    let (status, registered) = front::register(server.addr, &server.issuer, metadata).await;
    assert_eq!(status, StatusCode::CREATED, "{registered}");
    assert_eq!(registered["redirect_uris"], json!([CLIENT_REDIRECT]), "echoed: {registered}");
    assert!(registered.get("client_secret").is_none(), "a public client has no secret");
    registered["client_id"].as_str().expect("an id").to_owned()
}

/// A PKCE pair: (verifier, challenge).
fn pkce(seed: &str) -> (String, String) {
    let verifier = format!("{seed}-{}", "v".repeat(50));
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

fn authorize_url(server: &Fronted, client_id: &str, redirect_uri: &str, challenge: &str, extra: &str) -> String {
    let encode = |s: &str| s.replace(':', "%3A").replace('/', "%2F");
    format!(
        "{}/authorize?response_type=code&client_id={client_id}&redirect_uri={}&state=xyz&code_challenge={challenge}\
         &code_challenge_method=S256&resource={}{extra}",
        server.issuer,
        encode(redirect_uri),
        encode(&server.resource)
    )
}

/// The code of a person's approval, by `login`.
async fn code_for(
    server: &Fronted,
    provider: &oidc::Provider,
    client_id: &str,
    challenge: &str,
    login: &str,
) -> String {
    let url = authorize_url(server, client_id, CLIENT_REDIRECT, challenge, "");
    let back = front::approve(server.addr, provider.addr, &url, login).await;
    assert!(back.starts_with(CLIENT_REDIRECT), "{back}");
    assert_eq!(front::param(&back, "state").as_deref(), Some("xyz"));
    assert_eq!(front::param(&back, "iss").as_deref(), Some(server.issuer.as_str()), "RFC 9207");
    front::param(&back, "code").expect("a code")
}

fn exchange_form(client_id: &str, code: &str, verifier: &str) -> String {
    format!(
        "grant_type=authorization_code&client_id={client_id}&code={code}&code_verifier={verifier}&redirect_uri={}",
        CLIENT_REDIRECT.replace(':', "%3A").replace('/', "%2F")
    )
}

/// `whoami` called with `token`: the status and the text.
async fn whoami(server: &Fronted, token: &str) -> (StatusCode, String) {
    call(server, token, "whoami").await
}

async fn call(server: &Fronted, token: &str, tool: &str) -> (StatusCode, String) {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": mcp_tests::http_wire::stateless_meta(json!({}))}});
    let headers = [
        ("authorization", format!("Bearer {token}")),
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
        ("mcp-protocol-version", "2026-07-28".to_owned()),
        ("mcp-method", "tools/call".to_owned()),
        ("mcp-name", tool.to_owned()),
    ];
    let (status, _, body) =
        oidc::request(server.addr, http::Method::POST, "/mcp", &headers, Some(message.to_string().into())).await;
    let answer: Value = serde_json::from_slice(&body).unwrap_or(json!(null));
    let text = answer["result"]["content"][0]["text"].as_str().map_or_else(|| answer.to_string(), str::to_owned);
    (status, text)
}

fn claims_of(token: &str) -> Value {
    let part = token.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).expect("base64"))
        .expect("JSON")
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_registered_client_gets_a_token_for_the_person_and_the_tool_sees_them() {
    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy).await;
    // The metadata clients discover.
    let (status, _, body) =
        oidc::request(server.addr, http::Method::GET, "/.well-known/oauth-authorization-server/oauth", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let metadata: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(metadata["issuer"], server.issuer.as_str());
    assert_eq!(metadata["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(metadata["authorization_response_iss_parameter_supported"], true);
    assert_eq!(metadata["registration_endpoint"], format!("{}/register", server.issuer));
    // The server's resource metadata names the front.
    let (_, _, body) =
        oidc::request(server.addr, http::Method::GET, "/.well-known/oauth-protected-resource/mcp", &[], None).await;
    let resource: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(resource["authorization_servers"], json!([server.issuer]));

    let client_id = public_client(&server).await;
    let (verifier, challenge) = pkce("a");
    let code = code_for(&server, &provider, &client_id, &challenge, "alice").await;
    let (status, headers, tokens) =
        front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(headers["cache-control"], "no-store");
    let access = tokens["access_token"].as_str().expect("an access token");
    let claims = claims_of(access);
    assert_eq!(claims["aud"], server.resource.as_str(), "bound to the resource");
    assert_eq!(claims["iss"], server.issuer.as_str());
    assert_eq!(claims["sub"], "alice");
    assert_eq!(claims["client_id"], client_id.as_str());
    assert!(tokens["refresh_token"].is_string(), "the client registered the refresh grant");
    let (status, text) = whoami(&server, access).await;
    assert_eq!((status, text.as_str()), (StatusCode::OK, "alice notes:read,notes:write"));
    assert_eq!(call(&server, access, "write").await.1, "written");
    // The provider gone, tokens are still verified: no request leaves the server.
    drop(provider);
    assert_eq!(whoami(&server, access).await.0, StatusCode::OK);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn scopes_follow_the_rule_and_the_request() {
    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy).await;
    let client_id = public_client(&server).await;
    let (verifier, challenge) = pkce("b");
    // bob is granted reading only, whatever he asks.
    let url = authorize_url(&server, &client_id, CLIENT_REDIRECT, &challenge, "&scope=notes%3Aread%20notes%3Awrite");
    let back = front::approve(server.addr, provider.addr, &url, "bob").await;
    let code = front::param(&back, "code").expect("a code");
    let (_, _, tokens) = front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(tokens["scope"], "notes:read");
    let access = tokens["access_token"].as_str().expect("a token");
    assert_eq!(whoami(&server, access).await.1, "bob notes:read");
    // alice, asking for reading only, gets reading only.
    let url = authorize_url(&server, &client_id, CLIENT_REDIRECT, &challenge, "&scope=notes%3Aread");
    let back = front::approve(server.addr, provider.addr, &url, "alice").await;
    let code = front::param(&back, "code").expect("a code");
    let (_, _, tokens) = front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(tokens["scope"], "notes:read");
    // A scope the server does not have goes back to the client as an error.
    let url = authorize_url(&server, &client_id, CLIENT_REDIRECT, &challenge, "&scope=admin");
    let (status, headers, _) = Browser::default().get(server.addr, &url).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(front::param(&front::location(&headers), "error").as_deref(), Some("invalid_scope"));
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn redirect_uris_match_exactly_except_a_loopback_port_and_errors_never_go_to_an_unchecked_one() {
    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy).await;
    let client_id = public_client(&server).await;
    let (_, challenge) = pkce("c");
    for unregistered in
        ["http://127.0.0.1:7777/callback/x", "https://evil.example/callback", "http://localhost:7777/callback"]
    {
        // Even with an error to report (no PKCE method), nothing goes there.
        let url = authorize_url(&server, &client_id, unregistered, &challenge, "").replace("S256", "plain");
        let (status, headers, page) = Browser::default().get(server.addr, &url).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{unregistered}: {page}");
        assert!(headers.get("location").is_none());
        assert!(page.contains("not one this client registered"), "{page}");
    }
    // Another port of the loopback address is the same redirect URI (RFC 8252 §7.3).
    let url = authorize_url(&server, &client_id, "http://127.0.0.1:40001/callback", &challenge, "");
    let (status, _, page) = Browser::default().get(server.addr, &url).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(
        page.contains("127.0.0.1") && page.contains("Test &lt;Client&gt;"),
        "the host and the escaped name: {page}"
    );
    // Once the URI is checked, errors go to it, with the state and the issuer.
    let url = authorize_url(&server, &client_id, CLIENT_REDIRECT, &challenge, "").replace("S256", "plain");
    let (status, headers, _) = Browser::default().get(server.addr, &url).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let back = front::location(&headers);
    assert!(back.starts_with(CLIENT_REDIRECT), "{back}");
    assert_eq!(front::param(&back, "error").as_deref(), Some("invalid_request"));
    assert_eq!(front::param(&back, "iss").as_deref(), Some(server.issuer.as_str()));
    // An unknown client sees a page, not a redirect.
    let url = authorize_url(&server, "nobody", CLIENT_REDIRECT, &challenge, "");
    let (status, headers, _) = Browser::default().get(server.addr, &url).await;
    assert_eq!((status, headers.get("location")), (StatusCode::BAD_REQUEST, None));
    // Registering an unfit redirect URI is refused.
    let (status, answer) =
        front::register(server.addr, &server.issuer, json!({"redirect_uris": ["http://evil.example/cb"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["error"], "invalid_redirect_uri");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn consent_and_callback_belong_to_the_browser_that_asked() {
    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy).await;
    let client_id = public_client(&server).await;
    let (_, challenge) = pkce("d");
    let url = authorize_url(&server, &client_id, CLIENT_REDIRECT, &challenge, "");
    // Another browser (no cookie, or its own) cannot answer the consent page.
    let mut asker = Browser::default();
    let (_, _, page) = asker.get(server.addr, &url).await;
    let id = front::authorization_of(&page);
    let consent_url = format!("{}/consent", server.issuer);
    let form = format!("authorization={id}&decision=allow");
    assert_eq!(Browser::default().post(server.addr, &consent_url, &form).await.0, StatusCode::FORBIDDEN);
    let mut other = Browser::default();
    other.get(server.addr, &url).await;
    assert_eq!(other.post(server.addr, &consent_url, &form).await.0, StatusCode::FORBIDDEN);
    // A form posted from another site is refused too.
    let (status, _, _) = mcp_tests::oidc::request(
        server.addr,
        http::Method::POST,
        "/oauth/consent",
        &[
            ("cookie", asker.cookie.clone().expect("a cookie")),
            ("origin", "https://evil.example".to_owned()),
            ("content-type", "application/x-www-form-urlencoded".to_owned()),
        ],
        Some(form.clone().into()),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // The asker's own answer goes on to the provider; the sign-in that
    // comes back is bound to the asker's browser: finished in another
    // browser (a victim lured to the provider's page), it yields nothing.
    let (status, headers, _) = asker.post(server.addr, &consent_url, &form).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let callback = oidc::approve(provider.addr, &front::location(&headers), "victim").await;
    let (status, headers, _) = Browser::default().get(server.addr, &callback).await;
    assert_eq!((status, headers.get("location")), (StatusCode::FORBIDDEN, None));
    let mut victim = Browser::default();
    victim.get(server.addr, &url).await;
    assert_eq!(victim.get(server.addr, &callback).await.0, StatusCode::FORBIDDEN);
    // The asker finishes it, once.
    let (status, headers, _) = asker.get(server.addr, &callback).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert!(front::location(&headers).contains("code="));
    assert_eq!(asker.get(server.addr, &callback).await.0, StatusCode::BAD_REQUEST, "finished already");
    // One consent is one authorization: answering it again does nothing.
    assert_eq!(asker.post(server.addr, &consent_url, &form).await.0, StatusCode::BAD_REQUEST);
    // Declining sends the client access_denied.
    let mut person = Browser::default();
    let back = front::consent(&mut person, server.addr, &url, "deny").await;
    assert!(back.starts_with(CLIENT_REDIRECT), "{back}");
    assert_eq!(front::param(&back, "error").as_deref(), Some("access_denied"));
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn codes_are_single_use_pkce_bound_and_refresh_tokens_rotate() {
    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy).await;
    let client_id = public_client(&server).await;
    let other_client = public_client(&server).await;
    let (verifier, challenge) = pkce("e");
    let code = code_for(&server, &provider, &client_id, &challenge, "alice").await;
    // The wrong verifier, the wrong client: refused, and the code is spent.
    let (status, _, answer) =
        front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &pkce("x").0)).await;
    assert_eq!((status, answer["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
    let (_, _, answer) = front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(answer["error"], "invalid_grant", "a code is tried once");
    let code = code_for(&server, &provider, &client_id, &challenge, "alice").await;
    let (_, _, answer) =
        front::token(server.addr, &server.issuer, &exchange_form(&other_client, &code, &verifier)).await;
    assert_eq!(answer["error"], "invalid_grant", "another client's code");
    let code = code_for(&server, &provider, &client_id, &challenge, "alice").await;
    let unnamed = format!("grant_type=authorization_code&client_id={client_id}&code={code}&code_verifier={verifier}");
    let (_, _, answer) = front::token(server.addr, &server.issuer, &unnamed).await;
    assert_eq!(answer["error"], "invalid_grant", "the redirect URI the request named is named again");
    let code = code_for(&server, &provider, &client_id, &challenge, "alice").await;
    let (status, _, tokens) =
        front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let (_, _, again) = front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(again["error"], "invalid_grant", "a code is exchanged once");
    // Refresh: a new refresh token each time; the old one is spent; another
    // client cannot spend it.
    let first = tokens["refresh_token"].as_str().expect("a refresh token").to_owned();
    let refresh =
        |client: &str, token: &str| format!("grant_type=refresh_token&client_id={client}&refresh_token={token}");
    let (_, _, stolen) = front::token(server.addr, &server.issuer, &refresh(&other_client, &first)).await;
    assert_eq!(stolen["error"], "invalid_grant");
    let (status, _, renewed) = front::token(server.addr, &server.issuer, &refresh(&client_id, &first)).await;
    assert_eq!(status, StatusCode::OK, "{renewed}");
    let second = renewed["refresh_token"].as_str().expect("rotated").to_owned();
    assert_ne!(first, second);
    assert_eq!(whoami(&server, renewed["access_token"].as_str().expect("a token")).await.0, StatusCode::OK);
    let (_, _, replayed) = front::token(server.addr, &server.issuer, &refresh(&client_id, &first)).await;
    assert_eq!(replayed["error"], "invalid_grant", "a refresh token is used once");
    // Narrowing on refresh, never widening.
    let narrow = format!("{}&scope=notes%3Aread", refresh(&client_id, &second));
    let (_, _, narrowed) = front::token(server.addr, &server.issuer, &narrow).await;
    assert_eq!(narrowed["scope"], "notes:read");
    let third = narrowed["refresh_token"].as_str().expect("rotated").to_owned();
    let wide = format!("{}&scope=notes%3Aread%20notes%3Awrite", refresh(&client_id, &third));
    assert_eq!(front::token(server.addr, &server.issuer, &wide).await.2["error"], "invalid_scope");
    // Revoked, a refresh token is gone.
    let code = code_for(&server, &provider, &client_id, &challenge, "alice").await;
    let (_, _, tokens) = front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    let kept = tokens["refresh_token"].as_str().expect("a refresh token").to_owned();
    let headers = [("content-type", "application/x-www-form-urlencoded".to_owned())];
    let form = format!("client_id={client_id}&token={kept}");
    let (status, _, _) =
        oidc::request(server.addr, http::Method::POST, "/oauth/revoke", &headers, Some(form.into())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        front::token(server.addr, &server.issuer, &refresh(&client_id, &kept)).await.2["error"],
        "invalid_grant"
    );
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn tokens_are_the_fronts_own_and_for_this_resource_only() {
    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy).await;
    // The provider's own token for this resource is not the front's.
    let theirs = oidc::token_from(provider.addr, "es256-client", &server.resource).await;
    assert_eq!(whoami(&server, &theirs).await.0, StatusCode::UNAUTHORIZED);
    // A token of another front (another key, another resource) is refused.
    let elsewhere = serve(&provider, |proxy| proxy).await;
    let client_id = public_client(&elsewhere).await;
    let (verifier, challenge) = pkce("f");
    let code = code_for(&elsewhere, &provider, &client_id, &challenge, "alice").await;
    let (_, _, tokens) =
        front::token(elsewhere.addr, &elsewhere.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    let foreign = tokens["access_token"].as_str().expect("a token");
    assert_eq!(whoami(&elsewhere, foreign).await.0, StatusCode::OK);
    assert_eq!(whoami(&server, foreign).await.0, StatusCode::UNAUTHORIZED);
    // The key set is published.
    let (status, _, body) = oidc::request(server.addr, http::Method::GET, "/oauth/jwks", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let keys: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(keys["keys"][0]["alg"], "ES256");
    assert!(keys["keys"][0].get("d").is_none(), "the public half only");
}

/// Two replicas sharing one store: a code issued by one is exchanged at
/// the other, and either verifies the tokens of both (one signing key).
async fn replicas_share(provider: &oidc::Provider, store: impl ProxyStore + Clone) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let one = serve_on(listener, provider, |proxy| proxy.store(store.clone()));
    // The second replica: another port, the same issuer and resource.
    let two = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let second = listener.local_addr().expect("addr");
        let mut replica = serve_on(listener, provider, |_| {
            let upstream = Upstream::new(&provider.issuer, "front-client", "secret");
            OAuthProxy::new(format!("http://{addr}/oauth"), format!("http://{addr}/mcp"), upstream)
                .grant_scopes(rule)
                .store(store.clone())
        });
        replica.addr = second;
        replica.issuer = format!("http://{addr}/oauth");
        replica.resource = format!("http://{addr}/mcp");
        replica
    };
    let client_id = public_client(&one).await;
    let (verifier, challenge) = pkce("g");
    let code = code_for(&one, provider, &client_id, &challenge, "alice").await;
    let (status, _, tokens) = front::token(two.addr, &two.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let access = tokens["access_token"].as_str().expect("a token");
    assert_eq!(whoami(&one, access).await.1, "alice notes:read,notes:write");
    assert_eq!(whoami(&two, access).await.1, "alice notes:read,notes:write");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn replicas_on_one_sqlite_file_are_one_front() {
    let provider = oidc::start().await;
    let path = std::env::temp_dir().join(format!("mcp-front-{}-{}.db", std::process::id(), line!()));
    let store = mcp_runtime::oauth_proxy::SqliteProxyStore::open(&path).expect("opened");
    replicas_share(&provider, store).await;
    let _ = std::fs::remove_file(&path);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test]
async fn replicas_on_one_redis_are_one_front() {
    let provider = oidc::start().await;
    let redis = mcp_tests::redis::start().await;
    let store = mcp_runtime::redis::RedisProxyStore::connect(&redis.url, "mcp:front").await.expect("connected");
    replicas_share(&provider, store).await;
}

/// Our own client (`client::oauth`), registering dynamically, sent to the
/// consent page by the server's 401, reaches the tool as the person.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn our_client_registers_and_reaches_the_tool_through_the_front() {
    use mcp_runtime::client::Client;
    use mcp_runtime::client::oauth::OAuth;

    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy).await;
    let (front_addr, provider_addr) = (server.addr, provider.addr);
    let oauth = OAuth::new("http://127.0.0.1:7779/callback")
        .on_authorize(move |url| async move { Ok(front::approve(front_addr, provider_addr, &url, "alice").await) });
    let client = Client::http(&server.resource).oauth(oauth);
    let result = client.call_tool("whoami", json!({})).await.expect("the tool answers");
    let text = serde_json::to_value(&result.content[0]).expect("JSON")["text"].as_str().expect("text").to_owned();
    assert_eq!(text, "alice notes:read,notes:write");
}

/// A client metadata document server on loopback: the document, and how
/// many requests it saw.
async fn document_server(redirect_uri: &str) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/client.json", listener.local_addr().expect("addr"));
    let document = json!({
        "client_id": url,
        "client_name": "Documented",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
    })
    .to_string();
    let seen = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            counted.fetch_add(1, Ordering::Relaxed);
            let document = document.clone();
            let service = hyper::service::service_fn(move |_| {
                let document = document.clone();
                async move {
                    let mut answer = http::Response::new(http_body_util::Full::new(bytes::Bytes::from(document)));
                    answer.headers_mut().insert("content-type", http::HeaderValue::from_static("application/json"));
                    Ok::<_, std::convert::Infallible>(answer)
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    (url, seen)
}

/// A client known by its metadata document: our client uses it when the
/// front says it may, and the front reads it (here allowed on loopback).
/// By default the front refuses to fetch from a private address at all.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_client_known_by_its_metadata_document_and_the_default_refuses_private_addresses() {
    use mcp_runtime::client::Client;
    use mcp_runtime::client::oauth::OAuth;
    use mcp_runtime::oauth_proxy::ClientDocuments;

    let provider = oidc::start().await;
    let redirect = "http://127.0.0.1:7780/callback";
    let (document_url, seen) = document_server(redirect).await;
    let (_, challenge) = pkce("h");
    // The default: a loopback document is never fetched.
    let guarded = serve(&provider, |proxy| proxy).await;
    let url = authorize_url(&guarded, &document_url.replace(':', "%3A").replace('/', "%2F"), redirect, &challenge, "");
    let (status, _, page) = Browser::default().get(guarded.addr, &url).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{page}");
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 0, "no request reached the private address");
    // Allowed, for a test or an intranet, the document names the client.
    let open = serve(&provider, |proxy| {
        proxy.client_documents(Some(ClientDocuments::new().allow_plain_http().allow_private_addresses()))
    })
    .await;
    let (front_addr, provider_addr) = (open.addr, provider.addr);
    let oauth = OAuth::new(redirect).client_metadata_document(&document_url).on_authorize(move |url| async move {
        assert!(url.contains("client_id=http%3A%2F%2F127.0.0.1"), "the document's URL is the client id: {url}");
        Ok(front::approve(front_addr, provider_addr, &url, "alice").await)
    });
    let client = Client::http(&open.resource).oauth(oauth);
    let result = client.call_tool("whoami", json!({})).await.expect("the tool answers");
    let text = serde_json::to_value(&result.content[0]).expect("JSON")["text"].as_str().expect("text").to_owned();
    assert_eq!(text, "alice notes:read,notes:write");
    assert!(seen.load(std::sync::atomic::Ordering::Relaxed) >= 1);
}

/// The token and revocation endpoints are not paced as a whole (a client
/// spends its codes and refresh tokens there), but a client id that is a
/// document URL not cached would make the front fetch it: those fetches
/// are paced per address, so a caller cannot turn the front into a
/// fetcher of URLs of its choosing, nor fill the store with documents.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn token_requests_naming_documents_cannot_make_the_front_fetch_without_limit() {
    use mcp_runtime::oauth_proxy::ClientDocuments;
    use std::sync::atomic::Ordering;

    let provider = oidc::start().await;
    let (document_url, seen) = document_server(CLIENT_REDIRECT).await;
    let server = serve(&provider, |proxy| {
        proxy
            .client_documents(Some(ClientDocuments::new().allow_plain_http().allow_private_addresses()))
            .writes_per_minute(3)
    })
    .await;
    let mut statuses = Vec::new();
    for n in 0..8 {
        // Each URL is another document (refused: it names another client id).
        let client_id = format!("{document_url}/{n}").replace(':', "%3A").replace('/', "%2F");
        let endpoint = if n % 2 == 0 { "token" } else { "revoke" };
        let form = format!("grant_type=authorization_code&code=x&client_id={client_id}&token=x");
        let (status, headers, _) = oidc::request(
            server.addr,
            http::Method::POST,
            &format!("/oauth/{endpoint}"),
            &[("content-type", "application/x-www-form-urlencoded".to_owned())],
            Some(bytes::Bytes::from(form)),
        )
        .await;
        if status == StatusCode::TOO_MANY_REQUESTS {
            assert_eq!(headers["retry-after"], "60");
        }
        statuses.push(status.as_u16());
    }
    assert_eq!(seen.load(Ordering::Relaxed), 3, "one fetch per paced write: {statuses:?}");
    assert_eq!(statuses, [401, 401, 401, 429, 429, 429, 429, 429]);
}

/// `authorization` set after `oauth_proxy` would trust another issuer than
/// the front: the build says so.
#[test]
fn an_authorization_after_the_front_is_refused_at_build() {
    let upstream = Upstream::new("https://login.example.com", "front", "secret");
    let proxy = OAuthProxy::new("https://mcp.example.com/oauth", "https://mcp.example.com/mcp", upstream);
    let built = Server::builder("fronted", "1.0.0")
        .oauth_proxy(proxy)
        .authorization(mcp_runtime::auth::Authorization::new(
            "https://other.example.com",
            "https://mcp.example.com/mcp",
        ))
        .build();
    let Err(error) = built else { panic!("an authorization after the front was accepted") };
    let error = error.to_string();
    assert!(error.contains("ServerBuilder::oauth_proxy"), "{error}");
}

/// Registering, asking and answering write before anyone is known: one
/// address gets so many a minute, then 429, and the store is spared.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn one_address_cannot_fill_the_store() {
    let provider = oidc::start().await;
    let server = serve(&provider, |proxy| proxy.writes_per_minute(3)).await;
    let client_id = public_client(&server).await;
    let (_, challenge) = pkce("i");
    let url = authorize_url(&server, &client_id, CLIENT_REDIRECT, &challenge, "");
    assert_eq!(Browser::default().get(server.addr, &url).await.0, StatusCode::OK);
    assert_eq!(Browser::default().get(server.addr, &url).await.0, StatusCode::OK);
    let (status, headers, page) = Browser::default().get(server.addr, &url).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{page}");
    assert_eq!(headers["retry-after"], "60");
    let (status, answer) =
        front::register(server.addr, &server.issuer, json!({"redirect_uris": [CLIENT_REDIRECT]})).await;
    assert_eq!((status, answer["error"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("temporarily_unavailable")));
    // Reading is not paced: the metadata and the keys still answer.
    let (status, _, _) = oidc::request(server.addr, http::Method::GET, "/oauth/jwks", &[], None).await;
    assert_eq!(status, StatusCode::OK);
}

/// A provider's endpoints given rather than discovered lead through the
/// same flow.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_provider_without_discovery_is_reached_by_its_endpoints() {
    let provider = oidc::start().await;
    let issuer = &provider.issuer;
    let upstream = Upstream::new(issuer, "front-client", "secret").endpoints(
        format!("{issuer}/auth"),
        format!("{issuer}/token"),
        format!("{issuer}/jwks"),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let server = serve_relaying(listener, upstream, |proxy| proxy);
    let client_id = public_client(&server).await;
    let (verifier, challenge) = pkce("j");
    let code = code_for(&server, &provider, &client_id, &challenge, "carol").await;
    let (status, _, tokens) =
        front::token(server.addr, &server.issuer, &exchange_form(&client_id, &code, &verifier)).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(whoami(&server, tokens["access_token"].as_str().expect("a token")).await.1, "carol notes:read");
}
