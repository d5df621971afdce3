//! Tool arguments: one JSON property per parameter, deserialized one by one
//! (so every bad argument is named in one error) and described by a schema
//! assembled from the parameters' own schemas.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::handler::call::ToolCall;
use crate::handler::outcome::{Outcome, ToolOutcome};
use crate::protocol::member::MemberName;
use crate::protocol::{CallToolResult, Icon, Tool, ToolAnnotations};
use crate::registry::param_headers::ParamHeaderValue;

/// What a JSON argument of a tool must implement; the macro checks each one
/// against this trait, spanned on its type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "must implement `Deserialize` and `JsonSchema`",
    note = "tool arguments are read from JSON and described by a JSON Schema: derive `Deserialize` and `JsonSchema` for `{Self}`, e.g. with `#[mcp_runtime::derives(Deserialize, JsonSchema)]`",
    note = "`JsonSchema` must be schemars 1.x (`mcp_runtime::schemars::JsonSchema`): a `JsonSchema` derived with another major version of schemars (such as 0.8) is a different trait and does not count",
    note = "a context parameter (`RequestContext`, `Progress`, `Logger`, `State<T>`, ...) is never an argument; mark other extractors with `#[ctx]`"
)]
pub trait ToolArgument: DeserializeOwned + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArgument for T {}

/// How to read and describe one tool argument of type `T`.
pub struct ToolArg<T> {
    deserialize: fn(&str) -> Result<T, serde_json::Error>,
    schema: fn(&mut SchemaGenerator) -> Schema,
}

impl<T> Clone for ToolArg<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ToolArg<T> {}

/// The slot of a tool argument of type `T`.
pub fn tool_arg<T: ToolArgument>() -> ToolArg<T> {
    ToolArg { deserialize: |json| serde_json::from_str(json), schema: |generator| generator.subschema_for::<T>() }
}

impl<T> ToolArg<T> {
    /// Whether a missing argument is acceptable: the type takes `null`
    /// (`Option<T>`, `serde_json::Value`, `()`). Decided by the type, so
    /// aliases of `Option` behave like `Option`.
    pub fn accepts_null(self) -> bool {
        (self.deserialize)("null").is_ok()
    }
}

/// Checks that a parameter routed to an `x-mcp-header` has a header-safe type.
pub struct HeaderValueCheck<T>(PhantomData<T>);

/// The `x-mcp-header` check of a parameter of type `T`.
pub fn header_value<T: ParamHeaderValue>() -> HeaderValueCheck<T> {
    HeaderValueCheck(PhantomData)
}

/// The arguments of one tool call, taken parameter by parameter straight
/// from the request's JSON text (each value is read once, into its own type).
#[derive(Debug)]
pub struct ToolArgs<'a> {
    tool: &'a str,
    /// Members in order of arrival; a repeated name takes its last value.
    members: Vec<(Cow<'a, str>, &'a RawValue)>,
    errors: Vec<String>,
}

impl<'a> ToolArgs<'a> {
    /// Reads the call's arguments; absent arguments are an empty object.
    pub fn parse(call: &'a ToolCall) -> Result<Self, ToolOutcome> {
        let raw = call.raw_arguments().map(|r| r.get()).unwrap_or("{}");
        Self::read(call.name(), raw)
    }

    fn read(tool: &'a str, raw: &'a str) -> Result<Self, ToolOutcome> {
        let members = match serde_json::from_str::<Members<'a>>(raw) {
            Ok(Members(members)) => members,
            Err(e) => return Err(invalid(tool, &without_position(&e))),
        };
        Ok(ToolArgs { tool, members, errors: Vec::new() })
    }

    /// Takes the argument `name`; on failure the problem is recorded and
    /// `None` returned. `null` counts as absent when there is a default.
    pub fn take<T>(&mut self, name: &str, slot: ToolArg<T>, default: Option<fn() -> T>) -> Option<T> {
        // `remove`, not `swap_remove`: moving the last member forward would
        // put a repeated name's last copy before an earlier one.
        let value = self.members.iter().rposition(|(key, _)| key == name).map(|i| self.members.remove(i).1);
        match (value.map(RawValue::get), default) {
            (None | Some("null"), Some(default)) => Some(default()),
            (None, None) => match (slot.deserialize)("null") {
                Ok(v) => Some(v),
                Err(_) => {
                    self.errors.push(format!("missing required argument `{name}`"));
                    None
                }
            },
            (Some(json), _) => match (slot.deserialize)(json) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.errors.push(format!("`{name}`: {}", without_position(&e)));
                    None
                }
            },
        }
    }

    /// The result reporting every recorded problem, so the model can retry.
    pub fn into_error(self) -> ToolOutcome {
        invalid(self.tool, &self.errors.join("; "))
    }
}

