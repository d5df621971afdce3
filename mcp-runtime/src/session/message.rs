//! Telling the eras apart, and reading a 2025-era message.
//!
//! A message carrying `params._meta["io.modelcontextprotocol/protocolVersion"]`
//! belongs to the stateless 2026-07-28 revision whatever else it carries;
//! everything else on a session is the session's. A message is read once,
//! the way the stateless reader reads one: its members kept as raw slices
//! of the body, `params` copied out whole for the dispatcher to read, and
//! only `params._meta` looked into (for the era, and for the client's own
//! keys such as a progress token). Only what is rare is read into
//! [`Value`]s: the client's answers to our requests, and notifications.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::member::{RawMember, read_members, skip};
use crate::protocol::{CallToolParams, ErrorObject, META_PROTOCOL_VERSION, Method, RequestId};

/// One message as a 2025-era session reads it.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A 2026-07-28 message: `params._meta` names its protocol version.
    Stateless,
    /// JSON, but no message a session reads (the stateless reader, where it
    /// runs, says what is wrong with it).
    Unreadable,
    /// A request.
    Request(SessionRequest),
    /// A notification.
    Notification { method: String, params: Option<Box<RawValue>> },
    /// The client's answer to one of our requests.
    Answer { id: Value, outcome: Result<Value, ErrorObject> },
    /// Several messages in one (2025-03-26 only).
    Batch(Vec<Box<RawValue>>),
}

/// A request of a session, as read.
#[derive(Debug)]
pub(crate) struct SessionRequest {
    pub(crate) id: RequestId,
    pub(crate) method: Cow<'static, str>,
    pub(crate) params: SessionParams,
    /// The client's own `params._meta`, when it sent one.
    pub(crate) meta: Option<Box<RawValue>>,
}

/// A session request's params, as far as they were read with the message.
#[derive(Debug)]
pub(crate) enum SessionParams {
    /// As sent (an object unless the client erred; `None` for none),
    /// `_meta` included.
    Raw(Option<Box<RawValue>>),
    /// A `tools/call`'s, read in the same pass as the message.
    Call(CallToolParams),
}

impl SessionParams {
    /// Whether they are absent or an object, as every method wants.
    pub(crate) fn is_object(&self) -> bool {
        match self {
            SessionParams::Raw(Some(raw)) => raw.get().starts_with('{'),
            SessionParams::Raw(None) | SessionParams::Call(_) => true,
        }
    }

    /// The params as a [`Value`] (for the rare readers that want one: an
    /// observation that records them, the methods served by the session).
    pub(crate) fn to_value(&self) -> Option<Value> {
        match self {
            SessionParams::Raw(raw) => value_of(raw.as_deref()),
            SessionParams::Call(call) => {
                let mut params = Map::new();
                params.insert("name".to_owned(), Value::from(call.name.as_str()));
                if let Some(arguments) = value_of(call.arguments.as_deref()) {
                    params.insert("arguments".to_owned(), arguments);
                }
                Some(Value::Object(params))
            }
        }
    }
}

/// Whether `"initialize"` appears in the raw message, quotes included: a
/// vectorized search, no parsing, that lets a stateless message skip the
/// 2025-era reading. A false positive (the word inside some other string)
/// only costs that reading.
pub(crate) fn mentions_initialize(bytes: &[u8]) -> bool {
    mentions(bytes, b"\"initialize\"")
}

/// Whether `"ping"` appears in the raw message, quotes included (see
/// [`mentions_initialize`]).
#[cfg(feature = "stdio")]
pub(crate) fn mentions_ping(bytes: &[u8]) -> bool {
    mentions(bytes, b"\"ping\"")
}

fn mentions(bytes: &[u8], word: &[u8]) -> bool {
    memchr::memmem::find(bytes, word).is_some()
}

/// Reads one message; `Err` when `bytes` are not JSON at all.
pub(crate) fn read(bytes: &[u8]) -> Result<Incoming, serde_json::Error> {
    if let Some(call) = read_call(bytes) {
        return Ok(Incoming::Request(call));
    }
    match serde_json::from_slice::<Shape<'_>>(bytes) {
        Ok(shape) => Ok(shape.into_incoming()),
        // Valid JSON up to a value that is neither an object nor an array.
        Err(e) if e.is_data() => Ok(Incoming::Unreadable),
        Err(e) => Err(e),
    }
}

/// A session's `tools/call` in the shape every SDK writes it (`method`
/// before `params`), read in one pass as the stateless path reads one;
/// `None` sends anything else (a stateless call included) to the general
/// reading.
fn read_call(bytes: &[u8]) -> Option<SessionRequest> {
    let (id, params, meta) = crate::dispatch::read_call(std::str::from_utf8(bytes).ok()?)?;
    if meta.is_some_and(is_stateless_meta) {
        return None;
    }
    let method = Cow::Borrowed(Method::ToolsCall.name());
    Some(SessionRequest { id, method, params: SessionParams::Call(params), meta: meta.map(RawValue::to_owned) })
}

