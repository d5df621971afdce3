//! The server: [`Server`], the immutable, shared description of everything
//! served, and [`ServerBuilder`], where it is assembled and checked, with
//! what configures them ([`Eras`], [`RequestStateKey`], [`SchemaProfile`],
//! [`CatalogDump`]) and the errors of a build ([`BuildError`]).

use std::any::Any;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::events::{ServerEvent, SharedBus};
use crate::handler::call::Call;
use crate::handler::context::{RequestContext, ServerAccess};
use crate::handler::extract::{FromCall, Rejection};
use crate::handler::principal::is_authenticated_requirement;
use crate::handler::state::{StateMap, StateRequirement};
use crate::protocol::{
    CacheHints, DiscoverResult, Implementation, ListChangedCapability, ResourcesCapability, ServerCapabilities,
};
use crate::registry::catalog::{Catalog, Entries};
use crate::registry::entry::{PromptEntry, ResourceEntry, ToolEntry};
use crate::registry::location::SourceLocation;
use crate::registry::schema_profile;
use crate::tasks::TASKS_EXTENSION;
#[cfg(feature = "tasks")]
use crate::tasks::Tasks;

pub(crate) mod builder;
mod catalog_snapshot;
pub(crate) mod mount;
#[cfg(all(test, any(not(feature = "session"), not(feature = "tasks"))))]
mod without_features_tests;

#[allow(deprecated)]
pub use crate::eras::LEGACY_VERSIONS;
pub use crate::eras::{ERAS_ENV, Eras, SESSION_VERSIONS};
pub use crate::input::request_state::RequestStateKey;
pub use crate::registry::catalog_dump::{CatalogDump, DUMP_CATALOG_FLAG};
use crate::registry::error::Problems;
pub use crate::registry::error::{BuildError, RefusedTool};
pub use crate::registry::schema_profile::SchemaProfile;
pub use builder::ServerBuilder;

/// The default number of items on one page of a list.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// An MCP server: what it serves and how. Cheap to clone (an `Arc`), so every
/// transport and every request shares one.
///
/// Its settings are fixed when it is built. What it serves (tools, prompts,
/// resources, with the capabilities and discover result derived from them)
/// is an immutable snapshot behind a lock held only long enough to take or
/// replace the pointer:
/// [`add_tool`](Self::add_tool), [`remove_tool`](Self::remove_tool) and
/// their kin build a new snapshot and announce the change to listen streams,
/// while a request already running keeps the snapshot it started with.
///
/// ```
/// use mcp_runtime::{Args, Server, entry::ToolEntry};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// let server = Server::builder("calculator", "1.0.0")
///     .tool(ToolEntry::new("add", |Args(x): Args<Add>| async move { x.a + x.b }).description("Adds two numbers."))
///     .build()?;
/// assert_eq!(server.info().name, "calculator");
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

/// A handle on a server that does not keep it alive: what a task that
/// serves it in the background holds.
#[cfg(feature = "client")]
pub(crate) struct WeakServer(std::sync::Weak<ServerInner>);

#[cfg(feature = "client")]
impl WeakServer {
    /// The server, while anything else holds it.
    pub(crate) fn upgrade(&self) -> Option<Server> {
        self.0.upgrade().map(|inner| Server { inner })
    }
}

#[cfg(feature = "client")]
impl Server {
    pub(crate) fn downgrade(&self) -> WeakServer {
        WeakServer(Arc::downgrade(&self.inner))
    }
}

struct ServerInner {
    info: Implementation,
    /// What is served now; replaced whole when entries are added or removed.
    snapshot: RwLock<Arc<Snapshot>>,
    settings: Settings,
    bus: SharedBus,
    /// Cancelled when the server closes its long-lived streams (shutdown).
    closing: CancellationToken,
    state: StateMap,
    #[cfg(feature = "tasks")]
    tasks: Tasks,
    /// The servers this one is mounted in (`ServerBuilder::mount`).
    parents: mount::links::Parents<ServerInner>,
    /// What this one serves of the servers mounted in it, by namespace.
    mounted: mount::links::Mounted,
}

impl ServerAccess for ServerInner {
    fn state(&self) -> &StateMap {
        &self.state
    }

