//! Attribute macros for [`mcp-runtime`](https://docs.rs/mcp-runtime):
//! `#[tool]`, `#[prompt]` and `#[resource]` turn plain Rust functions into a
//! Model Context Protocol server's tools, prompts and resources; `#[main]`,
//! `#[test]` and `#[derives(...)]` let a server and its tests depend on the
//! runtime alone; with the `skills` feature, `skills!("dir")` embeds a
//! directory of skills, checked while compiling.
//!
//! Use them through `mcp_runtime`, which re-exports them with this
//! documentation (each macro's keys, context parameters, completion); the
//! generated code names `::mcp_runtime` (override with `crate = path` if you
//! rename the dependency or re-export the runtime).
//!
//! Each of `#[tool]`, `#[prompt]` and `#[resource]` leaves the function
//! exactly as written (callable and testable as usual) and generates beside
//! it a hidden adapter, a static descriptor registered for `server!()`, and
//! a hidden struct of the same name through which `tools![f]`,
//! `prompts![f]` and `resources![f]` list it explicitly.
//!
//! Mistakes are reported at the token that causes them: a parameter type
//! that cannot be an argument or a context parameter, a return type that
//! cannot become a result, a `self` receiver, generics, `impl Trait`, a
//! nameless pattern, an unknown or duplicate key, a URI template variable
//! without a parameter, contradictory hints. `MCP_MACROS_DEBUG=1` (or the
//! function's name) prints the expansion while compiling.

mod attr;
mod check;
mod codegen;
mod derives;
mod docs;
mod errors;
mod expand;
mod fallback;
mod keys;
mod main_attr;
mod model;
mod params;
#[cfg(feature = "skills")]
mod skills;
mod template;
mod view;

#[cfg(test)]
mod snapshot_tests;

use proc_macro::TokenStream;

use crate::attr::Macro;
use crate::main_attr::Entry;

