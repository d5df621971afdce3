//! JSON Schemas from Rust types, in the shape MCP clients accept.
//!
//! schemars generates JSON Schema 2020-12; we then make it friendly to the
//! strictest clients: subschemas inlined (no `$ref`/`$defs` unless a type is
//! recursive), no root `title`/`$schema`, and no non-standard `format` values
//! such as `int64` or `uint32`. In input schemas an `Option<T>` property is
//! "not required" with a plain `T` schema (never `["T", "null"]`); output
//! schemas keep the `null`, because the value sent may hold one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{LazyLock, PoisonError, RwLock};

use mcp_runtime_rules::output;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

/// `format` values defined by JSON Schema 2020-12; everything else is dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true)
}

/// What becomes of `null` in the schema of an optional property.
#[derive(Clone, Copy)]
enum Nulls {
    /// Inputs: absent already means "no value", and several clients reject
    /// `["T", "null"]` and `anyOf` with a null branch.
    Strip,
    /// Outputs: `structuredContent` must conform, and serde writes `None`
    /// as `null` unless told to skip it.
    Keep,
}

/// The schema of `T` as a JSON object, cleaned as described in the module
/// docs for input schemas.
pub fn schema_for<T: JsonSchema>() -> Map<String, Value> {
    generate::<T>(Nulls::Strip)
}

fn generate<T: JsonSchema>(nulls: Nulls) -> Map<String, Value> {
    let schema: Schema = settings().into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
    }
    clean(&mut value, nulls);
    match value {
        Value::Object(map) => map,
        // `true`/`false` schemas: describe "anything" as an empty object schema.
        _ => Map::new(),
    }
}

/// The input schema of a tool taking arguments of type `T`: `schema_for`
/// with a guaranteed root `type: "object"`.
pub fn input_schema_for<T: JsonSchema>() -> Map<String, Value> {
    let mut map = schema_for::<T>();
    map.insert("type".into(), Value::String("object".into()));
    map
}

/// The full JSON Schema 2020-12 of `T` as an input schema, for clients that
/// support the whole dialect: `$schema` and `$defs` (with `$ref`s to them)
/// are kept, and composition or conditional keywords added with
/// `#[schemars(extend(...))]` survive untouched. As everywhere, optional
/// properties are not `null`able and non-standard `format`s are dropped;
/// the root `title` is dropped and the root `type` forced to `"object"`.
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct Order { item: Item }
/// #[derive(schemars::JsonSchema)]
/// struct Item { sku: String }
///
/// let schema = mcp_runtime::schema::full_input_schema_for::<Order>();
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// assert!(schema["$defs"].get("Item").is_some());
/// ```
pub fn full_input_schema_for<T: JsonSchema>() -> Map<String, Value> {
    let schema: Schema = SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    clean(&mut value, Nulls::Strip);
    let mut map = match value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.remove("title");
    map.insert("type".into(), Value::String("object".into()));
    map
}

/// The output schema of a structured result of type `T`; a root that is not
/// an object is wrapped as `{"result": ...}`, matching the value sent. An
/// `Option<T>` field stays `null`able, as serde writes `None` as `null`:
///
/// ```
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Forecast { city: String, rain_mm: Option<f64> }
///
/// let schema = mcp_runtime::schema::output_schema_for::<Forecast>();
/// assert_eq!(schema["properties"]["rain_mm"]["type"], serde_json::json!(["number", "null"]));
/// ```
///
/// This is where a tool's output schema is decided (the builder and
/// `#[tool]` both call it when the tool is registered), and with it whether
/// the values of `T` are wrapped; calls then only look that answer up.
pub fn output_schema_for<T: JsonSchema>() -> Map<String, Value> {
    let (inner, wrapped) = decide::<T>();
    if !wrapped {
        return inner;
    }
    let mut inner = inner;
    let defs = inner.remove("$defs");
    let mut properties = Map::new();
    properties.insert(output::RESULT_KEY.into(), Value::Object(inner));
    let mut map = Map::new();
    map.insert("type".into(), Value::String("object".into()));
    map.insert("properties".into(), Value::Object(properties));
    map.insert("required".into(), Value::Array(vec![Value::String(output::RESULT_KEY.into())]));
    if let Some(d) = defs {
        map.insert("$defs".into(), d);
    }
    map
}

/// Whether the values of each structured output type are wrapped, by the
/// type's `schema_id` (unique per type: schemars keys `$defs` with it).
/// Filled by [`output_schema_for`], so a call never generates a schema.
static WRAPPED: LazyLock<RwLock<HashMap<Cow<'static, str>, bool>>> = LazyLock::new(Default::default);

