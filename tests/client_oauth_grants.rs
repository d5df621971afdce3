//! OAuth in the client (`mcp_runtime::client::oauth`) beyond a person's
//! authorization code: the grants of a program acting for itself — client
//! credentials with a secret or a private key, a workload's platform token,
//! enterprise-managed authorization through an identity provider — and
//! DPoP, tokens bound to a key of the client's, with the nonces either
//! server asks its proofs to carry.
//!
//! As in `client_oauth.rs`, one scripted listener on loopback plays both the
//! MCP server (`POST /mcp`) and its authorization server, so that every
//! request of a flow is the test's to answer and to see; a second one plays
//! the enterprise's identity provider. The scripted servers answer by the
//! grant they are asked for and check little: what each request carried is
//! asserted from their logs afterwards, so that a wrong request shows as
//! what it was rather than as a refusal.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use mcp_runtime::client::oauth::{ClientCredentials, EnterpriseLogin, OAuth};
use mcp_runtime::client::{Client, Error, Revision};
use mcp_tests::scripted::{Log, Received, http, ok, query_of, serve_on};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::net::TcpListener;

/// Where the person is sent back to: never fetched, only read.
const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";

/// The grant of an assertion (RFC 7523): a workload's token, an identity
/// assertion grant.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// What a `client_assertion` is (RFC 7523 §2.2).
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The token exchange at the identity provider (RFC 8693) and what it trades.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// The bearer tokens the scripted authorization server issues, one per
/// grant, so that the token an MCP request carries tells which grant got it.
const BEARER_TOKENS: [&str; 5] = ["cc-1", "pk-1", "wl-1", "ent-1", "t-1"];

/// The claims of the DPoP proof `request` carries, if any reads.
fn proof_claims(request: &Received) -> Option<Value> {
    jws_part(request.header("dpop")?, 1)
}

/// How the scripted server departs from plain bearer tokens.
#[derive(Clone, Default)]
struct Script {
    /// The authorization server says it takes DPoP proofs (ES256), and
    /// trades the code for a DPoP-bound token, `d-1`.
    dpop: bool,
    /// The token endpoint refuses a proof without the nonce `as-n1`
    /// (`use_dpop_nonce`), as RFC 9449 §8 has it.
    as_nonce: bool,
    /// The MCP endpoint refuses a proof without the nonce `rs-n1`
    /// (`use_dpop_nonce`), as RFC 9449 §9 has it.
    rs_nonce: bool,
    /// The token endpoint refuses a workload's assertion (`invalid_grant`).
    refuse_workload: bool,
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

    /// Every request as `METHOD /path`, in order.
    fn paths(&self) -> Vec<String> {
        self.received().iter().map(|r| format!("{} {}", r.method, r.path)).collect()
    }

    fn token_endpoint(&self) -> String {
        format!("{}/token", self.origin)
    }
}

/// What one scripted server knows while it answers.
struct Shared {
    script: Script,
    origin: String,
}

/// A server on loopback answering as `script` says. Bound before it
/// returns: ready.
async fn serve(script: Script) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let origin = format!("http://{}", listener.local_addr().expect("an address"));
    let shared = Arc::new(Shared { script, origin: origin.clone() });
    let log = serve_on(listener, move |request| answer(&shared, request));
    Server { url: format!("{origin}/mcp"), origin, log }
}

/// An OAuth error of the token endpoint (RFC 6749 §5.2).
fn oauth_error(error: &str, extra: &str) -> String {
    http("400 Bad Request", extra, &json!({"error": error}).to_string())
}

/// The scripted server's answer to `request`: the MCP endpoint, its
/// authorization server's, or (on the identity provider's listener) the
/// identity provider's token endpoint.
fn answer(shared: &Shared, request: &Received) -> String {
    let (script, origin) = (&shared.script, shared.origin.as_str());
    match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/mcp") => mcp(shared, request),
        ("GET", "/.well-known/oauth-protected-resource/mcp") => ok(&json!({
            "resource": format!("{origin}/mcp"),
            "authorization_servers": [origin],
        })),
        ("GET", "/.well-known/oauth-authorization-server") => {
            let mut metadata = json!({
                "issuer": origin,
                "authorization_endpoint": format!("{origin}/authorize"),
                "token_endpoint": format!("{origin}/token"),
                "registration_endpoint": format!("{origin}/register"),
                "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "client_credentials", JWT_BEARER],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt", "none"],
            });
            if script.dpop {
                metadata["dpop_signing_alg_values_supported"] = json!(["ES256"]);
            }
            ok(&metadata)
        }
        ("POST", "/register") => http("201 Created", "", &json!({"client_id": "c-1"}).to_string()),
        ("POST", "/token") => token(script, request),
        // The identity provider's: an identity assertion grant for whatever
        // it is asked (what was asked is the test's to check).
        ("POST", "/idp/token") => ok(&json!({
            "access_token": "jag-1",
            "issued_token_type": ID_JAG,
            "token_type": "N_A",
        })),
        _ => http("404 Not Found", "", ""),
    }
}