/// Reads one message of a batch.
pub(crate) fn read_raw(item: &RawValue) -> Incoming {
    read(item.get().as_bytes()).unwrap_or(Incoming::Unreadable)
}

impl Incoming {
    /// Whether this names `initialize` (as a request, or wrongly as a
    /// notification, which `initialize` then refuses).
    pub(crate) fn is_initialize(&self) -> bool {
        match self {
            Incoming::Request(SessionRequest { method, .. }) => method == Method::Initialize.name(),
            Incoming::Notification { method, .. } => method == Method::Initialize.name(),
            _ => false,
        }
    }
}

/// A parsed value, owned, from raw params (for the rare readers that want
/// a [`Value`]: notifications, `initialize`, `logging/setLevel`, …).
pub(crate) fn value_of(raw: Option<&RawValue>) -> Option<Value> {
    raw.and_then(|raw| serde_json::from_str(raw.get()).ok())
}

/// A message as read from the body: an object's members raw, or an
/// array's items raw.
enum Shape<'a> {
    Object(Envelope<'a>),
    Array(Vec<Box<RawValue>>),
}

/// The members of a JSON-RPC message, raw.
struct Envelope<'a> {
    jsonrpc: RawMember<'a>,
    id: RawMember<'a>,
    method: RawMember<'a>,
    params: RawMember<'a>,
    result: RawMember<'a>,
    error: RawMember<'a>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Shape<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Shape<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC message or a batch of them")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape<'a>, A::Error> {
                const NAMES: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
                let mut members = [RawMember::default(); NAMES.len()];
                read_members(&mut map, &NAMES, &mut members, skip)?;
                let [jsonrpc, id, method, params, result, error] = members;
                Ok(Shape::Object(Envelope { jsonrpc, id, method, params, result, error }))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape<'a>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Box<RawValue>>()? {
                    items.push(item);
                }
                Ok(Shape::Array(items))
            }
        }

        deserializer.deserialize_any(Visit(std::marker::PhantomData))
    }
}

impl Shape<'_> {
    fn into_incoming(self) -> Incoming {
        match self {
            Shape::Array(items) if !items.is_empty() => Incoming::Batch(items),
            Shape::Array(_) => Incoming::Unreadable,
            Shape::Object(envelope) => envelope.into_incoming(),
        }
    }
}

/// `member`, unless the object held it twice (which would leave a guess).
fn once(member: RawMember<'_>) -> Result<Option<&RawValue>, ()> {
    if member.repeated { Err(()) } else { Ok(member.value) }
}

impl Envelope<'_> {
    fn into_incoming(self) -> Incoming {
        self.read().unwrap_or(Incoming::Unreadable)
    }

    fn read(self) -> Result<Incoming, ()> {
        if once(self.jsonrpc)?.map(RawValue::get) != Some("\"2.0\"") {
            return Err(());
        }
        // `null` params are no params.
        let params = once(self.params)?.filter(|p| p.get() != "null");
        let meta = match params {
            Some(params) => params_meta(params)?,
            None => None,
        };
        if meta.is_some_and(is_stateless_meta) {
            return Ok(Incoming::Stateless);
        }
        let (id, method) = (once(self.id)?, once(self.method)?);
        match (method, id) {
            (Some(method), id) => {
                let method: String = serde_json::from_str(method.get()).map_err(drop)?;
                let params = params.map(RawValue::to_owned);
                match id {
                    None => Ok(Incoming::Notification { method, params }),
                    Some(id) => {
                        let id = RequestId::from_json(id.get()).ok_or(())?;
                        let method = match Method::parse(&method) {
                            Some(known) => Cow::Borrowed(known.name()),
                            None => Cow::Owned(method),
                        };
                        let (params, meta) = (SessionParams::Raw(params), meta.map(RawValue::to_owned));
                        Ok(Incoming::Request(SessionRequest { id, method, params, meta }))
                    }
                }
            }
            (None, Some(id)) => {
                let outcome = match (once(self.result)?, once(self.error)?) {
                    (Some(result), None) => Ok(serde_json::from_str(result.get()).map_err(drop)?),
                    (None, Some(error)) => Err(serde_json::from_str(error.get())
                        .unwrap_or_else(|_| ErrorObject::internal("The client answered with a malformed error"))),
                    _ => return Err(()),
                };
                Ok(Incoming::Answer { id: serde_json::from_str(id.get()).map_err(drop)?, outcome })
            }
            (None, None) => Err(()),
        }
    }
}

/// `params._meta`, raw; `Err` when `params` repeats it. Params that are
/// not an object have none: the session refuses them with a precise error.
fn params_meta(params: &RawValue) -> Result<Option<&RawValue>, ()> {
    if !params.get().starts_with('{') {
        return Ok(None);
    }
    let mut member = [RawMember::default()];
    MembersSeed { names: &["_meta"], members: &mut member }
        .deserialize(&mut serde_json::Deserializer::from_str(params.get()))
        .map_err(drop)?;
    once(member[0])
}