/// Makes a function a tool: the doc comment is the description the model
/// reads, the arguments are the input schema, the return type decides the
/// result.
///
/// ```
/// use mcp_runtime::{tool, extract::Progress};
///
/// /// A match.
/// #[mcp_runtime::derives(Serialize, JsonSchema)]
/// struct Hit {
///     /// Where the match is.
///     path: String,
/// }
///
/// /// Searches the notes.
/// #[tool(annotations(read_only, open_world = false))]
/// async fn search(
///     /// What to look for.
///     query: String,
///     #[arg(description = "How many hits at most", default = 10)] limit: u32,
///     progress: Progress,
/// ) -> Result<Vec<Hit>, std::io::Error> {
///     progress.report(1.0, Some(1.0));
///     let hits = (0..limit.min(3)).map(|i| Hit { path: format!("{query}-{i}.md") });
///     Ok(hits.collect())
/// }
/// ```
///
/// # Keys
///
/// | key | meaning |
/// |---|---|
/// | `name = "..."` | the tool's name (default: the function's name) |
/// | `title = "..."` | the display name |
/// | `description = "..."` | the description (default: the doc comment) |
/// | `annotations(...)` | hints for clients: `title = "..."`, `read_only`, `destructive`, `idempotent`, `open_world` (each flag also `= false`; `read_only` with `destructive` is an error) |
/// | `task` | may run as a task (the `io.modelcontextprotocol/tasks` extension): a call from a client that declares the extension is answered at once with a task handle, other calls run as usual (`task(optional)` says the same); `task(required)`: only as a task, other clients are refused with `-32021`; with `input_first` among them (`task(required, input_first)`), input asked for before the handler first waits on anything else comes by `input_required` round trips on the call, and the task starts at that wait. The body stays the same, `Input` and `CancellationToken` included (see `mcp_runtime::tasks`) |
/// | `icons = ["https://...", ...]` | icons, as URIs or `Icon` values |
/// | `meta("key" = value, ...)` | the definition's `_meta` |
/// | `scopes = ["...", ...]` | OAuth scopes a caller must be granted, every one, to see it in `tools/list` and call it, on an authenticated server (see `mcp_runtime::auth`); RFC 6749 scope tokens, none twice, at least one |
/// | `visible_to = path` | shown only to the callers the function admits (`fn(&Viewer<'_>) -> bool`, `Viewer` from `mcp_runtime::entry`); to others it is unknown — see `ToolEntry::visible_to` |
/// | `view = "ui://..."` | binds the tool to an interactive view (MCP Apps, see `mcp_runtime::apps`): the `ui://` resource a host renders with the tool's input and result, which a `#[resource("ui://...", view)]` must serve (a `BuildError` otherwise) |
/// | `visibility = ...` | with `view`: who the tool is for, `model_and_app` (the model and the view, the default), `model` (the view may not call it) or `app` (a host does not offer it to the model); advice to hosts, not an authorization |
/// | `layer = expr` | middleware for this tool alone, any `mcp_runtime::middleware::Layer` (`TimeLimit::new(..)`, `Audit::new()`, `RateLimit::per_minute(..)`, ...); repeat the key for more, the first the outermost, all inside the server's layers |
/// | `crate = path` | the runtime's path, when it is not `::mcp_runtime` |
///
#[doc = include_str!("../doc/tool_keys.md")]
///
/// # Arguments
///
/// Each argument is a property of the input schema, read from the call's
/// JSON arguments one by one (every bad argument is named in one error, as a
/// result with `isError: true` the model can correct). Its type implements
/// `Deserialize` and schemars 1 `JsonSchema`; derive both for your own types
/// with [`#[mcp_runtime::derives(Deserialize, JsonSchema)]`](macro@derives).
///
/// # Results
///
/// The return type decides the result, whatever its spelling (aliases work):
/// text-like values (`String`, `&'static str`, numbers, `bool`) become a text
/// block; `ContentBlock`, `Vec<ContentBlock>` and `CallToolResult` are sent as
/// they are; any other `Serialize + JsonSchema` type becomes
/// `structuredContent` with a matching `outputSchema` (wrapped as
/// `{"result": ...}` when it is not an object); `Result<T, E>` does the same
/// for `T` and turns `Err(e)` into `isError: true` with `e`'s `Display` text
/// (or a JSON-RPC error for `Err(RpcError(..))`).
///
/// # Asking for input: the function runs again
///
/// A tool that takes `Input` and awaits an elicitation, a sampling or the
/// roots is answered in rounds: when an answer is missing the call ends with
/// `input_required`, and the client's retry, with the answer, runs the
/// function again **from the top** (on a 2025-era session too; only inside
/// a task does it wait at the question instead). Everything before the
/// question it stopped at runs again, so ask first, then act:
///
/// ```
/// use mcp_runtime::{Input, input::Elicitation, tool};
/// # fn delete(_id: u32) {}
///
/// /// Deletes a note, after asking.
/// #[tool(annotations(destructive))]
/// async fn delete_note(id: u32, input: Input) -> String {
///     // Not here: a line before the question runs once per round.
///     let answer = input.elicit("confirm", Elicitation::form(format!("Delete note {id}?")).boolean("ok", true)).await;
///     if answer.field("ok").as_deref() != Some("true") {
///         return "kept".to_owned();
///     }
///     delete(id); // after the last question: once
///     format!("deleted note {id}")
/// }
/// ```
///
/// An effect that must come before a question is made idempotent, keyed by
/// what every round sees the same: an argument, or a marker saved with
/// `Input::set_state` (see `mcp_runtime::input`).
///
#[doc = include_str!("../doc/parameters.md")]
///
#[doc = include_str!("../doc/sync.md")]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Macro::Tool, args.into(), item.into()).into()
}

