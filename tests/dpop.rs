//! DPoP (RFC 9449) on a protected server, against a real authorization
//! server, oidc-provider (`.ci/oidc/provider.mjs`), which binds a token to
//! the key of the proof its token request carries: every request here
//! proves possession of that key with a proof of its own
//! (`support/dpop.rs`), or fails to in the way an attacker's would.

#![cfg_attr(no_oidc_provider, allow(dead_code, unused_imports))]

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use mcp_runtime::auth::{Authorization, Dpop, Principal, ReplayStore};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::{Server, entry::ToolEntry, extract::Extension};
use mcp_tests::dpop::{self, ProofKey};
use mcp_tests::http_wire::{STUCK, stateless_meta};
use mcp_tests::oidc;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// A nonce secret replicas share.
const NONCE_SECRET: &[u8] = b"a nonce secret of more than thirty-two bytes, shared";

/// A protected server on a free loopback port, stopped when dropped.
struct Protected {
    addr: SocketAddr,
    /// Its endpoint's URL: the `resource` its tokens are for, and the
    /// `htu` of its proofs.
    resource: String,
    /// The `Host` its requests carry.
    host: String,
    _stop: oneshot::Sender<()>,
}

/// A server accepting DPoP as `dpop` says, reached at its own address.
async fn serve(issuer: &str, dpop: Option<Dpop>) -> Protected {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let resource = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    serve_on(listener, &resource, issuer, dpop, HttpConfig::default())
}

/// A server on `listener` for `resource` (which may name a balancer in
/// front: then `config` carries it as the public URL).
fn serve_on(
    listener: tokio::net::TcpListener,
    resource: &str,
    issuer: &str,
    dpop: Option<Dpop>,
    config: HttpConfig,
) -> Protected {
    let addr = listener.local_addr().expect("addr");
    let mut auth = Authorization::new(issuer, resource).scopes_supported(["notes:read", "notes:write"]);
    if let Some(dpop) = dpop {
        auth = auth.dpop(dpop);
    }
    let whoami = |Extension(caller): Extension<Principal>| async move {
        let scopes: Vec<&str> = caller.scopes().iter().map(String::as_str).collect();
        format!("{} {}", caller.client_id().unwrap_or("-"), scopes.join(","))
    };
    let server = Server::builder("protected", "1.0.0")
        .tool(ToolEntry::new("whoami", whoami))
        // A scope the provider never grants: refused with 403, in the token's scheme.
        .tool(ToolEntry::new("purge", || async { "purged" }).scopes(["notes:admin"]))
        .authorization(auth)
        .build()
        .expect("a valid server");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(server.serve_http_with_shutdown(listener, config, async {
        let _ = stopped.await;
    }));
    let host = resource.strip_prefix("http://").and_then(|rest| rest.split('/').next()).expect("an http URL");
    Protected { addr, resource: resource.to_owned(), host: host.to_owned(), _stop: stop }
}

/// A response, its body read.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    async fn of(response: http::Response<Incoming>) -> Answer {
        let (parts, body) = response.into_parts();
        let body = tokio::time::timeout(STUCK, body.collect()).await.expect("a body in time").expect("a body");
        Answer { status: parts.status, headers: parts.headers, body: body.to_bytes() }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The answer to the request with `id`, from a JSON body or an event
    /// stream.
    fn message(&self, id: u64) -> Value {
        let json = self.headers.get("content-type").is_some_and(|t| t == "application/json");
        let messages: Vec<Value> = if json {
            vec![serde_json::from_slice(&self.body).expect("a JSON body")]
        } else {
            let text = self.text();
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str(d.trim()).ok())
                .collect()
        };
        messages
            .into_iter()
            .find(|m| m["id"] == id && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no answer to {id} in {}", self.text()))
    }

    /// What `whoami` answered request `id` with (1 for every 2026-07-28
    /// call here), after checking it went through.
    fn whoami(&self, id: u64) -> String {
        assert_eq!(self.status, StatusCode::OK, "{}", self.text());
        let answer = self.message(id);
        answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text: {answer}")).to_owned()
    }

    /// Every `WWW-Authenticate` value, joined.
    fn challenges(&self) -> String {
        let values: Vec<&str> =
            self.headers.get_all("www-authenticate").iter().map(|v| v.to_str().expect("ASCII")).collect();
        values.join(", ")
    }

    /// The parameters of the challenge of `scheme`, if there is one.
    fn challenge(&self, scheme: &str) -> Option<Vec<(String, String)>> {
        parse_challenges(&self.challenges()).into_iter().find(|(s, _)| s.eq_ignore_ascii_case(scheme)).map(|(_, p)| p)
    }

    /// The `name` parameter of the challenge of `scheme`.
    fn param(&self, scheme: &str, name: &str) -> Option<String> {
        self.challenge(scheme)?.into_iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v)
    }
}

