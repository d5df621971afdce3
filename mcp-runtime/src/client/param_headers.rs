//! The tool parameters a client mirrors into `Mcp-Param-*` headers when it
//! calls a tool over HTTP in 2026-07-28: those a listed tool's input schema
//! annotates with `x-mcp-header`. A tool whose annotations break the rules
//! (an empty or unsafe name, one name twice, a parameter that is not a
//! string, integer or boolean, one off the `properties` chain) is dropped
//! from the list, as the protocol asks of clients: the server that made it
//! would refuse its calls whatever was sent.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderName, HeaderValue};
use serde_json::{Map, Value};

use crate::protocol::Tool;
use crate::registry::param_headers::{self, HeaderParam};

/// The headers one request carries besides the standard ones.
pub(super) type ExtraHeaders = Vec<(HeaderName, HeaderValue)>;

/// What the listed tools mirror, by tool name: only the tools that mirror
/// something (`None` before the first listing). Replaced by each complete
/// listing, so it holds no more than one list's tools; shared by a
/// client's clones.
#[derive(Clone, Default)]
pub(super) struct ToolHeaders(Arc<RwLock<Option<Mirrored>>>);

/// What each listed tool that mirrors something mirrors, by its name.
type Mirrored = HashMap<String, Arc<[HeaderParam]>>;

impl ToolHeaders {
    /// Keeps of `tools` those whose annotations are valid, and learns what
    /// each of them mirrors.
    pub(super) fn admit(&self, tools: &mut Vec<Tool>) {
        let mut mirrored = HashMap::new();
        tools.retain(|tool| match param_headers::find(&tool.input_schema) {
            Ok(found) if found.is_empty() => true,
            Ok(found) => {
                mirrored.insert(tool.name.clone(), Arc::from(found));
                true
            }
            Err(why) => {
                tracing::warn!(tool = %tool.name, "the server's tool is left out: {why}");
                false
            }
        });
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Some(mirrored);
    }

    /// Whether the tools were ever listed.
    pub(super) fn listed(&self) -> bool {
        self.0.read().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// What `tool` mirrors, if it was listed and mirrors anything.
    pub(super) fn of(&self, tool: &str) -> Option<Arc<[HeaderParam]>> {
        let known = self.0.read().unwrap_or_else(|e| e.into_inner());
        known.as_ref().filter(|known| !known.is_empty())?.get(tool).cloned()
    }
}

/// The `Mcp-Param-*` headers of a call with `arguments` to a tool that
/// mirrors `params`: one for each parameter present and not null.
pub(super) fn headers(params: &[HeaderParam], arguments: Option<&Map<String, Value>>) -> ExtraHeaders {
    let Some(arguments) = arguments else { return Vec::new() };
    params
        .iter()
        .filter_map(|param| {
            let (first, rest) = param.path.split_first()?;
            let value = rest.iter().try_fold(arguments.get(first)?, |value, key| value.get(key))?;
            let text = match value {
                Value::String(text) => encoded(text).into_owned(),
                Value::Bool(flag) => flag.to_string(),
                Value::Number(number) => number.to_string(),
                // Absent, null: no header. An object or an array is no
                // value of a mirrored type: the server says so.
                _ => return None,
            };
            Some((HeaderName::from_bytes(param.header.as_bytes()).ok()?, HeaderValue::from_str(&text).ok()?))
        })
        .collect()
}

/// `text` as a header carries it: as it is when it is visible ASCII
/// without whitespace at its ends, `=?base64?…?=` of its UTF-8 otherwise
/// (and when it looks like that form itself).
pub(super) fn encoded(text: &str) -> Cow<'_, str> {
    let visible = text.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let looks_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    if visible && !padded && !looks_encoded {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("=?base64?{}?=", STANDARD.encode(text)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(name: &str, schema: Value) -> Tool {
        let Value::Object(schema) = schema else { unreachable!("test schemas are objects") };
        Tool::new(name, schema)
    }

    #[test]
    fn tools_with_invalid_annotations_are_left_out_and_the_others_known() {
        let known = ToolHeaders::default();
        let mut tools = vec![
            tool("plain", json!({"type": "object"})),
            tool(
                "valid",
                json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
            ),
            tool("empty", json!({"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": ""}}})),
            tool("object", json!({"type": "object", "properties": {"v": {"type": "object", "x-mcp-header": "V"}}})),
            tool(
                "twice",
                json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "Same"}, "b": {"type": "string", "x-mcp-header": "same"}}}),
            ),
            tool(
                "space",
                json!({"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": "My Region"}}}),
            ),
        ];
        known.admit(&mut tools);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["plain", "valid"]);
        assert!(known.of("plain").is_none());
        assert_eq!(known.of("valid").expect("mirrored")[0].header, "mcp-param-region");
        // A new listing replaces what was known.
        known.admit(&mut vec![tool("plain", json!({"type": "object"}))]);
        assert!(known.of("valid").is_none());
    }

    #[test]
    fn values_are_mirrored_as_the_protocol_encodes_them() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry"},
            "gone": {"type": "boolean", "x-mcp-header": "Gone"},
            "nested": {"type": "object", "properties": {"deep": {"type": "string", "x-mcp-header": "Deep"}}},
            "query": {"type": "string"}
        }});
        let Value::Object(schema) = schema else { unreachable!() };
        let params = param_headers::find(&schema).expect("valid");
        let arguments = json!({"region": "Hello, 世界", "count": 42, "dry": false, "gone": null,
                               "nested": {"deep": "x"}, "query": "SELECT 1"});
        let sent = headers(&params, arguments.as_object());
        let mut sent: Vec<(&str, &str)> = sent.iter().map(|(n, v)| (n.as_str(), v.to_str().expect("text"))).collect();
        // In the schema's order, which depends on how serde_json keeps maps.
        sent.sort_unstable();
        assert_eq!(
            sent,
            [
                ("mcp-param-count", "42"),
                ("mcp-param-deep", "x"),
                ("mcp-param-dry", "false"),
                ("mcp-param-region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ]
        );
    }

    #[test]
    fn what_is_not_plain_visible_ascii_goes_in_base64() {
        for plain in ["us-west1", "us west 1", "", "SELECT * FROM users"] {
            assert_eq!(encoded(plain), plain);
        }
        for unsafe_text in
            [" padded ", " lead", "trail ", "line1\nline2", "a\r\nb", "\tindented", "été", "=?base64?eA==?="]
        {
            let sent = encoded(unsafe_text);
            let inner = sent.strip_prefix("=?base64?").and_then(|s| s.strip_suffix("?=")).expect("the Base64 form");
            assert_eq!(STANDARD.decode(inner).expect("Base64"), unsafe_text.as_bytes());
        }
    }
}
