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
    pub(crate) fn new(timeout: Duration) -> Self {
        let tls = rustls::ClientConfig::builder_with_provider(rustls::crypto::ring::default_provider().into())
            .with_safe_default_protocol_versions()
            .and_then(|builder| {
                use rustls_platform_verifier::BuilderVerifierExt as _;
                builder.with_platform_verifier()
            })
            .map(|builder| builder.with_no_client_auth())
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
    pub(crate) async fn post_form(
        &self,
        url: &str,
        (user, password): (&str, &str),
        form: &[(&str, &str)],
    ) -> Result<Map<String, Value>, FetchError> {
        use base64::Engine as _;
        // RFC 6749 §2.3.1: the id and secret are form-encoded before Basic.
        let credentials = format!("{}:{}", form_urlencoded_component(user), form_urlencoded_component(password));
        let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(credentials));
        let body: Vec<String> = form
            .iter()
            .map(|(k, v)| format!("{}={}", form_urlencoded_component(k), form_urlencoded_component(v)))
            .collect();
        let request = Request::builder()
            .method(Method::POST)
            .uri(url)
            .header(ACCEPT, "application/json")
            .header(AUTHORIZATION, basic)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        self.send(request, Bytes::from(body.join("&"))).await
    }

    async fn send(&self, request: http::request::Builder, body: Bytes) -> Result<Map<String, Value>, FetchError> {
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
            if !status.is_success() {
                return Err(FetchError::Status(status.as_u16()));
            }
            let body = Limited::new(response.into_body(), MAX_DOCUMENT_BYTES).collect().await.map_err(|e| {
                FetchError::Invalid(format!("an answer that could not be read (over {MAX_DOCUMENT_BYTES} bytes?): {e}"))
            })?;
            Ok(body.to_bytes())
        };
        let body = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| FetchError::Unreachable(format!("no answer within {} s", self.timeout.as_secs_f64())))??;
        match serde_json::from_slice(&body) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(FetchError::Invalid("an answer that is not a JSON object".into())),
            Err(e) => Err(FetchError::Invalid(format!("an answer that is not JSON: {e}"))),
        }
    }
}

/// An error and its causes, on one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `application/x-www-form-urlencoded` of one value.
fn form_urlencoded_component(value: &str) -> String {
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
