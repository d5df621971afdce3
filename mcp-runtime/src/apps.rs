//! Interactive views (MCP Apps, the `io.modelcontextprotocol/ui` extension):
//! an HTML view served as a `ui://` resource, which a host renders in a
//! sandboxed frame beside the conversation, and tools bound to it, whose
//! input and result the host hands the view.
//!
//! A view is a resource entry marked with [`View`] (its MIME type becomes
//! exactly [`MIME_TYPE`], and its settings are written as `_meta.ui` on its
//! `resources/list` entry and on its `resources/read` content); a tool is
//! bound to a view with [`ToolEntry::view`](crate::entry::ToolEntry::view).
//! The server then declares the extension (in `server/discover`, and in the
//! `initialize` result of a 2025-era session), and a handler can ask whether
//! this request's client renders views
//! ([`RequestContext::client_renders_views`](crate::RequestContext::client_renders_views)),
//! so that its text can say more when none will be shown.
//!
//! ```
//! use mcp_runtime::apps::{View, Visibility};
//! use mcp_runtime::entry::{ResourceEntry, ToolEntry};
//!
//! const BOARD: &str = "<!doctype html><html><body><h1>Notes</h1></body></html>";
//!
//! let server = mcp_runtime::Server::builder("notes", "1.0.0")
//!     .resource(
//!         ResourceEntry::fixed("ui://notes/board.html", "board", || async { BOARD })
//!             .view(View::new().connect_domains(["https://api.example.com"]).prefers_border(true)),
//!     )
//!     .tool(ToolEntry::new("show_board", || async { "3 notes" }).view("ui://notes/board.html"))
//!     .tool(
//!         ToolEntry::new("refresh_board", || async { "refreshed" })
//!             .view("ui://notes/board.html")
//!             .visibility(Visibility::App),
//!     )
//!     .build()
//!     .expect("a valid server");
//! assert!(server.capabilities().extensions.unwrap().contains_key(mcp_runtime::apps::EXTENSION));
//! ```
//!
//! With the macros, the same server is `#[resource("ui://notes/board.html",
//! view(...))]` on the function returning the HTML and `#[tool(view =
//! "ui://notes/board.html", visibility = app)]` on the tools (see
//! [`#[resource]`](macro@crate::resource) and [`#[tool]`](macro@crate::tool)).
//! A tool bound to a view no resource serves is a [`BuildError::View`](crate::BuildError::View).
//!
//! Visibility is what a host shows the model, never an authorization: a
//! host forwards a view's calls as ordinary `tools/call` requests, which the
//! server cannot tell from the model's, so an app-only tool is checked like
//! any other (scopes included).
//!
#![doc = include_str!("../doc/apps_view.md")]
#![cfg_attr(feature = "client", doc = "\n\n[`ServerBuilder::proxy`]: crate::ServerBuilder::proxy")]
// Without the feature, the name leads to mounting a server in process.
#![cfg_attr(not(feature = "client"), doc = "\n\n[`ServerBuilder::proxy`]: crate::ServerBuilder::mount")]

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use mcp_runtime_rules::view as view_rules;

use crate::protocol::ClientCapabilities;

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view, exactly as hosts compare it.
pub const MIME_TYPE: &str = view_rules::MIME_TYPE;

/// The settings of a view, written as `_meta.ui` on its resource: the
/// sandbox's Content Security Policy, the browser permissions it asks for,
/// a dedicated origin, and whether the host draws a border around it.
///
/// A host allows no external origin the view did not declare. Each domain
/// is an origin (`https://api.example.com`, with a port if any; resource
/// domains may start their host with `*.`), checked when the server is
/// built.
///
/// ```
/// use mcp_runtime::apps::View;
/// let view = View::new()
///     .connect_domains(["https://api.example.com"])
///     .resource_domains(["https://*.example-cdn.com"])
///     .clipboard_write()
///     .prefers_border(false);
/// # let _ = view;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct View {
    #[serde(skip_serializing_if = "Csp::is_empty")]
    csp: Csp,
    #[serde(skip_serializing_if = "Permissions::is_empty")]
    permissions: Permissions,
    #[serde(skip_serializing_if = "Option::is_none")]
    domain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefers_border: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Csp {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    connect_domains: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resource_domains: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    frame_domains: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    base_uri_domains: Vec<String>,
}

impl Csp {
    fn is_empty(&self) -> bool {
        self == &Csp::default()
    }
}

/// Each permission asked for is an empty object (its presence is the request).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Permissions {
    #[serde(skip_serializing_if = "Option::is_none")]
    camera: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    microphone: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    geolocation: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clipboard_write: Option<Empty>,
}

