//! Write Model Context Protocol servers (revision 2026-07-28) in plain Rust:
//! annotate functions with [`#[tool]`](macro@tool),
//! [`#[resource]`](macro@resource) and [`#[prompt]`](macro@prompt), and the
//! runtime serves them over Streamable HTTP or stdio.
//!
//! # Quick start
//!
//! `mcp-runtime` is the only dependency: it re-exports its macros, and
//! [`serde`], [`schemars`] (1.x), [`serde_json`] and [`tokio`] for your own
//! types and `main`.
//!
//! ```standalone_crate
//! use mcp_runtime::tool;
//!
//! /// A point on the plane.
//! #[mcp_runtime::derives(Deserialize, Serialize, JsonSchema)]
//! struct Point {
//!     /// Distance along the horizontal axis.
//!     x: f64,
//!     /// Distance along the vertical axis.
//!     y: f64,
//! }
//!
//! /// The point halfway between two points.
//! #[tool(annotations(read_only))]
//! async fn midpoint(from: Point, to: Point) -> Point {
//!     Point { x: (from.x + to.x) / 2.0, y: (from.y + to.y) / 2.0 }
//! }
//!
//! #[mcp_runtime::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Every #[tool], #[resource] and #[prompt] linked into the binary.
//!     let server = mcp_runtime::server!().build()?;
//! #   assert_eq!(server.tools().count(), 1);
//! #   if false {
//!     server.serve_http("127.0.0.1:3000").await?; // or .serve_stdio()
//! #   }
//!     Ok(())
//! }
//! ```
//!
//! The doc comment is the description the model reads, the parameters are
//! the input schema, the return type decides the result, and a mistake in a
//! signature is a compile error on the offending token.
//!
//! To serve it as its command line and environment say (`--stdio`, `--http
//! ADDR`, Redis, the shared `requestState` key...), end `main` with
//! [`ServerBuilder::serve`] instead: see [`deployment`].
//!
//! # The macros
//!
//! | macro | what it does |
//! |---|---|
//! | [`#[tool]`](macro@tool) | a function the model calls: arguments become the input schema, the return value the result (text, content, or structured output with an output schema) |
//! | [`#[resource]`](macro@resource) | data read by URI: a fixed URI, or a URI template whose variables bind to parameters |
//! | [`#[prompt]`](macro@prompt) | a message template the user picks, with arguments and completion |
//! | [`server!`] | a [`ServerBuilder`] named after your crate (or as you name it), holding every annotated function linked into the binary |
//! | [`tools!`], [`prompts!`], [`resources!`] | explicit lists of annotated functions, to serve a subset or where [link-time registration](#link-time-registration) is not wanted |
//! | [`#[main]`](macro@main) | `main` on a tokio runtime, through the runtime's re-export of tokio |
//! | [`#[test]`](macro@test) | an `async fn` test on a tokio runtime, the same way, for [`client::Client::in_process`] |
//! | [`#[derives(...)]`](macro@derives) | `Serialize`, `Deserialize`, `JsonSchema` for your types, through the runtime's re-exports |
//!
//! Each macro's page lists its keys, and the rules below in full.
//!
//! # Link-time registration
//!
//! Each annotated function puts a static descriptor into a slice the linker
//! assembles, so [`server!`] finds every one linked into the binary without
//! a central list. Lists are sorted by name (resources by name, then URI),
//! whatever order the linker chose, and two definitions with one name are a
//! [`BuildError`] naming both. Which functions a binary holds is the
//! linker's choice: each test binary sees the ones linked into it, and
//! targets linkme does not support (such as wasm) use the explicit lists
//! instead. [`server!`] has the details.
//!
//! # Arguments and context parameters
//!
//! A parameter is a **context parameter** when it is marked `#[ctx]` or its
//! type is named like one of [`State<T>`](State), [`RequestContext`],
//! [`RequestMeta`](protocol::RequestMeta), [`CancellationToken`],
//! [`Progress`](crate::extract::Progress), [`Logger`](crate::extract::Logger) or [`Input`]: it is taken from the request and
//! never shown to clients. Every other parameter is an **argument**, which
//! `#[arg(description = .., default = .., rename = .., header = .., title =
//! .., complete = ..)]` configures.
//!
//! ```standalone_crate
//! use mcp_runtime::{State, tool, extract::Progress};
//!
//! #[derive(Clone)]
//! struct Greeting(&'static str);
//!
//! /// Greets someone.
//! #[tool]
//! async fn greet(
//!     greeting: State<Greeting>, // context: from `.state(..)` below
//!     progress: Progress,        // context: progress notifications
//!     /// Who to greet.
//!     name: String,              // argument
//! ) -> String {
//!     progress.report(1.0, Some(1.0));
//!     format!("{}, {name}!", greeting.0.0)
//! }
//!
//! // Without `.state(Greeting(..))`, `build()` fails and names `greet`.
//! let server = mcp_runtime::server!().state(Greeting("Hello")).build()?;
//! # assert_eq!(server.tools().count(), 1);
//! # Ok::<(), mcp_runtime::BuildError>(())
//! ```
//!
//! # Completion
//!
//! A prompt argument or a resource template variable marked `#[arg(complete
//! = path)]` answers `completion/complete` with a completer: `fn(&str) ->
//! Vec<String>` given what was typed so far, or `async fn(CompleteCall) ->
//! Vec<String>` given the whole request, reading shared state with
//! `State::<T>::from_call(&call)`. [`#[prompt]`](macro@prompt) documents
//! both shapes and what they may return.
//!
//! # Without macros
//!
//! The same registry takes closures of extractors ([`FromCall`](crate::extract::FromCall): [`Args`],
//! [`State`], ...) and entries built by hand ([`ToolEntry`](crate::entry::ToolEntry),
//! [`PromptEntry`](crate::entry::PromptEntry), [`ResourceEntry`](crate::entry::ResourceEntry)):
//!
//! ```
//! use mcp_runtime::{Args, Server, entry::ToolEntry};
//!
//! #[mcp_runtime::derives(Deserialize, JsonSchema)]
//! struct Add {
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! }
//!
//! let server = Server::builder("calculator", "1.0.0")
//!     .tool(ToolEntry::new("add", |Args(x): Args<Add>| async move { x.a + x.b }).description("Adds two numbers."))
//!     .build()
//!     .expect("a valid server");
//! # let _ = server;
//! ```
//!
//! # Features
//!
//! | feature | default | what |
//! |---|---|---|
//! | `stdio` | yes | newline-delimited JSON over stdin/stdout ([`Server::serve_stdio`]) |
//! | `http` | yes | Streamable HTTP: a tower `Service` and a standalone hyper server ([`transport::http`]) |
//! | `http2` | yes | HTTP/2 beside HTTP/1.1 on the standalone server's port (prior knowledge, or ALPN over TLS), each connection's protocol decided once; without it HTTP/1.1 only (implies `http`) |
//! | `session` | yes | the 2025-era revisions: clients that open with `initialize` and keep a session ([`session`]); without it a server serves 2026-07-28 only ([`Eras::Stateless`](server::Eras::Stateless)) |
//! | `tasks` | yes | the tasks extension: `#[tool(task)]` answered with a task handle, `tasks/get`, `tasks/update`, `tasks/cancel`, the task stores ([`tasks`]); without it a `task` tool runs as a plain call |
//! | `logging` | yes | `logging::init` and `#[mcp_runtime::main(logging)]`: logs on stderr, filtered by `RUST_LOG` (default `info`) |
//! | `tls` | no | HTTPS for the standalone server (`HttpConfig::tls`): PEM files read again when they change, ALPN `h2` and `http/1.1` (rustls; implies `http`) |
//! | `auth` | no | OAuth 2.1 resource server on HTTP (`ServerBuilder::authorization`): bearer tokens verified on every request, the Protected Resource Metadata document, the 401 challenges |
//! | `axum` | no | an `McpService` mounted in axum reads axum's `ConnectInfo<SocketAddr>` as the client's address (`into_make_service_with_connect_info`) |
//! | `rate-limit` | no | [`middleware::RateLimit`]: calls per caller (and per tool) limited with token buckets, a bounded number of them |
//! | `cache` | no | [`middleware::ResultCache`]: results of read-only, idempotent tools answered again for a while, from memory (`moka`), or from Redis shared by replicas with `redis` too |
//! | `client` | no | [`client::Client`] over Streamable HTTP and a child's stdio (in process it needs no feature), of 2026-07-28 servers and of 2025-era ones (a session opened with `initialize`), chosen by what the server answers, with or without `session`; and servers served through it (`ServerBuilder::mount_remote`, `ServerBuilder::proxy`) |
//! | `redis` | no | an [`EventBus`](events::EventBus) over Redis pub/sub, so `subscriptions/listen` works across replicas, and task and session stores in Redis, so any replica serves any task or 2025-era session; with `cache`, a result store the replicas share |
//! | `sqlite` | no | a task store in an SQLite file (bundled), so tasks outlive a restart (implies `tasks`) |
//! | `otel` | no | OpenTelemetry: the client's trace context as each request span's parent, the conventions' metrics, and `otel::init` (logs, and OTLP export from the `OTEL_*` variables) |
//! | `fuzzing` | no | the internal readers, for the fuzz targets of the repository: hidden, not public API, not covered by semver |
//!
//! A server for the stateless revision alone (a serverless function, say)
//! leaves the 2025 era and tasks out: `mcp-runtime = { version = "0.1",
//! default-features = false, features = ["http"] }`.
//!
//! Every request is a `tracing` span (target `mcp_runtime::request`, INFO)
//! named and attributed after the OpenTelemetry semantic conventions for
//! MCP, with or without `otel`: a `tracing-subscriber` shows it, and the
//! spans a handler opens are its children.
//!
//! # The rest
//!
//! What a first server is written with is at the root: the macros,
//! [`Server`] and [`ServerBuilder`], [`RequestContext`], the extractors
//! [`Args`], [`State`] and [`Input`], [`CancellationToken`], [`Json`], and
//! the errors [`BuildError`] and [`RpcError`]. Everything else lives in the
//! module named for its job: [`extract`] (every extractor, and
//! [`FromCall`](extract::FromCall) for your own), [`outcome`] (what
//! handlers return), [`entry`] (tools, prompts and resources built without
//! macros), [`handler`] (what makes a function a handler), [`server`](mod@server) (the
//! server's settings), [`dispatch`] (one request in, one response out, for
//! a transport of your own), [`protocol`] (the wire types), [`input`]
//! (asking the client), [`events`] (the change events behind
//! `subscriptions/listen`), [`tasks`] (the tasks extension), [`session`]
//! (the 2025-era sessions), [`auth`] (who is calling), `redis` (the bus
//! and stores replicas share, `redis` feature), [`transport`],
//! [`schema`], [`client`] (a client of any server, one of this process
//! included, for your tests) and [`testing`] (catalog snapshots). What
//! the macros generate code against is not public API.
//!
//! # Layout
//!
//! The crate is built in layers, each importing only the layers before it
//! (CI fails on any import cycle between its files or its top-level
//! modules): the protocol's wire types (`protocol`, the crate
//! `mcp-runtime-protocol`, below everything else by construction); the handler core
//! (`handler`: the call and its context, extractors, outcomes; and `input`,
//! with the sealed `requestState` of its round trips); the middleware
//! (`middleware`: the `Layer` trait, the request view layers read, the
//! chain, the built-in layers; the dispatcher writes their answers behind a
//! trait, so that entries can hold layers without reaching up);
//! the registry (`registry`: entries, the catalog, scope rules, build
//! errors); the server (`server`); the stateless dispatcher (`dispatch`);
//! what a 2025-era session means (`session`: the session, its store, the
//! bridge to the dispatcher, `initialize`); the transports (`transport`, one
//! room per wire: `transport/http/` with its 2025-era sessions in
//! `transport/http/session/`, `transport/stdio/` likewise); the settings of a deployment, read from flags and `MCP_*` variables and
//! served with (`deployment`).
//! Tasks, events, telemetry (with `otel`), authentication and the Redis
//! engine (`redis`: the bus, both stores, their connections) sit where
//! their imports put them. One file answers each question a newcomer asks:
//!
//! | where is... | file |
//! |---|---|
//! | the bearer token checked | `transport/http/auth.rs` |
//! | a 2025-era POST routed to its session | `transport/http/session/routes.rs` |
//! | a 2025-era request made a 2026-07-28 one | `session/bridge.rs` |
//! | a session's answer to our elicitation routed to its handler | `session/live.rs` (`Session::answer`) |
//! | `-32602` made for a bad cursor | `dispatch/pagination.rs` |
//! | a task's lease renewed | `tasks/runner.rs` |
//! | a request sent through its middleware | `dispatch/method/router.rs` (`run`), `dispatch/method/layered.rs` |
// Without their feature, the names of the tables above lead to what the build has instead.
#![cfg_attr(not(feature = "stdio"), doc = "\n\n[`Server::serve_stdio`]: Server")]
#![cfg_attr(not(feature = "http"), doc = "\n\n[`transport::http`]: transport")]
#![cfg_attr(
    not(any(feature = "http", feature = "stdio")),
    doc = "\n\n[`deployment`]: mod@server\n[`ServerBuilder::serve`]: ServerBuilder"
)]
#![cfg_attr(not(feature = "session"), doc = "\n\n[`session`]: server::Eras")]
#![cfg_attr(not(feature = "rate-limit"), doc = "\n\n[`middleware::RateLimit`]: middleware")]
#![cfg_attr(not(feature = "cache"), doc = "\n\n[`middleware::ResultCache`]: middleware")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod answering;
pub mod apps;
pub mod auth;
#[cfg(feature = "server-card")]
#[cfg_attr(docsrs, doc(cfg(feature = "server-card")))]
pub mod card;
pub mod client;
#[cfg(any(feature = "http", feature = "stdio"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "http", feature = "stdio"))))]
pub mod deployment;
pub mod dispatch;
#[cfg(feature = "client-auth")]
mod dpop;
mod eras;
pub mod events;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod handler;
pub mod input;
#[cfg(feature = "session")]
#[cfg_attr(docsrs, doc(cfg(feature = "session")))]
#[deprecated(note = "renamed `mcp_runtime::session`")]
pub mod legacy;
#[cfg(feature = "logging")]
#[cfg_attr(docsrs, doc(cfg(feature = "logging")))]
pub mod logging;
mod macros;
pub mod middleware;
#[cfg(feature = "session")]
#[cfg_attr(docsrs, doc(cfg(feature = "session")))]
pub mod session;
// Telemetry is one room; its one public part, the exporter set-up, is
// named at the root where users look for it.
#[cfg(feature = "oauth-proxy")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth-proxy")))]
pub mod oauth_proxy;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub use telemetry::otel;
mod private;
// The wire types, a crate of their own that clients and gateways use too.
pub use mcp_runtime_protocol as protocol;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;
mod registry;
mod response;
pub mod schema;
#[cfg(feature = "tool-search")]
#[cfg_attr(docsrs, doc(cfg(feature = "tool-search")))]
pub mod search;
pub mod server;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub mod skills;
mod sync;
pub mod tasks;
mod telemetry;
pub mod testing;
pub mod transport;
mod uri_template;

