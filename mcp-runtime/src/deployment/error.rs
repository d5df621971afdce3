//! What goes wrong between the command line and a served port: a setting
//! that does not read, a server that does not build, Redis that does not
//! answer, a port that cannot be bound.

use crate::registry::error::BuildError;

/// A deployment setting that cannot be used, naming the flag or variable
/// it came from.
///
/// ```
/// use mcp_runtime::deployment::{Deployment, DeploymentError};
///
/// let vars = [("MCP_HEALTH", "maybe")];
/// let error = Deployment::parse(Vec::<String>::new(), vars).unwrap_err();
/// assert!(matches!(error, DeploymentError::Invalid { setting: "MCP_HEALTH", .. }));
/// assert_eq!(error.to_string(), "MCP_HEALTH: `maybe` is not 1 or 0");
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeploymentError {
    /// The value does not read, is missing, or contradicts another setting.
    #[error("{setting}: {reason}")]
    Invalid {
        /// The flag (`--http`) or variable (`MCP_HTTP_ADDR`) that held it.
        setting: &'static str,
        /// What was wrong, and what was expected.
        reason: String,
    },
    /// The setting needs a feature of `mcp-runtime` this server is built
    /// without.
    #[error(
        "{setting} needs the `{feature}` feature of mcp-runtime, which this server is built without \
         (add it to the dependency's `features`)"
    )]
    NeedsFeature {
        /// The flag or variable given.
        setting: &'static str,
        /// The Cargo feature it needs.
        feature: &'static str,
    },
    /// An argument that is no deployment setting, where the server reads no
    /// other (see [`ServerBuilder::serve`](crate::ServerBuilder::serve)).
    #[error("unknown argument `{argument}`\n\n{usage}", usage = super::usage())]
    UnknownArgument {
        /// The argument, as given.
        argument: String,
    },
}

/// Why [`Deployment::serve`](super::Deployment::serve) (or
/// [`ServerBuilder::serve`](crate::ServerBuilder::serve)) stopped
/// before serving, or while serving.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A deployment setting cannot be used.
    #[error(transparent)]
    Deployment(#[from] DeploymentError),
    /// The server does not build.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Redis does not answer, or refuses.
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    #[error("connecting to Redis at {url} (MCP_REDIS_URL, --redis): {source}")]
    Redis {
        /// The URL given.
        url: String,
        /// What the client said.
        source: redis::RedisError,
    },
    /// Binding the port, reading a TLS file, or stdin and stdout.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

// `main` returning an error prints it with `Debug`: the sentence, not the
// variant's fields.
impl std::fmt::Debug for DeploymentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Debug for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
