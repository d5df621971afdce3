//! The Protected Resource Metadata document (RFC 9728): what this server
//! is, and which authorization server issues its tokens.

use std::collections::BTreeSet;

use serde_json::json;

/// The well-known prefix of the document's paths.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The document and where it is served.
#[derive(Debug)]
pub(crate) struct ResourceMetadata {
    /// The document, serialized once.
    pub(crate) json: bytes::Bytes,
    /// Its URL for the resource as configured: the well-known segment
    /// between the resource's host and its path (RFC 9728 §3.1).
    pub(crate) url: String,
    /// `WELL_KNOWN` followed by the resource's path, then `WELL_KNOWN` alone.
    pub(crate) paths: [String; 2],
}

impl ResourceMetadata {
    /// `dpop`: whether DPoP-bound tokens are accepted, and then whether
    /// they alone are.
    pub(crate) fn new(resource: &str, issuer: &str, scopes: &BTreeSet<String>, dpop: Option<bool>) -> Self {
        let mut document = json!({
            "resource": resource,
            "authorization_servers": [issuer],
            "bearer_methods_supported": ["header"],
        });
        if let Some(required) = dpop {
            document["dpop_signing_alg_values_supported"] = json!(super::dpop::DpopGate::algorithm_names());
            document["dpop_bound_access_tokens_required"] = json!(required);
        }
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        let (origin, path) = super::discovery::split_origin(resource);
        let path = path.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
        ResourceMetadata {
            json: bytes::Bytes::from(document.to_string()),
            url: format!("{origin}{WELL_KNOWN}{path}"),
            paths: [format!("{WELL_KNOWN}{path}"), WELL_KNOWN.to_owned()],
        }
    }

    /// Whether the document is served at `path`.
    pub(crate) fn serves(&self, path: &str) -> bool {
        self.paths.iter().any(|p| p == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_lives_beside_the_resource_path() {
        let scopes = BTreeSet::from(["notes:read".to_owned()]);
        let metadata = ResourceMetadata::new("https://mcp.example:8443/mcp", "https://as.example", &scopes, None);
        assert_eq!(metadata.url, "https://mcp.example:8443/.well-known/oauth-protected-resource/mcp");
        assert!(metadata.serves("/.well-known/oauth-protected-resource/mcp"));
        assert!(metadata.serves("/.well-known/oauth-protected-resource"));
        let document: serde_json::Value = serde_json::from_slice(&metadata.json).unwrap();
        assert_eq!(
            document,
            json!({
                "resource": "https://mcp.example:8443/mcp",
                "authorization_servers": ["https://as.example"],
                "scopes_supported": ["notes:read"],
                "bearer_methods_supported": ["header"],
            })
        );
        let root = ResourceMetadata::new("https://mcp.example/", "https://as.example", &BTreeSet::new(), None);
        assert_eq!(root.url, "https://mcp.example/.well-known/oauth-protected-resource");
    }

    #[test]
    fn dpop_is_advertised_with_its_algorithms_and_whether_it_is_required() {
        let metadata =
            ResourceMetadata::new("https://mcp.example/mcp", "https://as.example", &BTreeSet::new(), Some(true));
        let document: serde_json::Value = serde_json::from_slice(&metadata.json).unwrap();
        assert_eq!(document["dpop_bound_access_tokens_required"], json!(true));
        let algs = document["dpop_signing_alg_values_supported"].as_array().expect("a list");
        assert!(
            algs.contains(&json!("ES256"))
                && !algs.iter().any(|a| a == "none" || a.as_str().is_some_and(|a| a.starts_with("HS")))
        );
    }
}