/// The challenges of a `WWW-Authenticate` field (RFC 9110 §11.6.1): each
/// scheme with its `name=value` parameters, quoted values unquoted.
fn parse_challenges(field: &str) -> Vec<(String, Vec<(String, String)>)> {
    // Split at the commas outside quoted strings.
    let mut items = vec![String::new()];
    let (mut quoted, mut escaped) = (false, false);
    for c in field.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                items.push(String::new());
                continue;
            }
            _ => {}
        }
        items.last_mut().expect("an item").push(c);
    }
    let mut challenges: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        // `Scheme name=value` begins a challenge; `name=value` continues one.
        let starts = item.find(' ').is_some_and(|space| !item[..space].contains('='));
        let param = if starts {
            let (scheme, rest) = item.split_once(' ').expect("a space");
            challenges.push((scheme.to_owned(), Vec::new()));
            rest.trim()
        } else {
            item
        };
        if let Some((name, value)) = param.split_once('=')
            && let Some((_, params)) = challenges.last_mut()
        {
            let value = value.trim();
            let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
            params.push((name.trim().to_owned(), value.replace("\\\"", "\"").replace("\\\\", "\\")));
        } else if challenges.is_empty() {
            challenges.push((param.to_owned(), Vec::new()));
        }
    }
    challenges
}

#[test]
fn challenges_are_parsed_with_their_parameters() {
    let parsed = parse_challenges(
        r#"Bearer resource_metadata="http://a/b", DPoP error="invalid_dpop_proof", error_description="htu, \"x\"", algs="ES256 EdDSA""#,
    );
    assert_eq!(parsed.len(), 2, "{parsed:?}");
    assert_eq!(parsed[1].0, "DPoP");
    assert_eq!(parsed[1].1[1], ("error_description".to_owned(), "htu, \"x\"".to_owned()));
    assert_eq!(parsed[1].1[2], ("algs".to_owned(), "ES256 EdDSA".to_owned()));
    assert_eq!(parse_challenges("DPoP algs=\"ES256\"")[0].1, [("algs".to_owned(), "ES256".to_owned())]);
}

/// Refused with 401 and `WWW-Authenticate: DPoP error="<error>"`; an
/// `invalid_dpop_proof` says why (`error_description`) and which
/// algorithms a proof may use (`algs`, RFC 9449 §7.1).
#[track_caller]
fn refused_as(answer: &Answer, error: &str, what: &str) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{what}: {}", answer.text());
    let challenges = answer.challenges();
    assert_eq!(answer.param("DPoP", "error").as_deref(), Some(error), "{what}: {challenges}");
    if error == "invalid_dpop_proof" {
        assert!(answer.param("DPoP", "error_description").is_some(), "{what}: {challenges}");
        let algs = answer.param("DPoP", "algs").unwrap_or_else(|| panic!("{what}: no algs in {challenges}"));
        assert!(algs.split(' ').any(|alg| alg == "ES256"), "{what}: {challenges}");
    }
}

/// Refused with 401 and a `DPoP` challenge naming an error, whichever.
#[track_caller]
fn refused_with_dpop_challenge(answer: &Answer, what: &str) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{what}: {}", answer.text());
    let error = answer.param("DPoP", "error");
    assert!(
        matches!(error.as_deref(), Some("invalid_dpop_proof" | "invalid_token")),
        "{what}: {}",
        answer.challenges()
    );
}

/// Refused with 401 and `error="invalid_token"` (in whichever challenge).
#[track_caller]
fn refused_as_invalid_token(answer: &Answer, what: &str) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{what}: {}", answer.text());
    let challenges = answer.challenges();
    let error = answer.param("DPoP", "error").or_else(|| answer.param("Bearer", "error"));
    assert_eq!(error.as_deref(), Some("invalid_token"), "{what}: {challenges}");
}

/// A 2026-07-28 `tools/call` of `whoami`, request `id`.
fn stateless_whoami(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "whoami", "arguments": {}, "_meta": stateless_meta(json!({})),
    }})
}

/// A 2025-11-25 `tools/call` of `whoami`, request `id`.
fn session_whoami(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}})
}

