//! Interactive views (MCP Apps) on the builder's entries: a resource made
//! a view, tools bound to one, what a view's read returns, and the checks
//! made when a server is built. The settings themselves are
//! [`crate::apps`]'s.

use serde_json::{Map, Value};

use crate::apps::{MIME_TYPE, View, Visibility};
use crate::protocol::ResourceContents;
use crate::registry::catalog::Entries;
use crate::registry::entry::{ResourceEntry, ResourceKind, ToolEntry};
use crate::registry::error::{BuildError, Problems};

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

impl ToolEntry {
    /// Serves the tool under a mount: its view's URI as the mount serves
    /// the view (`rewrite`), and its own name at its server kept as the
    /// name its views call it by (see [`view_alias`](Self::view_alias)).
    pub(crate) fn mounted_view(&mut self, own_name: &str, rewrite: impl Fn(&str) -> String) {
        if let Some(meta) = self.definition.meta.as_mut() {
            if let Some(Value::String(uri)) = meta.get_mut("ui").and_then(|ui| ui.get_mut("resourceUri")) {
                *uri = rewrite(uri);
            }
            if let Some(Value::String(uri)) = meta.get_mut(FLAT_KEY) {
                *uri = rewrite(uri);
            }
        }
        // Mounted again, it keeps the name its views know it by.
        self.view_alias.get_or_insert_with(|| own_name.to_owned());
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
pub(crate) fn check(entries: &Entries, problems: &mut Problems) {
    let mut refuse = |kind, name: &str, reason: String, location| {
        problems.push(BuildError::View { kind, name: name.to_owned(), reason, location });
    };
    for resource in &entries.resources {
        let Some(view) = &resource.view else { continue };
        let uri = resource.uri();
        if matches!(resource.kind, ResourceKind::Template(..)) {
            let reason = "a view is one resource, not a template: make it with `ResourceEntry::fixed`".to_owned();
            refuse("resource", uri, reason, resource.location);
        } else if let Some(reason) = mcp_runtime_rules::view::check_uri(uri) {
            refuse("resource", uri, reason, resource.location);
        }
        if let Some(reason) = view.invalid_domain() {
            refuse("resource", uri, reason, resource.location);
        }
    }
    for tool in &entries.tools {
        let Some(uri) = tool.view_uri() else { continue };
        let served = entries.resources.iter().any(|r| r.view.is_some() && r.uri() == uri);
        if !served {
            let not_a_view = entries.resources.iter().any(|r| r.uri() == uri);
            let reason = unserved_view(uri, not_a_view, tool.location.is_remote());
            refuse("tool", &tool.definition.name, reason, tool.location);
        }
    }
}

/// Why a tool's view is not served, and what to do: in the attribute's
/// words and the builder's, or, for a tool of a mounted remote, that the
/// remote has no such view (nothing here can serve it).
fn unserved_view(uri: &str, not_a_view: bool, remote: bool) -> String {
    let unserved = format!("it is bound to the view `{uri}`, which no resource serves");
    if remote {
        return format!(
            "{unserved}: the remote server lists no such view (a `ui://` resource of MIME type `{MIME_TYPE}`), so \
             the remote must serve it, or bind its tool to none"
        );
    }
    if not_a_view {
        return format!(
            "{unserved} as a view: the resource `{uri}` is not one; add `view` to its attribute \
             (`#[resource(\"{uri}\", view)]`), or `.view(View::new())` to its `ResourceEntry`"
        );
    }
    format!(
        "{unserved}: make the function that returns its HTML a view with `#[resource(\"{uri}\", view)]`, or \
         register one with `ResourceEntry::fixed(\"{uri}\", \"name\", handler).view(View::new())`"
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::registry::location::SourceLocation;

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

    fn unserved(tool: ToolEntry, resources: Vec<ResourceEntry>) -> String {
        let entries = Entries {
            tools: vec![tool],
            prompts: Vec::new(),
            resources,
            #[cfg(feature = "skills")]
            skills: Vec::new(),
        };
        let mut problems = Problems::default();
        check(&entries, &mut problems);
        problems.into_result().expect_err("a view no resource serves").to_string()
    }

    #[test]
    fn an_unserved_view_is_named_with_the_fix_in_the_users_words() {
        let tool = || ToolEntry::new("show", || async { "shown" }).view("ui://notes/board.html");
        let message = unserved(tool(), Vec::new());
        assert!(message.starts_with("tool `show` (at "), "{message}");
        assert!(message.contains("bound to the view `ui://notes/board.html`, which no resource serves: "), "{message}");
        assert!(message.contains("`#[resource(\"ui://notes/board.html\", view)]`"), "the attribute: {message}");
        assert!(
            message.contains("`ResourceEntry::fixed(\"ui://notes/board.html\", \"name\", handler).view(View::new())`"),
            "the builder: {message}"
        );

        let plain = ResourceEntry::fixed("ui://notes/board.html", "board", || async { "<html></html>" });
        let message = unserved(tool(), vec![plain]);
        assert!(
            message.contains("which no resource serves as a view: the resource `ui://notes/board.html` is not one")
        );
        assert!(message.contains("add `view` to its attribute (`#[resource(\"ui://notes/board.html\", view)]`)"));

        let mut remote = tool();
        remote.location = SourceLocation::remote("the server mounted at `notes`");
        let message = unserved(remote, Vec::new());
        assert!(message.starts_with("tool `show` (at the server mounted at `notes`): "), "{message}");
        assert!(message.contains("which no resource serves: the remote server lists no such view"), "{message}");
        assert!(!message.contains("#[resource"), "nothing to write here for a remote's view: {message}");
    }
}
