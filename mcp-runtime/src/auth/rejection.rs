//! [`Rejection`]: why a bearer token is refused, kept apart from the
//! verifier so the checks it runs (JWT, key set, introspection) can name it
//! without depending on the verifier itself.

/// Why a token is not accepted.
#[derive(Debug, Clone)]
pub(crate) enum Rejection {
    /// The token is not good here (401); the reason goes to the client.
    InvalidToken(&'static str),
    /// The issuer could not be asked (503); the reason is logged only.
    Unavailable(String),
}