/// One request to `server` on a connection of its own, `Host` its own,
/// with the headers of the era `body` is of and every one of `extra`
/// added (a name given twice is sent twice), its body unread.
async fn send(
    server: &Protected,
    method: Method,
    session: Option<&str>,
    body: Option<&Value>,
    extra: &[(&str, String)],
) -> http::Response<Incoming> {
    let stream = tokio::net::TcpStream::connect(server.addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", &server.host)
        .header("accept", "application/json, text/event-stream");
    match body.and_then(|b| b["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion")) {
        Some(version) => {
            let body = body.expect("a body");
            request = request
                .header("mcp-protocol-version", version.as_str().expect("a version"))
                .header("mcp-method", body["method"].as_str().expect("a method"));
            if let Some(name) = body["params"]["name"].as_str() {
                request = request.header("mcp-name", name);
            }
        }
        None => request = request.header("mcp-protocol-version", "2025-11-25"),
    }
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    for (name, value) in extra {
        request = request.header(*name, value);
    }
    let body = Full::new(Bytes::from(body.map(Value::to_string).unwrap_or_default()));
    let request = request.body(body).expect("a request");
    tokio::time::timeout(STUCK, sender.send_request(request)).await.expect("an answer in time").expect("sent")
}

/// A 2026-07-28 call of `whoami` with exactly the `extra` headers.
async fn call_with(server: &Protected, extra: &[(&str, String)]) -> Answer {
    Answer::of(send(server, Method::POST, None, Some(&stateless_whoami(1)), extra).await).await
}

/// `Authorization: DPoP <token>` and `DPoP: <proof>`.
fn dpop_headers(token: &str, proof: String) -> Vec<(&'static str, String)> {
    vec![("authorization", format!("DPoP {token}")), ("dpop", proof)]
}

/// `Authorization: Bearer <token>`.
fn bearer(token: &str) -> Vec<(&'static str, String)> {
    vec![("authorization", format!("Bearer {token}"))]
}

/// A 2026-07-28 call of `whoami` with `token` and a fresh proof by `key`.
async fn call(server: &Protected, key: &ProofKey, token: &str) -> Answer {
    call_with(server, &dpop_headers(token, key.proof("POST", &server.resource, Some(token), None))).await
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_bound_token_with_a_fresh_proof_on_each_request_reaches_the_tool() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new())).await;
    for client in ["es256-client", "rs256-client", "eddsa-client"] {
        let key = ProofKey::generate();
        let token = provider.dpop_token(client, &server.resource, &key).await;
        let claims = dpop::claims_of(&token);
        assert_eq!(claims["cnf"]["jkt"], key.thumbprint(), "the provider bound the token to the key: {claims}");
        for _ in 0..3 {
            assert_eq!(call(&server, &key, &token).await.whoami(1), format!("{client} notes:read"));
        }
    }
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn proofs_that_do_not_fit_the_request_are_refused_as_invalid_dpop_proofs() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new())).await;
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    // A valid request first: what follows is refused for its proof alone,
    // the token verified and cached by then.
    call(&server, &key, &token).await.whoami(1);

    let htu = server.resource.clone();
    let valid = || dpop::claims("POST", &htu, Some(&token), None);
    let with = |name: &str, value: Value| {
        let mut claims = valid();
        claims[name] = value;
        key.sign(&key.header(), &claims)
    };
    let without = |name: &str| {
        let mut claims = valid();
        claims.as_object_mut().expect("an object").remove(name);
        key.sign(&key.header(), &claims)
    };
    let header_with = |name: &str, value: Value| {
        let mut header = key.header();
        header[name] = value;
        key.sign(&header, &valid())
    };
    let port = server.addr.port();
    let other_token = provider.dpop_token("es256-client", &server.resource, &key).await;
    let tampered = {
        let proof = key.proof("POST", &htu, Some(&token), None);
        let parts: Vec<&str> = proof.split('.').collect();
        let mut claims = dpop::claims_of(&proof);
        claims["htu"] = json!(format!("http://127.0.0.1:{port}/mcp#changed"));
        let claims = base64_url(claims.to_string().as_bytes());
        format!("{}.{claims}.{}", parts[0], parts[2])
    };
    let unsigned = {
        let mut header = key.header();
        header["alg"] = json!("none");
        let proof = key.sign(&header, &valid());
        let (input, _) = proof.rsplit_once('.').expect("a JWS");
        format!("{input}.")
    };
    let hmac = header_with("alg", json!("HS256"));
    let mut private_jwk = key.jwk();
    private_jwk["d"] = json!(base64_url(&[7; 32]));
    let cases: Vec<(&str, String)> = vec![
        ("another path in htu", with("htu", json!(format!("http://127.0.0.1:{port}/other")))),
        ("another port in htu", with("htu", json!(format!("http://127.0.0.1:{}/mcp", port.wrapping_add(1))))),
        ("another scheme in htu", with("htu", json!(format!("https://127.0.0.1:{port}/mcp")))),
        ("another host in htu", with("htu", json!(format!("http://mcp.example.test:{port}/mcp")))),
        ("no htu", without("htu")),
        ("htm GET for a POST", with("htm", json!("GET"))),
        ("no htm", without("htm")),
        ("iat ten minutes ago", with("iat", json!(dpop::now() - 600))),
        ("iat ten minutes ahead", with("iat", json!(dpop::now() + 600))),
        ("iat not a number", with("iat", json!(dpop::now().to_string()))),
        ("no iat", without("iat")),
        ("no jti", without("jti")),
        ("ath of another token", with("ath", json!(dpop::ath(&other_token)))),
        ("ath of nothing", with("ath", json!(dpop::ath("")))),
        ("no ath", without("ath")),
        ("typ JWT", header_with("typ", json!("JWT"))),
        ("no typ", {
            let mut header = key.header();
            header.as_object_mut().expect("an object").remove("typ");
            key.sign(&header, &valid())
        }),
        ("no jwk", {
            let mut header = key.header();
            header.as_object_mut().expect("an object").remove("jwk");
            key.sign(&header, &valid())
        }),
        ("a private key in jwk", header_with("jwk", private_jwk)),
        ("claims changed after signing", tampered),
        ("alg none, unsigned", unsigned),
        ("alg HS256", hmac),
        ("not a JWT", "not.a.proof".to_owned()),
    ];
    for (what, proof) in cases {
        refused_as(&call_with(&server, &dpop_headers(&token, proof)).await, "invalid_dpop_proof", what);
    }

    // No proof, and two proofs (each valid on its own).
    let no_proof = [("authorization", format!("DPoP {token}"))];
    refused_as(&call_with(&server, &no_proof).await, "invalid_dpop_proof", "no DPoP header");
    let mut two = dpop_headers(&token, key.proof("POST", &htu, Some(&token), None));
    two.push(("dpop", key.proof("POST", &htu, Some(&token), None)));
    refused_as(&call_with(&server, &two).await, "invalid_dpop_proof", "two DPoP headers");

    // The proofs refused were for nothing: the token still works.
    call(&server, &key, &token).await.whoami(1);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_proof_is_accepted_once() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new())).await;
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    let proof = key.proof("POST", &server.resource, Some(&token), None);
    call_with(&server, &dpop_headers(&token, proof.clone())).await.whoami(1);
    refused_as(&call_with(&server, &dpop_headers(&token, proof.clone())).await, "invalid_dpop_proof", "replayed");
    // A new proof reusing the id, made a second later, is the same proof.
    let mut claims = dpop::claims_of(&proof);
    claims["iat"] = json!(claims["iat"].as_u64().expect("iat") + 1);
    let reused = key.sign(&key.header(), &claims);
    refused_as(&call_with(&server, &dpop_headers(&token, reused)).await, "invalid_dpop_proof", "jti reused");
    // Sent at once, a proof is still accepted once only.
    let proof = key.proof("POST", &server.resource, Some(&token), None);
    let headers = dpop_headers(&token, proof);
    let answers = futures_util::future::join_all((0..8).map(|_| call_with(&server, &headers))).await;
    let served = answers.iter().filter(|a| a.status == StatusCode::OK).count();
    assert_eq!(served, 1, "one of eight concurrent copies served");
    for answer in answers.iter().filter(|a| a.status != StatusCode::OK) {
        refused_as(answer, "invalid_dpop_proof", "a concurrent copy");
    }
    call(&server, &key, &token).await.whoami(1);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_proof_older_than_max_age_is_refused() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new().max_age(Duration::from_secs(30)))).await;
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    let made = |age: i64| {
        let mut claims = dpop::claims("POST", &server.resource, Some(&token), None);
        claims["iat"] = json!(dpop::now().checked_add_signed(-age).expect("a time"));
        key.sign(&key.header(), &claims)
    };
    for age in [60, -60, 300] {
        let answer = call_with(&server, &dpop_headers(&token, made(age))).await;
        refused_as(&answer, "invalid_dpop_proof", &format!("iat {age}s ago, 30s allowed"));
    }
    for age in [5, -5] {
        call_with(&server, &dpop_headers(&token, made(age))).await.whoami(1);
    }
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_proof_by_a_key_the_token_is_not_bound_to_is_refused() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new())).await;
    let (key, thief) = (ProofKey::generate(), ProofKey::generate());
    assert_ne!(key.thumbprint(), thief.thumbprint());
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    // The token's first use, then again once a valid request verified it.
    refused_with_dpop_challenge(&call(&server, &thief, &token).await, "another key, the token unseen");
    call(&server, &key, &token).await.whoami(1);
    refused_with_dpop_challenge(&call(&server, &thief, &token).await, "another key, the token verified");
    // Another key, with its `jwk` swapped into the header of the right
    // key's proof: the signature does not verify.
    let mut header = key.header();
    header["jwk"] = thief.jwk();
    let swapped = key.sign(&header, &dpop::claims("POST", &server.resource, Some(&token), None));
    refused_with_dpop_challenge(&call_with(&server, &dpop_headers(&token, swapped)).await, "a swapped jwk");
    // An unbound token with the DPoP scheme binds nothing: refused too.
    let unbound = provider.token("es256-client", &server.resource).await;
    assert!(dpop::claims_of(&unbound).get("cnf").is_none(), "an unbound token");
    refused_with_dpop_challenge(&call(&server, &key, &unbound).await, "an unbound token as DPoP");
    call(&server, &key, &token).await.whoami(1);
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn with_nonces_a_proof_must_carry_one_the_server_gave() {
    let provider = oidc::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let resource = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let nonces = || Dpop::new().nonces(NONCE_SECRET);
    let server = serve_on(listener, &resource, &provider.issuer, Some(nonces()), HttpConfig::default());
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &resource, &key).await;

    let without = call(&server, &key, &token).await;
    refused_as(&without, "use_dpop_nonce", "a proof without a nonce");
    let nonce = without.headers.get("dpop-nonce").expect("a DPoP-Nonce").to_str().expect("ASCII").to_owned();
    assert!(!nonce.is_empty());
    let with_nonce = |nonce: &str| dpop_headers(&token, key.proof("POST", &resource, Some(&token), Some(nonce)));
    call_with(&server, &with_nonce(&nonce)).await.whoami(1);
    // The nonce serves again within its time, each time with a new proof.
    call_with(&server, &with_nonce(&nonce)).await.whoami(1);

    // A nonce the server never gave: a new one offered.
    let made_up = call_with(&server, &with_nonce("made-up")).await;
    refused_as(&made_up, "use_dpop_nonce", "a made-up nonce");
    assert!(made_up.headers.contains_key("dpop-nonce"), "a fresh nonce offered");

    // A replica with the same secret takes the nonce; one with another
    // secret does not.
    let twin = serve_on(
        tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind"),
        &resource,
        &provider.issuer,
        Some(nonces()),
        HttpConfig::default().public_url(&resource),
    );
    let other = serve_on(
        tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind"),
        &resource,
        &provider.issuer,
        Some(Dpop::new().nonces(b"another secret, of more than thirty-two bytes too")),
        HttpConfig::default().public_url(&resource),
    );
    call_with(&twin, &with_nonce(&nonce)).await.whoami(1);
    refused_as(&call_with(&other, &with_nonce(&nonce)).await, "use_dpop_nonce", "another secret's nonce");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_bound_token_is_never_accepted_as_a_bearer_token() {
    let provider = oidc::start().await;
    let plain = serve(&provider.issuer, None).await;
    for (server, what) in [
        (serve(&provider.issuer, Some(Dpop::new())).await, "DPoP accepted"),
        (serve(&provider.issuer, Some(Dpop::new().required())).await, "DPoP required"),
    ] {
        let key = ProofKey::generate();
        let token = provider.dpop_token("es256-client", &server.resource, &key).await;
        refused_as_invalid_token(&call_with(&server, &bearer(&token)).await, &format!("{what}: first use"));
        call(&server, &key, &token).await.whoami(1);
        // Verified and cached now: still not a bearer token.
        refused_as_invalid_token(&call_with(&server, &bearer(&token)).await, &format!("{what}: once verified"));
        let second = provider.dpop_token("es256-client", &server.resource, &key).await;
        call(&server, &key, &second).await.whoami(1);
        refused_as_invalid_token(&call_with(&server, &bearer(&second)).await, &format!("{what}: second token"));
        // Not with its proof either: the scheme says bearer.
        let proof = key.proof("POST", &server.resource, Some(&token), None);
        let mut headers = bearer(&token);
        headers.push(("dpop", proof));
        let answer = call_with(&server, &headers).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{what}: Bearer scheme with a proof");
    }
    // Nor on a server that knows nothing of DPoP.
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &plain.resource, &key).await;
    refused_as_invalid_token(&call_with(&plain, &bearer(&token)).await, "a server without DPoP");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn bearer_tokens_are_accepted_unless_dpop_is_required() {
    let provider = oidc::start().await;
    let optional = serve(&provider.issuer, Some(Dpop::new())).await;
    let token = provider.token("es256-client", &optional.resource).await;
    assert!(dpop::claims_of(&token).get("cnf").is_none(), "an unbound token");
    assert_eq!(call_with(&optional, &bearer(&token)).await.whoami(1), "es256-client notes:read");
    assert_eq!(call_with(&optional, &bearer(&token)).await.whoami(1), "es256-client notes:read");

    let required = serve(&provider.issuer, Some(Dpop::new().required())).await;
    let token = provider.token("es256-client", &required.resource).await;
    let answer = call_with(&required, &bearer(&token)).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.text());
    assert!(answer.challenge("DPoP").is_some(), "a DPoP challenge: {}", answer.challenges());
    // Without a token at all: challenged toward DPoP.
    let answer = call_with(&required, &[]).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    let algs = answer.param("DPoP", "algs").unwrap_or_else(|| panic!("algs: {}", answer.challenges()));
    assert!(algs.split(' ').any(|alg| alg == "ES256"), "{}", answer.challenges());
    // A bound token with its proof is served.
    let key = ProofKey::generate();
    let bound = provider.dpop_token("es256-client", &required.resource, &key).await;
    assert_eq!(call(&required, &key, &bound).await.whoami(1), "es256-client notes:read");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn the_metadata_tells_the_algorithms_and_whether_dpop_is_required() {
    let provider = oidc::start().await;
    let document = |server: &Protected| {
        let addr = server.addr;
        async move {
            let path = "/.well-known/oauth-protected-resource/mcp";
            let (status, _, body) = oidc::request(addr, Method::GET, path, &[], None).await;
            assert_eq!(status, StatusCode::OK);
            serde_json::from_slice::<Value>(&body).expect("JSON")
        }
    };
    let algs = |document: &Value| -> Vec<String> {
        let algs = document["dpop_signing_alg_values_supported"].as_array().unwrap_or_else(|| panic!("{document}"));
        algs.iter().map(|alg| alg.as_str().expect("a name").to_owned()).collect()
    };

    let optional = document(&serve(&provider.issuer, Some(Dpop::new())).await).await;
    assert!(algs(&optional).iter().any(|alg| alg == "ES256"), "{optional}");
    assert!(!algs(&optional).iter().any(|alg| alg == "none" || alg.starts_with("HS")), "{optional}");
    let bound_required = optional.get("dpop_bound_access_tokens_required");
    assert!(bound_required.is_none_or(|required| *required == json!(false)), "{optional}");

    let required = document(&serve(&provider.issuer, Some(Dpop::new().required())).await).await;
    assert!(algs(&required).iter().any(|alg| alg == "ES256"), "{required}");
    assert_eq!(required["dpop_bound_access_tokens_required"], json!(true), "{required}");

    let without = document(&serve(&provider.issuer, None).await).await;
    assert!(without.get("dpop_signing_alg_values_supported").is_none(), "{without}");
    assert!(without.get("dpop_bound_access_tokens_required").is_none(), "{without}");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_2025_session_takes_a_fresh_proof_on_every_request() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new())).await;
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    let proof = |method: &str| dpop_headers(&token, key.proof(method, &server.resource, Some(&token), None));

    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1.0.0"},
    }});
    let init_proof = proof("POST");
    let response = send(&server, Method::POST, None, Some(&initialize), &init_proof).await;
    let answer = Answer::of(response).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    let session = answer.headers["mcp-session-id"].to_str().expect("an id").to_owned();
    let session = Some(session.as_str());

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = Answer::of(send(&server, Method::POST, session, Some(&initialized), &proof("POST")).await).await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.text());
    let answer = Answer::of(send(&server, Method::POST, session, Some(&session_whoami(1)), &proof("POST")).await).await;
    assert_eq!(answer.whoami(1), "es256-client notes:read");

    // Within the session too, a proof serves once, fits its request and
    // is there; the bound token is no bearer token.
    let post = |extra: Vec<(&'static str, String)>, id: u64| {
        let body = session_whoami(id);
        let server = &server;
        async move { Answer::of(send(server, Method::POST, session, Some(&body), &extra).await).await }
    };
    refused_as(&post(init_proof, 2).await, "invalid_dpop_proof", "initialize's proof again");
    refused_as(&post(proof("GET"), 3).await, "invalid_dpop_proof", "a GET's proof on a POST");
    let no_proof = vec![("authorization", format!("DPoP {token}"))];
    refused_as(&post(no_proof, 4).await, "invalid_dpop_proof", "no proof");
    refused_as_invalid_token(&post(bearer(&token), 5).await, "the bound token as a bearer token");
    assert_eq!(post(proof("POST"), 6).await.whoami(6), "es256-client notes:read");

    // The standalone stream (GET) and the session's end (DELETE), each
    // with a proof of its method.
    let stream = send(&server, Method::GET, session, None, &proof("POST")).await;
    refused_as(&Answer::of(stream).await, "invalid_dpop_proof", "a POST's proof on a GET");
    let stream = send(&server, Method::GET, session, None, &proof("GET")).await;
    assert_eq!(stream.status(), StatusCode::OK, "the standalone stream");
    drop(stream);
    let ended = Answer::of(send(&server, Method::DELETE, session, None, &proof("DELETE")).await).await;
    assert_eq!(ended.status, StatusCode::NO_CONTENT, "{}", ended.text());
    let gone = post(proof("POST"), 7).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND, "the session is gone");
}