/// The MCP endpoint: a result for a token it issued (a DPoP-bound one only
/// with a proof, and the nonce when it asks for one), a challenge otherwise.
fn mcp(shared: &Shared, request: &Received) -> String {
    let metadata = format!("resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"", shared.origin);
    let unauthorized = http("401 Unauthorized", &format!("www-authenticate: Bearer {metadata}\r\n"), "");
    let valid = match request.header("authorization").and_then(|value| value.split_once(' ')) {
        Some(("Bearer", token)) => BEARER_TOKENS.contains(&token),
        Some(("DPoP", "d-1")) => match proof_claims(request) {
            None => false,
            Some(claims) if shared.script.rs_nonce && claims["nonce"] != "rs-n1" => {
                return http(
                    "401 Unauthorized",
                    "www-authenticate: DPoP error=\"use_dpop_nonce\", error_description=\"a nonce is needed\"\r\n\
                     dpop-nonce: rs-n1\r\n",
                    "",
                );
            }
            Some(_) => true,
        },
        _ => false,
    };
    if !valid {
        return unauthorized;
    }
    let message: Value = serde_json::from_str(&request.body).expect("a JSON-RPC request");
    ok(&json!({"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete", "tools": []}}))
}

/// The token endpoint: a token of its own for each grant.
fn token(script: &Script, request: &Received) -> String {
    if script.as_nonce && proof_claims(request).is_none_or(|claims| claims["nonce"] != "as-n1") {
        return oauth_error("use_dpop_nonce", "dpop-nonce: as-n1\r\n");
    }
    let form = request.form();
    let field = |name: &str| form.get(name).map(String::as_str);
    let bearer = |token: &str| ok(&json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600}));
    match (field("grant_type"), field("assertion")) {
        (Some("client_credentials"), _) if form.contains_key("client_assertion") => bearer("pk-1"),
        (Some("client_credentials"), _) => bearer("cc-1"),
        (Some(JWT_BEARER), Some("jag-1")) => bearer("ent-1"),
        (Some(JWT_BEARER), Some(_)) if script.refuse_workload => oauth_error("invalid_grant", ""),
        (Some(JWT_BEARER), Some(_)) => bearer("wl-1"),
        (Some("authorization_code"), _) if field("code") == Some("c1") && script.dpop => {
            ok(&json!({"access_token": "d-1", "token_type": "DPoP"}))
        }
        (Some("authorization_code"), _) if field("code") == Some("c1") => bearer("t-1"),
        _ => oauth_error("invalid_grant", ""),
    }
}

/// Part `at` of a JWS (0 its header, 1 its claims), read as JSON.
fn jws_part(jws: &str, at: usize) -> Option<Value> {
    let text = jws.split('.').nth(at)?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).ok()?).ok()
}

/// Whether `jws` is signed with ES256 by the P-256 key whose uncompressed
/// point (0x04, x, y) is `point`. No JOSE crate is at hand here: ring's
/// verifier is, through rustls, which takes ECDSA signatures in ASN.1 DER
/// rather than the fixed-size `r || s` of JWS (RFC 7518 §3.4).
fn signed_by(jws: &str, point: &[u8]) -> bool {
    use rustls::pki_types::alg_id;
    let Some((signed, signature)) = jws.rsplit_once('.') else { return false };
    let Ok(signature) = URL_SAFE_NO_PAD.decode(signature) else { return false };
    if signature.len() != 64 {
        return false;
    }
    let provider = rustls::crypto::ring::default_provider();
    let es256 = provider
        .signature_verification_algorithms
        .all
        .iter()
        .find(|a| a.public_key_alg_id() == alg_id::ECDSA_P256 && a.signature_alg_id() == alg_id::ECDSA_SHA256)
        .expect("ECDSA P-256 SHA-256 among rustls's algorithms");
    es256.verify_signature(point, signed.as_bytes(), &der_signature(&signature)).is_ok()
}

