//! OAuth 2.1 in the client (`mcp_runtime::client::oauth`): a server's `401`
//! followed to its authorization server — Protected Resource Metadata,
//! authorization server metadata, dynamic registration, the person's
//! approval with PKCE, the code traded for tokens — and the token sent with
//! every request after. Each failure of the flow names its step and the URL
//! it was at; a refused scope is asked for again a bounded number of times;
//! an expired token is refreshed without the person; concurrent requests
//! share one flow; a token store carries tokens from one client to the next.
//!
//! One scripted listener on loopback plays both the MCP server (`POST
//! /mcp`) and its authorization server, so that every request of the flow
//! is the test's to answer and to see. The person is played by the
//! `on_authorize` callback, which builds the redirect from the
//! authorization URL itself: no browser, no request to `/authorize`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use mcp_runtime::client::oauth::{MemoryTokenStore, OAuth, RegisteredClient};
use mcp_runtime::client::{Client, Error, Revision};
use mcp_tests::scripted::{Log, Received, http, ok, query_of, serve_on};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::net::TcpListener;

/// Where the person is sent back to: never fetched, only read.
const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

/// How the scripted server departs from the happy path.
#[derive(Clone, Default)]
struct Script {
    /// The `resource` its Protected Resource Metadata names (default: its
    /// own endpoint).
    resource: Option<String>,
    /// The issuer its authorization server metadata names (default: the
    /// issuer it was fetched for).
    issuer: Option<String>,
    /// Every well-known authorization server metadata URL answers 404.
    no_metadata: bool,
    /// `POST /register` answers 400 `invalid_redirect_uri`.
    refuse_registration: bool,
    /// Every request with a token is refused for want of `mcp:write`.
    step_up: bool,
    /// The token endpoint issues refresh token `r-1` with `t-1`, and
    /// `t-1` is taken once only: the next request with it is refused, as
    /// if it had expired.
    expire_first_token: bool,
    /// The authorization server takes Client ID Metadata Documents.
    metadata_documents: bool,
}

/// A scripted server: its origin (also its issuer), its MCP endpoint, and
/// what it received.
struct Server {
    origin: String,
    url: String,
    log: Log,
}

impl Server {
    fn received(&self) -> Vec<Received> {
        self.log.lock().expect("the log").clone()
    }

    /// The requests received with `method` at `path`.
    fn requests(&self, method: &str, path: &str) -> Vec<Received> {
        self.received().into_iter().filter(|r| r.is(method, path)).collect()
    }

    /// The URL of its Protected Resource Metadata.
    fn prm_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.origin)
    }
}

/// What one scripted server knows while it answers.
struct Shared {
    script: Script,
    origin: String,
    /// How many requests with `t-1` were answered with a result.
    first_token_taken: AtomicUsize,
}

/// A server on loopback answering as `script` says. Bound before it
/// returns: ready.
async fn serve(script: Script) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let origin = format!("http://{}", listener.local_addr().expect("an address"));
    let shared = Arc::new(Shared { script, origin: origin.clone(), first_token_taken: AtomicUsize::new(0) });
    let log = serve_on(listener, move |request| answer(&shared, request));
    Server { url: format!("{origin}/mcp"), origin, log }
}

fn not_found() -> String {
    http("404 Not Found", "", "")
}

/// The scripted server's answer to `request`: the MCP endpoint, or its
/// authorization server's.
fn answer(shared: &Shared, request: &Received) -> String {
    let (script, origin) = (&shared.script, shared.origin.as_str());
    match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/mcp") => mcp(shared, request),
        ("GET", "/.well-known/oauth-protected-resource/mcp") => ok(&json!({
            "resource": script.resource.clone().unwrap_or_else(|| format!("{origin}/mcp")),
            "authorization_servers": [origin],
        })),
        ("GET", "/.well-known/oauth-authorization-server") if !script.no_metadata => ok(&json!({
            "issuer": script.issuer.as_deref().unwrap_or(origin),
            "authorization_endpoint": format!("{origin}/authorize"),
            "token_endpoint": format!("{origin}/token"),
            "registration_endpoint": format!("{origin}/register"),
            "code_challenge_methods_supported": ["S256"],
            "client_id_metadata_document_supported": script.metadata_documents,
        })),
        ("POST", "/register") if script.refuse_registration => http(
            "400 Bad Request",
            "",
            &json!({"error": "invalid_redirect_uri", "error_description": "no"}).to_string(),
        ),
        ("POST", "/register") => http("201 Created", "", &json!({"client_id": "c-1"}).to_string()),
        ("POST", "/token") => token(script, request),
        _ => not_found(),
    }
}