// The front door: what a first server is written with. Everything else
// lives in the module named for its job.
pub use handler::context::RequestContext;
pub use handler::extract::{Args, State};
pub use handler::outcome::{Json, RpcError};
pub use input::Input;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub use mcp_runtime_macros::skills;
pub use mcp_runtime_macros::{derives, main, prompt, resource, test, tool};
pub use registry::error::BuildError;
pub use server::{Server, ServerBuilder};
pub use tokio_util::sync::CancellationToken;

pub mod extract {
    //! Extractors: the typed parameters a handler takes, each read from the
    //! call it serves. [`Args`] (the arguments), [`State`] (shared state),
    //! [`Input`](crate::Input) (asking the client), [`Logger`] and
    //! [`Progress`] (notifications), [`Extension`] (what the HTTP request
    //! carries), [`CancellationToken`], and
    //! [`RequestContext`](crate::RequestContext) itself.
    #![cfg_attr(not(feature = "http"), doc = "\n\n[`Extension`]: crate::transport")]
    //!
    //! An extractor of your own implements [`FromCall`] for the kinds of
    //! [`Call`] it reads: [`ToolCall`], [`PromptCall`], [`ResourceCall`],
    //! [`CompleteCall`].
    //!
    //! ```
    //! use mcp_runtime::extract::{Call, FromCall, Rejection};
    //!
    //! /// The name of the client, or `unknown`.
    //! struct ClientName(String);
    //!
    //! impl<C: Call> FromCall<C> for ClientName {
    //!     fn from_call(call: &C) -> Result<Self, Rejection> {
    //!         let info = call.context().client_info();
    //!         Ok(ClientName(info.map_or("unknown".to_owned(), |i| i.name.clone())))
    //!     }
    //! }
    //! ```

