//! The params head (`_meta` and the target member) and the `Mcp-Param-*`
//! checks: never a panic, and an argument the checks pass is one the
//! headers really repeat.
//!
//! Input, one field a line: the method, the `Mcp-Name` header, then
//! `Mcp-Param-Region`, `Mcp-Param-Count` and `Mcp-Param-Dry` (an empty line
//! sends no header), then the params (JSON text).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::fuzzing;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// A tool input schema mirroring three arguments, one of them nested.
fn schema() -> &'static Map<String, Value> {
    static SCHEMA: OnceLock<Map<String, Value>> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}}
        }});
        match schema {
            Value::Object(map) => map,
            _ => unreachable!("an object"),
        }
    })
}

fn header(headers: &mut http::HeaderMap, name: &'static str, value: &str) {
    if value.is_empty() {
        return;
    }
    if let Ok(value) = http::HeaderValue::from_str(value) {
        headers.append(name, value);
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let [method, name, region, count, dry, params] = mcp_runtime_fuzz::fields::<6>(text);
    let Ok(params) = serde_json::from_str::<Box<RawValue>>(params) else { return };
    let head = fuzzing::read_params_head(method, Some(&params));
    let Ok((meta, target)) = head else { return };

    let mut headers = http::HeaderMap::new();
    header(&mut headers, "mcp-protocol-version", &meta.protocol_version);
    header(&mut headers, "mcp-method", method);
    header(&mut headers, "mcp-name", name);
    header(&mut headers, "mcp-param-region", region);
    header(&mut headers, "mcp-param-count", count);
    header(&mut headers, "mcp-param-dry", dry);
    #[derive(serde::Deserialize)]
    struct Call<'a> {
        #[serde(borrow)]
        arguments: Option<&'a RawValue>,
    }
    let arguments = serde_json::from_str::<Call<'_>>(params.get()).ok().and_then(|call| call.arguments);
    let verdict =
        fuzzing::check_headers(&headers, method, &meta.protocol_version, target.as_deref(), schema(), arguments)
            .expect("the schema's annotations are valid");
    if verdict.is_ok() {
        // Passed: each mirrored argument present in the body is the header's value.
        let arguments: Option<Map<String, Value>> = arguments.and_then(|raw| serde_json::from_str(raw.get()).ok());
        if let Some(arguments) = arguments {
            if let Some(Value::String(body)) = arguments.get("region") {
                let sent = fuzzing::decode_header_value(region.trim_matches([' ', '\t'])).expect("a decodable header");
                assert_eq!(*body, *sent, "Mcp-Param-Region passed with another value");
            }
            if let Some(Value::Bool(body)) = arguments.get("opts").and_then(|o| o.get("dry")) {
                assert_eq!(dry.trim_matches([' ', '\t']), if *body { "true" } else { "false" });
            }
        }
    }
});