/// The MCP endpoint: a result for a valid token, a challenge otherwise.
fn mcp(shared: &Shared, request: &Received) -> String {
    let (script, origin) = (&shared.script, shared.origin.as_str());
    let metadata = format!("resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\"");
    let unauthorized = http("401 Unauthorized", &format!("www-authenticate: Bearer {metadata}\r\n"), "");
    let token = request.header("authorization").and_then(|value| value.strip_prefix("Bearer "));
    let valid = match token {
        None => false,
        Some(_) if script.step_up => {
            return http(
                "403 Forbidden",
                &format!("www-authenticate: Bearer error=\"insufficient_scope\", scope=\"mcp:write\", {metadata}\r\n"),
                "",
            );
        }
        Some("t-1") => !script.expire_first_token || shared.first_token_taken.fetch_add(1, Ordering::SeqCst) == 0,
        Some(token) => token == "t-2",
    };
    if !valid {
        return unauthorized;
    }
    let message: Value = serde_json::from_str(&request.body).expect("a JSON-RPC request");
    ok(&json!({"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete", "tools": []}}))
}

/// The token endpoint: `t-1` for the code `c1`, `t-2` for the refresh
/// token `r-1`.
fn token(script: &Script, request: &Received) -> String {
    let form = request.form();
    let issued = match (form.get("grant_type").map(String::as_str), form.get("code"), form.get("refresh_token")) {
        (Some("authorization_code"), Some(code), _) if code == "c1" => match script.expire_first_token {
            true => json!({"access_token": "t-1", "token_type": "Bearer", "refresh_token": "r-1"}),
            false => json!({"access_token": "t-1", "token_type": "Bearer"}),
        },
        (Some("refresh_token"), _, Some(refresh)) if refresh == "r-1" => {
            json!({"access_token": "t-2", "token_type": "Bearer"})
        }
        _ => return http("400 Bad Request", "", &json!({"error": "invalid_grant"}).to_string()),
    };
    ok(&issued)
}

/// What the person did: each authorization URL the client sent them to,
/// and the redirect they came back with.
type Visits = Arc<Mutex<Vec<(String, String)>>>;

fn visits(visits: &Visits) -> Vec<(String, String)> {
    visits.lock().expect("the visits").clone()
}

/// Authorization whose person approves at once: the redirect carries the
/// code `c1`, the `state` sent, and `iss` when given.
fn approving(visits: &Visits, iss: Option<&str>) -> OAuth {
    let (visits, iss) = (Arc::clone(visits), iss.map(str::to_owned));
    OAuth::new(REDIRECT_URI).on_authorize(move |url| {
        let query = query_of(&url);
        let param = |name: &str| query.get(name).cloned().unwrap_or_default();
        let mut redirect = format!("{}?code=c1&state={}", param("redirect_uri"), param("state"));
        if let Some(iss) = &iss {
            redirect = format!("{redirect}&iss={iss}");
        }
        visits.lock().expect("the visits").push((url, redirect.clone()));
        async move { Ok(redirect) }
    })
}

fn client(server: &Server, oauth: OAuth) -> Client {
    // A mistake fails the test rather than hanging it.
    Client::http(&server.url).revision(Revision::Stateless).timeout(Duration::from_secs(10)).oauth(oauth)
}

/// The message of the `Error::Authorization` that `result` must be.
fn authorization_error<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
    match result {
        Err(Error::Authorization(message)) => message,
        other => panic!("an authorization error was expected, not {other:?}"),
    }
}

/// The part of an authorization error's message that names `step` and `url`.
fn at(step: &str, url: &str) -> String {
    format!("authorization failed at the {step} ({url}): ")
}

/// Whether any request reached the parts of the flow after the metadata.
fn went_past_metadata(server: &Server) -> bool {
    server.received().iter().any(|r| ["/register", "/authorize", "/token"].contains(&r.path.as_str()))
}

