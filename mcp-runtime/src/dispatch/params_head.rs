//! The head of raw params, read before anything else: `_meta`, which every
//! request must carry, and the member naming the method's target
//! (`params.name`, `params.uri` or `params.taskId`), which the `Mcp-Name`
//! header must repeat.

use std::sync::Arc;

use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::meta_cache;
use super::method::Target;
use crate::protocol::member::{RawMember, read_members, skip};
use crate::protocol::{ErrorObject, RequestMeta};

/// What is read of raw params before anything else: `_meta`, and the
/// member naming the request's target, which `Mcp-Name` must repeat.
struct ParamsHead<'a> {
    meta: RawMember<'a>,
    target: RawMember<'a>,
}

/// Reads a [`ParamsHead`] from an object, and only an object: a derived
/// struct would take an array's elements as its fields in order. A member
/// this does not read may repeat; one it reads may not.
struct HeadSeed {
    /// The member naming the target, for the methods that have one.
    target: Option<&'static str>,
}

impl<'de> DeserializeSeed<'de> for HeadSeed {
    type Value = ParamsHead<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<ParamsHead<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HeadSeed {
    type Value = ParamsHead<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsHead<'de>, A::Error> {
        let mut members = [RawMember::default(); 2];
        match self.target {
            Some(target) => read_members(&mut map, &["_meta", target], &mut members, skip)?,
            None => read_members(&mut map, &["_meta"], &mut members[..1], skip)?,
        }
        let [meta, target] = members;
        Ok(ParamsHead { meta, target })
    }
}

/// The message of the error for a request without `params._meta`, which
/// [`missing_meta`] completes with the versions served.
const MISSING_META: &str = "Missing `params._meta`";

/// The error for a request without `params._meta`, naming the versions
/// `served` (a 2025-era client sending `initialize` to a server that does
/// not serve its era learns from it what it would have to speak), with
/// `data.supported` listing them.
pub(super) fn missing_meta(error: ErrorObject, served: &[&str]) -> ErrorObject {
    if error.message != MISSING_META {
        return error;
    }
    let session: Vec<&str> = served.iter().copied().filter(|v| *v != crate::protocol::PROTOCOL_VERSION).collect();
    let mut message = String::from(MISSING_META);
    if served.contains(&crate::protocol::PROTOCOL_VERSION) {
        message.push_str(": a 2026-07-28 request carries `io.modelcontextprotocol/protocolVersion` there");
    }
    if !session.is_empty() {
        message.push_str(&format!("; clients of protocol versions {} open with `initialize`", session.join(", ")));
    } else {
        message.push_str("; this server does not serve `initialize` (protocol versions before 2026-07-28)");
    }
    ErrorObject::invalid_params(message).with_data(serde_json::json!({ "supported": served }))
}

/// Raw params' head: the validated `_meta`, and the method's target member
/// (`params.name`, `params.uri` or `params.taskId`) for the `Mcp-Name` check.
pub(super) fn read(
    target: Option<Target>,
    params: Option<&RawValue>,
) -> Result<(Arc<RequestMeta>, Option<String>), ErrorObject> {
    let target = target.map(Target::member);
    let Some(raw) = params else {
        return Err(ErrorObject::invalid_params(MISSING_META));
    };
    // The text is JSON already, so the only way to fail is not to be an object.
    let head = HeadSeed { target }
        .deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
        .map_err(|_| ErrorObject::invalid_params("`params` must be an object"))?;
    let repeated = |name: &str| ErrorObject::invalid_params(format!("`params.{name}` appears more than once"));
    if head.meta.repeated {
        return Err(repeated("_meta"));
    }
    let Some(raw_meta) = head.meta.value else {
        return Err(ErrorObject::invalid_params(MISSING_META));
    };
    let meta = meta_cache::read(raw_meta.get())
        .map_err(|reason| ErrorObject::invalid_params(format!("Invalid `params._meta`: {reason}")))?;
    if let Some(name) = target.filter(|_| head.target.repeated) {
        return Err(repeated(name));
    }
    let target = head.target.value.and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
    Ok((meta, target))
}
