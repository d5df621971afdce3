//! The macros that collect annotated functions: [`server!`], a builder
//! holding every one linked into the binary, and the explicit lists
//! [`tools!`], [`prompts!`] and [`resources!`], to pick a subset or for
//! targets where link-time registration is not wanted.

/// The [`ToolEntry`](crate::entry::ToolEntry)s of functions annotated with
/// `#[tool]`, by name or path, as an array.
///
/// ```
/// use mcp_runtime::{Server, tool, tools};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// mod more {
///     /// Subtracts `b` from `a`.
///     #[mcp_runtime::tool]
///     pub fn sub(a: i64, b: i64) -> i64 {
///         a - b
///     }
/// }
///
/// let server = Server::builder("calculator", "1.0.0").tools(tools![add, more::sub]).build()?;
/// assert_eq!(server.tools().count(), 2);
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
#[macro_export]
macro_rules! tools {
    ($($tool:path),* $(,)?) => {
        [$($crate::__private::tool_entry(<$tool as $crate::__private::ToolItem>::descriptor())),*]
    };
}

/// The [`PromptEntry`](crate::entry::PromptEntry)s of functions annotated with
/// `#[prompt]`, by name or path, as an array.
///
/// ```
/// use mcp_runtime::{Server, prompt, prompts};
///
/// /// Asks for a review of some code.
/// #[prompt]
/// fn review(code: String) -> String {
///     format!("Please review:\n{code}")
/// }
///
/// let server = Server::builder("reviewer", "1.0.0").prompts(prompts![review]).build()?;
/// # let _ = server;
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
#[macro_export]
macro_rules! prompts {
    ($($prompt:path),* $(,)?) => {
        [$($crate::__private::prompt_entry(<$prompt as $crate::__private::PromptItem>::descriptor())),*]
    };
}

/// The [`ResourceEntry`](crate::entry::ResourceEntry)s of functions annotated with
/// `#[resource]`, by name or path, as an array.
///
/// ```
/// use mcp_runtime::{Server, resource, resources};
///
/// /// The greeting.
/// #[resource("text://greeting", mime_type = "text/plain")]
/// fn greeting() -> &'static str {
///     "hello"
/// }
///
/// let server = Server::builder("greeter", "1.0.0").resources(resources![greeting]).build()?;
/// # let _ = server;
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
#[macro_export]
macro_rules! resources {
    ($($resource:path),* $(,)?) => {
        [$($crate::__private::resource_entry(<$resource as $crate::__private::ResourceItem>::descriptor())),*]
    };
}

/// A [`ServerBuilder`](crate::ServerBuilder) holding every `#[tool]`,
/// `#[prompt]` and `#[resource]` linked into the binary: the way to serve
/// them all. `server!()` reports the *calling* crate's name and version
/// (`CARGO_PKG_NAME`, `CARGO_PKG_VERSION`); `server!(name, version)`
/// reports the ones given, as [`Server::builder`](crate::Server::builder)
/// does. To serve a chosen subset, pass explicit lists
/// ([`tools!`](crate::tools), ...) to `Server::builder` instead.
///
/// ```standalone_crate
/// use mcp_runtime::tool;
///
/// /// Says hello.
/// #[tool]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let server = mcp_runtime::server!().build()?;
/// assert_eq!(server.info().name, env!("CARGO_PKG_NAME"));
/// assert!(server.tools().any(|t| t.definition().name == "hello"));
///
/// let named = mcp_runtime::server!("greeter", "2.0.0").title("Greeter").build()?;
/// assert_eq!((named.info().name.as_str(), named.info().version.as_str()), ("greeter", "2.0.0"));
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
///
/// (The example runs as its own crate: doctests merged into one binary
/// would all see each other's tools.)
///
/// # Link-time registration
///
/// Each annotated function puts one static descriptor into a distributed
/// slice (linkme) that the runtime declares; no central list names them.
///
/// Guaranteed: the server sorts everything by name (resources by name,
/// then URI), so lists are stable across builds whatever order the linker
/// chose, and two definitions with one name are a
/// [`BuildError`](crate::BuildError) naming both source locations.
///
/// Not guaranteed: which items a binary sees is decided by the linker.
/// Each test binary sees the items linked into it; a module nothing refers
/// to in a library may be dropped by some linkers; targets linkme does not
/// support (such as wasm) need the explicit lists
/// ([`tools!`](crate::tools), [`prompts!`](crate::prompts),
/// [`resources!`](crate::resources)) instead.
///
/// The runtime declares the slices but never registers into them itself,
/// which keeps it (and every user crate) free of `unsafe` code.
#[macro_export]
macro_rules! server {
    () => {
        $crate::server!(::core::env!("CARGO_PKG_NAME"), ::core::env!("CARGO_PKG_VERSION"))
    };
    ($name:expr, $version:expr $(,)?) => {
        $crate::__private::registered($crate::Server::builder($name, $version))
    };
}
