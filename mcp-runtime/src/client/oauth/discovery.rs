//! Where a protected server's tokens come from: its Protected Resource
//! Metadata (RFC 9728), found from a challenge or at the well-known URLs,
//! and its authorization server's metadata (RFC 8414, then OpenID Connect
//! discovery), each checked before anything of it is used.

use serde_json::{Map, Value};

use super::AuthError;
use super::challenge::Challenge;
use crate::auth::client::{AsClient, FetchError};
use crate::auth::discovery::{metadata_urls, split_origin};

/// What a protected server says of itself.
#[derive(Debug, Clone)]
pub(super) struct ResourceMetadata {
    /// The `resource` that tokens are asked for, exactly as published.
    pub(super) resource: String,
    /// The issuer of the authorization server chosen (the first listed).
    pub(super) issuer: String,
    /// `scopes_supported`.
    pub(super) scopes: Option<Vec<String>>,
}

/// What an authorization server says of itself, checked.
#[derive(Debug, Clone)]
pub(super) struct ServerMetadata {
    pub(super) issuer: String,
    pub(super) authorization_endpoint: String,
    pub(super) token_endpoint: String,
    pub(super) registration_endpoint: Option<String>,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub(super) iss_supported: bool,
    /// `client_id_metadata_document_supported`.
    pub(super) metadata_documents: bool,
    /// `token_endpoint_auth_methods_supported`.
    pub(super) auth_methods: Vec<String>,
}

/// The Protected Resource Metadata of the server at `endpoint`: the one the
/// challenge names, else the first found at the well-known URLs (with the
/// endpoint's path, then without). `None` when there is none to find (a
/// 2025-03-26 server, whose own origin is its authorization server).
pub(super) async fn resource_metadata(
    http: &AsClient,
    endpoint: &str,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, AuthError> {
    let step = "protected resource metadata";
    let candidates = match &challenge.resource_metadata {
        Some(url) => vec![url.clone()],
        None => {
            let (origin, path) = split_origin(endpoint);
            let path = path.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
            let mut urls = Vec::new();
            if !path.is_empty() {
                urls.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
            }
            urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
            urls
        }
    };
    let named = challenge.resource_metadata.is_some();
    for url in candidates {
        let document = match http.get_json(&url).await {
            Ok(document) => document,
            Err(FetchError::Status(_)) if !named => continue,
            Err(error) => return Err(AuthError::new(step, &url, error.to_string())),
        };
        let resource =
            text(&document, "resource").ok_or_else(|| AuthError::new(step, &url, "the document has no `resource`"))?;
        if !identifies(resource, endpoint) {
            return Err(AuthError::new(
                step,
                &url,
                format!("its `resource` {resource:?} is not the server at {endpoint:?}: no token is asked for it"),
            ));
        }
        let issuer = document
            .get("authorization_servers")
            .and_then(Value::as_array)
            .and_then(|servers| servers.first())
            .and_then(Value::as_str)
            .ok_or_else(|| AuthError::new(step, &url, "the document lists no `authorization_servers`"))?;
        return Ok(Some(ResourceMetadata {
            resource: resource.to_owned(),
            issuer: issuer.to_owned(),
            scopes: strings(&document, "scopes_supported"),
        }));
    }
    Ok(None)
}

/// Whether `resource` names the server at `endpoint`: the same URL, or one
/// of the same origin whose path leads to it.
fn identifies(resource: &str, endpoint: &str) -> bool {
    if resource == endpoint {
        return true;
    }
    let ((origin, path), (endpoint_origin, endpoint_path)) = (split_origin(resource), split_origin(endpoint));
    if !origin.eq_ignore_ascii_case(endpoint_origin) || resource.contains(['?', '#']) {
        return false;
    }
    let path = path.trim_end_matches('/');
    endpoint_path == path || endpoint_path.strip_prefix(path).is_some_and(|rest| rest.starts_with('/'))
}

/// The metadata of the authorization server `issuer`: the first document at
/// its well-known URLs, in the order of RFC 8414 and OpenID Connect. It must
/// name `issuer` exactly, and, when a person is to authorize (`person`),
/// have an authorization endpoint and offer PKCE with S256; else none of it
/// is used.
pub(super) async fn server_metadata(http: &AsClient, issuer: &str, person: bool) -> Result<ServerMetadata, AuthError> {
    let step = "authorization server metadata";
    let mut tried = Vec::new();
    for url in metadata_urls(issuer) {
        let document = match http.get_json(&url).await {
            Ok(document) => document,
            Err(FetchError::Status(status)) => {
                tried.push(format!("{url} (HTTP {status})"));
                continue;
            }
            Err(error) => return Err(AuthError::new(step, &url, error.to_string())),
        };
        let named = text(&document, "issuer");
        if named != Some(issuer) {
            return Err(AuthError::new(
                step,
                &url,
                format!("the document names the issuer {named:?}, not {issuer:?}: none of its endpoints is used"),
            ));
        }
        let methods = strings(&document, "code_challenge_methods_supported").unwrap_or_default();
        if person && !methods.iter().any(|m| m == "S256") {
            return Err(AuthError::new(step, &url, "the server does not say it supports PKCE with S256"));
        }
        return read(&document, issuer, person).map_err(|why| AuthError::new(step, &url, why));
    }
    Err(AuthError::new(step, issuer, format!("no metadata at {}", tried.join(", "))))
}

/// The metadata of a 2025-03-26 server's origin, its own authorization
/// server: its document if it has one, else the endpoints at their default
/// paths.
pub(super) async fn origin_metadata(http: &AsClient, endpoint: &str) -> Result<ServerMetadata, AuthError> {
    let (origin, _) = split_origin(endpoint);
    let url = format!("{origin}/.well-known/oauth-authorization-server");
    match http.get_json(&url).await {
        Ok(document) => {
            read(&document, origin, true).map_err(|why| AuthError::new("authorization server metadata", &url, why))
        }
        Err(FetchError::Status(_)) => Ok(ServerMetadata {
            issuer: origin.to_owned(),
            authorization_endpoint: format!("{origin}/authorize"),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            iss_supported: false,
            metadata_documents: false,
            auth_methods: Vec::new(),
        }),
        Err(error) => Err(AuthError::new("authorization server metadata", &url, error.to_string())),
    }
}

/// The metadata `document` of `issuer`; its authorization endpoint is
/// needed only when a person is to authorize (`person`).
fn read(document: &Map<String, Value>, issuer: &str, person: bool) -> Result<ServerMetadata, String> {
    let endpoint = |key: &str| {
        let url = text(document, key).ok_or_else(|| format!("no `{key}`"))?;
        served_safely(url).map(|()| url.to_owned()).map_err(|why| format!("its `{key}` {url:?} {why}"))
    };
    Ok(ServerMetadata {
        issuer: issuer.to_owned(),
        authorization_endpoint: match person {
            true => endpoint("authorization_endpoint")?,
            false => endpoint("authorization_endpoint").unwrap_or_default(),
        },
        token_endpoint: endpoint("token_endpoint")?,
        registration_endpoint: match document.get("registration_endpoint") {
            Some(_) => Some(endpoint("registration_endpoint")?),
            None => None,
        },
        iss_supported: document.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true)),
        metadata_documents: document.get("client_id_metadata_document_supported") == Some(&Value::Bool(true)),
        auth_methods: strings(document, "token_endpoint_auth_methods_supported").unwrap_or_default(),
    })
}

