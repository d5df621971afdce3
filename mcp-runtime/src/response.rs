//! Responses, the pipeline stage that produced them, and their HTTP status.

use serde::Serialize;
use serde::ser::{Error as _, SerializeMap};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::{CacheScope, ErrorCode, ErrorObject, RequestId, ResultType};

/// The stage of the pipeline that produced a response; transports map it (with the
/// error code) to an HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// Parsing the envelope: one JSON-RPC request or notification.
    Envelope,
    /// Checking `params._meta` and its required keys.
    Meta,
    /// Comparing HTTP headers with the body (`Mcp-Method`, `Mcp-Name`,
    /// `Mcp-Param-*`, `MCP-Protocol-Version`).
    Headers,
    /// Checking that the protocol version is one the server speaks.
    Version,
    /// Routing the method: unknown or not advertised is `-32601`.
    Routing,
    /// Validating the method's params.
    Params,
    /// Running the handler and building its result.
    Handler,
}

/// The body of a response.
#[derive(Debug, Clone)]
enum Payload {
    /// The whole response, serialized once (UTF-8, as serde_json writes),
    /// where in it the result object starts, and whether that result is
    /// `input_required`.
    Result { json: Vec<u8>, start: usize, input_required: bool },
    /// The error object.
    Error(ErrorObject),
}

/// One JSON-RPC response: a result (serialized as soon as it is made, so
/// that writing it out is a copy at most) or an error, with the pipeline
/// stage that produced it.
#[derive(Debug, Clone)]
pub struct Response {
    id: Option<RequestId>,
    payload: Payload,
    stage: Stage,
}

impl Response {
    pub(crate) fn error(id: Option<RequestId>, error: ErrorObject, stage: Stage) -> Self {
        Response { id, payload: Payload::Error(error), stage }
    }

    /// Serializes `result` straight into the response's JSON text, with
    /// room for `size` bytes of it reserved up front.
    pub(crate) fn result<T: Serialize + ?Sized>(
        id: RequestId,
        result: &T,
        size: usize,
    ) -> Result<Self, serde_json::Error> {
        let (mut json, start) = result_head(&id, size + 512);
        serde_json::to_writer(&mut json, result)?;
        json.push(b'}');
        Ok(Self::written(id, json, start))
    }

    /// The result written in `json` (a whole response), starting at `start`.
    fn written(id: RequestId, json: Vec<u8>, start: usize) -> Self {
        Response {
            id: Some(id),
            payload: Payload::Result { json, start, input_required: false },
            stage: Stage::Handler,
        }
    }

    /// Marks a result as `input_required`, for callers that read the
    /// result's kind without reading its text (a 2025-era session's bridge,
    /// whose results carry no `resultType`).
    pub(crate) fn asking_for_input(mut self) -> Self {
        if let Payload::Result { input_required, .. } = &mut self.payload {
            *input_required = true;
        }
        self
    }

    /// Whether this is an `input_required` result: the handler stopped to
    /// ask the client for input, and runs again with the answers.
    pub fn needs_input(&self) -> bool {
        matches!(self.payload, Payload::Result { input_required: true, .. })
    }

