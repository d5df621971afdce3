//! Requests to the authorization server: its metadata, its keys, its
//! introspection endpoint. HTTPS through rustls (ring, the platform's
//! roots); plain HTTP too, for an issuer on loopback.

use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use http::{Method, Request};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Map, Value};

/// The most a document from the authorization server may weigh: metadata
/// and key sets are a few kilobytes, and a larger answer is not one.
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// Why a request to the authorization server brought nothing usable.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    /// No answer, a timeout, or a server error: try later.
    #[error("{0}")]
    Unreachable(String),
    /// A client error status (404, 401, ...).
    #[error("HTTP status {0}")]
    Status(u16),
    /// An answer that is not a JSON object, or too large to be one.
    #[error("{0}")]
    Invalid(String),
}

/// One client for every request to the issuer, with its connection pool.
/// Redirects are not followed: an issuer's endpoints are where its
/// metadata says.
#[derive(Debug, Clone)]
pub(crate) struct AsClient {
    http: Option<Client<HttpsConnector<HttpConnector>, Full<Bytes>>>,
    timeout: Duration,
}

impl AsClient {
    #[cfg(feature = "auth")]
    pub(crate) fn new(timeout: Duration) -> Self {
        Self::with_roots(timeout, Vec::new())
    }

    /// A client trusting `extra_roots` besides the platform's roots.
    pub(crate) fn with_roots(timeout: Duration, extra_roots: Vec<rustls::pki_types::CertificateDer<'static>>) -> Self {
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let tls =
            rustls_platform_verifier::Verifier::new_with_extra_roots(extra_roots, std::sync::Arc::clone(&provider))
                .and_then(|verifier| {
                    Ok(rustls::ClientConfig::builder_with_provider(provider)
                        .with_safe_default_protocol_versions()?
                        .dangerous()
                        .with_custom_certificate_verifier(std::sync::Arc::new(verifier))
                        .with_no_client_auth())
                })
                .inspect_err(|error| tracing::error!(%error, "no TLS client for the authorization server"))
                .ok();
        let http = tls.map(|tls| {
            let connector =
                hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http().enable_http1().build();
            Client::builder(TokioExecutor::new()).build(connector)
        });
        AsClient { http, timeout }
    }

    /// GETs a JSON object.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Map<String, Value>, FetchError> {
        let request = Request::builder().method(Method::GET).uri(url).header(ACCEPT, "application/json");
        self.send(request, Bytes::new()).await
    }

    /// POSTs a form with HTTP Basic credentials; a JSON object back.
    #[cfg(feature = "auth")]
    pub(crate) async fn post_form(
        &self,
        url: &str,
        (user, password): (&str, &str),
        form: &[(&str, &str)],
    ) -> Result<Map<String, Value>, FetchError> {
        let request = Request::builder()
            .method(Method::POST)
            .uri(url)
            .header(ACCEPT, "application/json")
            .header(AUTHORIZATION, basic_credentials((user, password)))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        self.send(request, Bytes::from(form_body(form))).await
    }

    /// POSTs `body` of `content_type`, with HTTP Basic credentials and a
    /// DPoP proof if given: the status, the server's DPoP nonce, and the
    /// JSON object back, an error status's too (an OAuth error says why in
    /// it).
    pub(crate) async fn post(
        &self,
        url: &str,
        content_type: &'static str,
        body: Vec<u8>,
        basic: Option<(&str, &str)>,
        dpop: Option<&str>,
    ) -> Result<Answered, FetchError> {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, content_type);
        if let Some(credentials) = basic {
            request = request.header(AUTHORIZATION, basic_credentials(credentials));
        }
        if let Some(proof) = dpop {
            request = request.header("dpop", proof);
        }
        self.exchange(request, Bytes::from(body)).await
    }

    async fn send(&self, request: http::request::Builder, body: Bytes) -> Result<Map<String, Value>, FetchError> {
        match self.exchange(request, body).await? {
            Answered { status: 200..=299, body, .. } => Ok(body),
            Answered { status, .. } => Err(FetchError::Status(status)),
        }
    }

    /// Sends `request`: the status, and the body read as a JSON object
    /// (a client error status without one is [`FetchError::Status`]).
    async fn exchange(&self, request: http::request::Builder, body: Bytes) -> Result<Answered, FetchError> {
        let Some(http) = &self.http else {
            return Err(FetchError::Unreachable("no HTTP client could be built".into()));
        };
        let request = request.body(Full::new(body)).map_err(|e| FetchError::Invalid(format!("a bad URL: {e}")))?;
        let exchange = async {
            let response = http.request(request).await.map_err(|e| FetchError::Unreachable(chain(&e)))?;
            let status = response.status();
            if status.is_server_error() {
                return Err(FetchError::Unreachable(format!("HTTP status {}", status.as_u16())));
            }
            let nonce = response.headers().get("dpop-nonce").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let body = Limited::new(response.into_body(), MAX_DOCUMENT_BYTES).collect().await.map_err(|e| {
                FetchError::Invalid(format!("an answer that could not be read (over {MAX_DOCUMENT_BYTES} bytes?): {e}"))
            })?;
            Ok((status.as_u16(), nonce, body.to_bytes()))
        };
        let (status, nonce, body) = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| FetchError::Unreachable(format!("no answer within {} s", self.timeout.as_secs_f64())))??;
        match serde_json::from_slice(&body) {
            Ok(Value::Object(body)) => Ok(Answered { status, nonce, body }),
            _ if !(200..300).contains(&status) => Err(FetchError::Status(status)),
            Ok(_) => Err(FetchError::Invalid("an answer that is not a JSON object".into())),
            Err(e) => Err(FetchError::Invalid(format!("an answer that is not JSON: {e}"))),
        }
    }
}

/// An answer of the authorization server.
pub(crate) struct Answered {
    pub(crate) status: u16,
    /// `DPoP-Nonce`: what the next DPoP proof is to carry.
    #[cfg_attr(not(feature = "client-auth"), allow(dead_code))]
    pub(crate) nonce: Option<String>,
    pub(crate) body: Map<String, Value>,
}

/// An error and its causes, on one line.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `Basic` credentials of `user` and `password`, each form-encoded first
/// (RFC 6749 §2.3.1).
fn basic_credentials((user, password): (&str, &str)) -> String {
    use base64::Engine as _;
    let credentials = format!("{}:{}", form_urlencoded_component(user), form_urlencoded_component(password));
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(credentials))
}

/// `form` as an `application/x-www-form-urlencoded` body.
pub(crate) fn form_body(form: &[(&str, &str)]) -> String {
    let pairs: Vec<String> = form
        .iter()
        .map(|(k, v)| format!("{}={}", form_urlencoded_component(k), form_urlencoded_component(v)))
        .collect();
    pairs.join("&")
}

/// `application/x-www-form-urlencoded` of one value.
pub(crate) fn form_urlencoded_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => out.push(byte as char),
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::form_urlencoded_component;

    #[test]
    fn credentials_are_form_encoded() {
        assert_eq!(form_urlencoded_component("mcp-server"), "mcp-server");
        assert_eq!(form_urlencoded_component("a b:c%"), "a+b%3Ac%25");
    }
}
