//! Low-cardinality names: a method as span names and metrics may carry it.

use crate::protocol::Method;

/// The name the conventions reserve for a value outside the known ones.
pub(super) const OTHER: &str = "_OTHER";

/// `method` as a span name or metric attribute may carry it: a method of
/// either era as it is, any other name a client sends as `_OTHER`, so that
/// clients cannot make span names and metric series without end.
pub(super) fn method(method: &str) -> &'static str {
    Method::parse(method).map_or(OTHER, Method::name)
}

/// `jsonrpc.request.id`: a string id without its quotes, a number as written.
pub(super) fn request_id(json: &str) -> String {
    if json.starts_with('"') { serde_json::from_str(json).unwrap_or_else(|_| json.to_owned()) } else { json.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_of_either_era_is_named_as_it_is() {
        for &known in Method::ALL {
            assert_eq!(method(known.name()), known.name());
        }
        for task in ["tasks/get", "tasks/update", "tasks/cancel"] {
            assert_eq!(method(task), task);
        }
    }

    #[test]
    fn unknown_methods_share_one_name() {
        assert_eq!(method("tools/call"), "tools/call");
        assert_eq!(method("logging/setLevel"), "logging/setLevel");
        assert_eq!(method("tools/call2"), OTHER);
        assert_eq!(method(""), OTHER);
    }

    #[test]
    fn ids_read_as_the_conventions_write_them() {
        assert_eq!(request_id("7"), "7");
        assert_eq!(request_id(r#""call-7""#), "call-7");
        assert_eq!(request_id(r#""a\"b""#), "a\"b");
    }
}