impl Permissions {
    fn is_empty(&self) -> bool {
        self == &Permissions::default()
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
struct Empty {}

fn strings(domains: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    domains.into_iter().map(Into::into).collect()
}

impl View {
    /// The view a resource of another server is, from what it lists: its
    /// MIME type, and its `_meta.ui` (settings that do not read are left
    /// out: the view's own read carries them to the host anyway). `None`
    /// for a resource that is no view.
    #[cfg(feature = "client")]
    pub(crate) fn of_listed(resource: &crate::protocol::Resource) -> Option<View> {
        if resource.mime_type.as_deref() != Some(MIME_TYPE) || !resource.uri.starts_with("ui://") {
            return None;
        }
        let ui = resource.meta.as_ref().and_then(|meta| meta.get("ui"));
        Some(ui.and_then(|ui| View::deserialize(ui).ok()).unwrap_or_default())
    }

    /// A view with no external origins, no permissions, and the host's
    /// defaults for its origin and border.
    pub fn new() -> Self {
        View::default()
    }

    /// Origins the view may connect to (`fetch`, XHR, WebSocket: CSP `connect-src`).
    pub fn connect_domains(mut self, domains: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.csp.connect_domains.extend(strings(domains));
        self
    }

    /// Origins the view may load scripts, styles, images, fonts and media
    /// from; a host may start with `*.` for its subdomains.
    pub fn resource_domains(mut self, domains: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.csp.resource_domains.extend(strings(domains));
        self
    }

    /// Origins the view may embed in frames of its own.
    pub fn frame_domains(mut self, domains: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.csp.frame_domains.extend(strings(domains));
        self
    }

    /// Origins the view's `<base>` may name.
    pub fn base_uri_domains(mut self, domains: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.csp.base_uri_domains.extend(strings(domains));
        self
    }

    /// Asks for the camera (a host may refuse: the view must check).
    pub fn camera(mut self) -> Self {
        self.permissions.camera = Some(Empty {});
        self
    }

    /// Asks for the microphone.
    pub fn microphone(mut self) -> Self {
        self.permissions.microphone = Some(Empty {});
        self
    }

    /// Asks for the position of the device.
    pub fn geolocation(mut self) -> Self {
        self.permissions.geolocation = Some(Empty {});
        self
    }

    /// Asks to write to the clipboard.
    pub fn clipboard_write(mut self) -> Self {
        self.permissions.clipboard_write = Some(Empty {});
        self
    }

    /// A dedicated origin for the view, in the host's own format (for OAuth
    /// callbacks or CORS allow-lists that must name it).
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Whether the host draws a border and background around the view
    /// (hosts' defaults differ: say it).
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.prefers_border = Some(border);
        self
    }

    /// The settings as `_meta.ui`.
    pub(crate) fn meta(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| Value::Object(Map::new()))
    }

    /// Why a declared domain is not an origin, if one is not.
    pub(crate) fn invalid_domain(&self) -> Option<String> {
        let csp = &self.csp;
        let lists = [
            ("connect", &csp.connect_domains),
            ("resource", &csp.resource_domains),
            ("frame", &csp.frame_domains),
            ("base-URI", &csp.base_uri_domains),
        ];
        lists
            .into_iter()
            .find_map(|(list, domains)| domains.iter().find_map(|domain| view_rules::check_domain(list, domain)))
    }
}

/// Who a tool bound to a view is for: the model, the view, or both (the
/// default). A host shows the model only tools for the model, and lets a
/// view call only tools for the view; the server lists and serves all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Visibility {
    /// The model and the view (what a host assumes when none is said).
    #[default]
    ModelAndApp,
    /// The model only: the view may not call it.
    Model,
    /// The view only: the host does not offer it to the model.
    App,
}

impl Visibility {
    pub(crate) fn names(self) -> &'static [&'static str] {
        match self {
            Visibility::ModelAndApp => &["model", "app"],
            Visibility::Model => &["model"],
            Visibility::App => &["app"],
        }
    }
}

/// Whether a client with `capabilities` renders views: it declares the
/// extension with [`MIME_TYPE`] among its `mimeTypes` (a declaration
/// without them does not count).
pub(crate) fn renders_views(capabilities: &ClientCapabilities) -> bool {
    let settings = capabilities.extensions.as_ref().and_then(|extensions| extensions.get(EXTENSION));
    let types = settings.and_then(|settings| settings.get("mimeTypes")).and_then(Value::as_array);
    types.is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn settings_are_written_as_hosts_read_them() {
        let view = View::new()
            .connect_domains(["https://api.example.com"])
            .resource_domains(["https://*.cdn.example.com"])
            .frame_domains(["https://maps.example.com"])
            .base_uri_domains(["https://example.com"])
            .camera()
            .microphone()
            .geolocation()
            .clipboard_write()
            .domain("notes.example.com")
            .prefers_border(true);
        assert_eq!(
            view.meta(),
            json!({
                "csp": {
                    "connectDomains": ["https://api.example.com"],
                    "resourceDomains": ["https://*.cdn.example.com"],
                    "frameDomains": ["https://maps.example.com"],
                    "baseUriDomains": ["https://example.com"],
                },
                "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
                "domain": "notes.example.com",
                "prefersBorder": true,
            })
        );
        assert_eq!(View::new().meta(), json!({}));
        assert_eq!(view.invalid_domain(), None);
    }

    #[test]
    fn a_domain_must_be_an_origin() {
        let bad = View::new().connect_domains(["https://api.example.com/v1"]).invalid_domain();
        assert!(bad.is_some_and(|reason| reason.starts_with("connect domain `https://api.example.com/v1`")));
        let wildcard = View::new().frame_domains(["https://*.example.com"]).invalid_domain();
        assert!(wildcard.is_some_and(|reason| reason.starts_with("frame domain")));
        assert_eq!(View::new().resource_domains(["https://*.example.com"]).invalid_domain(), None);
    }

    #[test]
    fn a_client_renders_views_only_when_it_names_the_mime_type() {
        let caps = |value: Value| serde_json::from_value::<ClientCapabilities>(value).expect("capabilities");
        assert!(renders_views(&caps(json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}}))));
        assert!(!renders_views(&caps(json!({"extensions": {EXTENSION: {}}}))));
        assert!(!renders_views(&caps(json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}}))));
        assert!(!renders_views(&caps(json!({}))));
    }
}