/// A fixed-size ECDSA P-256 signature (`r || s`) as the DER `SEQUENCE` of
/// two `INTEGER`s: each without its leading zeros, and with one zero where
/// its first bit would read as a sign.
fn der_signature(fixed: &[u8]) -> Vec<u8> {
    let integer = |half: &[u8]| {
        let start = half.iter().position(|&b| b != 0).unwrap_or(half.len() - 1);
        let digits = &half[start..];
        let pad = digits[0] & 0x80 != 0;
        let mut out = vec![0x02, (digits.len() + usize::from(pad)) as u8];
        if pad {
            out.push(0);
        }
        out.extend_from_slice(digits);
        out
    };
    let body = [integer(&fixed[..32]), integer(&fixed[32..])].concat();
    // At most 70 bytes: a one-byte length.
    [vec![0x30, body.len() as u8], body].concat()
}

/// A DPoP proof, checked as RFC 9449 §4.2 has it: `typ` and `alg`, a public
/// key and only that, and signed by that key. Its key and its claims.
fn dpop_proof(jws: &str) -> (Value, Value) {
    let header = jws_part(jws, 0).expect("a JWS header");
    assert_eq!(header["typ"], "dpop+jwt", "{header}");
    assert_eq!(header["alg"], "ES256", "{header}");
    let jwk = header["jwk"].clone();
    assert_eq!((&jwk["kty"], &jwk["crv"]), (&json!("EC"), &json!("P-256")), "{jwk}");
    assert!(jwk.get("d").is_none(), "the public key only: {jwk}");
    let coordinate = |name: &str| URL_SAFE_NO_PAD.decode(jwk[name].as_str().expect("a coordinate")).expect("Base64url");
    let point = [vec![4], coordinate("x"), coordinate("y")].concat();
    assert!(signed_by(jws, &point), "signed by the key its header shows: {jws}");
    let claims = jws_part(jws, 1).expect("JWS claims");
    (jwk, claims)
}

/// Seconds since the epoch: what an `iat` is compared with.
fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs()
}

/// Whether `claims`' `iat` is now, give or take a minute.
fn issued_now(claims: &Value) -> bool {
    claims["iat"].as_u64().is_some_and(|iat| iat.abs_diff(now()) < 60)
}