/// Whether a `_meta` names the stateless revision's protocol version (with
/// any value: a malformed one is the stateless reader's to refuse).
fn is_stateless_meta(meta: &RawValue) -> bool {
    let mut member = [RawMember::default()];
    let read = MembersSeed { names: &[META_PROTOCOL_VERSION], members: &mut member }
        .deserialize(&mut serde_json::Deserializer::from_str(meta.get()));
    read.is_ok() && member[0].value.is_some()
}

/// Reads the named members of one object, raw.
struct MembersSeed<'n, 'm, 'a> {
    names: &'n [&'n str],
    members: &'m mut [RawMember<'a>],
}

impl<'de> DeserializeSeed<'de> for MembersSeed<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MembersSeed<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        read_members(&mut map, self.names, self.members, skip)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn of(value: Value) -> Incoming {
        read(value.to_string().as_bytes()).expect("JSON")
    }

    #[test]
    fn initialize_is_found_only_as_a_string() {
        assert!(mentions_initialize(br#"{"jsonrpc":"2.0","id":1,"method": "initialize"}"#));
        assert!(!mentions_initialize(br#"{"method":"tools/call","params":{"name":"initializer"}}"#));
        assert!(!mentions_initialize(b"initialize"));
    }

    #[cfg(feature = "stdio")]
    #[test]
    fn ping_is_found_only_as_a_string() {
        assert!(mentions_ping(br#"{"method":"ping"}"#) && !mentions_ping(br#"{"method":"pings"}"#));
    }

    #[test]
    fn the_stateless_meta_decides_the_era() {
        let stateless = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}});
        assert!(matches!(of(stateless), Incoming::Stateless));
        let session =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"progressToken": 1}}});
        let Incoming::Request(SessionRequest { method, meta, params, .. }) = of(session) else { panic!("a request") };
        assert_eq!(method, "tools/list");
        assert_eq!(meta.expect("its _meta").get(), r#"{"progressToken":1}"#);
        let SessionParams::Raw(Some(params)) = params else { panic!("its params, raw") };
        assert_eq!(params.get(), r#"{"_meta":{"progressToken":1}}"#);
    }

    #[test]
    fn a_common_call_is_read_in_one_pass_and_a_stateless_one_is_not_the_sessions() {
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                          "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": "p"}}});
        let Incoming::Request(SessionRequest { id, method, params: SessionParams::Call(call), meta }) = of(call) else {
            panic!("read in one pass")
        };
        assert_eq!((id.as_json(), &*method, call.name.as_str()), ("7", "tools/call", "echo"));
        assert_eq!(meta.expect("its _meta").get(), r#"{"progressToken":"p"}"#);
        let stateless = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                            "params": {"name": "echo", "_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}});
        assert!(matches!(of(stateless), Incoming::Stateless));
        // `params` first: the general reading, to the same request.
        let later = br#"{"params":{"name":"echo"},"jsonrpc":"2.0","id":8,"method":"tools/call"}"#;
        let Ok(Incoming::Request(SessionRequest { params: SessionParams::Raw(Some(raw)), .. })) = read(later) else {
            panic!("read the general way")
        };
        assert_eq!(raw.get(), r#"{"name":"echo"}"#);
    }

    #[test]
    fn answers_notifications_and_batches_are_told_apart() {
        assert!(matches!(
            of(json!({"jsonrpc": "2.0", "id": 3, "result": {}})),
            Incoming::Answer { outcome: Ok(_), .. }
        ));
        let error = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "User rejected"}});
        assert!(matches!(of(error), Incoming::Answer { outcome: Err(e), .. } if e.code == -1));
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert!(matches!(of(note), Incoming::Notification { .. }));
        assert!(
            matches!(of(json!([{"jsonrpc": "2.0", "method": "ping", "id": 1}])), Incoming::Batch(items) if items.len() == 1)
        );
        assert!(matches!(of(json!({"jsonrpc": "1.0", "id": 1, "method": "ping"})), Incoming::Unreadable));
    }

    #[test]
    fn what_a_session_cannot_read_is_told_from_what_is_not_json() {
        for unreadable in [
            json!([]),
            json!(5),
            json!({"jsonrpc": "2.0", "id": 1, "method": 7}),
            json!({"jsonrpc": "2.0", "id": {"an": "object"}, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}),
        ] {
            assert!(matches!(of(unreadable.clone()), Incoming::Unreadable), "{unreadable}");
        }
        let twice = br#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}"#;
        assert!(matches!(read(twice), Ok(Incoming::Unreadable)));
        assert!(read(b"{\"jsonrpc\":").is_err());
        assert!(read(b"not json").is_err());
    }
}
