//! The entries a server serves, [`ToolEntry`], [`PromptEntry`] and
//! [`ResourceEntry`] (a definition with its handler), built from closures
//! (the builder API) or from the static descriptors `#[tool]`, `#[prompt]`
//! and `#[resource]` generate, which are defined here too.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::handler::call::{CompleteCall, PromptCall, ResourceCall, ToolCall};
use crate::handler::functions::{
    BoxFuture, CompleteFn, PromptFn, PromptHandler, RelayFn, ResourceFn, ResourceHandler, ToolFn, ToolHandler,
};
use crate::handler::outcome::{PromptOutcome, ResourceOutcome, ToolOutcome};
use crate::handler::state::StateRequirement;
use crate::middleware::{Layer, Layers};
use crate::protocol::{
    Annotations, CacheHints, Completion, ErrorObject, Icon, Prompt, PromptArgument, Resource, ResourceTemplate, Tool,
    ToolAnnotations,
};
use crate::registry::location::SourceLocation;
use crate::registry::visibility::{Viewer, Visibility};
use crate::tasks::TaskSupport;
use crate::uri_template::{TemplateError, UriTemplate};
use mcp_catalog::profile::{NullPlan, Profile as SchemaProfile};

/// The adapter a macro generates for the completers of one prompt or
/// resource template.
pub type CompleterFn = fn(CompleteCall) -> BoxFuture<'static, Result<Completion, ErrorObject>>;

/// A tool: its definition and its handler.
///
/// ```
/// use mcp_runtime::{Args, entry::ToolEntry};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
///
/// let add = ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b })
///     .description("Adds two numbers.");
/// assert_eq!(add.definition().input_schema["required"], serde_json::json!(["a", "b"]));
/// ```
#[derive(Clone)]
pub struct ToolEntry {
    pub(crate) definition: Tool,
    pub(crate) handler: ToolFn,
    /// How a call is relayed, its result passed on as written, when the
    /// tool is another server's (a mounted remote's); the `handler` reads
    /// that result into a value where the call is answered otherwise (a
    /// 2025-era session, a task).
    pub(crate) relay: Option<RelayFn>,
    pub(crate) requirements: Vec<StateRequirement>,
    pub(crate) location: SourceLocation,
    /// The profile the input schema was fitted to, so a rebuilt catalog
    /// does not fit it twice.
    pub(crate) fitted: Option<SchemaProfile>,
    /// The `null`s a fitted input schema lets through for optional
    /// arguments, removed before the handler reads the arguments.
    pub(crate) nulls: Option<Arc<NullPlan>>,
    /// Whether it may or must run as a task; `None`: never.
    pub(crate) task: Option<TaskSupport>,
    /// Whether request spans record its arguments and results.
    pub(crate) trace_content: bool,
    /// The scopes a caller must be granted, checked on authenticated servers.
    pub(crate) scopes: Option<Vec<String>>,
    /// The rule of who is shown it, on top of the scopes.
    pub(crate) visible: Option<Visibility>,
    /// Its own middleware, inside the server's; `None` for none.
    pub(crate) layers: Option<Layers>,
    /// The mounted remote that serves it, which alone may replace or
    /// remove it while serving; `None` for the server's own.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) owner: Option<Owner>,
    /// The tool's name at the server it was mounted from, when that server
    /// serves views: what those views call it by (a view names its
    /// server's tools as that server does, not as the mount renames them).
    pub(crate) view_alias: Option<String>,
    /// The tools whose cached results a call of this one makes stale.
    pub(crate) invalidates: Vec<String>,
}

/// Names a mounted remote, the owner of the entries it serves.
pub(crate) type Owner = Arc<str>;

