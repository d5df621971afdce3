//! The issuer's metadata: where its keys and its introspection endpoint
//! are. RFC 8414 first, then OpenID Connect discovery, in the order the
//! MCP authorization rules give.

#[cfg(feature = "auth")]
use serde_json::{Map, Value};

#[cfg(feature = "auth")]
use super::client::{AsClient, FetchError};

#[cfg(feature = "auth")]
/// What the server needs of the issuer's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AsMetadata {
    pub(crate) jwks_uri: Option<String>,
    pub(crate) introspection_endpoint: Option<String>,
}

#[cfg(feature = "auth")]
/// Why no metadata could be had.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DiscoveryError {
    /// The issuer did not answer (or answered with a server error).
    #[error("the authorization server is unreachable: {0}")]
    Unreachable(String),
    /// It answered, but with nothing usable: a misconfiguration.
    #[error("no usable authorization server metadata: {0}")]
    Unusable(String),
}

/// The metadata URLs of `issuer`, in the order they are tried: for an
/// issuer with a path, the well-known segment goes between host and path
/// (RFC 8414 §3.1), and OpenID Connect's appended form comes last.
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = split_origin(issuer);
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{issuer}/.well-known/openid-configuration"),
        ]
    }
}

/// `https://host:port` and `/path` (empty when none) of a URL.
pub(crate) fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    }
}

#[cfg(feature = "auth")]
/// Fetches the issuer's metadata, trying each well-known URL in turn; a
/// document must name the very issuer asked about (RFC 8414 §3.3).
pub(crate) async fn discover(client: &AsClient, issuer: &str) -> Result<AsMetadata, DiscoveryError> {
    let mut tried = Vec::new();
    for url in metadata_urls(issuer) {
        match client.get_json(&url).await {
            Ok(document) => return from_document(&document, issuer),
            Err(FetchError::Status(status)) => tried.push(format!("{url}: HTTP status {status}")),
            Err(FetchError::Unreachable(reason)) => {
                return Err(DiscoveryError::Unreachable(format!("{url}: {reason}")));
            }
            Err(FetchError::Invalid(reason)) => tried.push(format!("{url}: {reason}")),
        }
    }
    Err(DiscoveryError::Unusable(tried.join("; ")))
}

#[cfg(feature = "auth")]
fn from_document(document: &Map<String, Value>, issuer: &str) -> Result<AsMetadata, DiscoveryError> {
    let named = document.get("issuer").and_then(Value::as_str);
    if named != Some(issuer) {
        return Err(DiscoveryError::Unusable(format!(
            "the metadata names issuer {named:?}, not {issuer:?} (configure the issuer exactly as it names itself)"
        )));
    }
    let url = |key: &str| document.get(key).and_then(Value::as_str).map(str::to_owned);
    let metadata = AsMetadata { jwks_uri: url("jwks_uri"), introspection_endpoint: url("introspection_endpoint") };
    if metadata.jwks_uri.is_none() && metadata.introspection_endpoint.is_none() {
        return Err(DiscoveryError::Unusable("neither jwks_uri nor introspection_endpoint".into()));
    }
    Ok(metadata)
}

#[cfg(all(test, feature = "auth"))]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn well_known_urls_insert_the_segment_before_the_path() {
        assert_eq!(
            metadata_urls("https://as.example.com"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://as.example.com/tenant1"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://as.example.com/.well-known/openid-configuration/tenant1",
                "https://as.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn metadata_must_name_the_issuer() {
        let document = json!({"issuer": "https://evil.example", "jwks_uri": "https://evil.example/jwks"});
        let Value::Object(document) = document else { unreachable!() };
        assert!(from_document(&document, "https://as.example.com").is_err());
        let document = json!({"issuer": "https://as.example.com", "jwks_uri": "https://as.example.com/jwks"});
        let Value::Object(document) = document else { unreachable!() };
        let metadata = from_document(&document, "https://as.example.com").unwrap();
        assert_eq!(metadata.jwks_uri.as_deref(), Some("https://as.example.com/jwks"));
    }
}