    fn is_authenticated(&self) -> bool {
        self.settings.authenticated
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

impl RequestContext {
    /// The server serving the request, e.g. to add a tool or announce a
    /// change from inside a handler. Cheap: a shared handle.
    ///
    /// ```
    /// use mcp_runtime::RequestContext;
    /// use mcp_runtime::events::ServerEvent;
    ///
    /// async fn refresh(cx: RequestContext) -> &'static str {
    ///     cx.server().notify(ServerEvent::ToolsListChanged);
    ///     "refreshed"
    /// }
    /// ```
    pub fn server(&self) -> Server {
        // Every context is made by the dispatcher from a `Server`, whose
        // inner value is the only implementation of `ServerAccess`.
        let inner = Arc::clone(self.server_access()).into_any().downcast::<ServerInner>();
        Server { inner: inner.unwrap_or_else(|_| unreachable!("a context's server is a Server")) }
    }
}

impl<C: Call> FromCall<C> for Server {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(call.context().server())
    }
}

/// What the builder fixed that requests read: a plain record, built once
/// and never changed.
#[derive(Debug)]
pub(crate) struct Settings {
    /// Items on one page of a list.
    pub(crate) page_size: usize,
    /// Cache hints of `server/discover`.
    pub(crate) discover_cache: CacheHints,
    /// Cache hints of the `*/list` methods.
    pub(crate) list_cache: CacheHints,
    /// Default cache hints of `resources/read`.
    pub(crate) read_cache: CacheHints,
    /// `{"io.modelcontextprotocol/serverInfo": {...}}`, serialized once.
    pub(crate) result_meta: Option<Box<RawValue>>,
    /// Seals and opens `requestState`.
    pub(crate) request_state_key: RequestStateKey,
    /// How long a handler may run on once its request is given up on.
    pub(crate) cancellation_grace: Duration,
    /// Whether handlers may send log messages (the `logging` capability).
    pub(crate) logging: bool,
    /// Whether `listChanged` and resource `subscribe` are advertised.
    pub(crate) list_changed: bool,
    /// Guidance for the model, in the discover result.
    pub(crate) instructions: Option<String>,
    /// Which protocol eras are served.
    pub(crate) eras: Eras,
    /// Where the serve helpers write the catalog instead of serving.
    pub(crate) catalog_dump: Option<CatalogDump>,
    /// The provider profile every tool's input schema is fitted to.
    pub(crate) schema_profile: Option<SchemaProfile>,
    /// Verifies the bearer tokens of HTTP requests, when the server is protected.
    #[cfg(feature = "auth")]
    pub(crate) verifier: Option<Arc<crate::auth::Verifier>>,
    /// The authorization server built into this one, when there is one.
    #[cfg(feature = "oauth-proxy")]
    pub(crate) oauth_proxy: Option<Arc<crate::oauth_proxy::Front>>,
    /// Whether requests reach the dispatcher with a verified `Principal`:
    /// whether scopes are enforced and `Principal` can be extracted.
    pub(crate) authenticated: bool,
    /// The middleware every request the dispatcher runs passes, the
    /// outermost first; empty for none.
    pub(crate) layers: crate::middleware::ServerLayers,
    /// Tool search, when it is on.
    #[cfg(feature = "tool-search")]
    pub(crate) tool_search: Option<Arc<crate::search::Settings>>,
    /// The server card, checked, without its remotes.
    #[cfg(feature = "server-card")]
    pub(crate) card: Option<crate::card::Card>,
}

/// The catalog with the capabilities and discover result derived from it.
pub(crate) struct Snapshot {
    catalog: Catalog,
    capabilities: ServerCapabilities,
    discover: DiscoverResult,
    /// The definitions of a list as a 2025-era version reads them, made at
    /// the first such list and kept with the catalog they come from.
    #[cfg(feature = "session")]
    older_definitions: OlderDefinitions,
    /// The search of this catalog, when tool search is on: its index is
    /// made for each catalog, so that every change reaches it.
    #[cfg(feature = "tool-search")]
    searcher: Option<crate::search::Searcher>,
}

/// Lists of definitions rewritten for an older protocol version, by version
/// and list; `None` where every definition reads as it is.
#[cfg(feature = "session")]
type Rewritten = Option<Arc<[Box<serde_json::value::RawValue>]>>;

#[cfg(feature = "session")]
#[derive(Default)]
struct OlderDefinitions(
    std::sync::Mutex<std::collections::HashMap<(crate::protocol::ProtocolVersion, &'static str), Rewritten>>,
);

impl Snapshot {
    fn new(catalog: Catalog, settings: &Settings) -> Self {
        let list_changed = settings.list_changed.then_some(true);
        let mut list_changes = ListChangedCapability::default();
        list_changes.list_changed = list_changed;
        let mut resources = ResourcesCapability::default();
        resources.subscribe = list_changed;
        resources.list_changed = list_changed;
        let mut capabilities = ServerCapabilities::default();
        capabilities.logging = settings.logging.then(Map::new);
        capabilities.completions = catalog.has_completions().then(Map::new);
        capabilities.prompts = (!catalog.prompts().is_empty()).then(|| list_changes.clone());
        capabilities.resources = catalog.has_resources().then_some(resources);
        capabilities.tools = (!catalog.tools().is_empty()).then_some(list_changes);
        let mut extensions = Map::new();
        if cfg!(feature = "tasks") && catalog.has_task_tools() {
            extensions.insert(TASKS_EXTENSION.into(), Value::Object(Map::new()));
        }
        if catalog.has_views() {
            extensions.insert(crate::apps::EXTENSION.into(), Value::Object(Map::new()));
        }
        #[cfg(feature = "skills")]
        if !catalog.skills().is_empty() {
            // Every directory of a skill served here is one
            // `resources/directory/read` lists.
            let mut settings = Map::new();
            settings.insert("directoryRead".into(), Value::Bool(true));
            extensions.insert(crate::protocol::SKILLS_EXTENSION.into(), Value::Object(settings));
        }
        capabilities.extensions = (!extensions.is_empty()).then_some(extensions);
        let versions = settings.eras.versions().iter().map(|v| (*v).to_owned()).collect();
        let mut discover = DiscoverResult::new(versions, capabilities.clone());
        discover.instructions = settings.instructions.clone();
        Snapshot {
            catalog,
            capabilities,
            discover,
            #[cfg(feature = "session")]
            older_definitions: OlderDefinitions::default(),
            #[cfg(feature = "tool-search")]
            searcher: settings.tool_search.clone().map(crate::search::Searcher::new),
        }
    }

    /// The search of this catalog, when tool search is on.
    #[cfg(feature = "tool-search")]
    pub(crate) fn searcher(&self) -> Option<&crate::search::Searcher> {
        self.searcher.as_ref()
    }

    /// The definitions of list `key` as `version` reads them: those `make`
    /// rewrote the first time they were asked for, `None` when it had
    /// nothing to rewrite.
    #[cfg(feature = "session")]
    pub(crate) fn older_definitions(
        &self,
        version: crate::protocol::ProtocolVersion,
        key: &'static str,
        make: impl FnOnce() -> Option<Vec<Box<serde_json::value::RawValue>>>,
    ) -> Rewritten {
        let mut kept = crate::sync::lock(&self.older_definitions.0);
        kept.entry((version, key)).or_insert_with(|| make().map(Arc::from)).clone()
    }

    /// Every entry served, sorted and indexed.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The capabilities derived from the catalog and the settings.
    pub(crate) fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The `server/discover` result, built with the snapshot.
    pub(crate) fn discover(&self) -> &DiscoverResult {
        &self.discover
    }
}

impl Server {
    /// The server's self-description, sent in every result's `_meta`.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The capabilities `server/discover` reports, derived from what is registered.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.snapshot().capabilities.clone()
    }

    /// The names of the tools, sorted.
    pub fn tool_names(&self) -> Vec<String> {
        self.snapshot().catalog.tools().iter().map(|t| t.key().to_owned()).collect()
    }

    /// The tools served right now, sorted by name.
    pub fn tools(&self) -> impl Iterator<Item = ToolEntry> {
        self.snapshot().catalog.tools().iter().map(|t| t.entry().clone()).collect::<Vec<_>>().into_iter()
    }

    /// Every scope the tools, prompts, resources and templates served right
    /// now declare, sorted: what a protected server lists as
    /// `scopes_supported` in its Protected Resource Metadata (RFC 9728).
    ///
    /// ```
    /// use mcp_runtime::{Server, entry::{PromptEntry, ToolEntry}};
    ///
    /// let server = Server::builder("notes", "1.0.0")
    ///     .tool(ToolEntry::new("edit", || async { "ok" }).scopes(["notes:write", "notes:read"]))
    ///     .prompt(PromptEntry::new("summary", || async { "Summarize." }).scopes(["notes:read"]))
    ///     .build()?;
    /// assert_eq!(server.declared_scopes().into_iter().collect::<Vec<_>>(), ["notes:read", "notes:write"]);
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    pub fn declared_scopes(&self) -> BTreeSet<String> {
        self.snapshot().catalog.declared_scopes()
    }

    /// Whether requests reach the dispatcher with a verified
    /// [`Principal`](crate::handler::principal::Principal) (see
    /// [`ServerBuilder::authenticated_by_layer`]): whether scopes are
    /// enforced on HTTP.
    pub fn is_authenticated(&self) -> bool {
        self.inner.settings.authenticated
    }

    /// Which protocol eras the server answers.
    pub fn eras(&self) -> Eras {
        self.inner.settings.eras
    }

    /// The instructions `initialize` reports.
    #[cfg(feature = "session")]
    pub(crate) fn instructions(&self) -> Option<&str> {
        self.inner.settings.instructions.as_deref()
    }

    /// Whether requests may pass middleware: the server's, or a tool's
    /// own (among those served now).
    #[cfg(feature = "http")]
    pub(crate) fn has_layers(&self) -> bool {
        !self.inner.settings.layers.0.is_empty()
            || self.snapshot().catalog().tools().iter().any(|tool| tool.entry().layers.is_some())
    }

    /// Whether a tool served now may run as a task, whose quota is kept
    /// per caller.
    #[cfg(all(feature = "http", feature = "tasks"))]
    pub(crate) fn has_task_tools(&self) -> bool {
        self.snapshot().catalog().tools().iter().any(|tool| tool.entry().task.is_some())
    }

    /// Tells the server's layers of a request refused before they saw it;
    /// a server without layers pays a length check.
    pub(crate) fn refused(&self, refusal: &crate::middleware::Refusal<'_>) {
        let layers = &self.inner.settings.layers.0;
        if !layers.is_empty() {
            crate::middleware::tell(layers.iter(), refusal);
        }
    }

    /// Whether the server has layers of its own, which hear of refusals.
    pub(crate) fn hears_refusals(&self) -> bool {
        !self.inner.settings.layers.0.is_empty()
    }

    /// What is served right now.
    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.inner.snapshot.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The settings the builder fixed.
    pub(crate) fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The tasks of this server, and the store they are kept in.
    #[cfg(feature = "tasks")]
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// The server as a request's context reaches it.
    pub(crate) fn access(&self) -> Arc<dyn ServerAccess> {
        Arc::clone(&self.inner) as Arc<dyn ServerAccess>
    }

    /// Cancelled when the server closes its long-lived streams
    /// ([`close_streams`](Self::close_streams)).
    pub(crate) fn closing(&self) -> &CancellationToken {
        &self.inner.closing
    }

    /// Replaces the catalog with one built by `change` from the current
    /// entries, then announces `event`, unless `change` reports that it
    /// changed nothing.
    fn update(&self, change: impl FnOnce(&mut Entries) -> bool, event: ServerEvent) -> Result<bool, BuildError> {
        let changed = self.update_with(|entries| if change(entries) { vec![event] } else { Vec::new() })?;
        Ok(!changed.is_empty())
    }

    /// Changes the entries served with `change`, in one new catalog, and
    /// announces what it says changed (nothing: no new catalog).
    fn update_with(
        &self,
        change: impl FnOnce(&mut Entries) -> Vec<ServerEvent>,
    ) -> Result<Vec<ServerEvent>, BuildError> {
        let events = {
            let mut slot = self.inner.snapshot.write().unwrap_or_else(|e| e.into_inner());
            let mut entries = slot.catalog.entries();
            let events = change(&mut entries);
            if events.is_empty() {
                return Ok(events);
            }
            let mut problems = Problems::default();
            check_entries(&entries, &self.inner.state, self.inner.settings.authenticated, &mut problems);
            if let Some(profile) = self.inner.settings.schema_profile {
                problems.take(schema_profile::apply(profile, &mut entries.tools));
            }
            let catalog = Catalog::build(entries);
            if let Err(error) = &catalog {
                problems.push(error.clone());
            }
            #[cfg(feature = "tool-search")]
            if let (Ok(catalog), Some(_)) = (&catalog, &self.inner.settings.tool_search) {
                problems.take(crate::search::check_names(catalog));
            }
            problems.into_result()?;
            let catalog = catalog?;
            *slot = Arc::new(Snapshot::new(catalog, &self.inner.settings));
            events
        };
        for event in &events {
            self.changed_for_parents(event);
            self.inner.bus.publish(event.clone());
        }
        Ok(events)
    }

    /// Adds a tool (or replaces the one with the same name) while serving,
    /// and tells listen streams that the tool list changed.
    pub fn add_tool(&self, tool: ToolEntry) -> Result<(), BuildError> {
        self.update(|e| replace(&mut e.tools, tool, |t| &t.definition.name), ServerEvent::ToolsListChanged).map(drop)
    }

    /// Removes a tool while serving; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove(|e| &mut e.tools, |t| t.definition.name == name, ServerEvent::ToolsListChanged)
    }