/// A JSON object's members, borrowed from the input, in order; `null`
/// reads as no members.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;

        impl<'de> Visitor<'de> for Visit {
            type Value = Members<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the arguments to be a JSON object")
            }

            fn visit_unit<E>(self) -> Result<Members<'de>, E> {
                Ok(Members(Vec::new()))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some(MemberName(key)) = map.next_key::<MemberName<'de>>()? {
                    members.push((key, map.next_value()?));
                }
                Ok(Members(members))
            }
        }

        deserializer.deserialize_any(Visit)
    }
}

/// serde_json's message without its " at line 1 column 9": the position
/// in a fragment of the request means nothing to the model reading it.
fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(stripped) => stripped.to_owned(),
        None => message,
    }
}

fn invalid(tool: &str, detail: &str) -> ToolOutcome {
    Ok(Outcome::Complete(CallToolResult::error(format!("Invalid arguments for tool `{tool}`: {detail}"))))
}

/// One property of a tool's input schema.
pub struct Property {
    name: &'static str,
    schema: fn(&mut SchemaGenerator) -> Schema,
    optional: bool,
    description: Option<String>,
    default: Option<Value>,
    header: Option<&'static str>,
}

impl Property {
    /// The property for argument `name` read through `slot`.
    pub fn new<T>(name: &'static str, slot: ToolArg<T>) -> Self {
        Property {
            name,
            schema: slot.schema,
            optional: slot.accepts_null(),
            description: None,
            default: None,
            header: None,
        }
    }

    /// Sets the description (overriding the type's own).
    pub fn description(mut self, description: Option<String>) -> Self {
        self.description = description;
        self
    }

    /// Marks the argument as having a default, shown in the schema when it
    /// serializes.
    pub fn default(mut self, value: Option<Value>) -> Self {
        self.optional = true;
        self.default = value;
        self
    }

    /// Routes the argument to the `Mcp-Param-{name}` HTTP header.
    pub fn header(mut self, name: &'static str) -> Self {
        self.header = Some(name);
        self
    }
}

/// The properties of a tool's input schema, in parameter order.
#[derive(Default)]
pub struct Properties(Vec<Property>);

impl Properties {
    /// No properties.
    pub fn new() -> Self {
        Properties(Vec::new())
    }

    /// Appends a property.
    pub fn push(mut self, property: Property) -> Self {
        self.0.push(property);
        self
    }
}

/// Implemented by the macro for each tool's hidden parameter type.
pub trait ToolParams {
    /// The tool's JSON arguments.
    fn properties() -> Properties;
}

/// The input schema of the tool whose parameters are `P`, as a schemars type
/// so that it goes through the same cleaning as every other schema.
pub struct InputSchema<P>(PhantomData<P>);

impl<P: ToolParams> JsonSchema for InputSchema<P> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Arguments")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let properties = P::properties().0;
        let mut map = Map::new();
        map.insert("type".into(), Value::String("object".into()));
        if properties.is_empty() {
            // The shape the protocol recommends for a tool without parameters.
            map.insert("additionalProperties".into(), Value::Bool(false));
            return Schema::from(map);
        }
        let mut props = Map::new();
        let mut required = Vec::new();
        for p in properties {
            let mut schema = (p.schema)(generator);
            let object = schema.ensure_object();
            if let Some(d) = p.description {
                object.insert("description".into(), Value::String(d));
            }
            if let Some(v) = p.default {
                object.insert("default".into(), v);
            }
            if let Some(h) = p.header {
                object.insert(crate::registry::param_headers::KEYWORD.into(), Value::String(h.into()));
            }
            if !p.optional {
                required.push(Value::String(p.name.into()));
            }
            props.insert(p.name.into(), schema.to_value());
        }
        map.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            map.insert("required".into(), Value::Array(required));
        }
        Schema::from(map)
    }
}

