//! Logs on stderr, filtered by `RUST_LOG`, with no dependency of your own
//! (the `logging` feature, on by default).
//!
//! Nothing the runtime logs (`Audit`'s records, a refused request, a
//! handler that panicked) is printed until a `tracing` subscriber is
//! installed. [`init`] installs one, or `#[mcp_runtime::main(logging)]`
//! does it first thing in `main`:
//!
//! ```no_run
//! #[mcp_runtime::main(logging)]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     mcp_runtime::server!().build()?.serve_stdio().await?;
//!     Ok(())
//! }
//! ```
//!
//! Logs go to **stderr**, always: over stdio, stdout carries the protocol
//! and nothing else, and a log line there breaks the client (a subscriber
//! that writes to stdout, such as `tracing_subscriber::fmt::init()`'s, does
//! exactly that). `RUST_LOG` filters them with `tracing-subscriber`'s
//! directives (`debug`, `mcp_runtime=debug,my_server=trace`, ...); without
//! it, `info` and above. Colours only when stderr is a terminal and
//! `NO_COLOR` is not set.
//!
//! For OpenTelemetry export as well, use `otel::init` (feature `otel`)
//! instead: it logs the same way and installs the one subscriber there is.

use std::io::IsTerminal as _;

use tracing_subscriber::EnvFilter;

/// What is logged when `RUST_LOG` is not set.
const DEFAULT_FILTER: &str = "info";

/// Why [`init`] installed nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoggingError {
    /// A global `tracing` subscriber was installed already (by the
    /// application, or by `otel::init`): it stays, and logs go where it
    /// sends them.
    #[error("a tracing subscriber is installed already, and logs go where it sends them: {0}")]
    Installed(#[from] tracing_subscriber::util::TryInitError),
}

/// Installs the global `tracing` subscriber: logs on stderr, filtered by
/// `RUST_LOG` (default `info`).
///
/// ```
/// mcp_runtime::logging::init()?;
/// // A second subscriber is refused; the first stays.
/// assert!(mcp_runtime::logging::init().is_err());
/// # Ok::<(), mcp_runtime::logging::LoggingError>(())
/// ```
pub fn init() -> Result<(), LoggingError> {
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let colours = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(colours)
        .with_env_filter(filter)
        .finish()
        .try_init()?;
    Ok(())
}

/// What `#[mcp_runtime::main(logging)]` calls: [`init`], and a line on
/// stderr when a subscriber was there already.
#[doc(hidden)]
pub fn init_for_main() {
    if let Err(error) = init() {
        eprintln!("#[mcp_runtime::main(logging)]: {error}");
    }
}
