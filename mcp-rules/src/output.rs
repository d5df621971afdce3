//! Structured tool results: `structuredContent` and `outputSchema` describe
//! JSON objects, so a value whose schema root is not an object is sent as
//! `{"result": value}`, and its output schema wrapped to match.

/// The property that holds a wrapped value.
pub const RESULT_KEY: &str = "result";

/// Whether a value whose schema has the root `type` `root_type` is wrapped.
/// Only a schema that says `"type": "object"` describes an object for
/// certain; `["object", "null"]`, `anyOf` or no type at all may not.
///
/// ```
/// use mcp_runtime_rules::output::is_wrapped;
///
/// assert!(!is_wrapped(Some("object")));
/// assert!(is_wrapped(Some("array")));
/// assert!(is_wrapped(None));
/// ```
pub fn is_wrapped(root_type: Option<&str>) -> bool {
    root_type != Some("object")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_object_roots_go_unwrapped() {
        assert!(!is_wrapped(Some("object")));
        for ty in [Some("string"), Some("integer"), Some("number"), Some("boolean"), Some("array"), Some("null"), None]
        {
            assert!(is_wrapped(ty), "{ty:?}");
        }
    }
}
