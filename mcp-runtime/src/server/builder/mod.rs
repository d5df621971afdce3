//! [`ServerBuilder`]: what a server serves and how, checked and frozen by
//! [`build`](ServerBuilder::build).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{DEFAULT_PAGE_SIZE, Server, ServerInner, Settings, Snapshot, check_entries};
use crate::eras::{ERAS_ENV, Eras};
use crate::events::{EventBus, LocalBus, SharedBus};
use crate::handler::state::StateMap;
use crate::input::request_state::RequestStateKey;
use crate::protocol::{CacheHints, Icon, Implementation, META_SERVER_INFO};
use crate::registry::catalog::{Catalog, Entries};
use crate::registry::catalog_dump::CatalogDump;
use crate::registry::entry::{PromptEntry, ResourceEntry, ToolEntry};
use crate::registry::error::{BuildError, Problems};
use crate::registry::link_time;
use crate::registry::schema_profile::{self, SchemaProfile};
#[cfg(feature = "tasks")]
use crate::tasks::TaskConfig;

#[cfg(feature = "auth")]
mod authorization;
#[cfg(feature = "server-card")]
mod card;
mod layers;
#[cfg(feature = "oauth-proxy")]
mod oauth_proxy;
#[cfg(feature = "tasks")]
mod tasks;
#[cfg(feature = "tool-search")]
mod tool_search;

/// Assembles a [`Server`]; [`build`](Self::build) checks it.
///
/// Defaults: cache hints `ttlMs: 0, cacheScope: "private"` everywhere, pages
/// of [`DEFAULT_PAGE_SIZE`] items, server info on every result, and the
/// `logging` capability declared (handlers log only when a request opts in).
pub struct ServerBuilder {
    pub(crate) info: Implementation,
    instructions: Option<String>,
    pub(crate) tools: Vec<ToolEntry>,
    pub(crate) prompts: Vec<PromptEntry>,
    pub(crate) resources: Vec<ResourceEntry>,
    state: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    page_size: usize,
    discover_cache: CacheHints,
    list_cache: CacheHints,
    read_cache: CacheHints,
    server_info_in_results: bool,
    logging: bool,
    request_state_key: Option<RequestStateKey>,
    list_changed: bool,
    bus: Option<SharedBus>,
    cancellation_grace: Duration,
    eras: Option<Eras>,
    catalog_dump: Option<CatalogDump>,
    catalog_flag: bool,
    schema_profile: Option<SchemaProfile>,
    /// Set through the task methods (in `tasks::config`).
    #[cfg(feature = "tasks")]
    pub(crate) tasks: TaskConfig,
    /// Set by [`authorization`](Self::authorization) (in `auth::config`).
    #[cfg(feature = "auth")]
    pub(crate) authorization: Option<crate::auth::Authorization>,
    /// Set by [`oauth_proxy`](Self::oauth_proxy), with the keys its
    /// tokens are signed with (the verifier's too).
    #[cfg(feature = "oauth-proxy")]
    pub(crate) oauth_proxy: Option<(crate::oauth_proxy::OAuthProxy, crate::oauth_proxy::Keys)>,
    /// Whether requests reach the dispatcher with a verified Principal.
    pub(crate) authenticated: bool,
    /// The server's middleware, the outermost first (in `layers`).
    pub(crate) layers: Vec<Arc<dyn crate::middleware::Layer>>,
    /// Servers served under a namespace (in `mounts`).
    pub(crate) mounts: Vec<crate::server::mount::Mount>,
    /// Remotes mounted, whose list changes are followed once built.
    #[cfg(feature = "client")]
    pub(crate) followed: Vec<crate::server::mount::follow::Followed>,
    /// The namespaces of the remotes mounted (a proxied one's is empty).
    #[cfg(feature = "client")]
    pub(crate) mounted_namespaces: Vec<Arc<str>>,
    /// The skills served (in `skills`).
    #[cfg(feature = "skills")]
    pub(crate) skills: crate::skills::Skills,
    /// The skills of the remotes mounted.
    #[cfg(all(feature = "skills", feature = "client"))]
    pub(crate) remote_skills: Vec<crate::protocol::Skill>,
    /// Set by [`tool_search`](Self::tool_search).
    #[cfg(feature = "tool-search")]
    tool_search: Option<crate::search::ToolSearch>,
    /// Set by [`server_card`](Self::server_card).
    #[cfg(feature = "server-card")]
    server_card: Option<crate::card::ServerCard>,
    /// Mistakes of a setting that returns the builder, reported by `build`.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) deferred_errors: Vec<BuildError>,
}