/// Whether `url` may be sent a person, a code or a secret: `https`, or
/// `http` to this machine. A server's metadata names it, and a hostile one
/// could name a `file:` URL for a browser to open, or send secrets in the
/// clear.
fn served_safely(url: &str) -> Result<(), &'static str> {
    let parsed = url::Url::parse(url).map_err(|_| "is not a URL")?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => address.is_loopback(),
        None => false,
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err("is neither https nor http to this machine"),
    }
}

fn text<'a>(document: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    document.get(key).and_then(Value::as_str)
}

fn strings(document: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    let list = document.get(key)?.as_array()?;
    Some(list.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_https_or_on_this_machine() {
        for safe in
            ["https://login.example.com/authorize", "http://localhost:3000/a", "http://127.0.0.1/t", "http://[::1]:8/t"]
        {
            assert_eq!(served_safely(safe), Ok(()), "{safe}");
        }
        for unsafe_url in ["http://login.example.com/authorize", "file:///etc/passwd", "javascript:alert(1)", "nope"] {
            assert!(served_safely(unsafe_url).is_err(), "{unsafe_url}");
        }
        let Value::Object(document) = serde_json::json!({
            "authorization_endpoint": "file:///etc/passwd",
            "token_endpoint": "https://login.example.com/token",
        }) else {
            unreachable!("an object")
        };
        let refused = read(&document, "https://login.example.com", true).expect_err("refused");
        assert!(refused.contains("authorization_endpoint"), "{refused}");
    }

    #[test]
    fn a_resource_names_the_server_at_its_url_or_a_path_above_it_on_the_same_origin() {
        let endpoint = "http://localhost:3000/mcp";
        for same in
            ["http://localhost:3000/mcp", "http://localhost:3000", "http://localhost:3000/", "HTTP://LOCALHOST:3000"]
        {
            assert!(identifies(same, endpoint), "{same}");
        }
        for other in [
            "https://evil.example.com/mcp",
            "http://localhost:3001/mcp",
            "http://localhost:3000/mc",
            "http://localhost:3000/mcp/more",
            "http://localhost:3000/other",
        ] {
            assert!(!identifies(other, endpoint), "{other}");
        }
    }
}