impl ToolEntry {
    /// A tool named `name` served by `handler`. The input schema comes from
    /// the handler's `Args<T>` (or is an empty object schema without one);
    /// the output schema from its return type.
    ///
    /// The name must follow the rule `#[tool]` checks (1 to 128 characters
    /// from `A-Z a-z 0-9 _ - .`); a server with a tool named otherwise fails
    /// to build with [`BuildError::ToolName`](crate::BuildError::ToolName).
    #[track_caller]
    pub fn new<H: ToolHandler<M>, M>(name: impl Into<String>, handler: H) -> Self {
        let input_schema = H::input_schema().unwrap_or_else(empty_object_schema);
        let mut definition = Tool::new(name, input_schema);
        definition.output_schema = H::output_schema();
        ToolEntry {
            definition,
            handler: Arc::new(move |call| handler.call(call)),
            relay: None,
            requirements: H::requirements(),
            location: SourceLocation::caller(),
            fitted: None,
            nulls: None,
            task: None,
            trace_content: false,
            scopes: None,
            visible: None,
            layers: None,
            owner: None,
            view_alias: None,
            invalidates: Vec::new(),
        }
    }

    /// An entry from a static descriptor generated by `#[tool]`.
    pub(crate) fn from_descriptor(d: &'static ToolDescriptor) -> Self {
        let entry = ToolEntry {
            definition: (d.definition)(),
            handler: Arc::new(d.handler),
            relay: None,
            requirements: (d.requirements)(),
            location: d.location,
            fitted: None,
            nulls: None,
            task: d.task,
            trace_content: false,
            scopes: of_descriptor(d.scopes),
            visible: d.visible_to.map(Visibility::new),
            layers: d.layers.map(|layers| layers().into()),
            owner: None,
            view_alias: None,
            invalidates: d.invalidates.iter().map(|&tool| tool.to_owned()).collect(),
        };
        let entry = match d.view {
            Some(uri) => entry.view(uri),
            None => entry,
        };
        match d.visibility {
            Some(visibility) => entry.visibility(visibility),
            None => entry,
        }
    }

    /// Lets the tool run as a task (the tasks extension): with
    /// [`TaskSupport::optional`] for clients that declare the extension,
    /// with [`TaskSupport::required`] only for them. What `#[tool(task)]`
    /// and `#[tool(task(required))]` declare.
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = Some(support);
        self
    }

    /// Adds a middleware layer that only this tool's calls pass, inside
    /// the server's layers ([`ServerBuilder::layer`](crate::ServerBuilder::layer));
    /// the first added is the outermost. What `#[tool(layer = ...)]`
    /// declares.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::entry::ToolEntry;
    /// use mcp_runtime::middleware::TimeLimit;
    ///
    /// let slow = ToolEntry::new("slow", || async { "done" }).layer(TimeLimit::new(Duration::from_secs(5)));
    /// # let _ = slow;
    /// ```
    pub fn layer(mut self, layer: impl Layer) -> Self {
        let mut layers: Vec<Arc<dyn Layer>> = self.layers.as_deref().map(<[_]>::to_vec).unwrap_or_default();
        layers.push(Arc::new(layer));
        self.layers = Some(layers.into());
        self
    }

    /// Declares that a call of this tool changes what `tool` answers: once
    /// a call of it has answered with a result (not an error, nor a
    /// question), `tool`'s results kept by a `ResultCache` (feature
    /// `cache`) of the server (server-wide, or `tool`'s own) are
    /// invalidated, every caller's. What
    /// `#[tool(invalidates = ["..."])]` declares. A server whose tools
    /// invalidate a tool it does not have fails to build
    /// ([`BuildError::Cache`](crate::BuildError::Cache)).
    ///
    /// ```
    /// use mcp_runtime::entry::ToolEntry;
    ///
    /// let add = ToolEntry::new("add_article", || async { "added" }).invalidates("search_articles");
    /// # let _ = add;
    /// ```
    pub fn invalidates(mut self, tool: impl Into<String>) -> Self {
        self.invalidates.push(tool.into());
        self
    }

    /// Whether the tool may or must run as a task; `None` when it never does.
    pub fn task_support(&self) -> Option<TaskSupport> {
        self.task
    }

    /// Sets the display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.definition.title = Some(title.into());
        self
    }

    /// Sets the description the model reads.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.definition.description = Some(description.into());
        self
    }

    /// Replaces the input schema (its root `type` is forced to `"object"`).
    pub fn input_schema(mut self, mut schema: Map<String, Value>) -> Self {
        schema.insert("type".into(), Value::String("object".into()));
        self.definition.input_schema = schema;
        self
    }

    /// Sets or replaces the output schema.
    pub fn output_schema(mut self, schema: Map<String, Value>) -> Self {
        self.definition.output_schema = Some(schema);
        self
    }

    /// Sets behaviour hints.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.definition.annotations = Some(annotations);
        self
    }

    /// Adds an icon.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.definition.icons.push(icon);
        self
    }

    /// Sets the definition's `_meta`.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.definition.meta = Some(meta);
        self
    }

    /// Whether the request spans of its calls record its arguments
    /// (`gen_ai.tool.call.arguments`) and results (`gen_ai.tool.call.result`),
    /// as JSON (default false). They may hold what users typed or what the
    /// tool read: only for a tool whose content may leave the process.
    ///
    /// A `#[tool]` function opts in through its entry, `tools![search]`,
    /// or by replacing the one `server!()` collected
    /// ([`Server::add_tool`](crate::Server::add_tool)).
    pub fn trace_content(mut self, enabled: bool) -> Self {
        self.trace_content = enabled;
        self
    }

    /// The definition `tools/list` shows.
    pub fn definition(&self) -> &Tool {
        &self.definition
    }

    /// Where the tool was defined.
    pub fn location(&self) -> SourceLocation {
        self.location
    }
}

