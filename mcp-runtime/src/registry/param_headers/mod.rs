//! Tool parameters mirrored into `Mcp-Param-*` HTTP headers: which
//! parameters a tool mirrors (its `x-mcp-header` annotations, found and
//! checked once, when the server is built, so a request only looks values
//! up) and, in [`value`], which Rust types may be mirrored at all.
//!
//! Clients silently drop a tool whose annotations break the rules, so a
//! mistake here must stop the server from starting instead. The HTTP
//! transport compares the headers a request carries with its arguments
//! (`transport/http/request_headers.rs`).

mod value;

pub use value::ParamHeaderValue;

use mcp_runtime_rules::header::{self, HeaderNameError};
use serde_json::{Map, Value};

/// The annotation keyword inside a property schema.
pub(crate) const KEYWORD: &str = header::SCHEMA_KEYWORD;

/// Schema keywords whose value maps names to subschemas: their keys are
/// names, not keywords.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// Schema keywords whose value is data, never a schema.
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "examples"];

/// One input property annotated with `x-mcp-header`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderParam {
    /// The annotation's value: the header is `Mcp-Param-{name}`.
    pub(crate) name: String,
    /// `mcp-param-{name}` in lower case, ready for a header-map lookup.
    pub(crate) header: String,
    /// Property names from the root of `arguments` down to the value.
    pub(crate) path: Vec<String>,
}

impl HeaderParam {
    /// The property path as `a.b.c`, for messages.
    pub(crate) fn dotted_path(&self) -> String {
        self.path.join(".")
    }
}

/// Every `x-mcp-header` annotation of a tool's input schema, checked against
/// the rules of the protocol: a non-empty RFC 9110 token, unique regardless
/// of case, on a `string`, `integer` or `boolean` property reachable from the
/// root through `properties` alone.
pub(crate) fn find(input_schema: &Map<String, Value>) -> Result<Vec<HeaderParam>, String> {
    if input_schema.contains_key(KEYWORD) {
        return Err(format!("`{KEYWORD}` belongs on a property, not on the root schema"));
    }
    let mut found = Vec::new();
    let mut path = Vec::new();
    walk_chain(input_schema, &mut path, &mut found)?;
    for (i, param) in found.iter().enumerate() {
        if let Some(other) = found[..i].iter().find(|p| p.header == param.header) {
            return Err(format!(
                "`{}` and `{}` both map to the header `Mcp-Param-{}` (header names ignore case)",
                other.dotted_path(),
                param.dotted_path(),
                param.name
            ));
        }
    }
    Ok(found)
}

/// A schema reachable from the root through `properties` only: annotations
/// on its properties are allowed.
fn walk_chain(schema: &Map<String, Value>, path: &mut Vec<String>, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    for (key, value) in schema {
        if key == "properties" {
            let Value::Object(properties) = value else { continue };
            for (name, property) in properties {
                let Value::Object(property) = property else { continue };
                path.push(name.clone());
                if let Some(annotation) = property.get(KEYWORD) {
                    found.push(param(annotation, property, path)?);
                }
                walk_chain(property, path, found)?;
                path.pop();
            }
        } else if key != KEYWORD {
            forbid_below(key, value, path)?;
        }
    }
    Ok(())
}

/// Anything under `key` of a schema that is not on the `properties` chain:
/// an annotation there is an error.
fn forbid_below(key: &str, value: &Value, path: &[String]) -> Result<(), String> {
    if DATA_KEYWORDS.contains(&key) {
        return Ok(());
    }
    let place = || {
        if path.is_empty() { format!("`{key}` of the root schema") } else { format!("`{key}` of `{}`", path.join(".")) }
    };
    let check_schema = |schema: &Value| find_anywhere(schema).map_err(|()| place());
    let result = match value {
        Value::Object(map) if SCHEMA_MAPS.contains(&key) => map.values().try_for_each(check_schema),
        Value::Object(_) => check_schema(value),
        Value::Array(items) => items.iter().try_for_each(check_schema),
        _ => Ok(()),
    };
    result.map_err(|place| {
        format!("`{KEYWORD}` is only allowed on properties reached through `properties` alone, not under {place}")
    })
}

/// Fails if a schema contains the annotation anywhere.
fn find_anywhere(schema: &Value) -> Result<(), ()> {
    let Value::Object(map) = schema else {
        return match schema {
            Value::Array(items) => items.iter().try_for_each(find_anywhere),
            _ => Ok(()),
        };
    };
    for (key, value) in map {
        if key == KEYWORD {
            return Err(());
        }
        if DATA_KEYWORDS.contains(&key.as_str()) {
            continue;
        }
        match value {
            Value::Object(names) if SCHEMA_MAPS.contains(&key.as_str()) => {
                names.values().try_for_each(find_anywhere)?;
            }
            other => find_anywhere(other)?,
        }
    }
    Ok(())
}

