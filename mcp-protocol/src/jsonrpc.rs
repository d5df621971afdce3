//! The JSON-RPC 2.0 envelope: request ids, error objects and the messages a
//! server sends.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The JSON-RPC version string every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// A JSON-RPC request id: a string or an integer, kept as the exact JSON text
/// the client sent.
///
/// Keeping the text (rather than parsing it into `i64`) means ids such as
/// `12345678901234567890123` or `"0x01"` are echoed byte for byte, which is
/// what lets a client correlate the response.
///
/// ```
/// use mcp_runtime_protocol::RequestId;
/// let id = RequestId::from_json("98765432109876543210").unwrap();
/// assert_eq!(id.as_json(), "98765432109876543210");
/// assert_eq!(RequestId::from(7).as_json(), "7");
/// assert!(RequestId::from_json("null").is_none());
/// let long = r#""a request id longer than a few words""#;
/// assert_eq!(RequestId::from_json(long).unwrap().as_json(), long);
/// assert_eq!(RequestId::from_json(long), RequestId::from_json(long));
/// ```
#[derive(Clone)]
pub struct RequestId(Text);

/// The JSON text of an id: inline when short (every integer that fits 64
/// bits, most strings), so that reading and copying it never allocates.
#[derive(Clone)]
enum Text {
    Inline { len: u8, bytes: [u8; INLINE] },
    Shared(Arc<str>),
}

const INLINE: usize = 22;

impl Text {
    fn new(text: &str) -> Self {
        if text.len() > INLINE {
            return Text::Shared(Arc::from(text));
        }
        let mut bytes = [0; INLINE];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Text::Inline { len: text.len() as u8, bytes }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Text::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Text::Shared(text) => text.as_bytes(),
        }
    }

    fn get(&self) -> &str {
        match self {
            // Copied from a `&str` whole, so always UTF-8.
            Text::Inline { len, bytes } => std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default(),
            Text::Shared(text) => text,
        }
    }
}

impl RequestId {
    /// Parses the JSON text of an id. Returns `None` unless it is a JSON
    /// string of Unicode text (no lone surrogate escape) or an integer (no
    /// fraction, no exponent) within the range of a JSON number as readers
    /// hold it (an `f64`: about ±1.8e308).
    ///
    /// ```
    /// use mcp_runtime_protocol::RequestId;
    /// assert!(RequestId::from_json("123456789012345678901234567890").is_some());
    /// assert!(RequestId::from_json("1.5").is_none());
    /// assert!(RequestId::from_json(&"9".repeat(400)).is_none());
    /// assert!(RequestId::from_json(r#""caf\u00e9""#).is_some());
    /// assert!(RequestId::from_json(r#""\ud800""#).is_none());
    /// ```
    pub fn from_json(text: &str) -> Option<Self> {
        let text = text.trim();
        (is_json_integer(text) || is_json_string(text)).then(|| RequestId(Text::new(text)))
    }

    /// A string id.
    pub fn string(value: &str) -> Self {
        RequestId(Text::new(&serde_json::to_string(value).unwrap_or_else(|_| String::from("\"\""))))
    }

    /// The exact JSON text of the id.
    pub fn as_json(&self) -> &str {
        self.0.get()
    }

    /// [`as_json`](Self::as_json) as bytes, for writers (without checking
    /// the UTF-8 it always is).
    #[doc(hidden)]
    pub fn json_bytes(&self) -> &[u8] {
        self.0.bytes()
    }

    /// The id as a [`serde_json::Value`]: exact for strings and for
    /// integers that fit 64 bits (see [`has_exact_value`](Self::has_exact_value));
    /// a larger integer becomes the nearest `f64`, as in any `Value`.
    ///
    /// ```
    /// use mcp_runtime_protocol::RequestId;
    /// assert_eq!(RequestId::from_json("-0").unwrap().to_value(), serde_json::json!(0));
    /// assert_eq!(RequestId::from(-7).to_value(), serde_json::json!(-7));
    /// ```
    pub fn to_value(&self) -> Value {
        let text = self.as_json();
        if let Ok(n) = text.parse::<i64>() {
            // Also "-0", which serde_json would read as the float -0.0.
            return Value::from(n);
        }
        serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
    }

    /// Whether [`to_value`](Self::to_value) is exact: a string, or an
    /// integer within `i64` or `u64`.
    pub fn has_exact_value(&self) -> bool {
        let text = self.as_json();
        text.starts_with('"') || text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok()
    }
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        RequestId(Text::new(&value.to_string()))
    }
}

impl From<&str> for RequestId {
    fn from(value: &str) -> Self {
        RequestId::string(value)
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RequestId({})", self.as_json())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The text was checked to be JSON when the id was made.
        let raw: &RawValue = serde_json::from_str(self.as_json()).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        RequestId::from_json(raw.get()).ok_or_else(|| {
            serde::de::Error::custom(
                "a request id must be a string of Unicode text or an integer within the range of a JSON number",
            )
        })
    }
}

impl PartialEq for RequestId {
    fn eq(&self, other: &Self) -> bool {
        self.as_json() == other.as_json()
    }
}

impl Eq for RequestId {}

impl std::hash::Hash for RequestId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_json().hash(state);
    }
}

