//! Attribute macros for [`mcp-runtime`](https://docs.rs/mcp-runtime):
//! `#[tool]`, `#[prompt]` and `#[resource]` turn plain Rust functions into a
//! Model Context Protocol server's tools, prompts and resources.
//!
//! Use them through `mcp_runtime`, which re-exports them; the generated code
//! names `::mcp_runtime` (override with `crate = path` if you rename the
//! dependency or re-export the runtime).
//!
//! Each macro leaves the function exactly as written (callable and testable
//! as usual) and generates beside it a hidden adapter, a static descriptor
//! registered for [`Server::builder(..).registered()`] and `server!()`, and a
//! hidden struct of the same name through which `tools![f]`,
//! `prompts![f]` and `resources![f]` list it explicitly.
//!
//! [`Server::builder(..).registered()`]: https://docs.rs/mcp-runtime
//!
//! # Parameters
//!
//! A parameter is a **context parameter** when it is marked `#[ctx]`, or
//! when it is not marked `#[arg]` and its type (behind at most one `&`) is
//! named `RequestContext`, `RequestMeta`, `State`, `CancellationToken`,
//! `Progress`, `Logger`, `Input` or `Extension`, or is `Option<Extension<T>>`.
//! Context parameters are extracted from the request and never shown to
//! clients. Every other parameter is an
//! **argument**: a property of a tool's input schema, an argument of a
//! prompt, or a variable of a resource template.
//!
//! `#[arg(...)]` configures an argument:
//!
//! | key | applies to | meaning |
//! |---|---|---|
//! | `description = "..."` | tools, prompts | the argument's description (a `///` comment on the parameter works too) |
//! | `default = expr` | tools, prompts | the value when the argument is absent; the argument becomes optional |
//! | `rename = "..."` | all | the name clients use, when it is not the parameter's name |
//! | `header = "Name"` | tools | mirror the value into the `Mcp-Param-Name` HTTP header (`x-mcp-header`) |
//! | `title = "..."` | prompts | the argument's display name |
//! | `complete = path` | prompts, templates | a completer for `completion/complete` |
//!
//! An argument whose type accepts `null` (`Option<T>`) is optional.
//!
//! # Errors
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
mod docs;
mod errors;
mod expand;
mod fallback;
mod model;
mod params;
mod template;

#[cfg(test)]
mod snapshot_tests;

use proc_macro::TokenStream;

use crate::attr::Macro;

/// Makes a function a tool.
///
/// ```
/// use mcp_runtime::{Progress, tool};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Hit {
///     /// Where the match is.
///     path: String,
/// }
///
/// /// Searches the notes. The doc comment is the description the model reads.
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
/// Keys: `name = "..."` (default: the function's name), `title = "..."`,
/// `description = "..."` (default: the doc comment), `annotations(title =
/// "...", read_only, destructive, idempotent, open_world)` (each also
/// `= false`; `read_only` with `destructive` is an error), `icons = ["https://...",
/// ...]`, `meta("key" = value, ...)`, `crate = path`.
///
/// The return type decides the result, whatever its spelling (aliases work):
/// text-like values (`String`, `&'static str`, numbers, `bool`) become a text
/// block; `ContentBlock`, `Vec<ContentBlock>` and `CallToolResult` are sent as
/// they are; any other `Serialize + JsonSchema` type becomes
/// `structuredContent` with a matching `outputSchema` (wrapped as
/// `{"result": ...}` when it is not an object); `Result<T, E>` does the same
/// for `T` and turns `Err(e)` into `isError: true` with `e`'s `Display` text
/// (or a JSON-RPC error for `Err(RpcError(..))`).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Macro::Tool, args.into(), item.into()).into()
}

/// Makes a function a prompt.
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
/// Parameters become the prompt's arguments (required unless `Option` or
/// with a `default`). Values arrive as strings and are parsed into the
/// parameter's type (`"42"` for a `u32`; a `Vec` from JSON or from
/// comma-separated text, a struct from JSON text). Keys: `name`, `title`,
/// `description`, `icons`, `meta`, `crate`. Return a `String` (one user
/// message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or a
/// `Result` of these.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Macro::Prompt, args.into(), item.into()).into()
}

/// Makes a function a resource (`#[resource("scheme://path")]`) or a
/// resource template (`#[resource("scheme://{var}/{+rest}")]`).
///
/// ```
/// use mcp_runtime::{NotFound, resource};
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
/// Each template variable binds to the parameter of the same name (or
/// `#[arg(rename = "...")]`), parsed into its type; a variable without a
/// parameter, or a parameter without a variable, is an error on the URI.
/// Keys: `name` (default: the function's name), `title`, `description`,
/// `mime_type`, `annotations(audience = ["user", "assistant"], priority =
/// 0.5, last_modified = "...")`, `icons`, `size` (fixed resources only),
/// `meta`, `crate`. Return text (`String`), bytes (`Vec<u8>`),
/// `ResourceContents`, `Vec<ResourceContents>`, `ReadResourceResult`,
/// `Option` of these (`None` is "not found"), or `Result` of these
/// (`Err(NotFound)` is "not found", `-32602` with `data.uri`).
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Macro::Resource, args.into(), item.into()).into()
}