/// Two replicas behind the public URL `http://mcp.test/mcp`, their proof
/// ids remembered in `stores`: a proof one accepted is refused by the
/// other.
async fn a_proof_cannot_be_replayed_across_replicas(provider: &oidc::Provider, stores: [Dpop; 2]) {
    const PUBLIC: &str = "http://mcp.test/mcp";
    let replica = |dpop: Dpop| async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        serve_on(listener, PUBLIC, &provider.issuer, Some(dpop), HttpConfig::default().public_url(PUBLIC))
    };
    let [a, b] = stores;
    let (a, b) = (replica(a).await, replica(b).await);
    assert_eq!((a.host.as_str(), b.host.as_str()), ("mcp.test", "mcp.test"));
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", PUBLIC, &key).await;

    let proof = dpop_headers(&token, key.proof("POST", PUBLIC, Some(&token), None));
    assert_eq!(call_with(&a, &proof).await.whoami(1), "es256-client notes:read");
    refused_as(&call_with(&b, &proof).await, "invalid_dpop_proof", "replayed to the other replica");
    refused_as(&call_with(&a, &proof).await, "invalid_dpop_proof", "replayed to the same replica");
    // Both take new proofs.
    assert_eq!(call(&b, &key, &token).await.whoami(1), "es256-client notes:read");
    assert_eq!(call(&a, &key, &token).await.whoami(1), "es256-client notes:read");
    // And the other way round.
    let proof = dpop_headers(&token, key.proof("POST", PUBLIC, Some(&token), None));
    call_with(&b, &proof).await.whoami(1);
    refused_as(&call_with(&a, &proof).await, "invalid_dpop_proof", "replayed from b to a");
}