/// Makes a function a prompt: a template the user picks, rendered into
/// messages from its arguments.
///
/// ```
/// use mcp_runtime::prompt;
///
/// fn languages(typed: &str) -> Vec<&'static str> {
///     ["rust", "python", "go"].into_iter().filter(|l| l.starts_with(typed)).collect()
/// }
///
/// /// Asks for a review of a piece of code.
/// #[prompt(title = "Code review")]
/// fn review(
///     /// The code to review.
///     code: String,
///     #[arg(complete = languages)] language: Option<String>,
/// ) -> String {
///     format!("Please review this {} code:\n{code}", language.as_deref().unwrap_or("unknown"))
/// }
/// ```
///
/// # Keys
///
/// | key | meaning |
/// |---|---|
/// | `name = "..."` | the prompt's name (default: the function's name) |
/// | `title = "..."` | the display name |
/// | `description = "..."` | the description (default: the doc comment) |
/// | `icons = ["https://...", ...]` | icons, as URIs or `Icon` values |
/// | `meta("key" = value, ...)` | the definition's `_meta` |
/// | `scopes = ["...", ...]` | OAuth scopes a caller must be granted, every one, to see it in `prompts/list` and get it, on an authenticated server (see `mcp_runtime::auth`); RFC 6749 scope tokens, none twice, at least one |
/// | `visible_to = path` | shown only to the callers the function admits (`fn(&Viewer<'_>) -> bool`, `Viewer` from `mcp_runtime::entry`); to others it is unknown — see `PromptEntry::visible_to` |
/// | `crate = path` | the runtime's path, when it is not `::mcp_runtime` |
///
#[doc = include_str!("../doc/prompt_keys.md")]
///
/// # Arguments and results
///
/// Arguments are required unless `Option` or with a `default`. Values
/// arrive as strings and are parsed into the parameter's type (`"42"` for a
/// `u32`; a `Vec` from JSON or from comma-separated text, a struct from JSON
/// text). Return a `String` (one user message), `PromptMessage`,
/// `Vec<PromptMessage>`, `GetPromptResult`, or a `Result` of these.
///
#[doc = include_str!("../doc/parameters.md")]
///
#[doc = include_str!("../doc/sync.md")]
///
#[doc = include_str!("../doc/completion.md")]
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Macro::Prompt, args.into(), item.into()).into()
}

/// Makes a function a resource (`#[resource("scheme://path")]`) or a
/// resource template (`#[resource("scheme://{var}/{+rest}")]`).
///
/// ```
/// use mcp_runtime::{resource, outcome::NotFound};
///
/// /// The project's read-me.
/// #[resource("docs://readme", mime_type = "text/markdown")]
/// fn readme() -> &'static str {
///     "# Notes"
/// }
///
/// /// One note, by its number.
/// #[resource("notes://{id}", mime_type = "text/plain")]
/// async fn note(id: u32) -> Result<String, NotFound> {
///     if id == 1 { Ok("first note".into()) } else { Err(NotFound) }
/// }
/// ```
///
/// # Keys
///
/// The URI (or URI template, RFC 6570 level 1 to 3) comes first: an
/// absolute URI of RFC 3986, with a scheme and any other character
/// percent-encoded (`docs://read%20me`, not `docs://read me`), or it is a
/// compile error on the literal. Then:
///
/// | key | meaning |
/// |---|---|
/// | `name = "..."` | the resource's name (default: the function's name) |
/// | `title = "..."` | the display name |
/// | `description = "..."` | the description (default: the doc comment) |
/// | `mime_type = "..."` | the contents' MIME type |
/// | `annotations(...)` | `audience = ["user", "assistant"]`, `priority = 0.5`, `last_modified = "2026-01-01T00:00:00Z"` (ISO 8601) |
/// | `icons = ["https://...", ...]` | icons, as URIs or `Icon` values |
/// | `size = n` | the size in bytes (fixed resources only) |
/// | `meta("key" = value, ...)` | the definition's `_meta` |
/// | `scopes = ["...", ...]` | OAuth scopes a caller must be granted, every one, to see it in `resources/list` (or `resources/templates/list`) and read it, on an authenticated server (see `mcp_runtime::auth`); RFC 6749 scope tokens, none twice, at least one |
/// | `visible_to = path` | shown only to the callers the function admits (`fn(&Viewer<'_>) -> bool`, `Viewer` from `mcp_runtime::entry`); to others it is unknown — see `ResourceEntry::visible_to` |
/// | `view`, `view(...)` | makes it an interactive view (MCP Apps, see `mcp_runtime::apps`) for the tools bound to it with `#[tool(view = "ui://...")]`: a `ui://` URI, no template, no `mime_type` (it is `text/html;profile=mcp-app`); `view(...)` adds the settings `connect_domains`, `resource_domains`, `frame_domains`, `base_uri_domains` (lists of origins), `camera`, `microphone`, `geolocation`, `clipboard_write` (permissions asked for), `domain = "..."`, `prefers_border = true` (or `false`) |
/// | `crate = path` | the runtime's path, when it is not `::mcp_runtime` |
///
#[doc = include_str!("../doc/resource_keys.md")]
///
/// # Template variables and results
///
/// Each template variable binds to the parameter of the same name (or
/// `#[arg(rename = "...")]`), parsed into its type (a `Vec` from a list
/// such as `a,b`); a variable without a parameter, or a parameter without a
/// variable, is an error on the URI. Return text (`String`), bytes
/// (`Vec<u8>`), `ResourceContents`, `Vec<ResourceContents>`,
/// `ReadResourceResult`, `Option` of these (`None` is "not found"), or
/// `Result` of these (`Err(NotFound)` is "not found", `-32602` with
/// `data.uri`).
///
#[doc = include_str!("../doc/parameters.md")]
///
#[doc = include_str!("../doc/sync.md")]
///
#[doc = include_str!("../doc/completion.md")]
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Macro::Resource, args.into(), item.into()).into()
}