impl fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolEntry").field("name", &self.definition.name).field("location", &self.location).finish()
    }
}

/// The static description of a tool that `#[tool]` generates.
#[derive(Debug)]
pub struct ToolDescriptor {
    /// The tool's name.
    pub name: &'static str,
    /// Builds the definition (schemas included); called once per server build.
    pub definition: fn() -> Tool,
    /// The adapter that extracts arguments, calls the function and converts its result.
    pub handler: fn(ToolCall) -> BoxFuture<'static, ToolOutcome>,
    /// Shared state the function needs.
    pub requirements: fn() -> Vec<StateRequirement>,
    /// Where the function is.
    pub location: SourceLocation,
    /// `task` or `task(required)`: whether it may or must run as a task.
    pub task: Option<TaskSupport>,
    /// `scopes = [...]`: what a caller must be granted; empty for none.
    pub scopes: &'static [&'static str],
    /// `visible_to = path`: the rule of who is shown it.
    pub visible_to: Option<fn(&Viewer<'_>) -> bool>,
    /// `view = "ui://..."`: the view the tool is bound to.
    pub view: Option<&'static str>,
    /// `visibility = ...`: who a tool bound to a view is for.
    pub visibility: Option<crate::apps::Visibility>,
    /// `layer = ...` (each of them): the tool's own middleware.
    pub layers: Option<LayersFn>,
    /// `invalidates = [...]`: the tools whose cached results its calls
    /// make stale.
    pub invalidates: &'static [&'static str],
}

/// Builds a `#[tool(layer = ...)]`'s middleware, in order.
pub type LayersFn = fn() -> Vec<Arc<dyn Layer>>;

/// A prompt: its definition, its handler and an optional argument completer.
///
/// ```
/// use mcp_runtime::{Args, entry::PromptEntry};
/// #[derive(serde::Deserialize)]
/// struct Review { code: String }
///
/// let review = PromptEntry::new("review", |Args(r): Args<Review>| async move {
///         format!("Please review:\n{}", r.code)
///     })
///     .argument("code", "The code to review", true);
/// assert_eq!(review.definition().arguments.len(), 1);
/// ```
#[derive(Clone)]
pub struct PromptEntry {
    pub(crate) definition: Prompt,
    pub(crate) handler: PromptFn,
    pub(crate) completer: Option<CompleteFn>,
    pub(crate) requirements: Vec<StateRequirement>,
    pub(crate) location: SourceLocation,
    pub(crate) scopes: Option<Vec<String>>,
    /// The rule of who is shown it, on top of the scopes.
    pub(crate) visible: Option<Visibility>,
    /// The mounted remote that serves it (see [`ToolEntry`]'s).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) owner: Option<Owner>,
}