#[cfg_attr(
    any(no_oidc_provider, no_redis_server),
    ignore = "needs oidc-provider (.ci/install.sh) and redis-server on the PATH"
)]
#[tokio::test]
async fn replicas_sharing_a_redis_replay_store_refuse_a_proof_the_other_accepted() {
    let (provider, redis) = (oidc::start().await, mcp_tests::redis::start().await);
    let store = || async {
        let store = mcp_runtime::redis::RedisReplayStore::connect(&redis.url, "mcp:dpop").await.expect("connected");
        Dpop::new().replay_store(store)
    };
    a_proof_cannot_be_replayed_across_replicas(&provider, [store().await, store().await]).await;
}

/// A caller past its share of the proofs remembered in memory is answered
/// 503 with `Retry-After`, whichever of its keys it proves, and another
/// caller is still served.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_caller_past_its_share_of_remembered_proofs_is_refused_and_no_other() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new().caller_share(2))).await;
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    for _ in 0..2 {
        let answer = call(&server, &key, &token).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    }
    let refused = call(&server, &key, &token).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE, "{}", refused.text());
    assert!(refused.headers.contains_key("retry-after"), "{:?}", refused.headers);
    // Another key of the same client is the same caller.
    let other_key = ProofKey::generate();
    let same_caller = provider.dpop_token("es256-client", &server.resource, &other_key).await;
    assert_eq!(call(&server, &other_key, &same_caller).await.status, StatusCode::SERVICE_UNAVAILABLE);
    // Another client is another caller.
    let key = ProofKey::generate();
    let token = provider.dpop_token("eddsa-client", &server.resource, &key).await;
    let answer = call(&server, &key, &token).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
}