impl ServerBuilder {
    pub(super) fn new(info: Implementation) -> Self {
        ServerBuilder {
            info,
            instructions: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            state: HashMap::new(),
            page_size: DEFAULT_PAGE_SIZE,
            discover_cache: CacheHints::default(),
            list_cache: CacheHints::default(),
            read_cache: CacheHints::default(),
            server_info_in_results: true,
            logging: true,
            request_state_key: None,
            list_changed: true,
            bus: None,
            cancellation_grace: Duration::from_secs(1),
            eras: None,
            catalog_dump: None,
            catalog_flag: true,
            schema_profile: None,
            #[cfg(feature = "tasks")]
            tasks: TaskConfig::default(),
            #[cfg(feature = "auth")]
            authorization: None,
            #[cfg(feature = "oauth-proxy")]
            oauth_proxy: None,
            authenticated: false,
            layers: Vec::new(),
            mounts: Vec::new(),
            #[cfg(feature = "client")]
            followed: Vec::new(),
            #[cfg(feature = "client")]
            mounted_namespaces: Vec::new(),
            #[cfg(feature = "skills")]
            skills: crate::skills::Skills::new(),
            #[cfg(all(feature = "skills", feature = "client"))]
            remote_skills: Vec::new(),
            #[cfg(feature = "tool-search")]
            tool_search: None,
            #[cfg(feature = "server-card")]
            server_card: None,
            deferred_errors: Vec::new(),
        }
    }