fn param(annotation: &Value, property: &Map<String, Value>, path: &[String]) -> Result<HeaderParam, String> {
    let at = path.join(".");
    let Value::String(name) = annotation else {
        return Err(format!("`{KEYWORD}` of `{at}` must be a string"));
    };
    match header::check_name(name) {
        Ok(()) => {}
        Err(HeaderNameError::Empty) => return Err(format!("`{KEYWORD}` of `{at}` is empty")),
        Err(e @ HeaderNameError::Char(_)) => {
            return Err(format!("`{KEYWORD}` of `{at}` is `{name}`, which is not a valid HTTP header name: {e}"));
        }
    }
    // Values are compared by their JSON type in the body; the declared type
    // only decides whether the property may be mirrored at all.
    match property.get("type") {
        Some(Value::String(t)) if header::is_mirrored_type(t) => {}
        other => {
            let shown = other.map_or_else(|| "no type".to_owned(), |t| format!("type {t}"));
            return Err(format!(
                "`{KEYWORD}` of `{at}` is on a property with {shown}; only `string`, `integer` and `boolean` properties can be mirrored into headers"
            ));
        }
    }
    Ok(HeaderParam { name: name.clone(), header: header::lookup_key(name), path: path.to_vec() })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("test schemas are objects"),
        }
    }

    #[test]
    fn finds_annotations_on_the_properties_chain() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "plain": {"type": "string"},
                "options": {
                    "type": "object",
                    "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}
                },
                "count": {"type": "integer", "x-mcp-header": "Count"}
            }
        }));
        let found = find(&s).expect("valid annotations");
        let summary: Vec<_> = found.iter().map(|p| (p.header.as_str(), p.dotted_path())).collect();
        assert_eq!(
            summary,
            vec![
                ("mcp-param-count", "count".to_owned()),
                ("mcp-param-dry-run", "options.dry".to_owned()),
                ("mcp-param-region", "region".to_owned()),
            ]
        );
    }

    #[test]
    fn a_property_named_like_the_keyword_is_not_an_annotation() {
        let s = schema(json!({"type": "object", "properties": {"x-mcp-header": {"type": "number"}}}));
        assert_eq!(find(&s), Ok(vec![]));
    }

    #[test]
    fn data_keywords_are_not_searched() {
        let s = schema(json!({"type": "object", "default": {"x-mcp-header": "A"}, "examples": [{"x-mcp-header": 1}]}));
        assert_eq!(find(&s), Ok(vec![]));
    }

    #[test]
    fn rejects_bad_names() {
        for bad in [json!(""), json!("has space"), json!("colon:"), json!("Ünï"), json!(7)] {
            let s = schema(json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": bad}}}));
            let err = find(&s).expect_err("invalid name");
            assert!(err.contains("`a`"), "{err}");
        }
    }

    #[test]
    fn rejects_unsupported_types() {
        for ty in [json!("number"), json!("array"), json!("object"), json!("null"), json!(["string", "null"])] {
            let s = schema(json!({"type": "object", "properties": {"a": {"type": ty, "x-mcp-header": "A"}}}));
            let err = find(&s).expect_err("unsupported type");
            let [.., last] = header::MIRRORED_TYPES else { unreachable!("some types are mirrored") };
            let others = header::MIRRORED_TYPES[..header::MIRRORED_TYPES.len() - 1].iter().map(|t| format!("`{t}`"));
            let listed = format!("only {} and `{last}`", others.collect::<Vec<_>>().join(", "));
            assert!(err.contains(&listed), "the message lists other types than the rule: {err}");
        }
        let untyped = schema(json!({"type": "object", "properties": {"a": {"x-mcp-header": "A"}}}));
        assert!(find(&untyped).expect_err("untyped").contains("no type"));
    }

    #[test]
    fn rejects_duplicates_ignoring_case() {
        let s = schema(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "string", "x-mcp-header": "REGION"}
        }}));
        let err = find(&s).expect_err("duplicate");
        assert!(err.contains("`a` and `b`"), "{err}");
    }

    #[test]
    fn rejects_annotations_off_the_chain() {
        let cases = [
            json!({"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"type": "object", "$defs": {"D": {"type": "string", "x-mcp-header": "A"}}}),
            json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string", "x-mcp-header": "A"}]}}}),
            json!({"type": "object", "if": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "x-mcp-header": "A"}),
        ];
        for case in cases {
            let err = find(&schema(case.clone())).expect_err("off the chain");
            assert!(err.contains("only allowed on properties") || err.contains("root schema"), "{case}: {err}");
        }
    }
}