/// Runs an `async fn main` on a multi-threaded tokio runtime: tokio's
/// `#[tokio::main]`, reached through `mcp_runtime::tokio`, so a server needs
/// no tokio dependency of its own.
///
/// ```no_run
/// #[mcp_runtime::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     mcp_runtime::server!().build()?.serve_stdio().await?;
///     Ok(())
/// }
/// ```
///
/// Arguments are tokio's (`flavor = "current_thread"`, `worker_threads = 2`,
/// ...), except two:
///
/// - `logging`: logs on stderr, filtered by `RUST_LOG` (default `info`),
///   set up before anything else in `main` (`mcp_runtime::logging::init`,
///   the `logging` feature). Without a subscriber, nothing the runtime logs
///   is printed; and one writing to stdout breaks a stdio server.
/// - `crate = path`: the path of the runtime when it is renamed or
///   re-exported.
///
/// ```no_run
/// #[mcp_runtime::main(logging)]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     mcp_runtime::server!().build()?.serve_stdio().await?;
///     Ok(())
/// }
/// ```
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    main_attr::expand(Entry::Main, args.into(), item.into()).into()
}

/// Runs an `async fn` test on a tokio runtime: tokio's `#[tokio::test]`,
/// reached through `mcp_runtime::tokio`, so a crate whose one dependency is
/// `mcp-runtime` tests its server without adding tokio (`#[tokio::test]`
/// fails there with "cannot find crate `tokio`").
///
/// ```
/// use mcp_runtime::{client::Client, protocol::ContentBlock, tool};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// #[mcp_runtime::test]
/// async fn adds() -> Result<(), Box<dyn std::error::Error>> {
///     let server = mcp_runtime::Server::builder("calc", "1.0.0").tools(mcp_runtime::tools![add]).build()?;
///     let client = Client::in_process(server);
///     let result = client.call_tool("add", mcp_runtime::serde_json::json!({"a": 2, "b": 3})).await?;
///     assert_eq!(result.content, [ContentBlock::text("5")]);
///     Ok(())
/// }
/// # fn main() {}
/// ```
///
/// Arguments are tokio's (`flavor = "multi_thread"`, `worker_threads = 2`,
/// ...; the default is one thread, as with tokio), except `crate = path`,
/// the path of the runtime when it is renamed or re-exported. On a function
/// that is not `async`, it is a compile error: a test that awaits nothing
/// takes the plain `#[test]`.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    main_attr::expand(Entry::Test, args.into(), item.into()).into()
}

