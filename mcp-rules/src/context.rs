//! Which parameters of a handler are context parameters.
//!
//! The rule is syntactic so that a reader can predict it: an unmarked
//! parameter is context when its type (behind at most one `&`) ends in one of
//! [`CONTEXT_TYPES`], or is an `Option` of one of [`OPTIONAL_CONTEXT_TYPES`].
//! The macros apply it; the runtime's diagnostics and the documentation list
//! the same names, and tests hold them to these lists.

/// The runtime's context types, recognised by the last segment of their path.
pub const CONTEXT_TYPES: &[&str] = &[
    "State",
    "RequestContext",
    "RequestMeta",
    "CancellationToken",
    "Progress",
    "Logger",
    "Input",
    "Extension",
    "Principal",
];

/// The context types the runtime also extracts as an `Option` (absent when
/// the request has none), as axum's handlers take `Option<Extension<T>>`.
/// `Option<Principal>` is the caller of a request that may come
/// unauthenticated (over stdio, say). Only these: `Option<State<T>>` stays
/// an argument the compiler refuses, rather than becoming a context
/// parameter that does not exist.
pub const OPTIONAL_CONTEXT_TYPES: &[&str] = &["Extension", "Principal"];

/// Whether a type whose path ends in `name` is a context type.
///
/// ```
/// assert!(mcp_runtime_rules::context::is_context_type("Logger"));
/// assert!(!mcp_runtime_rules::context::is_context_type("String"));
/// ```
pub fn is_context_type(name: &str) -> bool {
    CONTEXT_TYPES.contains(&name)
}

/// Whether `Option<T>`, with `T`'s path ending in `name`, is a context type.
///
/// ```
/// assert!(mcp_runtime_rules::context::is_optional_context_type("Extension"));
/// assert!(!mcp_runtime_rules::context::is_optional_context_type("State"));
/// ```
pub fn is_optional_context_type(name: &str) -> bool {
    OPTIONAL_CONTEXT_TYPES.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_context_types_are_context_types() {
        for name in OPTIONAL_CONTEXT_TYPES {
            assert!(is_context_type(name), "{name}");
        }
    }

    #[test]
    fn state_is_context_but_not_optional() {
        assert!(is_context_type("State"));
        assert!(!is_optional_context_type("State"));
        assert!(!is_context_type("Option"));
    }
}