    pub use crate::handler::call::{Call, CompleteCall, PromptCall, ResourceCall, ToolCall};
    #[cfg(feature = "http")]
    pub use crate::handler::extension::Extension;
    pub use crate::handler::extract::{Args, FromCall, Rejection, State};
    pub use crate::handler::notify::{Logger, Progress};
    pub use crate::handler::state::StateRequirement;
    pub use tokio_util::sync::CancellationToken;
}

pub mod outcome {
    //! What handlers return, and how plain Rust values become protocol
    //! results: [`IntoToolResult`], [`IntoPromptResult`],
    //! [`IntoResourceContents`], the wrappers [`Json`] and [`NotFound`],
    //! and the errors a handler answers with ([`RpcError`]).

    pub use crate::handler::outcome::{
        IntoPromptResult, IntoResourceContents, IntoToolResult, Json, NotFound, Outcome, PromptOutcome,
        ResourceOutcome, RpcError, ToolOutcome,
    };
}

pub mod entry {
    //! Tools, prompts and resources built without the attribute macros:
    //! [`ToolEntry`], [`PromptEntry`], [`ResourceEntry`] (a fixed URI or a
    //! [`UriTemplate`]), registered on [`ServerBuilder`](crate::ServerBuilder)
    //! or added to a running [`Server`](crate::Server). They obey the rules
    //! the macros check, at build time instead of compile time.

    pub use crate::registry::entry::{PromptEntry, ResourceEntry, ToolEntry};
    pub use crate::registry::location::SourceLocation;
    pub use crate::registry::param_headers::ParamHeaderValue;
    pub use crate::registry::visibility::Viewer;
    pub use crate::uri_template::{TemplateError, UriTemplate};
}

// The crates a server's own code needs, at the versions the runtime uses, so
// `mcp-runtime` is its only dependency: serde and schemars for argument and
// result types (see [`derives`]), serde_json for `Value`, tokio for `main`.
#[doc(no_inline)]
pub use ::schemars;
#[doc(no_inline)]
pub use ::serde;
#[doc(no_inline)]
pub use ::serde_json;
#[doc(no_inline)]
pub use ::tokio;

#[doc(hidden)]
pub mod __private {
    //! Used by the code `#[tool]`, `#[prompt]` and `#[resource]` generate;
    //! not public API.
    pub use crate::private::*;
}

// The read-me's example is compiled with the doc-tests, so it cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
