//! Requests to the authorization server: its metadata, its keys, its
//! introspection endpoint. HTTPS through rustls (ring, the platform's
//! roots); plain HTTP too, for an issuer on loopback.

use std::time::Duration;

use reqwest::redirect::Policy;
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
#[derive(Debug, Clone)]
pub(crate) struct AsClient {
    http: Option<reqwest::Client>,
}

impl AsClient {
    pub(crate) fn new(timeout: Duration) -> Self {
        let tls = rustls::ClientConfig::builder_with_provider(rustls::crypto::ring::default_provider().into())
            .with_safe_default_protocol_versions()
            .and_then(|builder| {
                use rustls_platform_verifier::BuilderVerifierExt as _;
                builder.with_platform_verifier()
            })
            .map(|builder| builder.with_no_client_auth());
        let http = tls
            .map_err(|e| e.to_string())
            .and_then(|tls| {
                reqwest::Client::builder()
                    .tls_backend_preconfigured(tls)
                    .timeout(timeout)
                    .connect_timeout(timeout)
                    // An issuer's endpoints are where its metadata says:
                    // a redirect elsewhere is not followed.
                    .redirect(Policy::none())
                    .build()
                    .map_err(|e| e.to_string())
            })
            .inspect_err(|error| tracing::error!(%error, "no HTTP client for the authorization server"))
            .ok();
        AsClient { http }
    }

    fn http(&self) -> Result<&reqwest::Client, FetchError> {
        self.http.as_ref().ok_or_else(|| FetchError::Unreachable("no HTTP client could be built".into()))
    }

    /// GETs a JSON object.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Map<String, Value>, FetchError> {
        let request = self.http()?.get(url).header(reqwest::header::ACCEPT, "application/json");
        read_json(request.send().await).await
    }

    /// POSTs a form with HTTP Basic credentials; a JSON object back.
    pub(crate) async fn post_form(
        &self,
        url: &str,
        (user, password): (&str, &str),
        form: &[(&str, &str)],
    ) -> Result<Map<String, Value>, FetchError> {
        // RFC 6749 §2.3.1: the id and secret are form-encoded before Basic.
        let encode = |s: &str| form_urlencoded_component(s);
        let request = self
            .http()?
            .post(url)
            .basic_auth(encode(user), Some(encode(password)))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(form);
        read_json(request.send().await).await
    }
}

async fn read_json(sent: reqwest::Result<reqwest::Response>) -> Result<Map<String, Value>, FetchError> {
    let mut response = sent.map_err(|e| FetchError::Unreachable(without_url(e)))?;
    let status = response.status();
    if status.is_server_error() {
        return Err(FetchError::Unreachable(format!("HTTP status {}", status.as_u16())));
    }
    if !status.is_success() {
        return Err(FetchError::Status(status.as_u16()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| FetchError::Unreachable(without_url(e)))? {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(FetchError::Invalid(format!("an answer larger than {MAX_DOCUMENT_BYTES} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    match serde_json::from_slice(&body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(FetchError::Invalid("an answer that is not a JSON object".into())),
        Err(e) => Err(FetchError::Invalid(format!("an answer that is not JSON: {e}"))),
    }
}

/// The error's text; the URL is logged by the caller, with its context.
fn without_url(error: reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    let mut text = kind.to_owned();
    let mut source = std::error::Error::source(&error);
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
