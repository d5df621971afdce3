//! Scopes: what each tool, resource and prompt declares a caller must be
//! granted, and what one request's caller was granted.
//!
//! Only a server that is authenticated (its requests reach the dispatcher
//! with a verified [`Principal`]) checks them, and only for requests that
//! came over HTTP: stdio is never authenticated (a process started by its
//! client takes its credentials from the environment), so over stdio, and
//! on a server without authentication, every entry is listed and callable
//! whatever it declares.

use serde_json::json;

use crate::handler::principal::Principal;
use crate::protocol::{ErrorObject, Method};
use crate::registry::catalog::Catalog;
use crate::registry::visibility::{Viewer, Visibility};

/// What one request's caller may see and use.
#[derive(Debug, Default)]
pub(crate) enum Access {
    /// Nothing is checked: the server is not authenticated, or the request
    /// did not come over HTTP.
    #[default]
    Unchecked,
    /// The caller, whose token's scopes are what it is granted (an
    /// anonymous caller with none when an authenticated server's request
    /// carries no [`Principal`]: whatever let it through vouched for no
    /// one, so it reaches only what declares no scope). One shared pointer,
    /// so that every request, checked or not, stays small.
    /// Only HTTP requests are ever checked, so without the `http` feature
    /// nothing makes this.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Granted(Principal),
}

impl Access {
    /// The access of a request to a server that is `authenticated`, whose
    /// HTTP request carries `principal`. A [`Principal`] on a server
    /// without authentication is ignored: nothing verified it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn of(authenticated: bool, principal: Option<&Principal>) -> Self {
        if !authenticated {
            return Access::Unchecked;
        }
        Access::Granted(principal.cloned().unwrap_or_default())
    }

    /// Whether anything is checked.
    pub(crate) fn is_checked(&self) -> bool {
        matches!(self, Access::Granted(_))
    }

    /// Whether the caller may see and use an entry declaring `scopes`
    /// (every one of them must be granted).
    pub(crate) fn allows(&self, scopes: &[String]) -> bool {
        match self {
            Access::Unchecked => true,
            Access::Granted(caller) => scopes.iter().all(|s| caller.has_scope(s)),
        }
    }

    /// Whether the caller may see and use an entry declaring `scopes`
    /// and shown by `rule`, if it has one.
    pub(crate) fn shows(&self, scopes: &[String], rule: Option<&Visibility>) -> bool {
        self.allows(scopes) && rule.is_none_or(|rule| rule.admits(&self.viewer()))
    }

    /// Whether what this caller is shown of `catalog` may differ from what
    /// another is: scopes are checked, or an entry has a visibility rule.
    pub(crate) fn filters(&self, catalog: &Catalog) -> bool {
        self.is_checked() || catalog.has_visibility_rules()
    }

    /// The caller as a visibility rule sees it: its principal only when
    /// something verified one.
    pub(crate) fn viewer(&self) -> Viewer<'_> {
        match self {
            Access::Unchecked => Viewer::new(None),
            Access::Granted(caller) => Viewer::new(Some(caller)),
        }
    }
}

/// A request refused because its caller lacks scopes the entry it names
/// declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScopeRefusal {
    /// What was asked for: `tool`, `prompt` or `resource`, and its name or URI.
    what: (&'static str, String),
    /// Every scope the entry declares, not only the missing ones: what a
    /// token must grant (RFC 6750 §3's `scope` attribute).
    needed: Vec<String>,
}

impl ScopeRefusal {
    /// The scopes a token must grant, as the challenge's `scope` lists them.
    pub(crate) fn scope_attribute(&self) -> String {
        self.needed.join(" ")
    }