/// `Basic` credentials of `id` and `secret`.
fn basic(id: &str, secret: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")))
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

/// How many times the person was sent to authorize.
type Visits = Arc<AtomicUsize>;

/// `oauth` with a person who approves at once: the redirect carries the
/// code `c1` and the `state` sent.
fn approving(oauth: OAuth, visits: &Visits) -> OAuth {
    let visits = Arc::clone(visits);
    oauth.on_authorize(move |url| {
        visits.fetch_add(1, Ordering::SeqCst);
        let query = query_of(&url);
        let param = |name: &str| query.get(name).cloned().unwrap_or_default();
        let redirect = format!("{}?code=c1&state={}", param("redirect_uri"), param("state"));
        async move { Ok(redirect) }
    })
}

/// The flow of a program acting for itself, in order: the refusal, the
/// resource's metadata, its authorization server's, one token request,
/// the retry with the token. No registration, no authorization endpoint.
const FOR_ITSELF: [&str; 5] = [
    "POST /mcp",
    "GET /.well-known/oauth-protected-resource/mcp",
    "GET /.well-known/oauth-authorization-server",
    "POST /token",
    "POST /mcp",
];

#[tokio::test]
async fn client_credentials_with_a_secret_are_sent_with_http_basic_for_the_published_resource() {
    let server = serve(Script::default()).await;
    let oauth = OAuth::client_credentials(ClientCredentials::secret("reporting-job", "s3cret"));
    let tools = client(&server, oauth).list_tools().await.expect("listed once authorized");
    assert!(tools.is_empty());

    assert_eq!(server.paths(), FOR_ITSELF, "no person, no registration");
    let request = &server.requests("POST", "/token")[0];
    let form = request.form();
    let field = |name: &str| form.get(name).map(String::as_str);
    assert_eq!(field("grant_type"), Some("client_credentials"), "{form:?}");
    // The `resource` exactly as the Protected Resource Metadata names it.
    assert_eq!(field("resource"), Some(server.url.as_str()), "{form:?}");
    assert_eq!(request.header("authorization"), Some(basic("reporting-job", "s3cret").as_str()));
    // The secret goes once, in the header: never in the form too.
    assert_eq!(field("client_secret"), None, "{form:?}");
    assert!(!request.body.contains("s3cret"), "{}", request.body);

    let calls = server.requests("POST", "/mcp");
    assert_eq!(calls[0].header("authorization"), None);
    assert_eq!(calls[1].header("authorization"), Some("Bearer cc-1"));
}

#[tokio::test]
async fn client_credentials_with_a_private_key_send_an_assertion_signed_with_it_for_the_issuer() {
    // What does not read as a PKCS#8 PEM key is refused at once, not at the
    // first token request.
    match ClientCredentials::private_key("reporting-job", "not a pem") {
        Err(Error::Invalid(_)) => {}
        other => panic!("`Error::Invalid` was expected, not {other:?}"),
    }

    // A key of this test alone, made as the client would be given one.
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("a P-256 key");
    let credentials = ClientCredentials::private_key("reporting-job", key.serialize_pem()).expect("a PKCS#8 PEM key");
    let server = serve(Script::default()).await;
    client(&server, OAuth::client_credentials(credentials)).list_tools().await.expect("listed once authorized");

    assert_eq!(server.paths(), FOR_ITSELF, "no person, no registration");
    let request = &server.requests("POST", "/token")[0];
    let form = request.form();
    let field = |name: &str| form.get(name).map(String::as_str);
    assert_eq!(field("grant_type"), Some("client_credentials"), "{form:?}");
    assert_eq!(field("resource"), Some(server.url.as_str()), "{form:?}");
    assert_eq!(field("client_assertion_type"), Some(CLIENT_ASSERTION_TYPE), "{form:?}");
    // The assertion authenticates the client: no secret, no Basic.
    assert_eq!(field("client_secret"), None, "{form:?}");
    assert_eq!(request.header("authorization"), None);

    let assertion = field("client_assertion").expect("a client assertion");
    let header = jws_part(assertion, 0).expect("a JWS header");
    assert_eq!(header["alg"], "ES256", "{header}");
    let claims = jws_part(assertion, 1).expect("JWS claims");
    assert_eq!(claims["iss"], "reporting-job", "{claims}");
    assert_eq!(claims["sub"], "reporting-job", "{claims}");
    // For this authorization server alone (RFC 7523 §3).
    assert_eq!(claims["aud"], server.origin.as_str(), "{claims}");
    assert!(issued_now(&claims), "{claims}");
    let (iat, exp) = (claims["iat"].as_u64(), claims["exp"].as_u64());
    assert!(exp.is_some_and(|exp| iat.is_some_and(|iat| exp > iat)), "it expires after it was issued: {claims}");
    assert!(claims["jti"].as_str().is_some_and(|jti| !jti.is_empty()), "an id against replays: {claims}");
    assert!(signed_by(assertion, key.public_key_raw()), "signed with the client's key: {assertion}");
    assert!(!signed_by(&format!("x{assertion}"), key.public_key_raw()), "the check checks");

    let calls = server.requests("POST", "/mcp");
    assert_eq!(calls[1].header("authorization"), Some("Bearer pk-1"));
}

#[tokio::test]
async fn a_workload_token_is_the_assertion_of_a_jwt_bearer_grant_without_client_credentials() {
    let server = serve(Script::default()).await;
    let read = Arc::new(AtomicUsize::new(0));
    let oauth = OAuth::workload_identity({
        let read = Arc::clone(&read);
        move || {
            read.fetch_add(1, Ordering::SeqCst);
            async { Ok("eyJ.workload.jwt".to_owned()) }
        }
    });
    client(&server, oauth).list_tools().await.expect("listed once authorized");

    assert_eq!(server.paths(), FOR_ITSELF, "no person, no registration");
    assert_eq!(read.load(Ordering::SeqCst), 1, "the platform's token read for the token request");
    let request = &server.requests("POST", "/token")[0];
    let form = request.form();
    let field = |name: &str| form.get(name).map(String::as_str);
    assert_eq!(field("grant_type"), Some(JWT_BEARER), "{form:?}");
    assert_eq!(field("assertion"), Some("eyJ.workload.jwt"), "{form:?}");
    assert_eq!(field("resource"), Some(server.url.as_str()), "{form:?}");
    // The workload's token is its only credential.
    assert_eq!((field("client_id"), field("client_secret")), (None, None), "{form:?}");
    assert_eq!(request.header("authorization"), None);
    assert_eq!(server.requests("POST", "/mcp")[1].header("authorization"), Some("Bearer wl-1"));
}

#[tokio::test]
async fn a_refused_workload_token_fails_the_request_after_one_token_request() {
    let server = serve(Script { refuse_workload: true, ..Script::default() }).await;
    let oauth = OAuth::workload_identity(|| async { Ok("eyJ.stale.jwt".to_owned()) });
    let message = authorization_error(client(&server, oauth).list_tools().await);
    assert!(message.contains("invalid_grant"), "the authorization server's reason: {message}");
    assert!(message.contains(&server.token_endpoint()), "the step's URL: {message}");

    // Returned as it is: not tried again, nor another grant, nor the
    // request sent again without a token.
    assert_eq!(server.paths(), FOR_ITSELF[..4], "{:?}", server.received());
    let form = server.requests("POST", "/token")[0].form();
    assert_eq!(form.get("assertion").map(String::as_str), Some("eyJ.stale.jwt"), "{form:?}");
}

#[tokio::test]
async fn enterprise_authorization_trades_the_id_token_at_the_idp_then_the_grant_at_the_authorization_server() {
    let server = serve(Script::default()).await;
    // The enterprise's identity provider: an origin of its own.
    let idp = serve(Script::default()).await;
    let idp_token = format!("{}/idp/token", idp.origin);
    let login = EnterpriseLogin::new(&idp_token, ClientCredentials::secret("mcp-agent", "s3cret"), || async {
        Ok("eyJ.id.token".to_owned())
    })
    .idp_client_id("agent-at-idp");
    client(&server, OAuth::enterprise(login)).list_tools().await.expect("listed once authorized");

    // At the identity provider: one token exchange, the ID token for an
    // identity assertion grant meant for the server's authorization server.
    assert_eq!(idp.paths(), ["POST /idp/token"]);
    let exchange = &idp.requests("POST", "/idp/token")[0];
    let form = exchange.form();
    let field = |name: &str| form.get(name).map(String::as_str);
    assert_eq!(field("grant_type"), Some(TOKEN_EXCHANGE), "{form:?}");
    assert_eq!(field("requested_token_type"), Some(ID_JAG), "{form:?}");
    assert_eq!(field("audience"), Some(server.origin.as_str()), "{form:?}");
    assert_eq!(field("resource"), Some(server.url.as_str()), "{form:?}");
    assert_eq!(field("subject_token"), Some("eyJ.id.token"), "{form:?}");
    assert_eq!(field("subject_token_type"), Some(ID_TOKEN), "{form:?}");
    assert_eq!(field("client_id"), Some("agent-at-idp"), "{form:?}");
    // The secret of the authorization server's client is not the IdP's to see.
    assert_eq!(exchange.header("authorization"), None);
    assert!(!exchange.body.contains("s3cret"), "{}", exchange.body);

    // At the authorization server: the grant, the client authenticated.
    assert_eq!(server.paths(), FOR_ITSELF, "no person, no registration");
    let request = &server.requests("POST", "/token")[0];
    let form = request.form();
    let field = |name: &str| form.get(name).map(String::as_str);
    assert_eq!(field("grant_type"), Some(JWT_BEARER), "{form:?}");
    assert_eq!(field("assertion"), Some("jag-1"), "{form:?}");
    assert_eq!(field("resource"), Some(server.url.as_str()), "{form:?}");
    assert_eq!(request.header("authorization"), Some(basic("mcp-agent", "s3cret").as_str()));
    assert_eq!(field("client_secret"), None, "{form:?}");
    assert_eq!(server.requests("POST", "/mcp")[1].header("authorization"), Some("Bearer ent-1"));
}

#[tokio::test]
async fn dpop_binds_the_token_to_a_key_proven_at_the_token_endpoint_and_with_each_request() {
    let server = serve(Script { dpop: true, ..Script::default() }).await;
    let person = Visits::default();
    let client = client(&server, approving(OAuth::new(REDIRECT_URI).dpop(), &person));
    client.list_tools().await.expect("listed once authorized");
    client.list_tools().await.expect("listed again");
    assert_eq!(person.load(Ordering::SeqCst), 1, "authorized once");

    // The token request proves the key: for this very request, and with no
    // access token to hash yet.
    let tokens = server.requests("POST", "/token");
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    let (jwk, claims) = dpop_proof(tokens[0].header("dpop").expect("a DPoP proof with the token request"));
    assert_eq!(claims["htm"], "POST", "{claims}");
    assert_eq!(claims["htu"], server.token_endpoint(), "{claims}");
    assert!(issued_now(&claims), "{claims}");
    assert!(claims["jti"].is_string(), "{claims}");
    assert!(claims.get("ath").is_none(), "no access token to hash at the token endpoint: {claims}");
    assert!(claims.get("nonce").is_none(), "none was asked for: {claims}");

    // Each request with the token proves the same key afresh, for the MCP
    // endpoint and this very token.
    let calls = server.requests("POST", "/mcp");
    assert_eq!(calls.len(), 3, "the refusal, then two that went through: {calls:?}");
    assert_eq!(calls[0].header("dpop"), None, "no proof without a token");
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(b"d-1"));
    let mut ids = vec![claims["jti"].clone()];
    for call in &calls[1..] {
        assert_eq!(call.header("authorization"), Some("DPoP d-1"), "{call:?}");
        let (key, claims) = dpop_proof(call.header("dpop").expect("a DPoP proof with the request"));
        assert_eq!(key, jwk, "the key the token is bound to");
        assert_eq!(claims["htm"], "POST", "{claims}");
        assert_eq!(claims["htu"], server.url.as_str(), "{claims}");
        assert_eq!(claims["ath"], ath.as_str(), "{claims}");
        assert!(issued_now(&claims), "{claims}");
        assert!(!ids.contains(&claims["jti"]), "a new id for each proof: {claims}");
        ids.push(claims["jti"].clone());
    }
}