#[tokio::test]
async fn a_401_is_followed_through_the_whole_flow_and_the_token_sent_after() {
    let server = serve(Script::default()).await;
    let person = Visits::default();
    let client = client(&server, approving(&person, None));

    let tools = client.list_tools().await.expect("listed once authorized");
    assert!(tools.is_empty());

    // The flow, in order: the refusal, the resource's metadata, its
    // authorization server's, a registration, the code traded, the retry.
    let path = |r: &Received| format!("{} {}", r.method, r.path);
    assert_eq!(
        server.received().iter().map(path).collect::<Vec<_>>(),
        [
            "POST /mcp",
            "GET /.well-known/oauth-protected-resource/mcp",
            "GET /.well-known/oauth-authorization-server",
            "POST /register",
            "POST /token",
            "POST /mcp",
        ]
    );
    let registration: Value = serde_json::from_str(&server.requests("POST", "/register")[0].body).expect("JSON");
    assert_eq!(registration["redirect_uris"], json!([REDIRECT_URI]), "{registration}");

    // The person was sent to the authorization endpoint with PKCE, the
    // resource and the registered client id.
    let visited = visits(&person);
    assert_eq!(visited.len(), 1, "{visited:?}");
    let (url, _) = &visited[0];
    assert!(url.starts_with(&format!("{}/authorize?", server.origin)), "{url}");
    let sent = query_of(url);
    assert_eq!(sent.get("response_type").map(String::as_str), Some("code"), "{url}");
    assert_eq!(sent.get("client_id").map(String::as_str), Some("c-1"), "{url}");
    assert_eq!(sent.get("redirect_uri").map(String::as_str), Some(REDIRECT_URI), "{url}");
    assert_eq!(sent.get("code_challenge_method").map(String::as_str), Some("S256"), "{url}");
    assert_eq!(sent.get("resource"), Some(&server.url), "{url}");

    // The code was traded with its verifier, for this very resource.
    let tokens = server.requests("POST", "/token");
    assert_eq!(tokens.len(), 1);
    let form = tokens[0].form();
    let field = |name: &str| form.get(name).map(String::as_str);
    assert_eq!(field("grant_type"), Some("authorization_code"), "{form:?}");
    assert_eq!(field("code"), Some("c1"), "{form:?}");
    assert_eq!(field("resource"), Some(server.url.as_str()), "{form:?}");
    assert_eq!(field("client_id"), Some("c-1"), "{form:?}");
    assert_eq!(field("redirect_uri"), Some(REDIRECT_URI), "{form:?}");
    let verifier = field("code_verifier").expect("a code verifier");
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    assert_eq!(sent.get("code_challenge"), Some(&challenge), "the challenge is the verifier's S256");

    // The next request goes straight through with the token.
    client.list_tools().await.expect("listed again");
    let calls = server.requests("POST", "/mcp");
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[0].header("authorization"), None);
    for call in &calls[1..] {
        assert_eq!(call.header("authorization"), Some("Bearer t-1"), "{call:?}");
    }
    assert_eq!(visits(&person).len(), 1, "authorized once");
    assert_eq!(server.requests("POST", "/token").len(), 1, "one code traded");
}