    /// The `WWW-Authenticate` challenge of the 403 (RFC 6750 §3.1), with the
    /// Protected Resource Metadata's URL when the server publishes one
    /// (RFC 9728 §5.1: a client may look there for where to ask). Scope
    /// tokens hold neither `"` nor `\` (RFC 6749 §3.3, checked when the
    /// server was built), and the URL was a valid header value already, so
    /// the quoted strings need no escaping.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    ///
    /// `scheme` is the one the request's token came with: `Bearer`, or
    /// `DPoP` for a token bound to a key (RFC 9449 §7.1).
    pub(crate) fn challenge(&self, scheme: &str, resource_metadata: Option<&str>) -> String {
        let mut challenge = format!(r#"{scheme} error="insufficient_scope", scope="{}""#, self.scope_attribute());
        if let Some(url) = resource_metadata {
            challenge.push_str(&format!(r#", resource_metadata="{url}""#));
        }
        challenge
    }

    /// The JSON-RPC error of the refusal.
    ///
    /// `-32600` (Invalid Request): the refusal is the HTTP layer's (a 403
    /// the client's OAuth handling acts on), and this transport answers its
    /// other HTTP-level refusals (a bad `Origin`, a body it cannot take)
    /// with `-32600` too. The protocol defines no code for it: codes in
    /// `-32020…-32099` may only carry the meanings it gives them, those in
    /// `-32000…-32019` are deprecated, and a code of our own outside the
    /// reserved range would be one no client knows. `data.requiredScopes`
    /// names every scope the entry needs, as the challenge does.
    pub(crate) fn error(&self) -> ErrorObject {
        let (kind, name) = &self.what;
        let message = format!("Insufficient scope: the {kind} `{name}` needs the scopes {}", self.scope_attribute());
        ErrorObject::invalid_request(message).with_data(json!({ "requiredScopes": self.needed }))
    }
}

/// What `method` (`tools/call`, `prompts/get`, `resources/read`) names as
/// `target` needs, when the catalog serves it and it declares scopes.
/// An entry hidden from the caller of `access` needs nothing: it is
/// unknown to that caller, and answered so.
pub(crate) fn required<'a>(
    catalog: &'a Catalog,
    access: &Access,
    method: &str,
    target: &str,
) -> Option<(&'static str, &'a [String])> {
    let (kind, scopes) = match Method::parse(method)? {
        Method::ToolsCall => {
            let tool = catalog.tool(catalog.tool_position(target)?);
            ("tool", tool.scopes.as_ref().filter(|_| !tool.hidden_from(access)))
        }
        Method::PromptsGet => {
            let prompt = catalog.prompt(target)?;
            ("prompt", prompt.scopes.as_ref().filter(|_| !prompt.hidden_from(access)))
        }
        Method::ResourcesRead => {
            let entry = catalog.resource(target).filter(|entry| !entry.hidden_from(access)).or_else(|| {
                catalog.match_template_unless(target, |entry| entry.hidden_from(access)).map(|(entry, _)| entry)
            })?;
            ("resource", entry.scopes.as_ref())
        }
        _ => return None,
    };
    scopes.map(|scopes| (kind, scopes.as_slice()))
}

/// The refusal of a request for `target` by `method` from a caller with
/// `access`, if it lacks a scope the entry declares.
pub(crate) fn check(catalog: &Catalog, access: &Access, method: &str, target: &str) -> Option<ScopeRefusal> {
    if !access.is_checked() {
        return None;
    }
    let (kind, scopes) = required(catalog, access, method, target)?;
    (!access.allows(scopes)).then(|| ScopeRefusal { what: (kind, target.to_owned()), needed: scopes.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_principal_counts_only_on_an_authenticated_server() {
        let reader = Principal::new("ada").with_scopes(["notes:read"]);
        let unchecked = Access::of(false, Some(&reader));
        assert!(!unchecked.is_checked());
        assert!(unchecked.allows(&["admin".to_owned()]));
        let granted = Access::of(true, Some(&reader));
        assert!(granted.allows(&["notes:read".to_owned()]));
        assert!(!granted.allows(&["notes:read".to_owned(), "notes:write".to_owned()]));
        let nobody = Access::of(true, None);
        assert!(nobody.allows(&[]));
        assert!(!nobody.allows(&["notes:read".to_owned()]));
    }

    #[test]
    fn a_refusal_names_every_scope_needed() {
        let refusal = ScopeRefusal { what: ("tool", "edit".into()), needed: vec!["a:b".into(), "c".into()] };
        assert_eq!(refusal.challenge("Bearer", None), r#"Bearer error="insufficient_scope", scope="a:b c""#);
        assert_eq!(refusal.challenge("DPoP", None), r#"DPoP error="insufficient_scope", scope="a:b c""#);
        assert_eq!(
            refusal.challenge("Bearer", Some("https://mcp.example/.well-known/oauth-protected-resource/mcp")),
            r#"Bearer error="insufficient_scope", scope="a:b c", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp""#
        );
        let error = refusal.error();
        assert_eq!(error.code, -32600);
        assert_eq!(error.data, Some(json!({"requiredScopes": ["a:b", "c"]})));
        assert!(error.message.contains("tool `edit`"), "{}", error.message);
    }
}