    /// Adds a prompt (or replaces the one with the same name) while serving.
    pub fn add_prompt(&self, prompt: PromptEntry) -> Result<(), BuildError> {
        self.update(|e| replace(&mut e.prompts, prompt, |p| &p.definition.name), ServerEvent::PromptsListChanged)
            .map(drop)
    }

    /// Removes a prompt while serving; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove(|e| &mut e.prompts, |p| p.definition.name == name, ServerEvent::PromptsListChanged)
    }

    /// Adds a resource or template (or replaces the one with the same URI) while serving.
    pub fn add_resource(&self, resource: ResourceEntry) -> Result<(), BuildError> {
        self.update(|e| replace(&mut e.resources, resource, ResourceEntry::uri), ServerEvent::ResourcesListChanged)
            .map(drop)
    }

    /// Removes a resource or template by URI while serving; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove(|e| &mut e.resources, |r| r.uri() == uri, ServerEvent::ResourcesListChanged)
    }

    fn remove<E>(
        &self,
        list: impl FnOnce(&mut Entries) -> &mut Vec<E>,
        matches: impl Fn(&E) -> bool,
        event: ServerEvent,
    ) -> bool {
        let change = |e: &mut Entries| {
            let list = list(e);
            let before = list.len();
            list.retain(|x| !matches(x));
            list.len() != before
        };
        // Removing cannot create a duplicate or a missing state, so it cannot fail.
        self.update(change, event).unwrap_or(false)
    }

    /// Announces a change to listen streams (on every replica sharing the
    /// event bus), e.g. that the tools behind a handler changed.
    pub fn notify(&self, event: ServerEvent) {
        self.notify_parents(&event);
        self.inner.bus.publish(event);
    }

    /// Announces that the resource at `uri` changed, to listen streams
    /// subscribed to it.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.notify(ServerEvent::ResourceUpdated { uri: uri.into() });
    }

    /// Ends every open `subscriptions/listen` stream with its closing
    /// result, and any opened later at once. Transports call it when they
    /// shut down so that in-flight listen requests finish.
    pub fn close_streams(&self) {
        self.inner.closing.cancel();
    }

    /// Whether the event bus answers, for the readiness probe.
    #[cfg(feature = "http")]
    pub(crate) fn bus_ready(&self) -> crate::events::ReadyFuture<'_> {
        self.inner.bus.ready()
    }

    pub(crate) fn subscribe_events(&self) -> tokio::sync::broadcast::Receiver<ServerEvent> {
        self.inner.bus.subscribe()
    }
}