/// `#[derive(...)]` for the types of tool arguments and results, with
/// `Serialize`, `Deserialize` and `JsonSchema` taken from the runtime's
/// re-exports (`mcp_runtime::serde`, `mcp_runtime::schemars`), so they work
/// with `mcp-runtime` as the only dependency.
///
/// ```
/// /// Two numbers.
/// #[mcp_runtime::derives(Debug, Deserialize, JsonSchema)]
/// #[serde(rename_all = "camelCase")]
/// struct Pair {
///     /// The first number.
///     first_number: i64,
///     /// The second number.
///     second_number: i64,
/// }
///
/// #[mcp_runtime::tool]
/// fn sum(pair: Pair) -> i64 {
///     pair.first_number + pair.second_number
/// }
/// ```
///
/// `Serialize` and `Deserialize` become `mcp_runtime::serde::...` with
/// `#[serde(crate = "::mcp_runtime::serde")]`, `JsonSchema` becomes
/// `mcp_runtime::schemars::JsonSchema` with `#[schemars(crate =
/// "::mcp_runtime::schemars")]`; any other name (`Debug`, `Clone`, a path) is
/// derived as written. `#[serde(...)]` and `#[schemars(...)]` attributes
/// below it work as usual. Without the helper, write the same by hand:
///
/// ```
/// use mcp_runtime::schemars::JsonSchema;
/// use mcp_runtime::serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// #[serde(crate = "mcp_runtime::serde")]
/// #[schemars(crate = "mcp_runtime::schemars")]
/// struct Pair {
///     first: i64,
///     second: i64,
/// }
/// ```
///
/// A crate that depends on serde and schemars itself can keep plain
/// `#[derive(serde::Deserialize, schemars::JsonSchema)]`, as long as its
/// schemars is 1.x: the runtime describes arguments with schemars 1, and a
/// `JsonSchema` derived by schemars 0.8 is a different trait. `crate = path`
/// names the runtime when it is renamed or re-exported.
#[proc_macro_attribute]
pub fn derives(args: TokenStream, item: TokenStream) -> TokenStream {
    derives::expand(args.into(), item.into()).into()
}

/// Embeds a directory of skills (the `io.modelcontextprotocol/skills`
/// extension) in the binary, every `SKILL.md` checked while compiling: a
/// `mcp_runtime::skills::Skills` for `ServerBuilder::skills`, with nothing
/// left to read, or to go wrong, when the server starts.
///
/// ```ignore
/// // With the `skills` feature of mcp-runtime; `skills/` is beside this file.
/// let server = mcp_runtime::Server::builder("docs", "1.0.0")
///     .skills(mcp_runtime::skills!("skills"))
///     .build()?;
/// ```
///
/// The argument is one string literal, the directory's path: relative to
/// the directory of the file that invokes the macro, as for
/// `include_bytes!`, or absolute. Every directory below it that holds a
/// `SKILL.md` is a skill, named by its path below it
/// (`skills/acme/refunds/SKILL.md` is the skill `acme/refunds`), or by its
/// own name when the directory given is itself a skill; every regular file
/// under a skill is one of its files. The directory is walked by the rules
/// of `mcp_runtime::skills::Skills::dir`, which reads one at run time.
///
/// # Compile errors
///
/// Each of these is an error on the path literal, naming the file: no
/// directory at the path, no `SKILL.md` in it, a `SKILL.md` without YAML
/// front matter, without a `name` or a `description`, with a name that
/// breaks the naming rule (1 to 64 of `a-z 0-9 -`, no `-` first, last or
/// twice in a row) or that is not its directory's name; a symbolic link; a
/// file or directory name that is not a plain URI segment
/// (`A-Z a-z 0-9 - . _ ~`); a skill of more than 512 files or 16 MiB.
///
/// # What is and is not tracked
///
/// Every file is embedded with `include_bytes!` and an absolute path, so
/// cargo rebuilds the crate when one of them changes. Adding or removing a
/// file is not seen until the crate is rebuilt for another reason (touch
/// the invoking file): a procedural macro cannot ask cargo to watch a
/// directory on stable Rust. Names starting with `.` (`.git`,
/// `.DS_Store`) are left out.
#[cfg(feature = "skills")]
#[proc_macro]
pub fn skills(input: TokenStream) -> TokenStream {
    // `proc_macro::Span` only works inside a macro call, so the invoking
    // file is found here and the rest runs on `proc_macro2`.
    let file = proc_macro::Span::call_site().local_file();
    skills::expand(input.into(), file).into()
}