/// A value that may or may not serialize, for a default shown in a schema:
/// `(&MaybeJson(&v)).to_json()` picks [`ViaSerialize`] when `T: Serialize`
/// and [`ViaNoSerialize`] otherwise (autoref specialization on a concrete
/// type).
pub struct MaybeJson<'a, T>(pub &'a T);

/// See [`MaybeJson`].
pub trait ViaSerialize {
    /// The value as JSON.
    fn to_json(&self) -> Option<Value>;
}

impl<T: Serialize> ViaSerialize for MaybeJson<'_, T> {
    fn to_json(&self) -> Option<Value> {
        serde_json::to_value(self.0).ok()
    }
}

/// See [`MaybeJson`].
pub trait ViaNoSerialize {
    /// Nothing: the value does not serialize.
    fn to_json(&self) -> Option<Value>;
}

impl<T> ViaNoSerialize for &MaybeJson<'_, T> {
    fn to_json(&self) -> Option<Value> {
        None
    }
}

/// Builds a tool's definition.
pub struct ToolDefinition(Tool);

impl ToolDefinition {
    /// A tool named `name` with its schemas.
    pub fn new(
        name: &'static str,
        input_schema: Map<String, Value>,
        output_schema: Option<Map<String, Value>>,
    ) -> Self {
        let mut tool = Tool::new(name, input_schema);
        tool.output_schema = output_schema;
        ToolDefinition(tool)
    }

    /// Sets the title.
    pub fn title(mut self, title: &'static str) -> Self {
        self.0.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: Option<String>) -> Self {
        self.0.description = description;
        self
    }

    /// Sets the annotations.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.0.annotations = Some(annotations);
        self
    }

    /// Sets the icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.0.icons = icons;
        self
    }

    /// Sets `_meta`.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.0.meta = Some(meta);
        self
    }

    /// The definition.
    pub fn build(self) -> Tool {
        self.0
    }
}

/// The input schema of the tool whose parameters are `P`.
pub fn input_schema<P: ToolParams>() -> Map<String, Value> {
    crate::schema::input_schema_for::<InputSchema<P>>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// A recursive type: the one case where `$defs` stays.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is used")]
    struct Tree {
        children: Vec<Tree>,
    }

    struct Params;

    impl ToolParams for Params {
        fn properties() -> Properties {
            Properties::new()
                .push(Property::new("tree", tool_arg::<Tree>()).description(Some("The tree.".into())))
                .push(Property::new("depth", tool_arg::<Option<u8>>()))
                .push(Property::new("label", tool_arg::<String>()).default(Some(json!("root"))).header("Label"))
        }
    }

    #[test]
    fn the_input_schema_keeps_definitions_only_for_recursive_types() {
        let schema = Value::Object(input_schema::<Params>());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["tree"]));
        assert_eq!(schema["properties"]["tree"]["description"], "The tree.");
        assert!(schema["$defs"].get("Tree").is_some(), "{schema}");
        assert_eq!(schema["properties"]["depth"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
        assert_eq!(
            schema["properties"]["label"],
            json!({"type": "string", "default": "root", "x-mcp-header": "Label"})
        );
    }

    #[test]
    fn a_repeated_argument_takes_its_last_value_whatever_is_taken_first() {
        let json = r#"{"message": "hi", "region": "eu", "region": "us"}"#;
        let mut args = ToolArgs::read("t", json).expect("an object");
        assert_eq!(args.take("message", tool_arg::<String>(), None).as_deref(), Some("hi"));
        assert_eq!(args.take("region", tool_arg::<String>(), None).as_deref(), Some("us"));
        let mut args = ToolArgs::read("t", json).expect("an object");
        assert_eq!(args.take("region", tool_arg::<String>(), None).as_deref(), Some("us"));
        assert_eq!(args.take("message", tool_arg::<String>(), None).as_deref(), Some("hi"));
    }

    struct Empty;

    impl ToolParams for Empty {
        fn properties() -> Properties {
            Properties::new()
        }
    }

    #[test]
    fn no_parameters_is_the_recommended_empty_object() {
        assert_eq!(Value::Object(input_schema::<Empty>()), json!({"type": "object", "additionalProperties": false}));
    }
}
