//! A real OAuth 2.1 authorization server for the authorization tests:
//! oidc-provider (`.ci/oidc/provider.mjs`, installed by `.ci/install.sh`),
//! started on loopback per test, and the few requests a test makes of it.

use std::net::SocketAddr;
use std::path::PathBuf;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::process::{Child, Command};

use crate::dpop::ProofKey;
use crate::http_wire::STUCK;

/// Where oidc-provider's `npm ci` is: `MCP_OIDC_PROVIDER_DIR`, else
/// `$CI_CACHE_DIR/tools/oidc-provider`, else the repository's
/// `target/ci/tools/oidc-provider` (what `.ci/install.sh` fills).
pub fn provider_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MCP_OIDC_PROVIDER_DIR") {
        return dir.into();
    }
    if let Some(cache) = std::env::var_os("CI_CACHE_DIR") {
        return PathBuf::from(cache).join("tools/oidc-provider");
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/ci/tools/oidc-provider")
}

/// A running provider, killed when dropped.
pub struct Provider {
    _child: Child,
    /// `http://127.0.0.1:<port>`, the issuer identifier.
    pub issuer: String,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Another issuer with the same clients and the same keys.
    pub impostor: SocketAddr,
}

/// Starts the provider, on ports the system picks, and waits until it
/// announces that both issuers answer their discovery documents.
pub async fn start() -> Provider {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.ci/oidc/provider.mjs");
    let modules = provider_dir().join("node_modules");
    assert!(
        modules.join("oidc-provider").is_dir(),
        "oidc-provider is not installed in {modules:?}: run .ci/install.sh"
    );
    let mut command = Command::new("node");
    command.arg(script).arg("--modules").arg(modules).args(["--port", "0", "--impostor"]);
    let (child, line) = crate::process::announced(command).await;
    let ready: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not the provider's line {line:?}: {e}"));
    let address = |name: &str| -> SocketAddr {
        let url = ready[name].as_str().unwrap_or_else(|| panic!("no {name} in {line}"));
        url.strip_prefix("http://").and_then(|a| a.parse().ok()).unwrap_or_else(|| panic!("{name}: {url}"))
    };
    let (addr, impostor) = (address("issuer"), address("impostor"));
    Provider { _child: child, issuer: format!("http://{addr}"), addr, impostor }
}

impl Provider {
    /// An access token for `resource` from `client` (see provider.mjs for
    /// what each client gets), by the client credentials grant.
    pub async fn token(&self, client: &str, resource: &str) -> String {
        token_from(self.addr, client, resource).await
    }

    /// New signing keys take over; the old ones stay published.
    pub async fn rotate_keys(&self) {
        let (status, _, _) = request(self.addr, Method::POST, "/admin/rotate", &[], None).await;
        assert_eq!(status, StatusCode::OK);
    }

    /// How many times the key set has been fetched.
    pub async fn jwks_fetches(&self) -> u64 {
        let (_, _, body) = request(self.addr, Method::GET, "/admin/stats", &[], None).await;
        let stats: Value = serde_json::from_slice(&body).expect("JSON");
        stats["jwks"].as_u64().expect("a count")
    }

    /// How many token exchanges (RFC 8693) the provider has answered with a token.
    pub async fn exchanges(&self) -> u64 {
        let (_, _, body) = request(self.addr, Method::GET, "/admin/stats", &[], None).await;
        let stats: Value = serde_json::from_slice(&body).expect("JSON");
        stats["exchanges"].as_u64().expect("a count")
    }

    /// A DPoP-bound token (RFC 9449) for `resource` from `client`, granting
    /// `notes:read`, bound to `key`: see [`dpop_token`].
    pub async fn dpop_token(&self, client: &str, resource: &str, key: &ProofKey) -> String {
        dpop_token(self.addr, client, resource, "notes:read", key).await
    }

    /// Revokes `token`, as `client` (which it was issued to).
    pub async fn revoke(&self, client: &str, token: &str) {
        let body = format!("token={token}&token_type_hint=access_token");
        let (status, _, _) =
            request(self.addr, Method::POST, "/token/revocation", &basic(client), Some(body.into())).await;
        assert_eq!(status, StatusCode::OK);
    }
}

/// A token from the provider listening on `addr` (the impostor, say).
pub async fn token_from(addr: SocketAddr, client: &str, resource: &str) -> String {
    token_with_scope(addr, client, resource, "notes:read").await
}

/// A token granting `scope` (space-separated scopes) from the provider
/// listening on `addr`.
pub async fn token_with_scope(addr: SocketAddr, client: &str, resource: &str, scope: &str) -> String {
    let encode = |text: &str| text.replace(':', "%3A").replace('/', "%2F").replace(' ', "%20");
    let body = format!("grant_type=client_credentials&scope={}&resource={}", encode(scope), encode(resource));
    let (status, _, body) = request(addr, Method::POST, "/token", &basic(client), Some(body.into())).await;
    let answer: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer["access_token"].as_str().expect("a token").to_owned()
}