impl PromptEntry {
    /// A prompt named `name` served by `handler`.
    #[track_caller]
    pub fn new<H: PromptHandler<M>, M>(name: impl Into<String>, handler: H) -> Self {
        PromptEntry {
            definition: Prompt::new(name),
            handler: Arc::new(move |call| handler.call(call)),
            completer: None,
            requirements: H::requirements(),
            location: SourceLocation::caller(),
            scopes: None,
            visible: None,
            owner: None,
        }
    }

    /// An entry from a static descriptor generated by `#[prompt]`.
    pub(crate) fn from_descriptor(d: &'static PromptDescriptor) -> Self {
        PromptEntry {
            definition: (d.definition)(),
            handler: Arc::new(d.handler),
            completer: d.completer.map(|c| Arc::new(c) as CompleteFn),
            requirements: (d.requirements)(),
            location: d.location,
            scopes: of_descriptor(d.scopes),
            visible: d.visible_to.map(Visibility::new),
            owner: None,
        }
    }

    /// Sets the display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.definition.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.definition.description = Some(description.into());
        self
    }

    /// Declares an argument. Required arguments missing from a request are
    /// rejected with `-32602` before the handler runs.
    pub fn argument(mut self, name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        let mut arg = PromptArgument::new(name, required);
        arg.description = Some(description.into());
        self.definition.arguments.push(arg);
        self
    }

    /// Adds an icon.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.definition.icons.push(icon);
        self
    }

    /// Serves `completion/complete` for this prompt's arguments.
    pub fn completer<F, Fut>(mut self, complete: F) -> Self
    where
        F: Fn(CompleteCall) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Completion, ErrorObject>> + Send + 'static,
    {
        self.completer = Some(Arc::new(move |call| Box::pin(complete(call))));
        self
    }

    /// The definition `prompts/list` shows.
    pub fn definition(&self) -> &Prompt {
        &self.definition
    }
}

impl fmt::Debug for PromptEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptEntry").field("name", &self.definition.name).field("location", &self.location).finish()
    }
}

/// The static description of a prompt that `#[prompt]` generates.
#[derive(Debug)]
pub struct PromptDescriptor {
    /// The prompt's name.
    pub name: &'static str,
    /// Builds the definition.
    pub definition: fn() -> Prompt,
    /// The adapter.
    pub handler: fn(PromptCall) -> BoxFuture<'static, PromptOutcome>,
    /// Completion of the prompt's arguments, if any argument has a completer.
    pub completer: Option<CompleterFn>,
    /// Shared state the function needs.
    pub requirements: fn() -> Vec<StateRequirement>,
    /// Where the function is.
    pub location: SourceLocation,
    /// `scopes = [...]`: what a caller must be granted; empty for none.
    pub scopes: &'static [&'static str],
    /// `visible_to = path`: the rule of who is shown it.
    pub visible_to: Option<fn(&Viewer<'_>) -> bool>,
}

/// What a resource entry answers for: one URI, or a URI template.
#[derive(Debug, Clone)]
pub(crate) enum ResourceKind {
    Fixed(Resource),
    Template(ResourceTemplate, Result<UriTemplate, TemplateError>),
}