/// A JSON string that decodes to Unicode text. The JSON grammar admits a
/// lone surrogate escape (`"\ud800"`) that most readers refuse (serde_json:
/// "unexpected end of hex escape"), so an id holding one would make the
/// response that echoes it unreadable; escapes are decoded to find out.
fn is_json_string(text: &str) -> bool {
    text.len() >= 2
        && text.starts_with('"')
        && (serde_json::from_str::<&str>(text).is_ok()
            || (text.contains('\\') && serde_json::from_str::<String>(text).is_ok()))
}

/// An integer of at most this many digits is below 1e308, within the range
/// of an `f64` (`f64::MAX` is about 1.8e308); a longer one is parsed to tell.
const MAX_FINITE_DIGITS: usize = 308;

/// An integer in JSON syntax that a JSON reader can hold as a number: past
/// the range of an `f64` most readers refuse the whole message (serde_json:
/// "number out of range"), so echoing such an id would make the response
/// unreadable to the client that sent it.
fn is_json_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && (digits.len() <= MAX_FINITE_DIGITS || text.parse::<f64>().is_ok_and(f64::is_finite))
}

/// A JSON-RPC error object: `{code, message, data?}`.
///
/// Build one with the constructors named after the protocol's error codes:
///
/// ```
/// use mcp_runtime_protocol::ErrorObject;
/// let err = ErrorObject::invalid_params("unknown tool: `nope`");
/// assert_eq!(err.code, -32602);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code (see [`ErrorCode`]).
    pub code: i32,
    /// One short sentence describing the error.
    pub message: String,
    /// Structured details, when the code defines them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The error codes a 2026-07-28 server emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `-32700`: the message is not valid JSON.
    ParseError,
    /// `-32600`: the JSON is not a valid JSON-RPC request.
    InvalidRequest,
    /// `-32601`: unknown, removed or unadvertised method.
    MethodNotFound,
    /// `-32602`: invalid params (including a missing `_meta` and an unknown resource).
    InvalidParams,
    /// `-32603`: an unexpected failure inside the server.
    InternalError,
    /// `-32020`: an HTTP header disagrees with the body.
    HeaderMismatch,
    /// `-32021`: the request lacks a client capability the operation needs.
    MissingRequiredClientCapability,
    /// `-32022`: the requested protocol version is not supported.
    UnsupportedProtocolVersion,
}

impl ErrorCode {
    /// The numeric code on the wire.
    pub const fn code(self) -> i32 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::HeaderMismatch => -32020,
            ErrorCode::MissingRequiredClientCapability => -32021,
            ErrorCode::UnsupportedProtocolVersion => -32022,
        }
    }

    /// The code for a numeric value, if it is one of ours.
    pub const fn from_code(code: i32) -> Option<Self> {
        Some(match code {
            -32700 => ErrorCode::ParseError,
            -32600 => ErrorCode::InvalidRequest,
            -32601 => ErrorCode::MethodNotFound,
            -32602 => ErrorCode::InvalidParams,
            -32603 => ErrorCode::InternalError,
            -32020 => ErrorCode::HeaderMismatch,
            -32021 => ErrorCode::MissingRequiredClientCapability,
            -32022 => ErrorCode::UnsupportedProtocolVersion,
            _ => return None,
        })
    }
}

impl ErrorObject {
    /// An error with a code and a message, without data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject { code: code.code(), message: message.into(), data: None }
    }

    /// Adds structured data.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700` Parse error.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ParseError, message)
    }

    /// `-32600` Invalid Request.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    /// `-32601` Method not found, naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(ErrorCode::MethodNotFound, format!("Method not found: {method}"))
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidParams, message)
    }

    /// `-32602` for a resource URI that names nothing, with `data.uri`.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::invalid_params(format!("Resource not found: {uri}")).with_data(serde_json::json!({ "uri": uri }))
    }

    /// `-32603` Internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InternalError, message)
    }

    /// `-32020` HeaderMismatch.
    pub fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::HeaderMismatch, message)
    }

    /// `-32021` with `data.requiredCapabilities` naming what is missing,
    /// as a `ClientCapabilities` object such as `{"sampling": {}}`.
    pub fn missing_client_capability(message: impl Into<String>, required: Value) -> Self {
        Self::new(ErrorCode::MissingRequiredClientCapability, message)
            .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// `-32022` with `data.supported` and `data.requested`.
    pub fn unsupported_version(supported: &[&str], requested: &str) -> Self {
        Self::new(ErrorCode::UnsupportedProtocolVersion, "Unsupported protocol version")
            .with_data(serde_json::json!({ "supported": supported, "requested": requested }))
    }

    /// The code as an [`ErrorCode`], if it is one of the protocol's.
    pub fn kind(&self) -> Option<ErrorCode> {
        ErrorCode::from_code(self.code)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// A notification the server sends: `{jsonrpc, method, params}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The notification method, e.g. `notifications/progress`.
    pub method: String,
    /// The notification parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl Notification {
    /// A notification with the given method and params.
    pub fn new(method: impl Into<String>, params: Value) -> Self {
        Notification { jsonrpc: JSONRPC_VERSION.to_owned(), method: method.into(), params: Some(params) }
    }
}