#[tokio::test]
async fn dpop_nonces_asked_for_by_either_server_are_carried_by_the_next_proofs() {
    let server = serve(Script { dpop: true, as_nonce: true, rs_nonce: true, ..Script::default() }).await;
    let person = Visits::default();
    let client = client(&server, approving(OAuth::new(REDIRECT_URI).dpop(), &person));
    client.list_tools().await.expect("listed once the nonces were given");

    // The token request again, once, with the nonce the authorization
    // server asked for in a new proof.
    let tokens = server.requests("POST", "/token");
    assert_eq!(tokens.len(), 2, "{tokens:?}");
    let (first_key, first) = dpop_proof(tokens[0].header("dpop").expect("a proof"));
    let (key, second) = dpop_proof(tokens[1].header("dpop").expect("a proof"));
    assert!(first.get("nonce").is_none(), "{first}");
    assert_eq!(second["nonce"], "as-n1", "{second}");
    assert_ne!(first["jti"], second["jti"], "a new proof, not the same one again");
    assert_eq!(key, first_key);
    assert_eq!(tokens[0].body, tokens[1].body, "the same grant: the code traded once");

    // The request again with the same token and a proof with the server's
    // nonce: neither the person nor the authorization server asked again.
    let calls = server.requests("POST", "/mcp");
    let nonce_of = |call: &Received| proof_claims(call).map(|claims| claims["nonce"].clone());
    assert_eq!(calls.len(), 3, "the refusal for a token, the one for a nonce, the one through: {calls:?}");
    assert_eq!(calls[1].header("authorization"), Some("DPoP d-1"));
    assert_eq!(nonce_of(&calls[1]), Some(Value::Null), "no nonce yet");
    assert_eq!(calls[2].header("authorization"), Some("DPoP d-1"));
    let (again, claims) = dpop_proof(calls[2].header("dpop").expect("a proof"));
    assert_eq!(claims["nonce"], "rs-n1", "{claims}");
    assert_eq!(again, key);
    assert_eq!(person.load(Ordering::SeqCst), 1, "authorized once");
    assert_eq!(server.requests("POST", "/register").len(), 1);

    // The nonce is kept: the next request carries it at once.
    client.list_tools().await.expect("listed again");
    let calls = server.requests("POST", "/mcp");
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert_eq!(nonce_of(&calls[3]), Some(json!("rs-n1")));
    assert_eq!(server.requests("POST", "/token").len(), 2);
}