    /// The result of a tool that answered one plain text block, written
    /// directly: byte for byte what [`result`](Self::result) writes for a
    /// [`Decorated`] `CallToolResult` with that one block, no cache hints
    /// and the server's shared `_meta` (or none), without going through
    /// serde's flattening and tagged enums for the commonest answer.
    pub(crate) fn text_result(id: RequestId, text: &str, meta: Option<&RawValue>) -> Self {
        Self::text_result_after(id, r#"{"resultType":"complete","content":[{"type":"text","text":"#, text, meta)
    }

    /// [`text_result`](Self::text_result) as a 2025-era session reads it:
    /// the content alone.
    #[cfg(feature = "session")]
    pub(crate) fn session_text_result(id: RequestId, text: &str) -> Self {
        Self::text_result_after(id, r#"{"content":[{"type":"text","text":"#, text, None)
    }

    fn text_result_after(id: RequestId, head: &str, text: &str, meta: Option<&RawValue>) -> Self {
        let (mut json, start) = result_head(&id, head.len() + text.len() + 128);
        json.extend_from_slice(head.as_bytes());
        // Writing a string into a vector cannot fail.
        let _ = serde_json::to_writer(&mut json, text);
        json.extend_from_slice(b"}]");
        if let Some(meta) = meta {
            json.extend_from_slice(br#","_meta":"#);
            json.extend_from_slice(meta.get().as_bytes());
        }
        json.extend_from_slice(b"}}");
        Self::written(id, json, start)
    }

    /// A complete result another server wrote (`text`, an object), passed
    /// on as it wrote it: with `"resultType":"complete"` first when it has
    /// no `resultType` (a 2025-era server's), and `meta` (the server's
    /// shared `_meta`) last when given, for a result that has no `_meta`.
    pub(crate) fn passed_result(id: RequestId, text: &str, add_result_type: bool, meta: Option<&RawValue>) -> Self {
        const RESULT_TYPE: &[u8] = br#""resultType":"complete""#;
        let members = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')).unwrap_or_default().trim();
        let (mut json, start) = result_head(&id, text.len() + meta.map_or(0, |m| m.get().len()) + 40);
        json.push(b'{');
        if add_result_type {
            json.extend_from_slice(RESULT_TYPE);
        }
        if !members.is_empty() {
            if add_result_type {
                json.push(b',');
            }
            json.extend_from_slice(members.as_bytes());
        }
        if let Some(meta) = meta {
            if json.len() > start + 1 {
                json.push(b',');
            }
            json.extend_from_slice(br#""_meta":"#);
            json.extend_from_slice(meta.get().as_bytes());
        }
        json.extend_from_slice(b"}}");
        Self::written(id, json, start)
    }

    /// The request id; `None` only when it could not be read.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// Where in the pipeline the response was produced.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The error, if this is an error response.
    pub fn as_error(&self) -> Option<&ErrorObject> {
        match &self.payload {
            Payload::Error(e) => Some(e),
            Payload::Result { .. } => None,
        }
    }

    /// The result object as JSON text, if this is a success.
    pub fn as_result(&self) -> Option<&str> {
        match &self.payload {
            Payload::Result { json, start, .. } => std::str::from_utf8(&json[*start..json.len() - 1]).ok(),
            Payload::Error(_) => None,
        }
    }

    /// The HTTP status this response travels with over Streamable HTTP.
    ///
    /// `-32601` is 404; `-32020`, `-32021`, `-32022`, envelope errors and a
    /// malformed `_meta` are 400; errors found after routing (unknown tool,
    /// missing resource, handler failures) ride on 200 like results.
    pub fn http_status(&self) -> u16 {
        let Payload::Error(e) = &self.payload else { return 200 };
        match e.kind() {
            Some(ErrorCode::MethodNotFound) => 404,
            Some(
                ErrorCode::HeaderMismatch
                | ErrorCode::MissingRequiredClientCapability
                | ErrorCode::UnsupportedProtocolVersion
                | ErrorCode::ParseError
                | ErrorCode::InvalidRequest,
            ) => 400,
            _ if matches!(self.stage, Stage::Envelope | Stage::Meta | Stage::Headers | Stage::Version) => 400,
            _ => 200,
        }
    }

    /// The response as one line of compact JSON.
    pub fn to_json(&self) -> String {
        match &self.payload {
            Payload::Result { json, .. } => String::from_utf8_lossy(json).into_owned(),
            Payload::Error(_) => self.error_json(),
        }
    }

    /// [`to_json`](Self::to_json), without copying a result.
    pub fn into_json(self) -> String {
        match self.payload {
            Payload::Result { json, .. } => {
                String::from_utf8(json).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            }
            Payload::Error(_) => self.error_json(),
        }
    }

    /// [`into_json`](Self::into_json) as bytes, for writers: a result is
    /// handed over as serialized, without reading it again.
    pub fn into_bytes(self) -> Vec<u8> {
        match self.payload {
            Payload::Result { json, .. } => json,
            Payload::Error(_) => self.error_json().into_bytes(),
        }
    }

    fn error_json(&self) -> String {
        // Serializing an id and plain data cannot fail.
        serde_json::to_string(self)
            .unwrap_or_else(|_| String::from(r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#))
    }

    /// The response as a [`Value`], convenient in tests.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.to_json()).unwrap_or(Value::Null)
    }
}

/// `{"jsonrpc":"2.0","id":<id>,"result":` with room for `room` more bytes,
/// and where the result will start.
fn result_head(id: &RequestId, room: usize) -> (Vec<u8>, usize) {
    const HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &str = r#","result":"#;
    let mut json = Vec::with_capacity(HEAD.len() + id.json_bytes().len() + RESULT.len() + room);
    json.extend_from_slice(HEAD.as_bytes());
    json.extend_from_slice(id.json_bytes());
    json.extend_from_slice(RESULT.as_bytes());
    let start = json.len();
    (json, start)
}

impl Serialize for Response {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", "2.0")?;
        if let Some(id) = &self.id {
            map.serialize_entry("id", id)?;
        }
        match &self.payload {
            Payload::Result { .. } => {
                let raw: &RawValue =
                    serde_json::from_str(self.as_result().unwrap_or("null")).map_err(S::Error::custom)?;
                map.serialize_entry("result", raw)?;
            }
            Payload::Error(e) => map.serialize_entry("error", e)?,
        }
        map.end()
    }
}

/// A result body plus the fields every result carries. The body's own
/// `_meta` must have been moved into `meta` first.
#[derive(Serialize)]
pub(crate) struct Decorated<'a, T> {
    #[serde(rename = "resultType")]
    pub(crate) result_type: ResultType,
    #[serde(flatten)]
    pub(crate) body: &'a T,
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    pub(crate) ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    pub(crate) cache_scope: Option<CacheScope>,
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_none")]
    pub(crate) meta: Meta<'a>,
}

/// The result's `_meta`: the server's precomputed one, or a merged map when
/// the handler set its own keys.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Meta<'a> {
    None,
    Shared(&'a RawValue),
    Merged(Map<String, Value>),
}

impl Meta<'_> {
    fn is_none(&self) -> bool {
        matches!(self, Meta::None)
    }
}

/// One page of a list: `{<key>: [...], nextCursor?}` from pre-serialized items.
pub(crate) struct Page<'a> {
    pub(crate) key: &'static str,
    pub(crate) items: Vec<&'a RawValue>,
    pub(crate) next_cursor: Option<String>,
}

impl Serialize for Page<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(self.key, &self.items)?;
        if let Some(c) = &self.next_cursor {
            map.serialize_entry("nextCursor", c)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_result_is_serialized_once_and_read_back_in_every_form() {
        let id = RequestId::from_json(r#""call-7""#).expect("a string id");
        let response = Response::result(id, &json!({"content": [], "resultType": "complete"}), 0).expect("serializes");
        let text = r#"{"jsonrpc":"2.0","id":"call-7","result":{"content":[],"resultType":"complete"}}"#;
        assert_eq!(response.as_result(), Some(r#"{"content":[],"resultType":"complete"}"#));
        assert_eq!(response.to_json(), text);
        assert_eq!(serde_json::to_string(&response).expect("serializes"), text);
        assert_eq!(response.http_status(), 200);
        assert!(response.as_error().is_none());
        assert_eq!(response.clone().into_json(), text);
        assert_eq!(response.into_bytes(), text.as_bytes());
    }

    #[test]
    fn a_plain_text_result_is_written_as_the_general_serialization_writes_it() {
        use crate::protocol::{CallToolResult, ResultType};

        let server_meta =
            RawValue::from_string(r#"{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}"#.to_owned())
                .expect("JSON");
        let texts = ["", "hello", "quote \" and backslash \\", "line\nbreak\ttab\u{1}", "été 🦀 \u{2028}", "</script>"];
        for id in [RequestId::from(7), RequestId::string("call-1")] {
            for text in texts {
                for meta in [Some(&*server_meta), None] {
                    let body = CallToolResult::text(text);
                    let decorated = Decorated {
                        result_type: ResultType::Complete,
                        body: &body,
                        ttl_ms: None,
                        cache_scope: None,
                        meta: meta.map_or(Meta::None, Meta::Shared),
                    };
                    let general = Response::result(id.clone(), &decorated, 0).expect("serializes");
                    let direct = Response::text_result(id.clone(), text, meta);
                    assert_eq!(direct.to_json(), general.to_json(), "for {text:?}");
                    assert_eq!(direct.as_result(), general.as_result(), "for {text:?}");
                }
            }
        }
    }

    #[test]
    fn a_passed_result_is_the_text_it_was_with_what_it_lacks() {
        let meta =
            RawValue::from_string(r#"{"io.modelcontextprotocol/serverInfo":{"name":"s"}}"#.to_owned()).expect("JSON");
        let id = RequestId::from(3);
        let passed = |text: &str, add: bool, meta: Option<&RawValue>| {
            let response = Response::passed_result(id.clone(), text, add, meta);
            let result = response.as_result().expect("a result").to_owned();
            let read: Value = serde_json::from_str(&response.to_json()).expect("JSON");
            assert_eq!(read["result"], serde_json::from_str::<Value>(&result).expect("JSON"), "{text}");
            result
        };
        let text = r#"{"resultType":"complete","content":[{"type":"text","text":"}"}],"x":1.50}"#;
        assert_eq!(passed(text, false, None), text, "as written, numbers and all");
        assert_eq!(
            passed(r#"{ "content": [] }"#, true, Some(&meta)),
            r#"{"resultType":"complete","content": [],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"}}}"#
        );
        assert_eq!(passed("{ }", true, None), r#"{"resultType":"complete"}"#);
        assert_eq!(
            passed("{}", false, Some(&meta)),
            r#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"}}}"#
        );
        assert_eq!(passed("{}", false, None), "{}");
    }

    #[test]
    fn an_error_has_no_result() {
        let response = Response::error(None, ErrorObject::invalid_request("no"), Stage::Envelope);
        assert_eq!(response.as_result(), None);
        assert_eq!(response.http_status(), 400);
        assert_eq!(response.to_json(), response.clone().into_json());
        assert_eq!(response.to_json().as_bytes(), response.clone().into_bytes());
        assert!(!response.to_json().contains("\"id\""));
    }
}