    /// Sets the display title of the server.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Sets the human-readable description of the server.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Sets the server's home page.
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Adds an icon to the server's description.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.info.icons.push(icon);
        self
    }

    /// Guidance for the model, reported by `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Provides shared state of type `T` to handlers taking `State<T>`.
    /// Setting the same type twice keeps the last value.
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: ToolEntry) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds several tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolEntry>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Adds a prompt.
    pub fn prompt(mut self, prompt: PromptEntry) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Adds several prompts.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = PromptEntry>) -> Self {
        self.prompts.extend(prompts);
        self
    }

    /// Adds a resource or a resource template.
    pub fn resource(mut self, resource: ResourceEntry) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds several resources or templates.
    pub fn resources(mut self, resources: impl IntoIterator<Item = ResourceEntry>) -> Self {
        self.resources.extend(resources);
        self
    }

    /// Serves `skills` (the `io.modelcontextprotocol/skills` extension):
    /// each one's files as `skill://` resources, its `SKILL.md` in
    /// `resources/list`, with `skills/list`, `skills/get` and
    /// `resources/directory/read`. Called again, it adds to those given
    /// before.
    ///
    /// ```
    /// # let root = std::env::temp_dir().join(format!("skills-builder-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(root.join("triage"))?;
    /// # std::fs::write(root.join("triage/SKILL.md"), "---\nname: triage\ndescription: Sort incidents.\n---\n")?;
    /// use mcp_runtime::{Server, skills::Skills};
    /// let server = Server::builder("ops", "1.0.0").skills(Skills::dir(&root)?).build()?;
    /// let resources = server.catalog_snapshot()["resources"].clone();
    /// assert_eq!(resources[0]["uri"], "skill://triage/SKILL.md");
    /// # std::fs::remove_dir_all(root)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn skills(mut self, skills: crate::skills::Skills) -> Self {
        self.skills = std::mem::take(&mut self.skills).and(skills);
        self
    }

    /// Sets the cache hints of every cacheable result (discover, lists, reads).
    pub fn cache_hints(mut self, hints: CacheHints) -> Self {
        self.discover_cache = hints;
        self.list_cache = hints;
        self.read_cache = hints;
        self
    }

    /// Sets the cache hints of `server/discover`.
    pub fn discover_cache_hints(mut self, hints: CacheHints) -> Self {
        self.discover_cache = hints;
        self
    }

    /// Sets the cache hints of `tools/list`, `prompts/list`, `resources/list`
    /// and `resources/templates/list`.
    pub fn list_cache_hints(mut self, hints: CacheHints) -> Self {
        self.list_cache = hints;
        self
    }

    /// Sets the default cache hints of `resources/read` (an entry may override them).
    pub fn read_cache_hints(mut self, hints: CacheHints) -> Self {
        self.read_cache = hints;
        self
    }

    /// Sets how many items one page of a list holds (at least 1).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// Whether results carry `_meta["io.modelcontextprotocol/serverInfo"]` (default true).
    pub fn server_info_in_results(mut self, enabled: bool) -> Self {
        self.server_info_in_results = enabled;
        self
    }

    /// Whether handlers may send log messages (default true; declares the
    /// `logging` capability). When off, `RequestContext::log` sends nothing.
    pub fn logging(mut self, enabled: bool) -> Self {
        self.logging = enabled;
        self
    }

    /// The key that seals `requestState` in multi round-trip requests.
    /// By default a random key per process; replicas behind one load
    /// balancer must share one so that each accepts the others' state.
    pub fn request_state_key(mut self, key: RequestStateKey) -> Self {
        self.request_state_key = Some(key);
        self
    }

    /// Whether `listChanged` (and resource `subscribe`) are advertised, so
    /// clients may open `subscriptions/listen` streams (default true).
    pub fn list_changed(mut self, enabled: bool) -> Self {
        self.list_changed = enabled;
        self
    }

    /// The bus that carries change events to listen streams; by default an
    /// in-process [`LocalBus`]. Use a distributed bus when several replicas
    /// serve behind one load balancer.
    pub fn event_bus(mut self, bus: impl EventBus) -> Self {
        self.bus = Some(Arc::new(bus));
        self
    }

    /// How long a handler may run on once its request is given up on (the
    /// client cancels it or goes away, or it times out): its cancellation
    /// token fires first, and its future is dropped only after this grace
    /// period (default 1 s), so that a
    /// handler `select!`ing on the token can clean up. Whatever it answers
    /// then is discarded. `Duration::ZERO` drops it at once.
    pub fn cancellation_grace(mut self, grace: Duration) -> Self {
        self.cancellation_grace = grace;
        self
    }

    /// Which clients to serve (default [`Eras::Dual`]: both; without the
    /// `session` feature, [`Eras::Stateless`], the only choice such a build
    /// serves). Without this call the [`ERAS_ENV`] environment variable
    /// (`MCP_ERAS=stateless`, say) decides, so a deployment can change it
    /// without a rebuild.
    pub fn eras(mut self, eras: Eras) -> Self {
        self.eras = Some(eras);
        self
    }

    /// Makes the serve helpers ([`Server::serve_http`],
    /// [`Server::serve_http_with`], [`Server::serve_stdio`]) write the
    /// catalog snapshot to `to` and return instead of serving, whatever the
    /// command line says. [`Server::catalog_json`] is the text written.
    #[cfg_attr(not(feature = "http"), doc = "\n\n[`Server::serve_http`]: Server\n[`Server::serve_http_with`]: Server")]
    #[cfg_attr(not(feature = "stdio"), doc = "\n\n[`Server::serve_stdio`]: Server")]
    pub fn dump_catalog(mut self, to: CatalogDump) -> Self {
        self.catalog_dump = Some(to);
        self
    }

    /// Whether the server honours `--dump-catalog` (or
    /// `--dump-catalog=PATH`) among the process's arguments (default
    /// true): [`build`](Self::build) notes it, and the serve helpers
    /// (`serve`, `Server::serve_http`, `Server::serve_stdio`) then write the catalog snapshot and return
    /// before binding a port, reading stdin or connecting to Redis; a `main`
    /// that serves otherwise calls [`Server::answer_catalog_dump`]. Building
    /// ends no process: what `main` prints to standard output between
    /// `build()` and serving lands before a dump written there, so print
    /// start-up lines to standard error (as `tracing` does), or serve with
    /// `serve`, which answers the flag first. It only looks
    /// for that one argument and never consumes or rejects any other, so a
    /// program with its own argument parser must let it through (or turn
    /// this off, and call [`CatalogDump::from_process_args`] and
    /// [`CatalogDump::write`] itself, say to dump tools added after
    /// `build()`).
    ///
    /// ```no_run
    /// #[mcp_runtime::main]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let server = mcp_runtime::server!().build()?;
    ///     eprintln!("serving MCP at http://127.0.0.1:3000/mcp");
    ///     server.serve_http("127.0.0.1:3000").await?; // `--dump-catalog` ends here
    ///     Ok(())
    /// }
    /// ```
    pub fn catalog_flag(mut self, enabled: bool) -> Self {
        self.catalog_flag = enabled;
        self
    }

    /// Fits every tool's input schema to a model provider's tool-calling
    /// rules (see the `mcp-runtime-catalog` crate for the rules and their
    /// sources) when the server is built, and when a tool is added later.
    ///
    /// With [`SchemaProfile::OpenAi`] (strict function calling) an optional
    /// argument becomes required with `null` allowed, and the runtime
    /// removes such a `null` before the handler reads its arguments, so
    /// handlers see what they saw before; every object gets
    /// `additionalProperties: false`. A tool whose schema cannot fit (a map
    /// argument, a recursive type with optional fields, a keyword or name
    /// the provider rejects) makes [`build`](Self::build) fail with
    /// [`BuildError::SchemaProfile`], naming every such tool and why.
    /// Output schemas are left as they are: providers do not read them.
    ///
    /// ```
    /// use mcp_runtime::{Args, Server, server::SchemaProfile, entry::ToolEntry};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Search { query: String, limit: Option<u32> }
    ///
    /// let server = Server::builder("search", "1.0.0")
    ///     .tool(ToolEntry::new("search", |Args(s): Args<Search>| async move { s.limit.unwrap_or(10).to_string() }))
    ///     .schema_profile(SchemaProfile::OpenAi)
    ///     .build()?;
    /// let tool = server.tools().next().unwrap();
    /// let schema = &tool.definition().input_schema;
    /// assert_eq!(schema["required"], serde_json::json!(["query", "limit"]));
    /// assert_eq!(schema["properties"]["limit"]["type"], serde_json::json!(["integer", "null"]));
    /// assert_eq!(schema["additionalProperties"], false);
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// ```
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.schema_profile = Some(profile);
        self
    }

    /// Declares that a layer in front of the server's HTTP service (a tower
    /// or axum middleware of the application) verifies every request's
    /// bearer token, and puts the caller it stands for into the request's
    /// extensions as a [`Principal`](crate::handler::principal::Principal) (or refuses
    /// the request with 401 itself).
    ///
    /// The server then trusts that `Principal`: handlers may take it as a
    /// parameter, and the scopes entries declare are enforced (see
    /// [`crate::auth`]). Without this call a `Principal` found in the
    /// extensions is ignored, since nothing says it was verified. A request
    /// that reaches an authenticated server without one is granted no scope.
    ///
    /// ```
    /// use mcp_runtime::auth::Principal;
    /// use mcp_runtime::transport::http::HttpConfig;
    /// use mcp_runtime::{Server, tool, tools};
    /// use tower_service::Service as _;
    ///
    /// /// Says who is calling.
    /// #[tool(scopes = ["profile"])]
    /// async fn whoami(caller: Principal) -> String {
    ///     caller.subject().unwrap_or("nobody").to_owned()
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let server = Server::builder("demo", "1.0.0").tools(tools![whoami]).authenticated_by_layer().build()?;
    /// let mut mcp = server.http_service(HttpConfig::default());
    ///
    /// // What the application's layer does once it has verified the token:
    /// let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami",
    ///     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///              "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let mut request = http::Request::post("/mcp")
    ///     .header("host", "localhost")
    ///     .header("content-type", "application/json")
    ///     .header("accept", "application/json, text/event-stream")
    ///     .header("mcp-protocol-version", "2026-07-28")
    ///     .header("mcp-method", "tools/call")
    ///     .header("mcp-name", "whoami")
    ///     .body(body.to_owned())
    ///     .unwrap();
    /// request.extensions_mut().insert(Principal::new("ada").with_scopes(["profile"]));
    /// let response = mcp.call(request).await.unwrap();
    /// assert_eq!(response.status(), 200);
    /// # Ok::<(), mcp_runtime::BuildError>(())
    /// # }).unwrap();
    /// ```
    pub fn authenticated_by_layer(mut self) -> Self {
        self.authenticated = true;
        self
    }

    /// Checks and freezes the server: duplicate names and missing state are
    /// errors naming the definitions involved.
    ///
    /// Building has no effect outside the server but two reads and one
    /// start: it reads [`ERAS_ENV`] when [`eras`](Self::eras) was not
    /// called, notes `--dump-catalog` among the process's arguments for the
    /// serve helpers to answer (see [`catalog_flag`](Self::catalog_flag)),
    /// and, with the `client` feature, starts following the remotes mounted
    /// with `mount_remote` (their lists changing).
    pub fn build(self) -> Result<Server, BuildError> {
        let mut problems = Problems::default();
        for error in self.deferred_errors {
            problems.push(error);
        }
        let state = StateMap::from_map(self.state);
        let mut entries = Entries {
            tools: self.tools,
            prompts: self.prompts,
            resources: self.resources,
            #[cfg(feature = "skills")]
            skills: Vec::new(),
        };
        #[cfg(feature = "skills")]
        {
            let (skills, files) = self.skills.into_entries();
            entries.skills = skills;
            entries.resources.extend(files);
            #[cfg(feature = "client")]
            entries.skills.extend(self.remote_skills);
        }
        #[cfg_attr(not(feature = "client"), allow(unused_mut))]
        let mut namespaces: Vec<&str> = self.mounts.iter().map(|m| &*m.namespace).collect();
        #[cfg(feature = "client")]
        namespaces.extend(self.mounted_namespaces.iter().map(|n| &**n));
        problems.take(crate::server::mount::check_unambiguous(&namespaces));
        #[cfg(feature = "tool-search")]
        let mounted_namespaces: Vec<String> = namespaces.iter().map(|n| (*n).to_owned()).collect();
        let mut mounted = std::collections::BTreeMap::new();
        for mount in &self.mounts {
            // Under a namespace that cannot prefix names, every name of
            // the mount would be a problem of its own: the namespace is the one.
            if problems.take(crate::server::mount::check_namespace(&mount.namespace)).is_none() {
                continue;
            }
            let theirs = mount.entries();
            mounted.insert(Arc::clone(&mount.namespace), crate::server::mount::links::MountedNames::of(&theirs));
            entries.tools.extend(theirs.tools);
            entries.prompts.extend(theirs.prompts);
            entries.resources.extend(theirs.resources);
            #[cfg(feature = "skills")]
            entries.skills.extend(theirs.skills);
        }
        check_entries(&entries, &state, self.authenticated, &mut problems);
        if let Some(profile) = self.schema_profile {
            problems.take(schema_profile::apply(profile, &mut entries.tools));
        }
        let catalog = Catalog::build(entries);
        if let Err(error) = &catalog {
            problems.push(error.clone());
        }
        #[cfg(feature = "tool-search")]
        if let (Ok(catalog), Some(_)) = (&catalog, &self.tool_search) {
            problems.take(crate::search::check_names(catalog));
        }
        let eras = match self.eras {
            Some(eras) => eras,
            None => match std::env::var(ERAS_ENV) {
                Ok(text) => problems
                    .take(Eras::read(&text, ERAS_ENV).map_err(|reason| BuildError::Eras { reason }))
                    .unwrap_or_default(),
                Err(_) => Eras::default(),
            },
        };
        if eras.serves_sessions() && !cfg!(feature = "session") {
            problems.push(BuildError::MissingFeature {
                feature: "session",
                what: format!("serving 2025-era clients (eras `{eras}`)"),
                instead: "serve `Eras::Stateless` only",
            });
        }
        // Replicas share the key through the environment; without one, a
        // key of this process's own (rounds then finish on this replica only).
        let request_state_key = match self.request_state_key {
            Some(key) => key,
            None => match RequestStateKey::from_environment() {
                Ok(key) => key.unwrap_or_else(RequestStateKey::random),
                Err(reason) => {
                    problems.push(BuildError::Environment { variable: RequestStateKey::KEY_ENV, reason });
                    RequestStateKey::random()
                }
            },
        };
        #[cfg(feature = "server-card")]
        let card = self.server_card.and_then(|card| problems.take(card.document(&self.info)));
        // A mount that acts for its callers needs their tokens, kept for it
        // alone: only a server that verifies them has any.
        #[cfg(all(feature = "auth", feature = "client"))]
        let keeps_caller_tokens = self.followed.iter().any(|followed| followed.mount.delegated.is_some());
        #[cfg(all(feature = "auth", not(feature = "client")))]
        let keeps_caller_tokens = false;
        #[cfg(feature = "auth")]
        if keeps_caller_tokens && self.authorization.is_none() {
            problems.push(BuildError::Setting {
                setting: "Remote::token_exchange",
                reason: "a remote reached as each caller needs the callers' verified tokens: \
                         set ServerBuilder::authorization"
                    .into(),
            });
        }
        // The front's tokens are verified with its key: an `authorization`
        // set after it would trust another issuer instead.
        #[cfg(feature = "oauth-proxy")]
        if self.oauth_proxy.is_some() && self.authorization.as_ref().is_none_or(|a| a.local_keys.is_none()) {
            problems.push(BuildError::Setting {
                setting: "ServerBuilder::oauth_proxy",
                reason: "ServerBuilder::authorization was set after it: a server with an OAuth front verifies \
                         the front's tokens; leave authorization out"
                    .into(),
            });
        }
        problems.into_result()?;
        let catalog = catalog?;
        let result_meta = if self.server_info_in_results {
            let mut meta = Map::new();
            meta.insert(META_SERVER_INFO.into(), serde_json::to_value(&self.info).unwrap_or(Value::Null));
            serde_json::value::to_raw_value(&meta).ok()
        } else {
            None
        };
        let settings = Settings {
            page_size: self.page_size,
            discover_cache: self.discover_cache,
            list_cache: self.list_cache,
            read_cache: self.read_cache,
            result_meta,
            request_state_key,
            cancellation_grace: self.cancellation_grace,
            logging: self.logging,
            list_changed: self.list_changed,
            instructions: self.instructions,
            eras,
            // Read here, answered by the serve helpers: building ends no process.
            catalog_dump: self
                .catalog_dump
                .or_else(|| self.catalog_flag.then(CatalogDump::from_process_args).flatten()),
            schema_profile: self.schema_profile,
            // The Protected Resource Metadata offers the configured scopes and
            // every scope the entries declare.
            #[cfg(feature = "auth")]
            verifier: self.authorization.map(|a| a.into_verifier(&catalog.declared_scopes(), keeps_caller_tokens)),
            #[cfg(feature = "oauth-proxy")]
            oauth_proxy: self
                .oauth_proxy
                .map(|(proxy, keys)| crate::oauth_proxy::Front::new(proxy, keys, &catalog.declared_scopes())),
            authenticated: self.authenticated,
            layers: crate::middleware::ServerLayers(self.layers.into()),
            #[cfg(feature = "tool-search")]
            tool_search: self
                .tool_search
                .map(|search| Arc::new(crate::search::Settings::new(search, mounted_namespaces))),
            #[cfg(feature = "server-card")]
            card,
        };
        let bus: SharedBus = self.bus.unwrap_or_else(|| Arc::new(LocalBus::default()));
        let server = Server {
            inner: Arc::new(ServerInner {
                info: self.info,
                snapshot: RwLock::new(Arc::new(Snapshot::new(catalog, &settings))),
                settings,
                #[cfg(feature = "tasks")]
                tasks: self.tasks.build(Arc::clone(&bus)),
                bus,
                closing: CancellationToken::new(),
                state,
                parents: Default::default(),
                mounted: std::sync::Mutex::new(mounted),
            }),
        };
        server.adopt(&self.mounts);
        #[cfg(feature = "client")]
        crate::server::mount::follow::follow(&server, self.followed);
        Ok(server)
    }
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .field("tools", &self.tools.len())
            .field("prompts", &self.prompts.len())
            .field("resources", &self.resources.len())
            .field("authenticated", &self.authenticated)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server that reports itself as `name` `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }
}

/// Adds every `#[tool]`, `#[prompt]` and `#[resource]` linked into the
/// binary to `builder`: what [`server!`](crate::server!) expands to, the one
/// way to ask for them.
pub fn registered(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tools(link_time::TOOLS.iter().map(ToolEntry::from_descriptor))
        .prompts(link_time::PROMPTS.iter().map(PromptEntry::from_descriptor))
        .resources(link_time::RESOURCES.iter().map(ResourceEntry::from_descriptor))
}