/// Puts `entry` in `list` in place of any entry with the same key.
fn replace<E>(list: &mut Vec<E>, entry: E, key: impl Fn(&E) -> &str) -> bool {
    let new_key = key(&entry).to_owned();
    list.retain(|e| key(e) != new_key);
    list.push(entry);
    true
}

pub(crate) fn check_entries(entries: &Entries, state: &StateMap, authenticated: bool, problems: &mut Problems) {
    // Without the feature a tool that may run as a task runs as a plain
    // call; one that may only run as a task could never be served.
    #[cfg(not(feature = "tasks"))]
    for tool in entries.tools.iter().filter(|t| t.task.is_some_and(crate::tasks::TaskSupport::is_required)) {
        problems.push(BuildError::MissingFeature {
            feature: "tasks",
            what: format!(
                "tool `{}` (at {}), which runs only as a task (`task(required)`),",
                tool.definition.name, tool.location
            ),
            instead: "declare it `task`, which runs as a plain call without the feature",
        });
    }
    crate::registry::views::check(entries, problems);
    check_caches(entries, problems);
    let check = Requirements { state, authenticated };
    check.all("tool", &entries.tools, |t| (&t.definition.name, &t.requirements, t.location), problems);
    check.all("prompt", &entries.prompts, |p| (&p.definition.name, &p.requirements, p.location), problems);
    check.all("resource", &entries.resources, |r| (r.uri(), &r.requirements, r.location), problems);
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let snapshot = self.snapshot();
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .field("tools", &snapshot.catalog.tools().len())
            .field("prompts", &snapshot.catalog.prompts().len())
            .field("resources", &snapshot.catalog.resources().len())
            .field("templates", &snapshot.catalog.templates().len())
            .finish()
    }
}

