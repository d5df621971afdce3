//! The envelope: bytes → one JSON-RPC request or notification.

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::nesting;

// Re-exported so that the dispatcher's paths through the envelope hold.
pub(super) use super::request::Params;
pub use super::request::Request;
use super::tools_call_reader::read_request;
use crate::protocol::member::{RawMember, read_members, skip};
use crate::protocol::{ErrorObject, JSONRPC_VERSION, RequestId};
use crate::response::{Response, Stage};

/// A JSON-RPC notification from the client.
#[derive(Debug)]
pub struct ClientNotification {
    /// The method, e.g. `notifications/cancelled`.
    pub method: String,
    /// The params, unparsed.
    pub params: Option<Box<RawValue>>,
}

/// One message from the client.
#[derive(Debug)]
#[non_exhaustive]
pub enum Message {
    /// A request: it gets exactly one response.
    Request(Request),
    /// A notification: it never gets a response.
    Notification(ClientNotification),
}

/// The envelope's members as sent, each kept raw. A member written twice is
/// not an error here: reading on finds the id even when it comes after the
/// repetition, so that the error can carry it.
struct RawEnvelope<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
    /// A member that appeared more than once (`id` if it did).
    repeated: Option<&'static str>,
}

impl<'de: 'a, 'a> Deserialize<'de> for RawEnvelope<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = RawEnvelope<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC message")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEnvelope<'a>, A::Error> {
                const NAMES: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
                let mut members = [RawMember::default(); NAMES.len()];
                read_members(&mut map, &NAMES, &mut members, skip)?;
                let [jsonrpc, id, method, params, result, error] = members;
                // A repeated id cannot be read; any other repeat is reported with it.
                let repeated = if id.repeated {
                    Some("id")
                } else {
                    NAMES.iter().zip(&members).find(|(_, member)| member.repeated).map(|(name, _)| *name)
                };
                // `"id": null` makes an invalid request, not a notification;
                // any other member written `null` counts as absent.
                let present = |member: RawMember<'a>| member.value.filter(|value| value.get() != "null");
                Ok(RawEnvelope {
                    jsonrpc: present(jsonrpc),
                    id: id.value,
                    method: present(method),
                    params: present(params),
                    result: present(result),
                    error: present(error),
                    repeated,
                })
            }
        }

        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

fn reject(id: Option<RequestId>, error: ErrorObject) -> Box<Response> {
    Box::new(Response::error(id, error, Stage::Envelope))
}

/// Parses one message. Errors are responses ready to send: `-32700` for bytes
/// that are not JSON, `-32600` for JSON that is not a single request or
/// notification (echoing the id whenever it could be read).
pub fn parse_message(bytes: &[u8]) -> Result<Message, Box<Response>> {
    // Checked up front: serde_json skips the UTF-8 check inside members it ignores.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(reject(None, ErrorObject::parse_error("Parse error: the message is not UTF-8")));
    };
    if let Some(request) = read_request(text) {
        return within_depth(bytes, Message::Request(request));
    }
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        return Err(match serde_json::from_str::<IgnoredAny>(text) {
            Ok(_) => {
                reject(None, ErrorObject::invalid_request("Batches are not supported: send one message at a time"))
            }
            Err(e) => reject(None, ErrorObject::parse_error(format!("Parse error: {e}"))),
        });
    }
    let env: RawEnvelope<'_> = match serde_json::from_str(text) {
        Ok(env) => env,
        Err(e) if e.is_data() => {
            return Err(reject(None, ErrorObject::invalid_request(format!("Invalid request: {e}"))));
        }
        Err(e) => return Err(reject(None, ErrorObject::parse_error(format!("Parse error: {e}")))),
    };

    let repeated = |name: &str| ErrorObject::invalid_request(format!("`{name}` appears more than once"));
    if env.repeated == Some("id") {
        return Err(reject(None, repeated("id")));
    }
    let id = match env.id {
        None => None,
        Some(raw) => match RequestId::from_json(raw.get()) {
            Some(id) => Some(id),
            None => {
                return Err(reject(
                    None,
                    ErrorObject::invalid_request(
                        "The request id must be a string of Unicode text or an integer within the range of a JSON number",
                    ),
                ));
            }
        },
    };
    if let Some(name) = env.repeated {
        return Err(reject(id, repeated(name)));
    }
    if env.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        let msg = format!("`jsonrpc` must be \"{JSONRPC_VERSION}\"");
        return Err(reject(id, ErrorObject::invalid_request(msg)));
    }
    let method = match env.method {
        Some(raw) => match serde_json::from_str::<String>(raw.get()) {
            Ok(m) => m,
            Err(_) => return Err(reject(id, ErrorObject::invalid_request("`method` must be a string"))),
        },
        None if env.result.is_some() || env.error.is_some() => {
            return Err(reject(id, ErrorObject::invalid_request("A server does not accept responses")));
        }
        None => return Err(reject(id, ErrorObject::invalid_request("Missing `method`"))),
    };
    let params = env.params.map(RawValue::to_owned);
    within_depth(
        bytes,
        match id {
            Some(id) => Message::Request(Request::new(id, method, params)),
            None => Message::Notification(ClientNotification { method, params }),
        },
    )
}

/// `message`, read from `bytes`, unless `bytes` nests deeper than a message
/// may. The parts that were read have been checked by now (serde_json stops
/// at the same depth, with an error naming the part); what is left is depth
/// in a part the readers skipped or kept raw, an unknown member say, which
/// refuses the message as a whole.
fn within_depth(bytes: &[u8], message: Message) -> Result<Message, Box<Response>> {
    if nesting::within(bytes, nesting::MAX_DEPTH) {
        return Ok(message);
    }
    let id = match message {
        Message::Request(request) => Some(request.id().clone()),
        Message::Notification(_) => None,
    };
    let why = format!("Invalid request: arrays and objects nest more than {} deep", nesting::MAX_DEPTH);
    Err(reject(id, ErrorObject::invalid_request(why)))
}