/// The Redis store gives each caller its share of a window: past it, that
/// caller's new proofs are refused and another's are not, and a replay is
/// still told as one.
#[cfg_attr(no_redis_server, ignore = "redis-server is not on PATH: apt-get install redis-server")]
#[tokio::test]
async fn the_redis_replay_store_gives_each_caller_its_share() {
    let redis = mcp_tests::redis::start().await;
    let store = mcp_runtime::redis::RedisReplayStore::connect(&redis.url, "mcp:share").await.expect("connected");
    let store = store.caller_share(2);
    // A window of a year: the calls below cannot straddle two.
    let ttl = Duration::from_secs(365 * 24 * 3600);
    assert_eq!(store.first_use("flood", "1", ttl).await, Ok(true));
    assert_eq!(store.first_use("flood", "2", ttl).await, Ok(true));
    assert!(store.first_use("flood", "3", ttl).await.is_err(), "its share is used up");
    assert_eq!(store.first_use("flood", "1", ttl).await, Ok(false), "a replay is still told as one");
    assert_eq!(store.first_use("other", "3", ttl).await, Ok(true), "another caller is not refused");
}

/// A replay store of the test's own: one set for all the replicas given a
/// clone, or out of reach; the caller of each proof, in order.
#[derive(Clone, Default)]
struct SharedStore {
    seen: Arc<Mutex<std::collections::HashSet<String>>>,
    callers: Arc<Mutex<Vec<String>>>,
    broken: bool,
}

