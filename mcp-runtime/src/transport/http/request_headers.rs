//! The checks of an incoming HTTP request's MCP headers against its body:
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` (the tool or prompt
//! name, the resource URI, or the task id of the tasks extension's methods)
//! once `_meta` is read, `Mcp-Param-*` once a `tools/call`'s params are.
//!
//! Header names are case-insensitive (the header map lowercases them),
//! values are compared exactly after trimming surrounding spaces and tabs
//! and decoding the Base64 sentinel `=?base64?…?=`. Any problem is
//! `-32020` (HeaderMismatch), which travels with HTTP 400.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http::header::AsHeaderName;
use http::{HeaderMap, HeaderValue};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::dispatch::{CalledTool, HeaderCheck, Method};
use crate::protocol::ErrorObject;
use crate::protocol::member::{RawMember, read_members, skip};
use crate::registry::param_headers::HeaderParam;

/// The longest header value read: room for the Base64 form of a resource
/// URI of the longest a template matches (8 KiB). A longer one is refused
/// before it is decoded, whatever serves the request (the standalone
/// server's own limit on all headers is 32 KiB; a mounted service's is its
/// host's).
pub(crate) const MAX_VALUE_LEN: usize = 16 * 1024;

/// The header checks of one HTTP request.
pub(crate) struct RequestHeaders<'a> {
    headers: &'a HeaderMap,
    version: Found<'a>,
    method: Found<'a>,
    name: Found<'a>,
}

/// The values a header name has in a request: the first, and whether
/// there are more.
#[derive(Default, Clone, Copy)]
struct Found<'a> {
    first: Option<&'a HeaderValue>,
    repeated: bool,
}

impl<'a> Found<'a> {
    fn add(&mut self, value: &'a HeaderValue) {
        if self.first.is_some() {
            self.repeated = true;
        } else {
            self.first = Some(value);
        }
    }
}

impl<'a> RequestHeaders<'a> {
    /// Picks out the three headers every request is checked against in one
    /// walk over the headers, cheaper than three lookups by name.
    pub(crate) fn new(headers: &'a HeaderMap) -> Self {
        let mut found =
            RequestHeaders { headers, version: Found::default(), method: Found::default(), name: Found::default() };
        for (name, value) in headers {
            let slot = match name.as_str() {
                "mcp-protocol-version" => &mut found.version,
                "mcp-method" => &mut found.method,
                "mcp-name" => &mut found.name,
                _ => continue,
            };
            slot.add(value);
        }
        found
    }
}

impl HeaderCheck for RequestHeaders<'_> {
    fn check_request(&self, method: &str, protocol_version: &str, name: Option<&str>) -> Result<(), ErrorObject> {
        let version = required(self.version, "MCP-Protocol-Version")?;
        if version != protocol_version {
            return Err(ErrorObject::header_mismatch(
                "The MCP-Protocol-Version header does not match `params._meta` `io.modelcontextprotocol/protocolVersion`",
            ));
        }
        let sent_method = required(self.method, "Mcp-Method")?;
        if sent_method != method {
            return Err(ErrorObject::header_mismatch("The Mcp-Method header does not match the request's `method`"));
        }
        // Only the methods with a target member carry it in `Mcp-Name`.
        let Some(target) = crate::dispatch::stateless_method(method).and_then(Method::target) else {
            return Ok(());
        };
        let field = target.member();
        match (name, read_value(self.name, "Mcp-Name")?) {
            (Some(body), Some(header)) if body == header => Ok(()),
            (Some(_), Some(_)) => {
                Err(ErrorObject::header_mismatch(format!("The Mcp-Name header does not match params.{field}")))
            }
            (Some(_), None) => {
                Err(ErrorObject::header_mismatch(format!("Missing Mcp-Name header (it must equal params.{field})")))
            }
            (None, Some(_)) => Err(ErrorObject::header_mismatch(format!(
                "The Mcp-Name header was sent but the body has no params.{field}"
            ))),
            // The params check reports the missing field.
            (None, None) => Ok(()),
        }
    }

    fn check_tool_arguments(&self, tool: CalledTool<'_>, arguments: Option<&RawValue>) -> Result<(), ErrorObject> {
        check_params(self.headers, tool.header_params(), arguments)
    }
}

/// Each `x-mcp-header` argument present in the body needs its
/// `Mcp-Param-*` header with an equal value; an absent or `null` argument
/// must come without one.
pub(super) fn check_params(
    headers: &HeaderMap,
    params: &[HeaderParam],
    arguments: Option<&RawValue>,
) -> Result<(), ErrorObject> {
    if params.is_empty() {
        return Ok(());
    }
    // The arguments were checked to be an object (or absent) with the params.
    let slots = match arguments {
        Some(raw) => annotated(params, raw.get()).map_err(|e| {
            ErrorObject::invalid_params(format!("`arguments` cannot be read to check the Mcp-Param-* headers: {e}"))
        })?,
        None => vec![Slot::Absent; params.len()],
    };
    for (param, slot) in params.iter().zip(slots) {
        let shown = format!("{}{}", mcp_runtime_rules::header::PREFIX, param.name);
        let value = match slot {
            Slot::Absent => None,
            // Handlers' readers disagree on which copy counts (last, first, or an error): no one value to vouch for.
            Slot::Repeated => {
                let on_path = if param.path.len() > 1 { " (or an object on its path does)" } else { "" };
                return Err(ErrorObject::header_mismatch(format!(
                    "The argument `{}` appears more than once in `arguments`{on_path}, so the {shown} header cannot be checked against it",
                    param.dotted_path()
                )));
            }
            Slot::Once(raw) => match serde_json::from_str::<Value>(raw.get()) {
                Ok(Value::Null) => None,
                Ok(value) => Some(value),
                Err(e) => {
                    return Err(ErrorObject::invalid_params(format!(
                        "The argument `{}` cannot be read to check the {shown} header: {e}",
                        param.dotted_path()
                    )));
                }
            },
        };
        match (value, header_value(headers, param.header.as_str(), &shown)?) {
            (None, None) => {}
            (Some(value), Some(header)) => {
                if !same_value(&value, &header) {
                    return Err(ErrorObject::header_mismatch(format!(
                        "The {shown} header does not match the argument `{}`",
                        param.dotted_path()
                    )));
                }
            }
            (Some(_), None) => {
                return Err(ErrorObject::header_mismatch(format!(
                    "Missing {shown} header for the argument `{}`",
                    param.dotted_path()
                )));
            }
            (None, Some(_)) => {
                return Err(ErrorObject::header_mismatch(format!(
                    "The {shown} header was sent but the argument `{}` is absent",
                    param.dotted_path()
                )));
            }
        }
    }
    Ok(())
}

/// Where an annotated argument stands in `arguments`.
#[derive(Debug, Clone, Copy)]
enum Slot<'a> {
    Absent,
    Once(&'a RawValue),
    Repeated,
}

/// The annotated arguments, by position in `params`. Every other member is
/// skipped without being parsed, so one the tool may never read (nested
/// deeper than a `Value` allows, holding a lone surrogate) cannot hide the
/// annotated ones from the check.
fn annotated<'a>(params: &[HeaderParam], arguments: &'a str) -> Result<Vec<Slot<'a>>, serde_json::Error> {
    let mut slots = vec![Slot::Absent; params.len()];
    let all: Vec<usize> = (0..params.len()).collect();
    read_object(params, &all, 0, arguments, &mut slots)?;
    Ok(slots)
}

/// Fills the slots of the parameters `under`, whose paths lead through
/// `object` with their key at `depth`.
fn read_object<'a>(
    params: &[HeaderParam],
    under: &[usize],
    depth: usize,
    object: &'a str,
    slots: &mut [Slot<'a>],
) -> Result<(), serde_json::Error> {
    let mut keys: Vec<&str> = under.iter().map(|&i| params[i].path[depth].as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    let members = Wanted(&keys).deserialize(&mut serde_json::Deserializer::from_str(object))?;
    for (&key, member) in keys.iter().zip(members) {
        let slot = match member {
            RawMember { repeated: true, .. } => Slot::Repeated,
            RawMember { value: Some(value), .. } => Slot::Once(value),
            RawMember { value: None, .. } => Slot::Absent,
        };
        let mut deeper = Vec::new();
        for &i in under.iter().filter(|&&i| params[i].path[depth] == key) {
            if params[i].path.len() == depth + 1 {
                slots[i] = slot;
            } else {
                deeper.push(i);
            }
        }
        match slot {
            _ if deeper.is_empty() => {}
            Slot::Once(value) if value.get().starts_with('{') => {
                read_object(params, &deeper, depth + 1, value.get(), slots)?;
            }
            Slot::Repeated => deeper.iter().for_each(|&i| slots[i] = Slot::Repeated),
            // A value that is not an object holds no properties.
            Slot::Once(_) | Slot::Absent => {}
        }
    }
    Ok(())
}

/// The members of a JSON object named by the keys, in the keys' order.
struct Wanted<'k>(&'k [&'k str]);

impl<'de> DeserializeSeed<'de> for Wanted<'_> {
    type Value = Vec<RawMember<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Wanted<'_> {
    type Value = Vec<RawMember<'de>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = vec![RawMember::default(); self.0.len()];
        read_members(&mut map, self.0, &mut members, skip)?;
        Ok(members)
    }
}

/// A body value against its header text: strings exactly, numbers
/// numerically (`42` equals `42.0`), booleans as `true`/`false`.
fn same_value(value: &Value, header: &str) -> bool {
    match value {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => {
            let Ok(sent) = serde_json::from_str::<serde_json::Number>(header) else { return false };
            match (n.as_i64(), sent.as_i64()) {
                (Some(a), Some(b)) => a == b,
                _ => n.as_f64().zip(sent.as_f64()).is_some_and(|(a, b)| a == b),
            }
        }
        // Objects and arrays cannot be mirrored; the schema forbids them.
        _ => false,
    }
}

/// A header compared exactly (`MCP-Protocol-Version`, `Mcp-Method`): the
/// Base64 form is for names and arguments only, which may hold any text.
fn required<'a>(found: Found<'a>, shown: &str) -> Result<&'a str, ErrorObject> {
    read_text(found, shown, "")?.ok_or_else(|| ErrorObject::header_mismatch(format!("Missing {shown} header")))
}

/// The single value of a header, trimmed and decoded. Repeated headers,
/// bytes outside visible ASCII and malformed Base64 are errors.
fn header_value<'a>(
    headers: &'a HeaderMap,
    name: impl AsHeaderName,
    shown: &str,
) -> Result<Option<Cow<'a, str>>, ErrorObject> {
    let mut values = headers.get_all(name).iter();
    let found = Found { first: values.next(), repeated: values.next().is_some() };
    read_value(found, shown)
}

/// [`header_value`] of values already found.
fn read_value<'a>(found: Found<'a>, shown: &str) -> Result<Option<Cow<'a, str>>, ErrorObject> {
    let Some(text) = read_text(found, shown, "; use the =?base64?...?= form")? else { return Ok(None) };
    decode(text).map(Some).map_err(|reason| ErrorObject::header_mismatch(format!("The {shown} header {reason}")))
}

/// The single value of a header as text, trimmed; `hint` follows the error
/// for bytes outside visible ASCII.
fn read_text<'a>(found: Found<'a>, shown: &str, hint: &str) -> Result<Option<&'a str>, ErrorObject> {
    let Some(first) = found.first else { return Ok(None) };
    if found.repeated {
        return Err(ErrorObject::header_mismatch(format!("The {shown} header appears more than once")));
    }
    if first.len() > MAX_VALUE_LEN {
        return Err(ErrorObject::header_mismatch(format!("The {shown} header is longer than {MAX_VALUE_LEN} bytes")));
    }
    let text = first.to_str().map_err(|_| {
        ErrorObject::header_mismatch(format!("The {shown} header holds characters that are not visible ASCII{hint}"))
    })?;
    Ok(Some(text.trim_matches(|c| c == ' ' || c == '\t')))
}

/// Decodes `=?base64?<Base64 of UTF-8>?=` (markers in lower case, standard
/// alphabet, padding required); anything else is the literal value.
pub(crate) fn decode(value: &str) -> Result<Cow<'_, str>, &'static str> {
    let Some(encoded) = value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) else {
        return Ok(Cow::Borrowed(value));
    };
    let bytes = STANDARD.decode(encoded).map_err(|_| "is not valid Base64")?;
    String::from_utf8(bytes).map(Cow::Owned).map_err(|_| "does not decode to UTF-8 text")
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::json;

    use super::*;
    use crate::registry::param_headers;

    fn map(pairs: &[(&str, &[u8])]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            let name = http::HeaderName::from_bytes(name.as_bytes()).expect("valid name");
            map.append(name, HeaderValue::from_bytes(value).expect("valid value"));
        }
        map
    }

    fn code(result: Result<(), ErrorObject>) -> Option<i32> {
        result.err().map(|e| e.code)
    }

    #[test]
    fn decodes_the_base64_sentinel() {
        assert_eq!(decode("=?base64?SGVsbG8=?="), Ok(Cow::Owned("Hello".into())));
        assert_eq!(decode("=?base64?w6l0w6k=?="), Ok(Cow::Owned("été".into())));
        assert_eq!(decode("=?base64??="), Ok(Cow::Owned(String::new())));
        assert_eq!(decode("SGVsbG8="), Ok(Cow::Borrowed("SGVsbG8=")));
        assert_eq!(decode("=?base64?SGVsbG8="), Ok(Cow::Borrowed("=?base64?SGVsbG8=")));
        assert_eq!(decode("=?BASE64?SGVsbG8=?="), Ok(Cow::Borrowed("=?BASE64?SGVsbG8=?=")));
        assert!(decode("=?base64?SGVsbG8?=").is_err(), "missing padding");
        assert!(decode("=?base64?SGVs!!!bG8=?=").is_err(), "not in the alphabet");
        assert!(decode("=?base64?/w==?=").is_err(), "not UTF-8");
    }

    #[test]
    fn a_long_header_is_refused_before_it_is_decoded() {
        let name = "n".repeat(MAX_VALUE_LEN - 20);
        let encoded = format!("=?base64?{}?=", STANDARD.encode(&name));
        assert!(encoded.len() > MAX_VALUE_LEN);
        let headers: &[(&str, &[u8])] = &[
            ("mcp-protocol-version", b"2026-07-28"),
            ("mcp-method", b"resources/read"),
            ("mcp-name", encoded.as_bytes()),
        ];
        let headers = map(headers);
        let error = RequestHeaders::new(&headers).check_request("resources/read", "2026-07-28", Some(&name));
        let error = error.expect_err("too long");
        assert_eq!(error.code, -32020);
        assert!(error.message.contains("longer than"), "{}", error.message);
        let headers = map(&[
            ("mcp-protocol-version", b"2026-07-28"),
            ("mcp-method", b"resources/read"),
            ("mcp-name", name.as_bytes()),
        ]);
        assert_eq!(
            code(RequestHeaders::new(&headers).check_request("resources/read", "2026-07-28", Some(&name))),
            None
        );
    }

    #[test]
    fn standard_headers_must_match_the_body() {
        let ok: &[(&str, &[u8])] = &[("MCP-Protocol-Version", b"2026-07-28"), ("mcp-method", b"tools/list")];
        let check = |pairs: &[(&str, &[u8])], method: &str, name: Option<&str>| {
            let headers = map(pairs);
            code(RequestHeaders::new(&headers).check_request(method, "2026-07-28", name))
        };
        assert_eq!(check(ok, "tools/list", None), None);
        assert_eq!(check(&[("mcp-method", b"tools/list")], "tools/list", None), Some(-32020));
        assert_eq!(check(&[("mcp-protocol-version", b"2026-07-28")], "tools/list", None), Some(-32020));
        assert_eq!(check(&[ok[0], ("MCP-METHOD", b"TOOLS/LIST")], "tools/list", None), Some(-32020));
        assert_eq!(check(&[ok[0], ("mcp-method", b"  tools/list\t")], "tools/list", None), None);
        assert_eq!(check(&[("mcp-protocol-version", b"2025-11-25"), ok[1]], "tools/list", None), Some(-32020));
        assert_eq!(check(&[ok[0], ok[1], ok[1]], "tools/list", None), Some(-32020), "repeated header");

        let call: &[(&str, &[u8])] = &[ok[0], ("mcp-method", b"tools/call"), ("mcp-name", b"add")];
        assert_eq!(check(call, "tools/call", Some("add")), None);
        assert_eq!(check(call, "tools/call", Some("sub")), Some(-32020));
        assert_eq!(check(&call[..2], "tools/call", Some("add")), Some(-32020));
        assert_eq!(check(call, "tools/call", None), Some(-32020));
        assert_eq!(check(&call[..2], "tools/call", None), None);
        let encoded: &[(&str, &[u8])] =
            &[ok[0], ("mcp-method", b"resources/read"), ("mcp-name", b"=?base64?bm90ZTovL8OpdMOp?=")];
        assert_eq!(check(encoded, "resources/read", Some("note://été")), None);
        let raw: &[(&str, &[u8])] = &[ok[0], ("mcp-method", b"prompts/get"), ("mcp-name", "été".as_bytes())];
        assert_eq!(check(raw, "prompts/get", Some("été")), Some(-32020), "non-ASCII must be encoded");

        // The task methods name their task.
        let task: &[(&str, &[u8])] = &[ok[0], ("mcp-method", b"tasks/get"), ("mcp-name", b"9f2c")];
        assert_eq!(check(task, "tasks/get", Some("9f2c")), None);
        assert_eq!(check(task, "tasks/get", Some("1a2b")), Some(-32020));
        assert_eq!(check(&task[..2], "tasks/get", Some("9f2c")), Some(-32020));
    }

    #[test]
    fn param_headers_follow_the_arguments() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}}
        }});
        let Value::Object(schema) = schema else { unreachable!("an object") };
        let params = param_headers::find(&schema).expect("valid annotations");
        let check = |pairs: &[(&str, &[u8])], args: Value| {
            let raw = serde_json::value::to_raw_value(&args).expect("serializable");
            code(check_params(&map(pairs), &params, Some(&raw)))
        };
        assert_eq!(check(&[], json!({})), None);
        assert_eq!(check(&[], json!({"region": null})), None);
        assert_eq!(check(&[("mcp-param-region", b"eu")], json!({"region": "eu"})), None);
        assert_eq!(check(&[("MCP-PARAM-REGION", b" eu ")], json!({"region": "eu"})), None);
        assert_eq!(check(&[("mcp-param-region", b"=?base64?IGV1IA==?=")], json!({"region": " eu "})), None);
        assert_eq!(check(&[("mcp-param-region", b"EU")], json!({"region": "eu"})), Some(-32020));
        assert_eq!(check(&[], json!({"region": "eu"})), Some(-32020));
        assert_eq!(check(&[("mcp-param-region", b"eu")], json!({})), Some(-32020));
        assert_eq!(check(&[("mcp-param-region", b"eu")], json!({"region": null})), Some(-32020));
        assert_eq!(check(&[("mcp-param-count", b"42")], json!({"count": 42})), None);
        assert_eq!(check(&[("mcp-param-count", b"42")], json!({"count": 42.0})), None);
        assert_eq!(check(&[("mcp-param-count", b"42.0")], json!({"count": 42})), None);
        assert_eq!(check(&[("mcp-param-count", b"-7")], json!({"count": -7})), None);
        assert_eq!(check(&[("mcp-param-count", b"43")], json!({"count": 42})), Some(-32020));
        assert_eq!(check(&[("mcp-param-count", b"0x2A")], json!({"count": 42})), Some(-32020));
        assert_eq!(check(&[("mcp-param-dry", b"true")], json!({"opts": {"dry": true}})), None);
        assert_eq!(check(&[("mcp-param-dry", b"True")], json!({"opts": {"dry": true}})), Some(-32020));
        assert_eq!(check(&[("mcp-param-dry", b"false")], json!({"opts": {"dry": true}})), Some(-32020));
        assert_eq!(check(&[("mcp-param-region", b"=?base64?ZXU?=")], json!({"region": "eu"})), Some(-32020));
        assert_eq!(check(&[("mcp-param-other", b"x")], json!({})), None, "unrelated headers are ignored");
    }

    #[test]
    fn param_headers_find_annotated_arguments_in_any_json_text() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {
                "dry": {"type": "boolean", "x-mcp-header": "Dry"},
                "tier": {"type": "string", "x-mcp-header": "Tier"}
            }}
        }});
        let Value::Object(schema) = schema else { unreachable!("an object") };
        let params = param_headers::find(&schema).expect("valid annotations");
        let check = |pairs: &[(&str, &[u8])], args: &str| {
            let raw = RawValue::from_string(args.to_owned()).expect("valid JSON");
            code(check_params(&map(pairs), &params, Some(&raw)))
        };
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        let eu: &[(&str, &[u8])] = &[("mcp-param-region", b"eu")];
        let all: &[(&str, &[u8])] = &[eu[0], ("mcp-param-dry", b"true"), ("mcp-param-tier", b"gold")];
        // Members the check does not need are skipped, however they read.
        for other in [r#""\ud800""#, &deep, r#"{"dry": "x\udc00"}"#] {
            assert_eq!(check(eu, &format!(r#"{{"x": {other}, "region": "eu"}}"#)), None, "{other:.20}");
            assert_eq!(check(&[], &format!(r#"{{"region": "eu", "x": {other}}}"#)), Some(-32020), "{other:.20}");
            let nested = format!(r#"{{"opts": {{"x": {other}, "dry": true, "tier": "gold"}}, "region": "eu"}}"#);
            assert_eq!(check(all, &nested), None, "{other:.20}");
            assert_eq!(check(eu, &nested), Some(-32020), "{other:.20}");
        }
        assert_eq!(check(all, r#"{"region":"eu","opts":{"tier":"gold","dry":true}}"#), None);
        assert_eq!(check(all, r#"{"regio\u006e":"eu","opts":{"tier":"gold","dry":true}}"#), None, "escaped name");
        assert_eq!(check(eu, r#"{"region":"eu","opts":3}"#), None, "no properties in a non-object");
        assert_eq!(check(eu, r#"{"region":"eu","opts":null}"#), None);
        assert_eq!(check(eu, r#"{"region":"eu","region":"eu"}"#), Some(-32020), "repeated");
        assert_eq!(check(eu, r#"{"region":"eu","opts":{},"opts":{}}"#), Some(-32020), "repeated on the path");
        assert_eq!(check(all, r#"{"region":"eu","opts":{"tier":"gold","dry":true,"dry":true}}"#), Some(-32020));
        // Fail closed: arguments that cannot be read are never taken as absent.
        assert_eq!(check(eu, r#"{"region":"eu","\ud800":1}"#), Some(-32602), "unreadable name");
        assert_eq!(check(&[], r#"{"\ud800":1}"#), Some(-32602));
        assert_eq!(check(eu, r#"{"region":"\ud800"}"#), Some(-32602), "unreadable value");
        assert_eq!(check(eu, &format!(r#"{{"region":{deep}}}"#)), Some(-32602), "value too deep");
        assert_eq!(check(eu, r#"{"region":["eu"]}"#), Some(-32020), "not a mirrorable value");
    }
}