/// `T`'s own output schema and whether its values are wrapped, which is
/// remembered for `structured_value`.
fn decide<T: JsonSchema>() -> (Map<String, Value>, bool) {
    let inner = generate::<T>(Nulls::Keep);
    let wrapped = output::is_wrapped(inner.get("type").and_then(Value::as_str));
    WRAPPED.write().unwrap_or_else(PoisonError::into_inner).insert(T::schema_id(), wrapped);
    (inner, wrapped)
}

/// Whether a structured value of type `T` is sent as `{"result": value}`,
/// as decided with its output schema; the schema is made here only for a
/// type no registered tool declared (a handler called outside a server).
fn is_wrapped<T: JsonSchema>() -> bool {
    let known = WRAPPED.read().unwrap_or_else(PoisonError::into_inner).get(&*T::schema_id()).copied();
    known.unwrap_or_else(|| decide::<T>().1)
}

/// A structured result of type `T` as sent in `structuredContent`: wrapped
/// as `{"result": value}` exactly when its output schema is.
pub(crate) fn structured_value<T: JsonSchema>(value: Value) -> Value {
    if !is_wrapped::<T>() {
        return value;
    }
    let mut map = Map::new();
    map.insert(output::RESULT_KEY.into(), value);
    Value::Object(map)
}

/// Whether `T`'s schema has an object root (its values are sent unwrapped).
pub fn has_object_root<T: JsonSchema>() -> bool {
    !is_wrapped::<T>()
}

fn clean(value: &mut Value, nulls: Nulls) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(format)) = map.get("format")
                && !STANDARD_FORMATS.contains(&format.as_str())
            {
                map.remove("format");
            }
            if let Nulls::Strip = nulls {
                strip_optional_nulls(map);
            }
            for v in map.values_mut() {
                clean(v, nulls);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| clean(item, nulls)),
        _ => {}
    }
}

/// An optional property (`Option<T>`, not in `required`) is described by
/// `T`'s schema alone (see [`Nulls::Strip`]).
fn strip_optional_nulls(map: &mut Map<String, Value>) {
    let required: Vec<String> = match map.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = map.get_mut("properties") else { return };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        if let Value::Object(p) = property {
            remove_null(p);
        }
    }
}

fn remove_null(p: &mut Map<String, Value>) {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    if let Some(Value::Array(types)) = p.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            p.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = p.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(branches)) = p.get_mut("anyOf") {
        branches.retain(|b| !is_null(b));
        if branches.len() == 1
            && let Some(Value::Object(only)) = branches.pop()
        {
            p.remove("anyOf");
            for (k, v) in only {
                p.entry(k).or_insert(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// The query.
        query: String,
        limit: Option<u32>,
        inner: Inner,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        flag: bool,
    }

    #[test]
    fn schemas_are_inlined_without_null_or_format_noise() {
        let schema = Value::Object(input_schema_for::<Args>());
        let text = schema.to_string();
        assert!(!text.contains("$ref"), "{text}");
        assert!(!text.contains("null"), "{text}");
        assert!(!text.contains("format"), "{text}");
        assert_eq!(schema["required"], json!(["query", "inner"]));
        assert_eq!(schema["properties"]["limit"]["type"], json!("integer"));
        assert_eq!(schema["properties"]["query"]["description"], json!("The query."));
        assert_eq!(schema["properties"]["inner"]["properties"]["flag"]["type"], json!("boolean"));
        assert!(schema.get("title").is_none());
    }

    #[test]
    fn non_object_outputs_are_wrapped() {
        let schema = Value::Object(output_schema_for::<Vec<u8>>());
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(schema["properties"]["result"]["type"], json!("array"));
        assert_eq!(schema["required"], json!(["result"]));
        assert_eq!(output_schema_for::<Inner>()["type"], json!("object"));
    }

    /// Counts how often its schema is generated.
    struct Counted;

    static GENERATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    impl JsonSchema for Counted {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "mcp_runtime::schema::tests::Counted".into()
        }

        fn json_schema(_: &mut schemars::SchemaGenerator) -> Schema {
            GENERATED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            schemars::json_schema!({"type": "array", "items": {"type": "integer"}})
        }
    }

    #[test]
    fn the_output_schema_is_made_once_not_per_result() {
        let schema = output_schema_for::<Counted>();
        assert_eq!(schema["required"], json!(["result"]));
        let made = GENERATED.load(std::sync::atomic::Ordering::SeqCst);
        for _ in 0..3 {
            assert_eq!(structured_value::<Counted>(json!([1, 2])), json!({"result": [1, 2]}));
        }
        assert_eq!(GENERATED.load(std::sync::atomic::Ordering::SeqCst), made, "a result regenerated the schema");
        assert!(!has_object_root::<Counted>());
        assert_eq!(structured_value::<Inner>(json!({"flag": true})), json!({"flag": true}));
    }
}