/// A resource (one URI) or a resource template (a family of URIs), with its
/// handler.
///
/// ```
/// use mcp_runtime::{Args, entry::ResourceEntry};
/// let readme = ResourceEntry::fixed("docs://readme", "readme", || async { "# Hello" })
///     .mime_type("text/markdown");
///
/// #[derive(serde::Deserialize)]
/// struct NoteId { id: u32 }
/// let note = ResourceEntry::template("notes://{id}", "note", |Args(n): Args<NoteId>| async move {
///     format!("note {}", n.id)
/// });
/// # let _ = (readme, note);
/// ```
#[derive(Clone)]
pub struct ResourceEntry {
    pub(crate) kind: ResourceKind,
    pub(crate) handler: ResourceFn,
    pub(crate) completer: Option<CompleteFn>,
    pub(crate) cache: Option<CacheHints>,
    pub(crate) requirements: Vec<StateRequirement>,
    pub(crate) location: SourceLocation,
    pub(crate) scopes: Option<Vec<String>>,
    /// The rule of who is shown it, on top of the scopes.
    pub(crate) visible: Option<Visibility>,
    /// Set when the resource is an interactive view (MCP Apps).
    pub(crate) view: Option<crate::apps::View>,
    /// The mounted remote that serves it (see [`ToolEntry`]'s).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) owner: Option<Owner>,
    /// Whether `resources/list` shows it (a skill's supporting files are
    /// read by URI, not listed).
    pub(crate) listed: bool,
}

impl ResourceEntry {
    /// A resource at a fixed `uri`.
    #[track_caller]
    pub fn fixed<H: ResourceHandler<M>, M>(uri: impl Into<String>, name: impl Into<String>, handler: H) -> Self {
        let resource = Resource::new(uri, name);
        Self::with_kind(ResourceKind::Fixed(resource), handler)
    }

    /// A family of resources matching an RFC 6570 template (`{var}`,
    /// `{+var}`). An invalid template is reported when the server is built.
    #[track_caller]
    pub fn template<H: ResourceHandler<M>, M>(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        handler: H,
    ) -> Self {
        let uri_template = uri_template.into();
        let parsed = UriTemplate::parse(&uri_template);
        let template = ResourceTemplate::new(uri_template, name);
        Self::with_kind(ResourceKind::Template(template, parsed), handler)
    }

    #[track_caller]
    fn with_kind<H: ResourceHandler<M>, M>(kind: ResourceKind, handler: H) -> Self {
        ResourceEntry {
            kind,
            handler: Arc::new(move |call, mime| handler.call(call, mime)),
            completer: None,
            cache: None,
            requirements: H::requirements(),
            location: SourceLocation::caller(),
            scopes: None,
            visible: None,
            view: None,
            owner: None,
            listed: true,
        }
    }

    /// An entry from a static descriptor generated by `#[resource]`.
    pub(crate) fn from_descriptor(d: &'static ResourceDescriptor) -> Self {
        let kind = match (d.definition)() {
            ResourceDefinition::Fixed(r) => ResourceKind::Fixed(r),
            ResourceDefinition::Template(t) => {
                let parsed = UriTemplate::parse(&t.uri_template);
                ResourceKind::Template(t, parsed)
            }
        };
        ResourceEntry {
            kind,
            handler: Arc::new(d.handler),
            completer: d.completer.map(|c| Arc::new(c) as CompleteFn),
            cache: None,
            requirements: (d.requirements)(),
            location: d.location,
            scopes: of_descriptor(d.scopes),
            visible: d.visible_to.map(Visibility::new),
            view: None,
            owner: None,
            listed: true,
        }
        .with_view(d.view)
    }

    fn with_view(self, view: Option<fn() -> crate::apps::View>) -> Self {
        match view {
            Some(view) => self.view(view()),
            None => self,
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut Option<String>, &mut Option<String>, &mut Option<String>)) -> Self {
        match &mut self.kind {
            ResourceKind::Fixed(r) => f(&mut r.title, &mut r.description, &mut r.mime_type),
            ResourceKind::Template(t, _) => f(&mut t.title, &mut t.description, &mut t.mime_type),
        }
        self
    }

    /// Sets the display title.
    pub fn title(self, title: impl Into<String>) -> Self {
        self.edit(|t, _, _| *t = Some(title.into()))
    }