/// Result caches that could serve, and invalidations of tools there are.
fn check_caches(entries: &Entries, problems: &mut Problems) {
    for tool in &entries.tools {
        let name = &tool.definition.name;
        #[cfg(feature = "cache")]
        if crate::middleware::cache::caches_in(tool.layers.as_deref().unwrap_or_default()).next().is_some()
            && !crate::middleware::cache::cacheable(&tool.definition)
        {
            problems.push(BuildError::Cache {
                tool: name.clone(),
                reason: "its `ResultCache` would never keep a result: only tools annotated read-only and idempotent \
                         are cached (`#[tool(annotations(read_only, idempotent))]`, or `ToolAnnotations` on the entry); \
                         annotate it so if it is, else remove the layer"
                    .to_owned(),
                location: tool.location,
            });
        }
        for stale in &tool.invalidates {
            if !entries.tools.iter().any(|t| &t.definition.name == stale) {
                problems.push(BuildError::Cache {
                    tool: name.clone(),
                    reason: format!("it invalidates `{stale}`, which is no tool of this server: name a tool it serves"),
                    location: tool.location,
                });
            }
        }
    }
}

/// What handlers' requirements are checked against: the state given to
/// the builder, and whether the server is authenticated (for `Principal`).
struct Requirements<'s> {
    state: &'s StateMap,
    authenticated: bool,
}