impl ReplayStore for SharedStore {
    fn first_use<'a>(
        &'a self,
        caller: &'a str,
        key: &'a str,
        _ttl: Duration,
    ) -> Pin<Box<dyn Future<Output = Result<bool, String>> + Send + 'a>> {
        self.callers.lock().expect("not poisoned").push(caller.to_owned());
        let answer = if self.broken {
            Err("the store is out of reach".to_owned())
        } else {
            Ok(self.seen.lock().expect("not poisoned").insert(key.to_owned()))
        };
        Box::pin(std::future::ready(answer))
    }
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn replicas_sharing_a_replay_store_of_their_own_refuse_a_proof_the_other_accepted() {
    let provider = oidc::start().await;
    let store = SharedStore::default();
    let stores = [Dpop::new().replay_store(store.clone()), Dpop::new().replay_store(store.clone())];
    a_proof_cannot_be_replayed_across_replicas(&provider, stores).await;
    assert!(!store.seen.lock().expect("not poisoned").is_empty(), "the proofs went through the store");
}

/// The replay store is told who presented each proof (the memory store
/// bounds each caller's share by it): one caller for every token of one
/// client, whatever key it is bound to, and another for another client.
#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn the_replay_store_is_told_who_presented_each_proof() {
    let provider = oidc::start().await;
    let store = SharedStore::default();
    let server = serve(&provider.issuer, Some(Dpop::new().replay_store(store.clone()))).await;
    for client in ["es256-client", "es256-client", "eddsa-client"] {
        let key = ProofKey::generate();
        let token = provider.dpop_token(client, &server.resource, &key).await;
        let answer = call(&server, &key, &token).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    }
    let callers = store.callers.lock().expect("not poisoned").clone();
    assert_eq!(callers.len(), 3, "{callers:?}");
    assert!(callers[0].len() >= 16, "a digest: {callers:?}");
    assert_eq!(callers[0], callers[1], "one client with two keys is one caller");
    assert_ne!(callers[0], callers[2], "another client is another caller");
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_replay_store_out_of_reach_means_503_never_an_accepted_proof() {
    let provider = oidc::start().await;
    let broken = SharedStore { broken: true, ..SharedStore::default() };
    let server = serve(&provider.issuer, Some(Dpop::new().replay_store(broken))).await;
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    let answer = call(&server, &key, &token).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE, "{}", answer.text());
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn htu_is_compared_as_rfc_3986_normalizes() {
    const PUBLIC: &str = "http://mcp.test/mcp";
    let provider = oidc::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let config = HttpConfig::default().public_url(PUBLIC);
    let server = serve_on(listener, PUBLIC, &provider.issuer, Some(Dpop::new()), config);
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", PUBLIC, &key).await;
    for htu in ["http://mcp.test/mcp", "HTTP://MCP.test/mcp", "http://mcp.test:80/mcp"] {
        let proof = key.proof("POST", htu, Some(&token), None);
        let answer = call_with(&server, &dpop_headers(&token, proof)).await;
        assert_eq!(answer.status, StatusCode::OK, "htu {htu}: {}", answer.challenges());
    }
    for htu in ["http://mcp.test/MCP", "https://mcp.test/mcp", "http://mcp.test:8080/mcp", "http://other.test/mcp"] {
        let proof = key.proof("POST", htu, Some(&token), None);
        refused_as(&call_with(&server, &dpop_headers(&token, proof)).await, "invalid_dpop_proof", htu);
    }
}

fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg_attr(no_oidc_provider, ignore = "oidc-provider is not installed: run .ci/install.sh (needs node and npm)")]
#[tokio::test]
async fn a_dpop_request_short_of_a_scope_is_challenged_in_the_dpop_scheme() {
    let provider = oidc::start().await;
    let server = serve(&provider.issuer, Some(Dpop::new())).await;
    let key = ProofKey::generate();
    let token = provider.dpop_token("es256-client", &server.resource, &key).await;
    let purge = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "purge", "arguments": {}, "_meta": stateless_meta(json!({})),
    }});
    let proof = key.proof("POST", &server.resource, Some(&token), None);
    let answer = Answer::of(send(&server, Method::POST, None, Some(&purge), &dpop_headers(&token, proof)).await).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text());
    assert_eq!(answer.param("DPoP", "error").as_deref(), Some("insufficient_scope"), "{}", answer.challenges());
    assert_eq!(answer.param("DPoP", "scope").as_deref(), Some("notes:admin"));
    // A bearer token's refusal stays in the bearer scheme.
    let bearer_token = provider.token("es256-client", &server.resource).await;
    let answer = Answer::of(send(&server, Method::POST, None, Some(&purge), &bearer(&bearer_token)).await).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(answer.param("Bearer", "error").as_deref(), Some("insufficient_scope"), "{}", answer.challenges());
}
