//! Every subschema of a schema, with its JSON pointer and its object depth,
//! so each check is a plain look at one node.

use serde_json::{Map, Value};

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];
/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// One (sub)schema.
pub(crate) struct Node<'a> {
    /// The schema object.
    pub(crate) schema: &'a Map<String, Value>,
    /// Its JSON pointer from the root (`""` for the root).
    pub(crate) at: String,
    /// How many object schemas the path holds, this one included.
    pub(crate) depth: usize,
}

/// Whether a schema describes objects.
pub(crate) fn is_object(schema: &Map<String, Value>) -> bool {
    types(schema).contains(&"object") || schema.contains_key("properties")
}

/// The type names a schema gives (`type` as a string or a list).
pub(crate) fn types(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A JSON pointer segment.
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Calls `f` on `root` and on every subschema under it, parents first.
pub(crate) fn visit<'a>(root: &'a Value, f: &mut impl FnMut(&Node<'a>)) {
    if let Value::Object(schema) = root {
        walk(schema, String::new(), 0, f);
    }
}

fn walk<'a>(schema: &'a Map<String, Value>, at: String, parent_depth: usize, f: &mut impl FnMut(&Node<'a>)) {
    let depth = parent_depth + usize::from(is_object(schema));
    f(&Node { schema, at: at.clone(), depth });
    for (key, value) in schema {
        let here = format!("{at}/{}", escape(key));
        match value {
            Value::Object(sub) if ONE.contains(&key.as_str()) => walk(sub, here, depth, f),
            Value::Object(map) if MAP.contains(&key.as_str()) => {
                for (name, sub) in map {
                    if let Value::Object(sub) = sub {
                        walk(sub, format!("{here}/{}", escape(name)), depth, f);
                    }
                }
            }
            Value::Array(list) if LIST.contains(&key.as_str()) => {
                for (i, sub) in list.iter().enumerate() {
                    if let Value::Object(sub) = sub {
                        walk(sub, format!("{here}/{i}"), depth, f);
                    }
                }
            }
            _ => {}
        }
    }
}
