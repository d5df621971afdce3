//! The fast reader of a common `tools/call` request: envelope, `_meta` and
//! the call's params in one pass over its bytes.
//!
//! The general reading ([`super::envelope`]) keeps `params` as raw JSON until
//! the method is known, and the dispatcher then reads `params` again for
//! `_meta`, again for the method's own fields, and `_meta` once more. Most
//! requests put `method` before `params`, as every SDK writes them; for the
//! hottest method, `tools/call`, that order lets the call's params be read
//! as they stream by, with `_meta` taken aside as text and read through
//! [`super::meta_cache`] (a client repeats the same one). Anything unusual
//! (another order, another method, a duplicate or escaped member, an invalid
//! `_meta`, invalid params) makes this reading give up, and the general one
//! runs instead: it alone decides what is an error and which, so both always
//! answer alike. Giving up costs a second reading, only for such messages.

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::meta_cache;
use super::method::Method;
// Re-exported so that the dispatcher's path through the reader holds.
pub(super) use super::request::ReadCall;
use super::request::{Params, Request};
use crate::protocol::member::MemberName;
use crate::protocol::{CallToolParams, RequestId};

/// The request in `text` if it is a well-formed `tools/call` request with
/// `method` before `params`; `None` sends the caller to the general reading.
pub(super) fn read_request(text: &str) -> Option<Request> {
    let (id, params, meta) = read_call(text)?;
    let meta = meta_cache::read(meta?.get()).ok()?;
    Some(Request::read(id, Method::ToolsCall.name(), Params::Call(ReadCall { meta, params })))
}

/// A well-formed `tools/call` request with `method` before `params`, read
/// in one pass: its id, its params, and its `params._meta` as sent (none
/// is an answer too: a 2025-era session's request carries none). `None`
/// for anything else.
pub(crate) fn read_call(text: &str) -> Option<(RequestId, CallToolParams, Option<&RawValue>)> {
    let envelope = serde_json::from_str::<Envelope<'_>>(text).ok()?;
    let id = RequestId::from_json(envelope.id?.get())?;
    let (params, meta) = envelope.params?;
    Some((id, params, meta))
}

struct Envelope<'a> {
    id: Option<&'a RawValue>,
    params: Option<(CallToolParams, Option<&'a RawValue>)>,
}

/// Gives up on the fast reading; the message is then read in full the
/// general way, which names the problem if there is one.
fn give_up<E: serde::de::Error>() -> E {
    E::custom("not the common shape")
}

impl<'de: 'a, 'a> Deserialize<'de> for Envelope<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Envelope<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC request")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'a>, A::Error> {
                let (mut version, mut id, mut method, mut params) = (false, None, false, None);
                while let Some(MemberName(key)) = map.next_key::<MemberName<'de>>()? {
                    match &*key {
                        "jsonrpc" if !version => {
                            version = map.next_value::<&RawValue>()?.get() == "\"2.0\"";
                            if !version {
                                return Err(give_up());
                            }
                        }
                        "id" if id.is_none() => id = Some(map.next_value::<&RawValue>()?),
                        "method" if !method => {
                            method = map.next_value::<&str>()? == Method::ToolsCall.name();
                            if !method {
                                return Err(give_up());
                            }
                        }
                        "params" if method && params.is_none() => params = Some(map.next_value_seed(CallSeed)?),
                        "jsonrpc" | "id" | "method" | "params" | "result" | "error" => return Err(give_up()),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                if !version {
                    return Err(give_up());
                }
                Ok(Envelope { id, params })
            }
        }

        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// Reads `tools/call` params, taking `_meta` aside as sent.
struct CallSeed;

impl<'de> DeserializeSeed<'de> for CallSeed {
    type Value = (CallToolParams, Option<&'de RawValue>);

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CallSeed {
    type Value = (CallToolParams, Option<&'de RawValue>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("tools/call params")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut meta = None;
        let params = CallToolParams::deserialize(serde::de::value::MapAccessDeserializer::new(WithoutMeta {
            map,
            meta: &mut meta,
        }))?;
        Ok((params, meta))
    }
}

/// An object's members with `_meta` kept aside in `meta` rather than passed on.
struct WithoutMeta<'m, 'de, A> {
    map: A,
    meta: &'m mut Option<&'de RawValue>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutMeta<'_, 'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        loop {
            match self.map.next_key::<MemberName<'de>>()? {
                None => return Ok(None),
                Some(MemberName(key)) if key == "_meta" => {
                    if self.meta.is_some() {
                        return Err(give_up());
                    }
                    *self.meta = Some(self.map.next_value::<&'de RawValue>()?);
                }
                Some(name) => return seed.deserialize(name.into_deserializer()).map(Some),
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::read_request;

    const META: &str =
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn message(members: &str) -> String {
        format!("{{{members}}}")
    }

    #[test]
    fn the_common_shape_is_read_in_one_pass_and_anything_else_is_left_to_the_general_reading() {
        let params = format!(r#"{{"name":"add","arguments":{{"a":1}},"_meta":{META}}}"#);
        let common = message(&format!(r#""jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}"#));
        let request = read_request(&common).expect("read in one pass");
        assert_eq!((request.id().as_json(), request.method()), ("1", "tools/call"));

        for odd in [
            format!(r#""jsonrpc":"2.0","id":1,"params":{params},"method":"tools/call""#),
            format!(r#""jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}"#),
            format!(r#""jsonrpc":"2.0","id":1,"method":"tools\/call","params":{params}"#),
            format!(r#""jsonrpc":"2.0","id":null,"method":"tools/call","params":{params}"#),
            format!(r#""jsonrpc":"2.0","method":"tools/call","params":{params}"#),
            format!(r#""jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{params}"#),
            format!(r#""jsonrpc":"1.0","id":1,"method":"tools/call","params":{params}"#),
            format!(r#""jsonrpc":"2.0","id":1,"method":"tools/call","params":{params},"result":{{}}"#),
            r#""jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}"#.to_owned(),
            format!(r#""jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":5,"_meta":{META}}}"#),
            r#""jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","_meta":{}}"#.to_owned(),
        ] {
            assert!(read_request(&message(&odd)).is_none(), "read in one pass: {odd}");
        }
    }
}