impl Requirements<'_> {
    fn all<'a, E>(
        &self,
        kind: &'static str,
        entries: &'a [E],
        parts: impl Fn(&'a E) -> (&'a str, &'a Vec<StateRequirement>, SourceLocation),
        problems: &mut Problems,
    ) {
        for entry in entries {
            let (name, requirements, location) = parts(entry);
            for requirement in requirements {
                if is_authenticated_requirement(requirement) {
                    if !self.authenticated {
                        problems.push(BuildError::Unauthenticated { kind, name: name.to_owned(), location });
                    }
                } else if !self.state.contains(requirement.type_id) {
                    let type_name = requirement.type_name;
                    problems.push(BuildError::MissingState { kind, name: name.to_owned(), type_name, location });
                }
            }
        }
    }
}

#[cfg(all(test, feature = "session"))]
mod older_definitions_tests {
    use std::cell::Cell;

    use serde_json::value::RawValue;

    use crate::Server;

    #[test]
    fn a_list_is_rewritten_once_per_catalog_and_version() {
        let server = Server::builder("s", "1").build().expect("a server");
        let snapshot = server.snapshot();
        let made = Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            Some(vec![RawValue::from_string("{}".to_owned()).expect("JSON")])
        };
        let first = snapshot
            .older_definitions(crate::protocol::ProtocolVersion::V2025_06_18, "tools", make)
            .expect("rewritten");
        let again =
            snapshot.older_definitions(crate::protocol::ProtocolVersion::V2025_06_18, "tools", make).expect("kept");
        assert!(std::sync::Arc::ptr_eq(&first, &again));
        assert_eq!(made.get(), 1);
        snapshot.older_definitions(crate::protocol::ProtocolVersion::V2025_03_26, "tools", make);
        snapshot.older_definitions(crate::protocol::ProtocolVersion::V2025_06_18, "prompts", || None);
        assert_eq!(made.get(), 2, "another version is another rewrite");
        assert!(
            snapshot.older_definitions(crate::protocol::ProtocolVersion::V2025_06_18, "prompts", make).is_none(),
            "nothing to rewrite, kept so"
        );
        assert_eq!(made.get(), 2);
    }
}
