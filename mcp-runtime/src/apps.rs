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
//! Visibility is what a host shows the model, never an authorization: a
//! host forwards a view's calls as ordinary `tools/call` requests, which the
//! server cannot tell from the model's, so an app-only tool is checked like
//! any other (scopes included).

use serde::Serialize;
use serde_json::{Map, Value};

use mcp_runtime_rules::view as view_rules;

use crate::protocol::{ClientCapabilities, ResourceContents};
use crate::registry::catalog::Entries;
use crate::registry::entry::{ResourceEntry, ResourceKind, ToolEntry};
use crate::registry::error::BuildError;

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view, exactly as hosts compare it.
pub const MIME_TYPE: &str = view_rules::MIME_TYPE;

/// The scheme every view's URI starts with.
pub const URI_SCHEME: &str = view_rules::URI_SCHEME;

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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
struct Empty {}

fn strings(domains: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    domains.into_iter().map(Into::into).collect()
}

impl View {
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
    fn names(self) -> &'static [&'static str] {
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

impl ResourceEntry {
    /// Makes the resource an interactive view: its MIME type becomes
    /// exactly [`MIME_TYPE`] (on its listing and on what it reads), and
    /// `view`'s settings are written as `_meta.ui` on both. Its URI must
    /// start with `ui://`, and it must be one resource, not a template
    /// ([`BuildError::View`] otherwise). Its handler returns the HTML: a
    /// file compiled into the binary with `include_str!`, say, so that the
    /// server reads nothing at run time.
    ///
    /// ```
    /// use mcp_runtime::apps::View;
    /// use mcp_runtime::entry::ResourceEntry;
    /// // In a real server: `include_str!("board.html")`.
    /// const BOARD: &str = "<!doctype html><html><body>…</body></html>";
    /// let board = ResourceEntry::fixed("ui://notes/board.html", "board", || async { BOARD })
    ///     .view(View::new().prefers_border(true));
    /// # let _ = board;
    /// ```
    pub fn view(mut self, view: View) -> Self {
        if let ResourceKind::Fixed(resource) = &mut self.kind {
            resource.meta.get_or_insert_with(Map::new).insert("ui".to_owned(), view.meta());
        }
        self.view = Some(view);
        self.mime_type(MIME_TYPE)
    }
}

impl ToolEntry {
    /// Binds the tool to the view at `resource_uri` (a `ui://` resource
    /// made with [`ResourceEntry::view`]): a host that renders views shows
    /// it with the tool's input and result. Written as
    /// `_meta.ui.resourceUri` on every listing, whatever the client
    /// declared (hosts and caches that declare nothing still read it).
    ///
    /// The tool's text result should stand on its own for clients that show
    /// no view ([`RequestContext::client_renders_views`](crate::RequestContext::client_renders_views)).
    pub fn view(mut self, resource_uri: impl Into<String>) -> Self {
        self.ui_member("resourceUri", Value::String(resource_uri.into()));
        self
    }

    /// Who the tool is for (default: the model and the view). A host hides
    /// an app-only tool from the model; the server still lists and serves
    /// it, and checks it like any other.
    pub fn visibility(mut self, visibility: Visibility) -> Self {
        let names = visibility.names().iter().map(|name| Value::from(*name)).collect();
        self.ui_member("visibility", Value::Array(names));
        self
    }

    /// Also writes the view's URI under the flat key `_meta["ui/resourceUri"]`,
    /// which hosts from before the nested form read (deprecated by the
    /// extension: only for such hosts).
    pub fn flat_view_key(mut self) -> Self {
        if let Some(uri) = self.view_uri().map(str::to_owned) {
            self.definition.meta.get_or_insert_with(Map::new).insert(FLAT_KEY.to_owned(), Value::String(uri));
        }
        self
    }

    fn ui_member(&mut self, key: &str, value: Value) {
        let meta = self.definition.meta.get_or_insert_with(Map::new);
        let ui = meta.entry("ui").or_insert_with(|| Value::Object(Map::new()));
        if !ui.is_object() {
            *ui = Value::Object(Map::new());
        }
        if let Some(ui) = ui.as_object_mut() {
            ui.insert(key.to_owned(), value);
        }
        if key == "resourceUri" && meta.contains_key(FLAT_KEY) {
            let uri = meta.get("ui").and_then(|ui| ui.get("resourceUri")).cloned();
            meta.insert(FLAT_KEY.to_owned(), uri.unwrap_or(Value::Null));
        }
    }

    /// The URI of the view the tool is bound to, if any.
    pub(crate) fn view_uri(&self) -> Option<&str> {
        self.definition.meta.as_ref()?.get("ui")?.get("resourceUri")?.as_str()
    }
}

/// The deprecated flat key of a tool's view.
const FLAT_KEY: &str = "ui/resourceUri";

/// What a view's read returns: each item with the view's MIME type and its
/// settings as `_meta.ui` (unless the handler set its own, which then wins).
pub(crate) fn shape_contents(view: &View, contents: &mut [ResourceContents]) {
    for item in contents {
        item.mime_type = Some(MIME_TYPE.to_owned());
        let meta = item.meta.get_or_insert_with(Map::new);
        meta.entry("ui").or_insert_with(|| view.meta());
    }
}

/// The views and the tools bound to them, checked when a server is built.
pub(crate) fn check(entries: &Entries) -> Result<(), BuildError> {
    let refuse = |kind, name: &str, reason: String, location| {
        Err(BuildError::View { kind, name: name.to_owned(), reason, location })
    };
    for resource in &entries.resources {
        let Some(view) = &resource.view else { continue };
        let uri = resource.uri();
        if matches!(resource.kind, ResourceKind::Template(..)) {
            let reason = "a view is one resource, not a template: make it with `ResourceEntry::fixed`".to_owned();
            return refuse("resource", uri, reason, resource.location);
        }
        if let Some(reason) = view_rules::check_uri(uri) {
            return refuse("resource", uri, reason, resource.location);
        }
        if let Some(reason) = view.invalid_domain() {
            return refuse("resource", uri, reason, resource.location);
        }
    }
    for tool in &entries.tools {
        let Some(uri) = tool.view_uri() else { continue };
        let served = entries.resources.iter().any(|r| r.view.is_some() && r.uri() == uri);
        if !served {
            let reason = format!(
                "it is bound to the view `{uri}`, which no resource serves: register one with `ResourceEntry::fixed(\"{uri}\", …).view(View::new())`"
            );
            return refuse("tool", &tool.definition.name, reason, tool.location);
        }
    }
    Ok(())
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

    #[test]
    fn a_tool_names_its_view_and_who_it_is_for() {
        let meta = |tool: ToolEntry| serde_json::to_value(tool.definition.meta).expect("JSON");
        let tool = || ToolEntry::new("show", || async { "shown" });
        assert_eq!(meta(tool().view("ui://a")), json!({"ui": {"resourceUri": "ui://a"}}));
        assert_eq!(
            meta(tool().view("ui://a").visibility(Visibility::App)),
            json!({"ui": {"resourceUri": "ui://a", "visibility": ["app"]}})
        );
        assert_eq!(meta(tool().visibility(Visibility::Model).view("ui://b"))["ui"]["visibility"], json!(["model"]));
        assert_eq!(meta(tool().visibility(Visibility::ModelAndApp))["ui"]["visibility"], json!(["model", "app"]));
        assert_eq!(
            meta(tool().view("ui://a").flat_view_key().view("ui://c")),
            json!({"ui": {"resourceUri": "ui://c"}, "ui/resourceUri": "ui://c"})
        );
        assert_eq!(meta(tool().flat_view_key()), Value::Null, "no view, no key");
    }
}