    /// Sets the description.
    pub fn description(self, description: impl Into<String>) -> Self {
        self.edit(|_, d, _| *d = Some(description.into()))
    }

    /// Sets the MIME type, also applied to text or bytes the handler returns.
    pub fn mime_type(self, mime_type: impl Into<String>) -> Self {
        self.edit(|_, _, m| *m = Some(mime_type.into()))
    }

    /// Sets content annotations.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        match &mut self.kind {
            ResourceKind::Fixed(r) => r.annotations = Some(annotations),
            ResourceKind::Template(t, _) => t.annotations = Some(annotations),
        }
        self
    }

    /// Sets the size in bytes (fixed resources only; ignored for templates).
    pub fn size(mut self, size: u64) -> Self {
        if let ResourceKind::Fixed(r) = &mut self.kind {
            r.size = Some(size);
        }
        self
    }

    /// Cache hints for `resources/read` results of this entry, overriding
    /// the server's default.
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = Some(hints);
        self
    }

    /// Serves `completion/complete` for this template's variables.
    pub fn completer<F, Fut>(mut self, complete: F) -> Self
    where
        F: Fn(CompleteCall) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Completion, ErrorObject>> + Send + 'static,
    {
        self.completer = Some(Arc::new(move |call| Box::pin(complete(call))));
        self
    }

    pub(crate) fn name(&self) -> &str {
        match &self.kind {
            ResourceKind::Fixed(r) => &r.name,
            ResourceKind::Template(t, _) => &t.name,
        }
    }

    /// The URI, or the URI template.
    pub fn uri(&self) -> &str {
        match &self.kind {
            ResourceKind::Fixed(r) => &r.uri,
            ResourceKind::Template(t, _) => &t.uri_template,
        }
    }

    pub(crate) fn mime_type_of(&self) -> Option<&str> {
        match &self.kind {
            ResourceKind::Fixed(r) => r.mime_type.as_deref(),
            ResourceKind::Template(t, _) => t.mime_type.as_deref(),
        }
    }
}

impl fmt::Debug for ResourceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceEntry").field("uri", &self.uri()).field("location", &self.location).finish()
    }
}

/// What `#[resource]` describes: one resource or a template.
#[derive(Debug, Clone)]
pub enum ResourceDefinition {
    /// A fixed URI.
    Fixed(Resource),
    /// A URI template.
    Template(ResourceTemplate),
}

/// The static description of a resource that `#[resource]` generates.
#[derive(Debug)]
pub struct ResourceDescriptor {
    /// The URI or URI template, for duplicate detection.
    pub uri: &'static str,
    /// Builds the definition.
    pub definition: fn() -> ResourceDefinition,
    /// The adapter.
    pub handler: fn(ResourceCall, Option<Arc<str>>) -> BoxFuture<'static, ResourceOutcome>,
    /// Completion of the template's variables, if any has a completer.
    pub completer: Option<CompleterFn>,
    /// Shared state the function needs.
    pub requirements: fn() -> Vec<StateRequirement>,
    /// Where the function is.
    pub location: SourceLocation,
    /// `scopes = [...]`: what a caller must be granted; empty for none.
    pub scopes: &'static [&'static str],
    /// `visible_to = path`: the rule of who is shown it.
    pub visible_to: Option<fn(&Viewer<'_>) -> bool>,
    /// `view(...)`: the resource is an interactive view with these settings.
    pub view: Option<fn() -> crate::apps::View>,
}

fn empty_object_schema() -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("type".into(), Value::String("object".into()));
    map.insert("additionalProperties".into(), Value::Bool(false));
    map
}

/// The scopes a descriptor declares; an empty list is none.
fn of_descriptor(scopes: &'static [&'static str]) -> Option<Vec<String>> {
    (!scopes.is_empty()).then(|| scopes.iter().map(|s| (*s).to_owned()).collect())
}