#[tokio::test]
async fn no_authorization_server_metadata_fails_at_that_step_naming_the_issuer() {
    let server = serve(Script { no_metadata: true, ..Script::default() }).await;
    let person = Visits::default();
    let message = authorization_error(client(&server, approving(&person, None)).list_tools().await);
    assert!(message.contains(&at("authorization server metadata", &server.origin)), "{message}");
    // Both well-known URLs were tried first.
    assert_eq!(server.requests("GET", "/.well-known/oauth-authorization-server").len(), 1);
    assert_eq!(server.requests("GET", "/.well-known/openid-configuration").len(), 1);
    assert!(!went_past_metadata(&server), "{:?}", server.received());
    assert!(visits(&person).is_empty());
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_not_used_at_all() {
    let server = serve(Script { issuer: Some("http://evil.example".to_owned()), ..Script::default() }).await;
    let person = Visits::default();
    let message = authorization_error(client(&server, approving(&person, None)).list_tools().await);
    let metadata_url = format!("{}/.well-known/oauth-authorization-server", server.origin);
    assert!(message.contains(&at("authorization server metadata", &metadata_url)), "{message}");
    assert!(!went_past_metadata(&server), "none of its endpoints is used: {:?}", server.received());
    assert!(visits(&person).is_empty(), "the person is not sent to it");
}

#[tokio::test]
async fn a_refused_registration_fails_at_that_step_with_the_servers_reason() {
    let server = serve(Script { refuse_registration: true, ..Script::default() }).await;
    let person = Visits::default();
    let message = authorization_error(client(&server, approving(&person, None)).list_tools().await);
    let register = format!("{}/register", server.origin);
    assert!(message.contains(&at("client registration", &register)), "{message}");
    assert!(message.contains("invalid_redirect_uri"), "{message}");
    assert!(visits(&person).is_empty());
    assert!(server.requests("POST", "/token").is_empty());
}

#[tokio::test]
async fn a_scope_refused_for_good_is_asked_for_three_times_then_the_403_returned() {
    let server = serve(Script { step_up: true, ..Script::default() }).await;
    let person = Visits::default();
    match client(&server, approving(&person, None)).list_tools().await {
        Err(Error::Http { status, .. }) => assert_eq!(status, 403),
        other => panic!("the last refusal was expected, not {other:?}"),
    }
    let visited = visits(&person);
    assert_eq!(visited.len(), 3, "authorized as often as one request may: {visited:?}");
    let (last, _) = visited.last().expect("a last authorization");
    let scope = query_of(last).get("scope").cloned().unwrap_or_default();
    assert!(scope.split(' ').any(|s| s == "mcp:write"), "the scope needed was asked for: {last}");
    assert_eq!(server.requests("POST", "/token").len(), 3);
    // The first request, then one after each authorization.
    assert_eq!(server.requests("POST", "/mcp").len(), 4);
}

#[tokio::test]
async fn metadata_of_another_resource_is_not_asked_a_token_for() {
    let server = serve(Script { resource: Some("https://evil.example.com/mcp".to_owned()), ..Script::default() }).await;
    let person = Visits::default();
    let message = authorization_error(client(&server, approving(&person, None)).list_tools().await);
    assert!(message.contains(&at("protected resource metadata", &server.prm_url())), "{message}");
    assert!(visits(&person).is_empty(), "the person was never sent anywhere");
    assert!(!went_past_metadata(&server), "{:?}", server.received());
}

#[tokio::test]
async fn a_redirect_from_another_issuer_takes_its_code_nowhere() {
    let server = serve(Script::default()).await;
    let person = Visits::default();
    let message =
        authorization_error(client(&server, approving(&person, Some("http://other.example"))).list_tools().await);
    let visited = visits(&person);
    assert_eq!(visited.len(), 1, "{visited:?}");
    let (_, redirect) = &visited[0];
    assert!(message.contains(&at("authorization response", redirect)), "{message}");
    assert!(server.requests("POST", "/token").is_empty(), "the code went nowhere");
}

#[tokio::test]
async fn without_on_authorize_a_server_that_needs_a_person_fails_the_request() {
    let server = serve(Script::default()).await;
    let message = authorization_error(client(&server, OAuth::new(REDIRECT_URI)).list_tools().await);
    assert!(message.contains("on_authorize"), "{message}");
    assert!(message.contains(&at("authorization", &format!("{}/authorize", server.origin))), "{message}");
    assert!(server.requests("POST", "/token").is_empty());
}

#[tokio::test]
async fn an_expired_token_is_refreshed_without_the_person() {
    let server = serve(Script { expire_first_token: true, ..Script::default() }).await;
    let person = Visits::default();
    let client = client(&server, approving(&person, None));
    client.list_tools().await.expect("listed once authorized");
    client.list_tools().await.expect("listed once refreshed");

    assert_eq!(visits(&person).len(), 1, "the person authorized once");
    let tokens = server.requests("POST", "/token");
    assert_eq!(tokens.len(), 2, "{tokens:?}");
    let refresh = tokens[1].form();
    assert_eq!(refresh.get("grant_type").map(String::as_str), Some("refresh_token"), "{refresh:?}");
    assert_eq!(refresh.get("refresh_token").map(String::as_str), Some("r-1"), "{refresh:?}");
    let calls = server.requests("POST", "/mcp");
    let sent: Vec<_> = calls.iter().map(|c| c.header("authorization").unwrap_or("none")).collect();
    assert_eq!(sent, ["none", "Bearer t-1", "Bearer t-1", "Bearer t-2"]);
}

#[tokio::test]
async fn concurrent_requests_share_one_flow() {
    let server = serve(Script::default()).await;
    let person = Visits::default();
    let client = client(&server, approving(&person, None));
    let calls = (0..8).map(|_| {
        let client = client.clone();
        async move { client.list_tools().await }
    });
    for listed in futures_util::future::join_all(calls).await {
        listed.expect("listed once authorized");
    }
    assert_eq!(visits(&person).len(), 1, "one flow for all");
    assert_eq!(server.requests("POST", "/token").len(), 1);
    assert_eq!(server.requests("POST", "/register").len(), 1);
    let last = server.requests("POST", "/mcp");
    assert!(last.iter().filter(|c| c.header("authorization") == Some("Bearer t-1")).count() >= 8, "{last:?}");
}

#[tokio::test]
async fn a_token_store_carries_tokens_to_the_next_client() {
    let server = serve(Script::default()).await;
    let store = MemoryTokenStore::default();
    let (first, second) = (Visits::default(), Visits::default());
    client(&server, approving(&first, None).token_store(store.clone()))
        .list_tools()
        .await
        .expect("listed once authorized");
    let before = server.received().len();

    let next = client(&server, approving(&second, None).token_store(store.clone()));
    next.list_tools().await.expect("listed with the stored token");
    let after = &server.received()[before..];
    assert_eq!(after.len(), 1, "one request, no flow: {after:?}");
    assert!(after[0].is("POST", "/mcp"));
    assert_eq!(after[0].header("authorization"), Some("Bearer t-1"));
    assert!(visits(&second).is_empty());
    assert_eq!(visits(&first).len(), 1);
}

#[tokio::test]
async fn a_client_registered_beforehand_authenticates_with_its_secret_and_does_not_register() {
    let server = serve(Script::default()).await;
    let person = Visits::default();
    let oauth = approving(&person, None)
        // Registered with another issuer: never sent here.
        .registered(RegisteredClient::new("elsewhere").secret("not-here").issuer("https://login.example.com"))
        .registered(RegisteredClient::new("my-app").secret("s3cret").issuer(&server.origin));
    client(&server, oauth).list_tools().await.expect("listed once authorized");

    assert!(server.requests("POST", "/register").is_empty(), "{:?}", server.received());
    let visited = visits(&person);
    assert_eq!(query_of(&visited[0].0).get("client_id").map(String::as_str), Some("my-app"));
    let tokens = server.requests("POST", "/token");
    let basic = base64::engine::general_purpose::STANDARD.encode("my-app:s3cret");
    assert_eq!(tokens[0].header("authorization"), Some(format!("Basic {basic}").as_str()));
    assert!(!tokens[0].body.contains("s3cret"), "the secret is not in the form too: {}", tokens[0].body);
}

#[tokio::test]
async fn a_client_metadata_document_is_the_client_id_where_the_server_takes_them() {
    let document = "https://app.example.com/oauth/client.json";
    let server = serve(Script { metadata_documents: true, ..Script::default() }).await;
    let person = Visits::default();
    client(&server, approving(&person, None).client_metadata_document(document))
        .list_tools()
        .await
        .expect("listed once authorized");

    assert!(server.requests("POST", "/register").is_empty(), "{:?}", server.received());
    assert_eq!(query_of(&visits(&person)[0].0).get("client_id").map(String::as_str), Some(document));
    let form = server.requests("POST", "/token")[0].form();
    assert_eq!(form.get("client_id").map(String::as_str), Some(document));
}

#[tokio::test]
async fn the_persons_time_at_the_authorization_page_is_not_the_requests() {
    let server = serve(Script::default()).await;
    // A person who takes longer to approve than a request may take: the
    // limit is each try's, not the person's.
    let limit = Duration::from_secs(3);
    let oauth = OAuth::new(REDIRECT_URI).on_authorize(move |url| async move {
        tokio::time::sleep(limit + Duration::from_secs(1)).await;
        let query = query_of(&url);
        let param = |name: &str| query.get(name).cloned().unwrap_or_default();
        Ok(format!("{}?code=c1&state={}", param("redirect_uri"), param("state")))
    });
    let client = Client::http(&server.url).revision(Revision::Stateless).timeout(limit).oauth(oauth);
    let tools = client.list_tools().await.expect("listed once the person approved");
    assert!(tools.is_empty());
}