/// A token granting `scope` for `resource` from the provider listening on
/// `addr`, bound to `key` (`cnf.jkt` is its thumbprint): the token request
/// carries a DPoP proof (htm `POST`, htu `http://ADDR/token`), made again
/// with the provider's nonce if it asks for one (`use_dpop_nonce`).
pub async fn dpop_token(addr: SocketAddr, client: &str, resource: &str, scope: &str, key: &ProofKey) -> String {
    let encode = |text: &str| text.replace(':', "%3A").replace('/', "%2F").replace(' ', "%20");
    let body = format!("grant_type=client_credentials&scope={}&resource={}", encode(scope), encode(resource));
    let htu = format!("http://{addr}/token");
    let mut nonce: Option<String> = None;
    for attempt in 0..2 {
        let mut headers = basic(client);
        headers.push(("dpop", key.proof("POST", &htu, None, nonce.as_deref())));
        let (status, headers, answer) =
            request(addr, Method::POST, "/token", &headers, Some(body.clone().into())).await;
        let answer: Value = serde_json::from_slice(&answer).expect("JSON");
        let asked = headers.get("dpop-nonce").and_then(|n| n.to_str().ok());
        if answer["error"] == "use_dpop_nonce"
            && let (0, Some(asked)) = (attempt, asked)
        {
            nonce = Some(asked.to_owned());
            continue;
        }
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["token_type"], "DPoP", "a bound token: {answer}");
        return answer["access_token"].as_str().expect("a token").to_owned();
    }
    unreachable!("the second attempt returns or fails")
}

fn basic(client: &str) -> Vec<(&'static str, String)> {
    use base64::Engine as _;
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!("{client}:secret"));
    vec![
        ("authorization", format!("Basic {credentials}")),
        ("content-type", "application/x-www-form-urlencoded".to_owned()),
    ]
}

/// One request on a connection of its own; the status, headers and body.
pub async fn request(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(&str, String)],
    body: Option<Bytes>,
) -> (StatusCode, HeaderMap, Bytes) {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let mut request = Request::builder().method(method).uri(path).header("host", addr.to_string());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request.body(Full::new(body.unwrap_or_default())).expect("a request");
    let response =
        tokio::time::timeout(STUCK, sender.send_request(request)).await.expect("an answer in time").expect("sent");
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(STUCK, body.collect()).await.expect("a body in time").expect("a body");
    (parts.status, parts.headers, body.to_bytes())
}

/// The redirect URI of `code-client`, the provider's authorization-code
/// client: nothing listens there, the last redirect is read instead.
pub const CODE_REDIRECT: &str = "http://127.0.0.1:5555/callback";

/// A person logging in as `login` and approving, at the provider listening
/// on `addr`, the authorization request `authorization_url` leads to:
/// the provider's development login and consent pages, driven without a
/// browser (their forms posted, their cookies kept). The URL the provider
/// finally sends the person to (the redirect URI with `code`, `state` and
/// `iss`, or an `error`).
pub async fn approve(addr: SocketAddr, authorization_url: &str, login: &str) -> String {
    use std::collections::BTreeMap;

    let origin = format!("http://{addr}");
    let path_of = |url: &str| url.strip_prefix(&origin).unwrap_or(url).to_owned();
    assert!(authorization_url.starts_with(&origin), "not this provider's: {authorization_url}");
    let mut jar: BTreeMap<String, String> = BTreeMap::new();
    let mut next = (Method::GET, path_of(authorization_url), None::<String>);
    // Two pages (login, consent), each a form posted and a redirect back: a few steps.
    for _ in 0..16 {
        let (method, path, form) = next;
        let mut headers = Vec::new();
        if !jar.is_empty() {
            let cookies: Vec<String> = jar.iter().map(|(name, value)| format!("{name}={value}")).collect();
            headers.push(("cookie", cookies.join("; ")));
        }
        if form.is_some() {
            headers.push(("content-type", "application/x-www-form-urlencoded".to_owned()));
        }
        let (status, answer, body) = request(addr, method, &path, &headers, form.map(Bytes::from)).await;
        for cookie in answer.get_all(http::header::SET_COOKIE) {
            let cookie = cookie.to_str().expect("ASCII");
            let pair = cookie.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                match value.is_empty() {
                    true => jar.remove(name),
                    false => jar.insert(name.to_owned(), value.to_owned()),
                };
            }
        }
        if status.is_redirection() {
            let location = answer[http::header::LOCATION].to_str().expect("ASCII").to_owned();
            if !location.starts_with('/') && !location.starts_with(&origin) {
                return location;
            }
            next = (Method::GET, path_of(&location), None);
            continue;
        }
        let page = String::from_utf8_lossy(&body);
        assert_eq!(status, StatusCode::OK, "{path}: {page}");
        let form = if page.contains(r#"name="prompt" value="login""#) {
            format!("prompt=login&login={login}&password=unused")
        } else if page.contains(r#"name="prompt" value="consent""#) {
            "prompt=consent".to_owned()
        } else {
            panic!("neither the login nor the consent page at {path}: {page}");
        };
        next = (Method::POST, path, Some(form));
    }
    panic!("the provider never sent the person back")
}
